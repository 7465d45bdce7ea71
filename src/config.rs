//! Configuration: `.gpulint.toml`, found upward from the working directory, or
//! `--config FILE`. An unknown key is an error with its line, never ignored.
//!
//! ```toml
//! fail_on = "error"                       # the default of --fail-on
//! exclude = ["vendor/**", "charts/*/templates"]
//! max_file_size = 16                      # MiB; a larger file is a parse-error, not read
//! follow_external_links = false           # read links in folders that lead outside them
//! docs_url = "https://mirror.example/gpulint/{rule}.md" # rule links; `{version}` too
//!
//! [limits]                                # raise a limit that real input hits
//! evaluation = 256                        # MiB of Terraform values evaluated, and more
//!
//! [rules]
//! select = ["cost", "missing-shm"]        # rule ids or categories; default: all
//! ignore = ["oversized-inference-gpu"]
//!
//! [rules.stale-generation-reservation]
//! severity = "error"                      # off | info | warning | error
//! threshold = 3
//!
//! [[catalog.instances]]                   # a private instance type
//! provider = "aws"
//! name = "p5e.96xlarge-internal"
//! gpu = "h200"
//! count = 8
//! interconnect = "nvlink"
//! fabric = "efa"
//!
//! [[models]]                              # a private model, in models.toml's fields
//! id = "acme/chat-34b"
//! params = 34e9
//! # layers, hidden, heads, kv_heads, head_dim, vocab, max_context, dtype
//!
//! [policies]                              # Rego policies (`--policy` adds to them)
//! paths = ["policies/"]                   # relative to this file's folder
//!
//! [terraform]                             # var files each root module reads
//! var_files = { "infra/" = ["infra/envs/prod.tfvars"] } # relative to this file's folder
//!
//! [rules."policy/gpulint.team_label/deny"] # a policy's rule: its severity only
//! severity = "warning"
//! ```

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use crate::catalog::InstanceRow;
use crate::exclude::{Exclude, normalize};
use crate::finding::Severity;
use crate::fit::models::ModelSpec;
use crate::limits::{Limit, Limits};
use crate::model::Provider;
use crate::rules::{OptionKind, rule};

pub const FILE_NAME: &str = ".gpulint.toml";

/// The largest configuration file read.
const MAX_CONFIG_SIZE: u64 = 1 << 20;

/// The configuration of a run. `Default` is "no file".
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The file it came from.
    pub path: Option<PathBuf>,
    /// Options per rule id, validated against what each rule declares.
    pub rules: BTreeMap<String, toml::Table>,
    /// `--fail-on` when the command line does not say.
    pub fail_on: Option<Severity>,
    pub exclude: Option<Exclude>,
    /// `[per-file-ignores]`.
    pub per_file_ignores: Option<PerFileIgnores>,
    /// `max_file_size`, in bytes: a larger file is reported, not read.
    pub max_file_size: Option<u64>,
    /// `follow_external_links`: read links found in a folder that lead outside it.
    pub follow_external_links: bool,
    /// `docs_url`: where rule documentation links point, `{rule}` standing for the id.
    pub docs_url: Option<String>,
    /// `[limits]`: the defaults, with what the file sets.
    pub limits: Limits,
    /// `[rules] select`: replaced by `--select`.
    pub select: Vec<String>,
    /// `[rules] ignore`, and the rules whose severity is `off`: `--ignore` adds to it.
    pub ignore: Vec<String>,
    /// Per-rule severities.
    pub severity: BTreeMap<String, Severity>,
    /// `[[catalog.instances]]`, for [`crate::catalog::extend`].
    pub instances: Vec<(Provider, InstanceRow)>,
    /// `[[models]]`, for [`crate::fit::models::extend`].
    pub models: Vec<ModelSpec>,
    /// `[policies] paths`: Rego policy files and folders, relative to the config file's
    /// folder as written (so relative to the working directory, as paths are opened).
    pub policies: Vec<PathBuf>,
    /// `[terraform] var_files`: a folder, and the var files the root modules in it (and
    /// below it) read after their own tfvars, as `--var-file` would; relative to the
    /// config file's folder as written.
    pub var_files: Vec<(PathBuf, Vec<PathBuf>)>,
    /// Where each instance row was written, for errors found when it joins the catalog.
    instance_spans: Vec<Range<usize>>,
    text: String,
}

/// `[per-file-ignores]`: rules silenced for the files that globs (relative to the config
/// file's folder, matched as `exclude` matches) name, as ruff's `per-file-ignores`.
#[derive(Clone, Debug)]
pub struct PerFileIgnores {
    globs: Exclude,
    /// Per glob: as written, the rule ids it silences (categories expanded), and where it
    /// is in the config file (line, column).
    entries: Vec<(String, Vec<&'static str>, (usize, usize))>,
}

impl PerFileIgnores {
    /// Each glob, with the rule ids it silences.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &[&'static str])> {
        self.entries
            .iter()
            .map(|(g, r, _)| (g.as_str(), r.as_slice()))
    }

    /// Drops the findings an entry silences (`parse-error` and `limit-exceeded` are never
    /// silenced); returns, for each entry that silenced nothing although one of its rules
    /// ran, a note that says so.
    pub fn apply(
        &self,
        db: &crate::source::SourceDb,
        cwd: &Path,
        ran: &dyn Fn(&str) -> bool,
        findings: &mut Vec<crate::finding::Finding>,
        config: &Path,
    ) -> Vec<String> {
        let mut used = vec![false; self.entries.len()];
        let mut by_file: std::collections::HashMap<crate::source::FileId, Vec<usize>> =
            std::collections::HashMap::new();
        findings.retain(|f| {
            if crate::rules::is_always_on(f.rule) {
                return true;
            }
            let file = f.primary.file;
            let globs = by_file.entry(file).or_insert_with(|| {
                let name = db.get(file).name.as_str();
                self.globs.matching(Path::new(name), cwd)
            });
            let mut hidden = false;
            for &g in globs.iter() {
                let silences = |r: &&str| {
                    *r == f.rule
                        || (crate::policy::is_policy_name(r) && crate::policy::covers(r, f.rule))
                };
                if self.entries[g].1.iter().any(silences) {
                    used[g] = true;
                    hidden = true;
                }
            }
            !hidden
        });
        self.entries
            .iter()
            .zip(used)
            .filter(|((_, rules, _), used)| !used && rules.iter().any(|r| ran(r)))
            .map(|((glob, _, (line, col)), _)| {
                format!(
                    "{}:{line}:{col}: the `per-file-ignores` entry `{glob}` silenced nothing in this run: remove it, or correct its glob or rules",
                    config.display()
                )
            })
            .collect()
    }
}

/// Rule ids or categories, each where it is written.
type RuleNames = Vec<Spanned<String>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    fail_on: Option<Spanned<String>>,
    exclude: Option<Vec<Spanned<String>>>,
    #[serde(rename = "per-file-ignores", alias = "per_file_ignores")]
    per_file_ignores: Option<BTreeMap<Spanned<String>, Spanned<RuleNames>>>,
    max_file_size: Option<Spanned<toml::Value>>,
    #[serde(default)]
    follow_external_links: bool,
    docs_url: Option<Spanned<String>>,
    #[serde(default)]
    limits: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    rules: BTreeMap<String, Spanned<toml::Value>>,
    catalog: Option<CatalogSection>,
    #[serde(default)]
    models: Vec<Spanned<toml::Table>>,
    policies: Option<PoliciesSection>,
    terraform: Option<TerraformSection>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TerraformSection {
    #[serde(default)]
    var_files: BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PoliciesSection {
    #[serde(default)]
    paths: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogSection {
    #[serde(default)]
    instances: Vec<Spanned<toml::Table>>,
}

impl Config {
    /// Loads `explicit`, else the nearest `.gpulint.toml` from `cwd` upward, else none.
    pub fn load(explicit: Option<&Path>, cwd: &Path) -> Result<Config, String> {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => cwd
                .ancestors()
                .map(|d| d.join(FILE_NAME))
                .find(|p| p.is_file()),
        };
        let Some(path) = path else {
            return Ok(Config::default());
        };
        // Read before `max_file_size` is known: a configuration is small.
        let text = crate::bounded::read_text(
            &path,
            MAX_CONFIG_SIZE,
            "a configuration file is read up to 1 MiB",
        )
        .map_err(|e| format!("cannot read config `{}`: {e}", path.display()))?;
        let mut config = Config::parse(&text, &path)?;
        let dir = path.parent().unwrap_or(Path::new(""));
        if let Some(exclude) = &mut config.exclude {
            exclude.base = normalize(&cwd.join(dir));
        }
        if let Some(p) = &mut config.per_file_ignores {
            p.globs.base = normalize(&cwd.join(dir));
        }
        Ok(config)
    }

    /// Parses and validates a configuration file's text. Exclude globs are relative to the
    /// current folder until [`Config::load`] sets the file's folder.
    pub fn parse(text: &str, path: &Path) -> Result<Config, String> {
        let at = |span: Option<Range<usize>>, message: &str| {
            let (line, col) = span.map_or((1, 1), |s| line_col(text, s.start));
            format!("{}:{line}:{col}: {message}", path.display())
        };
        let file: File =
            toml::from_str(text).map_err(|e| at(e.span(), &with_suggestion(e.message())))?;
        let mut config = Config {
            path: Some(path.to_path_buf()),
            text: text.to_string(),
            ..Config::default()
        };

        if let Some(fail_on) = file.fail_on {
            let severity = fail_on
                .get_ref()
                .parse()
                .map_err(|e: String| at(Some(fail_on.span()), &format!("`fail_on`: {e}")))?;
            config.fail_on = Some(severity);
        }

        if let Some(globs) = file.exclude {
            let mut set = GlobSetBuilder::new();
            for g in &globs {
                let pattern = g.get_ref().trim_end_matches('/');
                let glob = GlobBuilder::new(pattern)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| at(Some(g.span()), &format!("`exclude`: {e}")))?;
                set.add(glob);
            }
            let set = set
                .build()
                .map_err(|e| at(None, &format!("`exclude`: {e}")))?;
            config.exclude = Some(Exclude {
                base: PathBuf::new(),
                set,
                patterns: globs.iter().map(|g| g.get_ref().clone()).collect(),
            });
        }

        if let Some(table) = file.per_file_ignores {
            let mut set = GlobSetBuilder::new();
            let mut entries = Vec::new();
            for (glob, rules) in table {
                let pattern = glob.get_ref().trim_end_matches('/');
                let built = GlobBuilder::new(pattern)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| at(Some(glob.span()), &format!("`per-file-ignores`: {e}")))?;
                set.add(built);
                let mut ids = Vec::new();
                for name in rules.get_ref() {
                    // Policy ids and `policy`, matched as `--ignore` matches them; kept
                    // for the process (one per entry of this small file).
                    if crate::policy::is_policy_name(name.get_ref()) {
                        ids.push(&*Box::leak(
                            name.get_ref().trim().to_owned().into_boxed_str(),
                        ));
                        continue;
                    }
                    let rule = |id: &str| crate::rules::rule(id).map(|r| r.id);
                    let found: Vec<&'static str> = match crate::rules::canonical(name.get_ref()) {
                        Some(c) => match rule(c) {
                            Some(id) => vec![id],
                            None => crate::rules::RULES
                                .iter()
                                .filter(|r| r.meta.category.as_str() == c)
                                .map(|r| r.id)
                                .collect(),
                        },
                        None => {
                            return Err(at(
                                Some(name.span()),
                                &format!(
                                    "unknown rule or category `{}` in `per-file-ignores`{} (see `gpulint rules`)",
                                    name.get_ref(),
                                    crate::rules::suggestion(name.get_ref())
                                ),
                            ));
                        }
                    };
                    ids.extend(found);
                }
                entries.push((
                    glob.get_ref().clone(),
                    ids,
                    line_col(text, glob.span().start),
                ));
            }
            let set = set
                .build()
                .map_err(|e| at(None, &format!("`per-file-ignores`: {e}")))?;
            config.per_file_ignores = Some(PerFileIgnores {
                globs: Exclude {
                    base: PathBuf::new(),
                    set,
                    patterns: entries.iter().map(|(g, _, _)| g.clone()).collect(),
                },
                entries,
            });
        }

        if let Some(size) = file.max_file_size {
            let mib = size
                .get_ref()
                .as_integer()
                .and_then(|n| u64::try_from(n).ok())
                .filter(|&n| (1..=1 << 20).contains(&n))
                .ok_or_else(|| {
                    at(
                        Some(size.span()),
                        "`max_file_size` must be a whole number of MiB, from 1",
                    )
                })?;
            config.max_file_size = Some(mib << 20);
        }

        config.follow_external_links = file.follow_external_links;

        if let Some(url) = file.docs_url {
            let ok = url.get_ref().contains("{rule}")
                && (url.get_ref().starts_with("https://") || url.get_ref().starts_with("http://"))
                && url.get_ref().bytes().all(|b| b.is_ascii_graphic());
            if !ok {
                return Err(at(
                    Some(url.span()),
                    "`docs_url` must be an http(s) address with `{rule}` where the rule id goes, \
                     in printable ASCII with no spaces (percent-encode anything else)",
                ));
            }
            config.docs_url = Some(url.into_inner());
        }

        if let Some(section) = file.policies {
            let dir = path.parent().unwrap_or(Path::new(""));
            for p in section.paths {
                if p.get_ref().trim().is_empty() {
                    return Err(at(Some(p.span()), "`policies.paths`: a path is empty"));
                }
                config.policies.push(dir.join(p.get_ref()));
            }
        }

        if let Some(section) = file.terraform {
            let dir = path.parent().unwrap_or(Path::new(""));
            for (folder, files) in section.var_files {
                let mut paths = Vec::new();
                for f in files {
                    if f.get_ref().trim().is_empty() {
                        return Err(at(Some(f.span()), "`terraform.var_files`: a path is empty"));
                    }
                    paths.push(dir.join(f.get_ref()));
                }
                config
                    .var_files
                    .push((dir.join(folder.get_ref().trim_end_matches('/')), paths));
            }
        }

        for (key, value) in file.limits {
            let Some(limit) = Limit::ALL.into_iter().find(|l| l.key() == key) else {
                let keys: Vec<&str> = Limit::ALL.iter().map(|l| l.key()).collect();
                return Err(at(
                    Some(value.span()),
                    &format!(
                        "unknown key `{key}` in `[limits]`{} (known: {})",
                        crate::rules::closest(&key, keys.iter().copied())
                            .map_or_else(String::new, |k| format!("; did you mean `{k}`?")),
                        keys.join(", ")
                    ),
                ));
            };
            let n = value
                .get_ref()
                .as_integer()
                .and_then(|n| u64::try_from(n).ok())
                .filter(|&n| n >= 1)
                .ok_or_else(|| {
                    at(
                        Some(value.span()),
                        &format!("`limits.{key}` must be a whole number, from 1"),
                    )
                })?;
            config.limits.set(limit, n);
        }

        for (key, value) in file.rules {
            let span = value.span();
            match key.as_str() {
                "select" | "ignore" => {
                    let names = string_list(value.get_ref()).ok_or_else(|| {
                        at(
                            Some(span.clone()),
                            &format!("`rules.{key}` must be a list of rule ids or categories"),
                        )
                    })?;
                    // The same check as --select: a typo must not turn a check off silently.
                    crate::filter::select_rules(&names, &[]).map_err(|e| at(Some(span), &e))?;
                    if key == "select" {
                        config.select = names;
                    } else {
                        config.ignore.extend(names);
                    }
                }
                id => config.rule_table(id, value, &at)?,
            }
        }

        for row in file.catalog.map(|c| c.instances).unwrap_or_default() {
            let span = row.span();
            let mut table = row.into_inner();
            printable(&table, "[[catalog.instances]]").map_err(|e| at(Some(span.clone()), &e))?;
            let provider = match table
                .remove("provider")
                .as_ref()
                .and_then(toml::Value::as_str)
            {
                Some("aws") => Provider::Aws,
                Some("gcp") => Provider::Gcp,
                Some("azure") => Provider::Azure,
                _ => {
                    return Err(at(
                        Some(span),
                        "`[[catalog.instances]]` needs `provider = \"aws\"`, `\"gcp\"` or `\"azure\"`",
                    ));
                }
            };
            let row: InstanceRow =
                with_provenance(table, path)
                    .try_into()
                    .map_err(|e: toml::de::Error| {
                        at(
                            Some(span.clone()),
                            &format!("`[[catalog.instances]]`: {}", e.message()),
                        )
                    })?;
            config.instances.push((provider, row));
            config.instance_spans.push(span);
        }

        for row in file.models {
            let span = row.span();
            printable(row.get_ref(), "[[models]]").map_err(|e| at(Some(span.clone()), &e))?;
            let model: ModelSpec = with_provenance(row.into_inner(), path).try_into().map_err(
                |e: toml::de::Error| {
                    at(
                        Some(span.clone()),
                        &format!("`[[models]]`: {}", e.message()),
                    )
                },
            )?;
            config.models.push(model);
        }
        Ok(config)
    }

    /// `[rules.<id>]`: a severity and the rule's own options.
    fn rule_table(
        &mut self,
        id: &str,
        value: Spanned<toml::Value>,
        at: &dyn Fn(Option<Range<usize>>, &str) -> String,
    ) -> Result<(), String> {
        let span = value.span();
        if crate::policy::is_policy_id(id) {
            return self.policy_table(id, value, at);
        }
        let Some(entry) = rule(id) else {
            return Err(at(
                Some(span),
                &format!(
                    "unknown rule `{id}` in `[rules]`{} (see `gpulint rules`; `select` and `ignore` are the other keys)",
                    crate::rules::suggestion(id)
                ),
            ));
        };
        let toml::Value::Table(mut table) = value.into_inner() else {
            return Err(at(Some(span), &format!("`rules.{id}` must be a table")));
        };
        // `[rules.GPU_Starved_CPU_Memory]` is the rule `gpu-starved-cpu-memory`.
        let id = entry.id;
        if let Some(level) = table.remove("severity") {
            let level = level.as_str().unwrap_or_default();
            if crate::rules::is_always_on(id) {
                return Err(at(
                    Some(span),
                    &format!("`{id}` is always an error; its severity cannot be set"),
                ));
            }
            self.set_severity(id, level, &span, at)?;
        }
        for (key, value) in &table {
            let Some(option) = entry.meta.options.iter().find(|o| o.name == key) else {
                let known: Vec<&str> = entry.meta.options.iter().map(|o| o.name).collect();
                let hint = if known.is_empty() {
                    "it has only `severity`".to_string()
                } else {
                    format!("its options: severity, {}", known.join(", "))
                };
                return Err(at(
                    Some(span.clone()),
                    &format!("unknown option `{key}` for rule `{id}` ({hint})"),
                ));
            };
            let valid = match option.kind {
                OptionKind::PositiveInteger => value.as_integer().is_some_and(|n| n > 0),
            };
            if !valid {
                return Err(at(
                    Some(span.clone()),
                    &format!("`{key}` of rule `{id}` must be {}", option.kind.describe()),
                ));
            }
        }
        self.rules.insert(id.to_string(), table);
        Ok(())
    }

    /// A rule's `severity` setting: `off` ignores it, else the level it reports at.
    fn set_severity(
        &mut self,
        id: &str,
        level: &str,
        span: &Range<usize>,
        at: &dyn Fn(Option<Range<usize>>, &str) -> String,
    ) -> Result<(), String> {
        if level == "off" {
            self.ignore.push(id.to_string());
            return Ok(());
        }
        let severity = level.parse().map_err(|_| {
            at(
                Some(span.clone()),
                &format!("`severity` of rule `{id}` must be off, info, warning or error"),
            )
        })?;
        self.severity.insert(id.to_string(), severity);
        Ok(())
    }

    /// `[rules."policy/…"]`: a policy rule's severity. Policy rules have no other option, and
    /// are known by their prefix: they exist only once the policies run.
    fn policy_table(
        &mut self,
        id: &str,
        value: Spanned<toml::Value>,
        at: &dyn Fn(Option<Range<usize>>, &str) -> String,
    ) -> Result<(), String> {
        let span = value.span();
        let toml::Value::Table(table) = value.into_inner() else {
            return Err(at(Some(span), &format!("`rules.\"{id}\"` must be a table")));
        };
        for (key, level) in &table {
            if key != "severity" {
                return Err(at(
                    Some(span.clone()),
                    &format!(
                        "unknown option `{key}` for policy rule `{id}` (it has only `severity`)"
                    ),
                ));
            }
            self.set_severity(id, level.as_str().unwrap_or_default(), &span, at)?;
        }
        Ok(())
    }

    /// Adds the configured instance types and models to the catalog and the model registry.
    /// Call once, before linting or `fit`.
    pub fn install(&self) -> Result<(), String> {
        crate::rules::set_docs_url(self.docs_url.clone());
        let path = self.path.as_deref().unwrap_or(Path::new(FILE_NAME));
        if !self.instances.is_empty() {
            crate::catalog::extend(&self.instances).map_err(|e| {
                let row = match e {
                    crate::catalog::ExtendError::Row { row, .. } => Some(row),
                    _ => None,
                };
                let (line, col) = row
                    .and_then(|i| self.instance_spans.get(i))
                    .map_or((1, 1), |s| line_col(&self.text, s.start));
                format!(
                    "{}:{line}:{col}: `[[catalog.instances]]`: {e}",
                    path.display()
                )
            })?;
        }
        if !self.models.is_empty() {
            crate::fit::models::extend(self.models.clone())?;
        }
        Ok(())
    }
}

/// What `gpulint init` writes: every option at its default, each with a comment, so that
/// the file reads as the documentation of what can be set. It loads as the defaults.
pub fn template() -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "# gpulint configuration. Every option is at its default; change what you need.\n\
         # gpulint finds this file upward from the working folder, or reads `--config FILE`.\n\n\
         # Exit 1 when a finding is at or above this severity: error, warning or info.\n\
         fail_on = \"warning\"\n\n\
         # Globs of files and folders never read, relative to this file's folder.\n\
         exclude = []\n\n",
    );
    let _ = write!(
        s,
        "# A larger file is reported as `parse-error`, not read (MiB, at most 4096).\n\
         max_file_size = {}\n\n\
         # Read links in folders that lead outside them (off: a link cannot print a secret).\n\
         follow_external_links = false\n\n\
         # Where rule documentation links point; `{{rule}}` is the rule id, `{{version}}`\n\
         # gpulint's version.\n\
         # docs_url = \"{}\"\n\n",
        crate::limits::MAX_FILE_SIZE >> 20,
        crate::rules::DOCS_URL.replace(env!("CARGO_PKG_VERSION"), "{version}"),
    );
    s.push_str("# Bounds on what one file or module may cost to check; a limit hit is reported.\n[limits]\n");
    for l in Limit::ALL {
        let value = format!("{} = {}", l.key(), l.default_value());
        let _ = writeln!(s, "{value:<27} # {}", l.unit());
    }
    s.push_str(
        "\n[rules]\n\
         # Rule ids or categories to run (empty: all) and to skip; `gpulint rules` lists them.\n\
         select = []\n\
         ignore = []\n",
    );
    for r in crate::rules::RULES
        .iter()
        .filter(|r| !r.meta.options.is_empty())
    {
        let _ = write!(
            s,
            "\n[rules.{}]\n# severity = \"{}\" # off, info, warning or error\n",
            r.id,
            r.meta.severity.as_str()
        );
        for o in r.meta.options {
            let _ = writeln!(s, "{} = {} # {}", o.name, o.default, o.doc);
        }
    }
    s.push_str(
        "\n# Rules silenced for files the glob names, relative to this file's folder.\n\
         [per-file-ignores]\n\
         # \"samples/**\" = [\"multi-gpu-without-nvlink\"]\n",
    );
    s.push_str(
        "\n# Rego policies run over the inventory `gpulint inspect --format json` prints: files,\n\
         # or folders whose `.rego` files (subfolders too) are all read, relative to this\n\
         # file's folder; `--policy PATH` adds to them. Their rules are `policy/<package>/<rule>`:\n\
         # set one's severity with [rules.\"policy/<package>/deny\"].\n\
         [policies]\n\
         paths = []\n",
    );
    s.push_str(
        "\n# Var files bound to the root modules in a folder (and below it), read after their\n\
         # own tfvars as `--var-file` would be; paths relative to this file's folder.\n\
         [terraform]\n\
         # var_files = { \"infra/\" = [\"infra/envs/prod.tfvars\"] }\n",
    );
    s
}

/// serde's "unknown field `fial_on`, expected one of `fail_on`, …", with the closest known
/// key named first: "…; did you mean `fail_on`?".
fn with_suggestion(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((name, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    let known = expected.split('`').skip(1).step_by(2);
    match crate::rules::closest(name, known) {
        Some(k) => format!("{message}; did you mean `{k}`?"),
        None => message.to_string(),
    }
}

/// A private row is the user's word: primary, and sourced to the config file, unless it says.
fn with_provenance(mut table: toml::Table, path: &Path) -> toml::Value {
    table
        .entry("source")
        .or_insert_with(|| path.display().to_string().into());
    table
        .entry("confidence")
        .or_insert_with(|| "P".to_string().into());
    toml::Value::Table(table)
}

fn string_list(v: &toml::Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_string))
        .collect()
}

fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let before = &text[..byte.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Names and sources from a config reach every report (`catalog`, `fit`, findings): a
/// control, line-separator or bidi character in one is refused where it is written.
fn printable(table: &toml::Table, what: &str) -> Result<(), String> {
    fn first_unsafe(v: &toml::Value) -> Option<char> {
        match v {
            toml::Value::String(s) => s.chars().find(|&c| crate::source::escape::is_unsafe(c)),
            toml::Value::Array(a) => a.iter().find_map(first_unsafe),
            toml::Value::Table(t) => t.values().find_map(first_unsafe),
            _ => None,
        }
    }
    for (key, value) in table {
        if let Some(c) = first_unsafe(value) {
            return Err(format!(
                "`{what}`: `{key}` holds the character U+{:04X}: names and sources are printed \
                 in reports, so control, line-separator and bidi characters are not allowed",
                u32::from(c)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(text, Path::new(".gpulint.toml"))
    }

    #[test]
    fn rule_options_load() {
        let c = parse("[rules.stale-generation-reservation]\nthreshold = 3\n").unwrap();
        let t = &c.rules["stale-generation-reservation"];
        assert_eq!(t["threshold"].as_integer(), Some(3));
    }

    #[test]
    fn every_section_loads() {
        let c = parse(
            "fail_on = \"error\"\nexclude = [\"vendor/**\"]\n\n[rules]\nselect = [\"cost\"]\nignore = [\"missing-shm\"]\n\n[rules.spot-only-inference]\nseverity = \"error\"\n\n[rules.oversized-inference-gpu]\nseverity = \"off\"\n\n[[catalog.instances]]\nprovider = \"aws\"\nname = \"x9.big\"\ngpu = \"h100\"\ncount = 8\ninterconnect = \"nvlink\"\nfabric = \"efa\"\n\n[[models]]\nid = \"acme/chat-34b\"\nparams = 34e9\nlayers = 48\nhidden = 7168\nheads = 56\nkv_heads = 8\nhead_dim = 128\nvocab = 64000\nmax_context = 32768\ndtype = \"bf16\"\n",
        )
        .unwrap();
        assert_eq!(c.fail_on, Some(Severity::Error));
        assert_eq!(c.select, ["cost"]);
        assert_eq!(c.ignore, ["missing-shm", "oversized-inference-gpu"]);
        assert_eq!(c.severity["spot-only-inference"], Severity::Error);
        assert_eq!(c.instances[0].0, Provider::Aws);
        assert_eq!(c.instances[0].1.source, ".gpulint.toml");
        assert_eq!(c.models[0].id, "acme/chat-34b");
        let mut ex = c.exclude.unwrap();
        ex.base = PathBuf::from("/repo");
        let cwd = Path::new("/repo");
        assert!(ex.excludes(Path::new("vendor/a/b.tf"), cwd));
        assert!(ex.excludes(Path::new("./vendor/x.yaml"), cwd));
        assert!(!ex.excludes(Path::new("infra/vendor.tf"), cwd));
    }

    #[test]
    fn exclude_globs_match_folders_and_names() {
        let mut c = parse("exclude = [\"charts/*/templates/\", \"*.generated.yaml\"]\n").unwrap();
        let ex = c.exclude.as_mut().unwrap();
        ex.base = PathBuf::from("/repo");
        let cwd = Path::new("/repo/sub/..");
        assert!(ex.excludes(Path::new("charts/vllm/templates/deploy.yaml"), cwd));
        assert!(!ex.excludes(Path::new("charts/vllm/values.yaml"), cwd));
        assert!(ex.excludes(Path::new("k8s/deep/x.generated.yaml"), cwd));
        assert!(!ex.excludes(Path::new("k8s/x.yaml"), cwd));
    }

    #[test]
    fn unknown_keys_are_errors_with_their_line() {
        let e = parse("fail_on = \"error\"\n\n[rulez]\n").unwrap_err();
        assert!(e.starts_with(".gpulint.toml:3:"), "{e}");
        let e = parse("\n[rules.no-such-rule]\nx = 1\n").unwrap_err();
        assert!(
            e.contains(":2:") && e.contains("unknown rule `no-such-rule`"),
            "{e}"
        );
        let e = parse("[rules.stale-generation-reservation]\nthreshhold = 3\n").unwrap_err();
        assert!(
            e.contains("unknown option `threshhold`") && e.contains("threshold"),
            "{e}"
        );
        let e = parse("[rules.missing-auto-shutdown]\nx = 1\n").unwrap_err();
        assert!(e.contains("it has only `severity`"), "{e}");
        let e = parse("[rules.stale-generation-reservation]\nthreshold = 0\n").unwrap_err();
        assert!(e.contains("must be a positive integer"), "{e}");
        let e = parse("[rules.missing-shm]\nseverity = \"fatal\"\n").unwrap_err();
        assert!(e.contains("must be off, info, warning or error"), "{e}");
        let e = parse("[rules.parse-error]\nseverity = \"off\"\n").unwrap_err();
        assert!(e.contains("always an error"), "{e}");
        let e = parse("fail_on = \"warn\"\n").unwrap_err();
        assert!(
            e.starts_with(".gpulint.toml:1:11:") && e.contains("unknown severity"),
            "{e}"
        );
        let e = parse("[rules]\nselect = [\"cots\"]\n").unwrap_err();
        assert!(
            e.contains(":2:") && e.contains("unknown rule or category `cots`"),
            "{e}"
        );
        let e = parse("exclude = [\"a[\"]\n").unwrap_err();
        assert!(e.starts_with(".gpulint.toml:1:12:"), "{e}");
        let e = parse("\n[[catalog.instances]]\nprovider = \"aws\"\nname = \"x\"\ngpu = \"h100\"\ncount = 8\ninterconnect = \"nvlink\"\nfabric = \"efa\"\nprice = 3\n").unwrap_err();
        assert!(
            e.starts_with(".gpulint.toml:2:") && e.contains("price"),
            "{e}"
        );
        let e = parse("[[catalog.instances]]\nname = \"x\"\n").unwrap_err();
        assert!(e.contains("needs `provider"), "{e}");
        let e = parse("[[models]]\nid = \"x\"\n").unwrap_err();
        assert!(
            e.contains("`[[models]]`") && e.contains("missing field"),
            "{e}"
        );
    }

    #[test]
    fn the_nearest_file_upward_wins() {
        let dir = std::env::temp_dir().join(format!("gpulint-config-{}", std::process::id()));
        let inner = dir.join("a/b");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(
            dir.join(FILE_NAME),
            "[rules.stale-generation-reservation]\nthreshold = 4\n",
        )
        .unwrap();
        let c = Config::load(None, &inner).unwrap();
        assert_eq!(c.path.as_deref(), Some(dir.join(FILE_NAME).as_path()));
        let none = Config::load(None, Path::new("/")).unwrap();
        assert!(none.path.is_none() || none.path.as_deref() != Some(dir.join(FILE_NAME).as_path()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
