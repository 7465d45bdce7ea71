//! Text from the files read (names, labels, values quoted in messages) on its way to a
//! terminal or a CI log. A newline would start a forged line (`::error file=…::` is a GitHub
//! workflow command), an ANSI escape would clear the screen or erase a line, and a bidi
//! override would reorder what the reader sees. Every text format and every stderr note
//! passes its text through [`escape`], which turns such characters into visible escapes
//! (`\n`, `\u{1b}`); clean text comes back borrowed and unchanged. In JSON and SARIF serde
//! escapes the C0 controls; [`json`] escapes the rest (DEL, C1, bidi) the JSON way, so the
//! decoded text is still exactly the file's.

use std::borrow::Cow;
use std::fmt::Write;

/// A character that must not reach a terminal or a log raw: the C0 controls (tab, CR and LF
/// included), DEL, the C1 controls, the line and paragraph separators, and the bidi
/// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `s` with every [`is_unsafe`] character written as a visible escape.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The visible form of one unsafe character: `\n`, `\r`, `\t`, else `\u{…}` in hex as Rust
/// writes it.
pub fn push_escaped(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

/// JSON text from serde with the unsafe characters serde leaves raw (DEL, the C1 controls,
/// the separators, the bidi characters: all inside strings) written as `\uXXXX` escapes.
/// Valid JSON that decodes to the same values, and is safe to show.
pub fn json(s: String) -> String {
    // serde escapes every C0 control in a string: a raw one is the pretty printer's newline.
    let left_raw = |c: char| is_unsafe(c) && (c == '\u{7f}' || !c.is_ascii());
    if !s.chars().any(left_raw) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if left_raw(c) {
            // All of them are in the Basic Multilingual Plane: four hex digits.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_is_borrowed_unchanged() {
        let s = "`Pod/train` runs on 8 × H100: 50% idle, “quoted”, tab-free";
        assert!(matches!(escape(s), Cow::Borrowed(x) if x == s));
    }

    #[test]
    fn controls_and_bidi_become_visible() {
        assert_eq!(
            escape("evil\n::error file=x::forged\u{1b}[2J\r\t\u{7f}\u{85}\u{202e}\u{2066}\u{2028}"),
            "evil\\n::error file=x::forged\\u{1b}[2J\\r\\t\\u{7f}\\u{85}\\u{202e}\\u{2066}\\u{2028}"
        );
    }

    #[test]
    fn json_escapes_what_serde_leaves_raw_and_decodes_the_same() {
        let value = "a\u{1b}b\u{7f}\u{9b}\u{202e}\u{2069}\n";
        let text = json(serde_json::to_string_pretty(&[value]).unwrap());
        assert_eq!(text, "[\n  \"a\\u001bb\\u007f\\u009b\\u202e\\u2069\\n\"\n]");
        assert_eq!(serde_json::from_str::<Vec<String>>(&text).unwrap(), [value]);
    }
}
