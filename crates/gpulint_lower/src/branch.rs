//! A machine type chosen by a toggle (`size = var.gpu_enabled ? var.gpu_size : var.cpu_size`)
//! whose condition reads only knobs a user sets: as written it picks a machine with no GPU,
//! and a user who flips the knob gets the GPU one. Read, as checkov reads toggled blocks,
//! on the branch with GPUs, with a caveat on every finding that says which condition.

use gpulint_facts::instance_machine;
use gpulint_model::{Capacity, Caveat, Span, Value};
use gpulint_terraform::{Block, Module, eval};

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
    let note = format!("when `{condition}` picks `{ty}`: as written, a machine with no GPU");
    let label = format!("`{ty}` when `{condition}` is flipped");
    switch_to(c, m, span, note, label);
}

/// Reads `c` as running `m`, written at `span`, with a caveat on its findings that says
/// when (`note`), and `label` on the related location at `span`.
fn switch_to(c: &mut Capacity, m: gpulint_model::Machine, span: Span, note: String, label: String) {
    c.machines = Value::Known(vec![m], span.clone());
    let mut files: Vec<_> = c.located_in().collect();
    files.sort_unstable();
    files.dedup();
    eval::record_caveat(Caveat {
        subject: c.subject.clone(),
        files,
        inside_calls: false,
        entry: None,
        note,
        span,
        label,
    });
}

/// A machine type written as a root variable with no value in the code
/// (`instance_type = var.itype`) that a variable file beside the root gives a GPU type
/// (`gpu.tfvars`: `itype = "g5.xlarge"`): read, as a toggle is, as what a user who names
/// that file gets, with a caveat on every finding that says which file. `written` is the
/// machine type as written. Whether it switched `c`.
pub(crate) fn named_file_branch(c: &mut Capacity, module: &Module<'_>, written: &str) -> bool {
    let Some(name) = gpulint_model::written_reference(written).and_then(|r| r.strip_prefix("var."))
    else {
        return false;
    };
    // The first GPU type the file gives: a type, or a list of types.
    let gpu = |v: &hcl::Value| {
        let types = match v {
            hcl::Value::Array(types) => types.iter().filter_map(hcl::Value::as_str).collect(),
            v => v.as_str().into_iter().collect::<Vec<_>>(),
        };
        types.into_iter().find_map(|ty| {
            let m = instance_machine(c.provider, ty);
            m.gpus.is_some().then(|| (ty.to_string(), m))
        })
    };
    let Some((alt, (ty, m))) = module
        .alternatives
        .iter()
        .filter(|a| a.name == name)
        .find_map(|a| Some((a, gpu(&a.value)?)))
    else {
        return false;
    };
    let note = format!(
        "with `--var-file {}`, which sets `{name}` to `{ty}`: `var.{name}` has no value in \
         the code",
        alt.file
    );
    let label = format!("`{ty}` in `{}`", alt.file);
    switch_to(c, m, alt.span.clone(), note, label);
    true
}

/// At least 1 GPU for capacity of `module` whose machine type did not evaluate, when what
/// it was written as, or the capacity's own name, says GPU.
pub(crate) fn name_bounds(module: &Module<'_>, capacity: &mut [Capacity]) {
    for c in capacity {
        let written = c.machines.unknown_at().and_then(|s| module.written_at(s));
        if written
            .as_deref()
            .is_some_and(|w| named_file_branch(c, module, w))
        {
            continue;
        }
        c.gpus_from_names(written.as_deref());
    }
}
