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

/// The repository and folder a module source names, when it could be this repository:
/// `(REPO, SUBDIR)`, SUBDIR empty for the repository's top folder. A Git source
/// (`github.com/OWNER/REPO//SUBDIR`, `git::https://gitlab.com/OWNER/REPO.git//SUBDIR?ref=v1`,
/// `git@github.com:OWNER/REPO//SUBDIR`) names REPO; a registry source
/// (`NAMESPACE/NAME/PROVIDER`, with a host or a `//SUBDIR`) names the repository the
/// registry publishes it from, `terraform-PROVIDER-NAME`; one written without its provider
/// (`NAMESPACE/NAME`, which Terraform refuses) names `terraform-*-NAME`, any provider. A
/// folder that climbs (`..`) names none.
///
/// A module gpulint reads by its contract ([`crate::registry::knows`]) names none: it is
/// read so wherever it is published from.
pub fn repo_subdir(source: &str) -> Option<(String, String)> {
    if crate::registry::knows(source) {
        return None;
    }
    git_repo_subdir(source).or_else(|| registry_repo_subdir(source))
}

fn git_repo_subdir(source: &str) -> Option<(String, String)> {
    let s = source.strip_prefix("git::").unwrap_or(source);
    let s = s.split_once("://").map_or(s, |(_, rest)| rest);
    let s = s.strip_prefix("git@").unwrap_or(s);
    let s = s.split('?').next()?;
    let (repo_part, subdir) = s.split_once("//").unwrap_or((s, ""));
    let repo_part = repo_part.replacen(':', "/", 1);
    let mut parts = repo_part.split('/');
    let host = parts.next()?;
    if !matches!(host, "github.com" | "gitlab.com" | "bitbucket.org") {
        return None;
    }
    let (_owner, repo) = (parts.next()?, parts.next()?.trim_end_matches(".git"));
    if parts.next().is_some() {
        return None;
    }
    within(repo, subdir)
}

fn registry_repo_subdir(source: &str) -> Option<(String, String)> {
    if source.contains("::") || source.contains(':') || source.starts_with(['.', '/']) {
        return None;
    }
    let (address, subdir) = source.split_once("//").unwrap_or((source, ""));
    let parts: Vec<&str> = address.split('/').collect();
    let word = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let (name, provider) = match parts[..] {
        [host, ns, name, provider] if host.contains('.') && word(ns) => (name, Some(provider)),
        [ns, name, provider] if word(ns) => (name, Some(provider)),
        [ns, name] if word(ns) => (name, None),
        _ => return None,
    };
    if !word(name) || !provider.is_none_or(word) {
        return None;
    }
    let repo = format!("terraform-{}-{name}", provider.unwrap_or("*"));
    within(&repo, subdir)
}

/// `(repo, subdir)` when the subdir stays inside the repository.
fn within(repo: &str, subdir: &str) -> Option<(String, String)> {
    let subdir = subdir.trim_matches('/');
    if repo.is_empty() || subdir.split('/').any(|c| c == "..") {
        return None;
    }
    Some((repo.to_string(), subdir.to_string()))
}

/// Whether a folder is the checkout of repository `repo`: named after it (`repo`, or
/// `owner+repo` as archives of several repositories are laid out). A `*` in `repo` stands
/// for one word (`terraform-*-llama`: any provider).
pub fn is_checkout_of(folder_name: &str, repo: &str) -> bool {
    let name = folder_name.rsplit_once('+').map_or(folder_name, |(_, r)| r);
    match repo.split_once('*') {
        Some((before, after)) => {
            name.len() > before.len() + after.len()
                && name.starts_with(before)
                && name.ends_with(after)
                && !name[before.len()..name.len() - after.len()].contains('-')
        }
        None => folder_name == repo || name == repo,
    }
}

/// The folder of the run a module call from `dir` runs: a local source joined to `dir`, or a
/// Git source that names this repository, when the folder it names (below the checkout
/// that holds `dir`, or below the run's top) is in the run. `None` for any other source.
pub fn local_target<V>(dir: &str, source: &str, folders: &BTreeMap<String, V>) -> Option<String> {
    if is_local_source(source) {
        return Some(join_source(dir, source));
    }
    let (repo, subdir) = repo_subdir(source)?;
    // Below the run's top without a checkout named after the repository: only a Git
    // source's own folder, never a whole repository or a registry name.
    let anywhere = !subdir.is_empty() && git_repo_subdir(source).is_some();
    let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    let lead = if dir.starts_with('/') { "/" } else { "" };
    (0..=parts.len()).rev().find_map(|k| {
        let above = parts[..k].join("/");
        // Names are relative to the working folder: the top is it, named as it is.
        let ok = if k == 0 {
            anywhere || (lead.is_empty() && here_is_checkout_of(&repo))
        } else {
            is_checkout_of(parts[k - 1], &repo)
        };
        let candidate = match (above.is_empty(), subdir.is_empty()) {
            (true, _) => format!("{lead}{subdir}"),
            (false, true) => format!("{lead}{above}"),
            (false, false) => format!("{lead}{above}/{subdir}"),
        };
        // A module never calls itself.
        (ok && candidate != dir && folders.contains_key(&candidate)).then_some(candidate)
    })
}

/// Whether the folder gpulint runs in is the checkout of `repo`.
fn here_is_checkout_of(repo: &str) -> bool {
    std::env::current_dir().is_ok_and(|d| {
        d.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| is_checkout_of(n, repo))
    })
}

#[cfg(test)]
mod tests {
    use super::{is_checkout_of, repo_subdir};

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
    }

    #[test]
    fn sources_that_name_a_repository() {
        let cases = [
            (
                "github.com/o/ai-infra//modules/gke?ref=v1",
                ("ai-infra", "modules/gke"),
            ),
            ("git::https://gitlab.com/o/r.git", ("r", "")),
            (
                "terasky/llama-autoscale/google",
                ("terraform-google-llama-autoscale", ""),
            ),
            (
                "app.terraform.io/acme/gpu/aws//modules/pool",
                ("terraform-aws-gpu", "modules/pool"),
            ),
            (
                "terasky/llama-autoscale",
                ("terraform-*-llama-autoscale", ""),
            ),
        ];
        for (source, (repo, subdir)) in cases {
            assert_eq!(repo_subdir(source), Some(pair(repo, subdir)), "{source}");
        }
        assert_eq!(repo_subdir("github.com/o/r//../x"), None);
        assert_eq!(repo_subdir("./modules/gpu"), None);
        assert_eq!(repo_subdir("s3::https://b/m.zip"), None);
        // Read by the module's contract, wherever it is published from.
        assert_eq!(repo_subdir("terraform-aws-modules/eks/aws"), None);
        assert_eq!(
            repo_subdir("github.com/terraform-aws-modules/terraform-aws-eks"),
            None
        );
        assert!(is_checkout_of(
            "jboero+terraform-google-llama-autoscale",
            "terraform-*-llama-autoscale"
        ));
        assert!(is_checkout_of(
            "terraform-google-llama-autoscale",
            "terraform-google-llama-autoscale"
        ));
        assert!(!is_checkout_of(
            "terraform-google-beta-llama-autoscale",
            "terraform-*-llama-autoscale"
        ));
        assert!(!is_checkout_of(
            "llama-autoscale",
            "terraform-*-llama-autoscale"
        ));
    }
}
