//! The GPU and instance-type catalog: embedded data files, each row with its source.
//!
//! Rules and lowerers ask the catalog; no GPU fact lives in their code.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::model::Provider;

const GPUS: &str = include_str!("data/gpus.toml");
const AWS: &str = include_str!("data/aws.toml");
const GCP: &str = include_str!("data/gcp.toml");
const AZURE: &str = include_str!("data/azure.toml");

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

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub architecture: String,
    pub year: Option<u16>,
    /// The vendor figure, decimal GB.
    pub memory_gb: f64,
    /// Per-GPU memory as cloud APIs report it (MiB), where known.
    pub usable_mib: Option<u64>,
    /// NVLink generation, absent when the GPU has none.
    pub nvlink: Option<u8>,
    pub source: String,
    pub confidence: Confidence,
}

impl Gpu {
    /// Memory a workload can count on: the API figure where known, else the vendor figure
    /// read as decimal bytes (the smaller reading of "GB").
    pub fn usable_bytes(&self) -> u64 {
        self.usable_mib
            .map_or_else(|| self.memory_bytes(), |mib| mib * 1024 * 1024)
    }

    /// Memory in bytes by the vendor figure.
    pub fn memory_bytes(&self) -> u64 {
        // Catalog figures are small positive numbers (tested), so the cast is exact.
        #[allow(clippy::cast_sign_loss)]
        let bytes = (self.memory_gb * 1e9).round() as u64;
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

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceRow {
    pub name: String,
    pub gpu: String,
    pub count: u32,
    pub interconnect: Interconnect,
    pub fabric: Fabric,
    pub source: String,
    pub confidence: Confidence,
}

#[derive(Debug)]
pub struct InstanceType {
    pub provider: Provider,
    pub row: InstanceRow,
    pub gpu: &'static Gpu,
}

#[derive(Deserialize)]
struct GpuFile {
    gpu: Vec<Gpu>,
}

#[derive(Deserialize)]
struct InstanceFile {
    instance: Vec<InstanceRow>,
}

#[derive(Debug)]
pub struct Catalog {
    pub gpus: Vec<&'static Gpu>,
    pub instances: Vec<InstanceType>,
    gpu_by_name: HashMap<String, &'static Gpu>,
    instance_by_name: HashMap<(Provider, String), usize>,
}

/// The embedded catalog, loaded on first use.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| Catalog::load().expect("the embedded catalog is valid (tested)"))
}

impl Catalog {
    fn load() -> Result<Catalog, String> {
        let gpus: GpuFile = toml::from_str(GPUS).map_err(|e| format!("gpus.toml: {e}"))?;
        // The catalog lives for the whole run; leaking it once gives `&'static` rows that
        // the model can point at without lifetimes or reference counts.
        let gpus: &'static [Gpu] = Vec::leak(gpus.gpu);
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
                    ));
                }
            }
        }
        let mut instances = Vec::new();
        let mut instance_by_name = HashMap::new();
        for (provider, file, text) in [
            (Provider::Aws, "aws.toml", AWS),
            (Provider::Gcp, "gcp.toml", GCP),
            (Provider::Azure, "azure.toml", AZURE),
        ] {
            let rows: InstanceFile = toml::from_str(text).map_err(|e| format!("{file}: {e}"))?;
            for row in rows.instance {
                let gpu = *gpu_by_name
                    .get(&row.gpu.to_ascii_lowercase())
                    .ok_or_else(|| format!("{file}: {}: unknown GPU `{}`", row.name, row.gpu))?;
                let key = (provider, row.name.to_ascii_lowercase());
                if instance_by_name.insert(key, instances.len()).is_some() {
                    return Err(format!("{file}: `{}` is listed twice", row.name));
                }
                instances.push(InstanceType { provider, row, gpu });
            }
        }
        Ok(Catalog {
            gpus: gpus.iter().collect(),
            instances,
            gpu_by_name,
            instance_by_name,
        })
    }

    /// A GPU by id, name or alias, case-insensitively.
    pub fn gpu(&self, name: &str) -> Option<&'static Gpu> {
        self.gpu_by_name
            .get(&name.trim().to_ascii_lowercase())
            .copied()
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_data_loads() {
        let c = Catalog::load().unwrap();
        assert!(c.gpus.len() >= 25);
        assert!(c.instances.len() >= 100);
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
    fn usable_memory_of_l4_is_what_ec2_reports() {
        let l4 = catalog().gpu("l4").unwrap();
        assert_eq!(l4.usable_mib, Some(22_888));
        assert_eq!(l4.memory_bytes(), 24_000_000_000);
    }
}
