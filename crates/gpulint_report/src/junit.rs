//! `--format junit`: JUnit XML for GitLab, Jenkins and other CI test reports. One testsuite per
//! linted file, one failing testcase per finding; a file with no findings gets one passing
//! testcase, so the report shows what was checked.

use std::fmt::Write;

use super::Location;
use super::escape::escape;
use gpulint_diagnostics::Outcome;

pub fn render(outcome: &Outcome) -> String {
    let mut suites: Vec<(&str, Vec<&gpulint_diagnostics::Finding>)> = outcome
        .db
        .iter()
        .filter(|(_, f)| f.requested)
        .map(|(_, f)| (f.name.as_str(), Vec::new()))
        .collect();
    suites.sort_by(|a, b| a.0.cmp(b.0));
    suites.dedup_by(|a, b| a.0 == b.0);
    for f in &outcome.findings {
        let name = outcome.db.get(f.primary.file).name.as_str();
        if let Ok(i) = suites.binary_search_by(|s| s.0.cmp(name)) {
            suites[i].1.push(f);
        }
    }

    let total: usize = suites.iter().map(|s| s.1.len().max(1)).sum();
    let failures = outcome.findings.len();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"gpulint\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\">"
    );
    for (file, findings) in &suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
            xml(file),
            findings.len().max(1),
            findings.len()
        );
        if findings.is_empty() {
            let _ = writeln!(
                out,
                "    <testcase name=\"gpulint\" classname=\"{}\" file=\"{0}\"/>",
                xml(file)
            );
        }
        for f in findings {
            let at = Location::of(outcome, &f.primary);
            let (line, col) = (at.region.start_line, at.region.start_column);
            let _ = writeln!(
                out,
                "    <testcase name=\"{rule}: {subject} ({line}:{col})\" classname=\"{file}\" file=\"{file}\" line=\"{line}\">",
                rule = f.rule,
                subject = xml(&f.subject),
                file = xml(file),
            );
            let _ = writeln!(
                out,
                "      <failure type=\"{}\" message=\"{}\">{}:{line}:{col}: {} [{}] {}\nhelp: {}{}</failure>",
                f.severity,
                xml(&f.shown_message()),
                xml(file),
                f.severity,
                f.rule,
                xml(&f.shown_message()),
                xml(&f.help),
                match super::related_line(outcome, f) {
                    r if r.is_empty() => String::new(),
                    r => format!("\n{}", xml(&r)),
                },
            );
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Escapes text for an XML attribute or element. Text from the files read comes through
/// [`escape`] first, so no control or bidi character reaches the report raw; what XML 1.0
/// cannot hold at all is dropped besides.
fn xml(s: &str) -> String {
    let s = escape(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push(' '),
            c if u32::from(c) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_and_drops_what_xml_cannot_hold() {
        assert_eq!(
            xml("a<b & \"c\"\u{1}\n\u{202e}"),
            "a&lt;b &amp; &quot;c&quot;\\u{1}\\n\\u{202e}"
        );
    }
}
