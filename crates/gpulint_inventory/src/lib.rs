//! gpulint_inventory: the inventory the rules read, as data for people, tools and policies
//! (`gpulint inspect`), and priced (`gpulint cost`, [`cost`]).
//!
//! [`View::new`] turns the model ([`Inventory`]) and the files it came from into plain
//! serde structs: positions instead of byte spans, words instead of enums, capacity
//! subjects instead of indices. `report::inspect` prints the view as JSON, whose contract
//! is `schemas/inspect.schema.json`, and as an indented tree drawn from that same JSON, so
//! both formats always show the same fields.
//!
//! Every value of the model has one encoding, [`Field`]: `null` when it was not written
//! (the provider's default applies), `{"state": "known", "value", "file", "line",
//! "column"}` when gpulint evaluated it, and `{"state": "unknown", "file", "line",
//! "column", "reason"}` when it is written but gpulint cannot evaluate it (rules skip
//! those). Parts of the model that are not values (a pod's serving spec, a machine's GPUs)
//! are left out when there are none.
//!
//! Adding a model field is a line in its view struct and a line where the struct is
//! built; the tree shows it without more, and the schema test fails until the schema
//! describes it.
//!
//! May use: gpulint_source, gpulint_facts (prices, fabrics), gpulint_model, gpulint_fit (model
//! names) and gpulint_diagnostics (locations).

pub mod cost;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use gpulint_diagnostics::Location;
use gpulint_model::{self as model, Inventory, Span, Value};
use gpulint_source::SourceDb;

/// The `version` of the JSON document. Bumped when a field changes meaning or goes away;
/// new fields may appear within a version.
pub const VERSION: u32 = 1;

/// Why an unknown value is unknown, as the view says it.
pub const UNKNOWN: &str = "written here but not evaluable: a variable without a value, a data \
     source, a function or placeholder gpulint does not read";

/// Why a role is unknown: the model keeps no evidence for it.
pub const UNKNOWN_ROLE: &str = "not decided: a role hint gpulint does not understand, or a \
     workload that neither trains nor serves (a fabric benchmark)";

/// The whole inventory.
#[derive(Serialize)]
pub struct View<'a> {
    pub version: u32,
    pub capacity: Vec<Capacity<'a>>,
    pub workloads: Vec<Workload<'a>>,
    pub problems: Vec<Problem<'a>>,
}

impl<'a> View<'a> {
    pub fn new(db: &'a SourceDb, inv: &'a Inventory) -> Self {
        let cx = Cx { db, inv };
        View {
            version: VERSION,
            capacity: inv.capacity.iter().map(|c| cx.capacity(c)).collect(),
            workloads: inv
                .workloads
                .iter()
                .chain(&inv.simulated)
                .map(|w| cx.workload(w))
                .collect(),
            problems: cx.problems(),
        }
    }
}

/// Where something was written: the start of its span. Lines and columns start at 1;
/// columns count characters.
#[derive(Clone, Serialize)]
pub struct At<'a> {
    pub file: &'a str,
    pub line: usize,
    pub column: usize,
}

/// A value of the model: known with where it was written, or unknown with where and why.
/// `Option<Field>` is the whole encoding: `None` (`null`) is a value not written.
pub enum Field<'a, T> {
    Known(T, At<'a>),
    /// Where, and why it is unknown ([`UNKNOWN`] for a value).
    Unknown(At<'a>, &'static str),
}

impl<T: Serialize> Field<'_, T> {
    /// Its entries, into a map that may hold more (a role's evidence).
    fn entries<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let at = match self {
            Field::Known(value, at) => {
                map.serialize_entry("state", "known")?;
                map.serialize_entry("value", value)?;
                at
            }
            Field::Unknown(at, _) => {
                map.serialize_entry("state", "unknown")?;
                at
            }
        };
        map.serialize_entry("file", at.file)?;
        map.serialize_entry("line", &at.line)?;
        map.serialize_entry("column", &at.column)?;
        if let Field::Unknown(_, reason) = self {
            map.serialize_entry("reason", reason)?;
        }
        Ok(())
    }
}

impl<T: Serialize> Serialize for Field<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        self.entries(&mut map)?;
        map.end()
    }
}

/// A role, with the signal that decided it.
pub struct Inferred<'a> {
    pub role: Field<'a, &'static str>,
    pub evidence: Option<Evidence<'a>>,
}

impl Serialize for Inferred<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        self.role.entries(&mut map)?;
        if let Some(e) = &self.evidence {
            map.serialize_entry("evidence", e)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
pub struct Evidence<'a> {
    /// `hint`, `kind`, `command`, … ([`model::Signal::as_str`]).
    pub signal: &'static str,
    /// `Job running \`python pretrain.py\``.
    pub detail: &'a str,
}

#[derive(Serialize)]
pub struct Capacity<'a> {
    pub subject: &'a str,
    pub provider: &'static str,
    pub kind: &'static str,
    /// The resource's header.
    #[serde(flatten)]
    pub at: At<'a>,
    pub machines: Option<Field<'a, Vec<Machine<'a>>>>,
    /// GPUs each machine surely holds when its type is not known, or not in the catalog;
    /// left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus_at_least: Option<GpuFloor<'a>>,
    pub market: Option<Field<'a, &'static str>>,
    pub scale: Scale<'a>,
    pub zones: Option<Field<'a, Zones<'a>>>,
    /// The region the code names for it (its zones' region, its provider block's, an Azure
    /// `location`); `null` when none is known. Prices say when theirs is another.
    pub region: Option<&'a str>,
    pub placement: Option<Field<'a, &'static str>>,
    pub fast_fabric: Option<Field<'a, bool>>,
    /// `true` where a reservation or capacity block backs it; `null` when nothing does.
    pub reserved: Option<Field<'a, bool>>,
    pub role: Option<Inferred<'a>>,
    pub labels: Vec<Label<'a>>,
    /// Taints the pool puts on its nodes (`key` always set).
    pub taints: Vec<Toleration<'a>>,
    pub stop: Vec<Stop<'a>>,
    /// A service that keeps machines of the group running whatever its minimum says; left
    /// out when none does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<Held<'a>>,
    /// Whether a VM keeps what it wrote to disk through a spot reclaim (`true` where that
    /// is written, `false` at the line that sends the disks with it); left out for
    /// capacity it is not read for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lasting_storage: Option<Field<'a, bool>>,
    /// The serving engine a VM's start-up script runs, as a pod's is shown; left out when
    /// none is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serving: Option<Serving<'a>>,
}

/// Tasks of a service that hold up machines of a group, where their count is written.
#[derive(Serialize)]
pub struct Held<'a> {
    pub by: &'a str,
    pub tasks: u64,
    pub machines_at_least: u64,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
pub struct Machine<'a> {
    pub name: &'a str,
    /// Left out when the machine has no GPU.
    #[serde(flatten)]
    pub gpus: Option<GpuSet>,
    /// Left out when the catalog does not know it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fabric: Option<&'static str>,
    /// Its on-demand list price from the price snapshot; left out when the snapshot has
    /// none (nothing is interpolated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<Price>,
}

/// An instance type's on-demand list price, as the dated snapshot gives it.
#[derive(Serialize)]
pub struct Price {
    pub usd_per_hour: f64,
    /// Where the price holds.
    pub region: &'static str,
    /// The source's date.
    pub as_of: &'static str,
    /// The source keys (`reference/gpu-prices.md`).
    pub source: &'static str,
}

/// The GPUs of one machine, as `gpulint catalog --format json` names them.
#[derive(Serialize)]
pub struct GpuSet {
    /// The catalog id: `h100-sxm`.
    pub gpu: &'static str,
    pub gpu_name: &'static str,
    pub gpu_count: u32,
    pub interconnect: &'static str,
    pub confidence: &'static str,
}

#[derive(Serialize)]
pub struct Scale<'a> {
    pub min: Option<Field<'a, u64>>,
    pub max: Option<Field<'a, u64>>,
    /// The size it starts at or is asked to keep, where written (`desired_size`, …).
    pub desired: Option<Field<'a, u64>>,
    /// Set when the written bounds are per zone: `min` and `max` are the written figure
    /// times this many zones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_zone: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Zones<'a> {
    Listed(&'a [gpulint_model::Str]),
    /// Every zone of this region.
    Region(&'a str),
}

#[derive(Serialize)]
pub struct Label<'a> {
    pub key: &'a str,
    pub value: &'a str,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
pub struct GpuFloor<'a> {
    pub count: u32,
    pub evidence: &'a str,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
pub struct Stop<'a> {
    pub kind: &'static str,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
pub struct Workload<'a> {
    pub subject: &'a str,
    pub kind: &'a str,
    pub name: Option<&'a str>,
    #[serde(flatten)]
    pub at: At<'a>,
    /// What read the kind: an operator row of the table (`KubeRay`, `KServe`), or
    /// `generic` when only the pod-spec search did.
    pub read_by: &'a str,
    pub role: Option<Inferred<'a>>,
    /// Pods one run spreads over that must talk across nodes; left out when it does not,
    /// or gpulint cannot tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spans_pods: Option<Field<'a, u32>>,
    /// `false` when `spans_pods` is a lower bound (a replica count is a placeholder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spans_exact: Option<bool>,
    /// Runs a fabric benchmark (nccl-tests): neither trains nor serves.
    pub benchmark: bool,
    /// What it runs, when it is a benchmark: `nccl-tests`, `a GPU check`, `a placeholder`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub benchmark_of: Option<&'a str>,
    /// Its pods run on simulated nodes (KWOK): the sign. No rule judges it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated: Option<&'a str>,
    /// Tears itself down once its work is done (a RayJob's settings, an MPIJob's clean-pod
    /// policy, a Job's deadline).
    pub ends: Option<Field<'a, bool>>,
    pub pods: Vec<Pod<'a>>,
}

#[derive(Serialize)]
pub struct Pod<'a> {
    pub group: &'a str,
    #[serde(flatten)]
    pub at: At<'a>,
    pub replicas: Option<Field<'a, u32>>,
    pub gpus: Option<Field<'a, GpuRequest<'a>>>,
    pub requirements: Vec<Requirement<'a>>,
    pub selection: Selection<'a>,
    pub tolerations: Vec<Toleration<'a>>,
    pub volumes: Vec<Volume<'a>>,
    pub containers: Vec<Container<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serving: Option<Serving<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launcher: Option<Launcher<'a>>,
    /// How its controller resizes the group (KubeRay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaling: Option<Scaling<'a>>,
    /// What the pod says about the fast inter-node fabric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fabric: Option<FabricSignal<'a>>,
    /// The controller that writes the pod's containers (`Kaito`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_by: Option<&'static str>,
    /// The controller that mounts a memory-backed `/dev/shm` itself (KubeRay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shm_by: Option<&'static str>,
    pub spread: Vec<Spread<'a>>,
    /// The capacity of the run this pod can land on.
    pub landing: Vec<Landing<'a>>,
}

#[derive(Serialize)]
pub struct GpuRequest<'a> {
    pub resource: &'a str,
    /// A lower bound when not `exact`.
    pub count: u32,
    /// `false` when the count is a placeholder (`$GPUS`): at least one GPU.
    pub exact: bool,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scaling<'a> {
    /// Always one pod (a Ray head).
    Single,
    /// Pods an autoscaler may add and remove between bounds (a Ray worker group).
    Autoscaled(Box<Autoscale<'a>>),
}

#[derive(Serialize)]
pub struct Autoscale<'a> {
    pub enabled: Option<Field<'a, bool>>,
    pub replicas: Option<Field<'a, u32>>,
    pub min: Option<Field<'a, u32>>,
    pub max: Option<Field<'a, u32>>,
    /// Where the idle timeout is set.
    pub idle_timeout: Option<Field<'a, bool>>,
}

#[derive(Serialize)]
pub struct FabricSignal<'a> {
    /// Set up, or turned off (`NCCL_IB_DISABLE=1`).
    pub on: bool,
    /// `requests vpc.amazonaws.com/efa`.
    pub what: &'a str,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
pub struct Requirement<'a> {
    pub key: &'a str,
    pub values: &'a [gpulint_model::Str],
    /// `operator: Exists`: the label must be set, to any value.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exists: bool,
    #[serde(flatten)]
    pub at: At<'a>,
}

/// What the pod's node requirements say about capacity.
#[derive(Serialize)]
pub struct Selection<'a> {
    /// Catalog GPU ids.
    pub gpus: Option<Field<'a, Vec<&'static str>>>,
    pub instance_types: Option<Field<'a, &'a [gpulint_model::Str]>>,
    pub market: Option<Field<'a, &'static str>>,
    pub zones: Option<Field<'a, &'a [gpulint_model::Str]>>,
}

#[derive(Serialize)]
pub struct Toleration<'a> {
    pub key: Option<&'a str>,
    pub value: Option<&'a str>,
    pub effect: Option<&'a str>,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
pub struct Volume<'a> {
    pub name: &'a str,
    pub source: VolumeSource<'a>,
    #[serde(flatten)]
    pub at: At<'a>,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VolumeSource<'a> {
    PersistentVolumeClaim {
        claim: &'a str,
    },
    EmptyDir {
        memory: bool,
    },
    HostPath {
        path: &'a str,
    },
    Csi {
        driver: &'a str,
    },
    /// Another source, by its key (`configMap`).
    Other {
        source: &'a str,
    },
}

#[derive(Serialize)]
pub struct Container<'a> {
    pub name: &'a str,
    #[serde(flatten)]
    pub at: At<'a>,
    pub image: Option<&'a str>,
    /// `command` then `args`.
    pub argv: Vec<&'a str>,
    pub gpus: Option<Field<'a, GpuRequest<'a>>>,
    pub cpu_request: Option<Field<'a, &'a str>>,
    pub memory_request: Option<Field<'a, &'a str>>,
    pub mounts: Vec<Mount<'a>>,
    /// The names of the environment variables with literal values (values are not shown).
    pub env: Vec<&'a str>,
    /// Declares ports or probes: it answers requests.
    pub listens: bool,
}

#[derive(Serialize)]
pub struct Mount<'a> {
    pub volume: &'a str,
    pub path: &'a str,
}

#[derive(Serialize)]
pub struct Serving<'a> {
    pub engine: &'static str,
    /// The container that runs it.
    #[serde(flatten)]
    pub at: At<'a>,
    pub model: Option<Field<'a, &'a str>>,
    pub params: Option<Field<'a, f64>>,
    pub precision: Option<Field<'a, &'a str>>,
    pub quantization: Option<Field<'a, &'a str>>,
    pub kv_precision: Option<Field<'a, &'a str>>,
    pub tp: Option<Field<'a, u32>>,
    pub pp: Option<Field<'a, u32>>,
    /// Data-parallel copies of the model in the pod.
    pub dp: Option<Field<'a, u32>>,
    pub max_model_len: Option<Field<'a, u64>>,
    pub gpu_memory_utilization: Option<Field<'a, f64>>,
    /// Tokens of the engine's largest forward pass, as written (`--max-num-batched-tokens`,
    /// `--max-batch-prefill-tokens`, `--chunked-prefill-size`).
    pub max_num_batched_tokens: Option<Field<'a, u64>>,
    /// Sequences at once, as written (`--max-num-seqs`, `--max-running-requests`).
    pub max_num_seqs: Option<Field<'a, u64>>,
    /// No CUDA graphs (`--enforce-eager`, `--disable-cuda-graph`).
    pub enforce_eager: Option<Field<'a, bool>>,
    /// Numeric settings written where gpulint cannot evaluate them (`$TP`): rules that
    /// size the engine skip it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<At<'a>>,
    /// The model as the memory math reads it: its registry id and size, or the size its
    /// name states. Left out when there is no model name or it gives no size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<Resolved>,
}

/// A model name resolved by the model registry (`gpulint fit` reads it the same way).
#[derive(Serialize)]
pub struct Resolved {
    /// The registry's id, or `null` when only the name states a size (`acme-70b`).
    pub id: Option<&'static str>,
    /// Parameters, every expert of a mixture of experts included.
    pub params: f64,
    /// `registry` or `name`.
    pub from: &'static str,
}

#[derive(Serialize)]
pub struct Launcher<'a> {
    #[serde(flatten)]
    pub at: At<'a>,
    pub nnodes: Option<u32>,
    pub nproc_per_node: Option<u32>,
}

#[derive(Serialize)]
pub struct Spread<'a> {
    pub key: &'a str,
    #[serde(flatten)]
    pub at: At<'a>,
}

/// A capacity a pod can land on: its subject, and its index in `capacity`.
#[derive(Serialize)]
pub struct Landing<'a> {
    pub subject: &'a str,
    pub capacity: usize,
}

/// A file that did not parse or could not be read, or a limit hit: what the inventory
/// is missing.
#[derive(Serialize)]
pub struct Problem<'a> {
    /// `syntax_error`, `unread` or `limit`.
    pub kind: &'static str,
    /// The file, or for a limit the module's address.
    pub subject: &'a str,
    #[serde(flatten)]
    pub at: At<'a>,
    pub message: String,
    /// For a limit: its key under `[limits]` and its value in this run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<u64>,
}

/// What building the view needs besides the part being built.
struct Cx<'a> {
    db: &'a SourceDb,
    inv: &'a Inventory,
}

impl<'a> Cx<'a> {
    fn at(&self, span: &Span) -> At<'a> {
        let l = Location::at(self.db, span.file, Some(&span.range()));
        At {
            file: l.file,
            line: l.region.start_line,
            column: l.region.start_column,
        }
    }

    /// A model value, its known part shown through `f`.
    fn value<T, U>(&self, v: &'a Value<T>, f: impl FnOnce(&'a T) -> U) -> Option<Field<'a, U>> {
        match v {
            Value::Known(x, span) => Some(Field::Known(f(x), self.at(span))),
            Value::Unknown(span) => Some(Field::Unknown(self.at(span), UNKNOWN)),
            Value::Absent => None,
        }
    }

    /// A value the model keeps only when written (and then known).
    fn written<T, U>(
        &self,
        v: Option<&'a (T, Span)>,
        f: impl FnOnce(&'a T) -> U,
    ) -> Option<Field<'a, U>> {
        v.map(|(x, span)| Field::Known(f(x), self.at(span)))
    }

    /// Something the model records only by where it is written: `true` there.
    fn marked(&self, span: Option<&'a Span>) -> Option<Field<'a, bool>> {
        span.map(|span| Field::Known(true, self.at(span)))
    }

    fn role(&self, r: &'a model::Inferred<model::Role>) -> Option<Inferred<'a>> {
        let role = match self.value(&r.value, |r| r.as_str())? {
            Field::Unknown(at, _) => Field::Unknown(at, UNKNOWN_ROLE),
            known @ Field::Known(..) => known,
        };
        Some(Inferred {
            role,
            evidence: r.evidence.as_ref().map(|e| Evidence {
                signal: e.signal.as_str(),
                detail: &e.detail,
            }),
        })
    }

    fn capacity(&self, c: &'a model::Capacity) -> Capacity<'a> {
        Capacity {
            subject: &c.subject,
            provider: c.provider.as_str(),
            kind: capacity_kind(c.kind),
            at: self.at(&c.header),
            machines: self.value(&c.machines, |m| {
                m.iter().map(|m| machine(c.provider, m)).collect()
            }),
            gpus_at_least: c.gpus_at_least.as_ref().map(|f| GpuFloor {
                count: f.count,
                evidence: &f.evidence,
                at: self.at(&f.span),
            }),
            market: self.value(&c.market, |m| market(*m)),
            scale: Scale {
                min: self.value(&c.scale.min, |n| *n),
                max: self.value(&c.scale.max, |n| *n),
                desired: self.value(&c.scale.desired, |n| *n),
                per_zone: c.scale.per_zone,
            },
            region: c.region(),
            zones: self.value(&c.zones, |z| match z {
                model::Zones::Listed(z) => Zones::Listed(z),
                model::Zones::Region(r) => Zones::Region(r),
            }),
            placement: self.value(&c.placement, |p| placement(*p)),
            fast_fabric: self.value(&c.fast_fabric, |b| *b),
            reserved: self.marked(c.reserved.as_ref()),
            role: self.role(&c.role),
            labels: c
                .labels
                .iter()
                .map(|(key, value, span)| Label {
                    key,
                    value,
                    at: self.at(span),
                })
                .collect(),
            taints: c
                .taints
                .iter()
                .map(|t| Toleration {
                    key: Some(&t.key),
                    value: t.value.as_deref(),
                    effect: Some(&t.effect),
                    at: self.at(&t.span),
                })
                .collect(),
            stop: c
                .stop
                .iter()
                .map(|s| Stop {
                    kind: stop_kind(s.kind),
                    at: self.at(&s.span),
                })
                .collect(),
            held: c.held.as_ref().map(|h| Held {
                by: &h.by,
                tasks: h.tasks,
                machines_at_least: h.machines,
                at: self.at(&h.span),
            }),
            lasting_storage: self.value(&c.lasting_storage, |b| *b),
            serving: c.serving.as_ref().map(|s| self.serving(s)),
        }
    }

    fn workload(&self, w: &'a model::Workload) -> Workload<'a> {
        Workload {
            subject: &w.subject,
            kind: &w.kind,
            name: w.name.as_deref(),
            at: self.at(&w.span),
            read_by: w.read_by.unwrap_or("generic"),
            role: self.role(&w.role),
            spans_pods: w
                .spans
                .as_ref()
                .map(|s| Field::Known(s.pods, self.at(&s.span))),
            spans_exact: w.spans.as_ref().map(|s| s.exact),
            benchmark: w.benchmark.is_some(),
            benchmark_of: w.benchmark.as_ref().map(|b| b.name),
            simulated: w.simulated.as_deref(),
            ends: self.value(&w.ends, |b| *b),
            pods: w.pods.iter().map(|p| self.pod(p)).collect(),
        }
    }

    fn pod(&self, p: &'a model::PodShape) -> Pod<'a> {
        let s = &p.selection;
        Pod {
            group: &p.group,
            at: self.at(&p.span),
            replicas: self.value(&p.replicas, |n| *n),
            gpus: self.value(&p.gpus, gpu_request),
            requirements: p
                .requirements
                .iter()
                .map(|r| Requirement {
                    key: &r.key,
                    values: &r.values,
                    exists: r.exists,
                    at: self.at(&r.span),
                })
                .collect(),
            selection: Selection {
                gpus: self.written(s.gpus.as_ref(), |g| {
                    g.iter().map(|g| g.id.as_str()).collect()
                }),
                instance_types: self.written(s.instance_types.as_ref(), Vec::as_slice),
                market: self.written(s.market.as_ref(), |m| market(*m)),
                zones: self.written(s.zones.as_ref(), Vec::as_slice),
            },
            tolerations: p
                .tolerations
                .iter()
                .map(|t| Toleration {
                    key: t.key.as_deref(),
                    value: t.value.as_deref(),
                    effect: t.effect.as_deref(),
                    at: self.at(&t.span),
                })
                .collect(),
            volumes: p
                .volumes
                .iter()
                .map(|v| Volume {
                    name: &v.name,
                    source: volume_source(&v.source),
                    at: self.at(&v.span),
                })
                .collect(),
            containers: p.containers.iter().map(|c| self.container(c)).collect(),
            serving: p.serving.as_ref().map(|s| self.serving(s)),
            launcher: p.launcher.as_ref().map(|l| Launcher {
                at: self.at(&l.span),
                nnodes: l.nnodes,
                nproc_per_node: l.nproc_per_node,
            }),
            scaling: p.scaling.as_ref().map(|s| self.scaling(s)),
            fabric: p.fabric.as_ref().map(|f| FabricSignal {
                on: f.on,
                what: &f.what,
                at: self.at(&f.span),
            }),
            generated_by: p.generated_by,
            shm_by: p.shm_by,
            spread: p
                .spread
                .iter()
                .map(|(key, span)| Spread {
                    key,
                    at: self.at(span),
                })
                .collect(),
            // An index the model got wrong is left out, never a panic.
            landing: p
                .landing
                .iter()
                .filter_map(|&i| {
                    Some(Landing {
                        subject: &self.inv.capacity.get(i)?.subject,
                        capacity: i,
                    })
                })
                .collect(),
        }
    }

    fn container(&self, c: &'a model::Container) -> Container<'a> {
        Container {
            name: &c.name,
            at: self.at(&c.span),
            image: c.image.as_deref(),
            argv: c.argv.iter().map(|(word, _)| word.as_str()).collect(),
            gpus: self.value(&c.gpus, gpu_request),
            cpu_request: self.value(&c.cpu_request, model::Str::as_str),
            memory_request: self.value(&c.memory_request, model::Str::as_str),
            mounts: c
                .mounts
                .iter()
                .map(|m| Mount {
                    volume: &m.volume,
                    path: &m.path,
                })
                .collect(),
            env: c.env.iter().map(|(name, _, _)| name.as_str()).collect(),
            listens: c.listens,
        }
    }

    fn scaling(&self, s: &'a model::GroupScaling) -> Scaling<'a> {
        match s {
            model::GroupScaling::Single => Scaling::Single,
            model::GroupScaling::Autoscaled(a) => Scaling::Autoscaled(Box::new(Autoscale {
                enabled: self.value(&a.enabled, |b| *b),
                replicas: self.value(&a.replicas, |n| *n),
                min: self.value(&a.min, |n| *n),
                max: self.value(&a.max, |n| *n),
                idle_timeout: self.marked(a.idle_timeout.as_ref()),
            })),
        }
    }

    fn serving(&self, s: &'a model::Serving) -> Serving<'a> {
        Serving {
            engine: engine(s.engine),
            at: self.at(&s.span),
            model: self.written(s.model.as_ref(), String::as_str),
            params: self.written(s.params.as_ref(), |p| *p),
            precision: self.written(s.precision.as_ref(), String::as_str),
            quantization: self.written(s.quantization.as_ref(), String::as_str),
            kv_precision: self.written(s.kv_precision.as_ref(), String::as_str),
            tp: self.written(s.tp.as_ref(), |n| *n),
            pp: self.written(s.pp.as_ref(), |n| *n),
            dp: self.written(s.dp.as_ref(), |n| *n),
            max_model_len: self.written(s.max_model_len.as_ref(), |n| *n),
            gpu_memory_utilization: self.written(s.gpu_memory_utilization.as_ref(), |u| *u),
            max_num_batched_tokens: self
                .written(s.batching.max_num_batched_tokens.as_ref(), |n| *n),
            max_num_seqs: self.written(s.batching.max_num_seqs.as_ref(), |n| *n),
            enforce_eager: self.marked(s.batching.enforce_eager.as_ref()),
            unknown: s.unknown.iter().map(|sp| self.at(sp)).collect(),
            resolved: s.model.as_ref().and_then(|(m, _)| {
                let r = gpulint_fit::models::resolve(m)?;
                Some(Resolved {
                    id: r.spec.map(|spec| spec.id.as_str()),
                    params: r.params,
                    from: if r.spec.is_some() { "registry" } else { "name" },
                })
            }),
        }
    }

    fn problems(&self) -> Vec<Problem<'a>> {
        let syntax = self.inv.syntax_errors.iter().map(|e| Problem {
            kind: if e.unread { "unread" } else { "syntax_error" },
            subject: &e.subject,
            at: self.at(&Span::new(e.file, e.offset..e.offset)),
            message: e.message.clone(),
            limit: None,
            value: None,
        });
        let limits = self.inv.limits.iter().map(|l| Problem {
            kind: "limit",
            subject: &l.subject,
            at: self.at(&l.span),
            message: format!(
                "reached the limit of {} {}: {}",
                l.value,
                l.limit.unit(),
                l.unchecked
            ),
            limit: Some(l.limit.key()),
            value: Some(l.value),
        });
        syntax.chain(limits).collect()
    }
}

fn machine(provider: model::Provider, m: &model::Machine) -> Machine<'_> {
    let price = gpulint_facts::catalog().prices.get(provider, &m.name);
    Machine {
        name: &m.name,
        gpus: m.gpus.as_ref().map(|g| GpuSet {
            gpu: &g.gpu.id,
            gpu_name: &g.gpu.name,
            gpu_count: g.count,
            interconnect: g.interconnect.as_str(),
            confidence: g.confidence.as_str(),
        }),
        fabric: m.fabric.map(gpulint_facts::Fabric::as_str),
        price: price.map(|p| Price {
            usd_per_hour: p.usd_per_hour,
            region: &p.region,
            as_of: &p.as_of,
            source: &p.source,
        }),
    }
}

fn gpu_request(g: &model::GpuRequest) -> GpuRequest<'_> {
    GpuRequest {
        resource: &g.resource,
        count: g.count,
        exact: g.exact,
    }
}

fn capacity_kind(k: model::CapacityKind) -> &'static str {
    use model::CapacityKind as K;
    match k {
        K::Instance => "instance",
        K::Template => "template",
        K::Group => "group",
        K::NodePool => "node_pool",
        K::Reservation => "reservation",
        K::Notebook => "notebook",
    }
}

fn market(m: model::Market) -> &'static str {
    use model::Market as M;
    match m {
        M::OnDemand => "on_demand",
        M::Spot => "spot",
        M::Reserved => "reserved",
        M::Mixed => "mixed",
    }
}

fn placement(p: model::Placement) -> &'static str {
    match p {
        model::Placement::Cluster => "cluster",
        model::Placement::Spread => "spread",
    }
}

fn stop_kind(k: model::StopKind) -> &'static str {
    use model::StopKind as K;
    match k {
        K::StopAlarm => "stop_alarm",
        K::MaxRunDuration => "max_run_duration",
        K::InstanceSchedule => "instance_schedule",
        K::ShutdownSchedule => "shutdown_schedule",
        K::StartupShutdown => "startup_shutdown",
        K::Unresolved => "unresolved",
    }
}

fn engine(e: model::Engine) -> &'static str {
    use model::Engine as E;
    match e {
        E::Vllm => "vllm",
        E::Tgi => "tgi",
        E::Sglang => "sglang",
        E::Nim => "nim",
        E::Other(name) => name,
        E::Hint => "hint",
    }
}

fn volume_source(s: &model::VolumeSource) -> VolumeSource<'_> {
    use model::VolumeSource as S;
    match s {
        S::PersistentClaim(claim) => VolumeSource::PersistentVolumeClaim { claim },
        S::EmptyDir { memory } => VolumeSource::EmptyDir { memory: *memory },
        S::HostPath(path) => VolumeSource::HostPath { path },
        S::Csi(driver) => VolumeSource::Csi { driver },
        S::Other(source) => VolumeSource::Other { source },
    }
}
