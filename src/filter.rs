//! Filtering findings: which rules run, which files report, and in what order.

use crate::finding::Finding;
use crate::rules::{RULES, RuleEntry, report_unused_suppressions};
use crate::source::SourceDb;
use crate::suppress::Directive;

/// Rules selected by `--select` and `--ignore`, each a rule id or a category name.
/// `parse-error` and `limit-exceeded` always run. An unknown name is an error, so a typo cannot silently
/// turn a check off. Policy names (`policy`, `policy/…`) are accepted and select no
/// built-in rule: [`crate::policy::selected`] judges policy findings by them.
pub fn select_rules(
    select: &[String],
    ignore: &[String],
) -> Result<Vec<&'static RuleEntry>, String> {
    let matches = |name: &str, r: &RuleEntry| r.id == name || r.meta.category.as_str() == name;
    // Ids in any case and with `_` for `-` are understood.
    let known = |names: &[String]| -> Result<Vec<&'static str>, String> {
        names
            .iter()
            .filter(|name| !crate::policy::is_policy_name(name))
            .map(|name| {
                crate::rules::canonical(name).ok_or_else(|| {
                    format!(
                        "unknown rule or category `{name}`{} (see `gpulint rules`)",
                        crate::rules::suggestion(name)
                    )
                })
            })
            .collect()
    };
    // `--select policy` selects no built-in rule but the always-on ones.
    let all = select.is_empty();
    let (select, ignore) = (known(select)?, known(ignore)?);
    Ok(RULES
        .iter()
        .filter(|r| {
            crate::rules::is_always_on(r.id)
                || ((all || select.iter().any(|s| matches(s, r)))
                    && !ignore.iter().any(|s| matches(s, r)))
        })
        .collect())
}

/// Keeps the findings in files the user asked about that no suppression hides, adds the
/// suppressions that hid nothing, and sorts by file, position and rule. `ran` says
/// whether a rule (or policy rule) id ran in this run.
pub fn finish(
    db: &SourceDb,
    mut directives: Vec<Directive>,
    ran: &dyn Fn(&str) -> bool,
    mut findings: Vec<Finding>,
) -> Vec<Finding> {
    findings.retain(|f| db.get(f.primary.file).requested);
    let index = Index::new(&directives);
    let hidden = |f: &Finding, directives: &mut [Directive]| {
        let at = f.primary.span.as_ref().map_or(0, |s| s.start);
        // Every directive that covers it counts as used, so none of them is reported stale.
        let mut hid = false;
        for i in index.covering(f.primary.file, f.rule, at) {
            hid |= directives[i].hides(f.rule, at);
        }
        hid
    };
    // A file gpulint cannot read or check is never a pass: `parse-error` and
    // `limit-exceeded` are not suppressible.
    findings.retain(|f| crate::rules::is_always_on(f.rule) || !hidden(f, &mut directives));
    if ran("unused-suppression") {
        let mut unused: Vec<Finding> = directives
            .iter()
            .flat_map(|d| report_unused_suppressions(d, ran, &db.get(d.file).name))
            .collect();
        unused.retain(|f| !hidden(f, &mut directives));
        findings.append(&mut unused);
    }
    findings.sort_by_cached_key(|f| {
        let file = db.get(f.primary.file);
        let start = f.primary.span.as_ref().map_or(0, |s| s.start);
        (file.name.clone(), start, f.rule, f.message.clone())
    });
    findings
}

/// The directives that may hide a finding, found without walking them all: per file and
/// rule id they name, those that cover the file whole, and the others by where their scope
/// starts, with the furthest end so far (so the ones that may still reach a place are a
/// run found by binary search). A file of 100,000 comments, each reported unused and each
/// checked against the others, was 10¹⁰ checks.
struct Index {
    files: std::collections::HashMap<(crate::source::FileId, String), FileIndex>,
}

#[derive(Default)]
struct FileIndex {
    whole: Vec<usize>,
    /// Directive numbers by scope start, with each scope's start and the furthest end up
    /// to it.
    scoped: Vec<(usize, usize, usize)>,
}

impl Index {
    fn new(directives: &[Directive]) -> Self {
        type Key = (crate::source::FileId, String);
        let mut files: std::collections::HashMap<Key, FileIndex> = std::collections::HashMap::new();
        let mut scoped: std::collections::HashMap<Key, Vec<(usize, usize, usize)>> =
            std::collections::HashMap::new();
        for (i, d) in directives.iter().enumerate() {
            // As written (a policy's rule id) and normalized, as `hides` matches them.
            let mut ids: Vec<String> = d
                .ids
                .iter()
                .flat_map(|(id, _)| [id.clone(), crate::rules::normalize(id)])
                .collect();
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                let key = (d.file, id);
                if d.form == crate::suppress::Form::File {
                    files.entry(key).or_default().whole.push(i);
                } else {
                    scoped
                        .entry(key)
                        .or_default()
                        .push((d.scope.start, d.scope.end, i));
                }
            }
        }
        for (key, mut list) in scoped {
            list.sort_unstable();
            let mut reach = 0;
            let list = list
                .into_iter()
                .map(|(start, end, i)| {
                    reach = reach.max(end);
                    (start, reach, i)
                })
                .collect();
            files.entry(key).or_default().scoped = list;
        }
        Index { files }
    }

    /// The numbers of the directives of `file` naming `rule` whose scope may hold `at`
    /// (each still checks its own scope).
    fn covering(&self, file: crate::source::FileId, rule: &str, at: usize) -> Vec<usize> {
        let Some(f) = self.files.get(&(file, rule.to_string())) else {
            return Vec::new();
        };
        let upto = f.scoped.partition_point(|&(start, _, _)| start <= at);
        let from = f.scoped[..upto].partition_point(|&(_, reach, _)| reach <= at);
        f.whole
            .iter()
            .copied()
            .chain(f.scoped[from..upto].iter().map(|&(_, _, i)| i))
            .collect()
    }
}
