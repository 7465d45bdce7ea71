//! What GPU capacity runs on, as findings say it.

use super::{describe, gpu_label};
use gpulint_model::{HeldGpus, Span, gpus};

/// What GPU capacity runs on, for messages, with the label for the line that says so: the
/// machine type (`g5.xlarge (1 × NVIDIA A10G)`), or, when its type is not known, the sign
/// that it holds GPUs ("a type gpulint does not know, with at least 1 GPU each (…)").
pub fn held_machine(held: &HeldGpus<'_>) -> (String, (Span, String)) {
    match held {
        HeldGpus::Machines(machines, span) => (
            describe(machines[0]),
            ((*span).clone(), gpu_label(machines[0])),
        ),
        HeldGpus::AtLeast(floor) => (
            format!(
                "a type gpulint does not know, with at least {} each ({})",
                gpus(floor.count),
                floor.evidence
            ),
            (
                floor.span.clone(),
                format!("at least {}", gpus(floor.count)),
            ),
        ),
    }
}
