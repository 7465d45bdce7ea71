//! gpulint_model: the provider-agnostic inventory of GPU infrastructure that rules read.
//!
//! Lowerers fill it; rules only read it. Every value carries the span it came from, and a
//! value gpulint could not evaluate is [`Value::Unknown`]: rules never guess from it.
//!
//! May use: gpulint_source (file ids, limits) and gpulint_facts (GPUs and the shared
//! vocabulary, re-exported here).

pub mod intent;

use std::ops::Range;
use std::sync::Arc;

pub use gpulint_facts::vocab::{GpuSet, Machine, Market, Provider};
use gpulint_source::FileId;

pub use gpulint_facts::vocab::Str;

mod floor;
pub use floor::{count_block, gpus, written_reference};
mod workload;
pub use workload::{
    Autoscale, Batching, Benchmark, ClaimRef, Container, Engine, FabricSignal, GpuClaim,
    GpuRequest, GroupScaling, Launcher, MergeRef, Mount, PodShape, Requirement, Scaler, Selection,
    Serving, Spread, Taint, Toleration, Volume, VolumeSource, Workload,
};

/// A byte range in one file. Twelve bytes, not twenty-four: a large run holds a span for
/// every value of every object. A file is at most [`MAX_OFFSET`] bytes, which every
/// offset fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub file: FileId,
    start: u32,
    end: u32,
}

/// The largest byte offset a [`Span`] holds: no file larger is read (`max_file_size`
/// cannot exceed it).
pub const MAX_OFFSET: u64 = u32::MAX as u64;

impl Span {
    pub fn new(file: FileId, range: Range<usize>) -> Self {
        let at = |o: usize| u32::try_from(o).unwrap_or(u32::MAX);
        Span {
            file,
            start: at(range.start),
            end: at(range.end),
        }
    }

    /// The byte range.
    pub fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A value as gpulint knows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value<T> {
    /// Evaluated, from the source at this span.
    Known(T, Span),
    /// Written at this span, but not evaluable here (a data source, a variable without a
    /// default, a function gpulint does not implement).
    Unknown(Span),
    /// Not written at all: the provider's default applies.
    #[default]
    Absent,
}

impl<T> Value<T> {
    pub fn known(&self) -> Option<&T> {
        match self {
            Value::Known(v, _) => Some(v),
            _ => None,
        }
    }

    pub fn span(&self) -> Option<&Span> {
        match self {
            Value::Known(_, s) | Value::Unknown(s) => Some(s),
            Value::Absent => None,
        }
    }

    /// Where it is written, when it is written but not known.
    pub fn unknown_at(&self) -> Option<&Span> {
        match self {
            Value::Unknown(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown(_))
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Value<U> {
        match self {
            Value::Known(v, s) => Value::Known(f(v), s),
            Value::Unknown(s) => Value::Unknown(s),
            Value::Absent => Value::Absent,
        }
    }

    /// Maps a known value through a fallible conversion; a failed conversion is unknown.
    pub fn and_then<U>(self, f: impl FnOnce(T) -> Option<U>) -> Value<U> {
        match self {
            Value::Known(v, s) => match f(v) {
                Some(u) => Value::Known(u, s),
                None => Value::Unknown(s),
            },
            Value::Unknown(s) => Value::Unknown(s),
            Value::Absent => Value::Absent,
        }
    }
}

#[derive(Debug, Default)]
pub struct Inventory {
    /// Karpenter NodePools and other Kubernetes-defined capacity are in `capacity` too.
    pub capacity: Vec<Capacity>,
    pub workloads: Vec<Workload>,
    /// Workloads whose pods run on simulated nodes: shown by `inspect`, judged by no rule.
    pub simulated: Vec<Workload>,
    /// Files (or the parts of them) that did not parse.
    pub syntax_errors: Vec<SyntaxProblem>,
    /// Limits hit while reading or evaluating: what was not checked, and where.
    pub limits: Vec<LimitProblem>,
    /// Where the values read at some spans were set: a reference to `var.gpu_min` at a
    /// span, and the tfvars line, call argument or default that gave it.
    /// With the module instance (`module.pool["h100"].`) that read them.
    pub origins: Vec<Instance>,
    /// What was assumed to read some blocks (off by default, a module not read), said on
    /// their findings.
    pub caveats: Vec<Caveat>,
    /// Blocks left out because their `count` or `for_each` cannot be evaluated.
    pub unexpanded: Vec<Unexpanded>,
    /// DRA ResourceClaimTemplates and ResourceClaims that ask for GPUs, by name.
    pub gpu_claims: Vec<workload::GpuClaim>,
    /// Node autoprovisioners the run sets up (Karpenter, GKE node auto-provisioning):
    /// they add capacity that only their own objects describe.
    pub autoprovisioners: Vec<Autoprovisioner>,
    /// Cluster Autoscalers the run installs: they scale existing node groups between their
    /// bounds (`name` says which).
    pub group_autoscalers: Vec<Autoprovisioner>,
    /// Autoscalers of workloads (HPAs, KEDA ScaledObjects), until linked to their targets.
    pub scalers: Vec<Scaler>,
}

/// A node autoprovisioner set up in Terraform, and where.
#[derive(Clone, Debug)]
pub struct Autoprovisioner {
    pub provider: Provider,
    /// `Karpenter`, `GKE node auto-provisioning`, `Cluster Autoscaler`.
    pub name: &'static str,
    pub span: Span,
}

/// One instance of a Terraform module and where its variables' values were set: a
/// `var.x` read in one of its files, by a finding whose subject starts with its prefix,
/// has these origins.
#[derive(Clone, Debug)]
pub struct Instance {
    /// `module.pool["h100"].`, or `` at the root.
    pub prefix: String,
    pub files: Vec<gpulint_source::FileId>,
    /// By variable name, most direct first.
    pub vars: Arc<Origins>,
    /// The `module` block that made it (its header), `None` at the root.
    pub call: Option<Span>,
}

/// Where each variable of a module instance was set, most direct first: the places of all
/// variables in one list, and the names in order with the stretch of it that is theirs.
/// Three allocations an instance, not one per variable: a large run holds every
/// instance's origins until its findings are made.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Origins {
    names: Box<[(Arc<str>, u32, u32)]>,
    places: Box<[Related]>,
}

impl Origins {
    pub fn new(by_name: impl IntoIterator<Item = (Arc<str>, Vec<Related>)>) -> Self {
        let mut by_name: Vec<(Arc<str>, Vec<Related>)> = by_name.into_iter().collect();
        by_name.sort_by(|a, b| a.0.cmp(&b.0));
        let mut names = Vec::with_capacity(by_name.len());
        let mut places = Vec::with_capacity(by_name.iter().map(|(_, p)| p.len()).sum());
        let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        for (name, p) in by_name {
            let start = at(places.len());
            places.extend(p);
            names.push((name, start, at(places.len())));
        }
        Origins {
            names: names.into_boxed_slice(),
            places: places.into_boxed_slice(),
        }
    }

    /// Where the variable `name` was set.
    pub fn get(&self, name: &str) -> Option<&[Related]> {
        let i = self
            .names
            .binary_search_by(|(n, _, _)| (**n).cmp(name))
            .ok()?;
        let (_, start, end) = &self.names[i];
        self.places.get(*start as usize..*end as usize)
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Every place of every variable.
    pub fn places(&self) -> &[Related] {
        &self.places
    }
}

/// What gpulint assumed to read a block, said on every finding about it: a block off by
/// default (its `count` or `for_each` is 0 or empty only because of the defaults of the
/// variables in its condition) is read on the branch a user can switch on; a module whose
/// source is not read is read by the inputs it is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caveat {
    /// The block's address without instance key: `google_container_node_pool.gpu`,
    /// `module.gpu`. Findings on it and on everything below it carry the caveat.
    pub subject: String,
    /// Added to each finding's message, in parentheses: "when enabled: off by default
    /// through `var.gpu`".
    pub note: String,
    /// The files of the module that holds the block: a finding carries the caveat when its
    /// subject is the block's (or below it) and one of its locations is in them. The
    /// same address in another root module is another block.
    pub files: Vec<gpulint_source::FileId>,
    /// Whether findings in the files of a module the block calls carry it too (a toggled
    /// module call): their locations are in the called module's files.
    pub inside_calls: bool,
    /// For a module call whose input map only a toggle gives this entry: only findings
    /// whose subject below the call names the entry (`["gpu"]`) carry the caveat.
    pub entry: Option<String>,
    /// The line it rests on (the `count` line, the module's `source`), a related location.
    pub span: Span,
    /// The related location's label.
    pub label: String,
}

/// A resource or module call left out because its `count` or `for_each` cannot be
/// evaluated (it reads a data source, a resource attribute, a variable without a value):
/// how many instances it makes is not known, so none is judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unexpanded {
    /// `azurerm_linux_virtual_machine_scale_set.farm`, `module.gpu` (without the calls
    /// it is in).
    pub address: String,
    /// `count` or `for_each`.
    pub key: &'static str,
    /// Its `count` or `for_each` expression.
    pub span: Span,
}

/// A place that decides a value read elsewhere: the tfvars line, the module call argument
/// or the variable default a `var.x` takes its value from.
#[derive(Clone, Debug, PartialEq)]
pub struct Related {
    pub span: Span,
    /// Shared by every place that says the same (`the default of `var.region``): a run
    /// holds one for each variable of each module instance.
    pub message: Arc<str>,
}

/// A limit hit in one file (a YAML document over its node limit) or one Terraform module
/// (its evaluation budget spent).
#[derive(Clone, Debug)]
pub struct LimitProblem {
    /// The file's name, or the module's address.
    pub subject: String,
    pub span: Span,
    pub limit: gpulint_source::limits::Limit,
    /// The limit's value in this run.
    pub value: u64,
    /// What was not checked, as a clause.
    pub unchecked: String,
}

impl LimitProblem {
    /// A limit `hit` in the file `file`, named `subject`, reached under `limits`.
    pub fn in_file(
        subject: &str,
        file: FileId,
        hit: &gpulint_source::limits::LimitHit,
        limits: &gpulint_source::limits::Limits,
    ) -> Self {
        LimitProblem {
            subject: subject.to_string(),
            span: Span::new(file, hit.offset..hit.offset),
            limit: hit.limit,
            value: limits.get(hit.limit),
            unchecked: hit.unchecked.clone(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct SyntaxProblem {
    /// The file's name as shown to users.
    pub subject: String,
    pub file: FileId,
    pub offset: usize,
    pub message: String,
    /// Not read at all (too large, permission denied), rather than read and broken.
    pub unread: bool,
    /// Read on past the error, as its author meant it (a Terraform block written on one
    /// line with several arguments): what the file holds is still checked.
    pub read_on: bool,
}

/// Machines that hold GPUs: a VM, a group of VMs, a node pool, a reservation.
#[derive(Clone, Debug)]
pub struct Capacity {
    /// `aws_instance.trainer`, `google_compute_instance.a3`.
    pub subject: String,
    pub provider: Provider,
    pub kind: CapacityKind,
    /// Where findings about the whole resource point: its header line.
    pub header: Span,
    /// The machine types it may run: one for a VM, several for an EKS node group or a
    /// mixed-instances ASG. Known lists are never empty.
    pub machines: Value<Vec<Machine>>,
    /// GPUs each machine surely holds when `machines` is not known, or names types the
    /// catalog does not hold: what the way it is set up says (a GPU image, an accelerator
    /// count, a GPU taint, a name, the type's family).
    pub gpus_at_least: Option<GpuFloor>,
    pub market: Value<Market>,
    pub scale: Scale,
    pub zones: Value<Zones>,
    /// The region written for it: its provider block's `region`, an Azure `location`.
    /// [`Capacity::region`] also reads it off the zones.
    pub region: Option<Str>,
    /// Placement that packs machines together (or spreads them). `Absent`: none asked.
    pub placement: Value<Placement>,
    /// Whether the fast inter-node network (EFA, GPUDirect, InfiniBand) is set up.
    /// `Absent`: nothing configures it.
    pub fast_fabric: Value<bool>,
    /// AWS: how many network cards the written EFA interfaces sit on (their distinct
    /// `network_card_index`, 0 unless written), and where; `None` when no interface is
    /// written one by one or an index is unknown.
    pub efa_cards: Option<(u32, Span)>,
    /// Backed by a reservation or capacity block: billed whether it runs or not.
    pub reserved: Option<Span>,
    /// For the first instance of a VM block expanded by `count`/`for_each`: how many
    /// instances the block makes (they are one multi-node group, judged on this one). 0 for
    /// anything else.
    pub peers: u64,
    /// For an instance of a VM block written with `count`: where the `count` is written,
    /// the line that says how many of it there are.
    pub count_at: Option<Span>,
    /// A reservation that machines of its type use without naming it (GCP's default, an
    /// AWS `open` capacity reservation): a pool of that type in its region runs on it.
    pub open_to_matching: bool,
    pub role: Inferred<Role>,
    /// Node labels a pool puts on its nodes (for Kubernetes scheduling).
    pub labels: Vec<(Str, Str, Span)>,
    /// Taints a pool puts on its nodes.
    pub taints: Vec<Taint>,
    /// The workloads (by index) with pods that can land on it, once pods are linked.
    pub landed_by: Vec<usize>,
    /// Every mechanism found that stops the machine when idle or on a schedule.
    pub stop: Vec<Stop>,
    /// A service that keeps some of its machines running whatever its minimum says (an
    /// ECS service with tasks that never scale to zero, on a capacity provider backed by
    /// this group).
    pub held: Option<Held>,
    /// The tensor-parallel size its start-up script runs a serving engine with
    /// (`--tensor-parallel-size 4` in `user_data`, or in a variable the script is rendered
    /// with), and where that is written.
    pub tensor_parallel: Option<(u32, Span)>,
    /// The serving engine its start-up script runs, and what the engine is told (the
    /// model, its context, its memory share), placed where the script is written.
    pub serving: Option<Serving>,
    /// Whether a VM keeps what it wrote to disk when its capacity is taken back (a spot
    /// reclaim): `Known(true)` where storage that outlives it is written (a volume kept on
    /// termination, an interruption that stops rather than deletes, a file system its
    /// start-up mounts), `Known(false)` at the line that sends every disk with it
    /// (`delete_on_termination = true`, `instance_termination_action = "DELETE"`, its header
    /// when defaults decide). `Absent` for capacity it is not read for.
    pub lasting_storage: Value<bool>,
    /// The language it is written in, so advice is given in that language.
    pub written_in: Dialect,
}

/// Machines of a group that a service keeps running: its tasks never go to zero, and each
/// task runs on one of the group's machines.
#[derive(Clone, Debug, PartialEq)]
pub struct Held {
    /// `aws_ecs_service.llm`.
    pub by: String,
    /// Tasks it always runs on the group.
    pub tasks: u64,
    /// Machines they keep running, at least (tasks may share a machine).
    pub machines: u64,
    /// Where the task count is written: the line to change (`desired_count`, the service
    /// autoscaling target's `min_capacity`).
    pub span: Span,
    /// How the count was read, for a finding's message: "`desired_count = 2`, and no
    /// service autoscaling".
    pub why: String,
}

/// GPUs on each machine of a capacity whose machine type is not known, bounded by what its
/// set-up says: "at least 1" behind a GPU image or taint, the minimum of an attribute-based
/// selection's accelerator count.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuFloor {
    pub count: u32,
    /// What says so, for a finding's message: "`ami_type` `AL2_x86_64_GPU`, an image only
    /// GPU machines boot".
    pub evidence: String,
    pub span: Span,
}

/// The GPUs a capacity surely holds: machines the catalog knows with GPUs, else a bound
/// read from its set-up when its type is not known.
pub enum HeldGpus<'a> {
    Machines(Vec<&'a Machine>, &'a Span),
    AtLeast(&'a GpuFloor),
}

/// The language a capacity is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    #[default]
    Terraform,
    /// An eksctl `ClusterConfig` node group.
    Eksctl,
    /// A Karpenter `NodePool`.
    Karpenter,
}

impl Inventory {
    /// Moves `other`'s objects after this one's, as if lowered here.
    pub fn append(&mut self, mut other: Inventory) {
        self.capacity.append(&mut other.capacity);
        self.workloads.append(&mut other.workloads);
        self.syntax_errors.append(&mut other.syntax_errors);
        self.limits.append(&mut other.limits);
        self.origins.append(&mut other.origins);
        self.caveats.append(&mut other.caveats);
        self.gpu_claims.append(&mut other.gpu_claims);
        self.autoprovisioners.append(&mut other.autoprovisioners);
        self.group_autoscalers.append(&mut other.group_autoscalers);
        self.scalers.append(&mut other.scalers);
    }

    /// [`append`](Self::append), growing each list to its new length only: a large run
    /// appends a chunk at a time, and doubling left a third of the model's largest list
    /// empty.
    pub fn append_exact(&mut self, other: Inventory) {
        self.capacity.reserve_exact(other.capacity.len());
        self.workloads.reserve_exact(other.workloads.len());
        self.append(other);
    }

    /// Lets go of room its lists hold beyond their items. A pod list that grew by one
    /// holds room for four pods, and a large run holds the lists of every workload.
    pub fn shrink_to_fit(&mut self) {
        self.capacity.shrink_to_fit();
        self.workloads.shrink_to_fit();
        for w in &mut self.workloads {
            w.pods.shrink_to_fit();
        }
    }

    /// Whether lowering found nothing at all.
    pub fn is_empty(&self) -> bool {
        self.capacity.is_empty()
            && self.workloads.is_empty()
            && self.syntax_errors.is_empty()
            && self.limits.is_empty()
            && self.origins.is_empty()
    }

    /// The capacity a pod can land on.
    pub fn landing<'a>(&'a self, pod: &'a PodShape) -> impl Iterator<Item = &'a Capacity> {
        pod.landing.iter().map(|&i| &self.capacity[i])
    }

    /// The nodes of capacity `i` that serving keeps busy at least, with the first workload
    /// that needs them and how many do: the GPUs of the serving pods that can land nowhere
    /// else (replicas at the fewest their autoscaler keeps, GPUs at their lower bounds),
    /// over the most GPUs one of its machines has.
    /// `None` when no serving pod that always runs lands only on it.
    pub fn serving_floor(&self, i: usize) -> Option<ServingFloor<'_>> {
        let per_machine = self.capacity[i]
            .gpu_machines()?
            .0
            .iter()
            .filter_map(|m| m.gpus.as_ref().map(|g| u64::from(g.count)))
            .max()?;
        let mut first = None;
        let mut workloads = 0;
        let mut gpus = 0u64;
        for w in self.capacity[i]
            .landed_by
            .iter()
            .map(|&w| &self.workloads[w])
        {
            if w.role.known() != Some(&Role::Inference) {
                continue;
            }
            let mut holds = false;
            for p in w.pods.iter().filter(|p| p.landing == [i]) {
                let Some(g) = p.gpus.known() else { continue };
                let fewest = w.fewest(p).0;
                if fewest == 0 {
                    continue;
                }
                gpus = gpus.saturating_add(u64::from(fewest) * u64::from(g.count));
                first.get_or_insert(w);
                holds = true;
            }
            workloads += usize::from(holds);
        }
        Some(ServingFloor {
            nodes: gpus.div_ceil(per_machine.max(1)),
            first: first?,
            workloads,
        })
    }
}

/// What serving that lands only on one capacity keeps busy there: [`Inventory::serving_floor`].
#[derive(Clone, Copy, Debug)]
pub struct ServingFloor<'a> {
    /// Nodes it keeps busy at least.
    pub nodes: u64,
    /// The first workload that needs them.
    pub first: &'a Workload,
    /// How many serving workloads add to it.
    pub workloads: usize,
}

/// The region of a zone as the provider names them: `us-east-1a` → `us-east-1` (AWS),
/// `us-central1-a` → `us-central1` (GCP). Azure zones (`1`) and AWS zone ids (`use1-az1`)
/// name no region.
fn zone_region(provider: Provider, zone: &str) -> Option<&str> {
    match provider {
        Provider::Aws => {
            let region = zone.strip_suffix(|c: char| c.is_ascii_lowercase())?;
            region
                .ends_with(|c: char| c.is_ascii_digit())
                .then_some(region)
        }
        Provider::Gcp => {
            let (region, letter) = zone.rsplit_once('-')?;
            (letter.len() == 1 && letter.chars().all(|c| c.is_ascii_lowercase())).then_some(region)
        }
        _ => None,
    }
}

impl Capacity {
    /// Whether it runs on spot (or preemptible) capacity, as written.
    pub fn is_spot(&self) -> bool {
        self.market.known() == Some(&Market::Spot)
    }

    /// Capacity with nothing known beyond what it is.
    pub fn new(subject: String, provider: Provider, kind: CapacityKind, header: Span) -> Self {
        Capacity {
            subject,
            provider,
            kind,
            header,
            machines: Value::Absent,
            gpus_at_least: None,
            market: Value::Absent,
            scale: Scale::default(),
            zones: Value::Absent,
            region: None,
            placement: Value::Absent,
            fast_fabric: Value::Absent,
            efa_cards: None,
            reserved: None,
            peers: 0,
            count_at: None,
            open_to_matching: false,
            role: Inferred::default(),
            labels: Vec::new(),
            taints: Vec::new(),
            landed_by: Vec::new(),
            stop: Vec::new(),
            held: None,
            tensor_parallel: None,
            serving: None,
            lasting_storage: Value::Absent,
            written_in: Dialect::Terraform,
        }
    }

    /// The region its machines run in, when the code says: the zones' region (`us-east-1a`,
    /// `us-central1-a`, a regional GKE pool's region), else the region written for it.
    /// `None` when neither is known or the zones span regions.
    pub fn region(&self) -> Option<&str> {
        let from_zones = match self.zones.known() {
            Some(Zones::Region(r)) => Some(r.as_str()),
            Some(Zones::Listed(zones)) => {
                let mut regions = zones.iter().map(|z| zone_region(self.provider, z));
                let first = regions.next().flatten();
                first.filter(|f| regions.all(|r| r == Some(*f)))
            }
            None => None,
        };
        from_zones.or(self.region.as_deref())
    }

    /// The machine types that carry GPUs, with the span that names them. `None` when the
    /// machines are unknown or none has a GPU.
    pub fn gpu_machines(&self) -> Option<(Vec<&Machine>, &Span)> {
        let Value::Known(machines, span) = &self.machines else {
            return None;
        };
        let gpu: Vec<&Machine> = machines.iter().filter(|m| m.gpus.is_some()).collect();
        (!gpu.is_empty()).then_some((gpu, span))
    }

    /// [`gpu_machines`](Self::gpu_machines), else the bound on GPUs per machine when the
    /// machine type is not known, or not in the catalog.
    pub fn held_gpus(&self) -> Option<HeldGpus<'_>> {
        if let Some((machines, span)) = self.gpu_machines() {
            return Some(HeldGpus::Machines(machines, span));
        }
        match (&self.machines, &self.gpus_at_least) {
            (_, Some(floor)) if floor.count > 0 => Some(HeldGpus::AtLeast(floor)),
            _ => None,
        }
    }

    /// The files its findings point into: those of its header, its machine type and its
    /// minimum.
    pub fn located_in(&self) -> impl Iterator<Item = gpulint_source::FileId> + '_ {
        [
            Some(&self.header),
            self.machines.span(),
            self.scale.min.span(),
        ]
        .into_iter()
        .flatten()
        .map(|s| s.file)
    }

    /// Whether it may hold more than one machine (`None`: unknown).
    pub fn multi_node(&self) -> Option<bool> {
        match self.kind {
            CapacityKind::Instance | CapacityKind::Notebook => Some(self.peers > 1),
            _ => self.scale.max.known().map(|n| *n > 1),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapacityKind {
    /// One VM.
    Instance,
    /// A template for VMs (GCP instance template).
    Template,
    /// A group of VMs that scales (ASG, managed instance group, VM scale set).
    Group,
    /// A Kubernetes node pool (EKS node group, GKE node pool, AKS node pool).
    NodePool,
    /// A capacity reservation.
    Reservation,
    /// A managed notebook (SageMaker).
    Notebook,
}

/// How many machines: the bounds a group scales between.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scale {
    pub min: Value<u64>,
    pub max: Value<u64>,
    /// The size it starts at or is asked to keep (`desired_size`, `desired_capacity`, an
    /// autoscaled AKS pool's `node_count`), when written: what it costs as deployed.
    pub desired: Value<u64>,
    /// Set when the written bounds are per zone (GKE `min_node_count`): the totals above
    /// are the written figure times this many zones.
    pub per_zone: Option<u64>,
    /// When `min` is unknown but bounded: at least this many machines, where the bound is
    /// written (a per-zone minimum over zones gpulint cannot count, `max(2, var.n)`).
    pub min_at_least: Option<(u64, Span)>,
    /// Where the minimum is written when a module takes it as a key of its input's entries
    /// (`min_count` of the `node_pools` entry `gpu-pool-l4`): what the user edits, where
    /// the provider attribute is the module's business.
    pub min_input: Option<InputKey>,
}

/// A key of one entry of a module input: `min_count` of the `node_pools` entry named
/// `gpu-pool-l4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputKey {
    pub input: Str,
    pub key: Str,
    /// The entry's key in a map input, or its `name` in a list input.
    pub within: Option<Str>,
}

/// Where a capacity's machines may be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Zones {
    /// These zones.
    Listed(Vec<Str>),
    /// Every zone of a region (a regional GKE pool without `node_locations`).
    Region(String),
}

impl Zones {
    /// These zones, as written.
    pub fn of(zones: Vec<String>) -> Self {
        Zones::Listed(zones.into_iter().map(Str::from).collect())
    }

    /// How many zones are listed (`None` for a whole region, whose zones the provider picks).
    pub fn listed(&self) -> Option<u64> {
        match self {
            Zones::Listed(z) => Some(z.len() as u64),
            Zones::Region(_) => None,
        }
    }

    /// More than one zone.
    pub fn is_multi(&self) -> bool {
        match self {
            Zones::Listed(z) => z.len() > 1,
            Zones::Region(_) => true,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Zones::Listed(z) => z.join(", "),
            Zones::Region(r) => format!("every zone of {r}"),
        }
    }
}

impl Scale {
    /// A size that does not scale: the minimum is the maximum.
    pub fn fixed(n: Value<u64>) -> Self {
        Scale {
            min: n.clone(),
            desired: n.clone(),
            max: n,
            ..Scale::default()
        }
    }

    /// A bound written per zone (GKE) as a total over `zones` zones. Over zones gpulint
    /// cannot count it is unknown, but at least the written figure: a pool has a zone.
    pub fn per_zone_total(
        written: Value<u64>,
        zones: Option<u64>,
    ) -> (Value<u64>, Option<(u64, Span)>) {
        match (written, zones) {
            // A count past u64 is a written absurdity: at least the largest one.
            (Value::Known(n, s), Some(z)) => (Value::Known(n.saturating_mul(z), s), None),
            (Value::Known(0, s), None) => (Value::Known(0, s), None),
            (Value::Known(n, s), None) => (Value::Unknown(s.clone()), Some((n, s))),
            (v, _) => (v, None),
        }
    }

    /// Bounds written per zone (GKE `min_node_count`, `max_node_count`, the initial size),
    /// as totals over `zones` zones.
    pub fn per_zone(
        min: Value<u64>,
        max: Value<u64>,
        desired: Value<u64>,
        zones: Option<u64>,
    ) -> Self {
        let (min, min_at_least) = Scale::per_zone_total(min, zones);
        Scale {
            min,
            max: Scale::per_zone_total(max, zones).0,
            desired: Scale::per_zone_total(desired, zones).0,
            per_zone: zones,
            min_at_least,
            min_input: None,
        }
    }

    /// A fixed size written per zone (GKE `node_count`), as a total over `zones` zones.
    pub fn fixed_per_zone(n: Value<u64>, zones: Option<u64>) -> Self {
        Scale::per_zone(n.clone(), n.clone(), n, zones)
    }

    /// Bounds written where gpulint cannot read them.
    pub fn unknown(span: Span) -> Self {
        Scale {
            min: Value::Unknown(span.clone()),
            max: Value::Unknown(span),
            ..Scale::default()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Packed close together: AWS cluster placement group, GCP compact placement,
    /// Azure proximity placement group or scale set.
    Cluster,
    /// Deliberately apart (spread or partition).
    Spread,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    pub kind: StopKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopKind {
    /// An AWS CloudWatch alarm with an EC2 stop or terminate action.
    StopAlarm,
    /// GCP `scheduling.max_run_duration`.
    MaxRunDuration,
    /// An instance schedule: a GCP resource policy with a stop schedule, an EventBridge
    /// Scheduler schedule that calls EC2's StopInstances, a scheduled function that stops
    /// instances or empties a group, an auto scaling group's recurring scheduled action
    /// to zero.
    InstanceSchedule,
    /// An Azure auto-shutdown schedule.
    ShutdownSchedule,
    /// The machine's start-up script shuts it down (`shutdown -h +120`, `poweroff` when
    /// its job ends).
    StartupShutdown,
    /// Something that may stop this machine but could not be resolved (an alarm on an
    /// instance id from a variable, a resource policy named by a variable).
    Unresolved,
}

/// Training or inference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Training,
    Inference,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Training => "training",
            Role::Inference => "inference",
        }
    }

    /// The verb a reason starts with: "trains", "serves".
    pub fn verb(self) -> &'static str {
        match self {
            Role::Training => "trains",
            Role::Inference => "serves",
        }
    }
}

/// A value gpulint inferred, with why it thinks so.
#[derive(Clone, Debug, PartialEq)]
pub struct Inferred<T> {
    /// The value, at the span of the signal that decided it.
    pub value: Value<T>,
    /// The signal that decided it; `None` when nothing did.
    pub evidence: Option<Evidence>,
}

impl<T> Default for Inferred<T> {
    fn default() -> Self {
        Inferred {
            value: Value::Absent,
            evidence: None,
        }
    }
}

impl<T> Inferred<T> {
    pub fn new(value: Value<T>, evidence: Option<Evidence>) -> Self {
        Inferred { value, evidence }
    }

    pub fn known(&self) -> Option<&T> {
        self.value.known()
    }

    pub fn span(&self) -> Option<&Span> {
        self.value.span()
    }

    pub fn is_unknown(&self) -> bool {
        self.value.is_unknown()
    }
}

impl Inferred<Role> {
    /// Why gpulint thinks so, for a message: "trains: Job running `python pretrain.py`".
    pub fn reason(&self) -> Option<String> {
        let role = self.known()?;
        let e = self.evidence.as_ref()?;
        Some(format!("{}: {}", role.verb(), e.detail))
    }
}

/// What decided an inference, as a reviewer would say it.
#[derive(Clone, Debug, PartialEq)]
pub struct Evidence {
    pub signal: Signal,
    /// `PyTorchJob, a training kind`, `Job running \`python pretrain.py\``.
    pub detail: String,
}

impl Evidence {
    pub fn new(signal: Signal, detail: impl Into<String>) -> Self {
        Evidence {
            signal,
            detail: detail.into(),
        }
    }
}

/// The kinds of signal a role is read from, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// `gpulint.dev/role` annotation, `gpulint-role` tag or label.
    Hint,
    /// A kind that only trains or only serves (PyTorchJob, InferenceService).
    Kind,
    /// A distributed launcher, a training framework's command or a training script.
    Command,
    /// A training framework's image (verl, NeMo, Axolotl…).
    Framework,
    /// A serving engine's command (`vllm serve`, `text-generation-launcher`).
    Engine,
    /// A serving engine's image repository.
    Image,
    /// Words in names and labels (`llama-finetune`, `role: serving`).
    Words,
    /// The controller's shape (a GPU Job; a Deployment behind a Service).
    Shape,
    /// What the workloads that land on a pool do.
    Workloads,
    /// Capacity built for work across machines: a fast fabric set up, a cluster
    /// placement, a reservation of several machines.
    Fabric,
}

impl Signal {
    pub fn as_str(self) -> &'static str {
        match self {
            Signal::Hint => "hint",
            Signal::Kind => "kind",
            Signal::Command => "command",
            Signal::Framework => "framework",
            Signal::Engine => "engine",
            Signal::Image => "image",
            Signal::Words => "words",
            Signal::Shape => "shape",
            Signal::Workloads => "workloads",
            Signal::Fabric => "fabric",
        }
    }
}
