//! The words every stage shares about where GPUs run: the cloud, the market a machine is
//! bought on, and a machine type with the GPUs the catalog knows on it.

use crate::{Confidence, Fabric, Gpu, Interconnect};

/// A string of the model: up to 24 bytes are held inline, without an allocation of
/// their own (names, label keys and values, images, arguments).
pub type Str = compact_str::CompactString;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    Aws,
    Gcp,
    Azure,
    Kubernetes,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Aws => "aws",
            Provider::Gcp => "gcp",
            Provider::Azure => "azure",
            Provider::Kubernetes => "kubernetes",
        }
    }
}

/// The machine shape and the GPUs on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The type as written: `p5.48xlarge`, `n1-standard-8`, `Standard_ND96isr_H100_v5`.
    pub name: Str,
    /// `None` when the machine has no GPU.
    pub gpus: Option<GpuSet>,
    /// The fastest network between machines of this type (catalog), when known.
    pub fabric: Option<Fabric>,
}

/// Identical GPUs on one machine.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuSet {
    pub gpu: &'static Gpu,
    pub count: u32,
    pub interconnect: Interconnect,
    /// How sure the catalog is of the machine's row (count, interconnect).
    pub confidence: Confidence,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Market {
    OnDemand,
    Spot,
    /// Reserved or capacity-block capacity.
    Reserved,
    /// Some on-demand capacity and some spot (an ASG's mixed instances policy).
    Mixed,
}
