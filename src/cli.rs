//! The command line: arguments and dispatch only. The work happens in [`crate::lint`].
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::baseline::Baseline;
use crate::config::Config;
use crate::finding::Severity;
use crate::fit::engine::EngineKind;
use crate::fit::plan::Query;
use crate::fit::{Accounting, Attention, Method, Optimizer, Precision, Recompute};
use crate::lint::{Options, lint};
use crate::report;
use crate::report::escape::escape;
use crate::rules::{RULES, rule};

#[derive(Parser, Debug)]
#[command(
    name = "gpulint",
    version,
    about = "A linter for GPU infrastructure: Terraform and Kubernetes"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Lint files and folders (default: the current folder). `-` reads stdin.
    Check(CheckArgs),
    /// Print a rule's documentation.
    Explain {
        /// The rule id, e.g. missing-auto-shutdown.
        rule: String,
    },
    /// List every rule.
    Rules {
        #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
        format: RulesFormat,
    },
    /// Does a model fit, and where? Memory for inference or training.
    Fit(Box<FitArgs>),
    /// Print the inventory the rules read: capacity, workloads, roles with their evidence,
    /// links and unknowns (default: the current folder). `-` reads stdin.
    Inspect(InspectArgs),
    /// Price the GPU capacity the files write, at its minimum, desired and maximum size
    /// (on-demand list prices from the catalog's dated snapshot; default: the current
    /// folder). `-` reads stdin.
    Cost(InspectArgs),
    /// List or look up GPUs and instance types.
    Catalog {
        /// A GPU or instance type name, or part of one (case-insensitive).
        query: Option<String>,
        #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
        format: OutputFormat,
    },
    /// Write a commented `.gpulint.toml` with every option at its default (never over an
    /// existing one).
    Init {
        /// The folder to write it in.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Print a shell completion script: `gpulint completions bash > ~/.local/share/bash-completion/completions/gpulint`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Human,
    Json,
}

#[derive(clap::Args, Debug)]
#[allow(clippy::struct_excessive_bools)]
pub struct FitArgs {
    /// A model name: a Hugging Face id or a variant (`meta-llama/Llama-3.1-70B-Instruct`).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Parameters instead of a model: `70B`, `7.5e9`.
    #[arg(long, value_name = "N")]
    pub params: Option<String>,
    /// Weight precision (default: what the name says, else the checkpoint's dtype).
    #[arg(long, value_enum)]
    pub precision: Option<Precision>,
    /// KV cache precision (default: the model's 16-bit dtype, as vLLM's `auto`).
    #[arg(long, value_enum)]
    pub kv_precision: Option<Precision>,
    /// Tokens per sequence (default for inference: the model's maximum context).
    #[arg(long, value_name = "TOKENS")]
    pub context: Option<u64>,
    /// Sequences at once (inference) or micro-batch size (training); default 1.
    #[arg(long, value_name = "N")]
    pub batch: Option<u64>,
    /// Estimate training instead of inference.
    #[arg(long)]
    pub training: bool,
    #[arg(long, value_enum, requires = "training")]
    pub optimizer: Option<Optimizer>,
    /// ZeRO stage 0-3 across the data-parallel GPUs (FSDP FULL_SHARD = 3).
    #[arg(long, value_name = "STAGE", requires = "training")]
    pub zero: Option<u8>,
    /// Full fine-tuning, LoRA or QLoRA.
    #[arg(long, value_enum, requires = "training")]
    pub method: Option<Method>,
    /// LoRA rank on the query and value projections (default 8).
    #[arg(long, value_name = "R", requires = "training")]
    pub lora_rank: Option<u32>,
    /// Activation recomputation.
    #[arg(long, value_enum, requires = "training")]
    pub recompute: Option<Recompute>,
    /// Attention kernels: fused (FlashAttention, SDPA; the default) or eager, which holds
    /// the attention scores.
    #[arg(long, value_enum, requires = "training")]
    pub attention: Option<Attention>,
    /// ZeRO-3 model states as the ZeRO paper counts them, or as DeepSpeed's own estimator
    /// does (18 bytes per parameter plus the largest layer).
    #[arg(long, value_enum, requires = "training")]
    pub accounting: Option<Accounting>,
    /// The inference server whose start-up to model (default vllm; none: weights, KV cache
    /// and the CUDA context only).
    #[arg(long, value_enum, conflicts_with = "training")]
    pub engine: Option<EngineKind>,
    /// Tokens of the engine's largest forward pass (vLLM `--max-num-batched-tokens`, TGI
    /// `--max-batch-prefill-tokens`, SGLang `--chunked-prefill-size`; default: the engine's).
    #[arg(long, value_name = "TOKENS", conflicts_with = "training")]
    pub max_num_batched_tokens: Option<u64>,
    /// Sequences the engine samples at once (vLLM `--max-num-seqs`; default: the engine's).
    #[arg(long, value_name = "N", conflicts_with = "training")]
    pub max_num_seqs: Option<u64>,
    /// No CUDA graphs (vLLM `--enforce-eager`).
    #[arg(long, conflicts_with = "training")]
    pub enforce_eager: bool,
    /// GPUs in the job (with --gpu; an instance type implies its count).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub gpus: Option<u32>,
    /// Tensor parallel size (default: all GPUs for inference, 1 for training).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub tp: Option<u32>,
    /// Pipeline parallel size (default 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub pp: Option<u32>,
    /// Check against this GPU model (`h100`, `nvidia-l4`, `NVIDIA-A100-SXM4-80GB`).
    #[arg(long, value_name = "MODEL")]
    pub gpu: Option<String>,
    /// Check against this instance type (`p5.48xlarge`, `a3-highgpu-8g`, `g6.xlarge`).
    #[arg(long, value_name = "TYPE")]
    pub instance: Option<String>,
    /// Share of each GPU's memory the engine budgets (default: the engine's, vLLM 0.9;
    /// training 1.0).
    #[arg(long, value_name = "FRACTION")]
    pub gpu_memory_utilization: Option<f64>,
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
}

/// What a run reads: the options `check` and `inspect` share.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Files and folders to read; `-` for stdin.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// The name to report stdin under; its extension decides how it is read (default YAML).
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,
    /// A Terraform variables file, applied after each module's own tfvars (repeatable).
    #[arg(long, value_name = "FILE")]
    pub var_file: Vec<PathBuf>,
    /// The configuration file (default: the nearest `.gpulint.toml` from here upward).
    #[arg(short, long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Read links found in a folder that lead outside it (by default they are skipped with
    /// a note, so a link to a secret cannot print it into a log).
    #[arg(long)]
    pub follow_external_links: bool,
    /// Read what `.gitignore`, `.ignore` and git's excludes leave out of folder walks.
    #[arg(long)]
    pub no_ignore: bool,
}

impl InputArgs {
    /// The run's options, with its configuration loaded and installed.
    fn options(&self) -> Result<Options, String> {
        let cwd = std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?;
        let opts = Options {
            paths: self.paths.clone(),
            stdin_filename: self.stdin_filename.clone(),
            var_files: self.var_file.clone(),
            follow_external_links: self.follow_external_links,
            no_ignore: self.no_ignore,
            config: Config::load(self.config.as_deref(), &cwd)?,
            ..Options::default()
        };
        opts.config.install()?;
        Ok(opts)
    }
}

#[derive(clap::Args, Debug)]
// Command-line switches are bools.
#[allow(clippy::struct_excessive_bools)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[arg(short, long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Run only these rules or categories (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Vec<String>,
    /// Skip these rules or categories (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,
    /// Exit with 1 when a finding is at or above this severity [default: the config's
    /// `fail_on`, else warning].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    #[command(flatten)]
    pub color: ColorArgs,
    /// Print the findings and nothing else: no notes on stderr, no summary line.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print how many findings each rule made instead of the findings (JSON with
    /// `--format json`).
    #[arg(long)]
    pub statistics: bool,
    /// Exit 0 even when there are findings (2 still means the run failed).
    #[arg(long)]
    pub exit_zero: bool,
    /// Also write the report in FORMAT to FILE, from the same run (repeatable), e.g.
    /// `--report sarif=gpulint.sarif --report markdown=$GITHUB_STEP_SUMMARY`.
    #[arg(long, value_name = "FORMAT=FILE", value_parser = parse_report)]
    pub report: Vec<(Format, PathBuf)>,
    /// Print the files a run would lint, one a line, and stop.
    #[arg(long)]
    pub show_files: bool,
    /// Print the settings a run would use, each with where it came from, and stop.
    #[arg(long)]
    pub show_settings: bool,
    /// Hide the findings recorded in this baseline; new ones still fail.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record this run's findings as a baseline, then report only what it cannot hide.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// A Rego policy file, or a folder whose `.rego` files (subfolders too) are all read,
    /// run over the inventory `gpulint inspect --format json` prints; adds to the config's
    /// `[policies] paths` (repeatable).
    #[arg(long, value_name = "PATH")]
    pub policy: Vec<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub color: ColorArgs,
}

/// When to colour: `--color`, and `--no-color` as its short form for `never`.
#[derive(clap::Args, Debug)]
pub struct ColorArgs {
    /// Colour the output: `auto` on a terminal unless NO_COLOR is set (FORCE_COLOR colours
    /// a pipe too).
    #[arg(long, value_enum, default_value_t = When::Auto, value_name = "WHEN")]
    pub color: When,
    /// Never colour the output: `--color never`.
    #[arg(long)]
    pub no_color: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum When {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Compact,
    Json,
    Sarif,
    Github,
    Junit,
    /// A summary table for a pull request or `$GITHUB_STEP_SUMMARY`.
    Markdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
    Markdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
}

impl From<FailOn> for Severity {
    fn from(f: FailOn) -> Self {
        match f {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
}

/// Exit codes (DESIGN.md): 0 clean, 1 findings at or above `--fail-on`, 2 the run failed.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            note(&format!("error: {message}"));
            ExitCode::from(2)
        }
    }
}

/// `fit` and `catalog` read the nearest config for its private instance types and models.
fn install_nearest_config() -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?;
    Config::load(None, &cwd)?.install()
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    if matches!(cli.command, Command::Fit(_) | Command::Catalog { .. }) {
        install_nearest_config()?;
    }
    match cli.command {
        Command::Check(args) => check(&args),
        Command::Explain { rule: id } => {
            let entry = rule(&id).ok_or_else(|| {
                format!(
                    "unknown rule `{id}`{} (see `gpulint rules`)",
                    crate::rules::suggestion(&id)
                )
            })?;
            out(entry.doc);
            Ok(ExitCode::SUCCESS)
        }
        Command::Rules { format } => {
            out(&rules_listing(format));
            Ok(ExitCode::SUCCESS)
        }
        Command::Fit(args) => fit(&args),
        Command::Inspect(args) => inspect(&args),
        Command::Cost(args) => cost(&args),
        Command::Init { dir } => init(&dir),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "gpulint", &mut script);
            out(&String::from_utf8_lossy(&script));
            Ok(ExitCode::SUCCESS)
        }
        Command::Catalog { query, format } => {
            let listing = match format {
                OutputFormat::Human => report::catalog::human(query.as_deref()),
                OutputFormat::Json => report::catalog::json(query.as_deref()),
            };
            match listing {
                Some(text) => {
                    out(&text);
                    Ok(ExitCode::SUCCESS)
                }
                None => Err(format!(
                    "nothing in the catalog matches `{}`",
                    query.unwrap_or_default()
                )),
            }
        }
    }
}

/// `gpulint init`: the commented defaults, written only where no config is.
fn init(dir: &std::path::Path) -> Result<ExitCode, String> {
    let path = dir.join(crate::config::FILE_NAME);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| f.write_all(crate::config::template().as_bytes()));
    match written {
        Ok(()) => {
            note(&format!(
                "wrote `{}`: every option at its default",
                path.display()
            ));
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(format!(
            "`{}` exists: refusing to overwrite it (edit it, or remove it first)",
            path.display()
        )),
        Err(e) => Err(format!("cannot write `{}`: {e}", path.display())),
    }
}

fn fit(a: &FitArgs) -> Result<ExitCode, String> {
    let plan = crate::fit::plan::plan(&Query {
        model: a.model.clone(),
        params: a.params.clone(),
        precision: a.precision,
        kv_precision: a.kv_precision,
        context: a.context,
        batch: a.batch,
        training: a.training,
        optimizer: a.optimizer,
        zero: a.zero,
        method: a.method,
        lora_rank: a.lora_rank,
        recompute: a.recompute,
        attention: a.attention,
        accounting: a.accounting,
        engine: a.engine,
        max_num_batched_tokens: a.max_num_batched_tokens,
        max_num_seqs: a.max_num_seqs,
        enforce_eager: a.enforce_eager,
        gpus: a.gpus,
        tp: a.tp,
        pp: a.pp,
        gpu: a.gpu.clone(),
        instance: a.instance.clone(),
        utilization: a.gpu_memory_utilization,
    })?;
    // On a lower bound only "does not fit" is certain: never answer "fits" on it.
    let estimate = plan.estimate();
    if estimate.lower_bound
        && plan
            .verdict()
            .is_none_or(|(_, v)| v.verdict != crate::fit::Fit::DoesNotFit)
    {
        return Err(format!(
            "cannot tell whether it fits: {} (the frozen weights alone, {} in all, fit)",
            estimate
                .notes
                .last()
                .map_or("the estimate is incomplete", String::as_str),
            crate::fit::human_bytes(estimate.total.total_bytes),
        ));
    }
    out(&match a.format {
        OutputFormat::Human => report::fit::human(&plan),
        OutputFormat::Json => report::fit::json(&plan),
    });
    // Against given GPUs, `fit` is an assertion: 1 when the job does not fit.
    let fits = plan.verdict().is_none_or(|(_, v)| v.fits);
    Ok(if fits {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn check(args: &CheckArgs) -> Result<ExitCode, String> {
    if args.statistics {
        statistics_format(args.format)?;
    }
    let opts = Options {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        policies: args.policy.clone(),
        ..args.input.options()?
    };
    // Read before linting, so a bad baseline fails fast.
    let cap = opts
        .config
        .max_file_size
        .unwrap_or(crate::limits::MAX_FILE_SIZE);
    let baseline = args
        .baseline
        .as_deref()
        .map(|p| Baseline::load(p, cap))
        .transpose()?;
    if args.show_settings {
        out(&show_settings(args, &opts));
        return Ok(ExitCode::SUCCESS);
    }
    if args.show_files {
        let found = opts.discover()?;
        let mut text = String::new();
        for input in found.inputs.iter().filter(|i| i.requested) {
            let _ = writeln!(text, "{}", escape(&input.name));
        }
        out(&text);
        return Ok(ExitCode::SUCCESS);
    }
    let mut outcome = lint(&opts, std::io::stdin().lock())?;
    let mut targets = vec![
        ("--output", args.output.as_deref()),
        ("--write-baseline", args.write_baseline.as_deref()),
    ];
    targets.extend(
        args.report
            .iter()
            .map(|(_, p)| ("--report", Some(p.as_path()))),
    );
    crate::overwrite::refuse(
        &targets,
        args.baseline.as_deref(),
        &outcome.db,
        opts.config.path.as_deref(),
        &crate::overwrite::read_elsewhere(&opts),
    )?;
    if let Some(path) = &args.write_baseline {
        let (written, n) = Baseline::write(&outcome, path)?;
        outcome.notes.push(format!(
            "recorded {} in the baseline `{}`",
            report::plural(n, "finding"),
            path.display()
        ));
        written.apply(&mut outcome);
    }
    if let (Some(b), Some(path)) = (&baseline, &args.baseline) {
        let hidden = b.apply(&mut outcome);
        if hidden > 0 {
            outcome.notes.push(format!(
                "{} hidden by the baseline `{}`",
                report::plural(hidden, "finding"),
                path.display()
            ));
        }
    }
    if !args.quiet {
        for line in &outcome.notes {
            note(line);
        }
    }
    let text = if args.statistics {
        statistics(&outcome, args.format)
    } else {
        render(&outcome, args.format, args, args.output.as_deref())
    };
    write_report(args.output.as_deref(), &text)?;
    for (format, path) in &args.report {
        write_report(Some(path), &render(&outcome, *format, args, Some(path)))?;
    }
    let threshold = args
        .fail_on
        .map(Severity::from)
        .or(opts.config.fail_on)
        .unwrap_or(Severity::Warning);
    let failed = outcome.findings.iter().any(|f| f.severity >= threshold);
    Ok(if failed && !args.exit_zero {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The report of a run in `format`, for `output` (stdout when `None`).
fn render(
    outcome: &crate::lint::Outcome,
    format: Format,
    args: &CheckArgs,
    output: Option<&std::path::Path>,
) -> String {
    match format {
        Format::Human => report::human::render(
            outcome,
            &report::human::Style {
                color: color(output, &args.color),
                width: width(output),
                summary: !args.quiet,
            },
        ),
        Format::Compact => report::compact::render(outcome),
        Format::Json => report::json::render(outcome),
        Format::Sarif => report::sarif::render(outcome),
        Format::Github => report::github::render(outcome),
        Format::Junit => report::junit::render(outcome),
        Format::Markdown => report::markdown::render(outcome),
    }
}

/// `--report FORMAT=FILE`.
fn parse_report(s: &str) -> Result<(Format, PathBuf), String> {
    let (format, file) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not FORMAT=FILE (e.g. sarif=gpulint.sarif)"))?;
    let format = Format::from_str(format, true).map_err(|_| {
        let names: Vec<String> = Format::value_variants()
            .iter()
            .filter_map(|v| Some(v.to_possible_value()?.get_name().to_string()))
            .collect();
        format!("unknown format `{format}` (one of {})", names.join(", "))
    })?;
    if file.is_empty() {
        return Err(format!("`{s}` names no file"));
    }
    Ok((format, PathBuf::from(file)))
}

/// `--show-settings`: every setting of the run as TOML-like lines, each commented with
/// where its value came from (the command line, the config file, or the default).
fn show_settings(args: &CheckArgs, opts: &Options) -> String {
    let config = &opts.config;
    let file = config
        .path
        .as_ref()
        .map_or_else(|| "none".to_string(), |p| format!("`{}`", p.display()));
    let from_file = config.path.as_ref().map_or_else(String::new, |p| {
        escape(&p.display().to_string()).into_owned()
    });
    let mut s = format!("# config file: {}\n", escape(&file));
    let mut line = |key: &str, value: String, source: &str| {
        let setting = format!("{key} = {value}");
        let _ = writeln!(s, "{setting:<40} # {source}");
    };
    let pick = |cli: bool, set: bool| {
        if cli {
            "command line"
        } else if set {
            from_file.as_str()
        } else {
            "default"
        }
    };
    let list = |v: &[String]| {
        let quoted: Vec<String> = v.iter().map(|x| format!("{:?}", escape(x))).collect();
        format!("[{}]", quoted.join(", "))
    };
    let fail_on = args
        .fail_on
        .map(Severity::from)
        .or(config.fail_on)
        .unwrap_or(Severity::Warning);
    line(
        "fail_on",
        format!("\"{fail_on}\""),
        pick(args.fail_on.is_some(), config.fail_on.is_some()),
    );
    let select = if opts.select.is_empty() {
        &config.select
    } else {
        &opts.select
    };
    line(
        "select",
        list(select),
        pick(!opts.select.is_empty(), !config.select.is_empty()),
    );
    let ignore: Vec<String> = config.ignore.iter().chain(&opts.ignore).cloned().collect();
    line(
        "ignore",
        list(&ignore),
        pick(!opts.ignore.is_empty(), !config.ignore.is_empty()),
    );
    let exclude = config
        .exclude
        .as_ref()
        .map_or_else(Vec::new, |e| e.patterns.clone());
    line(
        "exclude",
        list(&exclude),
        pick(false, config.exclude.is_some()),
    );
    line(
        "max_file_size",
        (config.max_file_size.unwrap_or(crate::limits::MAX_FILE_SIZE) >> 20).to_string(),
        pick(false, config.max_file_size.is_some()),
    );
    line(
        "follow_external_links",
        opts.follows_external_links().to_string(),
        pick(opts.follow_external_links, config.follow_external_links),
    );
    line(
        "respect_gitignore",
        (!opts.no_ignore).to_string(),
        pick(opts.no_ignore, false),
    );
    line(
        "docs_url",
        format!("{:?}", crate::rules::doc_url("{rule}")),
        pick(false, config.docs_url.is_some()),
    );
    let policies: Vec<String> = opts
        .policy_paths()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let source = match (args.policy.is_empty(), config.policies.is_empty()) {
        (false, false) => format!("{from_file}, then command line"),
        (false, true) => "command line".to_string(),
        (true, false) => from_file.clone(),
        (true, true) => "default".to_string(),
    };
    line("policies.paths", list(&policies), &source);
    for limit in crate::limits::Limit::ALL {
        let value = config.limits.get(limit);
        line(
            &format!("limits.{}", limit.key()),
            value.to_string(),
            pick(false, value != limit.default_value()),
        );
    }
    for (id, severity) in &config.severity {
        line(
            &format!("rules.{id}.severity"),
            format!("\"{severity}\""),
            &from_file,
        );
    }
    for (id, table) in &config.rules {
        for (key, value) in table {
            line(&format!("rules.{id}.{key}"), value.to_string(), &from_file);
        }
    }
    if let Some(p) = &config.per_file_ignores {
        for (glob, rules) in p.entries() {
            let rules: Vec<String> = rules.iter().map(ToString::to_string).collect();
            line(
                &format!("per-file-ignores.{:?}", escape(glob)),
                list(&rules),
                &from_file,
            );
        }
    }
    s
}

/// `--statistics` in `format` ([`statistics_format`] refused the others): text, or JSON.
fn statistics(outcome: &crate::lint::Outcome, format: Format) -> String {
    match format {
        Format::Json => report::statistics::json(outcome),
        _ => report::statistics::text(outcome),
    }
}

/// `--statistics` prints text or JSON: any other format is refused before the run.
fn statistics_format(format: Format) -> Result<(), String> {
    match format {
        Format::Human | Format::Compact | Format::Json => Ok(()),
        Format::Sarif | Format::Github | Format::Junit | Format::Markdown => Err(format!(
            "`--statistics` prints text or JSON: use it with `--format human`, `compact` or \
             `json`, not `{}`",
            format
                .to_possible_value()
                .map_or_else(String::new, |v| v.get_name().to_string())
        )),
    }
}

/// What `inspect` and `cost` read: the inventory of the paths, its notes on stderr, and
/// `--output` refused where it would overwrite an input or the config.
fn read_inventory(args: &InspectArgs) -> Result<crate::lint::Inspection, String> {
    let opts = args.input.options()?;
    let inspection = crate::lint::inspect(&opts, std::io::stdin().lock())?;
    crate::overwrite::refuse(
        &[("--output", args.output.as_deref())],
        None,
        &inspection.db,
        opts.config.path.as_deref(),
        &crate::overwrite::read_elsewhere(&opts),
    )?;
    for line in &inspection.notes {
        note(line);
    }
    Ok(inspection)
}

/// `gpulint inspect`: the inventory, never a gate (0 unless the run itself fails).
fn inspect(args: &InspectArgs) -> Result<ExitCode, String> {
    let inspection = read_inventory(args)?;
    let view = crate::inspect::View::new(&inspection.db, &inspection.inventory);
    let text = match args.format {
        OutputFormat::Human => {
            let files = inspection.db.iter().filter(|(_, f)| f.requested).count();
            let style = report::inspect::Style {
                color: color(args.output.as_deref(), &args.color),
            };
            report::inspect::human(&view, files, &style)
        }
        OutputFormat::Json => report::inspect::json(&view),
    };
    write_report(args.output.as_deref(), &text)?;
    Ok(ExitCode::SUCCESS)
}

fn cost(args: &InspectArgs) -> Result<ExitCode, String> {
    let inspection = read_inventory(args)?;
    // What the named files write: a file named alone brings its module in as context,
    // whose other resources are not what was asked about.
    let priced = crate::cost::price(&inspection.inventory, |file| {
        inspection.db.get(file).requested
    });
    let text = match args.format {
        OutputFormat::Human => report::cost::text(&inspection.db, &priced),
        OutputFormat::Json => report::cost::json(&inspection.db, &priced),
    };
    write_report(args.output.as_deref(), &text)?;
    Ok(ExitCode::SUCCESS)
}

/// Whether to colour a report. `--color always` and `never` (or `--no-color`) decide;
/// `auto` colours a terminal, never a file, and follows the NO_COLOR and FORCE_COLOR
/// conventions (https://no-color.org, https://force-color.org) and `CLICOLOR_FORCE`, and
/// a `TERM=dumb` terminal gets none (`anstyle-query`, which clap already uses).
fn color(output: Option<&std::path::Path>, args: &ColorArgs) -> bool {
    match (args.no_color, args.color) {
        (true, _) | (false, When::Never) => false,
        (false, When::Always) => true,
        (false, When::Auto) => {
            let forced = anstyle_query::clicolor_force()
                || std::env::var_os("FORCE_COLOR").is_some_and(|v| !v.is_empty());
            output.is_none()
                && !anstyle_query::no_color()
                && (forced
                    || std::io::stdout().is_terminal() && anstyle_query::term_supports_color())
        }
    }
}

/// The human report's width: the terminal's, else `COLUMNS`, else 100 (a file, a pipe, a
/// CI log). Never under 40 columns.
fn width(output: Option<&std::path::Path>) -> usize {
    let terminal = output
        .is_none()
        .then(|| terminal_size::terminal_size_of(std::io::stdout()))
        .flatten()
        .map(|(terminal_size::Width(w), _)| usize::from(w));
    let columns = || {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
    };
    terminal.or_else(columns).unwrap_or(100).max(40)
}

/// Writes a report to `--output` or stdout.
fn write_report(output: Option<&std::path::Path>, text: &str) -> Result<(), String> {
    match output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display())),
        None => {
            // A closed pipe (`gpulint check | head`) is not an error of the run.
            out(text);
            Ok(())
        }
    }
}

/// Writes to stdout. A closed pipe (`gpulint rules | head`) is not an error of the run.
fn out(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Writes a line to stderr, prefixed `gpulint: `. An unwritable stderr (`2>/dev/full`, a
/// closed pipe) loses the note, never the report or the exit code. It is escaped, so a
/// file name cannot forge a line in a terminal or CI log.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "gpulint: {}", escape(line));
}

/// `gpulint rules` in each format. The markdown form is the README's rule table.
pub fn rules_listing(format: RulesFormat) -> String {
    match format {
        RulesFormat::Text => {
            let width = RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
            let mut s = String::new();
            for r in RULES {
                let _ = writeln!(
                    s,
                    "{:width$}  {:7}  {:11}  {}",
                    r.id,
                    r.meta.severity.as_str(),
                    r.meta.category.as_str(),
                    r.meta.summary
                );
            }
            s
        }
        RulesFormat::Json => {
            let rules: Vec<_> = RULES
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "id": r.id,
                        "severity": r.meta.severity,
                        "category": r.meta.category,
                        "summary": r.meta.summary,
                    })
                })
                .collect();
            let mut s = serde_json::to_string_pretty(&serde_json::json!({ "rules": rules }))
                .expect("plain data serializes");
            s.push('\n');
            s
        }
        RulesFormat::Markdown => {
            let mut s = String::from("| Rule | Severity | Category | Flags |\n|---|---|---|---|\n");
            for r in RULES {
                let _ = writeln!(
                    s,
                    "| [`{id}`](rules/{id}.md) | {} | {} | {} |",
                    r.meta.severity.as_str(),
                    r.meta.category.as_str(),
                    r.meta.summary,
                    id = r.id
                );
            }
            s
        }
    }
}
