//! The budget of one run's Terraform evaluation, and the limits it hit.
//!
//! Evaluation is where a few KB of HCL become gigabytes: forty locals that each double a
//! string, `for` expressions nested over long lists, a 10 MB default copied into a thousand
//! instances. Every value evaluation makes is charged here by its size (a reference
//! resolved, a function's result, a `for` item) before or as it is built; when the budget is
//! spent, every further evaluation of the run is unknown at once, and the first place that
//! could not evaluate is recorded as a [`Limit::Evaluation`] hit. Instance and module limits
//! are recorded here too, so the lowerer reports them all.
//!
//! The state lives in a thread-local: lowering runs on one thread, and the functions hcl-rs
//! calls are plain `fn`s with no room for a context. Outside [`begin`] (unit tests that build
//! a module by hand) nothing is charged and the default limits apply.

use std::cell::RefCell;
use std::ops::Range;

use gpulint_source::FileId;
use gpulint_source::limits::{Limit, Limits};

/// A limit hit during lowering, at a place in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub limit: Limit,
    pub file: FileId,
    pub range: Range<usize>,
    /// What was not checked, as a clause.
    pub unchecked: String,
}

struct State {
    limits: Limits,
    /// Bytes of values evaluation may still produce.
    remaining: u64,
    /// Resource and module instances it may still make: the budget again, at
    /// [`INSTANCE`] bytes each, kept apart so that a spent budget still lets literal
    /// resources be read.
    instances: u64,
    /// The budget ran out; the hit has been recorded when `recorded`.
    spent: bool,
    recorded: bool,
    /// The instances ran out, and that was recorded.
    instances_recorded: bool,
    hits: Vec<Hit>,
}

thread_local! {
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// Starts the budget of a run: the configured MiB, plus 16 bytes for every byte of
/// Terraform read, so that a large repository of ordinary modules never runs out.
/// Ends (and forgets its hits) when the returned guard is dropped.
pub fn begin(limits: &Limits, terraform_bytes: u64) -> Run {
    let remaining = limits
        .get(Limit::Evaluation)
        .saturating_mul(1 << 20)
        .saturating_add(terraform_bytes.saturating_mul(16));
    STATE.with(|s| {
        *s.borrow_mut() = Some(State {
            limits: limits.clone(),
            remaining,
            instances: remaining / INSTANCE,
            spent: false,
            recorded: false,
            instances_recorded: false,
            hits: Vec::new(),
        });
    });
    Run(())
}

/// A run's budget, in force until dropped.
pub struct Run(());

impl Run {
    /// The limits hit so far, in the order they were hit. A budget spent where no
    /// evaluation could say where (a tfvars value) is placed at the start of `fallback`.
    pub fn take_hits(&self, fallback: Option<FileId>) -> Vec<Hit> {
        if let Some(file) = fallback {
            record_spent(file, 0..0);
        }
        STATE.with(|s| {
            s.borrow_mut()
                .as_mut()
                .map(|s| std::mem::take(&mut s.hits))
                .unwrap_or_default()
        })
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        STATE.with(|s| *s.borrow_mut() = None);
    }
}

/// What one `resource` or `module` instance is charged: its scope and what lowering
/// builds from it.
pub const INSTANCE: u64 = 1024;

/// Charges `bytes` of values. `false` when the budget is spent (now or before): the value
/// must not be built, and the evaluation that wanted it is unknown.
pub fn charge(bytes: u64) -> bool {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        let Some(s) = s.as_mut() else { return true };
        if s.spent {
            return false;
        }
        match s.remaining.checked_sub(bytes) {
            Some(left) => {
                s.remaining = left;
                true
            }
            None => {
                s.spent = true;
                false
            }
        }
    })
}

/// Takes one instance of a `count` or `for_each` block from the run's share. `false` when none is left:
/// the instance is not made, and the first time that happens it is recorded at `range`.
pub fn take_instance(file: FileId, range: Range<usize>) -> bool {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        let Some(s) = s.as_mut() else { return true };
        if s.instances > 0 {
            s.instances -= 1;
            return true;
        }
        if !s.instances_recorded {
            s.instances_recorded = true;
            s.hits.push(Hit {
                limit: Limit::Evaluation,
                file,
                range,
                unchecked: format!(
                    "the run made as many `count` and `for_each` instances as its budget \
                     allows ({INSTANCE} bytes of the budget each); this instance and every \
                     later one were not checked (blocks written once still are)"
                ),
            });
        }
        false
    })
}

/// Whether the budget is spent: every evaluation from now on is unknown.
pub fn spent() -> bool {
    STATE.with(|s| s.borrow().as_ref().is_some_and(|s| s.spent))
}

/// A limit's value in this run.
pub fn limit(limit: Limit) -> usize {
    STATE
        .with(|s| {
            s.borrow()
                .as_ref()
                .map_or_else(|| limit.default_value(), |s| s.limits.get(limit))
        })
        .try_into()
        .unwrap_or(usize::MAX)
}

/// Records that an evaluation at `range` of `file` failed because the budget is spent, if
/// it is the first such place.
pub fn record_spent(file: FileId, range: Range<usize>) {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        let Some(s) = s.as_mut() else { return };
        if s.spent && !s.recorded {
            s.recorded = true;
            s.hits.push(Hit {
                limit: Limit::Evaluation,
                file,
                range,
                unchecked: "this value and every Terraform value evaluated after it are \
                            unknown, so rules that need them were skipped"
                    .into(),
            });
        }
    });
}

/// Records a limit other than the budget: an instance or module limit.
pub fn record(hit: Hit) {
    STATE.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut()
            && !s.hits.contains(&hit)
        {
            s.hits.push(hit);
        }
    });
}

/// The size a value is charged at, close to what it takes in memory: 64 bytes a node (the
/// value and its place in a list or map) and its text with a heap header.
pub fn size_of(v: &hcl::Value) -> u64 {
    let mut n = 0u64;
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        n = n.saturating_add(64);
        match v {
            hcl::Value::String(s) => n = n.saturating_add(32 + s.len() as u64),
            hcl::Value::Array(items) => todo.extend(items),
            hcl::Value::Object(map) => {
                for (k, v) in map {
                    n = n.saturating_add(32 + k.len() as u64);
                    todo.push(v);
                }
            }
            _ => {}
        }
    }
    n
}
