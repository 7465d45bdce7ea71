//! The files Terraform's `file()` and `templatefile()` read (a VM's start-up script), as
//! the run read them: evaluation sees their text, as `terraform apply` would.
//!
//! A run reads such a file only when a `.tf` file names it with a literal path, relative
//! to the module (`"${path.module}/startup.sh"`) or to the root module (`"startup.sh"`),
//! inside the checkout. Lowering registers those texts here for the thread that lowers
//! ([`begin`]); a path not registered evaluates to nothing, as any value gpulint cannot
//! know.
//!
//! `path.module` evaluates to a marker that names one file of the module
//! (`module_marker`), and `path.root` and `path.cwd` to one for the root module being
//! judged ([`set_root`]): the functions resolve them to folders here, so no evaluated
//! value holds a path of this machine.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use gpulint_source::FileId;

/// Starts and ends every marker.
const MARK: char = '\u{1}';
/// What `path.root` and `path.cwd` evaluate to.
pub(crate) const ROOT_MARKER: &str = "\u{1}root\u{1}";

/// The registered texts, and the folder of each Terraform file.
#[derive(Default)]
struct Scripts {
    texts: HashMap<PathBuf, Arc<str>>,
    folders: HashMap<u32, PathBuf>,
    root: Option<u32>,
}

thread_local! {
    static SCRIPTS: RefCell<Option<Scripts>> = const { RefCell::new(None) };
}

/// Registered while alive; dropping it forgets every text.
pub struct Registered(());

impl Drop for Registered {
    fn drop(&mut self) {
        SCRIPTS.with(|s| s.borrow_mut().take());
    }
}

/// Registers, for this thread, the texts that `file()` and `templatefile()` may read
/// (each under its path), and the folder of each Terraform file (by id).
pub fn begin(
    texts: impl IntoIterator<Item = (PathBuf, Arc<str>)>,
    folders: impl IntoIterator<Item = (FileId, PathBuf)>,
) -> Registered {
    let scripts = Scripts {
        texts: texts.into_iter().map(|(p, t)| (normalize(&p), t)).collect(),
        folders: folders.into_iter().map(|(id, p)| (id.0, p)).collect(),
        root: None,
    };
    SCRIPTS.with(|s| *s.borrow_mut() = Some(scripts));
    Registered(())
}

/// Names the root module being judged by one of its files: relative paths and
/// `path.root` resolve against its folder, as Terraform resolves them against the folder
/// it runs in.
pub fn set_root(file: FileId) {
    SCRIPTS.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            s.root = Some(file.0);
        }
    });
}

/// What `path.module` evaluates to in the module `file` belongs to.
pub(crate) fn module_marker(file: FileId) -> String {
    format!("{MARK}{}{MARK}", file.0)
}

/// `path` lexically, with `.` and `..` resolved (a `..` above the start is kept).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// The registered text at `path` as a function received it: after a marker, or
/// relative to the root module. `None` for an absolute path or one not registered.
pub(crate) fn read(path: &str) -> Option<Arc<str>> {
    SCRIPTS.with(|s| {
        let s = s.borrow();
        let s = s.as_ref()?;
        let (base, rest) = match path.strip_prefix(MARK) {
            Some(marked) => {
                let (name, rest) = marked.split_once(MARK)?;
                let id = match name {
                    "root" => s.root?,
                    n => n.parse().ok()?,
                };
                (s.folders.get(&id)?, rest.trim_start_matches('/'))
            }
            None if Path::new(path).is_absolute() || path.contains(MARK) => return None,
            None => (s.folders.get(&s.root?)?, path),
        };
        s.texts.get(&normalize(&base.join(rest))).cloned()
    })
}

/// `templatefile`'s rendering, as far as the values are known: each `${name}` of a
/// string, number or boolean in `vars` that gpulint knows is replaced by it; `$${` and `%%{` become `${` and
/// `%{`. Other interpolations and directives stay as written, so what they hold reads as
/// unknown text.
pub(crate) fn render(template: &str, vars: &hcl::Map<String, hcl::Value>) -> String {
    const DOLLAR: &str = "\u{2}";
    const PERCENT: &str = "\u{3}";
    let mut out = template.replace("$${", DOLLAR).replace("%%{", PERCENT);
    for (name, value) in vars {
        let text = match value {
            // A value gpulint does not know stays an interpolation.
            hcl::Value::String(s) if s.contains(crate::eval::UNKNOWN_TEXT) => continue,
            hcl::Value::String(s) => s.clone(),
            hcl::Value::Number(n) => n.to_string(),
            hcl::Value::Bool(b) => b.to_string(),
            _ => continue,
        };
        out = out
            .replace(&format!("${{{name}}}"), &text)
            .replace(&format!("${{ {name} }}"), &text);
    }
    out.replace(DOLLAR, "${").replace(PERCENT, "%{")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_module_or_the_root_and_never_leave_the_registry() {
        let _r = begin(
            [
                (PathBuf::from("repo/mod/run.sh"), Arc::from("vllm serve m")),
                (PathBuf::from("repo/start.sh"), Arc::from("shutdown -h +60")),
            ],
            [
                (FileId(3), PathBuf::from("repo/mod")),
                (FileId(7), PathBuf::from("repo")),
            ],
        );
        set_root(FileId(7));
        let module = module_marker(FileId(3));
        assert_eq!(
            read(&format!("{module}/run.sh")).as_deref(),
            Some("vllm serve m")
        );
        assert_eq!(
            read(&format!("{module}/../start.sh")).as_deref(),
            Some("shutdown -h +60")
        );
        assert_eq!(read("./start.sh").as_deref(), Some("shutdown -h +60"));
        assert_eq!(
            read(&format!("{ROOT_MARKER}/mod/run.sh")).as_deref(),
            Some("vllm serve m")
        );
        assert_eq!(read("/etc/passwd"), None);
        assert_eq!(read("missing.sh"), None);
    }

    #[test]
    fn templates_render_the_values_they_are_given() {
        let mut vars = hcl::Map::new();
        vars.insert("model".into(), hcl::Value::from("Qwen/Qwen3-8B"));
        vars.insert("tp".into(), hcl::Value::from(2));
        vars.insert("list".into(), hcl::Value::Array(Vec::new()));
        vars.insert("token".into(), crate::eval::UNKNOWN_TEXT.into());
        let out = render(
            "vllm serve ${model} --tp ${ tp } ${list} $${HOME} %%{x} ${token}",
            &vars,
        );
        assert_eq!(
            out,
            "vllm serve Qwen/Qwen3-8B --tp 2 ${list} ${HOME} %{x} ${token}"
        );
    }
}
