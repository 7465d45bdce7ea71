//! One overwrite guard for every file gpulint writes (`--output`, `--report`,
//! `--write-baseline`) against every file the run reads.

use crate::lint::Options;
use crate::source::escape::escape;

/// What a run reads besides its sources and config: its policies (files, and folders
/// whose `.rego` files it loads) and its `--var-file`s, named for a refusal.
pub(crate) fn read_elsewhere(opts: &Options) -> Vec<(String, std::path::PathBuf)> {
    let policies = opts
        .policy_paths()
        .into_iter()
        .map(|p| (format!("the policy `{}`", p.display()), p));
    let var_files = opts
        .var_files
        .iter()
        .map(|p| (format!("the var file `{}`", p.display()), p.clone()));
    policies.chain(var_files).collect()
}

/// `--output`, `--report` or `--write-baseline` naming a file the run read (`--output
/// main.tf`, a policy, a var file, the config, the baseline) would destroy it: refused
/// before anything is written. A `.rego` file inside a policy folder would be loaded as a
/// policy by the next run: refused too. Rewriting the `--baseline` file with
/// `--write-baseline` refreshes it, and is allowed.
pub(crate) fn refuse(
    targets: &[(&str, Option<&std::path::Path>)],
    baseline: Option<&std::path::Path>,
    db: &crate::source::SourceDb,
    config: Option<&std::path::Path>,
    elsewhere: &[(String, std::path::PathBuf)],
) -> Result<(), String> {
    use crate::discover::written_file;
    // A file that does not exist yet was not read.
    let targets: Vec<_> = targets
        .iter()
        .copied()
        .filter_map(|(flag, p)| {
            let p = p?;
            Some((flag, p, written_file(p)?))
        })
        .collect();
    if targets.is_empty() {
        return Ok(());
    }
    let mut read: Vec<(String, Option<crate::discover::WrittenFile>)> = db
        .iter()
        .filter_map(|(_, f)| Some((format!("`{}`", f.name), f.path()?)))
        .map(|(n, p)| (n, written_file(p)))
        .collect();
    if let Some(c) = config {
        read.push((format!("the config `{}`", c.display()), written_file(c)));
    }
    let mut folders: Vec<(String, std::path::PathBuf)> = Vec::new();
    for (name, p) in elsewhere {
        if p.is_dir() {
            if let Ok(dir) = std::fs::canonicalize(p) {
                folders.push((name.clone(), dir));
            }
        } else {
            read.push((name.clone(), written_file(p)));
        }
    }
    let baseline = baseline.and_then(written_file);
    for (flag, path, key) in targets {
        let in_policy_folder = || {
            let rego = path.extension().is_some_and(|e| e == "rego");
            let at = path
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(|| std::fs::canonicalize("."), std::fs::canonicalize);
            let at = at.ok()?;
            folders
                .iter()
                .find(|(_, dir)| rego && at.starts_with(dir))
                .map(|(n, _)| n.clone())
        };
        let hit = read
            .iter()
            .find(|(_, k)| k.as_ref() == Some(&key))
            .map(|(n, _)| n.clone())
            .or_else(|| {
                (flag != "--write-baseline" && baseline.as_ref() == Some(&key))
                    .then(|| "the baseline".to_string())
            })
            .or_else(in_policy_folder);
        if let Some(what) = hit {
            return Err(format!(
                "`{flag} {}` names {what}, which this run reads: refusing to overwrite it",
                escape(&path.display().to_string())
            ));
        }
    }
    Ok(())
}
