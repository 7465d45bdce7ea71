//! gpulint_diagnostics: findings, what a rule reports, and the [`Outcome`] of a run.
//!
//! Free of any renderer: gpulint_report turns them into output. [`fingerprint`] says what
//! identifies a finding when the lines around it move (baselines, SARIF).
//!
//! May use: gpulint_source (files, spans) and gpulint_facts (prices, for a finding's cost).

pub mod fingerprint;

use std::fmt;
use std::ops::Range;

use serde::Serialize;

use gpulint_source::{FileId, Region, SourceDb};

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            other => Err(format!(
                "unknown severity `{other}`; expected info, warning or error"
            )),
        }
    }
}

/// What a rule protects. Each rule has exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Money spent on GPUs that do no work.
    Cost,
    /// Work lost or services down.
    Reliability,
    /// GPUs that run slower than they could.
    Performance,
    /// Configuration that cannot work as written (including files that do not parse).
    Correctness,
    /// gpulint's own suppressions and settings, kept honest.
    Meta,
}

impl Category {
    /// Every category, so a new one cannot be missed where names are matched.
    pub const ALL: [Category; 5] = [
        Category::Cost,
        Category::Reliability,
        Category::Performance,
        Category::Correctness,
        Category::Meta,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Cost => "cost",
            Category::Reliability => "reliability",
            Category::Performance => "performance",
            Category::Correctness => "correctness",
            Category::Meta => "meta",
        }
    }

    /// The default severities a rule of this category may have. A cost or performance trap
    /// is never an error by default (it wastes money, it does not break anything); a
    /// correctness problem is never merely informational.
    pub fn allowed_severities(self) -> &'static [Severity] {
        match self {
            Category::Cost | Category::Performance | Category::Meta => {
                &[Severity::Info, Severity::Warning]
            }
            Category::Reliability => &[Severity::Info, Severity::Warning, Severity::Error],
            Category::Correctness => &[Severity::Warning, Severity::Error],
        }
    }
}

/// A place in a file. `span: None` means the whole file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub file: FileId,
    pub span: Option<Range<usize>>,
    pub text: String,
}

impl Label {
    pub fn new(file: FileId, span: Option<Range<usize>>, text: impl Into<String>) -> Self {
        Label {
            file,
            span,
            text: text.into(),
        }
    }
}

/// One problem found by one rule.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The rule id, e.g. `missing-auto-shutdown`.
    pub rule: &'static str,
    pub severity: Severity,
    /// What is wrong: lower-case start, no trailing period.
    pub message: String,
    /// What to do about it.
    pub help: std::borrow::Cow<'static, str>,
    /// What the finding is about: `aws_instance.trainer`, `Deployment/vllm`, or the file.
    pub subject: String,
    pub primary: Label,
    /// Related places, possibly in other files.
    pub secondary: Vec<Label>,
    /// Where values that decide the finding were set (the tfvars line, the module call
    /// argument, the variable default), each with what it says.
    pub related: Vec<Label>,
    /// What the waste it flags costs, when the price snapshot knows.
    pub cost: Option<Box<Cost>>,
    /// The key the primary value was read as, when it came in an object (a module input's
    /// entry): where that key was written is added to `related`.
    pub leaf: Option<Leaf>,
}

/// A key of one entry of an object a value travelled in: `min_count` of `gpu-pool-l4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    pub key: String,
    pub within: Option<String>,
    /// The key of the object that holds `key` (`machine` of `machine.count`).
    pub under: Option<String>,
}

/// What capacity a finding flags costs while it stays up: list price, with its basis.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Cost {
    pub usd_per_hour: f64,
    pub usd_per_month: f64,
    /// "list price in us-east-1 as of 2026-07-20 (AWS-K); no discounts", and what was
    /// multiplied ("1 instance").
    pub basis: String,
    pub as_of: String,
    pub region: String,
    /// The figures are a lower bound: a count known only as "at least", the cheapest of
    /// several types, or GPUs priced without their machine.
    #[serde(skip)]
    pub at_least: bool,
    /// What text output calls the figure: "idle cost", "reserved", "overspend".
    #[serde(skip)]
    pub label: &'static str,
}

impl Cost {
    /// `units` machines at `price` (units > 0), in the region the code names (`written`),
    /// when it names one. A `what` that says "at least", or a price of GPUs alone, makes
    /// the figures a lower bound. Dollars are rounded to cents a month and to the
    /// millionth (the price list's own precision) an hour.
    pub fn of(
        price: &gpulint_facts::prices::Quote,
        written: Option<&str>,
        units: f64,
        what: &str,
    ) -> Cost {
        Cost::hourly(price.usd_per_hour * units, price, written, what)
    }

    /// `usd_per_hour` worked out from `price` (its basis, date and region), as `what`
    /// says.
    pub fn hourly(
        usd_per_hour: f64,
        price: &gpulint_facts::prices::Quote,
        written: Option<&str>,
        what: &str,
    ) -> Cost {
        let month = gpulint_facts::catalog().prices.hours_per_month;
        Cost {
            usd_per_hour: gpulint_facts::prices::round_hourly(usd_per_hour),
            usd_per_month: gpulint_facts::prices::round_cents(usd_per_hour * month),
            basis: format!("{what}; {}", price.basis(written)),
            at_least: price.gpus_only || what.starts_with("at least"),
            as_of: price.as_of.clone(),
            region: price.region.clone(),
            label: "idle cost",
        }
    }

    /// The same figures under another name in text output.
    #[must_use]
    pub fn labelled(mut self, label: &'static str) -> Cost {
        self.label = label;
        self
    }

    /// " — idle cost: $55.04/h ($40,179/month; 1 instance; list price in …)".
    pub fn suffix(&self) -> String {
        use gpulint_facts::prices::usd;
        format!(
            " — {}: {}{}/h ({}/month; {})",
            self.label,
            if self.at_least { "at least " } else { "" },
            usd(self.usd_per_hour),
            usd(self.usd_per_month),
            self.basis
        )
    }
}

impl Finding {
    /// The message as text formats show it: with its cost, when it has one.
    pub fn shown_message(&self) -> std::borrow::Cow<'_, str> {
        match &self.cost {
            Some(c) => format!("{}{}", self.message, c.suffix()).into(),
            None => self.message.as_str().into(),
        }
    }

    /// The files its labels point into: the primary's, the secondaries', the related'.
    pub fn files(&self) -> impl Iterator<Item = gpulint_source::FileId> + '_ {
        std::iter::once(&self.primary)
            .chain(&self.secondary)
            .chain(&self.related)
            .map(|l| l.file)
    }
}

/// Where a label is, as the machine formats print it.
pub struct Location<'a> {
    pub file: &'a str,
    pub region: Region,
}

impl<'a> Location<'a> {
    /// A label without a span is the start of its file.
    pub fn of(outcome: &'a Outcome, label: &Label) -> Self {
        Location::at(&outcome.db, label.file, label.span.as_ref())
    }

    /// A byte range of a file of `db`; `None` is the start of the file.
    pub fn at(db: &'a SourceDb, file: FileId, span: Option<&Range<usize>>) -> Self {
        let file = db.get(file);
        Location {
            file: &file.name,
            region: file.region(span.unwrap_or(&(0..0))),
        }
    }
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
