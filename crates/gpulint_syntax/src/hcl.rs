//! HCL front end: hcl-edit keeps byte spans on every block, attribute and expression.
//!
//! hcl-edit caps nesting at 64 levels and operator chains at 128, so deep input is an error,
//! not a stack overflow, given the 8 MiB stacks `lint` runs parsers on. It backtracks
//! exponentially when the text ends inside many brackets (fuzzing found 800 bytes of
//! `p/p%{p=p/p…` that took 4 s, doubling with each level), so such a file is reported
//! before hcl-edit sees it (`unclosed`).

use hcl_edit::structure::Body;

use super::SyntaxError;

pub fn parse(text: &str) -> Result<Body, SyntaxError> {
    read_body(text).map_err(|e| explain(text, e))
}

/// [`parse`], reading on where Terraform's own parser stops but what the author meant is
/// plain: a block written on one line with several arguments (`variable "size" { type =
/// string default = "g5.xlarge" }`), which Terraform rejects ("Invalid single-argument
/// block definition"). Each argument after the first is read as if on a line of its own
/// (a blank before it read as a line break, so every offset stays), and the body comes
/// with the error Terraform would give, at the first such argument.
pub fn parse_lenient(text: &str) -> (Option<Body>, Option<SyntaxError>) {
    let first = match read_body(text) {
        Ok(body) => return (Some(body), None),
        Err(e) => e,
    };
    let mut fixed = text.to_string();
    let mut error = first.clone();
    let mut split = 0usize;
    let mut spent = 0usize;
    let budget = (RETRY_READS * text.len()).max(RETRY_BYTES);
    while split < MAX_SPLITS && spent <= budget && split_block(&mut fixed, error.offset) {
        split += 1;
        match read_body(&fixed) {
            Ok(body) => {
                let e = SyntaxError {
                    offset: first.offset,
                    message: format!(
                        "a block written on one line holds more than one argument, which \
                         Terraform rejects (\"Invalid single-argument block definition\"); \
                         gpulint read each argument as if on a line of its own ({split} such \
                         blocks in this file)"
                    ),
                };
                return (Some(body), Some(e));
            }
            Err(e) => {
                spent += e.offset + 1;
                error = e;
            }
        }
    }
    (None, Some(explain(text, first)))
}

/// One-line blocks read apart, at most, in one file.
const MAX_SPLITS: usize = 256;

/// Writes the one-line block whose second argument the parser stopped at (`offset`) over
/// several lines, in place: the blank after its `{`, before each of its arguments after
/// the first, and before its `}` become line breaks, so every offset stays. `false`, and
/// `text` unchanged, when the parser stopped elsewhere or a blank is missing.
fn split_block(text: &mut String, offset: usize) -> bool {
    let bytes = text.as_bytes();
    let blank = |i: usize| matches!(bytes.get(i), Some(b' ' | b'\t'));
    if offset == 0
        || !text.is_char_boundary(offset)
        || !blank(offset - 1)
        || !starts_argument(&text[offset..])
    {
        return false;
    }
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let Some(open) = text[start..offset].find('{').map(|i| start + i) else {
        return false;
    };
    let Some(close) = text[offset..end].rfind('}').map(|i| offset + i) else {
        return false;
    };
    if !blank(open + 1) || !blank(close - 1) {
        return false;
    }
    // Blanks before the arguments at the block's own depth, outside strings.
    let mut breaks = vec![open + 1, close - 1];
    let (mut depth, mut quoted, mut escaped) = (0i32, false, false);
    for i in open + 1..close {
        let b = bytes[i];
        if quoted {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => quoted = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => quoted = true,
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => depth -= 1,
            b' ' | b'\t' if depth == 0 && !blank(i + 1) => {
                let rest = &text[i + 1..close];
                let first = text[open + 1..i].trim().is_empty();
                if !first && starts_argument(rest) {
                    breaks.push(i);
                }
            }
            _ => {}
        }
    }
    for i in breaks {
        text.replace_range(i..=i, "\n");
    }
    true
}

/// Whether text starts with an argument: a name, then `=` (not `==`).
fn starts_argument(rest: &str) -> bool {
    let name = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let after = rest[name..].trim_start_matches([' ', '\t']);
    name > 0
        && rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && after.starts_with('=')
        && !after.starts_with("==")
}

/// A parse error with what it most likely means, where the text says more than the parser.
fn explain(text: &str, mut e: SyntaxError) -> SyntaxError {
    {
        // Old Mac editors end lines with a bare CR, which HCL (and Terraform) does not
        // read as a line break: the whole file is one line, and the error says line 1.
        let bare_cr = text
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'\r' && w[1] != b'\n')
            || text.ends_with('\r');
        if bare_cr {
            e.message.push_str(
                "; its lines end with a bare carriage return (CR), which HCL does not read as \
                 a line break: save it with LF or CRLF line endings",
            );
        }
    }
    e
}

fn read_body(text: &str) -> Result<Body, SyntaxError> {
    if let Some((offset, open)) = unclosed(text).filter(|&(_, open)| open > MAX_UNCLOSED) {
        return Err(SyntaxError {
            offset,
            message: format!(
                "the file ends with {open} brackets (`{{`, `[`, `(`) still open; the outermost \
                 opens here"
            ),
        });
    }
    let read = |text: &str| {
        hcl_edit::parser::parse_body(text).map_err(|e| SyntaxError {
            offset: e.location().offset(),
            message: e.message().to_string(),
        })
    };
    let mut first = match read(text) {
        Ok(body) => return Ok(body),
        Err(e) => e,
    };
    // Line breaks inside a `for` expression, which hcl-edit may misread, read as spaces.
    let mut text = text.to_string();
    if let Some(joined) = join_for_lines(&text) {
        match read(&joined) {
            Ok(body) => return Ok(body),
            Err(e) => first = e,
        }
        text = joined;
    }
    // Terraform lets a later key of an object constructor replace an earlier one (HCL's
    // ObjectConsExpr keeps the last); hcl-edit rejects the repeat. Rename the earlier
    // key, same length, and read again: the later value wins, as in Terraform. A read
    // that fails stops near its error, so the bytes read up to the errors are counted,
    // bounded by the file's size (17 repeats in a 14 MB file read it 17 times).
    let budget = (RETRY_READS * text.len()).max(RETRY_BYTES);
    let mut spent = 0usize;
    let mut renamed = 0usize;
    let mut error = first.clone();
    while error.message.contains("redefined object key") {
        let Some(earlier) = earlier_key(&text, error.offset) else {
            break;
        };
        if renamed == MAX_RENAMES || spent > budget {
            return Err(SyntaxError {
                offset: first.offset,
                message: format!(
                    "{}; Terraform keeps the last value of a repeated object key and gpulint \
                     reads the file again for each one, but stopped after {renamed} repeated \
                     keys (its limit of re-reading this file); make the keys unique to have \
                     it checked",
                    first.message
                ),
            });
        }
        text.replace_range(earlier..=earlier, "_");
        renamed += 1;
        match read(&text) {
            Ok(body) => return Ok(body),
            Err(e) => {
                spent += e.offset + 1;
                error = e;
            }
        }
    }
    Err(first)
}

/// Repeated object keys read again, at most.
const MAX_RENAMES: usize = 64;
/// Failed re-reads for repeated keys read up to their errors at most this many times the
/// file's size…
const RETRY_READS: usize = 8;
/// …or this many bytes, whichever is more.
const RETRY_BYTES: usize = 64 << 20;

/// More brackets open at the end than this is not read: hcl-edit's time doubles with each.
const MAX_UNCLOSED: usize = 8;

/// The brackets still open where the text ends, and where the outermost of them opens.
/// A valid file ends with none open.
fn unclosed(text: &str) -> Option<(usize, usize)> {
    let mut open: Vec<usize> = Vec::new();
    code_tokens(text, |t| match t {
        Code::Open(i) => open.push(i),
        Code::Close => {
            open.pop();
        }
        Code::Newline(_) | Code::LineComment(..) => {}
    });
    Some((*open.first()?, open.len()))
}

/// What [`code_tokens`] reports of the code, as byte offsets.
enum Code {
    /// `{`, `[` or `(`.
    Open(usize),
    /// `}`, `]` or `)`.
    Close,
    /// A line break between tokens.
    Newline(usize),
    /// A `#` or `//` comment, up to (not including) its line break.
    LineComment(usize, usize),
}

/// Walks the code of `text`: strings (with their `${ }` and `%{ }` templates, whose code is
/// walked, strings inside those included), block comments and heredocs are skipped.
fn code_tokens(text: &str, mut on: impl FnMut(Code)) {
    /// Where the scan is, above plain code.
    enum In {
        Str,
        /// A template's `${ }`, with the brackets opened inside it.
        Template(usize),
    }
    let b = text.as_bytes();
    let mut stack: Vec<In> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match stack.last_mut() {
            Some(In::Str) => match c {
                b'\\' => i += 1,
                b'"' | b'\n' => {
                    stack.pop();
                }
                // `$${` and `%%{` are a literal `${` and `%{`, not a template.
                b'$' | b'%' if b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&b'{') => i += 2,
                b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                    stack.push(In::Template(0));
                    i += 1;
                }
                _ => {}
            },
            Some(In::Template(0)) if c == b'}' => {
                stack.pop();
            }
            frame => {
                let inner = match frame {
                    Some(In::Template(n)) => Some(n),
                    _ => None,
                };
                match c {
                    b'{' | b'[' | b'(' => {
                        on(Code::Open(i));
                        if let Some(n) = inner {
                            *n += 1;
                        }
                    }
                    b'}' | b']' | b')' => {
                        on(Code::Close);
                        if let Some(n) = inner {
                            *n = n.saturating_sub(1);
                        }
                    }
                    b'\n' => on(Code::Newline(i)),
                    b'"' => stack.push(In::Str),
                    b'#' => {
                        let end = line_end(b, i);
                        on(Code::LineComment(i, end));
                        i = end - 1;
                    }
                    b'/' if b.get(i + 1) == Some(&b'/') => {
                        let end = line_end(b, i);
                        on(Code::LineComment(i, end));
                        i = end - 1;
                    }
                    b'/' if b.get(i + 1) == Some(&b'*') => {
                        i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 1);
                    }
                    b'<' if b.get(i + 1) == Some(&b'<') => i = heredoc_end(text, i),
                    _ => {}
                }
            }
        }
        i += 1;
    }
}

/// `text` with the line breaks that sit directly inside a `for` expression turned into
/// spaces (and the line comments before them blanked), byte for byte, so spans still
/// index the text as written. Terraform ignores line breaks anywhere in a `for`
/// expression (hclsyntax's `finishParsingForExpr`); hcl-edit takes one inside
/// `{ for k in l : k => a ? b :⏎ c }` for the end of the item and rejects the file.
/// `None` when there is no such line break.
fn join_for_lines(text: &str) -> Option<String> {
    let mut opened: Vec<bool> = Vec::new();
    let mut blank: Vec<(usize, usize)> = Vec::new();
    code_tokens(text, |t| match t {
        Code::Open(i) => opened.push(
            text[i + 1..]
                .trim_start()
                .strip_prefix("for")
                .is_some_and(|rest| rest.starts_with(char::is_whitespace))
                && text.as_bytes()[i] != b'(',
        ),
        Code::Close => {
            opened.pop();
        }
        Code::Newline(i) if opened.last() == Some(&true) => blank.push((i, i + 1)),
        Code::LineComment(from, to) if opened.last() == Some(&true) => blank.push((from, to)),
        Code::Newline(_) | Code::LineComment(..) => {}
    });
    if blank.is_empty() {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    for (from, to) in blank {
        bytes[from..to].fill(b' ');
        if from > 0 && bytes[from - 1] == b'\r' {
            bytes[from - 1] = b' ';
        }
    }
    // Only ASCII and whole characters up to a line break were replaced.
    String::from_utf8(bytes).ok()
}

fn line_end(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |e| from + e)
}

/// The last byte of the heredoc opening at `at` (`<<EOF` or `<<-EOF`, through the line
/// that holds only its marker), or `at + 1` when it is not a heredoc.
fn heredoc_end(text: &str, at: usize) -> usize {
    let rest = &text[at + 2..];
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let marker: &str = &rest[..rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len())];
    if marker.is_empty() {
        return at + 1;
    }
    let body = line_end(text.as_bytes(), at);
    let mut start = body + 1;
    while start < text.len() {
        let end = line_end(text.as_bytes(), start);
        if text[start..end].trim() == marker {
            return end;
        }
        start = end + 1;
    }
    text.len()
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
    use std::fmt::Write as _;

    #[test]
    fn spans_are_byte_ranges() {
        let src = "# é\nresource \"aws_instance\" \"x\" {\n  instance_type = \"p5.48xlarge\"\n}\n";
        let body = parse(src).unwrap();
        let block = body.get_blocks("resource").next().unwrap();
        let attr = block.body.get_attribute("instance_type").unwrap();
        assert_eq!(&src[attr.value.span().unwrap()], "\"p5.48xlarge\"");
    }

    #[test]
    fn escaped_template_openers_are_text_not_brackets() {
        // `$${` and `%%{` are a literal `${` and `%{`: counted as open templates, a dozen
        // of them made a valid file "end with brackets still open" (found by fuzzing).
        let mut src = String::new();
        for i in 0..12 {
            let _ = writeln!(src, "a{i} = \"$${{x}} and %%{{ if }}\"");
        }
        assert_eq!(unclosed(&src), None);
        assert!(parse(&src).is_ok());
        assert_eq!(unclosed("a = \"$${\"\nb = {\n"), Some((14, 1)));
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
    fn repeated_keys_are_read_again_within_a_budget_and_the_error_says_when_it_stops() {
        let keys = |n: usize| {
            (0..n).fold(String::new(), |mut s, i| {
                writeln!(s, "  k{i} = {i}").unwrap();
                s
            })
        };
        let ok = format!("x = {{\n{}{}}}\n", keys(20), keys(20));
        assert!(parse(&ok).is_ok());
        let many = format!("x = {{\n{}{}}}\n", keys(70), keys(70));
        let e = parse(&many).unwrap_err();
        assert!(
            e.message.contains("stopped after 64 repeated keys"),
            "{e:?}"
        );
    }

    #[test]
    fn many_brackets_open_at_the_end_are_an_error_before_hcl_edit_backtracks() {
        let src = format!("a = {}\n", "p/p%{p=p/p".repeat(40));
        let e = parse(&src).unwrap_err();
        assert_eq!(e.offset, 8);
        assert!(e.message.contains("40 brackets"), "{e:?}");
    }

    #[test]
    fn brackets_in_strings_comments_and_heredocs_are_not_counted() {
        let src = r#"
# {{{{{{{{{{ a comment
// [[[[[[[[[[
/* ((((((((((
*/
locals {
  s = "{{{{{{{{{{ ${lookup(m, "k(((((((((")} [[[[[[[[[["
  h = <<-EOT
    {{{{{{{{{{
    EOT
  j = <<EOF
[[[[[[[[[[
EOF
}
"#;
        assert_eq!(unclosed(src), None);
        assert!(parse(src).is_ok());
    }

    #[test]
    fn line_breaks_inside_a_for_expression_are_spaces_as_in_terraform() {
        for value in [
            "k == \"a\" ? \"A\" :\n    \"B\"",
            "k == \"a\" ?\n \"A\" : \"B\"",
            "k == \"a\"\n ? \"A\" : \"B\" # why\n",
            "k == \"a\" &&\r\n true",
        ] {
            let src = format!(
                "locals {{\n  m = {{ for k in local.l : k => {value} }}\n  n = [for k in local.l : {value}]\n}}\n"
            );
            let body = parse(&src).unwrap_or_else(|e| panic!("{value:?}: {e:?}"));
            let attr = body
                .get_blocks("locals")
                .next()
                .unwrap()
                .body
                .get_attribute("m")
                .unwrap();
            // Spans index the text as written.
            assert!(src[attr.value.span().unwrap()].starts_with("{ for k"));
        }
        // An object constructor (not a `for`) still takes a line break for the end of an
        // item, in Terraform as in hcl-edit; one inside it is not joined.
        assert!(join_for_lines("x = { for k in l : k => {\n a = 1\n b = 2\n} }\n").is_none());
        assert!(parse("x = {\n a = 1 ?\n 2 : 3\n}\n").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!("x = {}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = parse(&src).unwrap_err();
        assert!(e.message.contains("nesting"), "{e:?}");
    }

    #[test]
    fn bare_carriage_returns_are_named_in_the_error() {
        let e = parse("variable \"a\" {\r  default = 1\r}\r").unwrap_err();
        assert!(e.message.contains("bare carriage return"), "{e:?}");
        let e = parse("variable \"a\" {\r\n  default = \r\n}\r\n").unwrap_err();
        assert!(!e.message.contains("carriage"), "{e:?}");
    }
}

#[cfg(test)]
mod one_line_blocks {
    use super::parse_lenient;

    #[test]
    fn a_block_on_one_line_with_several_arguments_is_read_on_with_the_error() {
        let text = "variable \"size\"  { type = string default = \"g5.xlarge\" }\n\
                    variable \"n\" { type = number default = 2 description = \"a = b\" }\n\
                    resource \"aws_instance\" \"a\" { instance_type = var.size }\n";
        let (body, error) = parse_lenient(text);
        let body = body.expect("read on");
        assert_eq!(body.get_blocks("variable").count(), 2);
        let e = error.expect("Terraform rejects it");
        assert_eq!(&text[e.offset..e.offset + 7], "default");
        assert!(e.message.contains("2 such blocks"), "{}", e.message);
        // What Terraform accepts is read as it is, with no error.
        assert!(
            parse_lenient("variable \"a\" { default = 1 }\n")
                .1
                .is_none()
        );
        // Any other error stays one, with nothing read.
        let (body, error) = parse_lenient("variable \"a\" { default = }\n");
        assert!(body.is_none() && error.is_some());
        for broken in [
            "variable \"é\" { type = string é = 1 }\n",
            "x { a = 1 b = 2",
            "x {a = 1 b = 2}\n",
            "{ a = \"}\" b = 2 }\n",
        ] {
            let (_, error) = parse_lenient(broken);
            assert!(error.is_some(), "{broken}");
        }
    }
}
