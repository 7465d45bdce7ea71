//! A machine type chosen by a toggle (`size = var.gpu_enabled ? var.gpu_size : var.cpu_size`)
//! whose condition reads only knobs a user sets: as written it picks a machine with no GPU,
//! and a user who flips the knob gets the GPU one. Read, as checkov reads toggled blocks,
//! on the branch with GPUs, with a caveat on every finding that says which condition.

use gpulint_facts::instance_machine;
use gpulint_model::{Capacity, Caveat, Value};
use gpulint_terraform::{Block, eval};

/// Switches `c` to the GPU machine `key`'s untaken branch names, when what it runs as
/// written has no GPU.
pub(crate) fn gpu_branch(c: &mut Capacity, b: &Block<'_>, key: &str) {
    if c.gpu_machines().is_some() || c.machines.is_unknown() {
        return;
    }
    let Some((ty, span, condition)) = b.untaken_str(key) else {
        return;
    };
    let m = instance_machine(c.provider, &ty);
    if m.gpus.is_none() {
        return;
    }
    c.machines = Value::Known(vec![m], span.clone());
    let mut files: Vec<_> = c.located_in().collect();
    files.sort_unstable();
    files.dedup();
    eval::record_caveat(Caveat {
        subject: c.subject.clone(),
        files,
        inside_calls: false,
        entry: None,
        note: format!("when `{condition}` picks `{ty}`: as written, a machine with no GPU"),
        span,
        label: format!("`{ty}` when `{condition}` is flipped"),
    });
}
