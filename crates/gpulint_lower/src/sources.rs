//! Module sources: a local folder, or a Git or registry source that names this repository
//! and so is read from the checkout.

use std::collections::BTreeMap;

/// `dir` joined with a relative module source, `..` resolved as display names resolve
/// it: `envs/prod` and `../../modules/gpu` give `modules/gpu`; the top folder is `""`.
pub fn join_source(dir: &str, source: &str) -> String {
    let joined = std::path::Path::new(dir).join(source);
    match gpulint_source::names::display_name(&joined, None) {
        top if top == "." => String::new(),
        name => name,
    }
}

/// A module source on disk: `./gpu`, `../modules/gpu`.
pub fn is_local_source(source: &str) -> bool {
    source.starts_with("./") || source.starts_with("../")
}

/// The repository and folder a Git module source names (`github.com/OWNER/REPO//SUBDIR`,
/// `git::https://gitlab.com/OWNER/REPO.git//SUBDIR?ref=v1`, `git@github.com:OWNER/REPO//SUBDIR`),
/// when it names a folder: `(REPO, SUBDIR)`. A folder that climbs (`..`) names none.
pub fn repo_subdir(source: &str) -> Option<(String, String)> {
    let s = source.strip_prefix("git::").unwrap_or(source);
    let s = s.split_once("://").map_or(s, |(_, rest)| rest);
    let s = s.strip_prefix("git@").unwrap_or(s);
    let s = s.split('?').next()?;
    let (repo_part, subdir) = s.split_once("//")?;
    let repo_part = repo_part.replacen(':', "/", 1);
    let mut parts = repo_part.split('/');
    let host = parts.next()?;
    if !matches!(host, "github.com" | "gitlab.com" | "bitbucket.org") {
        return None;
    }
    let (_owner, repo) = (parts.next()?, parts.next()?.trim_end_matches(".git"));
    let subdir = subdir.trim_matches('/');
    if repo.is_empty() || subdir.is_empty() || subdir.split('/').any(|c| c == "..") {
        return None;
    }
    Some((repo.to_string(), subdir.to_string()))
}

/// Whether a folder is the checkout of repository `repo`: named after it (`repo`, or
/// `owner+repo` as archives of several repositories are laid out).
pub fn is_checkout_of(folder_name: &str, repo: &str) -> bool {
    folder_name == repo || folder_name.ends_with(&format!("+{repo}"))
}

/// The folder of the run a module call from `dir` runs: a local source joined to `dir`, or a
/// Git source that names this repository, when the folder it names (below the checkout
/// that holds `dir`, or below the run's top) is in the run. `None` for any other source.
pub fn local_target<V>(dir: &str, source: &str, folders: &BTreeMap<String, V>) -> Option<String> {
    if is_local_source(source) {
        return Some(join_source(dir, source));
    }
    let (repo, subdir) = repo_subdir(source)?;
    let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    let lead = if dir.starts_with('/') { "/" } else { "" };
    (0..=parts.len()).rev().find_map(|k| {
        let above = parts[..k].join("/");
        let ok = k == 0 || parts.get(k - 1).is_some_and(|n| is_checkout_of(n, &repo));
        let candidate = if above.is_empty() {
            format!("{lead}{subdir}")
        } else {
            format!("{lead}{above}/{subdir}")
        };
        (ok && folders.contains_key(&candidate)).then_some(candidate)
    })
}
