//! `gpulint catalog`: GPUs and instance types, with where each fact comes from.

use std::fmt::Write;

use serde_json::{Value, json};

use gpulint_facts::{Gpu, InstanceType, catalog};
use gpulint_fit::human_bytes;

/// What a query selects: an exact instance type, an exact GPU (with the instance types
/// that carry it), or every GPU and instance type whose name contains the query.
struct Selection {
    exact: bool,
    gpus: Vec<&'static Gpu>,
    instances: Vec<&'static InstanceType>,
}

/// `None` when nothing matches.
fn select(query: Option<&str>) -> Option<Selection> {
    let (exact, gpus, instances) = select_parts(query)?;
    Some(Selection {
        exact,
        gpus,
        instances,
    })
}

type Parts = (bool, Vec<&'static Gpu>, Vec<&'static InstanceType>);

fn select_parts(query: Option<&str>) -> Option<Parts> {
    let c = catalog();
    let Some(q) = query.map(str::to_ascii_lowercase) else {
        return Some((false, c.gpus.clone(), c.instances.iter().collect()));
    };
    if let Some(i) = c.instance_any(&q) {
        return Some((true, Vec::new(), vec![i]));
    }
    if let Some(g) = c.gpu(&q) {
        let on: Vec<_> = c.instances.iter().filter(|i| i.gpu.id == g.id).collect();
        return Some((true, vec![g], on));
    }
    let gpus: Vec<_> = c
        .gpus
        .iter()
        .copied()
        .filter(|g| {
            std::iter::once(&g.id)
                .chain(std::iter::once(&g.name))
                .chain(&g.aliases)
                .any(|n| n.to_ascii_lowercase().contains(&q))
        })
        .collect();
    let instances: Vec<_> = c
        .instances
        .iter()
        .filter(|i| i.row.name.to_ascii_lowercase().contains(&q))
        .collect();
    (!gpus.is_empty() || !instances.is_empty()).then_some((false, gpus, instances))
}

fn nvlink(g: &Gpu) -> String {
    match (g.nvlink, g.nvlink_gbs) {
        (Some(n), Some(gbs)) => format!("NVLink {n}, {gbs} GB/s per GPU"),
        (Some(n), None) => format!("NVLink {n}"),
        _ => "none".into(),
    }
}

pub fn human(query: Option<&str>) -> Option<String> {
    let Selection {
        exact,
        gpus,
        instances,
    } = select(query)?;
    let mut out = String::new();
    if exact {
        // One GPU: its facts, then where it is offered. One instance type: its facts.
        if let Some(g) = gpus.first() {
            gpu_detail(&mut out, g);
            let _ = writeln!(out, "Offered as:");
            instance_table(&mut out, &instances);
        } else if let Some(i) = instances.first() {
            instance_detail(&mut out, i);
        }
        return Some(out);
    }
    if !gpus.is_empty() {
        let _ = writeln!(
            out,
            "{:<14} {:<46} {:<13} {:>5} {:>10}  {:<9} src",
            "GPU", "name", "architecture", "year", "memory", "NVLink"
        );
        for g in &gpus {
            let _ = writeln!(
                out,
                "{:<14} {:<46} {:<13} {:>5} {:>10}  {:<9} {:?}",
                g.id,
                g.name,
                g.architecture,
                g.year.map_or_else(|| "?".into(), |y| y.to_string()),
                human_bytes(g.usable_bytes()),
                nvlink(g),
                g.confidence
            );
        }
    }
    if !instances.is_empty() {
        if !gpus.is_empty() {
            out.push('\n');
        }
        instance_table(&mut out, &instances);
    }
    Some(crate::escape_text(out))
}

fn instance_table(out: &mut String, instances: &[&InstanceType]) {
    {
        let _ = writeln!(
            out,
            "{:<6} {:<30} {:<14} {:>5}  {:<16} {:<16} {:>9} src",
            "cloud", "instance type", "GPU", "count", "interconnect", "fabric", "$/h"
        );
        for i in instances {
            let _ = writeln!(
                out,
                "{:<6} {:<30} {:<14} {:>5}  {:<16} {:<16} {:>9} {:?}",
                i.provider.as_str(),
                i.row.name,
                i.gpu.id,
                i.row.count,
                i.row.interconnect.as_str(),
                i.row.fabric.as_str(),
                catalog()
                    .prices
                    .get(i.provider, &i.row.name)
                    .map_or_else(|| "—".to_string(), |p| format!("{:.2}", p.usd_per_hour)),
                i.row.confidence
            );
        }
    }
}

fn gpu_detail(out: &mut String, g: &Gpu) {
    let _ = writeln!(out, "{} ({})", g.name, g.id);
    let cc = g
        .compute_capability
        .as_ref()
        .map_or_else(String::new, |cc| format!(", compute capability {cc}"));
    let _ = writeln!(
        out,
        "  architecture  {} (generation {}){cc}",
        g.architecture,
        catalog().generation(g)
    );
    if let Some(y) = g.year {
        let _ = writeln!(out, "  launched      {y}");
    }
    let _ = writeln!(out, "  memory        {} GB (vendor)", g.memory_gb);
    if let Some(mib) = g.usable_mib {
        let _ = writeln!(out, "  cloud APIs    {mib} MiB");
    }
    match (g.cuda_total_gib, &g.cuda_source) {
        (Some(gib), source) => {
            let _ = writeln!(
                out,
                "  usable        {gib:.2} GiB as CUDA reports it{}",
                source
                    .as_ref()
                    .map_or_else(String::new, |s| format!(" ({s})"))
            );
        }
        (None, _) => {
            let _ = writeln!(
                out,
                "  usable        {} (not measured: {:.0} % of the smaller figure above)",
                human_bytes(g.usable_bytes()),
                g.unmeasured_share * 100.0
            );
        }
    }
    if let Some(bw) = g.bandwidth_gbs {
        let _ = writeln!(out, "  bandwidth     {bw} GB/s");
    }
    let _ = writeln!(out, "  interconnect  {}", nvlink(g));
    if let Some(f) = &g.lowest_float {
        let _ = writeln!(out, "  tensor cores  down to {f}");
    }
    let mig = match (g.mig, g.mig_profiles.is_empty()) {
        (None, _) => "no".to_string(),
        (Some(n), true) => format!("up to {n} instances"),
        (Some(n), false) => format!("up to {n} instances ({})", g.mig_profiles.join(", ")),
    };
    let _ = writeln!(out, "  MIG           {mig}");
    if !g.aliases.is_empty() {
        let _ = writeln!(out, "  also named    {}", g.aliases.join(", "));
    }
    let _ = writeln!(out, "  source        {} [{:?}]", g.source, g.confidence);
    out.push('\n');
}

fn instance_detail(out: &mut String, i: &InstanceType) {
    let r = &i.row;
    let _ = writeln!(out, "{} ({})", r.name, i.provider.as_str());
    let _ = writeln!(
        out,
        "  GPUs          {} × {} ({} usable each)",
        r.count,
        i.gpu.name,
        human_bytes(i.gpu.usable_bytes())
    );
    let _ = writeln!(
        out,
        "  interconnect  {} (between the GPUs of one machine)",
        r.interconnect.as_str()
    );
    let _ = writeln!(
        out,
        "  fabric        {}{} (between machines)",
        r.fabric.as_str(),
        network(r)
    );
    let prices = &catalog().prices;
    let price = prices.get(i.provider, &r.name).map_or_else(
        || "no known list price in the snapshot".to_string(),
        |p| prices.describe(p),
    );
    let _ = writeln!(out, "  price         {price}");
    let _ = writeln!(out, "  source        {} [{:?}]", r.source, r.confidence);
    let _ = writeln!(
        out,
        "  GPU source    {} [{:?}]",
        i.gpu.source, i.gpu.confidence
    );
}

fn network(r: &gpulint_facts::InstanceRow) -> String {
    match (r.network_gbps, r.efa_devices) {
        (Some(n), Some(e)) => format!(", {n} Gbps network, {e} EFA"),
        (Some(n), None) => format!(", {n} Gbps network"),
        _ => String::new(),
    }
}

fn gpu_json(g: &Gpu) -> Value {
    json!({
        "id": g.id,
        "name": g.name,
        "aliases": g.aliases,
        "architecture": g.architecture,
        "year": g.year,
        "memory_bytes": g.memory_bytes(),
        "usable_bytes": g.usable_bytes(),
        "usable_measured": g.usable_measured(),
        "nvlink": g.nvlink.is_some(),
        "nvlink_generation": g.nvlink,
        "nvlink_gbs": g.nvlink_gbs,
        "generation": catalog().generation(g),
        "compute_capability": g.compute_capability,
        "bandwidth_gbs": g.bandwidth_gbs,
        "lowest_float": g.lowest_float,
        "mig": g.mig,
        "mig_profiles": g.mig_profiles,
        "source": g.source,
        "confidence": g.confidence.as_str(),
    })
}

fn instance_json(i: &InstanceType) -> Value {
    json!({
        "provider": i.provider.as_str(),
        "name": i.row.name,
        "gpu": i.gpu.id,
        "gpu_count": i.row.count,
        "interconnect": i.row.interconnect.as_str(),
        "fabric": i.row.fabric.as_str(),
        "network_gbps": i.row.network_gbps,
        "efa_devices": i.row.efa_devices,
        "source": i.row.source,
        "confidence": i.row.confidence.as_str(),
        "price": catalog().prices.get(i.provider, &i.row.name).map(|p| json!({
            "usd_per_hour": p.usd_per_hour,
            "usd_per_month": p.usd_per_hour * catalog().prices.hours_per_month,
            "region": p.region,
            "as_of": p.as_of,
            "source": p.source,
            "spot": p.spot,
            "note": p.note,
            "basis": "list price, no discounts",
        })),
    })
}

pub fn json(query: Option<&str>) -> Option<String> {
    let Selection {
        gpus, instances, ..
    } = select(query)?;
    let v = json!({
        "gpus": gpus.iter().map(|g| gpu_json(g)).collect::<Vec<_>>(),
        "instances": instances.iter().map(|i| instance_json(i)).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&v).expect("plain data");
    s.push('\n');
    Some(crate::escape::json(s))
}
