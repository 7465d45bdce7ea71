//! The pipeline, in order: discover → parse → lower → rules → filter. The CLI and the
//! tests both call [`lint`], so the CLI stays thin.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::discover::{Input, discover};
use crate::finding::Finding;
pub use crate::finding::Outcome;
use crate::limits::Limits;
pub use crate::limits::MAX_FILE_SIZE;
use crate::model::Inventory;
use crate::parse::{self, Parsed, Syntax};
use crate::source::{FileId, FileKind, SourceDb, SourceFile, Stamp};
use crate::suppress::{self, Directive};

mod scripts;
mod terraform;
use crate::{filter, lower, rules};
use terraform::{
    add_provenance, load_callers, load_local_modules, pair_var_files, unapplied_tfvars,
};

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    pub stdin_filename: Option<String>,
    pub var_files: Vec<PathBuf>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// Read links found in a folder that lead outside it (also `follow_external_links` in
    /// the config).
    pub follow_external_links: bool,
    /// Walk folders without `.gitignore`, `.ignore` and git's excludes (`--no-ignore`).
    pub no_ignore: bool,
    /// `.gpulint.toml`, loaded by the caller.
    pub config: crate::config::Config,
    /// `--policy`: Rego policy files and folders, after the config's `[policies] paths`.
    pub policies: Vec<PathBuf>,
    /// Terraform bytes above which the run streams root modules instead of holding every
    /// tree (default [`lower::HOLD_BYTES`]), and the bytes of each chunk it then holds
    /// (default [`lower::CHUNK_BYTES`]); the tests set it to check both ways agree.
    pub stream_above: Option<u64>,
}

impl Options {
    /// Whether links that lead outside their folder are read (the flag or the config).
    pub fn follows_external_links(&self) -> bool {
        self.follow_external_links || self.config.follow_external_links
    }

    /// The policies of the run: the config's `[policies] paths`, then `--policy`.
    pub fn policy_paths(&self) -> Vec<PathBuf> {
        self.config
            .policies
            .iter()
            .chain(&self.policies)
            .cloned()
            .collect()
    }

    /// The files a run over `paths` reads: `exclude`, `.gitignore` (unless `no_ignore`)
    /// and links as the options and the config say.
    pub fn discover(&self) -> Result<crate::discover::Discovered, String> {
        discover(
            &self.paths,
            self.stdin_filename.as_deref(),
            self.config.exclude.as_ref(),
            self.follows_external_links(),
            !self.no_ignore,
        )
    }
}

/// Parsers recurse; give them room (hcl-edit needs ≥ 1 MiB at its nesting cap).
fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(8 << 20)
            .thread_name(|i| format!("gpulint-{i}"))
            .build()
            .expect("a thread pool")
    })
}

/// Runs the whole pipeline. `stdin` is read only when a path is `-`.
/// Errors are for a run that cannot proceed (a named path that does not exist, an
/// unreadable `--var-file`, an unknown rule); problems in files are findings.
pub fn lint(opts: &Options, stdin: impl std::io::Read) -> Result<Outcome, String> {
    let config = &opts.config;
    // `--select` replaces the config's selection; `--ignore` adds to its ignores.
    let select = if opts.select.is_empty() {
        &config.select
    } else {
        &opts.select
    };
    let ignore: Vec<String> = config.ignore.iter().chain(&opts.ignore).cloned().collect();
    let selected = filter::select_rules(select, &ignore)?;
    // Policies are read and compiled before any input, so a broken one fails fast; a run
    // without policies never builds an engine.
    let policy_paths = opts.policy_paths();
    let mut policies = if policy_paths.is_empty() {
        None
    } else {
        Some(crate::policy::Policies::load(&policy_paths)?)
    };
    let (
        Read {
            mut db,
            directives,
            mut notes,
            ..
        },
        mut model,
    ) = read_and_lower(opts, stdin)?;
    let mut found = rules::run(&model, &selected, &config.rules);
    if let Some(policies) = &mut policies {
        // Policies read the inventory as `inspect` shows it, from every file.
        let ids: Vec<FileId> = db.iter().map(|(id, _)| id).collect();
        reload(&mut db, ids)?;
        let mut by_policies = policies.check(&db, &model, &mut notes)?;
        by_policies.retain(|f| crate::policy::selected(f.rule, select, &ignore));
        found.append(&mut by_policies);
    }
    // Only where module variables were set is read from here on: the rest of the model
    // goes before any text is read again.
    let origins = std::mem::take(&mut model.origins);
    let caveats = std::mem::take(&mut model.caveats);
    drop(model);
    // A large run let go of its texts: those its findings point into are read again,
    // first the module files whose variables `add_related` follows.
    let in_modules: std::collections::HashSet<FileId> =
        origins.iter().flat_map(|i| i.files.clone()).collect();
    let labelled = found
        .iter()
        .flat_map(|f| std::iter::once(&f.primary).chain(&f.secondary))
        .map(|l| l.file);
    reload(&mut db, labelled.filter(|id| in_modules.contains(id)))?;
    rules::add_related(&origins, &db, &mut found);
    add_provenance(&origins, &mut db, &mut found)?;
    // And the calls that deploy the modules they are in, which they name.
    let calls = rules::add_calls(&origins, &mut found);
    reload(&mut db, calls)?;
    drop(origins);
    rules::add_caveats(&caveats, &mut found);
    // Which ids ran: a policy's ids are known only by their prefix.
    let ran = |id: &str| {
        selected.iter().any(|r| r.id == id)
            || (policies.is_some()
                && crate::policy::is_policy_id(id)
                && crate::policy::selected(id, select, &ignore))
    };
    // Each file's suppressions were read while its tree was held.
    let mut findings = filter::finish(&db, directives, &ran, found);
    if let Some(per_file) = &config.per_file_ignores {
        let cwd = std::env::current_dir().unwrap_or_default();
        let path = config
            .path
            .as_deref()
            .unwrap_or(std::path::Path::new(".gpulint.toml"));
        notes.extend(per_file.apply(&db, &cwd, &ran, &mut findings, path));
    }
    reload(&mut db, findings.iter().flat_map(Finding::files))?;
    // A configured severity is the user's word, over the rule's own escalations too.
    for f in &mut findings {
        if let Some(&severity) = config.severity.get(f.rule) {
            f.severity = severity;
        }
    }
    Ok(Outcome {
        db,
        findings,
        notes,
    })
}

/// What [`inspect`] returns: the inventory the rules would read, and the files it came
/// from.
#[derive(Debug)]
pub struct Inspection {
    pub db: SourceDb,
    pub inventory: Inventory,
    /// Things skipped on the way, for stderr.
    pub notes: Vec<String>,
}

/// The pipeline up to the model, without rules: discover → parse → lower (links
/// included). `gpulint inspect` prints what it returns. `select`, `ignore` and the rule
/// options of `opts` play no part.
pub fn inspect(opts: &Options, stdin: impl std::io::Read) -> Result<Inspection, String> {
    let (Read { mut db, notes, .. }, inventory) = read_and_lower(opts, stdin)?;
    // The inventory points into every file that holds an object: all are read again.
    let ids: Vec<FileId> = db.iter().map(|(id, _)| id).collect();
    reload(&mut db, ids)?;
    Ok(Inspection {
        db,
        inventory,
        notes,
    })
}

/// [`read`], then lowering into the model that [`lint`] checks and [`inspect`] shows.
fn read_and_lower(opts: &Options, stdin: impl std::io::Read) -> Result<(Read, Inventory), String> {
    let mut read = read(opts, stdin)?;
    let limits = &opts.config.limits;
    let db = &read.db;
    // A file the run let go of is read again to be parsed, and let go of after.
    let parse = |ids: &[FileId]| -> Vec<(Option<SourceFile>, Parsed)> {
        par_map(ids.to_vec(), |_, id| {
            let file = db.get(id);
            if file.is_loaded() {
                return (None, parse::parse_with(file, limits));
            }
            match reread(file) {
                Ok(text) => {
                    let name = file.name.clone();
                    let again = SourceFile::new(name, None, file.kind, text, file.requested);
                    let parsed = parse::parse_with(&again, limits);
                    (Some(again), parsed)
                }
                Err(why) => (None, Parsed::unread(why)),
            }
        })
    };
    // A deferred file's suppressions are read while lowering holds its tree.
    let mut directives = std::mem::take(&mut read.directives);
    let mut directed = std::mem::take(&mut read.directed);
    let mut on_tree = |id: FileId, file: &SourceFile, p: &Parsed| {
        if file.requested && file.is_loaded() {
            directives.extend(suppress::directives(id, file, p));
            directed[id.0 as usize] = true;
        }
    };
    let model = lower::lower_with(
        db,
        &read.parsed,
        std::mem::take(&mut read.lowered),
        &read
            .var_files
            .iter()
            .map(|&id| {
                let root = read.bound.iter().find(|(b, _)| *b == id);
                (id, root.map(|(_, folder)| folder.clone()))
            })
            .collect::<Vec<_>>(),
        limits,
        &mut lower::Later {
            parse: &parse,
            on_tree: &mut on_tree,
            chunk: opts.stream_above.map_or(lower::CHUNK_BYTES, |b| {
                usize::try_from(b).unwrap_or(usize::MAX)
            }),
            text: &|id| reread(db.get(id)).ok(),
        },
    );
    read.notes
        .extend(unexpanded_note(&read.db, &model.unexpanded));
    // The suppressions of the files the run held are read while it still holds them.
    for ((id, file), done) in read.db.iter().zip(&directed) {
        if !done && file.requested && file.is_loaded() {
            directives.extend(suppress::directives(id, file, &read.parsed[id.0 as usize]));
        }
    }
    // In file order, as each file's were read.
    directives.sort_by_key(|d| d.file);
    read.directives = directives;
    free(read.parsed.len(), std::mem::take(&mut read.parsed));
    if read.unload {
        for id in 0..read.db.len() {
            read.db.get_mut(FileId(id as u32)).unload();
        }
    }
    Ok((read, model))
}

/// Frees what a run of `files` files no longer needs. Freeing every syntax tree of a large
/// tree is a tenth of its run, and nothing waits for it: a thread of its own does it (the
/// process may end first). Should the thread not start, it is freed here, with the
/// closure that holds it.
fn free<T: Send + 'static>(files: usize, garbage: T) {
    if files > BACKGROUND_DROP {
        let _ = std::thread::Builder::new()
            .name("gpulint-free".into())
            .spawn(move || drop(garbage));
    }
}

/// More files than this are freed on a thread of their own.
const BACKGROUND_DROP: usize = 64;

/// Everything a run reads before lowering: the files, parsed, with the modules they call.
#[derive(Debug)]
pub struct Read {
    pub db: SourceDb,
    /// One per file of `db`, in its order. A YAML file's tree is gone: it was lowered
    /// into `lowered` as it was read. Emptied once the run is lowered.
    pub parsed: Vec<Parsed>,
    /// One per file of `db`: what a YAML file lowered to as it was read.
    pub lowered: Vec<Option<Box<Inventory>>>,
    /// The suppressions of the files read so far: a YAML file's are read while its tree
    /// is held, the others' when lowering parses them.
    pub directives: Vec<Directive>,
    /// One per file of `db`: whether its suppressions are in `directives` already.
    pub directed: Vec<bool>,
    /// The `--var-file`s, which are also in `db`.
    pub var_files: Vec<FileId>,
    /// Var files that only the roots in one folder read (`[terraform] var_files`, or the
    /// module a var file in a folder of only tfvars sets), with that folder's name.
    pub bound: Vec<(FileId, String)>,
    /// A large run: every text is let go of once lowered, and read again for findings.
    pub unload: bool,
    /// Things skipped on the way, for stderr.
    pub notes: Vec<String>,
    /// The paths `file()` and `templatefile()` calls name, with the file that names each.
    pub scripts: Vec<(FileId, String)>,
}

/// Discovers, reads and parses the files of a run: the first half of [`lint`], on its own
/// so that the benchmark can time parsing apart from linting.
pub fn read(opts: &Options, stdin: impl std::io::Read) -> Result<Read, String> {
    let config = &opts.config;
    let follow = opts.follows_external_links();
    let cap = file_cap(config);
    let found = opts.discover()?;
    // Over the cap, stdin stops being read; `load` reports it as too large.
    let stdin_bytes = if found.inputs.iter().any(|i| i.path.is_none()) {
        Some(
            crate::bounded::read_stream(stdin, cap)
                .map_err(|e| format!("cannot read stdin: {e}"))?,
        )
    } else {
        None
    };

    // Stdin is one input at most (discovery deduplicates `-`); it carries its bytes.
    let mut stdin_bytes = stdin_bytes;
    let mut inputs: Vec<(Input, Option<Vec<u8>>)> = found
        .inputs
        .into_iter()
        .map(|i| {
            let bytes = i.path.is_none().then(|| stdin_bytes.take()).flatten();
            (i, bytes)
        })
        .collect();
    let cwd = std::env::current_dir().ok();
    let mut seen = crate::discover::Seen::default();
    for (i, (input, _)) in inputs.iter_mut().enumerate() {
        seen.add(input, i, cwd.as_deref());
    }
    // `--var-file`s apply to every root; `[terraform] var_files` to the roots in a folder.
    let mut var_files = Vec::new();
    let mut bound = Vec::new();
    let named = opts.var_files.iter().map(|p| (p, None)).chain(
        config
            .var_files
            .iter()
            .flat_map(|(folder, files)| files.iter().map(move |f| (f, Some(folder)))),
    );
    // A folder the run holds no file of has no root to read its var files.
    let in_run = |folder: &std::path::Path| {
        let f = folder_name(folder, cwd.as_deref());
        inputs.iter().any(|(i, _)| {
            i.path.is_some()
                && (f.is_empty()
                    || i.name
                        .strip_prefix(f.as_str())
                        .is_some_and(|r| r.starts_with('/')))
        })
    };
    let named: Vec<_> = named
        .filter(|(_, folder)| folder.is_none_or(|f| in_run(f)))
        .collect();
    for (path, folder) in named {
        let bytes =
            crate::bounded::read_file(path, cap, crate::bounded::MAX_FILE_SIZE).map_err(|e| {
                match folder {
                    None => format!("cannot read --var-file `{}`: {e}", path.display()),
                    Some(_) => format!(
                        "cannot read `{}` of `[terraform] var_files` in the configuration: {e}",
                        path.display()
                    ),
                }
            })?;
        let mut input = Input {
            name: crate::source::names::display_name(path, cwd.as_deref()),
            path: Some(path.clone()),
            kind: FileKind::TfVars,
            requested: true,
        };
        // A var file inside a linted folder is one file: read once, reported once.
        let index = match seen.add(&mut input, inputs.len(), cwd.as_deref()) {
            Some(i) => {
                inputs[i].0.requested = true;
                inputs[i].1 = Some(bytes);
                i
            }
            None => {
                inputs.push((input, Some(bytes)));
                inputs.len() - 1
            }
        };
        let id = FileId(u32::try_from(index).expect("few files"));
        var_files.push(id);
        if let Some(folder) = folder {
            bound.push((id, folder_name(folder, cwd.as_deref())));
        }
    }

    // Terraform is held whole when there is little of it; above that, root modules are
    // parsed, lowered and dropped a chunk at a time. A run that reads little keeps its
    // texts; above that, a text is let go of once lowered and read again for findings.
    let sizes: Vec<(FileKind, u64)> = inputs
        .iter()
        .map(|(i, b)| {
            let size = match (b, &i.path) {
                (Some(b), _) => b.len() as u64,
                (None, Some(p)) => std::fs::metadata(p).map_or(0, |m| m.len()),
                (None, None) => 0,
            };
            (i.kind, size)
        })
        .collect();
    let all: u64 = sizes.iter().map(|(_, s)| s).sum();
    let terraform: u64 = sizes
        .iter()
        .filter(|(k, _)| *k == FileKind::Terraform)
        .map(|(_, s)| s)
        .sum();
    let how = Reading {
        cwd: cwd.as_deref(),
        cap,
        limits: &config.limits,
        follow,
        defer: terraform > opts.stream_above.unwrap_or(lower::HOLD_BYTES),
        unload: all > opts.stream_above.unwrap_or(lower::HOLD_BYTES),
        var_files: &var_files,
    };
    let loaded = load_all(inputs, 0, &how);
    let mut run = Read {
        db: SourceDb::with_capacity(loaded.len()),
        parsed: Vec::with_capacity(loaded.len()),
        lowered: Vec::with_capacity(loaded.len()),
        directives: Vec::new(),
        directed: Vec::with_capacity(loaded.len()),
        var_files: var_files.clone(),
        bound,
        unload: how.unload,
        notes: found.notes,
        scripts: Vec::new(),
    };
    let mut templates = Vec::new();
    for l in loaded {
        run.add(l, &mut templates);
    }
    let paired = pair_var_files(&mut run, &mut seen, &how);
    run.notes.extend(paired);
    let callers = load_callers(&mut run, &mut seen, &how);
    run.notes.extend(callers);
    let local = load_local_modules(&mut run, &mut seen, &how);
    run.notes.extend(local);
    let scripts = scripts::load(&mut run, &mut seen, &how);
    run.notes.extend(scripts);
    run.notes.extend(templates_note(&templates));
    let unapplied = unapplied_tfvars(&run, &how);
    run.notes.extend(unapplied);
    Ok(run)
}

/// Reads, decodes and parses every file a run over `opts.paths` finds, in parallel, each
/// tree dropped as soon as it is built: the floor under any pipeline that reads
/// everything, which the scale benchmark times against [`lint`]. Returns the files read.
pub fn parse_only(opts: &Options) -> Result<usize, String> {
    let config = &opts.config;
    let follow = opts.follows_external_links();
    let found = opts.discover()?;
    let how = Reading {
        cwd: None,
        cap: file_cap(config),
        limits: &config.limits,
        follow,
        defer: false,
        unload: false,
        var_files: &[],
    };
    let files = found.inputs.len();
    par_map(found.inputs, |_, input| {
        drop(read_one(input, None, &how, false));
    });
    Ok(files)
}

impl Read {
    /// Adds a file as `FileId(self.db.len())`, the id it was loaded as.
    fn add(&mut self, l: Loaded, templates: &mut Vec<String>) -> FileId {
        if l.template {
            templates.push(l.file.name.clone());
        }
        self.parsed.push(l.parsed);
        self.lowered.push(l.lowered);
        self.directed.push(l.directives.is_some());
        self.directives.extend(l.directives.into_iter().flatten());
        let id = self.db.add(l.file);
        self.scripts
            .extend(l.scripts.into_iter().map(|path| (id, path)));
        id
    }
}

/// Whether YAML that did not parse is a template (Go or Helm `{{ … }}`, Terraform
/// `templatefile` `${ … }`) rather than a broken file: it is then skipped, with one note
/// for all.
fn is_template(file: &SourceFile, p: &Parsed) -> bool {
    let Some(e) = &p.error else { return false };
    if file.kind != FileKind::Yaml || p.unread {
        return false;
    }
    let line = file.line_index(e.offset);
    let text = &file.text()[file.line_start(line)..file.line_end(line)];
    let templated = |t: &str| t.contains("{{") || t.contains("${") || t.contains("%{");
    let opens_a_line = || {
        file.text().lines().any(|l| {
            ["{{", "${", "%{"]
                .iter()
                .any(|m| l.trim_start().starts_with(m))
        })
    };
    templated(text) || opens_a_line()
}

/// The note for capacity left out because its `count` or `for_each` cannot be evaluated:
/// never silent, and it says how to give gpulint the values.
fn unexpanded_note(db: &SourceDb, blocks: &[gpulint_model::Unexpanded]) -> Option<String> {
    let held: Vec<_> = blocks
        .iter()
        .filter(|u| lower::may_hold_capacity(&u.address))
        .collect();
    let (first, rest) = held.split_first()?;
    let more = match rest.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "not judged: `{}` in `{}`{more}: its `{}` reads values gpulint cannot evaluate (a data \
         source, a resource attribute, a variable without a value), so how many it makes is \
         not known; give them with `--var-file`, or lint the plan (`terraform show -json`)",
        first.address,
        db.get(first.span.file).name,
        first.key
    ))
}

/// The note for the YAML templates a run skipped.
fn templates_note(skipped: &[String]) -> Option<String> {
    let (first, rest) = skipped.split_first()?;
    let more = match rest.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "skipped `{first}`{more}: templates (`{{{{ … }}}}`, `${{ … }}`) are not YAML until \
         rendered; lint the rendered output through stdin"
    ))
}

/// How a run reads its files.
struct Reading<'a> {
    cwd: Option<&'a std::path::Path>,
    cap: u64,
    limits: &'a Limits,
    follow: bool,
    /// Terraform `.tf` and `.tfvars` files are not held as trees ([`parse_held`]).
    defer: bool,
    /// A large run: texts are let go of once lowered, and read again for findings.
    unload: bool,
    /// The `--var-file`s: every root reads them, so they are held whatever `defer` says.
    var_files: &'a [FileId],
}

/// A folder as lowering names it: its display name, `""` for the top.
fn folder_name(folder: &std::path::Path, cwd: Option<&std::path::Path>) -> String {
    let name = crate::source::names::display_name(folder, cwd);
    if name == "." { String::new() } else { name }
}

/// Loads files in parallel on the pool, the first as `FileId(first)`.
fn load_all(inputs: Vec<(Input, Option<Vec<u8>>)>, first: usize, how: &Reading) -> Vec<Loaded> {
    let id = |i: usize| FileId(u32::try_from(first + i).expect("fewer than 2³² files"));
    par_map(inputs, |i, (input, b)| load(id(i), input, b, how))
}

/// `f(index, item)` for every item, in order, on the pool, one item per job: a few large
/// CRDs among many small files would otherwise land in one worker's unsplit half (lws ran
/// on 0.98 cores of 2). A single item (pre-commit's usual call, a pipe) runs on the
/// calling thread: handing it to a worker and back costs more than parsing it.
fn par_map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(usize, T) -> R + Sync) -> Vec<R> {
    if items.len() == 1 {
        return items
            .into_iter()
            .enumerate()
            .map(|(i, t)| f(i, t))
            .collect();
    }
    pool().install(|| {
        items
            .into_par_iter()
            .with_max_len(1)
            .enumerate()
            .map(|(i, t)| f(i, t))
            .collect()
    })
}

/// A file as the run holds it once read.
struct Loaded {
    file: SourceFile,
    parsed: Parsed,
    /// A YAML file's objects: it is lowered on the thread that parsed it and its tree
    /// dropped there, so a run holds one YAML tree per thread, not one per file.
    lowered: Option<Box<Inventory>>,
    /// A YAML file's suppressions, read while its tree was held.
    directives: Option<Vec<Directive>>,
    /// A YAML template, skipped.
    template: bool,
    /// The paths a Terraform file's `file()` and `templatefile()` calls name, as written.
    scripts: Vec<String>,
}

/// Reads, decodes and parses one file, and lowers it when it is YAML. Never fails:
/// problems become syntax errors.
fn load(id: FileId, input: Input, bytes: Option<Vec<u8>>, how: &Reading) -> Loaded {
    let defer = how.defer && !how.var_files.contains(&id);
    let (mut file, mut parsed) = read_one(input, bytes, how, defer);
    // Read before the text is let go of.
    let scripts = match file.kind {
        FileKind::Terraform => scripts::named_in(file.text()),
        _ => Vec::new(),
    };
    let template = is_template(&file, &parsed);
    if template {
        parsed = Parsed::skipped();
    }
    let Syntax::Yaml(docs) = &parsed.syntax else {
        // A deferred file is read again when lowering parses it.
        if how.unload && matches!(parsed.syntax, Syntax::Deferred(_)) {
            file.unload();
        }
        return Loaded {
            file,
            parsed,
            lowered: None,
            directives: None,
            template,
            scripts,
        };
    };
    let lowered = lower::lower_yaml(id, &file, docs, how.limits);
    let directives = if file.requested {
        suppress::directives(id, &file, &parsed)
    } else {
        Vec::new()
    };
    parsed.syntax = Syntax::None;
    // A file that holds nothing gpulint checks, nothing broken and no suppression can
    // carry no finding: its text is not kept. In a large run no YAML text is: it is read
    // again if a finding lands in it.
    if how.unload
        || (lowered.is_empty()
            && directives.is_empty()
            && parsed.error.is_none()
            && parsed.limits.is_empty())
    {
        file.unload();
    }
    Loaded {
        file,
        parsed,
        lowered: Some(Box::new(lowered)),
        directives: Some(directives),
        template,
        scripts,
    }
}

/// Reads, decodes and parses one file.
fn read_one(
    input: Input,
    bytes: Option<Vec<u8>>,
    how: &Reading,
    defer: bool,
) -> (SourceFile, Parsed) {
    let cap = how.cap;
    let mut stamp = None;
    let read = match (bytes, &input.path) {
        // Stdin stops being read one byte over the cap: its size is not known.
        (Some(b), _) if b.len() as u64 > cap => Err(crate::bounded::too_large(None, cap)),
        (Some(b), _) => Ok(b),
        (None, Some(p)) => read_capped(p, cap).map(|(b, s)| {
            stamp = Some(s);
            b
        }),
        (None, None) => Ok(Vec::new()),
    };
    // Text, and what stopped it from being parsed: not read, or not text.
    let (text, stopped) = match read {
        Ok(bytes) => {
            let (text, problem) = parse::decode(&bytes, input.kind);
            (text, problem.map(Parsed::failed))
        }
        Err(why) => (Arc::from(""), Some(Parsed::unread(why))),
    };
    let mut file = SourceFile::new(input.name, input.path, input.kind, text, input.requested);
    // A file that could not be read or decoded is never read again.
    file.stamp = stamp.filter(|_| stopped.is_none());
    let parsed = stopped.unwrap_or_else(|| {
        if defer {
            parse_held(&file, how.limits)
        } else {
            parse::parse_with(&file, how.limits)
        }
    });
    (file, parsed)
}

/// Whether HCL text may hold a `module` block: `module` then a blank, a quote or a brace,
/// first on its line after blanks (or after a `/* … */` comment, to be safe). A block's
/// type and labels share its first line in HCL, so a file without such a line calls no
/// module; references (`module.vpc.id`) and `#` comments do not count. This spares
/// parsing most Terraform files twice: on 59 public repositories 1,149 `.tf` files say
/// `module`, 441 have such a line.
fn may_call_module(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, b"module").any(|at| {
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |n| n + 1);
        let before = bytes[start..at].trim_ascii_end();
        (before.is_empty() || before.ends_with(b"*/"))
            && matches!(bytes.get(at + 6), Some(b' ' | b'\t' | b'"' | b'{'))
    })
}

/// Parses a file as the run holds it. A Terraform `.tf` or `.tfvars` file is not held as
/// a tree ([`Syntax::Deferred`]): lowering parses it when it judges the root module that
/// needs it and drops the tree after. Only a `.tf` file that may call a module (a line of
/// it starts with `module`, see [`may_call_module`]) is parsed here, for its calls'
/// sources, which decide the roots; its tree is dropped too.
fn parse_held(file: &SourceFile, limits: &Limits) -> Parsed {
    let json = file.name.to_ascii_lowercase().ends_with(".json");
    let deferred = || Parsed {
        syntax: Syntax::Deferred(Vec::new()),
        ..Parsed::skipped()
    };
    match file.kind {
        FileKind::TfVars => return deferred(),
        FileKind::Terraform if !json => {}
        _ => return parse::parse_with(file, limits),
    }
    if !may_call_module(file.text()) {
        return deferred();
    }
    let parsed = parse::parse_with(file, limits);
    let Syntax::Hcl(body) = &parsed.syntax else {
        return parsed;
    };
    let sources = lower::module_sources(body).map(str::to_string).collect();
    Parsed {
        syntax: Syntax::Deferred(sources),
        ..parsed
    }
}

/// The largest file a run reads: `max_file_size`, at most what a span can point into (a
/// larger file is reported as too large, as any file over the cap).
fn file_cap(config: &crate::config::Config) -> u64 {
    config
        .max_file_size
        .unwrap_or(MAX_FILE_SIZE)
        .min(crate::model::MAX_OFFSET)
}

/// Reads a regular file of at most `cap` bytes. A FIFO or device is not opened (opening
/// a FIFO waits for a writer); a file that grows past the cap while read is refused.
fn read_capped(path: &std::path::Path, cap: u64) -> Result<(Vec<u8>, Stamp), String> {
    use std::io::Read as _;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    let stamp = Stamp {
        bytes: meta.len(),
        modified: meta.modified().ok(),
    };
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > cap {
        return Err(crate::bounded::too_large(Some(meta.len()), cap));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > cap {
        return Err(crate::bounded::too_large(None, cap));
    }
    Ok((bytes, stamp))
}

/// The text of an unloaded file, read again as it was first read. A file whose size or
/// modification time changed is refused: its spans may no longer fit it.
fn reread(file: &SourceFile) -> Result<Arc<str>, String> {
    let changed = || format!("`{}` changed while gpulint read it; run again", file.name);
    let (Some(path), Some(stamp)) = (file.path(), file.stamp) else {
        return Err(changed());
    };
    let (bytes, now) = read_capped(path, stamp.bytes).map_err(|_| changed())?;
    if now != stamp {
        return Err(changed());
    }
    let (text, _) = parse::decode(&bytes, file.kind);
    if text.len() != file.len() {
        return Err(changed());
    }
    Ok(text)
}

/// Reads again the unloaded files among `ids`, in parallel, for their findings.
fn reload(db: &mut SourceDb, ids: impl IntoIterator<Item = FileId>) -> Result<(), String> {
    let mut ids: Vec<FileId> = ids
        .into_iter()
        .filter(|&id| !db.get(id).is_loaded())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let texts = {
        let db = &*db;
        par_map(ids.clone(), |_, id| reread(db.get(id)))
    };
    for (id, text) in ids.into_iter().zip(texts) {
        db.get_mut(id).restore(text?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_block_is_found_by_its_first_line() {
        for calls in [
            "module \"vpc\" {\n  source = \"./vpc\"\n}\n",
            "locals {}\n\n  module vpc {\n}\n",
            "/* network */ module \"vpc\" {\n}\n",
            "module\t\"vpc\" {}\r\n",
        ] {
            assert!(may_call_module(calls), "{calls:?}");
        }
        for none in [
            "output \"id\" { value = module.vpc.id }\n",
            "# module \"vpc\" is gone\n",
            "resource \"x\" \"y\" { modules = 1 }\n",
            "variable \"module\" {}\n",
        ] {
            assert!(!may_call_module(none), "{none:?}");
        }
    }

    #[test]
    fn a_file_is_read_again_only_as_it_was_read() {
        let dir = std::env::temp_dir().join(format!("gpulint-reread-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.yaml");
        std::fs::write(&path, "kind: Pod\n").unwrap();
        let how = Reading {
            cwd: None,
            cap: MAX_FILE_SIZE,
            limits: &Limits::default(),
            follow: false,
            defer: false,
            unload: true,
            var_files: &[],
        };
        let input = Input {
            name: "a.yaml".into(),
            path: Some(path.clone()),
            kind: FileKind::Yaml,
            requested: true,
        };
        let mut db = SourceDb::default();
        let id = db.add(read_one(input, None, &how, false).0);
        db.get_mut(id).unload();
        assert!(!db.get(id).is_loaded());
        reload(&mut db, [id]).unwrap();
        assert_eq!(db.get(id).text(), "kind: Pod\n");
        assert_eq!(db.get(id).line_col(6), (1, 7));

        // Changed since: its spans may not fit it any more, so the run stops.
        db.get_mut(id).unload();
        std::fs::write(&path, "kind: Deployment\n").unwrap();
        let err = reload(&mut db, [id]).unwrap_err();
        assert!(
            err.contains("`a.yaml` changed while gpulint read it"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
