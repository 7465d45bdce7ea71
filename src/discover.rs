//! Discovery: command-line paths to the files to read.
//!
//! Folders are walked as git sees them: what `.gitignore`, `.ignore`, `.git/info/exclude`
//! and the global excludes ignore is skipped (`--no-ignore` reads it), and so are `.git`,
//! `.terraform`, `.venv` and `node_modules`. Links to files are read, links to folders
//! are not followed, so a link loop cannot trap the walk. A link
//! found in a folder whose target lies outside that folder is not read unless asked
//! (`--follow-external-links`): a pull request must not be able to print
//! `/proc/self/environ` or a credentials file into the CI log. A named `.tf` or `.tfvars`
//! file brings in the rest of its folder's Terraform module as context, because pre-commit
//! passes single files while Terraform reads whole folders.
//!
//! Each file is read once, whatever paths lead to it (files are told apart by identity,
//! not by name), and two files never share a display name.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::exclude::Exclude;
use crate::source::FileKind;
use crate::source::names::{display_name, escape};

const SKIPPED_DIRS: [&str; 4] = [".git", ".terraform", ".venv", "node_modules"];

/// A file to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Shown to users: relative to the working directory where possible, `/`-separated.
    pub name: String,
    /// `None` for stdin.
    pub path: Option<PathBuf>,
    pub kind: FileKind,
    /// Named or found in a named folder; otherwise read only as module context.
    pub requested: bool,
}

/// What makes two paths one file: the canonical path of the folder holding it, with its
/// name. `gpu/main.tf`, `./gpu/main.tf` and `gpu/../gpu/main.tf` are one file; `main.tf` and
/// `lnk/../main.tf` (with `lnk` a link to another folder) are two; and a shared file linked
/// into two roots is a file of each root, as Terraform reads it. A folder that does not
/// resolve leaves the path as given.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileKey(PathBuf);

/// What a write to `path` would overwrite: the file at the end of its links (its device
/// and inode where there are inodes), or `None` when there is none yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WrittenFile {
    Node(u64, u64),
    Path(PathBuf),
}

pub fn written_file(path: &Path) -> Option<WrittenFile> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let m = std::fs::metadata(path).ok()?;
        Some(WrittenFile::Node(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    std::fs::canonicalize(path).ok().map(WrittenFile::Path)
}

/// The inputs of a run so far: each file once, each under a name of its own.
#[derive(Debug, Default)]
pub struct Seen {
    /// Canonical folders, by the path they were reached by.
    dirs: HashMap<PathBuf, Option<PathBuf>>,
    keys: HashMap<FileKey, usize>,
    names: HashMap<String, usize>,
}

impl Seen {
    /// The identity of the file at `path`.
    pub fn key(&mut self, path: &Path) -> FileKey {
        let as_given = || FileKey(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return as_given();
        };
        let canonical = self
            .dirs
            .entry(dir.to_path_buf())
            .or_insert_with(|| {
                std::fs::canonicalize(if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                })
                .ok()
            })
            .clone();
        match canonical {
            Some(d) => FileKey(d.join(name)),
            None => as_given(),
        }
    }

    /// Is the file at `path` an input already?
    pub fn holds(&mut self, path: &Path) -> bool {
        let key = self.key(path);
        self.keys.contains_key(&key)
    }

    /// Where `input` already is (the same file, or for stdin the same name), or `None` after
    /// recording it at `index`. A different file whose display name is taken gets a name of
    /// its own: its path as given (`lnk/../main.tf`), else that with a number.
    pub fn add(&mut self, input: &mut Input, index: usize, cwd: Option<&Path>) -> Option<usize> {
        let key = input.path.as_deref().map(|p| self.key(p));
        let known = match &key {
            Some(k) => self.keys.get(k),
            None => self.names.get(&input.name),
        };
        if let Some(&i) = known {
            return Some(i);
        }
        if self.names.contains_key(&input.name) {
            let raw = input
                .path
                .as_deref()
                .map_or_else(|| input.name.clone(), |p| raw_name(p, cwd));
            let mut name = raw.clone();
            let mut n = 2;
            while self.names.contains_key(&name) {
                name = format!("{raw} ({n})");
                n += 1;
            }
            input.name = name;
        }
        self.names.insert(input.name.clone(), index);
        if let Some(k) = key {
            self.keys.insert(k, index);
        }
        None
    }
}

/// Links that were not read because they lead outside the folder they were found in.
#[derive(Debug, Default)]
pub struct External(pub Vec<String>);

impl External {
    /// One note for all of them, naming a few.
    pub fn note(&self) -> Option<String> {
        let (first, rest) = self.0.split_first()?;
        let mut names = format!("`{first}`");
        for n in rest.iter().take(2) {
            let _ = write!(names, ", `{n}`");
        }
        if rest.len() > 2 {
            let _ = write!(names, " and {} more", rest.len() - 2);
        }
        Some(format!(
            "skipped {names}: {} outside the folder linted, not read unless \
             `--follow-external-links` (or `follow_external_links = true` in .gpulint.toml) is given",
            if self.0.len() == 1 {
                "a link to a file"
            } else {
                "links to files"
            }
        ))
    }
}

/// What a link found in `dir` may lead into and still be read: the Git checkout that holds
/// `dir` (the nearest folder above it with a `.git`, as `../variables.tf` shared between
/// roots sits in the repository), else `dir` itself. Canonical; `None` when `dir` does not
/// resolve.
pub(crate) fn tree_root(dir: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(dir).ok()?;
    let checkout = dir
        .ancestors()
        .find(|a| a.join(".git").symlink_metadata().is_ok())
        .map(Path::to_path_buf);
    Some(checkout.unwrap_or(dir))
}

/// Does the link at `path`, found in `root` (canonical), lead outside it? A link that does
/// not resolve is kept: reading it gives a finding that says why, and no content.
///
/// Outside a Git checkout (an exported tree, a Terraform Cloud upload), `root` is the
/// folder itself, and roots share their Terraform by links above it (`variables.tf ->
/// ../variables.tf`): a link from a `.tf` file to a `.tf` file inside the working folder is
/// read too. Any other link (to YAML, to a tfvars file that may hold secrets, to a file
/// named otherwise) stays bounded by the folder.
fn leads_outside(path: &Path, root: Option<&Path>) -> bool {
    let Some(root) = root else { return false };
    let Ok(target) = std::fs::canonicalize(path) else {
        return false;
    };
    if target.starts_with(root) {
        return false;
    }
    let terraform = |p: &Path| p.extension().is_some_and(|e| e == "tf");
    // `root` is the checkout when there is one.
    let in_checkout = root.join(".git").symlink_metadata().is_ok();
    !(terraform(path) && terraform(&target) && !in_checkout && in_working_folder(&target))
}

/// Whether `target` (canonical) lies in the folder gpulint runs in, when that folder is a
/// project's: never the file system's root or the home folder.
pub(crate) fn in_working_folder(target: &Path) -> bool {
    let home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
    std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .is_ok_and(|c| c.parent().is_some() && Some(&c) != home.as_ref() && target.starts_with(&c))
}

/// What discovery found, and what it skipped (for a note on stderr).
#[derive(Debug, Default)]
pub struct Discovered {
    pub inputs: Vec<Input>,
    pub notes: Vec<String>,
}

/// Turns command-line paths into inputs. `-` stands for stdin, named `stdin_name`.
/// A path that does not exist is an error: the run cannot do what was asked.
/// Files and folders that `exclude` matches are skipped, named or found; they still count
/// as Terraform module context. Links found in a folder that lead outside it are skipped
/// with a note unless `follow_external_links`; a file named on the command line is read as
/// named.
pub fn discover(
    paths: &[PathBuf],
    stdin_name: Option<&str>,
    exclude: Option<&Exclude>,
    follow_external_links: bool,
    respect_ignores: bool,
) -> Result<Discovered, String> {
    let cwd = std::env::current_dir().ok();
    let excluded = |p: &Path| match (exclude, &cwd) {
        (Some(ex), Some(cwd)) => ex.excludes(p, cwd),
        _ => false,
    };
    let mut found = Discovered::default();
    let mut seen = Seen::default();
    let mut external = External::default();
    let mut add = |found: &mut Discovered, mut input: Input| match seen.add(
        &mut input,
        found.inputs.len(),
        cwd.as_deref(),
    ) {
        Some(i) => found.inputs[i].requested |= input.requested,
        None => found.inputs.push(input),
    };

    // Helm charts whose templates were skipped, with how many files each.
    let mut charts: Vec<(PathBuf, usize)> = Vec::new();
    let mut skip_chart = |chart: PathBuf| match charts.iter_mut().find(|(c, _)| *c == chart) {
        Some((_, n)) => *n += 1,
        None => charts.push((chart, 1)),
    };

    for path in paths {
        if path.as_os_str() == "-" {
            let name = stdin_name.unwrap_or("<stdin>").to_string();
            // Rendered manifests (`helm template`, `kustomize build`) are the usual input.
            let kind = FileKind::from_path(Path::new(&name)).unwrap_or(FileKind::Yaml);
            add(
                &mut found,
                Input {
                    name,
                    path: None,
                    kind,
                    requested: true,
                },
            );
            continue;
        }
        let meta = std::fs::metadata(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        if meta.is_dir() {
            let root = (!follow_external_links).then(|| tree_root(path)).flatten();
            // Shared with the walker's threads-safe filter.
            let (exclude, here) = (exclude.cloned(), cwd.clone());
            // `.gitignore` (in a git repository or not), `.ignore` and `.git/info/exclude`,
            // read by gpulint's own bounded reader, up to the checkout's root; the global
            // excludes (the user's own file) by the walker; none with `--no-ignore`.
            let ignores = if respect_ignores {
                crate::ignores::Ignores::new(path)
            } else {
                None
            };
            let (rules, walked) = (ignores.clone(), path.clone());
            let walk = ignore::WalkBuilder::new(path)
                // Hidden files are read.
                .standard_filters(false)
                .git_global(respect_ignores)
                .hidden(false)
                .require_git(false)
                .follow_links(false)
                .sort_by_file_name(std::cmp::Ord::cmp)
                .filter_entry(move |e| {
                    let skipped_dir = e.file_type().is_some_and(|t| t.is_dir())
                        && SKIPPED_DIRS.iter().any(|s| e.file_name() == *s);
                    let excluded = match (&exclude, &here) {
                        (Some(ex), Some(cwd)) => ex.excludes(e.path(), cwd),
                        _ => false,
                    };
                    let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                    let ignored = rules
                        .as_ref()
                        .is_some_and(|r| r.ignored(&walked, e.path(), is_dir));
                    e.depth() == 0 || !(skipped_dir || excluded || ignored)
                })
                .build();
            for entry in walk {
                if let Some(problem) = entry.as_ref().ok().and_then(ignore::DirEntry::error) {
                    // A `.gitignore` that does not parse: its valid lines still apply.
                    found.notes.push(format!("{problem}"));
                }
                match entry {
                    Ok(e) if e.file_type().is_some_and(|t| is_file_or_link(t, e.path())) => {
                        let Some(kind) = FileKind::from_path(e.path()) else {
                            continue;
                        };
                        if let Some(chart) = helm_chart(e.path()) {
                            skip_chart(chart);
                        } else if e.path_is_symlink() && leads_outside(e.path(), root.as_deref()) {
                            external.0.push(display_name(e.path(), cwd.as_deref()));
                        } else if kind != FileKind::Plan || is_plan_json(e.path()) {
                            // A folder holds many other `.json`: only a plan's is read.
                            add(&mut found, file_input(e.path(), kind, true, cwd.as_deref()));
                        }
                    }
                    Ok(_) => {}
                    Err(e) => found.notes.push(walk_error(&e, cwd.as_deref())),
                }
            }
            if let Some(ignores) = ignores {
                let mut notes = ignores
                    .notes
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                found.notes.append(&mut notes);
            }
        } else if let Some(chart) = helm_chart(path) {
            skip_chart(chart);
        } else if !excluded(path) {
            match FileKind::from_path(path) {
                Some(kind) => add(&mut found, file_input(path, kind, true, cwd.as_deref())),
                None => found.notes.push(format!(
                    "skipped `{}`: not a file gpulint reads (.tf, .tf.json, .tfvars, .yaml, \
                     .yml, plan .json)",
                    path.display()
                )),
            }
        }
    }

    for (chart, n) in charts {
        let chart = display_name(&chart, cwd.as_deref());
        found.notes.push(format!(
            "skipped the Helm chart `{chart}` ({}): templates are not YAML until rendered; \
             lint them with `helm template {chart} | gpulint check -`",
            if n == 1 {
                "1 template".to_string()
            } else {
                format!("{n} templates")
            }
        ));
    }

    // Complete the Terraform module of every named .tf/.tfvars file.
    let mut dirs: Vec<PathBuf> = found
        .inputs
        .iter()
        .filter(|i| matches!(i.kind, FileKind::Terraform | FileKind::TfVars))
        .filter_map(|i| i.path.as_deref()?.parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    let mut sibling_links = Vec::new();
    for dir in dirs {
        let siblings = folder_files(&dir, is_module_file, follow_external_links);
        for p in siblings.files {
            if let Some(kind) = FileKind::from_path(&p) {
                add(&mut found, file_input(&p, kind, false, cwd.as_deref()));
            }
        }
        sibling_links.extend(siblings.external);
    }
    // A link the walk took (it leads inside the walked folder) is not skipped.
    for p in sibling_links {
        if !seen.holds(&p) {
            external.0.push(display_name(&p, cwd.as_deref()));
        }
    }
    external.0.sort();
    external.0.dedup();
    found.notes.extend(external.note());
    Ok(found)
}

/// The Helm chart a file is a template of: under `templates/` of a folder holding
/// `Chart.yaml`.
fn helm_chart(path: &Path) -> Option<PathBuf> {
    let mut dir = path.parent()?;
    loop {
        if dir.file_name().is_some_and(|n| n == "templates") {
            let chart = dir.parent()?;
            let root = if chart.as_os_str().is_empty() {
                Path::new(".")
            } else {
                chart
            };
            if root.join("Chart.yaml").is_file() || root.join("Chart.yml").is_file() {
                return Some(chart.to_path_buf());
            }
        }
        dir = dir.parent()?;
    }
}

/// Files Terraform loads from a module folder by itself.
fn is_module_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    is_config_file(path)
        || ["terraform.tfvars", "terraform.tfvars.json"].contains(&name)
        || name.ends_with(".auto.tfvars")
        || name.ends_with(".auto.tfvars.json")
}

/// Whether the `.json` file at `path` is Terraform's JSON output (`terraform show -json`
/// of a plan or a state), from its first bytes only: the output starts with
/// `{"format_version":…,"terraform_version":…`. Any other JSON, however large, costs one
/// small read.
fn is_plan_json(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = Vec::with_capacity(PLAN_SNIFF_BYTES);
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(PLAN_SNIFF_BYTES as u64).read_to_end(&mut head));
    if read.is_err() {
        // Named by the walk and unreadable: read it as a plan, so its error is reported.
        return true;
    }
    let head = String::from_utf8_lossy(&head);
    let head = head.trim_start_matches('\u{feff}').trim_start();
    head.strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with("\"format_version\""))
        && head.contains("\"terraform_version\"")
}

/// How much of a `.json` file found by a walk is read to tell a plan from other JSON.
const PLAN_SNIFF_BYTES: usize = 4096;

/// A module's configuration: `.tf` and `.tf.json`.
pub fn is_config_file(path: &Path) -> bool {
    // FileKind knows the names: `.tf` and `.tf.json` are both Terraform configuration.
    FileKind::from_path(path) == Some(FileKind::Terraform)
}

/// The configuration files of a module folder, sorted, and the links in it that lead
/// outside it (not read unless `follow_external_links`).
pub fn module_config_files(dir: &Path, follow_external_links: bool) -> FolderFiles {
    folder_files(dir, is_config_file, follow_external_links)
}

/// The variable files Terraform applies by itself in a module folder (`terraform.tfvars`,
/// `*.auto.tfvars` and their JSON forms), sorted, as [`module_config_files`] lists its
/// configuration.
pub fn module_auto_tfvars(dir: &Path, follow_external_links: bool) -> FolderFiles {
    folder_files(dir, is_auto_tfvars, follow_external_links)
}

fn is_auto_tfvars(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| crate::lower::tfvars_rank(n).is_some())
}

/// The files of one folder, and its links to files outside it that were not taken.
#[derive(Debug, Default)]
pub struct FolderFiles {
    pub files: Vec<PathBuf>,
    pub external: Vec<PathBuf>,
}

/// The files of one folder (not its subfolders) that `keep` accepts, sorted.
fn folder_files(dir: &Path, keep: fn(&Path) -> bool, follow_external_links: bool) -> FolderFiles {
    let dir_or_here = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir_or_here) else {
        return FolderFiles::default();
    };
    let root = (!follow_external_links)
        .then(|| tree_root(dir_or_here))
        .flatten();
    let mut out = FolderFiles::default();
    for e in entries.filter_map(Result::ok) {
        let path = dir.join(e.file_name());
        let Ok(t) = e.file_type() else { continue };
        if !(is_file_or_link(t, &path) && keep(&path)) {
            continue;
        }
        if t.is_symlink() && leads_outside(&path, root.as_deref()) {
            out.external.push(path);
        } else {
            out.files.push(path);
        }
    }
    out.files.sort();
    out.external.sort();
    out
}

/// A regular file, or a symbolic link to one (a shared `providers.tf` is often linked
/// into every root). A link that does not resolve (dangling, or a loop) is kept too, so
/// that reading it gives a finding that says why. Links to folders are not followed, and
/// FIFOs, sockets and devices are not IaC.
fn is_file_or_link(t: std::fs::FileType, path: &Path) -> bool {
    t.is_file() || (t.is_symlink() && std::fs::metadata(path).map_or(true, |m| m.is_file()))
}

/// A folder the walk could not enter: say which, and that its files were not linted.
fn walk_error(e: &ignore::Error, cwd: Option<&Path>) -> String {
    match e {
        ignore::Error::WithPath { path, err } => format!(
            "cannot read `{}`: {}; the files in it are not linted",
            display_name(path, cwd),
            io_reason(err)
        ),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error(err, cwd)
        }
        other => format!("skipped: {other}"),
    }
}

/// The operating system's reason for an error of the walk, without the path it adds.
fn io_reason(e: &ignore::Error) -> String {
    match e {
        ignore::Error::Io(io) => io.to_string(),
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => io_reason(err),
        other => other.to_string(),
    }
}

fn file_input(path: &Path, kind: FileKind, requested: bool, cwd: Option<&Path>) -> Input {
    Input {
        name: display_name(path, cwd),
        path: Some(path.to_path_buf()),
        kind,
        requested,
    }
}

/// A path as given, for a file whose [`display_name`] another file holds: `.` and empty
/// parts dropped, `..` kept (`lnk/../main.tf` is not `main.tf` when `lnk` is a link).
fn raw_name(path: &Path, cwd: Option<&Path>) -> String {
    let rel = cwd
        .filter(|_| path.is_absolute())
        .and_then(|c| path.strip_prefix(c).ok())
        .unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::RootDir => String::new(),
            other => escape(other.as_os_str()),
        })
        .collect();
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_files() {
        assert!(is_module_file(Path::new("a/main.tf")));
        assert!(is_module_file(Path::new("a/terraform.tfvars")));
        assert!(is_module_file(Path::new("a/gpu.auto.tfvars")));
        assert!(is_module_file(Path::new("a/main.tf.json")));
        assert!(is_module_file(Path::new("a/terraform.tfvars.json")));
        assert!(!is_module_file(Path::new("a/plan.json")));
        assert!(!is_module_file(Path::new("a/prod.tfvars")));
        assert!(!is_module_file(Path::new("a/x.yaml")));
    }
}
