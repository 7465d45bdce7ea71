//! `stale-generation-reservation`: a reservation for GPUs generations behind what the
//! cloud offers.

use super::{OptionKind, Report, Rule, RuleContext, RuleMeta, RuleOption, describe, gpu_label};
use gpulint_diagnostics::{Category, Cost, Severity};
use gpulint_facts::catalog;
use gpulint_facts::prices::usd;
use gpulint_model::{Capacity, CapacityKind, Inventory, Machine};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Cost,
    summary: "a reservation or commitment for an old GPU generation",
    options: &[RuleOption {
        name: "threshold",
        kind: OptionKind::PositiveInteger,
        default: DEFAULT_THRESHOLD,
        doc: "generations behind the newest before a reservation is stale",
    }],
};

/// Generations behind the newest the cloud offers that make a reservation stale, unless
/// `[rules.stale-generation-reservation] threshold` says otherwise.
pub const DEFAULT_THRESHOLD: u64 = 2;

/// Architectures stale for any reservation, whatever the threshold.
const ALWAYS_STALE: [&str; 3] = ["kepler", "pascal", "volta"];

pub struct StaleGenerationReservation;

impl Rule for StaleGenerationReservation {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        let c_ = catalog();
        let threshold = cx.option_u64("threshold").unwrap_or(DEFAULT_THRESHOLD);
        for c in model
            .capacity
            .iter()
            .filter(|c| c.kind == CapacityKind::Reservation)
        {
            let Some((machines, span)) = c.gpu_machines() else {
                continue;
            };
            let m = machines[0];
            let gpu = m.gpus.as_ref().expect("GPU machines have GPUs").gpu;
            // The newest generation this cloud's catalog offers.
            let newest = c_
                .instances
                .iter()
                .filter(|i| i.provider == c.provider)
                .map(|i| c_.generation(i.gpu))
                .max()
                .unwrap_or(0);
            let generation = c_.generation(gpu);
            let behind = newest.saturating_sub(generation);
            if u64::from(behind) < threshold && !ALWAYS_STALE.contains(&gpu.architecture.as_str()) {
                continue;
            }
            let newest_arch = c_
                .architectures
                .iter()
                .filter(|a| a.generation == newest)
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join("/");
            let cost = reserved_cost(c, m, newest, threshold);
            cx.report_costed(Report {
                message: format!(
                    "`{}` reserves {}, {} generation{} behind the newest GPUs this cloud offers \
                     ({newest_arch}): every reserved hour is paid for, used or not, on hardware \
                     that does less per dollar",
                    c.subject,
                    describe(m),
                    behind,
                    if behind == 1 { "" } else { "s" }
                ),
                help: "reserve a current generation instead, or let this reservation end \
                       (an end date, or `end_date_type = \"limited\"` on AWS); check what the \
                       workload needs with `gpulint fit`"
                    .into(),
                subject: c.subject.clone(),
                primary: (
                    span.clone(),
                    format!("{} ({})", gpu_label(m), gpu.architecture),
                ),
                secondary: Vec::new(),
            }, cost);
        }
    }
}

/// What the reservation bills an hour (its count of the reserved shape, at list price),
/// beside the cheapest current-generation shape of the same cloud that holds at least as
/// much GPU memory over the same kind of GPU link, when the snapshot prices both.
fn reserved_cost(c: &Capacity, m: &Machine, newest: u8, threshold: u64) -> Option<Cost> {
    let cat = catalog();
    let gpus = m.gpus.as_ref()?;
    let quote = cat.prices.quote(c.provider, m)?;
    let memory = gpus.gpu.memory_bytes() * u64::from(gpus.count);
    let current = cat
        .instances
        .iter()
        .filter(|i| i.provider == c.provider)
        .filter(|i| u64::from(newest.saturating_sub(cat.generation(i.gpu))) < threshold)
        .filter(|i| !ALWAYS_STALE.contains(&i.gpu.architecture.as_str()))
        .filter(|i| i.gpu.memory_bytes() * u64::from(i.row.count) >= memory)
        .filter(|i| gpus.count == 1 || i.row.interconnect == gpus.interconnect)
        .filter_map(|i| Some((i, cat.prices.get(i.provider, &i.row.name)?)))
        .min_by(|a, b| a.1.usd_per_hour.total_cmp(&b.1.usd_per_hour));
    let (units, count) = match c.scale.min.known() {
        Some(&n) if n > 0 => (n, n.to_string()),
        Some(_) => return None,
        None => (1, "at least 1".to_string()),
    };
    let beside = current.map_or_else(String::new, |(i, p)| {
        format!(
            " (a current-generation {} with {} × {} lists at {}/h each)",
            i.row.name,
            i.row.count,
            i.gpu.name,
            usd(p.usd_per_hour)
        )
    });
    let what = format!(
        "{count} reserved {} at {}/h each{beside}",
        quote.name,
        usd(quote.usd_per_hour)
    );
    // Reservation counts are small: u64 to f64 is exact here.
    #[allow(clippy::cast_precision_loss)]
    Some(Cost::of(&quote, c.region(), units as f64, &what).labelled("reserved"))
}
