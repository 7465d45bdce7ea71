//! Terraform in a run beyond the paths given: the local modules and same-repository Git
//! sources the loaded files call, the variable files no `--var-file` names, and, once
//! findings are known, where the values they rest on were written.

use std::path::{Path, PathBuf};

use super::{Finding, Input, Read, Reading, load_all, reload};
use crate::lower;
use crate::source::{FileId, FileKind, SourceDb};

/// Folders above a folder of variable files searched for the module they set: an
/// `environments/prod/` folder two levels below its module is as far as layouts go.
const PAIR_LEVELS: usize = 3;

/// Reads the root module each `--var-file` kept in a folder with no Terraform sets
/// (`envs/prod.tfvars` beside `main.tf` one level up, or in a sibling `terraform/`): the
/// nearest such folder whose variables declare every key of the file. Terraform applies
/// a var file to the module it runs in, so a folder of only tfvars is never a root of
/// its own. Returns a note for each pairing, so the run says what it linted.
pub(super) fn pair_var_files(
    run: &mut Read,
    seen: &mut crate::discover::Seen,
    how: &Reading,
) -> Vec<String> {
    let mut notes = Vec::new();
    let mut wanted: Vec<(Input, Option<Vec<u8>>)> = Vec::new();
    for id in run.var_files.clone() {
        let file = run.db.get(id);
        let Some(folder) = file.path().and_then(Path::parent) else {
            continue;
        };
        if has_module(&run.db, folder) {
            continue;
        }
        let keys = tfvars_keys(&run.parsed[id.0 as usize]);
        let Some(root) = paired_root(folder, &keys, how) else {
            continue;
        };
        let name = crate::source::names::display_name(&root, how.cwd);
        // It sets that module only, whatever else the run holds.
        if !run.bound.iter().any(|(b, _)| *b == id) {
            run.bound.push((id, super::folder_name(&root, how.cwd)));
        }
        notes.push(format!(
            "`{}` sets no module in its own folder: read with `{name}`, the nearest folder \
             whose variables declare its keys",
            file.name
        ));
        if has_module(&run.db, &root) {
            continue;
        }
        let files = crate::discover::module_config_files(&root, how.follow).files;
        want(run, seen, how, files, true, &mut wanted);
    }
    read_wanted(run, wanted, how);
    notes
}

/// Adds to `wanted` the files at `paths` that the run does not hold yet, named as
/// discovery names them.
fn want(
    run: &Read,
    seen: &mut crate::discover::Seen,
    how: &Reading,
    paths: impl IntoIterator<Item = PathBuf>,
    requested: bool,
    wanted: &mut Vec<(Input, Option<Vec<u8>>)>,
) {
    for p in paths {
        let mut input = Input {
            name: crate::source::names::display_name(&p, how.cwd),
            kind: FileKind::from_path(&p).unwrap_or(FileKind::Terraform),
            path: Some(p),
            requested,
        };
        let index = run.db.len() + wanted.len();
        if seen.add(&mut input, index, how.cwd).is_none() {
            wanted.push((input, None));
        }
    }
}

/// Reads `wanted` in parallel and adds it to the run: the ids the files got. They are
/// Terraform, so no template is among them.
pub(super) fn read_wanted(
    run: &mut Read,
    wanted: Vec<(Input, Option<Vec<u8>>)>,
    how: &Reading,
) -> Vec<FileId> {
    let loaded = load_all(wanted, run.db.len(), how);
    let mut templates = Vec::new();
    loaded
        .into_iter()
        .map(|l| run.add(l, &mut templates))
        .collect()
}

/// Folders above a linted module searched for the folders that call it.
const CALLER_LEVELS: usize = 5;
/// Folders, at most, walked below that when looking for callers: a limit hit is a note.
const CALLER_FOLDERS: usize = 4096;

/// Reads the folders of the checkout that call a linted module (`source =
/// "../modules/worker"`), with their own tfvars: Terraform only ever runs a module through
/// a call, so it is judged through its callers' values, not on defaults it may not have.
/// A module with a default for every variable is judged through calls from outside
/// examples and tests folders only: an example runs it on its defaults. The callers' own findings are not reported unless
/// they were asked about. A folder that configures a backend, or holds
/// variable files, is a root and is not searched for. Searches up to [`CALLER_LEVELS`]
/// folders up, not past a folder with `.git` nor above the working directory, and follows
/// callers that are modules themselves, as deep as modules go.
pub(super) fn load_callers(
    run: &mut Read,
    seen: &mut crate::discover::Seen,
    how: &Reading,
) -> Vec<String> {
    let mut notes = Vec::new();
    // A module a file of the run already calls is judged through that call.
    let called: Vec<PathBuf> = run
        .db
        .iter()
        .filter(|(_, f)| f.kind == FileKind::Terraform)
        .filter_map(|(id, f)| Some((id, f.path()?.parent()?)))
        .flat_map(|(id, dir)| {
            lower::sources_of(&run.parsed[id.0 as usize])
                .into_iter()
                .filter(|s| lower::is_local_source(s))
                .filter_map(move |s| std::fs::canonicalize(dir.join(s)).ok())
        })
        .collect();
    let mut frontier: Vec<(PathBuf, bool)> = needs_caller(run, |f| f.requested)
        .into_iter()
        .filter(|(d, _)| std::fs::canonicalize(d).is_ok_and(|d| !called.contains(&d)))
        .collect();
    let mut done: Vec<PathBuf> = Vec::new();
    // One walk per search folder, for every module below it.
    let mut walks: std::collections::HashMap<PathBuf, (Vec<(PathBuf, PathBuf)>, bool)> =
        std::collections::HashMap::new();
    for _ in 0..how.limits.count(crate::limits::Limit::ModuleDepth) {
        let mut wanted: Vec<(Input, Option<Vec<u8>>)> = Vec::new();
        let mut next = Vec::new();
        for (module, undefined) in std::mem::take(&mut frontier) {
            if done.contains(&module) {
                continue;
            }
            done.push(module.clone());
            let (Some(top), Ok(target)) = (
                caller_search_top(&module, how.cwd),
                std::fs::canonicalize(&module),
            ) else {
                continue;
            };
            let (calls, capped) = walks
                .entry(top.clone())
                .or_insert_with(|| local_calls_below(&top, how));
            // A module with a default for every variable runs as written when an example
            // calls it the minimal way: only a call from elsewhere (the project's own
            // deployment) says what it is given instead.
            let mut callers: Vec<PathBuf> = calls
                .iter()
                .filter(|(c, t)| *t == target && *c != target)
                .filter(|(c, _)| undefined || !in_example_folder(c, &top))
                .map(|(c, _)| c.clone())
                .collect();
            callers.sort();
            callers.dedup();
            if *capped {
                notes.push(format!(
                    "looked for the callers of `{}` in the first {CALLER_FOLDERS} folders \
                     around it only",
                    crate::source::names::display_name(&module, how.cwd)
                ));
            }
            for caller in callers {
                if has_module(&run.db, &caller) {
                    continue;
                }
                notes.push(format!(
                    "`{}` {}: judged through its call in `{}`",
                    crate::source::names::display_name(&module, how.cwd),
                    if undefined {
                        "declares variables with no default"
                    } else {
                        "is a module the checkout calls, not a root"
                    },
                    crate::source::names::display_name(&caller, how.cwd),
                ));
                let files = crate::discover::module_config_files(&caller, how.follow).files;
                let tfvars = crate::discover::module_auto_tfvars(&caller, how.follow).files;
                want(
                    run,
                    seen,
                    how,
                    files.into_iter().chain(tfvars),
                    false,
                    &mut wanted,
                );
                next.push(caller);
            }
        }
        if wanted.is_empty() {
            break;
        }
        read_wanted(run, wanted, how);
        // A caller that is a module itself is judged through its own callers in turn.
        frontier = needs_caller(run, |_| true)
            .into_iter()
            .filter(|(d, _)| next.contains(d))
            .collect();
    }
    notes
}

/// Whether `caller` lies in an examples or tests folder below `top`.
fn in_example_folder(caller: &Path, top: &Path) -> bool {
    caller.strip_prefix(top).is_ok_and(|rel| {
        rel.components()
            .any(|c| c.as_os_str().to_str().is_some_and(lower::is_example_folder))
    })
}

/// The folders of Terraform files `keep` accepts that are modules, not roots: each with
/// whether it declares a variable with no default. A folder that configures a `backend`,
/// or has variable files beside it, is a root module, which Terraform runs
/// itself; so is a folder that declares no variable. No caller is looked for those; one
/// nothing calls is judged as it is.
fn needs_caller(
    run: &Read,
    keep: impl Fn(&crate::source::SourceFile) -> bool,
) -> Vec<(PathBuf, bool)> {
    use std::collections::BTreeSet;
    // Folders as the run names them: one canonical path each, at the end.
    let mut undefined: BTreeSet<&Path> = BTreeSet::new();
    let mut declaring: BTreeSet<&Path> = BTreeSet::new();
    let mut roots: BTreeSet<&Path> = BTreeSet::new();
    for (id, f) in run.db.iter() {
        let Some(dir) = f.path().and_then(Path::parent) else {
            continue;
        };
        // Variable files beside a module set it directly: it is run as a root.
        if f.kind == FileKind::TfVars {
            roots.insert(dir);
        }
        if f.kind != FileKind::Terraform || !keep(f) {
            continue;
        }
        let crate::parse::Syntax::Hcl(body) = &run.parsed[id.0 as usize].syntax else {
            continue;
        };
        // A `provider` block alone does not make a root: modules written before 0.13
        // configure their own (often an alias), and are called all the same.
        let configures = body
            .get_blocks("terraform")
            .any(|t| t.body.get_blocks("backend").next().is_some());
        if configures {
            roots.insert(dir);
        }
        if body.get_blocks("variable").next().is_some() {
            declaring.insert(dir);
        }
        if body
            .get_blocks("variable")
            .any(|v| v.body.get_attribute("default").is_none())
        {
            undefined.insert(dir);
        }
    }
    let roots: BTreeSet<PathBuf> = roots
        .into_iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .collect();
    let mut out: Vec<(PathBuf, bool)> = declaring
        .into_iter()
        .filter_map(|d| Some((std::fs::canonicalize(d).ok()?, undefined.contains(d))))
        .filter(|(d, _)| !roots.contains(d))
        .collect();
    // A folder named in both ways (`./m` and `m`) is one: with no default wins.
    out.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// The folder searched for the callers of `module`: up to [`CALLER_LEVELS`] above it, not
/// past a folder with `.git`.
fn caller_search_top(module: &Path, cwd: Option<&Path>) -> Option<PathBuf> {
    let target = std::fs::canonicalize(module).ok()?;
    let cwd = cwd.and_then(|c| std::fs::canonicalize(c).ok());
    let mut top = target.clone();
    for up in up_to_checkout(&target, CALLER_LEVELS) {
        // Never above the folder the run works in, when the module is below it.
        if cwd
            .as_ref()
            .is_some_and(|c| target.starts_with(c) && !up.starts_with(c))
        {
            break;
        }
        top = up.to_path_buf();
    }
    Some(top)
}

/// Every local module call below `top`: the calling folder and the folder it calls
/// (canonical), and whether the walk was cut short at [`CALLER_FOLDERS`]. Only files that
/// name a local source are followed to it.
fn local_calls_below(top: &Path, how: &Reading) -> (Vec<(PathBuf, PathBuf)>, bool) {
    let mut calls = Vec::new();
    let mut stack = vec![(top.to_path_buf(), 0usize)];
    let mut visited = 0;
    while let Some((dir, depth)) = stack.pop() {
        visited += 1;
        if visited > CALLER_FOLDERS {
            return (calls, true);
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let Ok(t) = e.file_type() else { continue };
            let name = e.file_name();
            let name = name.to_string_lossy();
            if t.is_dir() {
                let skip = name.starts_with('.') || name == "node_modules";
                if !skip && depth < 8 {
                    stack.push((e.path(), depth + 1));
                }
            } else if t.is_file()
                && name.ends_with(".tf")
                && let Ok(text) =
                    crate::bounded::read_text(&e.path(), how.cap, crate::bounded::MAX_FILE_SIZE)
            {
                for s in local_sources(&text) {
                    if let Ok(target) = std::fs::canonicalize(dir.join(s))
                        && !calls.iter().any(|(c, t)| *c == dir && *t == target)
                    {
                        calls.push((dir.clone(), target));
                    }
                }
            }
        }
    }
    (calls, false)
}

/// The relative paths of `source = "./…"` and `"../…"` lines.
fn local_sources(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|line| {
        let rest = line.trim_start().strip_prefix("source")?;
        let rest = rest.trim_start().strip_prefix('=')?.trim_start();
        let path = rest.strip_prefix('"')?.split('"').next()?;
        (path.starts_with("./") || path.starts_with("../")).then_some(path)
    })
}

/// Whether the run holds a Terraform file in `folder`.
fn has_module(db: &SourceDb, folder: &Path) -> bool {
    let canonical = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    db.iter().any(|(_, f)| {
        f.kind == FileKind::Terraform
            && f.path().and_then(Path::parent).is_some_and(|p| {
                p == folder
                    // Only a folder of the same name can be the same folder.
                    || (p.file_name() == canonical.file_name()
                        && std::fs::canonicalize(p).is_ok_and(|p| p == canonical))
            })
    })
}

/// The variables a tfvars file sets: its top-level keys.
fn tfvars_keys(parsed: &crate::parse::Parsed) -> Vec<String> {
    match &parsed.syntax {
        crate::parse::Syntax::Hcl(body) => body
            .attributes()
            .map(|a| a.key.as_str().to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// The module folder a folder of variable files with `keys` sets: up to [`PAIR_LEVELS`]
/// folders up, not past the checkout (a folder with `.git`), each folder itself and then
/// its `terraform/`, the first whose `variable` blocks declare every key.
fn paired_root(folder: &Path, keys: &[String], how: &Reading) -> Option<PathBuf> {
    if keys.is_empty() {
        return None;
    }
    let folder = std::fs::canonicalize(folder).ok()?;
    for up in up_to_checkout(&folder, PAIR_LEVELS) {
        for candidate in [up.to_path_buf(), up.join("terraform")] {
            let declared = declared_variables(&candidate, how);
            if !declared.is_empty() && keys.iter().all(|k| declared.contains(k)) {
                return Some(candidate);
            }
        }
    }
    None
}

/// The folders above `dir`, nearest first, at most `levels` of them and none past the
/// first that holds `.git` (the checkout).
fn up_to_checkout(dir: &Path, levels: usize) -> Vec<&Path> {
    let mut out = Vec::new();
    for up in dir.ancestors().skip(1).take(levels) {
        out.push(up);
        if up.join(".git").exists() {
            break;
        }
    }
    out
}

/// The names of the `variable "NAME"` blocks of a folder's `.tf` files, each file read
/// within the run's size cap.
fn declared_variables(dir: &Path, how: &Reading) -> Vec<String> {
    let mut names = Vec::new();
    for p in crate::discover::module_config_files(dir, how.follow).files {
        if p.extension().is_some_and(|e| e == "json") {
            continue;
        }
        let Ok(text) = crate::bounded::read_text(&p, how.cap, crate::bounded::MAX_FILE_SIZE) else {
            continue;
        };
        names.extend(variable_names(&text));
    }
    names
}

/// `variable "gpu_pools" {` → `gpu_pools`, for every such line.
fn variable_names(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().filter_map(|line| {
        let rest = line.trim_start().strip_prefix("variable")?;
        if !rest.starts_with(|c: char| c.is_whitespace() || c == '"') {
            return None;
        }
        let rest = rest.trim_start();
        let name = match rest.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next()?,
            None => rest.split(|c: char| c.is_whitespace() || c == '{').next()?,
        };
        (!name.is_empty()).then(|| name.to_string())
    })
}

/// Reads the local modules that loaded Terraform calls (`source = "../modules/gpu"`) and
/// that the run does not hold yet, as Terraform would: they are judged through the call,
/// and findings in them count when the calling file was asked about; Git sources that
/// name this repository are read from the checkout too. Returns a note for each such
/// source, and one for links in module folders that lead outside them, which are not read
/// unless `follow`.
pub(super) fn load_local_modules(
    run: &mut Read,
    seen: &mut crate::discover::Seen,
    how: &Reading,
) -> Vec<String> {
    let mut resolved: Vec<String> = Vec::new();
    let mut external = crate::discover::External::default();
    let mut frontier: Vec<FileId> = run.db.iter().map(|(id, _)| id).collect();
    // Each round reads the modules the last one called: as deep as lowering follows.
    for _ in 0..how.limits.count(crate::limits::Limit::ModuleDepth) {
        let mut wanted: Vec<(Input, Option<Vec<u8>>)> = Vec::new();
        for id in frontier {
            let file = run.db.get(id);
            let (FileKind::Terraform, Some(path)) = (file.kind, file.path()) else {
                continue;
            };
            let dir = path.parent().unwrap_or_else(|| std::path::Path::new(""));
            let sources = lower::sources_of(&run.parsed[id.0 as usize]);
            for source in sources {
                let target = if lower::is_local_source(source) {
                    dir.join(source)
                } else if let Some(t) = same_repository_folder(dir, source) {
                    let note = format!(
                        "`{source}` names this repository: read from `{}` in this checkout",
                        crate::source::names::display_name(&t, how.cwd)
                    );
                    if !resolved.contains(&note) {
                        resolved.push(note);
                    }
                    t
                } else {
                    continue;
                };
                let found = crate::discover::module_config_files(&target, how.follow);
                external.0.extend(
                    found
                        .external
                        .iter()
                        .map(|p| crate::source::names::display_name(p, how.cwd)),
                );
                want(run, seen, how, found.files, file.requested, &mut wanted);
            }
        }
        if wanted.is_empty() {
            break;
        }
        frontier = read_wanted(run, wanted, how);
    }
    external.0.sort();
    external.0.dedup();
    resolved.extend(external.note());
    resolved
}

/// The folder a Git module source names when it names this repository: the checkout that
/// holds `dir` (a folder with `.git` whose config names the repository, or a folder named
/// after it) has the folder the source's `//SUBDIR` gives.
fn same_repository_folder(dir: &std::path::Path, source: &str) -> Option<std::path::PathBuf> {
    let (repo, subdir) = lower::repo_subdir(source)?;
    let dir = std::fs::canonicalize(dir).ok()?;
    dir.ancestors().find_map(|a| {
        let named = a
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| lower::is_checkout_of(n, &repo));
        // A small read: a Git config names its remotes in a few hundred bytes.
        let cloned = || {
            let config = a.join(".git").join("config");
            crate::bounded::read_text(&config, 64 * 1024, "a Git config")
                .is_ok_and(|c| c.contains(&format!("/{repo}")) || c.contains(&format!(":{repo}")))
        };
        let folder = a.join(&subdir);
        ((named || cloned()) && folder.is_dir()).then_some(folder)
    })
}

/// A value a finding reads, to trace: where it is read, its key and entry, and whether it
/// reads `each.value`.
type Traced = (gpulint_model::Span, gpulint_diagnostics::Leaf, bool);

/// For findings whose value travelled in an object (a module input's entry, a
/// `for_each` item read as `each.value.KEY`), where that key was written: the line to
/// change, as a related location. Only the files of the module instances those findings
/// are in, and the places their variables were set, are read again.
pub(super) fn add_provenance(
    origins: &[gpulint_model::Instance],
    db: &mut SourceDb,
    found: &mut [Finding],
) -> Result<(), String> {
    use gpulint_terraform::provenance::{self, Leaf, Trees};
    // Where each traced value is read, its key and entry, and whether it reads
    // `each.value`: the primary (or the leaf a rule set), and each secondary label that
    // reads `each.value.KEY` (the machine type a finding names).
    let leaves_of = |db: &SourceDb, f: &Finding| {
        let mut out: Vec<Traced> = Vec::new();
        let file_of = |l: &crate::finding::Label| -> Option<(gpulint_model::Span, &str)> {
            let file = db.get(l.file);
            let range = l.span.clone()?;
            let text = file.is_loaded().then(|| file.text().get(range.clone()))??;
            Some((gpulint_model::Span::new(l.file, range), text))
        };
        let each_leaf = |text: &str| {
            provenance::each_value_leaf(text, &f.subject).map(|l| gpulint_diagnostics::Leaf {
                key: l.key.to_string(),
                within: l.within.map(str::to_string),
                under: l.under.map(str::to_string),
            })
        };
        if let Some(l) = &f.leaf {
            if let Some(range) = f.primary.span.clone() {
                out.push((
                    gpulint_model::Span::new(f.primary.file, range),
                    l.clone(),
                    false,
                ));
            }
        } else if let Some((at, text)) = file_of(&f.primary) {
            if let Some(l) = each_leaf(text) {
                out.push((at, l, true));
            } else if let Some(l) = provenance::indexed_leaf(text) {
                // `var.pools[count.index].node_count`: traced from the variable itself.
                let l = gpulint_diagnostics::Leaf {
                    key: l.key.to_string(),
                    within: l.within.map(str::to_string),
                    under: None,
                };
                out.push((at, l, false));
            }
        }
        for label in &f.secondary {
            if let Some((at, text)) = file_of(label)
                && let Some(l) = each_leaf(text)
            {
                out.push((at, l, true));
            }
        }
        out
    };
    let wanted: Vec<(usize, Vec<Traced>)> = found
        .iter()
        .enumerate()
        .map(|(i, f)| (i, leaves_of(db, f)))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let instances: Vec<&gpulint_model::Instance> = origins
        .iter()
        .filter(|i| {
            wanted
                .iter()
                .any(|(w, _)| found[*w].subject.starts_with(&i.prefix))
        })
        .collect();
    let files = instances.iter().flat_map(|i| i.files.iter().copied());
    let set = instances
        .iter()
        .flat_map(|i| i.vars.places().iter().map(|r| r.span.file));
    reload(db, files.chain(set).collect::<Vec<_>>())?;
    let mut trees = Trees::default();
    for (i, leaves) in wanted {
        let f = &mut found[i];
        for (at, wanted, each) in leaves {
            let leaf = Leaf {
                key: &wanted.key,
                within: wanted.within.as_deref(),
                under: wanted.under.as_deref(),
            };
            let Some(r) = provenance::trace(db, &mut trees, origins, &f.subject, &at, leaf, each)
            else {
                continue;
            };
            let label = crate::finding::Label::new(r.span.file, Some(r.span.range()), &*r.message);
            let is_primary = label.file == f.primary.file && label.span == f.primary.span;
            if !is_primary && !f.related.contains(&label) {
                f.related.push(label);
            }
        }
    }
    Ok(())
}

/// A note for each folder whose `*.tfvars` files Terraform does not read by itself
/// (`prod.tfvars`, `staging.tfvars`: environments) and that no `--var-file` names: their
/// values were not applied, so the module was checked on its defaults.
pub(super) fn unapplied_tfvars(run: &Read, how: &Reading) -> Vec<String> {
    // By folder: the files, and one of them held as a tree (for its keys).
    let mut by_folder: std::collections::BTreeMap<String, (Vec<&str>, Option<FileId>, PathBuf)> =
        std::collections::BTreeMap::new();
    for (id, f) in run.db.iter() {
        let Some(path) = f.path() else { continue };
        if f.kind != FileKind::TfVars || run.var_files.contains(&id) {
            continue;
        }
        let base = f.name.rsplit('/').next().unwrap_or(&f.name);
        if crate::lower::tfvars_rank(base).is_none() {
            let dir = path.parent().unwrap_or_else(|| Path::new("")).to_path_buf();
            let entry = by_folder
                .entry(crate::lower::folder_of(&f.name))
                .or_insert_with(|| (Vec::new(), None, dir));
            entry.0.push(base);
            entry.1.get_or_insert(id);
        }
    }
    by_folder
        .into_iter()
        .filter_map(|(folder, (files, first, dir))| {
            let folder = if folder.is_empty() { "." } else { &folder };
            let file = if folder == "." {
                files[0].to_string()
            } else {
                format!("{folder}/{}", files[0])
            };
            if has_module(&run.db, &dir) {
                return Some(format!(
                    "`{folder}` has variable files Terraform applies only when named ({}): \
                     checked without them, except a machine type only they set, read from \
                     the first that sets a GPU type when no `--var-file` applies (the finding \
                     says which); lint each environment with \
                     `gpulint check --var-file {file} {folder}`",
                    files.join(", "),
                ));
            }
            // A folder of only tfvars: advise the module they set, or nothing.
            let keys = first.map(|id| tfvars_keys(&run.parsed[id.0 as usize]))?;
            let root = paired_root(&dir, &keys, how)?;
            let root = crate::source::names::display_name(&root, how.cwd);
            let root = if root.is_empty() {
                ".".to_string()
            } else {
                root
            };
            Some(format!(
                "`{folder}` has variable files for the module in `{root}` ({}): not applied; \
                 lint each environment with `gpulint check --var-file {file} {root}`",
                files.join(", "),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::variable_names;

    #[test]
    fn variable_blocks_are_named() {
        let text =
            "variable \"gpu_pools\" {\n}\n  variable bare {}\nvariables = 1\n# variable \"x\"\n";
        let names: Vec<String> = variable_names(text).collect();
        assert_eq!(names, ["gpu_pools", "bare"]);
    }
}
