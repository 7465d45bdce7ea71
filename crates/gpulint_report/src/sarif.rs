//! `--format sarif`: SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure DevOps).
//!
//! One run only: since July 2025 GitHub rejects an upload with several runs of one category,
//! so parse errors are results of the `parse-error` rule, not a second run. Columns count
//! Unicode code points, as everywhere in gpulint.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::Location;
use gpulint_diagnostics::Outcome;
use gpulint_diagnostics::{Finding, Severity};
use gpulint_rules::{RuleEntry, rule};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const HOME: &str = "https://github.com/gpulint/gpulint";

pub fn render(outcome: &Outcome) -> String {
    // The rules that fired, in registry order, so `ruleIndex` is stable for one set of rules.
    let mut fired: Vec<&'static RuleEntry> = outcome
        .findings
        .iter()
        .filter_map(|f| rule(f.rule))
        .collect();
    fired.sort_by_key(|r| gpulint_rules::RULES.iter().position(|e| e.id == r.id));
    fired.dedup_by_key(|r| r.id);
    // Then the policy rules that fired, by id: each a rule of its own, its help the policy.
    let mut policies: Vec<&'static str> = outcome
        .findings
        .iter()
        .map(|f| f.rule)
        .filter(|id| gpulint_rules::policy_ids::is_policy_id(id))
        .collect();
    policies.sort_unstable();
    policies.dedup();

    let digests = gpulint_diagnostics::fingerprint::digests(outcome);
    let results: Vec<Value> = outcome
        .findings
        .iter()
        .zip(&digests)
        .map(|(f, digest)| {
            let index = fired.iter().position(|r| r.id == f.rule).or_else(|| {
                let i = policies.iter().position(|id| *id == f.rule)?;
                Some(fired.len() + i)
            });
            result(outcome, f, index, digest)
        })
        .collect();

    let report = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "gpulint",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": HOME,
                "rules": fired
                    .iter()
                    .map(|r| descriptor(r))
                    .chain(policies.iter().map(|id| policy_descriptor(id)))
                    .collect::<Vec<_>>(),
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut s =
        super::escape::json(serde_json::to_string_pretty(&report).expect("plain data serializes"));
    s.push('\n');
    s
}

fn descriptor(r: &RuleEntry) -> Value {
    json!({
        "id": r.id,
        "name": r.id,
        "shortDescription": {"text": r.meta.summary},
        "fullDescription": {"text": section(r.doc, "What it flags").unwrap_or(r.meta.summary)},
        "help": {"text": r.doc, "markdown": r.doc},
        "helpUri": gpulint_rules::doc_url(r.id),
        "defaultConfiguration": {"level": level(r.meta.severity)},
        "properties": {"tags": [r.meta.category.as_str()]},
    })
}

/// A policy's rule: its help names the policy file and the line that defines the rule.
fn policy_descriptor(id: &str) -> Value {
    let Some(o) = gpulint_rules::policy_ids::origin(id) else {
        return json!({"id": id, "name": id, "properties": {"tags": ["policy"]}});
    };
    let summary = format!(
        "custom Rego policy: `{}` of package `{}`",
        o.rule, o.package
    );
    let help = format!(
        "Reported by the Rego policy `{}` (rule `{}`, line {}), which gpulint ran over its \
         inventory. Read the policy for what it asks and why.",
        o.file, o.rule, o.line
    );
    let level = gpulint_rules::policy_ids::severity_of(&o.rule).map_or("warning", level);
    json!({
        "id": id,
        "name": id,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": summary},
        "help": {"text": help, "markdown": help},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["policy"], "policy": {"file": o.file, "line": o.line}},
    })
}

fn result(outcome: &Outcome, f: &Finding, rule_index: Option<usize>, digest: &str) -> Value {
    let at = Location::of(outcome, &f.primary);
    let mut r = json!({
        "ruleId": f.rule,
        "level": level(f.severity),
        "message": {"text": format!("{}. {}", f.message, capitalized(&f.help))},
        "locations": [physical(&at, None)],
        "partialFingerprints": {"gpulint/v1": digest},
        "properties": {"subject": f.subject},
    });
    if let Some(i) = rule_index {
        r["ruleIndex"] = json!(i);
    }
    if let Some(cost) = &f.cost {
        r["properties"]["cost"] = json!(cost);
    }
    if !(f.secondary.is_empty() && f.related.is_empty()) {
        r["relatedLocations"] = f
            .secondary
            .iter()
            .chain(&f.related)
            .enumerate()
            .map(|(i, l)| {
                let mut loc = physical(&Location::of(outcome, l), Some(&l.text));
                loc["id"] = json!(i);
                loc
            })
            .collect();
    }
    r
}

fn physical(at: &Location<'_>, text: Option<&str>) -> Value {
    let mut loc = json!({"physicalLocation": {
        "artifactLocation": {"uri": uri(at.file), "uriBaseId": "%SRCROOT%"},
        "region": {
            "startLine": at.region.start_line,
            "startColumn": at.region.start_column,
            "endLine": at.region.end_line,
            "endColumn": at.region.end_column,
        },
    }});
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        loc["message"] = json!({ "text": text });
    }
    loc
}

/// A relative URI reference: `/` separators, and the characters RFC 3986 does not allow
/// in a path percent-encoded. `\` is a separator on Windows only: elsewhere it is part of
/// a name (`gpu-\xFF.tf`, a name that is not UTF-8 as gpulint shows it) and is encoded.
fn uri(path: &str) -> String {
    let path = if cfg!(windows) {
        path.replace('\\', "/")
    } else {
        path.to_string()
    };
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Help starts lower-case, as it follows `help:` elsewhere; here it is a sentence of its own.
fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The text of a `## heading` section of a rule doc, trimmed.
fn section<'a>(doc: &'a str, heading: &str) -> Option<&'a str> {
    let start = doc.find(&format!("\n## {heading}\n"))? + heading.len() + 5;
    let rest = &doc[start..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    Some(rest[..end].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_encoded_relative_references() {
        assert_eq!(uri("infra/gpu.tf"), "infra/gpu.tf");
        if cfg!(windows) {
            assert_eq!(uri("my dir\\a%.tf"), "my%20dir/a%25.tf");
        } else {
            assert_eq!(uri("my dir\\a%.tf"), "my%20dir%5Ca%25.tf");
        }
        assert_eq!(uri("ü.yaml"), "%C3%BC.yaml");
    }

    #[test]
    fn full_description_is_the_what_it_flags_section() {
        let doc =
            "# x\n\nSummary.\n\n## What it flags\n\nA thing.\n\n## Why it matters\n\nBecause.\n";
        assert_eq!(section(doc, "What it flags"), Some("A thing."));
        assert_eq!(section(doc, "Why it matters"), Some("Because."));
        assert_eq!(section(doc, "Options"), None);
    }
}
