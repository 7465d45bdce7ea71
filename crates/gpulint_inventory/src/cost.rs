//! `gpulint cost`: the GPU capacity a repository writes, priced as written: each resource's
//! machines at their on-demand list price, at its minimum, desired and maximum size.
//! Prices come from the catalog's dated snapshot; nothing is interpolated, so a machine
//! with no price is listed as unpriced and left out of the totals.

use gpulint_facts::catalog;
use gpulint_facts::prices::Quote;
use gpulint_model::{Capacity, CapacityKind, Inventory, Span, Value};

/// A machine count as far as gpulint can read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Known(u64),
    /// Unknown, but at least this many (a per-zone minimum over zones it cannot count).
    AtLeast(u64),
    Unknown,
}

impl Count {
    fn of(v: &Value<u64>, at_least: Option<u64>) -> Count {
        match (v, at_least) {
            (Value::Known(n, _), _) => Count::Known(*n),
            (_, Some(n)) => Count::AtLeast(n),
            _ => Count::Unknown,
        }
    }

    /// The count gpulint can be sure of, and whether it is only a lower bound.
    pub fn floor(self) -> Option<(u64, bool)> {
        match self {
            Count::Known(n) => Some((n, false)),
            Count::AtLeast(n) => Some((n, true)),
            Count::Unknown => None,
        }
    }
}

/// One size of a resource, priced: dollars an hour, and whether that is a lower bound.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hourly {
    pub usd_per_hour: f64,
    pub at_least: bool,
    /// Some part could not be counted: the figure leaves it out.
    pub partial: bool,
}

impl Hourly {
    fn of(count: Count, quote: &Quote, bound: bool) -> Hourly {
        match count.floor() {
            // Counts are small: u64 to f64 is exact here.
            #[allow(clippy::cast_precision_loss)]
            Some((n, at_least)) => Hourly {
                usd_per_hour: quote.usd_per_hour * n as f64,
                // No machines cost nothing, whatever the price is a bound of.
                at_least: n > 0 && (at_least || bound),
                partial: false,
            },
            None => Hourly {
                usd_per_hour: 0.0,
                at_least: true,
                partial: true,
            },
        }
    }

    fn add(&mut self, other: Hourly) {
        self.usd_per_hour += other.usd_per_hour;
        self.at_least |= other.at_least;
        self.partial |= other.partial;
    }
}

/// A resource that holds GPUs, priced.
pub struct Line<'a> {
    pub capacity: &'a Capacity,
    /// Where the machine type is written.
    pub span: &'a Span,
    /// The machine priced: the resource's type, or the cheapest of the types it may start.
    pub machine: String,
    pub gpus_per_machine: u32,
    pub gpu: &'static str,
    /// `None`: the snapshot has no price for it (or for one of the types it may start).
    pub quote: Option<Quote>,
    /// It may start several types: priced at the cheapest, so every figure is "at least".
    pub several: bool,
    pub min: Count,
    pub desired: Count,
    pub max: Count,
}

impl Line<'_> {
    /// The basis of its price, with the region the code names.
    pub fn basis(&self) -> Option<String> {
        self.quote.as_ref().map(|q| q.basis(self.capacity.region()))
    }

    /// Priced at its minimum, desired and maximum size.
    pub fn hourly(&self) -> Option<[Hourly; 3]> {
        let q = self.quote.as_ref()?;
        let bound = self.several || q.gpus_only;
        Some([self.min, self.desired, self.max].map(|c| Hourly::of(c, q, bound)))
    }
}

/// Every GPU resource of a run, priced.
pub struct Priced<'a> {
    pub lines: Vec<Line<'a>>,
    /// Sums at the minimum, desired and maximum sizes, of the priced lines.
    pub total: [Hourly; 3],
    pub hours_per_month: f64,
}

/// Prices every resource that holds GPUs and is written in a file `wanted` accepts, in the
/// inventory's order.
pub fn price(inv: &Inventory, wanted: impl Fn(gpulint_source::FileId) -> bool) -> Priced<'_> {
    let cat = catalog();
    let mut lines = Vec::new();
    for c in inv.capacity.iter().filter(|c| wanted(c.header.file)) {
        let Some((machines, span)) = c.gpu_machines() else {
            continue;
        };
        // The cheapest type it may start; unknown if any has no price.
        let quotes: Option<Vec<(Quote, &gpulint_model::Machine)>> = machines
            .iter()
            .map(|m| Some((cat.prices.quote(c.provider, m)?, *m)))
            .collect();
        let cheapest = quotes.and_then(|q| {
            q.into_iter()
                .min_by(|a, b| a.0.usd_per_hour.total_cmp(&b.0.usd_per_hour))
        });
        let (quote, machine) = match cheapest {
            Some((q, m)) => (Some(q), m),
            None => (None, machines[0]),
        };
        let gpus = machine.gpus.as_ref().expect("GPU machines have GPUs");
        let min = Count::of(&c.scale.min, c.scale.min_at_least.as_ref().map(|b| b.0));
        // A service whose tasks never stop keeps machines running below the minimum.
        let min = match (min, &c.held) {
            (Count::Known(n) | Count::AtLeast(n), Some(h)) if h.machines > n => {
                Count::AtLeast(h.machines)
            }
            (Count::Unknown, Some(h)) => Count::AtLeast(h.machines),
            (min, _) => min,
        };
        let max = Count::of(&c.scale.max, None);
        // A template is a shape, not machines: one VM each.
        let (min, max) = match c.kind {
            CapacityKind::Template => (Count::Unknown, Count::Unknown),
            _ => (min, max),
        };
        // Without a desired size, a group starts at its minimum. The clouds refuse a
        // desired size outside the bounds, so one written outside them is clamped.
        let desired = match (&c.scale.desired, min, max) {
            (Value::Known(n, _), Count::Known(lo), Count::Known(hi)) if lo <= hi => {
                Count::Known((*n).clamp(lo, hi))
            }
            (Value::Known(n, _), Count::Known(lo) | Count::AtLeast(lo), _) => {
                Count::Known((*n).max(lo))
            }
            (Value::Known(n, _), _, _) => Count::Known(*n),
            _ => min,
        };
        lines.push(Line {
            capacity: c,
            span,
            machine: machine.name.to_string(),
            gpus_per_machine: gpus.count,
            gpu: gpus.gpu.name.as_str(),
            quote,
            several: machines.len() > 1,
            min,
            desired,
            max,
        });
    }
    let mut total = [Hourly::default(); 3];
    for hourly in lines.iter().filter_map(Line::hourly) {
        for (t, h) in total.iter_mut().zip(hourly) {
            t.add(h);
        }
    }
    Priced {
        lines,
        total,
        hours_per_month: cat.prices.hours_per_month,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_count_is_left_out_and_said() {
        let q = Quote {
            usd_per_hour: 2.0,
            ..catalog()
                .prices
                .quote_instance(gpulint_model::Provider::Aws, "p5.48xlarge")
                .expect("priced")
        };
        assert!((Hourly::of(Count::Known(3), &q, false).usd_per_hour - 6.0).abs() < 1e-9);
        let bounded = Hourly::of(Count::AtLeast(2), &q, false);
        assert!(bounded.at_least && !bounded.partial);
        let unknown = Hourly::of(Count::Unknown, &q, false);
        assert!(unknown.partial && unknown.usd_per_hour.abs() < 1e-9);
    }
}
