//! gpulint_policy: custom policies in Rego (README "Custom policies: Rego"), evaluated in-process by
//! [regorus](https://github.com/microsoft/regorus) over the inventory that
//! `gpulint inspect --format json` prints (`schemas/inspect.schema.json`).
//!
//! Each package's `deny`, `warn` and `violation` rules (and conftest's `deny_<name>`
//! forms) return objects: `msg`, and where the problem is: `location` (any inventory
//! object with `file`, `line` and `column`: a capacity, a workload, a pod, or one of their
//! values) or `subject` (the subject of one capacity or workload). Each object becomes a
//! [`Finding`] with the rule id `policy/<package>/<rule>`, or `policy/<id>` when the object
//! gives an `id`, at error severity for `deny` and `violation` and warning for `warn`. From
//! there on a policy finding is a finding like any other: suppressions, `[rules]`
//! severities, `--select`, the baseline and every output format apply.
//!
//! The sandbox: regorus is built with its `std`, `regex`, `glob` and `graph` features only
//! (`graph` is `walk` and `graph.reachable`). Without
//! `opa-runtime`, `http`, `time`, `uuid`, `net` and `yaml` a policy has no builtin that
//! reads the environment, the network, the clock or a file; calling one is an error of
//! the run, as any unknown function is. `print` output is gathered into notes, escaped.
//!
//! May use: gpulint_source, gpulint_model, gpulint_diagnostics, gpulint_inventory (the view
//! policies read) and gpulint_rules (policy rule ids).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use gpulint_diagnostics::{Finding, Label, Severity};
use gpulint_model::Inventory;
pub use gpulint_rules::policy_ids::{
    CATEGORY, Origin, PREFIX, covers, intern, is_policy_id, is_policy_name, origin, selected,
    severity_of,
};
use gpulint_source::{FileId, SourceDb};

/// The largest policy file read.
const MAX_POLICY_BYTES: u64 = 1 << 20;

/// Folders deeper than this under a `--policy` folder are not walked.
const MAX_DEPTH: usize = 32;

/// How long the policies of one run may evaluate before the run stops.
const TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// One policy file, read.
struct PolicyFile {
    /// As the run shows it: relative to the working directory when under it.
    name: String,
    text: String,
    /// `gpulint.team_label`.
    package: String,
}

/// The policies of a run, compiled.
pub struct Policies {
    engine: regorus::Engine,
    files: Vec<PolicyFile>,
    /// In the order first loaded, each once.
    packages: Vec<String>,
}

impl std::fmt::Debug for Policies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policies")
            .field(
                "files",
                &self.files.iter().map(|p| &p.name).collect::<Vec<_>>(),
            )
            .field("packages", &self.packages)
            .finish_non_exhaustive()
    }
}

impl Policies {
    /// Reads and parses the policies at `paths` (files, or folders: every `.rego` file in
    /// them and their subfolders, in path order). An unreadable path, a folder without a
    /// policy and a policy that does not parse are errors that name the file and line.
    pub fn load(paths: &[PathBuf]) -> Result<Policies, String> {
        let cwd = std::env::current_dir().ok();
        let mut found: Vec<PathBuf> = Vec::new();
        for path in paths {
            let meta = std::fs::metadata(path)
                .map_err(|e| format!("cannot read policy `{}`: {e}", path.display()))?;
            if meta.is_dir() {
                let before = found.len();
                walk(path, 0, &mut found)?;
                if found.len() == before {
                    return Err(format!(
                        "the policy folder `{}` holds no `.rego` file",
                        path.display()
                    ));
                }
            } else {
                found.push(path.clone());
            }
        }
        // A file named twice (itself and in its folder) is loaded once.
        let mut seen = std::collections::HashSet::new();
        found.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));

        let mut engine = regorus::Engine::new();
        engine.set_gather_prints(true);
        engine.set_execution_timer_config(regorus::utils::limits::ExecutionTimerConfig {
            limit: TIME_LIMIT,
            check_interval: std::num::NonZeroU32::MIN,
        });
        let mut policies = Policies {
            engine,
            files: Vec::with_capacity(found.len()),
            packages: Vec::new(),
        };
        for path in found {
            let name = gpulint_source::names::display_name(&path, cwd.as_deref());
            let text = gpulint_source::bounded::read_text(
                &path,
                MAX_POLICY_BYTES,
                "a policy is read up to 1 MiB",
            )
            .map_err(|e| format!("cannot read policy `{}`: {e}", path.display()))?;
            too_deep(&name, &text)?;
            raw_controls(&name, &text)?;
            let engine = &mut policies.engine;
            let package = guarded(&name, || engine.add_policy(name.clone(), text.clone()))?
                .map_err(|e| syntax_hint(&one_line(&e, &name)))?;
            let package = package
                .strip_prefix("data.")
                .unwrap_or(&package)
                .to_string();
            if !package
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            {
                return Err(format!(
                    "{name}:1:1: package `{package}`: a gpulint policy's package is a path of \
                     plain names (`package gpulint.team_label`), as it becomes part of rule ids"
                ));
            }
            if !policies.packages.contains(&package) {
                policies.packages.push(package.clone());
            }
            policies.files.push(PolicyFile {
                name,
                text,
                package,
            });
        }
        Ok(policies)
    }

    /// Evaluates every policy over the inventory, as `gpulint inspect --format json` shows
    /// it, and turns what they return into findings. `notes` receives what the policies
    /// `print`. A runtime error, or a result gpulint cannot place, is an error of the run
    /// that names the policy file and line.
    pub fn check(
        &mut self,
        db: &SourceDb,
        inventory: &Inventory,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Finding>, String> {
        let view = gpulint_inventory::View::new(db, inventory);
        let input = serde_json::to_string(&view)
            .map_err(|e| e.to_string())
            .and_then(|text| regorus::Value::from_json_str(&text).map_err(|e| e.to_string()))
            .map_err(|e| format!("cannot give the inventory to the policies: {e}"))?;
        self.engine.set_input(input);
        let places = Places::new(db, inventory);
        let mut findings = Vec::new();
        for package in self.packages.clone() {
            let file = self.first_file(&package).to_string();
            let engine = &mut self.engine;
            let evaluated = guarded(&file, || {
                engine.eval_query(format!("data.{package}"), false)
            })?;
            for line in self.engine.take_prints().unwrap_or_default() {
                notes.push(format!("policy print: {line}"));
            }
            let results =
                evaluated.map_err(|e| sandbox_hint(one_line(&e, self.first_file(&package))))?;
            let Some(value) = results
                .result
                .first()
                .and_then(|r| r.expressions.first())
                .map(|e| &e.value)
            else {
                continue;
            };
            let Json::Object(rules) = serde_json::to_value(value).map_err(|e| e.to_string())?
            else {
                continue;
            };
            for (rule, value) in rules {
                let Some(severity) = severity_of(&rule) else {
                    continue;
                };
                let (file, line) = self.defined_at(&package, &rule);
                let origin = Origin {
                    file: file.to_string(),
                    line,
                    package: package.clone(),
                    rule: rule.clone(),
                };
                for result in results_of(value, &origin)? {
                    findings.push(places.finding(&result, severity, &origin)?);
                }
            }
        }
        Ok(findings)
    }

    /// The first file of a package.
    fn first_file(&self, package: &str) -> &str {
        self.files
            .iter()
            .find(|f| f.package == package)
            .map_or("", |f| f.name.as_str())
    }

    /// Where a package's rule is first written: the first line of its files that starts
    /// with the rule's name (or `default` and the name). The package's first line when
    /// none does.
    fn defined_at(&self, package: &str, rule: &str) -> (&str, usize) {
        let files = || self.files.iter().filter(|f| f.package == package);
        for f in files() {
            for (i, line) in f.text.lines().enumerate() {
                let line = line.trim_start();
                let line = line.strip_prefix("default ").map_or(line, str::trim_start);
                let starts = line.strip_prefix(rule).is_some_and(|rest| {
                    !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                });
                if starts {
                    return (&f.name, i + 1);
                }
            }
        }
        (self.first_file(package), 1)
    }
}

/// The `.rego` files under a folder, sorted by path; hidden folders (`.git`) are skipped
/// and links to folders are not followed.
fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "the policy folder `{}` is nested more than {MAX_DEPTH} folders deep: its policies \
             are not searched (name them with --policy, or move them up)",
            gpulint_source::escape::escape(&dir.display().to_string())
        ));
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read policy folder `{}`: {e}", dir.display()))?;
    let mut entries: Vec<std::fs::DirEntry> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let path = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            if !name.starts_with('.') {
                walk(&path, depth + 1, out)?;
            }
        } else if name.ends_with(".rego") {
            // A FIFO would hang the run, a dangling link or a loop loads nothing: a policy
            // that cannot be read is an error, as a named one is, never a silent skip.
            if !path.is_file() {
                return Err(format!(
                    "cannot read policy `{}`: not a regular file (a FIFO, a device, a dangling \
                     link or a link loop)",
                    gpulint_source::escape::escape(&path.display().to_string())
                ));
            }
            out.push(path);
        }
    }
    Ok(())
}

/// Runs regorus, turning a panic of its own into an error of the run that names the policy
/// (its message is on stderr already, from the panic hook).
fn guarded<T>(file: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| {
        format!(
            "{file}: the Rego engine failed on this policy (a bug in regorus: please report it)"
        )
    })
}

/// Refuses a policy with a control or bidi character outside the line breaks and tabs Rego
/// is written with: regorus writes some warnings, with the policy's line, straight to
/// stderr, where gpulint cannot escape them; refused, they never reach a terminal raw.
fn raw_controls(name: &str, text: &str) -> Result<(), String> {
    for (i, line) in text.lines().enumerate() {
        let at = line
            .char_indices()
            .find(|&(_, c)| gpulint_source::escape::is_unsafe(c) && !matches!(c, '\t' | '\r'));
        if let Some((b, c)) = at {
            let column = line[..b].chars().count() + 1;
            return Err(format!(
                "{name}:{}:{column}: a policy may not contain the control character {}: \
                 write it as an escape in a string (`\\u001b`)",
                i + 1,
                gpulint_source::escape::escape(&c.to_string())
            ));
        }
    }
    Ok(())
}

/// Brackets (`[`, `{`) nested deeper than this are refused before parsing: regorus 0.11
/// parses nested array, object and set literals in time exponential in their depth (24
/// levels take seconds, 30 minutes); at 16 it takes a few milliseconds.
const MAX_NESTING: usize = 16;

/// Refuses a policy whose brackets nest deeper than [`MAX_NESTING`], outside strings and
/// comments, naming where.
fn too_deep(name: &str, text: &str) -> Result<(), String> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let mut chars = text.chars();
    // The quote that opened the string being read, if any.
    let mut string: Option<char> = None;
    while let Some(c) = chars.next() {
        column += 1;
        match (string, c) {
            (_, '\n') => {
                line += 1;
                column = 0;
            }
            (Some('"'), '\\') => {
                chars.next();
                column += 1;
            }
            (Some(q), c) if c == q => string = None,
            (None, '"' | '`') => string = Some(c),
            (None, '#') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        column = 0;
                        break;
                    }
                }
            }
            (None, '[' | '{') => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(format!(
                        "{name}:{line}:{column}: brackets nest deeper than {MAX_NESTING} levels \
                         here; gpulint's Rego parser would take too long (split the value into \
                         rules)"
                    ));
                }
            }
            (None, ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The results of one rule: the members of a set or array, or a single object. `false`
/// and an empty set are no result.
fn results_of(value: Json, origin: &Origin) -> Result<Vec<Json>, String> {
    match value {
        Json::Array(items) => Ok(items),
        Json::Object(_) => Ok(vec![value]),
        Json::Null | Json::Bool(false) => Ok(Vec::new()),
        other => Err(bad_result(
            origin,
            &other,
            "a `deny` or `warn` rule returns a set of objects, each with `msg` and \
             `location` or `subject`",
        )),
    }
}

/// The error for a result gpulint cannot use: the rule's file and line, the result (cut
/// short) and what is wrong.
fn bad_result(origin: &Origin, result: &Json, problem: &str) -> String {
    let mut shown = result.to_string();
    if shown.len() > 200 {
        let mut end = 200;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown.truncate(end);
        shown.push('…');
    }
    format!(
        "{}:{}: `{}` of policy package `{}` returned {shown}: {problem}",
        origin.file, origin.line, origin.rule, origin.package
    )
}

/// The places a result can name: files by name, items by subject.
struct Places<'a> {
    db: &'a SourceDb,
    inventory: &'a Inventory,
    files: HashMap<&'a str, FileId>,
    /// Each capacity's header and each workload's first line, by subject.
    subjects: HashMap<&'a str, Vec<gpulint_model::Span>>,
}

impl<'a> Places<'a> {
    fn new(db: &'a SourceDb, inventory: &'a Inventory) -> Self {
        let files = db.iter().map(|(id, f)| (f.name.as_str(), id)).collect();
        let mut subjects: HashMap<&str, Vec<gpulint_model::Span>> = HashMap::new();
        for c in &inventory.capacity {
            subjects
                .entry(&c.subject)
                .or_default()
                .push(c.header.clone());
        }
        for w in &inventory.workloads {
            let range = first_line(db, w.span.file, w.span.range());
            subjects
                .entry(&w.subject)
                .or_default()
                .push(gpulint_model::Span::new(w.span.file, range));
        }
        Places {
            db,
            inventory,
            files,
            subjects,
        }
    }

    /// The finding a result stands for.
    fn finding(
        &self,
        result: &Json,
        severity: Severity,
        origin: &Origin,
    ) -> Result<Finding, String> {
        let bad = |problem: &str| bad_result(origin, result, problem);
        let Json::Object(fields) = result else {
            let problem = if result.is_string() {
                "a result is an object, not a string: gpulint places every finding at a \
                 file and line, so return `{\"msg\": msg, \"location\": item}` with the \
                 inventory item (a capacity or workload of `input`) it is about"
            } else {
                "a result is an object with `msg` and `location` or `subject`"
            };
            return Err(bad(problem));
        };
        let text = |key: &str| -> Result<Option<&str>, String> {
            match fields.get(key) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(s)) => Ok(Some(s)),
                Some(_) => Err(bad(&format!("`{key}` must be a string"))),
            }
        };
        let message = text("msg")?
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| bad("a result needs `msg`, the message of its finding"))?;
        let id = match text("id")? {
            None => format!("{PREFIX}{}/{}", origin.package, origin.rule),
            Some(id) => {
                let valid = !id.is_empty()
                    && id.len() <= 128
                    && id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_.:/-".contains(c));
                if !valid {
                    return Err(bad(
                        "`id` is letters, digits and `_ . : / -`, at most 128 of them",
                    ));
                }
                if is_policy_id(id) {
                    id.to_string()
                } else {
                    format!("{PREFIX}{id}")
                }
            }
        };
        let subject = text("subject")?;
        let (file, span, found_subject) = match fields.get("location") {
            None | Some(Json::Null) => {
                let subject = subject.ok_or_else(|| {
                    bad("a result needs `location` (an inventory item or value: \
                         `\"location\": c`) or the `subject` of a capacity or workload")
                })?;
                let span = self.subject(subject).map_err(|e| bad(&e))?;
                (span.file, span.range(), subject.to_string())
            }
            Some(location) => self.location(location).map_err(|e| bad(&e))?,
        };
        let rule = intern(&id, origin)?;
        let help = match text("help")? {
            Some(h) => h.to_string(),
            None => format!(
                "see the policy `{}` ({}:{})",
                rule, origin.file, origin.line
            ),
        };
        Ok(Finding {
            rule,
            severity,
            message: message.to_string(),
            help: help.into(),
            subject: subject.map_or(found_subject, str::to_string),
            primary: Label::new(file, Some(span), format!("policy `{}`", origin.package)),
            secondary: Vec::new(),
            related: Vec::new(),
            cost: None,
            leaf: None,
        })
    }

    /// The one item with this subject.
    fn subject(&self, subject: &str) -> Result<gpulint_model::Span, String> {
        match self.subjects.get(subject).map(Vec::as_slice) {
            None | Some([]) => Err(format!(
                "no capacity or workload has the subject `{subject}`; give `location` instead"
            )),
            Some([one]) => Ok(one.clone()),
            Some(many) => {
                let at: Vec<String> = many
                    .iter()
                    .take(3)
                    .map(|s| {
                        let f = self.db.get(s.file);
                        let (line, col) = f.line_col(s.range().start);
                        format!("{}:{line}:{col}", f.name)
                    })
                    .collect();
                Err(format!(
                    "{} items have the subject `{subject}` ({}): give `location` (the item \
                     itself, `\"location\": c`) to say which",
                    many.len(),
                    at.join(", ")
                ))
            }
        }
    }

    /// A `location`: `file`, `line` and `column` (1 when left out), as every inventory
    /// item and value carries them. Returns the file, the span (an item's whole header
    /// when the position is where one starts, else the rest of the line) and the subject
    /// (the location's own, the workload around it, or the file).
    fn location(&self, location: &Json) -> Result<(FileId, Range<usize>, String), String> {
        let expected = "`location` is an object with `file`, `line` and `column`, as \
                        every inventory item and value has them";
        let Json::Object(at) = location else {
            return Err(expected.into());
        };
        let (Some(Json::String(name)), Some(line)) = (at.get("file"), at.get("line")) else {
            return Err(expected.into());
        };
        let number = |v: Option<&Json>, default: u64| match v {
            None => Some(default),
            Some(v) => v.as_u64().filter(|&n| n >= 1),
        };
        let (Some(line), Some(column)) = (number(Some(line), 1), number(at.get("column"), 1))
        else {
            return Err(format!("{expected}; lines and columns start at 1"));
        };
        let &id = self.files.get(name.as_str()).ok_or_else(|| {
            format!("`location` names the file `{name}`, which this run did not read")
        })?;
        let file = self.db.get(id);
        let line = usize::try_from(line).unwrap_or(usize::MAX);
        let lines = file.text().lines().count().max(1);
        if line > lines {
            return Err(format!(
                "`location` names line {line} of `{name}`, which has {lines} lines"
            ));
        }
        // Past the end of the line is its end.
        let column = usize::try_from(column)
            .unwrap_or(usize::MAX)
            .min(file.len() + 1);
        let start = file.byte_of_line_char(line - 1, column - 1);
        // An item's header, when the position is where one starts.
        let header = self
            .subjects
            .values()
            .flatten()
            .find(|s| s.file == id && s.range().start == start)
            .map(gpulint_model::Span::range);
        let span = header.unwrap_or_else(|| first_line(self.db, id, start..start));
        let subject = match at.get("subject") {
            Some(Json::String(s)) => s.clone(),
            _ => self.around(id, start).unwrap_or_else(|| name.clone()),
        };
        Ok((id, span, subject))
    }

    /// The subject of the innermost workload whose object holds the position, or of the
    /// capacity whose header does.
    fn around(&self, file: FileId, at: usize) -> Option<String> {
        let holds = |s: &gpulint_model::Span| s.file == file && s.range().contains(&at);
        self.inventory
            .workloads
            .iter()
            .filter(|w| holds(&w.span))
            .min_by_key(|w| w.span.range().len())
            .map(|w| w.subject.clone())
            .or_else(|| {
                self.inventory
                    .capacity
                    .iter()
                    .find(|c| holds(&c.header))
                    .map(|c| c.subject.clone())
            })
    }
}

/// From `range.start` to the end of its line, trailing blanks left out (at least
/// `range`'s own first line when it spans several).
fn first_line(db: &SourceDb, file: FileId, range: Range<usize>) -> Range<usize> {
    let f = db.get(file);
    let start = range.start.min(f.len());
    let line = f.line_index(start);
    let end = f.line_end(line).max(start);
    let text = f.text().get(start..end).unwrap_or_default();
    start..start + text.trim_end().len()
}

/// A regorus error on one line: `file:line:col: message`, from the code frames it prints
/// (`--> file:line:col`, the source line, `error: message`). `file` names the policy when
/// the error has no position.
fn one_line(e: &dyn std::fmt::Display, file: &str) -> String {
    let text = format!("{e:#}");
    let mut parts: Vec<String> = Vec::new();
    let mut at: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(loc) = trimmed.strip_prefix("--> ") {
            at = Some(loc);
        } else if let Some(message) = trimmed.strip_prefix("error: ") {
            parts.push(match at.take() {
                Some(loc) => format!("{loc}: {message}"),
                None => message.to_string(),
            });
        } else if trimmed.starts_with(':') {
            parts.push(format!("{}{trimmed}", at.take().unwrap_or_default()));
        } else if trimmed.is_empty() || is_frame(trimmed) {
        } else {
            parts.push(trimmed.to_string());
        }
    }
    let mut joined = parts.join(" ");
    // Some errors carry the whole evaluation scope (the inventory): cut them short.
    if joined.chars().count() > MAX_ERROR_CHARS {
        joined = joined.chars().take(MAX_ERROR_CHARS).collect();
        joined.push('…');
    }
    if joined.starts_with(file) && !file.is_empty() {
        joined
    } else {
        format!("{file}: {joined}")
    }
}

/// The longest error message shown from regorus, in characters.
const MAX_ERROR_CHARS: usize = 400;

/// A line of a code frame: `2 | deny[msg] {`, `  |`, `  |   ^`.
fn is_frame(line: &str) -> bool {
    let digits = line
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    digits.starts_with('|')
}

/// OPA builtins gpulint leaves out, by prefix: they read the environment, the network,
/// or the clock, or are not needed over an inventory.
const LEFT_OUT: [&str; 9] = [
    "opa.runtime",
    "http.",
    "net.",
    "time.",
    "uuid.",
    "yaml.",
    "crypto.",
    "io.",
    "semver.",
];

/// Says why a left-out builtin is unknown.
fn sandbox_hint(message: String) -> String {
    match message.split("could not find function ").nth(1) {
        Some(name) if LEFT_OUT.iter().any(|p| name.starts_with(p)) => format!(
            "{message} (gpulint runs policies without OPA's environment, network, time, UUID, \
             YAML, crypto and semver builtins: a policy reads only its input)"
        ),
        _ => message,
    }
}

/// A pointer for policies written for Rego v0 (conftest before OPA 1.0).
fn syntax_hint(message: &str) -> String {
    if message.contains("keyword is required") {
        format!(
            "{message} (gpulint reads Rego v1, as OPA 1.0 and conftest do: \
             `deny contains result if {{ … }}`)"
        )
    } else {
        message.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cover_policies_by_package_and_id() {
        let id = "policy/gpulint.team_label/deny";
        for name in [
            "policy",
            "POLICY",
            "policy/gpulint.team_label",
            id,
            "policy/gpulint.team_label/",
        ] {
            assert!(covers(name, id), "{name}");
        }
        for name in [
            "policy/gpulint.team",
            "policy/gpulint.team_label/warn",
            "cost",
            "missing-shm",
        ] {
            assert!(!covers(name, id), "{name}");
        }
        assert!(!covers("policy", "missing-shm"));
        assert!(selected(id, &[], &[]));
        assert!(!selected(id, &["cost".into()], &[]));
        assert!(selected(id, &["cost".into(), "policy".into()], &[]));
        assert!(!selected(id, &[], &["policy/gpulint.team_label".into()]));
    }

    #[test]
    fn rules_are_named_as_conftest_names_them() {
        assert_eq!(severity_of("deny"), Some(Severity::Error));
        assert_eq!(severity_of("deny_spot"), Some(Severity::Error));
        assert_eq!(severity_of("violation"), Some(Severity::Error));
        assert_eq!(severity_of("warn"), Some(Severity::Warning));
        assert_eq!(severity_of("warn_h100"), Some(Severity::Warning));
        for other in ["denied", "deny_", "warning", "allow", "has_team"] {
            assert_eq!(severity_of(other), None, "{other}");
        }
    }

    #[test]
    fn deep_brackets_are_refused_before_parsing() {
        let nested = |n: usize| format!("package p\n\nx := {}{}\n", "[".repeat(n), "]".repeat(n));
        assert!(too_deep("p.rego", &nested(MAX_NESTING)).is_ok());
        let e = too_deep("p.rego", &nested(MAX_NESTING + 1)).unwrap_err();
        assert!(
            e.starts_with("p.rego:3:22: brackets nest deeper than 16"),
            "{e}"
        );
        // Brackets in strings and comments do not count.
        let quoted = format!(
            "package p\n# {}\nx := \"{}\"\ny := `{}`\n",
            "[".repeat(40),
            "{".repeat(40),
            "[".repeat(40)
        );
        assert!(too_deep("p.rego", &quoted).is_ok());
    }

    #[test]
    fn regorus_errors_read_on_one_line() {
        let e = String::from(
            "\n--> p.rego:3:1\n  |\n3 | x := 2\n  | ^\nerror: rule conflicts with the following rule:\n\n--> p.rego:2:1\n  |\n2 | x := 1\n  | ^\n: defined here",
        );
        assert_eq!(
            one_line(&e, "p.rego"),
            "p.rego:3:1: rule conflicts with the following rule: p.rego:2:1: defined here"
        );
        let e = "could not find package";
        assert_eq!(one_line(&e, "p.rego"), "p.rego: could not find package");
    }
}
