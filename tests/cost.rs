//! Issue 20, first part: the dated price snapshot as catalog data, shown by
//! `gpulint catalog` with its basis, region, date and source, and never guessed.

use std::path::Path;

mod common;

use common::{gpulint, json, stdout};

fn catalog(args: &[&str]) -> std::process::Output {
    let mut all = vec!["catalog"];
    all.extend_from_slice(args);
    gpulint(&all, Path::new("."), None)
}

#[test]
fn an_instance_type_shows_its_list_price_with_basis_and_date() {
    let out = stdout(&catalog(&["p5.48xlarge"]));
    assert!(
        out.contains(
            "price         $55.04/h ($40,179/month), list price in us-east-1 as of 2026-07-20"
        ),
        "{out}"
    );
    assert!(out.contains("no discounts"), "{out}");

    let v = json(&catalog(&["Standard_ND96isr_H200_v5", "--format", "json"]));
    let price = &v["instances"][0]["price"];
    assert_eq!(price["usd_per_hour"], 84.8);
    // No eastus price: the region the snapshot has is named, not the reference region's.
    assert_eq!(price["region"], "eastus2");
    assert_eq!(price["as_of"], "2026-06-18");
    assert_eq!(price["basis"], "list price, no discounts");
    let month = price["usd_per_month"].as_f64().unwrap();
    assert!((month - 84.8 * 730.0).abs() < 1e-6, "{month}");
}

#[test]
fn an_instance_type_without_a_sourced_price_has_none() {
    // The reference lists 7 instance types no source prices (p5e is sold through
    // capacity blocks): nothing is interpolated for them.
    for name in [
        "p5e.48xlarge",
        "a4-highgpu-8g",
        "a4x-highgpu-4g",
        "Standard_ND128isr_GB300_v6",
    ] {
        let out = stdout(&catalog(&[name]));
        assert!(
            out.contains("price         no known list price in the snapshot"),
            "{name}: {out}"
        );
        let v = json(&catalog(&[name, "--format", "json"]));
        assert!(v["instances"][0]["price"].is_null(), "{name}: {v}");
    }
}

#[test]
fn the_snapshot_prices_102_of_the_catalog_instance_types() {
    let v = json(&catalog(&["--format", "json"]));
    let instances = v["instances"].as_array().unwrap();
    let priced = instances.iter().filter(|i| !i["price"].is_null()).count();
    assert_eq!((priced, instances.len()), (102, 109));
    // The table shows the hourly price, and a dash where none is known.
    let table = stdout(&catalog(&[]));
    let row = table
        .lines()
        .find(|l| l.contains(" p4d.24xlarge "))
        .unwrap();
    assert!(row.contains("21.96"), "{row}");
    let row = table
        .lines()
        .find(|l| l.contains(" p5e.48xlarge "))
        .unwrap();
    assert!(row.contains('—'), "{row}");
}

fn pool(name: &str, types: &str, min: u32) -> String {
    format!(
        "resource \"aws_eks_node_group\" \"{name}\" {{\n  cluster_name   = \"ml\"\n  node_role_arn  = \"arn:aws:iam::123456789012:role/n\"\n  subnet_ids     = [\"subnet-0abc\"]\n  instance_types = [{types}]\n  scaling_config {{\n    min_size     = {min}\n    max_size     = 4\n    desired_size = {min}\n  }}\n}}\n"
    )
}

#[test]
fn a_pool_floor_costs_its_minimum_nodes_at_list_price_or_at_least_the_cheapest() {
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "main.tf",
        format!(
            "{}{}{}",
            pool("h100", "\"p5.48xlarge\"", 2),
            pool("mixed", "\"g5.xlarge\", \"g6.xlarge\"", 1),
            pool("h200", "\"p5e.48xlarge\"", 1)
        ),
    );
    let o = gpulint(
        &[
            "check",
            "-f",
            "json",
            "--select",
            "gpu-pool-never-scales-to-zero",
            ".",
        ],
        dir.path(),
        None,
    );
    let v = json(&o);
    let by_subject = |s: &str| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["subject"] == s)
            .unwrap_or_else(|| panic!("{s}: {v}"))
            .clone()
    };
    let h100 = by_subject("aws_eks_node_group.h100");
    let hourly = h100["cost"]["usd_per_hour"].as_f64().unwrap();
    assert!((hourly - 2.0 * 55.04).abs() < 1e-9, "{hourly}");
    assert!(
        h100["cost"]["basis"]
            .as_str()
            .unwrap()
            .starts_with("2 nodes of p5.48xlarge; list price in us-east-1 as of 2026-07-20"),
        "{h100}"
    );
    // Either type may start: at least the cheaper one (g6.xlarge, 0.8048 against 1.006).
    let mixed = by_subject("aws_eks_node_group.mixed");
    assert_eq!(mixed["cost"]["usd_per_hour"], 0.8048);
    assert!(
        mixed["cost"]["basis"]
            .as_str()
            .unwrap()
            .starts_with("at least 1 node of g6.xlarge (the cheapest type the pool may start)"),
        "{mixed}"
    );
    // No sourced price: the finding stands, with no cost.
    let h200 = by_subject("aws_eks_node_group.h200");
    assert!(h200.get("cost").is_none(), "{h200}");
}
