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
    let hidden = |f: &Finding, directives: &mut [Directive]| {
        let at = f.primary.span.as_ref().map_or(0, |s| s.start);
        // Every directive that covers it counts as used, so none of them is reported stale.
        let mut hid = false;
        for d in directives.iter_mut().filter(|d| d.file == f.primary.file) {
            hid |= d.hides(f.rule, at);
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
