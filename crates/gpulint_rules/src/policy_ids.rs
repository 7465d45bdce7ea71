//! Policy rule ids: how a `policy/…` id is told from a built-in rule's before any policy
//! is loaded, which `--select`/`--ignore` names cover it, and where a policy made it. The
//! Rego engine (gpulint_policy) interns the ids it makes here; config, suppressions and
//! reports only ask.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use gpulint_diagnostics::Severity;

/// Every policy rule id starts with this, so config and suppressions can tell one from a
/// built-in rule before any policy is loaded.
pub const PREFIX: &str = "policy/";

/// The name `--select`, `--ignore` and `[rules]` use for every policy finding.
pub const CATEGORY: &str = "policy";

/// Distinct policy rule ids one process keeps: each is interned for the life of the
/// process, so a policy that makes an id per finding cannot grow memory without bound.
const MAX_IDS: usize = 10_000;

/// Whether a rule id is a policy's.
pub fn is_policy_id(id: &str) -> bool {
    id.starts_with(PREFIX)
}

/// Whether a `--select`/`--ignore` name is about policies: `policy`, or a `policy/…`
/// prefix or id.
pub fn is_policy_name(name: &str) -> bool {
    let name = name.trim();
    name.eq_ignore_ascii_case(CATEGORY) || name.starts_with(PREFIX)
}

/// Whether the name `name` (see [`is_policy_name`]) covers the policy rule `id`: `policy`
/// covers every one, `policy/gpulint.team_label` the rules of that package, an id itself.
pub fn covers(name: &str, id: &str) -> bool {
    let name = name.trim().trim_end_matches('/');
    if name.eq_ignore_ascii_case(CATEGORY) {
        return is_policy_id(id);
    }
    is_policy_name(name)
        && id
            .strip_prefix(name)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Whether a policy finding with rule `id` is kept by a run's `--select` and `--ignore`
/// (after the config's): with a selection, only what it names; never what is ignored.
pub fn selected(id: &str, select: &[String], ignore: &[String]) -> bool {
    (select.is_empty() || select.iter().any(|s| covers(s, id)))
        && !ignore.iter().any(|s| covers(s, id))
}

/// Where a policy rule id comes from, for the reports: the rule's file and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The policy file, as the run names it (relative to the working directory).
    pub file: String,
    pub line: usize,
    /// `gpulint.team_label`.
    pub package: String,
    /// `deny`, `warn_spot`.
    pub rule: String,
}

fn registry() -> &'static Mutex<HashMap<&'static str, Origin>> {
    static IDS: OnceLock<Mutex<HashMap<&'static str, Origin>>> = OnceLock::new();
    IDS.get_or_init(Mutex::default)
}

/// The interned rule id, recorded with where it comes from (the first origin stays).
pub fn intern(id: &str, origin: &Origin) -> Result<&'static str, String> {
    let mut ids = registry()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((&known, _)) = ids.get_key_value(id) {
        return Ok(known);
    }
    if ids.len() >= MAX_IDS {
        return Err(format!(
            "{}:{}: policies made more than {MAX_IDS} distinct rule ids; an `id` should name \
             a kind of problem, not one finding",
            origin.file, origin.line
        ));
    }
    let id: &'static str = Box::leak(id.to_owned().into_boxed_str());
    ids.insert(id, origin.clone());
    Ok(id)
}

/// Where the policy rule `id` comes from, when a policy of this process made it.
pub fn origin(id: &str) -> Option<Origin> {
    if !is_policy_id(id) {
        return None;
    }
    registry()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(id)
        .cloned()
}

/// The severity of a rule by its name, as conftest names them: `deny` and `violation`
/// (errors), `warn` (warnings), each alone or with a `_suffix`. `None` for other rules.
pub fn severity_of(rule: &str) -> Option<Severity> {
    let kind = |prefix: &str| {
        rule.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || (rest.starts_with('_') && rest.len() > 1))
    };
    if kind("deny") || kind("violation") {
        Some(Severity::Error)
    } else if kind("warn") {
        Some(Severity::Warning)
    } else {
        None
    }
}
