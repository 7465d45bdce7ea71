//! Baselines: adopt gpulint on a repository with findings, and fail only on new ones.
//!
//! `--write-baseline FILE` records the findings of a run by [fingerprint key](crate::fingerprint)
//! (rule, file and subject; never a line number), so inserting lines above a finding does not
//! make it new. `--baseline FILE` hides findings the file records. Keys are a multiset: a
//! baseline with one `missing-shm` on `Deployment/vllm` hides one such finding, and a second
//! one is new. A `parse-error` is never recorded and never hidden.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::finding::Outcome;
use crate::fingerprint::{Key, keys};

const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    findings: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    rule: String,
    file: String,
    subject: String,
    /// For the reader of the file; matching ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

/// Recorded findings, by key, with how many of each.
#[derive(Debug, Default)]
pub struct Baseline {
    counts: HashMap<Key, usize>,
}

fn recordable(rule: &str) -> bool {
    !crate::rules::is_always_on(rule)
}

impl Baseline {
    /// Reads the baseline at `path`, of at most `cap` bytes (`max_file_size`).
    pub fn load(path: &Path, cap: u64) -> Result<Baseline, String> {
        let text = crate::bounded::read_text(path, cap, crate::bounded::MAX_FILE_SIZE)
            .map_err(|e| format!("cannot read baseline `{}`: {e}", path.display()))?;
        let file: File = serde_json::from_str(&text)
            .map_err(|e| format!("`{}` is not a gpulint baseline: {e}", path.display()))?;
        if file.version != VERSION {
            return Err(format!(
                "`{}` is a version {} baseline; this gpulint reads version {VERSION}",
                path.display(),
                file.version
            ));
        }
        Ok(Baseline::from(&file.findings))
    }

    fn from(entries: &[Entry]) -> Baseline {
        let mut counts = HashMap::new();
        for e in entries {
            let key = Key {
                rule: e.rule.clone(),
                file: e.file.clone(),
                subject: e.subject.clone(),
            };
            *counts.entry(key).or_insert(0) += 1;
        }
        Baseline { counts }
    }

    /// Writes the findings of `outcome` as a baseline, and returns it with how many findings
    /// it recorded.
    pub fn write(outcome: &Outcome, path: &Path) -> Result<(Baseline, usize), String> {
        let mut findings: Vec<Entry> = keys(outcome)
            .into_iter()
            .zip(&outcome.findings)
            .filter(|(k, _)| recordable(&k.rule))
            .map(|(k, f)| Entry {
                rule: k.rule,
                file: k.file,
                subject: k.subject,
                message: Some(f.message.clone()),
            })
            .collect();
        // Sorted by key, not line, so the file changes only when the findings do.
        findings.sort_by(|a, b| {
            (&a.file, &a.rule, &a.subject, &a.message)
                .cmp(&(&b.file, &b.rule, &b.subject, &b.message))
        });
        let baseline = Baseline::from(&findings);
        let n = findings.len();
        let mut text = serde_json::to_string_pretty(&File {
            version: VERSION,
            findings,
        })
        .expect("plain data serializes");
        text.push('\n');
        std::fs::write(path, text)
            .map_err(|e| format!("cannot write baseline `{}`: {e}", path.display()))?;
        Ok((baseline, n))
    }

    /// Drops the findings the baseline records; returns how many it dropped.
    pub fn apply(&self, outcome: &mut Outcome) -> usize {
        let mut left = self.counts.clone();
        let keep: Vec<bool> = keys(outcome)
            .into_iter()
            .map(|k| {
                if !recordable(&k.rule) {
                    return true;
                }
                match left.get_mut(&k) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        false
                    }
                    _ => true,
                }
            })
            .collect();
        let before = outcome.findings.len();
        let mut keep = keep.into_iter();
        outcome.findings.retain(|_| keep.next().unwrap_or(true));
        before - outcome.findings.len()
    }
}
