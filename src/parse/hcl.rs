//! HCL front end: hcl-edit keeps byte spans on every block, attribute and expression.
//!
//! hcl-edit caps nesting at 64 levels and operator chains at 128, so deep input is an error,
//! not a stack overflow, given the 8 MiB stacks `lint` runs parsers on.

use hcl_edit::structure::Body;

use super::SyntaxError;

pub fn parse(text: &str) -> Result<Body, SyntaxError> {
    let first = match hcl_edit::parser::parse_body(text) {
        Ok(body) => return Ok(body),
        Err(e) => SyntaxError {
            offset: e.location().offset(),
            message: e.message().to_string(),
        },
    };
    // Terraform lets a later key of an object constructor replace an earlier one (HCL's
    // ObjectConsExpr keeps the last); hcl-edit rejects the repeat. Rename the earlier
    // key, same length, and read again: the later value wins, as in Terraform.
    let mut text = text.to_string();
    let mut error = first.clone();
    for _ in 0..16 {
        if !error.message.contains("redefined object key") {
            break;
        }
        let Some(earlier) = earlier_key(&text, error.offset) else {
            break;
        };
        text.replace_range(earlier..=earlier, "_");
        match hcl_edit::parser::parse_body(&text) {
            Ok(body) => return Ok(body),
            Err(e) => {
                error = SyntaxError {
                    offset: e.location().offset(),
                    message: e.message().to_string(),
                };
            }
        }
    }
    Err(first)
}

/// Where the earlier copy of the object key at `at` starts: the nearest line above, at
/// the same indentation, that assigns the same key. `None` when there is none such.
fn earlier_key(text: &str, at: usize) -> Option<usize> {
    let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    let indent = line.len() - line.trim_start().len();
    let key: String = line
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if key.is_empty() || !key.is_ascii() {
        return None;
    }
    let mut end = line_start;
    while end > 0 {
        let start = text[..end - 1].rfind('\n').map_or(0, |i| i + 1);
        let prev = text[start..end - 1].trim_end_matches('\r');
        end = start;
        let trimmed = prev.trim_start();
        let depth = prev.len() - trimmed.len();
        if depth < indent && !trimmed.is_empty() {
            // Left the object.
            return None;
        }
        if depth == indent
            && trimmed
                .strip_prefix(key.as_str())
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return Some(start + indent);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use hcl_edit::Span;

    #[test]
    fn spans_are_byte_ranges() {
        let src = "# é\nresource \"aws_instance\" \"x\" {\n  instance_type = \"p5.48xlarge\"\n}\n";
        let body = parse(src).unwrap();
        let block = body.get_blocks("resource").next().unwrap();
        let attr = block.body.get_attribute("instance_type").unwrap();
        assert_eq!(&src[attr.value.span().unwrap()], "\"p5.48xlarge\"");
    }

    #[test]
    fn errors_carry_a_byte_offset() {
        let e = parse("a = 1\nb = {\n").unwrap_err();
        assert!(e.offset >= 6, "{e:?}");
    }

    #[test]
    fn a_repeated_object_key_keeps_the_last_value_as_terraform_does() {
        let src = "x = {\n  min_size = 2\n  max_size = 2\n\n  min_size = 4\n}\n";
        let body = parse(src).unwrap();
        let hcl_edit::expr::Expression::Object(o) = &body.get_attribute("x").unwrap().value else {
            panic!()
        };
        let min: Vec<String> = o
            .iter()
            .filter(|(k, _)| matches!(k, hcl_edit::expr::ObjectKey::Ident(i) if i.as_str() == "min_size"))
            .map(|(_, v)| v.expr().to_string())
            .collect();
        assert_eq!(min, [" 4"]);
        // Spans still index the text as written.
        let attr = body.get_attribute("x").unwrap();
        assert_eq!(attr.value.span().unwrap().end, src.len() - 1);
        // A repeated attribute of a block is an error in Terraform too.
        assert!(parse("a = 1\na = 2\n").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!("x = {}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = parse(&src).unwrap_err();
        assert!(e.message.contains("nesting"), "{e:?}");
    }
}
