//! HCL front end: hcl-edit keeps byte spans on every block, attribute and expression.
//!
//! hcl-edit caps nesting at 64 levels and operator chains at 128, so deep input is an error,
//! not a stack overflow, given the 8 MiB stacks `lint` runs parsers on.

use hcl_edit::structure::Body;

use super::SyntaxError;

pub fn parse(text: &str) -> Result<Body, SyntaxError> {
    hcl_edit::parser::parse_body(text).map_err(|e| SyntaxError {
        offset: e.location().offset(),
        message: e.message().to_string(),
    })
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
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!("x = {}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = parse(&src).unwrap_err();
        assert!(e.message.contains("nesting"), "{e:?}");
    }
}
