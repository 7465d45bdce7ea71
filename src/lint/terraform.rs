//! Terraform in a run beyond the paths given: the local modules and same-repository Git
//! sources the loaded files call, the variable files no `--var-file` names, and, once
//! findings are known, where the values they rest on were written.

use super::{Finding, Input, Read, Reading, load_all, reload};
use crate::lower;
use crate::source::{FileId, FileKind, SourceDb};

/// Reads the local modules that loaded Terraform calls (`source = "../modules/gpu"`) and
/// that the run does not hold yet, as Terraform would: they are judged through the call,
/// and findings in them count when the calling file was asked about. Returns a note for
/// links in module folders that lead outside them, which are not read unless `follow`.
pub(super) fn load_local_modules(
    run: &mut Read,
    seen: &mut crate::discover::Seen,
    how: &Reading,
) -> Option<String> {
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
                for p in found.files {
                    let mut input = Input {
                        name: crate::source::names::display_name(&p, how.cwd),
                        kind: FileKind::from_path(&p).unwrap_or(FileKind::Terraform),
                        path: Some(p),
                        requested: file.requested,
                    };
                    let index = run.db.len() + wanted.len();
                    if seen.add(&mut input, index, how.cwd).is_none() {
                        wanted.push((input, None));
                    }
                }
            }
        }
        if wanted.is_empty() {
            break;
        }
        let loaded = load_all(wanted, run.db.len(), how);
        // Modules are Terraform: no template among them.
        let mut templates = Vec::new();
        frontier = loaded
            .into_iter()
            .map(|l| run.add(l, &mut templates))
            .collect();
    }
    external.0.sort();
    external.0.dedup();
    external.note()
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

/// Reads again the unloaded files among `ids`, in parallel, for their findings.
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
    // The key and entry, and whether the span reads `each.value`.
    let leaf_of = |db: &SourceDb, f: &Finding| -> Option<(gpulint_diagnostics::Leaf, bool)> {
        if let Some(l) = &f.leaf {
            return Some((l.clone(), false));
        }
        let file = db.get(f.primary.file);
        if !file.is_loaded() {
            return None;
        }
        let text = f
            .primary
            .span
            .as_ref()
            .and_then(|r| file.text().get(r.clone()))?;
        let l = provenance::each_value_leaf(text, &f.subject)?;
        let leaf = gpulint_diagnostics::Leaf {
            key: l.key.to_string(),
            within: l.within.map(str::to_string),
        };
        Some((leaf, true))
    };
    let wanted: Vec<(usize, (gpulint_diagnostics::Leaf, bool))> = found
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((i, leaf_of(db, f)?)))
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
    for (i, (wanted, each)) in wanted {
        let f = &mut found[i];
        let Some(range) = f.primary.span.clone() else {
            continue;
        };
        let at = gpulint_model::Span::new(f.primary.file, range);
        let leaf = Leaf {
            key: &wanted.key,
            within: wanted.within.as_deref(),
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
    Ok(())
}

/// A note for each folder whose `*.tfvars` files Terraform does not read by itself
/// (`prod.tfvars`, `staging.tfvars`: environments) and that no `--var-file` names: their
/// values were not applied, so the module was checked on its defaults.
pub(super) fn unapplied_tfvars(db: &SourceDb, var_files: &[FileId]) -> Vec<String> {
    let mut by_folder: std::collections::BTreeMap<String, Vec<&str>> =
        std::collections::BTreeMap::new();
    for (id, f) in db.iter() {
        if f.kind != FileKind::TfVars || f.path().is_none() || var_files.contains(&id) {
            continue;
        }
        let base = f.name.rsplit('/').next().unwrap_or(&f.name);
        if crate::lower::tfvars_rank(base).is_none() {
            by_folder
                .entry(crate::lower::folder_of(&f.name))
                .or_default()
                .push(base);
        }
    }
    by_folder
        .into_iter()
        .map(|(folder, files)| {
            let folder = if folder.is_empty() { "." } else { &folder };
            format!(
                "`{folder}` has variable files Terraform applies only when named ({}): \
                 checked without them; lint each environment with `--var-file {}`",
                files.join(", "),
                if folder == "." {
                    files[0].to_string()
                } else {
                    format!("{folder}/{}", files[0])
                },
            )
        })
        .collect()
}
