//! gpulint_syntax: text to syntax trees that keep byte spans.
//!
//! HCL through hcl-edit ([`hcl`]), JSON (`.tf.json` and plan JSON turned into HCL bodies
//! with a remap back to the JSON text, [`json`]) and YAML (saphyr's events built into a
//! tree with a depth guard, an alias budget and merge keys, [`yaml`]). Every parser stops
//! at its limits and says so; none panics on any input.
//!
//! May use: gpulint_source (files, spans, limits) and gpulint_facts (the Kubernetes kinds
//! a YAML stream may leave unread).

pub mod hcl;
pub mod json;
pub mod yaml;

use std::sync::Arc;

use hcl_edit::structure::Body;

use gpulint_source::limits::Limits;
use gpulint_source::{FileKind, SourceFile};

/// Where and why a file did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset into the file's text.
    pub offset: usize,
    pub message: String,
}

/// A file's syntax: what parsed, and the error that stopped the rest.
#[derive(Debug)]
pub enum Syntax {
    Hcl(Box<Body>),
    Yaml(Vec<yaml::YamlDoc>),
    /// A Terraform file read but not held as a tree: lowering parses it when it judges the
    /// root module that needs it, and drops the tree after. Holds the local and registry
    /// `source`s of the `module` blocks it calls, which decide which folders are roots.
    Deferred(Vec<String>),
    /// Nothing usable (a syntax error in HCL, or a file that is not text).
    None,
}

#[derive(Debug)]
pub struct Parsed {
    pub syntax: Syntax,
    /// Boxed, as `remap`: a large run holds one `Parsed` per file while it lowers, and few
    /// have either.
    pub error: Option<Box<SyntaxError>>,
    /// For Terraform read from JSON: the body was parsed from generated HCL text, and
    /// this maps its offsets back into the file.
    pub remap: Option<Box<json::Remap>>,
    /// The file was not read at all (`error` says why: too large, permission denied), as
    /// opposed to read and found broken.
    pub unread: bool,
    /// Limits hit while reading it; what came before each was read.
    pub limits: Vec<gpulint_source::limits::LimitHit>,
}

impl Parsed {
    /// A file left unread on purpose: no syntax, no error.
    pub fn skipped() -> Self {
        Parsed {
            syntax: Syntax::None,
            error: None,
            remap: None,
            unread: false,
            limits: Vec::new(),
        }
    }

    pub fn failed(error: SyntaxError) -> Self {
        Parsed {
            syntax: Syntax::None,
            error: Some(Box::new(error)),
            remap: None,
            unread: false,
            limits: Vec::new(),
        }
    }

    /// A file that could not be read: `why` is shown as the finding's message.
    pub fn unread(why: String) -> Self {
        Parsed {
            unread: true,
            ..Parsed::failed(SyntaxError {
                offset: 0,
                message: why,
            })
        }
    }
}

/// Bytes to text: strips a UTF-8 BOM; text that is not UTF-8, or holds NUL bytes, is
/// reported rather than parsed. The returned text is what spans index into.
///
/// YAML may also be UTF-16 with a byte-order mark (the YAML spec allows it, and kubectl
/// reads it; Windows editors write it): it is turned into UTF-8 text here. Terraform and
/// JSON must be UTF-8.
pub fn decode(bytes: &[u8], kind: FileKind) -> (Arc<str>, Option<SyntaxError>) {
    if kind == FileKind::Yaml {
        if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
            return decode_utf16(rest, u16::from_le_bytes);
        }
        if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
            return decode_utf16(rest, u16::from_be_bytes);
        }
        // Without a mark, the YAML spec tells UTF-16 by its first character, which is
        // ASCII: a NUL byte before it (big-endian) or after it (little-endian).
        match bytes {
            [0, a, ..] if *a != 0 => return decode_utf16(bytes, u16::from_be_bytes),
            [a, 0, b, ..] if *a != 0 && *b != 0 => {
                return decode_utf16(bytes, u16::from_le_bytes);
            }
            _ => {}
        }
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => match text.find('\0') {
            Some(nul) => (
                Arc::from(text),
                Some(SyntaxError {
                    offset: nul,
                    message: "binary content (a NUL byte): not a text file".into(),
                }),
            ),
            None => (Arc::from(text), None),
        },
        Err(e) => {
            let text = String::from_utf8_lossy(bytes);
            // The lossy copy keeps every valid byte before the first invalid one in place.
            let offset = e.valid_up_to();
            (
                Arc::from(text.as_ref()),
                Some(SyntaxError {
                    offset,
                    message: "the file is not valid UTF-8 text".into(),
                }),
            )
        }
    }
}

/// UTF-16 after its byte-order mark, as UTF-8 text. A unit that is no character (a lone
/// surrogate, an odd last byte) makes the file not text, reported where the text stops.
fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> (Arc<str>, Option<SyntaxError>) {
    let units = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]]));
    let mut text = String::with_capacity(bytes.len() / 2);
    let mut error = None;
    for c in char::decode_utf16(units) {
        match c {
            Ok('\0') => {
                error = Some("binary content (a NUL byte): not a text file");
                break;
            }
            Ok(c) => text.push(c),
            Err(_) => {
                error = Some("the file is not valid UTF-16 text");
                break;
            }
        }
    }
    if error.is_none() && bytes.len() % 2 == 1 {
        error = Some("the file is not valid UTF-16 text (an odd number of bytes)");
    }
    let error = error.map(|message| SyntaxError {
        offset: text.len(),
        message: message.into(),
    });
    (Arc::from(text), error)
}

/// Parses one decoded file by its kind, within the default limits.
pub fn parse(file: &SourceFile) -> Parsed {
    parse_with(file, &Limits::default())
}

/// Parses one decoded file by its kind, within `limits`.
pub fn parse_with(file: &SourceFile, limits: &Limits) -> Parsed {
    let mut parsed = parse_by_kind(file, limits);
    if let Some(e) = &mut parsed.error {
        e.offset = visible_offset(file.text(), e.offset);
    }
    parsed
}

/// Parsers report "unexpected end of input" past the last line, where a snippet shows
/// nothing; point at the end of the last line with text instead.
fn visible_offset(text: &str, offset: usize) -> usize {
    if offset < text.len() {
        return offset;
    }
    text.trim_end().len()
}

fn parse_by_kind(file: &SourceFile, limits: &Limits) -> Parsed {
    let json = file.name.to_ascii_lowercase().ends_with(".json");
    match file.kind {
        // A file Terraform rejects may still be read on (see `hcl::parse_lenient`): its
        // tree comes with the error.
        FileKind::Terraform | FileKind::TfVars if !json => match hcl::parse_lenient(file.text()) {
            (Some(body), error) => Parsed {
                syntax: Syntax::Hcl(Box::new(body)),
                error: error.map(Box::new),
                remap: None,
                unread: false,
                limits: Vec::new(),
            },
            (None, error) => Parsed::failed(error.unwrap_or_else(|| SyntaxError {
                offset: 0,
                message: "the file does not parse".into(),
            })),
        },
        FileKind::Terraform => from_json(file, json::config_to_hcl),
        FileKind::TfVars => from_json(file, json::vars_to_hcl),
        FileKind::Plan => from_json(file, json::plan_to_hcl),
        // Text a Terraform file reads: what it says is read where it is used.
        FileKind::Script => Parsed::skipped(),
        FileKind::Yaml => {
            let stream = yaml::parse_with(file, limits);
            Parsed {
                syntax: Syntax::Yaml(stream.docs),
                error: stream.error.map(Box::new),
                remap: None,
                unread: false,
                limits: stream.limits,
            }
        }
    }
}

/// JSON to generated HCL, parsed with the same front end as `.tf` files.
fn from_json(
    file: &SourceFile,
    convert: fn(&json::Node) -> Result<(String, json::Remap), SyntaxError>,
) -> Parsed {
    let generated = json::parse(file.text()).and_then(|root| convert(&root));
    match generated {
        Ok((text, remap)) => match hcl::parse(&text) {
            Ok(body) => Parsed {
                syntax: Syntax::Hcl(Box::new(body)),
                error: None,
                remap: Some(Box::new(remap)),
                unread: false,
                limits: Vec::new(),
            },
            // Generated text that does not parse is gpulint's fault; say so plainly.
            Err(e) => Parsed::failed(SyntaxError {
                offset: 0,
                message: format!(
                    "gpulint could not read this JSON as Terraform: {}",
                    e.message
                ),
            }),
        },
        Err(e) => Parsed::failed(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_at_the_end_point_at_the_last_line() {
        let f = SourceFile::new(
            "t.yaml".into(),
            None,
            FileKind::Yaml,
            "a: [1, 2\n\n".into(),
            true,
        );
        let e = parse(&f).error.unwrap();
        assert_eq!(f.line_col(e.offset), (1, 9));
    }

    #[test]
    fn utf16_yaml_with_a_bom_is_text() {
        let yaml = "kind: Pod\nmetadata: {name: é}\n";
        for (bom, be) in [(&b"\xFF\xFE"[..], false), (&b"\xFE\xFF"[..], true)] {
            let mut bytes = bom.to_vec();
            for u in yaml.encode_utf16() {
                bytes.extend(if be { u.to_be_bytes() } else { u.to_le_bytes() });
            }
            let (text, err) = decode(&bytes, FileKind::Yaml);
            assert!(err.is_none(), "{err:?}");
            assert_eq!(&*text, yaml);
            // Cut in the middle of a unit: not text, and said so.
            let (_, err) = decode(&bytes[..bytes.len() - 1], FileKind::Yaml);
            assert!(err.unwrap().message.contains("UTF-16"));
        }
        // Without a mark, told by the first character.
        let le: Vec<u8> = "kind: Pod\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(&*decode(&le, FileKind::Yaml).0, "kind: Pod\n");
        let be: Vec<u8> = "kind: Pod\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(&*decode(&be, FileKind::Yaml).0, "kind: Pod\n");
        // Terraform must be UTF-8.
        let (_, err) = decode(b"\xFF\xFEa\0", FileKind::Terraform);
        assert!(err.is_some());
    }

    #[test]
    fn bom_is_stripped() {
        let (text, err) = decode(b"\xEF\xBB\xBFa = 1\n", FileKind::Terraform);
        assert_eq!(&*text, "a = 1\n");
        assert!(err.is_none());
    }

    #[test]
    fn invalid_utf8_points_at_the_first_bad_byte() {
        let (text, err) = decode(b"ab\ncd\xFFef", FileKind::Terraform);
        let err = err.unwrap();
        assert_eq!(err.offset, 5);
        assert!(text.starts_with("ab\ncd"));
    }

    #[test]
    fn nul_bytes_mean_binary() {
        let (_, err) = decode(b"apiVersion: v1\n\0\0\x01", FileKind::Yaml);
        assert!(err.unwrap().message.contains("binary"));
    }
}
