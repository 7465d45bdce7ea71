//! The limits that keep hostile input from hanging gpulint or exhausting its memory, and
//! what a hit leaves behind.
//!
//! Every limit is far above what real repositories use (the figures beside each say how
//! far), and none is ever hit silently: the parser or evaluator that stops records a
//! [`LimitHit`], which the always-on `limit-exceeded` rule reports with the file, what was
//! not checked, and the `[limits]` key of `.gpulint.toml` that raises it. What was read
//! before the limit is kept and linted.

/// One limit, with its `[limits]` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// MiB of values that Terraform evaluation may produce in one run (references
    /// resolved, function results, `for` items, 1 KiB an instance), on top of a share of
    /// the Terraform read: `evaluation` + 16 × the Terraform read.
    Evaluation,
    /// Instances one `count`, `for_each` or `dynamic` block makes.
    Instances,
    /// Module instances one root module evaluates, its calls' calls included.
    ModuleInstances,
    /// How deep module calls nest. Terraform itself sets no depth; this only stops a
    /// generated chain.
    ModuleDepth,
    /// Nodes in one YAML document (a 1 MiB CRD has about 60,000).
    YamlNodes,
    /// Nodes that YAML aliases copy in one file.
    YamlAliasNodes,
}

impl Limit {
    pub const ALL: [Limit; 6] = [
        Limit::Evaluation,
        Limit::Instances,
        Limit::ModuleInstances,
        Limit::ModuleDepth,
        Limit::YamlNodes,
        Limit::YamlAliasNodes,
    ];

    /// Its key under `[limits]` in `.gpulint.toml`.
    pub fn key(self) -> &'static str {
        match self {
            Limit::Evaluation => "evaluation",
            Limit::Instances => "instances",
            Limit::ModuleInstances => "module_instances",
            Limit::ModuleDepth => "module_depth",
            Limit::YamlNodes => "yaml_nodes",
            Limit::YamlAliasNodes => "yaml_alias_nodes",
        }
    }

    pub fn default_value(self) -> u64 {
        match self {
            Limit::Evaluation => 128,
            Limit::Instances => 1024,
            Limit::ModuleInstances => 4096,
            Limit::ModuleDepth => 100,
            Limit::YamlNodes => 4_000_000,
            Limit::YamlAliasNodes => 100_000,
        }
    }

    /// What the limit counts, after its value: "1024 instances of one block".
    pub fn unit(self) -> &'static str {
        match self {
            Limit::Evaluation => "MiB of evaluated Terraform values",
            Limit::Instances => "instances of one `count`, `for_each` or `dynamic` block",
            Limit::ModuleInstances => "module instances under one root module",
            Limit::ModuleDepth => "levels of module calls",
            Limit::YamlNodes => "nodes in one YAML document",
            Limit::YamlAliasNodes => "nodes copied by YAML aliases in one file",
        }
    }
}

/// The limits of one run: the defaults, with what `[limits]` sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    values: [u64; Limit::ALL.len()],
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            values: Limit::ALL.map(Limit::default_value),
        }
    }
}

impl Limits {
    pub fn get(&self, limit: Limit) -> u64 {
        self.values[limit as usize]
    }

    /// As `get`, for counts compared with `usize`.
    pub fn count(&self, limit: Limit) -> usize {
        usize::try_from(self.get(limit)).unwrap_or(usize::MAX)
    }

    pub fn set(&mut self, limit: Limit, value: u64) {
        self.values[limit as usize] = value;
    }

    /// "the limit of 1024 instances of one block (`limits.instances` in .gpulint.toml)".
    pub fn describe(&self, limit: Limit) -> String {
        format!(
            "the limit of {} {} (`limits.{}` in .gpulint.toml)",
            self.get(limit),
            limit.unit(),
            limit.key()
        )
    }
}

/// A limit hit while reading or evaluating a file: where, which, and what was left
/// unchecked ("the documents after this one are still linted").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitHit {
    pub limit: Limit,
    /// Byte offset in the file where the limit was reached.
    pub offset: usize,
    /// What gpulint did not check because of it, as a clause: "this document was not
    /// checked".
    pub unchecked: String,
}

/// The largest file read unless `max_file_size` says otherwise. The largest manifests
/// seen in real repositories are CRDs of about 1 MiB; a plan JSON of a large estate can
/// be tens of MiB.
pub const MAX_FILE_SIZE: u64 = 16 << 20;
