//! On-demand list prices: a dated snapshot (`data/prices.toml`, generated from
//! `../shared/reference/gpu-prices.md`), each price with its region, date and source.
//! Nothing is interpolated: an instance type without a row has no known price.

use std::collections::HashMap;

use serde::Deserialize;

use crate::Provider;

const PRICES: &str = include_str!("data/prices.toml");

/// One instance type's on-demand list price.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Price {
    provider: String,
    pub instance: String,
    pub usd_per_hour: f64,
    /// Where the price holds (the reference region unless the snapshot had none there).
    pub region: String,
    /// The source's date.
    pub as_of: String,
    /// Source keys ([`Source`]), as the reference writes them.
    pub source: String,
    /// A spot figure, as the source gives it (text: a range, a zone, a date).
    pub spot: Option<String>,
    /// The reference's caveat: sources that disagree, a derived value.
    pub note: Option<String>,
}

/// A GCP GPU attached to an N1 machine, priced per GPU-hour (the machine is extra).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct GpuPrice {
    pub accelerator: String,
    pub usd_per_gpu_hour: f64,
    pub region: String,
    pub as_of: String,
    pub source: String,
    pub spot: Option<String>,
}

/// Where prices come from.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Source {
    pub key: String,
    pub date: String,
    pub what: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    hours_per_month: f64,
    source: Vec<Source>,
    price: Vec<Price>,
    gpu_price: Vec<GpuPrice>,
}

/// The snapshot, by provider and lower-case instance type.
#[derive(Debug, Default)]
pub struct Prices {
    /// Hours in a month of capacity that never stops (730).
    pub hours_per_month: f64,
    by_instance: HashMap<(Provider, String), Price>,
    pub gpus: Vec<GpuPrice>,
    pub sources: Vec<Source>,
}

impl Prices {
    /// Loads the embedded snapshot. `known` says whether the catalog has an instance type:
    /// a price for one it does not know is an error, as is a price with no known source.
    pub fn load(known: impl Fn(Provider, &str) -> bool) -> Result<Prices, String> {
        let file: File = toml::from_str(PRICES).map_err(|e| format!("prices.toml: {e}"))?;
        let mut prices = Prices {
            hours_per_month: file.hours_per_month,
            sources: file.source,
            gpus: file.gpu_price,
            ..Prices::default()
        };
        let cited = |text: &str, what: &str| {
            if prices.sources.iter().any(|s| {
                s.key
                    .split(" / ")
                    .any(|k| text.split([';', ' ', ',']).any(|t| t == k))
            }) {
                Ok(())
            } else {
                Err(format!("prices.toml: {what}: no known source in `{text}`"))
            }
        };
        for g in &prices.gpus {
            cited(&g.source, &g.accelerator)?;
        }
        for p in file.price {
            let provider = match p.provider.as_str() {
                "aws" => Provider::Aws,
                "gcp" => Provider::Gcp,
                "azure" => Provider::Azure,
                other => return Err(format!("prices.toml: unknown provider `{other}`")),
            };
            if !(p.usd_per_hour.is_finite() && p.usd_per_hour > 0.0) {
                return Err(format!("prices.toml: {}: no positive price", p.instance));
            }
            if !known(provider, &p.instance) {
                return Err(format!(
                    "prices.toml: `{}` is not in the catalog",
                    p.instance
                ));
            }
            cited(&p.source, &p.instance)?;
            let key = (provider, p.instance.to_ascii_lowercase());
            if prices.by_instance.insert(key, p).is_some() {
                return Err("prices.toml: an instance type is priced twice".into());
            }
        }
        Ok(prices)
    }

    /// The on-demand list price of an instance type, when the snapshot has one.
    pub fn get(&self, provider: Provider, instance: &str) -> Option<&Price> {
        self.by_instance
            .get(&(provider, instance.to_ascii_lowercase()))
    }

    /// What one machine costs an hour, as far as the snapshot says: its instance type's
    /// list price, or for a GCP N1 machine with GPUs attached, the GPUs' price alone (the
    /// machine's vCPUs and memory are extra, so that is a lower bound). `None` when the
    /// snapshot has no price for it.
    pub fn quote(&self, provider: Provider, m: &crate::Machine) -> Option<Quote> {
        if let Some(q) = self.quote_instance(provider, &m.name) {
            return Some(q);
        }
        let gpus = m.gpus.as_ref()?;
        if provider != Provider::Gcp || !m.name.to_ascii_lowercase().starts_with("n1-") {
            return None;
        }
        let one = self.quote_gpu(gpus.gpu)?;
        Some(Quote {
            usd_per_hour: one.usd_per_hour * f64::from(gpus.count),
            name: format!(
                "{} × {}",
                gpus.count,
                one.name.replacen("an N1 machine", &m.name, 1)
            ),
            ..one
        })
    }

    /// One GPU attached to a GCP N1 machine, priced per GPU-hour (the machine is extra):
    /// `None` for a GPU no N1 machine takes, or one with no price.
    pub fn quote_gpu(&self, gpu: &super::Gpu) -> Option<Quote> {
        // The accelerator type that attaches this GPU, and its per-GPU price.
        let accelerator = super::catalog()
            .accelerators
            .iter()
            .find(|a| a.gpu.id == gpu.id)?;
        let g = self
            .gpus
            .iter()
            .find(|g| g.accelerator == accelerator.row.name)?;
        Some(Quote {
            usd_per_hour: g.usd_per_gpu_hour,
            gpus_only: true,
            name: format!("{} on an N1 machine", g.accelerator),
            region: g.region.clone(),
            as_of: g.as_of.clone(),
            source: g.source.clone(),
        })
    }

    /// An instance type's list price as a [`Quote`].
    pub fn quote_instance(&self, provider: Provider, instance: &str) -> Option<Quote> {
        let p = self.get(provider, instance)?;
        Some(Quote {
            usd_per_hour: p.usd_per_hour,
            gpus_only: false,
            name: p.instance.clone(),
            region: p.region.clone(),
            as_of: p.as_of.clone(),
            source: p.source.clone(),
        })
    }

    /// "$55.04/h ($40,179/month), list price in us-east-1 as of 2026-07-20 (AWS-K)".
    pub fn describe(&self, p: &Price) -> String {
        format!(
            "{}/h ({}/month), {}",
            usd(p.usd_per_hour),
            usd(p.usd_per_hour * self.hours_per_month),
            basis(p)
        )
    }

    /// How many instance types are priced.
    pub fn len(&self) -> usize {
        self.by_instance.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_instance.is_empty()
    }
}

/// One machine's hourly price, from an instance type's row or (GCP N1) its GPUs' rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Quote {
    pub usd_per_hour: f64,
    /// Only the attached GPUs are priced: the machine costs more.
    pub gpus_only: bool,
    /// `p5.48xlarge`, or `2 × nvidia-tesla-t4 on n1-standard-8`.
    pub name: String,
    pub region: String,
    pub as_of: String,
    pub source: String,
}

impl Quote {
    /// "list price in us-east-1 as of 2026-07-20 (AWS-K); no discounts". `written` is the
    /// region the code names, when it names one: where the snapshot's price is for another
    /// region (it holds one region per instance type), the basis says so.
    pub fn basis(&self, written: Option<&str>) -> String {
        let mut source = self.source.clone();
        if let Some(r) = written.filter(|r| !r.eq_ignore_ascii_case(&self.region)) {
            source = format!("{source}; the snapshot has no {r} price");
        }
        let what = if self.gpus_only {
            "GPU list price"
        } else {
            "list price"
        };
        let extra = if self.gpus_only {
            "; the N1 machine's vCPUs and memory are extra"
        } else {
            ""
        };
        format!(
            "{what} in {} as of {} ({source}){extra}; no discounts",
            self.region, self.as_of
        )
    }
}

/// "list price in us-east-1 as of 2026-07-20 (AWS-K); no discounts".
pub fn basis(p: &Price) -> String {
    format!(
        "list price in {} as of {} ({}); no discounts",
        p.region, p.as_of, p.source
    )
}

/// An hourly figure as gpulint reports it: to the millionth of a dollar, the price list's
/// own precision (21.957642), without float noise.
pub fn round_hourly(usd: f64) -> f64 {
    (usd * 1_000_000.0).round() / 1_000_000.0
}

/// A monthly (or any larger) figure as gpulint reports it: to the cent.
pub fn round_cents(usd: f64) -> f64 {
    (usd * 100.0).round() / 100.0
}

/// Dollars for people: cents under $100, whole dollars with thousands separators above.
pub fn usd(amount: f64) -> String {
    if amount < 100.0 {
        return format!("${amount:.2}");
    }
    let whole = format!("{:.0}", amount.round());
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("${out}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_read_as_people_write_them() {
        assert_eq!(usd(0.526), "$0.53");
        assert_eq!(usd(55.04), "$55.04");
        assert_eq!(usd(40_179.2), "$40,179");
        assert_eq!(usd(1_234_567.0), "$1,234,567");
    }
}
