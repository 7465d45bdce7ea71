//! `gpulint cost` output: each GPU resource priced at its minimum, desired and maximum size,
//! then the total; text for a reviewer, JSON for scripts. Every text read from a file
//! passes through [`escape`].

use std::fmt::Write as _;

use serde_json::json;

use super::Location;
use super::escape::escape;
use gpulint_facts::prices::{round_cents, round_hourly, usd};
use gpulint_inventory::cost::{Count, Hourly, Line, Priced};
use gpulint_model::CapacityKind;
use gpulint_source::SourceDb;

const SIZES: [&str; 3] = ["minimum", "desired", "maximum"];

/// "at least 2", "3", "unknown".
fn count(c: Count) -> String {
    match c {
        Count::Known(n) => n.to_string(),
        Count::AtLeast(n) => format!("at least {n}"),
        Count::Unknown => "unknown".into(),
    }
}

/// "$21.96/h ($16,031/month)", with "at least" when it is a lower bound.
fn hourly(h: Hourly, month: f64) -> String {
    if h.partial && h.usd_per_hour == 0.0 {
        return "not known".into();
    }
    // Cents first, as finding costs are rounded, so both say the same dollars.
    format!(
        "{}{}/h ({}/month)",
        if h.at_least { "at least " } else { "" },
        usd(round_cents(h.usd_per_hour)),
        usd(round_cents(h.usd_per_hour * month))
    )
}

/// The sizes to show: all three, or fewer where they are the same.
fn sizes(line: &Line<'_>) -> Vec<usize> {
    let c = [line.min, line.desired, line.max];
    let mut shown = vec![0];
    if c[1] != c[0] {
        shown.push(1);
    }
    if c[2] != c[1] && c[2] != c[0] {
        shown.push(2);
    }
    shown
}

/// For people: one block per resource, then the totals.
pub fn text(db: &SourceDb, p: &Priced<'_>) -> String {
    let mut out = String::new();
    if p.lines.is_empty() {
        out.push_str("No GPU capacity found.\n");
        return out;
    }
    let _ = writeln!(
        out,
        "GPU capacity priced as written: on-demand list prices, {} hours a month, no discounts.\n",
        p.hours_per_month
    );
    let mut unpriced = 0;
    for line in &p.lines {
        let c = line.capacity;
        let at = Location::at(db, c.header.file, Some(&c.header.range()));
        let _ = writeln!(
            out,
            "{}  ({}:{}:{})",
            escape(&c.subject),
            escape(at.file),
            at.region.start_line,
            at.region.start_column
        );
        let _ = writeln!(
            out,
            "  {}{}, {} × {}",
            escape(&line.machine),
            match (line.several, line.quote.is_some()) {
                (true, true) => " (the cheapest type it may start)",
                (true, false) => " (one of the types it may start)",
                (false, _) => "",
            },
            line.gpus_per_machine,
            line.gpu
        );
        let (Some(q), Some(h)) = (&line.quote, line.hourly()) else {
            unpriced += 1;
            let _ = writeln!(
                out,
                "  no price known: the snapshot has none for {}\n",
                if line.several {
                    "one of these types, so the cheapest is not known"
                } else {
                    "this type"
                }
            );
            continue;
        };
        let _ = writeln!(
            out,
            "  {}/h each: {}",
            usd(q.usd_per_hour),
            escape(&line.basis().unwrap_or_default())
        );
        let counts = [line.min, line.desired, line.max];
        let parts: Vec<String> = if c.kind == CapacityKind::Template {
            // A shape: the groups that use it decide how many.
            vec![format!(
                "each VM made from it: {}/h ({}/month); how many is up to what uses it",
                usd(q.usd_per_hour),
                usd(round_cents(q.usd_per_hour * p.hours_per_month))
            )]
        } else if counts.iter().all(|&c| c == Count::Unknown) {
            vec!["how many machines is not known: left out of the total".to_string()]
        } else if sizes(line).len() == 1 && line.min == line.max {
            vec![format!(
                "{} machine{}: {}",
                count(line.min),
                if line.min == Count::Known(1) { "" } else { "s" },
                hourly(h[0], p.hours_per_month)
            )]
        } else {
            sizes(line)
                .into_iter()
                .map(|i| {
                    format!(
                        "{} {}: {}",
                        SIZES[i],
                        count(counts[i]),
                        hourly(h[i], p.hours_per_month)
                    )
                })
                .collect()
        };
        let _ = writeln!(out, "  {}\n", parts.join(" · "));
    }
    let priced = p.lines.len() - unpriced;
    let _ = writeln!(
        out,
        "Total ({priced} of {} GPU resource{} priced):",
        p.lines.len(),
        if p.lines.len() == 1 { "" } else { "s" }
    );
    for (i, size) in SIZES.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {size:8} {}{}",
            hourly(p.total[i], p.hours_per_month),
            if p.total[i].partial {
                " (a count gpulint cannot read is left out)"
            } else {
                ""
            }
        );
    }
    if unpriced > 0 {
        let _ = writeln!(
            out,
            "{} with no known price {} left out of the total.",
            super::plural(unpriced, "resource"),
            if unpriced == 1 { "is" } else { "are" }
        );
    }
    out
}

fn hourly_json(h: Hourly, month: f64) -> serde_json::Value {
    json!({
        "usd_per_hour": round_hourly(h.usd_per_hour),
        "usd_per_month": round_cents(h.usd_per_hour * month),
        "at_least": h.at_least,
        "partial": h.partial,
    })
}

fn count_json(c: Count) -> serde_json::Value {
    match c {
        Count::Known(n) => json!({ "count": n, "at_least": false }),
        Count::AtLeast(n) => json!({ "count": n, "at_least": true }),
        Count::Unknown => serde_json::Value::Null,
    }
}

/// `{"version": 1, "hours_per_month", "resources": [...], "total": {...}}`.
pub fn json(db: &SourceDb, p: &Priced<'_>) -> String {
    let resources: Vec<_> = p
        .lines
        .iter()
        .map(|line| {
            let c = line.capacity;
            let at = Location::at(db, line.span.file, Some(&line.span.range()));
            let head = Location::at(db, c.header.file, Some(&c.header.range()));
            let cost = line.hourly().map(|h| {
                json!({
                    "minimum": hourly_json(h[0], p.hours_per_month),
                    "desired": hourly_json(h[1], p.hours_per_month),
                    "maximum": hourly_json(h[2], p.hours_per_month),
                })
            });
            json!({
                "subject": c.subject,
                "provider": c.provider.as_str(),
                "file": head.file,
                "line": head.region.start_line,
                "column": head.region.start_column,
                "machine": {
                    "type": line.machine,
                    "gpus": line.gpus_per_machine,
                    "gpu": line.gpu,
                    "several_types": line.several,
                    "file": at.file,
                    "line": at.region.start_line,
                    "column": at.region.start_column,
                },
                "machines": {
                    "minimum": count_json(line.min),
                    "desired": count_json(line.desired),
                    "maximum": count_json(line.max),
                },
                "price": line.quote.as_ref().map(|q| json!({
                    "usd_per_hour": q.usd_per_hour,
                    "basis": line.basis(),
                    "as_of": q.as_of,
                    "region": q.region,
                    "gpus_only": q.gpus_only,
                })),
                "cost": cost,
            })
        })
        .collect();
    let doc = json!({
        "version": 1,
        "hours_per_month": p.hours_per_month,
        "resources": resources,
        "total": {
            "minimum": hourly_json(p.total[0], p.hours_per_month),
            "desired": hourly_json(p.total[1], p.hours_per_month),
            "maximum": hourly_json(p.total[2], p.hours_per_month),
            "priced": p.lines.iter().filter(|l| l.quote.is_some()).count(),
            "resources": p.lines.len(),
        },
    });
    let mut s = super::escape::json(serde_json::to_string_pretty(&doc).expect("plain data"));
    s.push('\n');
    s
}
