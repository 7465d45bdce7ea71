//! gpulint_facts: what gpulint knows, as sourced data, and the words every stage shares.
//!
//! The GPU and instance-type catalog ([`catalog`]), prices ([`prices`]), Kubernetes
//! resource names and operator kinds ([`kubernetes`]) and workload signatures
//! ([`workloads`]) are embedded data files, each row with its source, loaded and checked
//! here. Rules and lowerers ask these tables; no GPU fact lives in their code. The shared
//! vocabulary ([`Provider`], [`Market`], [`Machine`], [`Fabric`], [`Interconnect`],
//! [`Confidence`]) lives here too, so that the model and the catalog need not import each
//! other.
//!
//! May use: no other gpulint crate.

pub mod kubernetes;
pub mod operators;
pub mod prices;
pub mod vocab;
pub mod workloads;

pub use vocab::{GpuSet, Machine, Market, Provider, Str};

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

const GPUS: &str = include_str!("data/gpus.toml");

/// Bytes in a GiB.
const GIB: f64 = 1_073_741_824.0;
const AWS: &str = include_str!("data/aws.toml");
const GCP: &str = include_str!("data/gcp.toml");
const AZURE: &str = include_str!("data/azure.toml");
const KUBERNETES: &str = include_str!("data/kubernetes.toml");

/// How sure the catalog is of a row (`reference/gpu-facts.md` tags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Confidence {
    /// Confirmed in a primary source.
    P,
    /// Confirmed only in a secondary source.
    S,
    /// Not confirmed: a hint, never the sole reason to fail a build.
    U,
}

impl Confidence {
    /// As `gpulint catalog --format json` and `gpulint inspect` print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::P => "p",
            Confidence::S => "s",
            Confidence::U => "u",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub architecture: String,
    pub year: Option<u16>,
    /// The vendor figure. Memory is built in binary units: "80 GB" of HBM is 80 GiB.
    pub memory_gb: f64,
    /// Per-GPU memory as cloud APIs report it (MiB), where known.
    pub usable_mib: Option<u64>,
    /// The device total CUDA exposes (GiB, as PyTorch's "total capacity" and vLLM's
    /// `total_gpu_memory` print it), where measured; ECC and the driver's reservations make
    /// it smaller than the vendor figure.
    pub cuda_total_gib: Option<f64>,
    /// Where `cuda_total_gib` was measured.
    pub cuda_source: Option<String>,
    /// The share of memory taken as usable when `cuda_total_gib` is not known (set from
    /// the file's `[unmeasured]` table on load).
    #[serde(skip)]
    pub unmeasured_share: f64,
    /// NVLink generation, absent when the GPU has none.
    pub nvlink: Option<u8>,
    /// Per-GPU NVLink bandwidth, GB/s, bidirectional.
    pub nvlink_gbs: Option<u32>,
    pub compute_capability: Option<String>,
    /// Memory bandwidth, GB/s.
    pub bandwidth_gbs: Option<u32>,
    /// The lowest float precision its tensor cores run: none, fp16, fp8 or fp4.
    pub lowest_float: Option<String>,
    /// Most MIG instances; absent = no MIG.
    pub mig: Option<u8>,
    #[serde(default)]
    pub mig_profiles: Vec<String>,
    /// The GPU this one is a fixed share of (a vGPU partition that a machine type holds,
    /// `a10` for a sixth of an A10); absent for a whole GPU.
    pub partition_of: Option<String>,
    pub source: String,
    pub confidence: Confidence,
}

/// A GPU architecture and its place in the order of generations.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Architecture {
    pub name: String,
    /// Larger is newer.
    pub generation: u8,
}

impl Gpu {
    /// Whether the tensor cores compute in this float format (`fp8` needs Ada, Hopper or
    /// newer; `fp4` needs Blackwell). Unknown facts answer `true`: never guess against.
    pub fn has_native_float(&self, format: &str) -> bool {
        let rank = |f: &str| match f {
            "none" => Some(0),
            "fp16" => Some(1),
            "fp8" => Some(2),
            "fp4" => Some(3),
            _ => None,
        };
        match (self.lowest_float.as_deref().and_then(rank), rank(format)) {
            (Some(have), Some(want)) => have >= want,
            _ => true,
        }
    }

    /// Memory a workload can count on: the device total CUDA exposes where measured, else
    /// the smaller of the vendor and cloud API figures times the smallest share any
    /// measured GPU exposes (`unmeasured_share` in `gpus.toml`). Never more than
    /// [`Gpu::memory_bytes`].
    pub fn usable_bytes(&self) -> u64 {
        let nominal = self.memory_bytes();
        // Catalog figures are small positive numbers (tested), so the casts are exact.
        #[allow(clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let bytes = match self.cuda_total_gib {
            Some(gib) => (gib * GIB).round() as u64,
            None => {
                let api = self.usable_mib.map_or(nominal, |mib| mib * 1024 * 1024);
                (api.min(nominal) as f64 * self.unmeasured_share).floor() as u64
            }
        };
        bytes.min(nominal)
    }

    /// Whether [`Gpu::usable_bytes`] was measured rather than bounded from the vendor figure.
    pub fn usable_measured(&self) -> bool {
        self.cuda_total_gib.is_some()
    }

    /// Memory in bytes by the vendor figure, read in binary units (as the memory is built:
    /// an A100 80GB shows 81920 MiB in `nvidia-smi`).
    pub fn memory_bytes(&self) -> u64 {
        // Catalog figures are small positive numbers (tested), so the cast is exact.
        #[allow(clippy::cast_sign_loss)]
        let bytes = (self.memory_gb * GIB).round() as u64;
        bytes
    }
}

/// How the GPUs inside one machine reach each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Interconnect {
    Nvlink,
    Pcie,
    InfinityFabric,
}

impl Interconnect {
    /// As `gpulint catalog --format json` and `gpulint inspect` print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Interconnect::Nvlink => "nvlink",
            Interconnect::Pcie => "pcie",
            Interconnect::InfinityFabric => "infinityfabric",
        }
    }
}

/// The fastest network between machines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fabric {
    Efa,
    Infiniband,
    GpudirectTcpx,
    GpudirectTcpxo,
    GpudirectRdma,
    None,
}

impl Fabric {
    /// As `gpulint catalog --format json` and `gpulint inspect` print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Fabric::Efa => "efa",
            Fabric::Infiniband => "infiniband",
            Fabric::GpudirectTcpx => "gpudirecttcpx",
            Fabric::GpudirectTcpxo => "gpudirecttcpxo",
            Fabric::GpudirectRdma => "gpudirectrdma",
            Fabric::None => "none",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceRow {
    pub name: String,
    pub gpu: String,
    pub count: u32,
    pub interconnect: Interconnect,
    pub fabric: Fabric,
    /// The machine's network bandwidth, Gbps.
    pub network_gbps: Option<f64>,
    /// EFA interfaces (AWS).
    pub efa_devices: Option<u32>,
    pub source: String,
    pub confidence: Confidence,
}

/// A GPU that GCP N1 machines take through `guest_accelerator`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceleratorRow {
    pub name: String,
    pub gpu: String,
    /// GPUs per VM that GCP allows.
    pub counts: Vec<u32>,
    pub interconnect: Interconnect,
    pub source: String,
    pub confidence: Confidence,
}

#[derive(Debug)]
pub struct Accelerator {
    pub row: AcceleratorRow,
    pub gpu: &'static Gpu,
}

#[derive(Debug)]
pub struct InstanceType {
    pub provider: Provider,
    pub row: InstanceRow,
    pub gpu: &'static Gpu,
}

#[derive(Deserialize)]
struct GpuFile {
    architecture: Vec<Architecture>,
    unmeasured: Unmeasured,
    gpu: Vec<Gpu>,
}

/// What a GPU without a measured device total is taken to expose.
#[derive(Deserialize)]
struct Unmeasured {
    share: f64,
    #[allow(dead_code)]
    source: String,
}

#[derive(Deserialize)]
struct InstanceFile {
    instance: Vec<InstanceRow>,
    #[serde(default)]
    accelerator: Vec<AcceleratorRow>,
    gpu_families: GpuFamilies,
}

/// The families of a cloud whose machine types all hold GPUs (AWS `g` and `p`, Azure `NC`,
/// GCP `a3`): a type of one that the catalog does not hold (retired, or newer than the
/// catalog) still holds at least 1 GPU.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuFamilies {
    /// Family names, compared without case. A type's family is, on AWS, the letters its
    /// name starts with (`g` of `g4dn.xlarge`); on Azure, the letters after `Standard_`
    /// (`NC` of `Standard_NC6s_v3`); on GCP, what comes before the first `-` (`a3`).
    pub names: Vec<String>,
    pub source: String,
}

/// Why the catalog did not take a config's private instance types.
#[derive(Debug, thiserror::Error)]
pub enum ExtendError {
    /// Row `row` of the private instance types is wrong: a bad GPU, a count of zero, ….
    #[error("{message}")]
    Row { row: usize, message: String },
    /// The catalog was first used before the config was installed (a defect of the caller).
    #[error("the catalog was already in use")]
    InUse,
    /// The embedded data did not load (a defect of the build; the tests load it).
    #[error("{0}")]
    Embedded(String),
}

impl From<String> for ExtendError {
    fn from(m: String) -> Self {
        ExtendError::Embedded(m)
    }
}

#[derive(Debug)]
pub struct Catalog {
    pub gpus: Vec<&'static Gpu>,
    pub architectures: Vec<Architecture>,
    pub instances: Vec<InstanceType>,
    /// GCP N1 attachable GPUs.
    pub accelerators: Vec<Accelerator>,
    pub kubernetes: kubernetes::Vocabulary,
    /// On-demand list prices, a dated snapshot.
    pub prices: prices::Prices,
    gpu_by_name: HashMap<String, &'static Gpu>,
    instance_by_name: HashMap<(Provider, String), usize>,
    gpu_families: Vec<(Provider, GpuFamilies)>,
}

static CATALOG: OnceLock<Catalog> = OnceLock::new();

/// The catalog: the embedded rows, plus any a configuration added with [`extend`] before
/// first use.
pub fn catalog() -> &'static Catalog {
    CATALOG.get_or_init(|| Catalog::load(&[]).expect("the embedded catalog is valid (tested)"))
}

/// Adds private instance types (`[[catalog.instances]]` in `.gpulint.toml`); a row with the
/// name of an embedded one replaces it. Must run before the catalog is first used. On a bad
/// row, the error names its index in `extra`.
pub fn extend(extra: &[(Provider, InstanceRow)]) -> Result<(), ExtendError> {
    let catalog = Catalog::load(extra)?;
    CATALOG.set(catalog).map_err(|_| ExtendError::InUse)
}

impl Catalog {
    fn load(extra: &[(Provider, InstanceRow)]) -> Result<Catalog, ExtendError> {
        let file: GpuFile = toml::from_str(GPUS).map_err(|e| format!("gpus.toml: {e}"))?;
        let architectures = file.architecture;
        let mut rows = file.gpu;
        for g in &mut rows {
            g.unmeasured_share = file.unmeasured.share;
        }
        // The catalog lives for the whole run; leaking it once gives `&'static` rows that
        // the model can point at without lifetimes or reference counts.
        let gpus: &'static [Gpu] = Vec::leak(rows);
        for g in gpus {
            if !architectures.iter().any(|a| a.name == g.architecture) {
                return Err(format!(
                    "gpus.toml: {}: unknown architecture `{}`",
                    g.id, g.architecture
                )
                .into());
            }
        }
        let mut gpu_by_name = HashMap::new();
        for gpu in gpus {
            for name in std::iter::once(&gpu.id)
                .chain(std::iter::once(&gpu.name))
                .chain(&gpu.aliases)
            {
                if let Some(other) = gpu_by_name.insert(name.to_ascii_lowercase(), gpu)
                    && other.id != gpu.id
                {
                    return Err(format!(
                        "GPU name `{name}` names both {} and {}",
                        other.id, gpu.id
                    )
                    .into());
                }
            }
        }
        if let Some(gpu) = gpus.iter().find(|g| {
            g.partition_of
                .as_ref()
                .is_some_and(|whole| !gpu_by_name.contains_key(&whole.to_ascii_lowercase()))
        }) {
            return Err(format!("gpus.toml: {}: `partition_of` names no GPU", gpu.id).into());
        }
        let mut instances = Vec::new();
        let mut accelerators = Vec::new();
        let mut instance_by_name = HashMap::new();
        let mut gpu_families = Vec::new();
        for (provider, file, text) in [
            (Provider::Aws, "aws.toml", AWS),
            (Provider::Gcp, "gcp.toml", GCP),
            (Provider::Azure, "azure.toml", AZURE),
        ] {
            let rows: InstanceFile = toml::from_str(text).map_err(|e| format!("{file}: {e}"))?;
            gpu_families.push((provider, rows.gpu_families));
            for row in rows.accelerator {
                let gpu = *gpu_by_name
                    .get(&row.gpu.to_ascii_lowercase())
                    .ok_or_else(|| format!("{file}: {}: unknown GPU `{}`", row.name, row.gpu))?;
                accelerators.push(Accelerator { row, gpu });
            }
            for row in rows.instance {
                let gpu = *gpu_by_name
                    .get(&row.gpu.to_ascii_lowercase())
                    .ok_or_else(|| format!("{file}: {}: unknown GPU `{}`", row.name, row.gpu))?;
                let key = (provider, row.name.to_ascii_lowercase());
                if instance_by_name.insert(key, instances.len()).is_some() {
                    return Err(format!("{file}: `{}` is listed twice", row.name).into());
                }
                instances.push(InstanceType { provider, row, gpu });
            }
        }
        for (i, (provider, row)) in extra.iter().enumerate() {
            let gpu = *gpu_by_name
                .get(&row.gpu.to_ascii_lowercase())
                .ok_or_else(|| ExtendError::Row {
                    row: i,
                    message: format!("unknown GPU `{}` (see `gpulint catalog`)", row.gpu),
                })?;
            let key = (*provider, row.name.to_ascii_lowercase());
            let typed = InstanceType {
                provider: *provider,
                row: row.clone(),
                gpu,
            };
            match instance_by_name.get(&key) {
                Some(&at) => instances[at] = typed,
                None => {
                    instance_by_name.insert(key, instances.len());
                    instances.push(typed);
                }
            }
        }
        let kubernetes = kubernetes::Vocabulary::load(KUBERNETES, |id| {
            gpu_by_name.get(&id.to_ascii_lowercase()).copied()
        })?;
        let prices = prices::Prices::load(|provider, name| {
            instance_by_name.contains_key(&(provider, name.to_ascii_lowercase()))
        })?;
        Ok(Catalog {
            prices,
            gpus: gpus.iter().collect(),
            architectures,
            instances,
            accelerators,
            kubernetes,
            gpu_by_name,
            instance_by_name,
            gpu_families,
        })
    }

    /// A GPU by id, name or alias, case-insensitively.
    pub fn gpu(&self, name: &str) -> Option<&'static Gpu> {
        self.gpu_by_name
            .get(&name.trim().to_ascii_lowercase())
            .copied()
    }

    /// The generation of a GPU's architecture: larger is newer.
    pub fn generation(&self, gpu: &Gpu) -> u8 {
        self.architectures
            .iter()
            .find(|a| a.name == gpu.architecture)
            .map_or(0, |a| a.generation)
    }

    /// A GCP N1 attachable accelerator by type name (`nvidia-tesla-t4`).
    pub fn accelerator(&self, name: &str) -> Option<&Accelerator> {
        self.accelerators
            .iter()
            .find(|a| a.row.name.eq_ignore_ascii_case(name.trim()))
    }

    /// Instance types of one family, `p5` → `p5.4xlarge`, `p5.48xlarge` (AWS naming).
    pub fn family(&self, family: &str) -> impl Iterator<Item = &InstanceType> {
        self.instances.iter().filter(move |i| {
            i.row
                .name
                .split_once('.')
                .is_some_and(|(f, _)| f.eq_ignore_ascii_case(family))
        })
    }

    /// An instance type of any provider by its API name (names do not collide across
    /// clouds: `p5.48xlarge`, `a3-highgpu-8g`, `Standard_ND96isr_H100_v5`).
    pub fn instance_any(&self, name: &str) -> Option<&InstanceType> {
        [Provider::Aws, Provider::Gcp, Provider::Azure]
            .into_iter()
            .find_map(|p| self.instance(p, name))
    }

    /// An instance type of one provider by its API name, case-insensitively.
    pub fn instance(&self, provider: Provider, name: &str) -> Option<&InstanceType> {
        self.instance_by_name
            .get(&(provider, name.trim().to_ascii_lowercase()))
            .map(|&i| &self.instances[i])
    }

    /// The family of machine type `name` when it is one whose types all hold GPUs (see
    /// [`GpuFamilies`]), as the data writes it.
    pub fn gpu_family(&self, provider: Provider, name: &str) -> Option<&str> {
        let family = family_of(provider, name.trim())?;
        let (_, families) = self.gpu_families.iter().find(|(p, _)| *p == provider)?;
        families
            .names
            .iter()
            .find(|f| f.eq_ignore_ascii_case(family))
            .map(String::as_str)
    }
}

/// The family part of a machine type's name (see [`GpuFamilies::names`]).
fn family_of(provider: Provider, name: &str) -> Option<&str> {
    // The letters before the generation's digit (`g` of `g4dn`, `NC` of `NC6s_v3`).
    fn leading_letters(s: &str) -> Option<&str> {
        let end = s.find(|c: char| !c.is_ascii_alphabetic())?;
        (end > 0 && s.as_bytes()[end].is_ascii_digit()).then(|| &s[..end])
    }
    match provider {
        Provider::Aws => leading_letters(name.split('.').next()?),
        Provider::Azure => {
            let size = name
                .get(..9)
                .filter(|p| p.eq_ignore_ascii_case("standard_"))?;
            leading_letters(&name[size.len()..])
        }
        Provider::Gcp => name.split_once('-').map(|(family, _)| family),
        Provider::Kubernetes => None,
    }
}

/// A machine type looked up in the catalog; `gpus: None` when it has no GPU (or gpulint
/// does not know it as a GPU type).
pub fn instance_machine(provider: Provider, name: &str) -> Machine {
    let row = catalog().instance(provider, name);
    Machine {
        name: name.to_string().into(),
        gpus: row.map(|i| GpuSet {
            gpu: i.gpu,
            count: i.row.count,
            interconnect: i.row.interconnect,
            confidence: i.row.confidence,
        }),
        fabric: row.map(|i| i.row.fabric),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_of_gpu_types_are_read_off_their_names() {
        let c = catalog();
        assert_eq!(c.gpu_family(Provider::Aws, "g3.4xlarge"), Some("g"));
        assert_eq!(c.gpu_family(Provider::Aws, "gr6.4xlarge"), Some("gr"));
        assert_eq!(c.gpu_family(Provider::Aws, "p6-b200.48xlarge"), Some("p"));
        assert_eq!(c.gpu_family(Provider::Aws, "m5.large"), None);
        assert_eq!(c.gpu_family(Provider::Aws, "inf2.xlarge"), None);
        assert_eq!(c.gpu_family(Provider::Azure, "Standard_ND6s"), Some("ND"));
        // Sizes of these series may hold part of a GPU: no bound from the family.
        assert_eq!(c.gpu_family(Provider::Azure, "Standard_NV12"), None);
        assert_eq!(c.gpu_family(Provider::Azure, "Standard_D4s_v5"), None);
        assert_eq!(c.gpu_family(Provider::Gcp, "a3-edgegpu-8g"), Some("a3"));
        assert_eq!(c.gpu_family(Provider::Gcp, "n1-standard-8"), None);
        // A name with no family part is none, and so is one whose letters no generation
        // digit follows.
        assert_eq!(c.gpu_family(Provider::Aws, "g"), None);
        assert_eq!(c.gpu_family(Provider::Aws, "gé.x"), None);
        assert_eq!(c.gpu_family(Provider::Azure, "Standard_N"), None);
    }

    #[test]
    fn embedded_data_loads() {
        let c = Catalog::load(&[]).unwrap();
        assert!(c.gpus.len() >= 25);
        assert!(c.instances.len() >= 100);
    }

    /// Every GPU of gpu-facts.md §1 is in the catalog.
    #[test]
    fn covers_the_fact_sheet() {
        let c = catalog();
        for id in [
            "k80",
            "p100",
            "v100-16gb",
            "v100-32gb",
            "t4",
            "a10",
            "a10g",
            "a100-40gb",
            "a100-40gb-pcie",
            "a100-80gb",
            "a100-80gb-pcie",
            "h100",
            "h100-pcie",
            "h100-nvl",
            "h200",
            "h200-nvl",
            "b100",
            "b200",
            "gb200",
            "b300",
            "gb300",
            "l4",
            "l40s",
            "l40",
            "rtx-6000-ada",
            "rtx-pro-6000",
            "rtx-pro-4500",
            "mi300x",
            "mi250",
        ] {
            assert!(c.gpu(id).is_some(), "{id} missing");
        }
    }

    #[test]
    fn every_row_names_its_source() {
        let c = catalog();
        for g in &c.gpus {
            assert!(!g.source.trim().is_empty(), "{}", g.id);
        }
        for i in &c.instances {
            assert!(!i.row.source.trim().is_empty(), "{}", i.row.name);
            assert!(i.row.count > 0, "{}", i.row.name);
        }
    }

    #[test]
    fn names_resolve_case_insensitively() {
        let c = catalog();
        assert_eq!(c.gpu("NVIDIA-H100-80GB-HBM3").unwrap().id, "h100");
        assert_eq!(c.gpu("nvidia-tesla-t4").unwrap().id, "t4");
        let p5 = c.instance(Provider::Aws, "P5.48XLARGE").unwrap();
        assert_eq!((p5.gpu.id.as_str(), p5.row.count), ("h100", 8));
        assert_eq!(p5.row.interconnect, Interconnect::Nvlink);
        let nd = c
            .instance(Provider::Azure, "standard_nd96isr_h100_v5")
            .unwrap();
        assert_eq!(nd.row.fabric, Fabric::Infiniband);
        assert!(c.instance(Provider::Aws, "t3.medium").is_none());
    }

    #[test]
    fn facts_the_rules_need() {
        let c = catalog();
        let g = |id| c.gpu(id).unwrap();
        assert_eq!(g("l4").lowest_float.as_deref(), Some("fp8"));
        assert_eq!(g("b200").lowest_float.as_deref(), Some("fp4"));
        assert_eq!(g("a100-80gb").lowest_float.as_deref(), Some("fp16"));
        assert_eq!(g("a100-80gb").mig, Some(7));
        assert_eq!(g("l40s").mig, None);
        assert!(c.generation(g("k80")) < c.generation(g("v100")));
        assert!(c.generation(g("a100-80gb")) < c.generation(g("h100")));
        assert_eq!(c.generation(g("h100")), c.generation(g("l4")));
        assert!(c.generation(g("h200")) < c.generation(g("b200")));
        let p5 = c.instance(Provider::Aws, "p5.48xlarge").unwrap();
        assert_eq!(
            (p5.row.network_gbps, p5.row.efa_devices),
            (Some(3200.0), Some(32))
        );
        let v100 = c.accelerator("NVIDIA-TESLA-V100").unwrap();
        assert_eq!(
            (v100.gpu.id.as_str(), v100.row.interconnect),
            ("v100-16gb", Interconnect::Nvlink)
        );
        assert_eq!(c.family("p5").count(), 2);
    }

    #[test]
    fn usable_memory_is_what_cuda_exposes_and_never_more_than_the_vendor_figure() {
        let l4 = catalog().gpu("l4").unwrap();
        assert_eq!(l4.usable_mib, Some(22_888));
        assert_eq!(l4.memory_bytes(), 24 << 30);
        // PyTorch reports 21.96 GiB of total capacity on an L4.
        assert_eq!(l4.usable_bytes(), 23_579_370_455); // 21.96 × 2^30, rounded
        assert!(l4.usable_measured());
        for g in &catalog().gpus {
            assert!(g.usable_bytes() <= g.memory_bytes(), "{}", g.id);
            assert!(g.usable_bytes() * 10 >= g.memory_bytes() * 8, "{}", g.id);
            assert!(
                g.cuda_total_gib.is_none() || g.cuda_source.is_some(),
                "{}",
                g.id
            );
        }
        // A GPU nobody measured is bounded below its vendor figure.
        let unmeasured = catalog()
            .gpus
            .iter()
            .find(|g| !g.usable_measured())
            .unwrap();
        assert!(unmeasured.usable_bytes() < unmeasured.memory_bytes());
    }
}
