//! Issue 20, first part: the dated price snapshot as catalog data, shown by
//! `gpulint catalog` with its basis, region, date and source, and never guessed.

use std::path::Path;

use crate::common::{gpulint, json, stdout};

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
    assert_eq!((priced, instances.len()), (102, 155));
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
    crate::common::write(
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

#[test]
fn gpulint_cost_prices_each_gpu_resource_at_its_sizes_with_the_total() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::write(
        dir.path(),
        "main.tf",
        format!(
            "{}{}{}",
            pool("h100", "\"p5.48xlarge\"", 2),
            pool("mixed", "\"g5.xlarge\", \"g6.xlarge\"", 1),
            pool("h200", "\"p5e.48xlarge\"", 1)
        ),
    );
    let v = json(&gpulint(
        &["cost", "--format", "json", "."],
        dir.path(),
        None,
    ));
    assert_eq!(v["version"], 1);
    let by = |s: &str| {
        v["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["subject"] == s)
            .unwrap_or_else(|| panic!("{s}: {v}"))
            .clone()
    };
    let h100 = by("aws_eks_node_group.h100");
    assert_eq!(
        (h100["file"].as_str(), h100["line"].as_u64()),
        (Some("main.tf"), Some(1))
    );
    assert_eq!(h100["machines"]["minimum"]["count"], 2);
    assert_eq!(h100["machines"]["maximum"]["count"], 4);
    assert_eq!(h100["cost"]["minimum"]["usd_per_hour"], 110.08);
    assert_eq!(h100["cost"]["maximum"]["usd_per_hour"], 220.16);
    assert_eq!(h100["cost"]["maximum"]["usd_per_month"], 160_716.8);
    assert_eq!(h100["price"]["as_of"], "2026-07-20");
    // Several types: the cheapest, as a lower bound.
    let mixed = by("aws_eks_node_group.mixed");
    assert_eq!(mixed["machine"]["type"], "g6.xlarge");
    assert_eq!(mixed["cost"]["minimum"]["at_least"], true);
    // No sourced price: listed, not priced, not in the total.
    let h200 = by("aws_eks_node_group.h200");
    assert!(h200["price"].is_null() && h200["cost"].is_null(), "{h200}");
    let total = &v["total"];
    assert_eq!(
        (total["priced"].as_u64(), total["resources"].as_u64()),
        (Some(2), Some(3))
    );
    let min = total["minimum"]["usd_per_hour"].as_f64().unwrap();
    assert!((min - (110.08 + 0.8048)).abs() < 1e-9, "{min}");

    let text = stdout(&gpulint(&["cost", "."], dir.path(), None));
    assert!(
        text.contains("minimum 2: $110/h ($80,358/month) · maximum 4: $220/h ($160,717/month)"),
        "{text}"
    );
    assert!(text.contains("no price known"), "{text}");
    assert!(
        text.contains("1 resource with no known price is left out of the total."),
        "{text}"
    );
}

#[test]
fn a_desired_size_outside_the_bounds_is_priced_as_the_cloud_clamps_it() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::write(
        dir.path(),
        "main.tf",
        "resource \"aws_autoscaling_group\" \"g\" {\n  min_size = 4\n  max_size = 5\n  \
         desired_capacity = 2\n  mixed_instances_policy {\n    launch_template {\n      \
         override {\n        instance_type = \"p5.48xlarge\"\n      }\n    }\n  }\n}\n",
    );
    let v = json(&gpulint(
        &["cost", "--format", "json", "."],
        dir.path(),
        None,
    ));
    let g = &v["resources"][0];
    assert_eq!(g["machines"]["desired"]["count"], 4, "{v}");
}

#[test]
fn a_region_written_in_the_code_is_named_in_the_basis() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::write(
        dir.path(),
        "main.tf",
        format!(
            "provider \"aws\" {{\n  region = \"eu-west-1\"\n}}\n{}",
            pool("h100", "\"p5.48xlarge\"", 1)
        ),
    );
    let v = json(&gpulint(
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
    ));
    let basis = v["findings"][0]["cost"]["basis"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        basis.contains("list price in us-east-1 as of 2026-07-20 (AWS-K; DR 2026-11-09 agrees; the snapshot has no eu-west-1 price)"),
        "{basis}"
    );
    assert_eq!(v["findings"][0]["cost"]["region"], "us-east-1");
    // In the snapshot's own region, nothing more is said.
    crate::common::write(
        dir.path(),
        "main.tf",
        format!(
            "provider \"aws\" {{\n  region = \"us-east-1\"\n}}\n{}",
            pool("h100", "\"p5.48xlarge\"", 1)
        ),
    );
    let v = json(&gpulint(
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
    ));
    let basis = v["findings"][0]["cost"]["basis"].as_str().unwrap();
    assert!(!basis.contains("the snapshot has no"), "{basis}");
}

#[test]
fn every_costed_rule_prices_its_waste_and_statistics_sum_it() {
    let fixtures = [
        (
            "idle-gpu-workload",
            "fixtures/idle-gpu-workload/fires/sleeper-on-pool",
            "idle cost: $2.84/h",
        ),
        (
            "oversized-inference-gpu",
            "fixtures/oversized-inference-gpu/fires/priced.yaml",
            "overspend: $4.44/h",
        ),
        (
            "stale-generation-reservation",
            "fixtures/stale-generation-reservation/fires/aws.tf",
            "reserved: $48.96/h",
        ),
        (
            "missing-auto-shutdown",
            "fixtures/missing-auto-shutdown/fires/gcp-instances.tf",
            "idle cost: at least $0.35/h",
        ),
    ];
    for (rule, path, says) in fixtures {
        let out = stdout(&crate::common::run(&[
            "check", "-f", "compact", "--select", rule, path,
        ]));
        assert!(out.contains(says), "{rule}: {out}");
    }
    // Two GPUs of a g5.12xlarge's four: half its 5.672 list price.
    let v = json(&crate::common::run(&[
        "check",
        "-f",
        "json",
        "--select",
        "idle-gpu-workload",
        "fixtures/idle-gpu-workload/fires/sleeper-on-pool",
    ]));
    assert_eq!(v["findings"][0]["cost"]["usd_per_hour"], 2.836);
    let v = json(&crate::common::run(&[
        "check",
        "--statistics",
        "-f",
        "json",
        "fixtures/stale-generation-reservation/fires",
    ]));
    let sum = &v["summary"]["cost"];
    let rows: f64 = v["statistics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["cost"]["usd_per_hour"].as_f64())
        .sum();
    assert!(sum["priced"].as_u64().unwrap() >= 3, "{v}");
    assert!(
        (sum["usd_per_hour"].as_f64().unwrap() - rows).abs() < 1e-6,
        "{v}"
    );
}

fn sleeper(selector: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: dbg\nspec:\n  template:\n    \
         spec:\n      nodeSelector:\n        {selector}\n      containers:\n        - name: sh\n          \
         image: ubuntu\n          command: [\"sleep\", \"infinity\"]\n          resources:\n            \
         limits: {{nvidia.com/gpu: 1, cpu: \"4\", memory: 16Gi}}\n"
    )
}

#[test]
fn a_gpu_label_alone_prices_held_gpus_at_the_cheapest_machine_that_has_them() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::write(
        dir.path(),
        "t4.yaml",
        sleeper("cloud.google.com/gke-accelerator: nvidia-tesla-t4"),
    );
    let v = json(&gpulint(
        &["check", "-f", "json", "t4.yaml"],
        dir.path(),
        None,
    ));
    let cost = &v["findings"][0]["cost"];
    // GKE's label: GCP only, where a T4 attaches to an N1 machine at $0.35 a GPU-hour.
    assert_eq!(cost["usd_per_hour"], 0.35, "{v}");
    let basis = cost["basis"].as_str().unwrap();
    assert!(
        basis.starts_with("at least 1 GPU at $0.35/GPU-hour (a nvidia-tesla-t4 on an N1 machine, the cheapest GCP machine with NVIDIA T4"),
        "{basis}"
    );
    // An H200 on AWS: p5e.48xlarge has no price and might be the cheapest: no figure.
    crate::common::write(
        dir.path(),
        "h200.yaml",
        sleeper("karpenter.k8s.aws/instance-gpu-name: h200"),
    );
    let v = json(&gpulint(
        &["check", "-f", "json", "h200.yaml"],
        dir.path(),
        None,
    ));
    let idle = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "idle-gpu-workload")
        .unwrap_or_else(|| panic!("{v}"));
    assert!(idle.get("cost").is_none(), "{idle}");
}

#[test]
fn gpulint_cost_on_one_file_prices_what_that_file_writes() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::write(dir.path(), "a.tf", pool("h100", "\"p5.48xlarge\"", 2));
    crate::common::write(
        dir.path(),
        "b.tf",
        "resource \"google_compute_instance_template\" \"a3\" {\n  machine_type = \"a3-highgpu-8g\"\n}\n",
    );
    // a.tf brings its folder in as context, but only its own pool is priced.
    let v = json(&gpulint(&["cost", "-f", "json", "a.tf"], dir.path(), None));
    let subjects: Vec<&str> = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["subject"].as_str().unwrap())
        .collect();
    assert_eq!(subjects, ["aws_eks_node_group.h100"]);
    // A template is a shape: priced per VM, its count left to what uses it.
    let text = stdout(&gpulint(&["cost", "b.tf"], dir.path(), None));
    assert!(
        text.contains(
            "each VM made from it: $88.49/h ($64,598/month); how many is up to what uses it"
        ),
        "{text}"
    );
    assert!(text.contains("minimum  not known"), "{text}");
}

#[test]
fn a_pool_with_one_unpriced_type_has_no_cheapest_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::write(
        dir.path(),
        "main.tf",
        pool("mix", "\"g5.xlarge\", \"p5e.48xlarge\"", 1),
    );
    let text = stdout(&gpulint(&["cost", "."], dir.path(), None));
    assert!(
        text.contains("g5.xlarge (one of the types it may start), 1 × NVIDIA A10G"),
        "{text}"
    );
    assert!(
        text.contains(
            "no price known: the snapshot has none for one of these types, so the cheapest is \
             not known"
        ),
        "{text}"
    );
    assert!(!text.contains("the cheapest type it may start"), "{text}");
}

#[test]
fn absurd_counts_neither_crash_nor_wrap() {
    // A per-zone count times three zones is past u64: it saturates, it does not wrap
    // around to a small figure (or panic, as a debug build did).
    let dir = tempfile::tempdir().unwrap();
    crate::common::write(
        dir.path(),
        "main.tf",
        "resource \"google_container_node_pool\" \"z\" {\n  location = \"us-central1\"\n  \
         node_locations = [\"us-central1-a\", \"us-central1-b\", \"us-central1-c\"]\n  \
         initial_node_count = 9223372036854775807\n  node_config {\n    machine_type = \
         \"g2-standard-8\"\n  }\n}\n",
    );
    let o = gpulint(&["cost", "-f", "json", "."], dir.path(), None);
    assert_eq!(o.status.code(), Some(0), "{}", crate::common::stderr(&o));
    let v = json(&o);
    assert_eq!(v["resources"][0]["machines"]["minimum"]["count"], u64::MAX);
    let o = gpulint(&["check", "-f", "json", "."], dir.path(), None);
    assert_eq!(o.status.code(), Some(1), "{}", crate::common::stderr(&o));
}

#[test]
fn a_group_held_up_by_an_ecs_service_is_priced_at_that_floor() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let v = json(&gpulint(
        &[
            "cost",
            "--format",
            "json",
            "fixtures/gpu-pool-never-scales-to-zero/fires/ecs-service/main.tf",
        ],
        root,
        None,
    ));
    let g = &v["resources"][0];
    assert_eq!(g["subject"], "aws_autoscaling_group.gpu", "{v}");
    // `min_size = 0`, but the service's 2 tasks keep at least one instance running.
    assert_eq!(g["machines"]["minimum"]["count"], 1, "{v}");
    assert_eq!(g["machines"]["minimum"]["at_least"], true, "{v}");
}
