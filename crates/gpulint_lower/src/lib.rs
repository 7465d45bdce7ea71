//! gpulint_lower: the only stage that knows providers. Syntax trees in, [`Inventory`] out.
//!
//! Terraform modules are found and evaluated by gpulint_terraform; the resources of AWS
//! ([`aws`]), Google Cloud ([`gcp`]) and Azure ([`azure`]), the public modules GPU teams
//! call ([`registry`]) and `kubernetes_manifest` resources ([`manifests`]) become capacity
//! and workloads here. YAML goes to gpulint_kubernetes. Last, pods are linked to the
//! capacity they can land on, and intent is decided once over the whole inventory.
//!
//! May use: gpulint_source, gpulint_facts, gpulint_syntax, gpulint_model,
//! gpulint_terraform and gpulint_kubernetes.

pub mod aws;
pub mod azure;
pub mod gcp;
pub mod manifests;
pub mod registry;

use std::collections::{BTreeMap, HashMap, HashSet};

use hcl_edit::structure::Body;

use gpulint_kubernetes as kubernetes;
use gpulint_model::intent;
use gpulint_model::{
    Capacity, Inventory, LimitProblem, Provider, Span, Stop, StopKind, SyntaxProblem, Value,
};
use gpulint_source::limits::{Limit, Limits};
use gpulint_source::{FileId, FileKind, SourceDb, SourceFile};
use gpulint_syntax::{Parsed, Syntax};
use gpulint_terraform::{Input, Module, ResourceRef, TfFile, budget, eval};

mod branch;
mod ecs;
mod judge;
use judge::{Judge, Judged};
mod kinds;
mod lambda;
mod link;
mod peers;
mod provisioners;
mod role;
mod schedules;
mod sources;
mod storage;
pub use kinds::may_hold_capacity;
use link::link;
pub use role::{block_role, or_block_role, resource_role};
pub use sources::{is_checkout_of, is_local_source, join_source, local_target, repo_subdir};

/// The first resource of one of `rtypes` whose `key` refers to `target`: the autoscaler
/// of a group, the autoscale setting of a scale set.
pub fn referrer<'m>(
    module: &'m Module<'_>,
    rtypes: &[&'m str],
    key: &str,
    target: &gpulint_terraform::Resource<'_>,
) -> Option<gpulint_terraform::Resource<'m>> {
    rtypes
        .iter()
        .flat_map(|t| module.resources_of(t))
        .find(|r| refers_to(&r.block, key, target))
}

/// Whether `b.key` refers to the resource `target` (`instance_id = aws_instance.x.id`).
pub(crate) fn refers_to(
    b: &gpulint_terraform::Block<'_>,
    key: &str,
    target: &gpulint_terraform::Resource<'_>,
) -> bool {
    b.expr(key)
        .map(gpulint_terraform::references)
        .is_some_and(|refs| {
            refs.iter()
                .any(|x| x.rtype == target.rtype && x.name == target.name)
        })
}

/// Attaches a stop mechanism (an alarm, a schedule) to the capacity its `targets`
/// reference. With no traceable target it may stop any of `capacity`, so each gets it as
/// [`StopKind::Unresolved`] and rules stay silent rather than guess.
pub fn attach_stop(
    module: &Module<'_>,
    capacity: &mut [Capacity],
    targets: &[ResourceRef],
    kind: StopKind,
    span: &Span,
) {
    let kind = if targets.is_empty() {
        StopKind::Unresolved
    } else {
        kind
    };
    let subjects: Vec<String> = targets
        .iter()
        .flat_map(|t| module.subjects_of(&t.rtype, &t.name))
        .collect();
    for c in capacity {
        if targets.is_empty() || subjects.contains(&c.subject) {
            c.stop.push(Stop {
                kind,
                span: span.clone(),
            });
        }
    }
}

/// The Terraform files of one folder.
#[derive(Default)]
struct Folder {
    tf: Vec<FileId>,
    tfvars: Vec<(String, FileId)>,
    /// Variable files Terraform applies only when named (`gpu.tfvars`): what a user may
    /// pick, read as alternatives.
    named: Vec<(String, FileId)>,
}

impl Folder {
    /// Its `.tf` files and its variable files.
    fn files(&self) -> impl Iterator<Item = FileId> + '_ {
        let vars = self.tfvars.iter().chain(&self.named);
        self.tf.iter().copied().chain(vars.map(|(_, id)| *id))
    }
}

/// Files Terraform reads for a root module's variables, in its order of precedence.
pub fn tfvars_rank(base: &str) -> Option<(u8, String)> {
    match base {
        "terraform.tfvars" => Some((0, String::new())),
        "terraform.tfvars.json" => Some((1, String::new())),
        b if b.ends_with(".auto.tfvars") || b.ends_with(".auto.tfvars.json") => {
            Some((2, b.to_string()))
        }
        _ => None,
    }
}

/// Folders whose modules are examples or tests of the module they call, not a deployment
/// of it: `examples/gpu/main.tf` calling `../../modules/gpu`.
const EXAMPLE_FOLDERS: [&str; 9] = [
    "examples", "example", "samples", "sample", "demo", "demos", "test", "tests", "testing",
];

/// Whether a folder's name is one of the example or test folder names, in any case.
pub fn is_example_folder(name: &str) -> bool {
    EXAMPLE_FOLDERS.iter().any(|e| name.eq_ignore_ascii_case(e))
}

/// Whether the folder `caller` is an example or a test of the module in `target`
/// (`examples/gpu` of `.`, `tests/e2e` of `modules/pool`): it shows how to call it, and
/// does not decide its inputs. Only the folders below what the two share count: a demo
/// that calls its own module (`demos/x` and `demos/x/modules/gke`) deploys it.
fn is_example_of(caller: &str, target: &str) -> bool {
    let mut own = caller.split('/').filter(|s| !s.is_empty());
    let mut theirs = target.split('/').filter(|s| !s.is_empty()).peekable();
    let mut rest = Vec::new();
    for seg in own.by_ref() {
        if theirs.peek() == Some(&seg) {
            theirs.next();
        } else {
            rest.push(seg);
            break;
        }
    }
    rest.extend(own);
    rest.into_iter().any(is_example_folder)
}

/// A folder's path from a file's display name: `infra/gpu.tf` → `infra`.
pub fn folder_of(name: &str) -> String {
    folder_str(name).to_string()
}

/// Whether the folder `dir` is `folder` or below it (`""` is the top, above all).
fn in_folder(dir: &str, folder: &str) -> bool {
    folder.is_empty()
        || dir == folder
        || dir
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// [`folder_of`], borrowed.
fn folder_str(name: &str) -> &str {
    name.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The literal `source` of every `module` block in a body.
pub fn module_sources(body: &Body) -> impl Iterator<Item = &str> {
    body.get_blocks("module")
        .filter_map(|b| match &b.body.get_attribute("source")?.value {
            hcl_edit::expr::Expression::String(s) => Some(s.as_str()),
            _ => None,
        })
}

/// What module lowering needs from the whole run.
struct Tree<'p> {
    folders: BTreeMap<String, Vec<TfFile<'p>>>,
    /// Module instances the root being judged may still evaluate: `for_each` calls nested
    /// in `for_each` calls multiply, and a run must end.
    budget: std::cell::Cell<usize>,
    /// Folders whose calls were all seen: evaluated through a call, or called with a
    /// known `count = 0` or empty `for_each`.
    reached: std::cell::RefCell<HashSet<String>>,
    /// The first storage the root's modules create that pods can keep checkpoints on
    /// through a spot reclaim.
    shared_storage: std::cell::RefCell<Option<gpulint_model::Span>>,
}

/// Lowers the resources of one module, for every provider.
fn lower_resources(module: &Module<'_>, inv: &mut Inventory) {
    let first = inv.capacity.len();
    aws::lower(module, inv);
    gcp::lower(module, inv);
    azure::lower(module, inv);
    provisioners::lower(module, inv);
    branch::name_bounds(module, &mut inv.capacity[first..]);
    peers::count_at(module, &mut inv.capacity[first..]);
    // The region the provider block names, for what does not write its own.
    for c in &mut inv.capacity[first..] {
        let provider = match c.provider {
            Provider::Aws => "aws",
            Provider::Gcp => "google",
            _ => continue,
        };
        if c.region.is_none() {
            c.region = module.region(provider).map(Into::into);
        }
    }
}

/// Lowers a module's resources, the public modules it calls, and the local modules it
/// calls with the inputs of each call, recursively.
fn lower_module(
    module: &Module<'_>,
    dir: &str,
    tree: &Tree<'_>,
    chain: &mut Vec<String>,
    inv: &mut Inventory,
) {
    lower_resources(module, inv);
    if tree.shared_storage.borrow().is_none() {
        *tree.shared_storage.borrow_mut() = storage::shared(module);
    }
    tree.reached.borrow_mut().extend(
        module
            .settled_sources
            .iter()
            .filter_map(|s| local_target(dir, s, &tree.folders)),
    );
    for call in module.calls() {
        let Some(source) = call.source.as_deref() else {
            continue;
        };
        let Some(target) = local_target(dir, source, &tree.folders) else {
            let first = inv.capacity.len();
            registry::lower(&call, source, inv);
            branch::name_bounds(module, &mut inv.capacity[first..]);
            continue;
        };
        let Some(files) = tree.folders.get(&target) else {
            continue;
        };
        if chain.contains(&target) {
            continue;
        }
        let depth = budget::limit(Limit::ModuleDepth);
        let instances = budget::limit(Limit::ModuleInstances);
        if chain.len() >= depth || tree.budget.get() == 0 {
            let (limit, unchecked) = if chain.len() >= depth {
                (
                    Limit::ModuleDepth,
                    format!(
                        "this call is {} modules deep; the module it calls was not checked",
                        chain.len()
                    ),
                )
            } else {
                (
                    Limit::ModuleInstances,
                    format!(
                        "the root module `{}` already evaluated {instances} module instances; \
                         this call and the later ones were not checked",
                        chain
                            .first()
                            .map_or(".", |r| if r.is_empty() { "." } else { r.as_str() })
                    ),
                )
            };
            budget::record(budget::Hit {
                limit,
                file: call.block.header.file,
                range: call.block.header.range(),
                unchecked,
            });
            continue;
        }
        tree.budget.set(tree.budget.get() - 1);
        let inputs = call
            .block
            .keys()
            .into_iter()
            .filter(|n| {
                !matches!(
                    n.as_str(),
                    "source" | "version" | "count" | "for_each" | "providers" | "depends_on"
                )
            })
            .map(|n| {
                // A map a toggle adds entries to is passed as when switched on.
                let value = match call.block.toggled_value(&n) {
                    Some((on, keys, toggle)) => {
                        // Findings inside the call carry it, wherever they are written.
                        toggle.record_entries(&call.path, &[], &keys);
                        Value::Known(on, call.block.header.clone())
                    }
                    None => call.block.value(&n),
                };
                let input = match (value, call.block.passed_knob(&n)) {
                    (Value::Known(v, _), Some(in_files)) => Input::Knob { value: v, in_files },
                    (Value::Absent, Some(in_files)) => Input::Knob {
                        value: hcl::Value::Null,
                        in_files,
                    },
                    (Value::Known(v, _), None) => Input::Known(v),
                    (Value::Unknown(_), _) => Input::Unknown,
                    // The key is written, so its value is `null`.
                    (Value::Absent, None) => Input::Known(hcl::Value::Null),
                };
                let set = call
                    .block
                    .origins(&n, &format!("passed to `{}` as `{n}`", call.path));
                (n, input, set)
            })
            .collect();
        let mut child = Module::called(
            files,
            inputs,
            format!("{}.", call.path),
            Some(call.block.header.clone()),
        );
        child.inherit_regions(module);
        chain.push(target.clone());
        lower_module(&child, &target, tree, chain, inv);
        chain.pop();
    }
}

/// A var file the run names, applied after each root module's own tfvars: to every root
/// (`--var-file`), or to the roots in one folder and below it (`""`: the top).
pub type VarFile = (FileId, Option<String>);

/// Lowers every parsed file. `parsed[i]` belongs to `FileId(i)`; `var_files` are the
/// `--var-file`s, applied after each module's own tfvars.
pub fn lower(db: &SourceDb, parsed: &[Parsed], var_files: &[FileId]) -> Inventory {
    let var_files: Vec<VarFile> = var_files.iter().map(|&id| (id, None)).collect();
    // Every tree is held: nothing is deferred, so nothing is parsed later.
    lower_with(
        db,
        parsed,
        Vec::new(),
        &var_files,
        &Limits::default(),
        &mut Later {
            parse: &|ids: &[FileId]| ids.iter().map(|_| (None, Parsed::skipped())).collect(),
            on_tree: &mut |_, _, _| {},
            chunk: CHUNK_BYTES,
            text: &|_| None,
        },
    )
}

/// A deferred file parsed for lowering, with its text read again when the run had let go
/// of it (`None`: the run's own copy is loaded).
pub type Reparsed = (Option<SourceFile>, Parsed);

/// How lowering gets the trees of Terraform files the run did not hold
/// ([`Syntax::Deferred`]), and tells the caller about them.
pub struct Later<'a> {
    /// Parses files, in parallel where it can; one [`Parsed`] per id, in order, with the
    /// file read again when the run let go of its text.
    pub parse: &'a (dyn Fn(&[FileId]) -> Vec<Reparsed> + Sync),
    /// Called once with each such file as parsed, before its tree is dropped (the run
    /// reads its suppressions then).
    pub on_tree: &'a mut dyn FnMut(FileId, &SourceFile, &Parsed),
    /// Terraform text bytes whose trees are held at once while judging: a chunk of roots
    /// with the modules they call ([`CHUNK_BYTES`] by default; 0 judges one root at a time).
    pub chunk: usize,
    /// The text of a file the run let go of, read again (`None` when it cannot be).
    pub text: &'a dyn Fn(FileId) -> Option<std::sync::Arc<str>>,
}

/// Terraform text whose trees are held at once, at most, while root modules are judged: a
/// chunk of roots, with the modules they call, is parsed, lowered and dropped before the
/// next. A tree takes 10 to 30 bytes for each byte of text.
pub const CHUNK_BYTES: usize = 64 << 10;

/// Terraform text a run holds whole, as trees, when it reads no more: a pre-commit call
/// on one module, or a small repository, parses each file once and streams nothing.
pub const HOLD_BYTES: u64 = 1 << 20;

/// [`lower`], within `limits`. `early[i]`, where given, is what `FileId(i)` lowered to
/// when it was read (a YAML file, whose tree was then dropped: [`lower_yaml`]); it takes
/// the place of that file's own lowering. A Terraform file the run did not hold is parsed
/// through `later` when a root module needs it.
pub fn lower_with(
    db: &SourceDb,
    parsed: &[Parsed],
    mut early: Vec<Option<Box<Inventory>>>,
    var_files: &[VarFile],
    limits: &Limits,
    later: &mut Later<'_>,
) -> Inventory {
    let mut inv = Inventory::default();
    let terraform_bytes: u64 = db
        .iter()
        .filter(|(_, f)| f.kind != FileKind::Yaml)
        .map(|(_, f)| f.len() as u64)
        .sum();
    let run = budget::begin(limits, terraform_bytes);
    let _scripts = gpulint_terraform::scripts::begin(
        db.iter()
            .filter(|(_, f)| f.kind == FileKind::Script && f.is_loaded())
            .filter_map(|(_, f)| Some((f.path()?.to_path_buf(), f.text().into()))),
        db.iter()
            .filter(|(_, f)| f.kind != FileKind::Script)
            .filter_map(|(id, f)| Some((id, f.path()?.parent()?.to_path_buf()))),
    );
    // Origins left by an earlier run on this thread are not this run's.
    drop(eval::take_instances());
    drop(eval::take_caveats());
    drop(eval::take_unexpanded());
    // What the run's YAML lowered to, in one list each, sized once.
    let held = |f: fn(&Inventory) -> usize| early.iter().flatten().map(|i| f(i)).sum::<usize>();
    inv.capacity.reserve_exact(held(|i| i.capacity.len()));
    inv.workloads.reserve_exact(held(|i| i.workloads.len()));
    for (id, file) in db.iter() {
        let p = &parsed[id.0 as usize];
        if let Some(lowered) = early.get_mut(id.0 as usize).and_then(Option::take) {
            inv.append(*lowered);
        }
        file_facts(id, file, p, limits, &mut inv);
    }

    // Terraform: the `.tf` files of one folder are one module; a plan is one on its own.
    let mut folders: BTreeMap<String, Folder> = BTreeMap::new();
    let mut plans = Vec::new();
    for (id, file) in db.iter() {
        if var_files.iter().any(|(v, _)| *v == id) {
            continue;
        }
        // Keyed by the normalised name, so `./infra/a.tf` and `infra/b.tf` share a module;
        // stdin stands alone.
        let dir = match file.path() {
            Some(_) => folder_of(&file.name),
            None => format!("\0stdin/{}", file.name),
        };
        let base = file.name.rsplit('/').next().unwrap_or(&file.name);
        match file.kind {
            FileKind::Terraform => folders.entry(dir).or_default().tf.push(id),
            FileKind::TfVars => {
                let f = folders.entry(dir).or_default();
                let files = if tfvars_rank(base).is_some() {
                    &mut f.tfvars
                } else {
                    &mut f.named
                };
                files.push((base.to_string(), id));
            }
            FileKind::Plan => plans.extend(tf_file(parsed, None, id)),
            FileKind::Yaml | FileKind::Script => {}
        }
    }
    let globals: Vec<(Option<&str>, TfFile<'_>)> = var_files
        .iter()
        .filter_map(|(id, root)| Some((root.as_deref(), tf_file(parsed, None, *id)?)))
        .collect();
    // The local folders each folder's files call.
    let calls: BTreeMap<&String, Vec<String>> = folders
        .iter()
        .map(|(dir, f)| {
            let targets =
                f.tf.iter()
                    .flat_map(|&id| sources_of(&parsed[id.0 as usize]))
                    .filter_map(|s| local_target(dir, s, &folders))
                    .filter(|target| folders.contains_key(target))
                    .collect();
            (dir, targets)
        })
        .collect();
    // A folder another folder of the run calls is judged through its calls, with the
    // caller's inputs, not on its own defaults; unless only examples call it: a module
    // published for reuse is also what its defaults make for a user who sets none.
    let called: HashSet<&String> = calls
        .iter()
        .flat_map(|(dir, targets)| {
            targets
                .iter()
                .filter(move |t| *t != *dir && !is_example_of(dir, t))
        })
        .collect();
    let roots: Vec<&String> = folders
        .iter()
        .filter(|(dir, f)| !f.tf.is_empty() && !called.contains(*dir))
        .map(|(dir, _)| dir)
        .collect();
    let mut judged = Judged {
        parsed_once: vec![false; db.len()],
        reached: HashSet::new(),
    };
    let mut judge = Judge {
        db,
        parsed,
        folders: &folders,
        calls: &calls,
        globals: &globals,
        limits,
        later,
    };
    judge.all(&roots, &mut judged, &mut inv);
    // A called folder no call settled (its calls have an unknown `count`/`for_each`, or
    // sit in folders not judged) is judged on its own after all. One called with a known
    // `count = 0` is not: it deploys nothing.
    let roots: Vec<&String> = folders
        .iter()
        .filter(|(dir, f)| {
            !f.tf.is_empty() && called.contains(*dir) && !judged.reached.contains(*dir)
        })
        .map(|(dir, _)| dir)
        .collect();
    judge.all(&roots, &mut judged, &mut inv);
    // Files no judged module needed are still read for what they hold on their own.
    let left: Vec<FileId> = db
        .iter()
        .map(|(id, _)| id)
        .filter(|id| {
            !judged.parsed_once[id.0 as usize]
                && matches!(parsed[id.0 as usize].syntax, Syntax::Deferred(_))
        })
        .collect();
    judge.parse(&left, &mut judged, &mut inv);
    for plan in plans {
        lower_resources(&Module::new(&[plan], &[]), &mut inv);
    }
    let first_terraform = db
        .iter()
        .find(|(_, f)| f.kind != FileKind::Yaml)
        .map(|(id, _)| id);
    for hit in run.take_hits(first_terraform) {
        inv.limits.push(LimitProblem {
            subject: db.get(hit.file).name.clone(),
            span: Span::new(hit.file, hit.range),
            limit: hit.limit,
            value: limits.get(hit.limit),
            unchecked: hit.unchecked,
        });
    }
    drop(run);
    let folders: Vec<&str> = db.iter().map(|(_, f)| folder_str(&f.name)).collect();
    inv.origins = eval::take_instances();
    inv.caveats.append(&mut eval::take_caveats());
    inv.unexpanded = eval::take_unexpanded();
    inv.unexpanded
        .sort_by_key(|u| (u.span.file, u.span.range().start));
    inv.unexpanded.dedup();
    gpulint_kubernetes::merge_referenced(&mut inv);
    let (simulated, real) = std::mem::take(&mut inv.workloads)
        .into_iter()
        .partition(|w| w.simulated.is_some());
    inv.workloads = real;
    inv.simulated = simulated;
    for c in &mut inv.capacity {
        c.gpus_from_nodes();
        // A NodePool's own name still says GPU when its instance types are not known.
        if c.written_in == gpulint_model::Dialect::Karpenter {
            c.gpus_from_names(None);
        }
        c.gpus_from_family();
        role::place_served_model(db, later.text, c);
    }
    peers::group_instances(&mut inv.capacity);
    link(&mut inv, &folders);
    intent::capacity(&mut inv);
    inv.shrink_to_fit();
    inv
}

/// What a file holds on its own, lowered once: its syntax error and the limits it hit,
/// and the manifests a Terraform file writes inline.
fn file_facts(
    id: FileId,
    file: &gpulint_source::SourceFile,
    p: &Parsed,
    limits: &Limits,
    inv: &mut Inventory,
) {
    if let Some(e) = &p.error {
        inv.syntax_errors.push(SyntaxProblem {
            subject: file.name.clone(),
            file: id,
            offset: e.offset,
            message: e.message.clone(),
            unread: p.unread,
            read_on: matches!(p.syntax, Syntax::Hcl(_)),
        });
    }
    for hit in &p.limits {
        inv.limits
            .push(LimitProblem::in_file(&file.name, id, hit, limits));
    }
    match (file.kind, &p.syntax) {
        (FileKind::Yaml, Syntax::Yaml(docs)) => kubernetes::lower(id, file, docs, limits, inv),
        (FileKind::Terraform, Syntax::Hcl(body)) => {
            manifests::lower(id, file, body, p.remap.as_deref(), limits, inv);
        }
        _ => {}
    }
}

/// The tree of a Terraform file: held by the run, or parsed for the chunk being judged.
fn tf_file<'p>(
    parsed: &'p [Parsed],
    chunk: Option<&'p HashMap<FileId, Parsed>>,
    id: FileId,
) -> Option<TfFile<'p>> {
    let p = match &parsed[id.0 as usize] {
        Parsed {
            syntax: Syntax::Deferred(_),
            ..
        } => chunk?.get(&id)?,
        p => p,
    };
    match p {
        Parsed {
            syntax: Syntax::Hcl(body),
            remap,
            ..
        } => Some(TfFile {
            id,
            body,
            remap: remap.as_deref(),
        }),
        _ => None,
    }
}

/// The `source` of every `module` block a file calls, held or deferred.
pub fn sources_of(p: &Parsed) -> Vec<&str> {
    match &p.syntax {
        Syntax::Hcl(body) => module_sources(body).collect(),
        Syntax::Deferred(sources) => sources.iter().map(String::as_str).collect(),
        Syntax::Yaml(_) | Syntax::None => Vec::new(),
    }
}

/// What one YAML file lowers to on its own: its workloads and capacity. The run lowers
/// each YAML file as it is read, so that its tree can be dropped before the next is held.
pub fn lower_yaml(
    id: FileId,
    file: &gpulint_source::SourceFile,
    docs: &[gpulint_syntax::yaml::YamlDoc],
    limits: &Limits,
) -> Inventory {
    let mut inv = Inventory::default();
    kubernetes::lower(id, file, docs, limits, &mut inv);
    inv.shrink_to_fit();
    inv
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_example_is_a_folder_below_what_caller_and_module_share() {
        use super::is_example_of;
        assert!(is_example_of("examples/dev", ""));
        assert!(is_example_of("test/fixtures/pool", "examples/pool"));
        assert!(is_example_of("modules/pool/examples/basic", "modules/pool"));
        assert!(!is_example_of("demos/vit/tf", "demos/vit/tf/modules/gke"));
        assert!(!is_example_of("envs/prod", "modules/pool"));
    }

    use super::*;
    use gpulint_model::{Capacity, CapacityKind, Market, Placement, Role, Value, Zones};
    use gpulint_source::SourceFile;
    use gpulint_syntax::parse;

    fn lower_hcl(text: &str) -> Vec<Capacity> {
        let mut db = SourceDb::default();
        let file = SourceFile::new(
            "m/main.tf".into(),
            Some("m/main.tf".into()),
            FileKind::Terraform,
            text.into(),
            true,
        );
        let parsed = vec![parse(&file)];
        assert!(parsed[0].error.is_none(), "{:?}", parsed[0].error);
        db.add(file);
        lower(&db, &parsed, &[]).capacity
    }

    fn get<'a>(c: &'a [Capacity], subject: &str) -> &'a Capacity {
        c.iter().find(|c| c.subject == subject).unwrap()
    }

    #[test]
    fn aws_groups_read_templates_subnets_and_placement() {
        let c = lower_hcl(
            r#"
resource "aws_subnet" "a" { availability_zone = "us-east-1a" }
resource "aws_subnet" "b" { availability_zone = "us-east-1b" }
resource "aws_placement_group" "pg" { strategy = "cluster" }
resource "aws_launch_template" "gpu" {
  instance_type = "p5.48xlarge"
  network_interfaces { interface_type = "efa" }
}
resource "aws_autoscaling_group" "train" {
  min_size            = 2
  max_size            = 4
  vpc_zone_identifier = [aws_subnet.a.id, aws_subnet.b.id]
  placement_group     = aws_placement_group.pg.id
  launch_template { id = aws_launch_template.gpu.id }
}
resource "aws_eks_node_group" "serve" {
  instance_types = ["g6e.xlarge", "g6e.2xlarge"]
  capacity_type  = "SPOT"
  subnet_ids     = [aws_subnet.a.id]
  labels         = { workload = "inference" }
  scaling_config {
    min_size     = 1
    max_size     = 3
    desired_size = 1
  }
}
"#,
        );
        let asg = get(&c, "aws_autoscaling_group.train");
        assert_eq!(asg.kind, CapacityKind::Group);
        assert_eq!(asg.gpu_machines().unwrap().0[0].name, "p5.48xlarge");
        assert_eq!(asg.scale.min.known(), Some(&2));
        assert_eq!(
            asg.zones.known(),
            Some(&Zones::Listed(vec![
                "us-east-1a".into(),
                "us-east-1b".into()
            ]))
        );
        assert_eq!(asg.placement.known(), Some(&Placement::Cluster));
        assert_eq!(asg.fast_fabric.known(), Some(&true));
        assert_eq!(asg.role.known(), Some(&Role::Training));
        let ng = get(&c, "aws_eks_node_group.serve");
        assert_eq!(ng.market.known(), Some(&Market::Spot));
        assert_eq!(ng.gpu_machines().unwrap().0.len(), 2);
        assert_eq!(ng.role.known(), Some(&Role::Inference));
        assert_eq!(ng.labels[0].1, "inference");
    }

    #[test]
    fn aws_mixed_instances_and_reservations() {
        let c = lower_hcl(
            r#"
variable "subnets" {}
resource "aws_autoscaling_group" "mixed" {
  min_size            = 0
  max_size            = 8
  vpc_zone_identifier = var.subnets
  mixed_instances_policy {
    instances_distribution {
      on_demand_base_capacity                  = 1
      on_demand_percentage_above_base_capacity = 0
    }
    launch_template {
      launch_template_specification { launch_template_id = "lt-123" }
      override { instance_type = "g5.12xlarge" }
      override { instance_type = "g6.12xlarge" }
    }
  }
}
resource "aws_ec2_capacity_reservation" "old" {
  instance_type     = "p3.16xlarge"
  instance_platform = "Linux/UNIX"
  availability_zone = "us-east-1a"
  instance_count    = 2
}
"#,
        );
        let asg = get(&c, "aws_autoscaling_group.mixed");
        assert_eq!(asg.market.known(), Some(&Market::Mixed));
        assert_eq!(asg.gpu_machines().unwrap().0.len(), 2);
        assert!(asg.zones.is_unknown(), "subnets from a variable");
        let r = get(&c, "aws_ec2_capacity_reservation.old");
        assert_eq!(r.kind, CapacityKind::Reservation);
        assert!(r.reserved.is_some());
        assert_eq!(
            r.gpu_machines().unwrap().0[0].gpus.as_ref().unwrap().gpu.id,
            "v100-16gb"
        );
    }

    #[test]
    fn gke_pools_know_regions_autoscaling_and_placement() {
        let c = lower_hcl(
            r#"
resource "google_container_cluster" "ml" {
  name     = "ml"
  location = "us-central1"
  node_pool {
    name = "serving"
    node_config {
      machine_type = "g2-standard-8"
      spot         = true
    }
  }
}
resource "google_container_node_pool" "train" {
  cluster        = google_container_cluster.ml.id
  node_locations = ["us-central1-a"]
  placement_policy { type = "COMPACT" }
  autoscaling {
    min_node_count = 2
    max_node_count = 4
  }
  node_config {
    machine_type = "a3-highgpu-8g"
    labels       = { "gpulint-role" = "training" }
  }
}
"#,
        );
        let serving = get(&c, "google_container_cluster.ml.node_pool[\"serving\"]");
        assert_eq!(serving.market.known(), Some(&Market::Spot));
        assert_eq!(
            serving.zones.known(),
            Some(&Zones::Region("us-central1".into()))
        );
        assert_eq!(serving.role.known(), Some(&Role::Inference));
        let train = get(&c, "google_container_node_pool.train");
        assert_eq!(train.scale.min.known(), Some(&2));
        assert_eq!(train.placement.known(), Some(&Placement::Cluster));
        assert_eq!(train.role.known(), Some(&Role::Training));
        assert_eq!(train.fast_fabric, Value::Absent);
    }

    #[test]
    fn aks_pools_and_scale_sets() {
        let c = lower_hcl(
            r#"
resource "azurerm_kubernetes_cluster_node_pool" "gpu" {
  name                 = "gpu"
  vm_size              = "Standard_NC24ads_A100_v4"
  priority             = "Spot"
  auto_scaling_enabled = true
  min_count            = 1
  max_count            = 3
  zones                = ["1", "2"]
  node_labels          = { "gpulint-role" = "inference" }
}
resource "azurerm_linux_virtual_machine_scale_set" "nd" {
  sku       = "Standard_ND96isr_H100_v5"
  instances = 4
}
"#,
        );
        let pool = get(&c, "azurerm_kubernetes_cluster_node_pool.gpu");
        assert_eq!(pool.market.known(), Some(&Market::Spot));
        assert_eq!(pool.scale.min.known(), Some(&1));
        assert!(pool.zones.known().unwrap().is_multi());
        assert_eq!(pool.role.known(), Some(&Role::Inference));
        let vmss = get(&c, "azurerm_linux_virtual_machine_scale_set.nd");
        assert_eq!(vmss.placement.known(), Some(&Placement::Cluster));
        assert_eq!(vmss.fast_fabric.known(), Some(&true));
    }
}
