//! The pipeline, in order: discover → parse → lower → rules → filter. The CLI and the
//! tests both call [`lint`], so the CLI stays thin.

use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::discover::{Input, discover};
use crate::finding::Finding;
use crate::parse::{self, Parsed, Syntax, SyntaxError};
use crate::source::{FileId, FileKind, SourceDb, SourceFile};
use crate::{filter, lower, rules};

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    pub stdin_filename: Option<String>,
    pub var_files: Vec<PathBuf>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// `.gpulint.toml`, loaded by the caller.
    pub config: crate::config::Config,
}

/// The result of a run.
#[derive(Debug)]
pub struct Outcome {
    pub db: SourceDb,
    pub findings: Vec<Finding>,
    /// Things skipped on the way, for stderr.
    pub notes: Vec<String>,
}

impl Outcome {
    /// Files the user asked about.
    pub fn files_linted(&self) -> usize {
        self.db.iter().filter(|(_, f)| f.requested).count()
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
pub fn lint(opts: &Options, stdin: impl Read) -> Result<Outcome, String> {
    let config = &opts.config;
    // `--select` replaces the config's selection; `--ignore` adds to its ignores.
    let select = if opts.select.is_empty() {
        &config.select
    } else {
        &opts.select
    };
    let ignore: Vec<String> = config.ignore.iter().chain(&opts.ignore).cloned().collect();
    let selected = filter::select_rules(select, &ignore)?;
    let found = discover(
        &opts.paths,
        opts.stdin_filename.as_deref(),
        config.exclude.as_ref(),
    )?;
    let stdin_bytes = if found.inputs.iter().any(|i| i.path.is_none()) {
        let mut buf = Vec::new();
        let mut stdin = stdin;
        stdin
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Some(buf)
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
    let mut var_files = Vec::new();
    for path in &opts.var_files {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read --var-file `{}`: {e}", path.display()))?;
        let name = crate::discover::display_name(path, cwd.as_deref());
        inputs.push((
            Input {
                name,
                path: Some(path.clone()),
                kind: FileKind::TfVars,
                requested: true,
            },
            Some(bytes),
        ));
        var_files.push(FileId(u32::try_from(inputs.len() - 1).expect("few files")));
    }

    let loaded: Vec<(SourceFile, Parsed)> =
        pool().install(|| inputs.into_par_iter().map(|(i, b)| load(i, b)).collect());
    let mut db = SourceDb::default();
    let mut parsed = Vec::with_capacity(loaded.len());
    for (file, p) in loaded {
        db.add(file);
        parsed.push(p);
    }

    let model = lower::lower(&db, &parsed, &var_files);
    let mut findings = filter::finish(
        &db,
        &parsed,
        &selected,
        rules::run(&model, &selected, config),
    );
    // A configured severity is the user's word, over the rule's own escalations too.
    for f in &mut findings {
        if let Some(&severity) = config.severity.get(f.rule) {
            f.severity = severity;
        }
    }
    Ok(Outcome {
        db,
        findings,
        notes: found.notes,
    })
}

/// Reads, decodes and parses one file. Never fails: problems become syntax errors.
fn load(input: Input, bytes: Option<Vec<u8>>) -> (SourceFile, Parsed) {
    let read = match (bytes, &input.path) {
        (Some(b), _) => Ok(b),
        (None, Some(p)) => std::fs::read(p),
        (None, None) => Ok(Vec::new()),
    };
    let (text, problem) = match read {
        Ok(bytes) => parse::decode(&bytes),
        Err(e) => (
            Arc::from(""),
            Some(SyntaxError {
                offset: 0,
                message: format!("cannot read the file: {e}"),
            }),
        ),
    };
    let file = SourceFile::new(input.name, input.path, input.kind, text, input.requested);
    let parsed = match problem {
        Some(e) => Parsed {
            syntax: Syntax::None,
            error: Some(e),
        },
        None => parse::parse(&file),
    };
    (file, parsed)
}
