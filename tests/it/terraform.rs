//! Terraform as real repositories hold it: plan JSON against its configuration, local
//! modules outside the named paths, public modules.

use crate::common::{findings, json, run};

#[test]
fn plan_json_gives_the_findings_of_its_configuration() {
    let source = findings(&["tests/data/plan/config"]);
    let plan = findings(&["tests/data/plan/plan.json"]);
    assert_eq!(source.len(), 3, "{source:#?}");
    assert_eq!(plan, source);
    let subjects: Vec<&str> = plan.iter().map(|f| f.1.as_str()).collect();
    assert!(subjects.contains(&"module.serve.aws_eks_node_group.this"));
    assert!(subjects.contains(&"aws_eks_node_group.gpu[\"h100\"]"));
}

#[test]
fn plan_findings_point_into_the_plan_at_the_value() {
    let out = run(&["check", "--format", "json", "tests/data/plan/plan.json"]);
    let text =
        std::fs::read_to_string(format!("{}/tests/data/plan/plan.json", crate::common::ROOT))
            .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for f in json(&out)["findings"].as_array().unwrap() {
        assert_eq!(f["file"], "tests/data/plan/plan.json");
        let line = lines[usize::try_from(f["line"].as_u64().unwrap()).unwrap() - 1];
        match f["rule"].as_str().unwrap() {
            "gpu-pool-never-scales-to-zero" => assert!(line.contains("\"min_size\""), "{line}"),
            "missing-auto-shutdown" => {
                assert!(
                    line.contains("\"address\": \"aws_instance.notebook[0]\""),
                    "{line}"
                );
            }
            other => panic!("unexpected {other}"),
        }
    }
}

#[test]
fn a_named_root_file_brings_in_its_local_modules() {
    // As pre-commit names one changed file: the module it calls lies outside the run.
    let found = findings(&["tests/data/plan/config/main.tf"]);
    assert!(
        found
            .iter()
            .any(|f| f.1 == "module.serve.aws_eks_node_group.this"),
        "{found:#?}"
    );
    let out = run(&[
        "check",
        "--format",
        "json",
        "tests/data/plan/config/main.tf",
    ]);
    let files: Vec<String> = json(&out)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    assert!(files.contains(&"tests/data/plan/config/modules/pool/main.tf".to_string()));
}

/// A module linted alone whose variables have no defaults is judged through the folders
/// of the checkout that call it, with their values, and a note says so; with no caller it
/// is judged on its defaults.
#[test]
fn a_module_linted_alone_is_judged_through_its_callers_in_the_checkout() {
    let o = crate::common::gpulint(
        &[
            "check",
            "--format",
            "json",
            "tests/data/plan/config/modules/pool",
        ],
        std::path::Path::new(crate::common::ROOT),
        None,
    );
    let report = json(&o);
    let subjects: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["subject"].as_str().unwrap())
        .collect();
    assert_eq!(
        subjects,
        ["module.serve.aws_eks_node_group.this"],
        "{report:#}"
    );
    let notes = crate::common::stderr(&o);
    assert!(
        notes.contains(
            "`tests/data/plan/config/modules/pool` declares variables with no default: judged \
             through its call in `tests/data/plan/config`"
        ),
        "{notes}"
    );

    // No folder calls it: its defaults (min_size 0, no instance type) say nothing.
    let dir = tempfile::tempdir().unwrap();
    let module = std::fs::read_to_string(
        std::path::Path::new(crate::common::ROOT)
            .join("tests/data/plan/config/modules/pool/main.tf"),
    )
    .unwrap();
    crate::common::write(dir.path(), "modules/pool/main.tf", &module);
    let o = crate::common::gpulint(
        &["check", "--format", "json", "modules/pool"],
        dir.path(),
        None,
    );
    assert_eq!(json(&o)["findings"], serde_json::json!([]));
}

#[test]
fn a_called_module_is_not_also_judged_on_its_defaults() {
    let found = findings(&["fixtures/gpu-pool-never-scales-to-zero/fires/local-module"]);
    let subjects: Vec<&str> = found.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(
        subjects,
        [
            "module.inference.aws_eks_node_group.this",
            "module.pool[\"a100\"].aws_eks_node_group.this",
            "module.pool[\"h100\"].aws_eks_node_group.this",
        ]
    );
}

#[test]
fn a_module_no_call_reaches_is_judged_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::write(
        dir.path(),
        "main.tf",
        "variable \"pools\" {}\nmodule \"gpu\" {\n  source   = \"./gpu\"\n  for_each = var.pools\n}\n\
         module \"off\" {\n  source = \"./off\"\n  count  = 0\n}\n",
    );
    // Called with a known `count = 0`: it deploys nothing, so it is not judged.
    crate::common::write(
        dir.path(),
        "off/main.tf",
        "resource \"aws_instance\" \"idle\" {\n  instance_type = \"p5.48xlarge\"\n}\n",
    );
    crate::common::write(
        dir.path(),
        "gpu/main.tf",
        "resource \"aws_instance\" \"trainer\" {\n  instance_type = \"p4d.24xlarge\"\n}\n",
    );
    let out = crate::common::gpulint(&["check", "--format", "compact", "."], dir.path(), None);
    assert_eq!(
        crate::common::stdout(&out),
        "gpu/main.tf:1:1: warning [missing-auto-shutdown] `aws_instance.trainer` runs 8 × \
         NVIDIA A100 40GB SXM4 (p4d.24xlarge) with no idle or scheduled stop: it bills by the \
         hour whether it computes or not — idle cost: $21.96/h ($16,029/month; 1 instance; \
         list price in us-east-1 as of 2026-07-20 (AWS-K; DR 2026-11-09 agrees); no discounts)\n"
    );
}

#[test]
fn a_folder_walk_reads_plan_json_and_no_other_json() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(
        format!("{}/tests/data/plan/plan.json", crate::common::ROOT),
        d.join("tfplan.json"),
    )
    .unwrap();
    crate::common::write(
        d,
        "package.json",
        "{\"name\": \"app\", \"version\": \"1.0.0\"}",
    );
    // Not JSON at all, and large: judged by its first bytes, never parsed.
    crate::common::write(d, "data.json", "[".repeat(8 << 20));
    let out = crate::common::gpulint(&["check", "--format", "json", "."], d, None);
    let report = json(&out);
    let files: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 3, "{report:#}");
    assert!(files.iter().all(|f| *f == "tfplan.json"), "{files:?}");
    assert_eq!(report["summary"]["files"], 1, "{report:#}");
}

/// A value set in a `--var-file` is named where it was set, in every machine format; the
/// other environments' files are named in a note.
#[test]
fn a_value_from_a_var_file_is_a_related_location_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::common::write(
        d,
        "main.tf",
        "variable \"gpu_min\" {\n  default = 0\n}\n\nresource \"aws_eks_node_group\" \"gpu\" {\n  cluster_name   = \"ml\"\n  node_role_arn  = \"arn:aws:iam::123456789012:role/eks-node\"\n  subnet_ids     = [\"subnet-0abc\"]\n  instance_types = [\"g6e.xlarge\"]\n  scaling_config {\n    min_size     = var.gpu_min\n    max_size     = 4\n    desired_size = 1\n  }\n}\n",
    );
    crate::common::write(d, "prod.tfvars", "# production\ngpu_min = 2\n");
    crate::common::write(d, "staging.tfvars", "gpu_min = 1\n");
    let run = |format: &str| {
        crate::common::gpulint(
            &[
                "check",
                "--format",
                format,
                "--var-file",
                "prod.tfvars",
                ".",
            ],
            d,
            None,
        )
    };

    let report = json(&run("json"));
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    let related = &findings[0]["related"];
    assert_eq!(
        related,
        &serde_json::json!([{"file": "prod.tfvars", "line": 2, "column": 1, "end_line": 2,
            "end_column": 12, "message": "`var.gpu_min` is set here"}]),
    );
    // Only the environment not applied is named.
    let o = run("json");
    let notes = crate::common::stderr(&o);
    assert!(notes.contains("staging.tfvars"), "{notes}");
    assert!(!notes.contains("prod.tfvars"), "{notes}");

    let sarif = json(&run("sarif"));
    let result = &sarif["runs"][0]["results"][0];
    let locations = result["relatedLocations"].as_array().unwrap();
    let tfvars = locations
        .iter()
        .find(|l| l["physicalLocation"]["artifactLocation"]["uri"] == "prod.tfvars")
        .unwrap_or_else(|| panic!("{result:#}"));
    assert_eq!(tfvars["physicalLocation"]["region"]["startLine"], 2);
    assert_eq!(tfvars["message"]["text"], "`var.gpu_min` is set here");
    let validator = crate::common::sarif_schema();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");

    for format in ["compact", "github", "junit", "human"] {
        let text = crate::common::stdout(&run(format));
        assert!(
            text.contains("prod.tfvars:2:1") || text.contains("prod.tfvars:2:1]"),
            "{format}: {text}"
        );
    }
}

/// A pool off by its variable's default, or by a var file, is judged as when enabled, and
/// the finding names the toggle and what switched it off.
#[test]
fn a_pool_off_by_default_or_by_a_var_file_is_judged_when_enabled() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::common::write(
        d,
        "main.tf",
        "variable \"enable_gpu\" {\n  default = false\n}\n\nresource \"aws_eks_node_group\" \"gpu\" {\n  count          = var.enable_gpu ? 1 : 0\n  cluster_name   = \"ml\"\n  node_role_arn  = \"arn:aws:iam::123456789012:role/eks-node\"\n  subnet_ids     = [\"subnet-0abc\"]\n  instance_types = [\"g6e.xlarge\"]\n  scaling_config {\n    min_size     = 1\n    max_size     = 4\n    desired_size = 1\n  }\n}\n",
    );
    crate::common::write(d, "off.tfvars", "enable_gpu = false\n");
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(extra);
        args.push(".");
        json(&crate::common::gpulint(&args, d, None))
    };

    let report = check(&[]);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    let f = &findings[0];
    assert_eq!(f["subject"], "aws_eks_node_group.gpu[0]");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("off by default through `var.enable_gpu`"),
        "{message}"
    );
    assert!(
        f["related"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["line"] == 6 && r["message"] == "off by default: `var.enable_gpu`"),
        "{f:#}"
    );

    // Switched off by a variable file: still what the repository can deploy, and the
    // finding says who switched it off.
    let report = check(&["--var-file", "off.tfvars"]);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    let message = findings[0]["message"].as_str().unwrap();
    assert!(
        message.contains("a variable file switches it off through `var.enable_gpu`"),
        "{message}"
    );
}

/// A module source that names this repository by its Git URL is read from the tree, as a
/// local module; one that names another repository is not.
#[test]
fn a_git_source_naming_this_repository_is_read_from_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("acme+gpu-infra");
    std::fs::create_dir_all(&repo).unwrap();
    crate::common::write(
        &repo,
        "modules/gke-pool/main.tf",
        "variable \"min_nodes\" {}\nresource \"google_container_node_pool\" \"gpu\" {\n  name    = \"gpu\"\n  cluster = \"c\"\n  autoscaling {\n    min_node_count = var.min_nodes\n    max_node_count = 4\n  }\n  node_config {\n    machine_type = \"g2-standard-8\"\n  }\n}\n",
    );
    let env = |source: &str| {
        format!("module \"pool\" {{\n  source    = \"{source}\"\n  min_nodes = 2\n}}\n")
    };
    crate::common::write(
        &repo,
        "envs/prod/main.tf",
        env("github.com/acme/gpu-infra//modules/gke-pool?ref=v1.2.0"),
    );
    crate::common::write(
        &repo,
        "envs/other/main.tf",
        env("github.com/someone-else/infra//modules/gke-pool"),
    );
    let check = |folder: &str| {
        json(&crate::common::gpulint(
            &["check", "--format", "json", folder],
            &repo,
            None,
        ))
    };

    let report = check("envs/prod");
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    let o = crate::common::gpulint(&["inspect", "envs/prod"], &repo, None);
    let notes = crate::common::stderr(&o);
    assert!(
        notes.contains(
            "`github.com/acme/gpu-infra//modules/gke-pool?ref=v1.2.0` names this repository: \
             read from `modules/gke-pool` in this checkout"
        ),
        "{notes}"
    );
    assert_eq!(
        findings[0]["subject"],
        "module.pool.google_container_node_pool.gpu"
    );
    assert_eq!(findings[0]["file"], "modules/gke-pool/main.tf");

    let report = check("envs/other");
    assert_eq!(
        report["findings"].as_array().unwrap().len(),
        0,
        "{report:#}"
    );
}

/// A minimum that travelled from the tfvars through locals and a module input is traced
/// to the line that writes it, in the entry the finding is about, and the help names the
/// module input's key; `each.value.KEY` is traced through the block's `for_each` alike.
#[test]
fn a_value_that_travelled_in_objects_is_traced_to_the_line_that_writes_it() {
    let run = |fixture: &str| {
        json(&crate::common::gpulint(
            &["check", "--format", "json", fixture],
            std::path::Path::new(crate::common::ROOT),
            None,
        ))
    };
    let dir = "fixtures/gpu-pool-never-scales-to-zero/fires";

    let report = run(&format!("{dir}/input-through-locals"));
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    let f = &findings[0];
    // The line to change, then the call that deploys the module the pool is in.
    assert_eq!(
        f["related"],
        serde_json::json!([{
            "file": format!("{dir}/input-through-locals/terraform.tfvars"),
            "line": 16, "column": 5, "end_line": 16, "end_column": 26,
            "message": "`min_count` of `gpu-pool-l4` is set here"
        }, {
            "file": format!("{dir}/input-through-locals/main.tf"),
            "line": 17, "column": 1, "end_line": 17, "end_column": 17,
            "message": "`module.cluster` deploys the module here"
        }]),
        "{f:#}"
    );
    let help = f["help"].as_str().unwrap();
    assert!(
        help.starts_with("set `min_count = 0` in the `gpu-pool-l4` entry of `node_pools`"),
        "{help}"
    );

    let report = run(&format!("{dir}/each-value-from-tfvars"));
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    let related = &findings[0]["related"][0];
    assert_eq!(
        (&related["line"], &related["message"]),
        (
            &serde_json::json!(9),
            &serde_json::json!("`min_size` of `a100` is set here")
        ),
        "{related:#}"
    );
}

/// A var file kept in a folder with no Terraform (`envs/prod.tfvars`) sets the nearest
/// folder above whose variables declare its keys: that module is linted with it, and the
/// notes advise that folder, never the empty one.
#[test]
fn a_var_file_in_a_folder_of_only_tfvars_sets_the_module_that_declares_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::common::write(
        d,
        "infra/main.tf",
        "variable \"gpu_min\" {\n  default = 0\n}\n\nresource \"aws_eks_node_group\" \"gpu\" {\n  cluster_name   = \"ml\"\n  node_role_arn  = \"arn:aws:iam::123456789012:role/eks-node\"\n  subnet_ids     = [\"subnet-0abc\"]\n  instance_types = [\"g6e.xlarge\"]\n  scaling_config {\n    min_size     = var.gpu_min\n    max_size     = 4\n    desired_size = 1\n  }\n}\n",
    );
    crate::common::write(d, "infra/envs/prod.tfvars", "gpu_min = 2\n");
    crate::common::write(d, "infra/envs/dev.tfvars", "gpu_min = 0\n");
    crate::common::write(d, "infra/other/unrelated.tfvars", "region = \"eu\"\n");
    let run = |args: &[&str]| crate::common::gpulint(args, d, None);

    let o = run(&[
        "check",
        "--format",
        "json",
        "--var-file",
        "infra/envs/prod.tfvars",
        "infra/envs",
    ]);
    let report = json(&o);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    assert_eq!(findings[0]["file"], "infra/main.tf");
    assert_eq!(findings[0]["related"][0]["file"], "infra/envs/prod.tfvars");
    let notes = crate::common::stderr(&o);
    assert!(
        notes.contains(
            "`infra/envs/prod.tfvars` sets no module in its own folder: read with `infra`"
        ),
        "{notes}"
    );
    assert!(
        notes.contains("`gpulint check --var-file infra/envs/dev.tfvars infra`"),
        "{notes}"
    );

    // Keys no module above declares: nothing is paired, and no folder is advised.
    let o = run(&[
        "check",
        "--format",
        "json",
        "--var-file",
        "infra/other/unrelated.tfvars",
        "infra/other",
    ]);
    assert_eq!(json(&o)["findings"].as_array().unwrap().len(), 0);
    assert!(
        !crate::common::stderr(&o).contains("infra/other`"),
        "{}",
        crate::common::stderr(&o)
    );
}

/// `[terraform] var_files` binds var files to the roots in one folder: the other roots of
/// the run keep their defaults.
#[test]
fn configured_var_files_apply_only_to_the_roots_they_are_bound_to() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pool = "variable \"gpu_min\" {\n  default = 0\n}\n\nresource \"aws_eks_node_group\" \"gpu\" {\n  cluster_name   = \"ml\"\n  node_role_arn  = \"arn:aws:iam::123456789012:role/eks-node\"\n  subnet_ids     = [\"subnet-0abc\"]\n  instance_types = [\"g6e.xlarge\"]\n  scaling_config {\n    min_size     = var.gpu_min\n    max_size     = 4\n    desired_size = 1\n  }\n}\n";
    crate::common::write(d, "training/main.tf", pool);
    crate::common::write(d, "serving/main.tf", pool);
    crate::common::write(d, "envs/prod.tfvars", "gpu_min = 2\n");
    crate::common::write(
        d,
        ".gpulint.toml",
        "[terraform]\nvar_files = { \"serving/\" = [\"envs/prod.tfvars\"] }\n",
    );

    let report = json(&crate::common::gpulint(
        &["check", "--format", "json", "training", "serving"],
        d,
        None,
    ));
    // The training root's group keeps its desired size (an info remark: nothing in the run
    // scales it); only the serving root's minimum, from the bound var file, is a warning.
    let findings: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "warning")
        .collect();
    assert_eq!(findings.len(), 1, "{report:#}");
    assert_eq!(findings[0]["file"], "serving/main.tf");
    assert_eq!(findings[0]["related"][0]["file"], "envs/prod.tfvars");

    // A var file the configuration names that is not there is an error, not a silence.
    crate::common::write(
        d,
        ".gpulint.toml",
        "[terraform]\nvar_files = { \"serving/\" = [\"envs/missing.tfvars\"] }\n",
    );
    let o = crate::common::gpulint(&["check", "serving"], d, None);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        crate::common::stderr(&o).contains("envs/missing.tfvars"),
        "{}",
        crate::common::stderr(&o)
    );
}

/// A capacity resource whose `for_each` reads a data source is left out, as Terraform's own
/// validate would leave its count unknown: a note says which, and how to give the values.
/// A helper module left out says nothing.
#[test]
fn capacity_left_out_by_an_unknown_for_each_is_named_in_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::common::write(
        d,
        "main.tf",
        "data \"azurerm_key_vault_secret\" \"farm\" {\n  name         = \"farm\"\n  key_vault_id = \"kv\"\n}\n\nresource \"azurerm_linux_virtual_machine_scale_set\" \"farm\" {\n  for_each            = jsondecode(data.azurerm_key_vault_secret.farm.value)\n  name                = each.key\n  sku                 = \"Standard_NV36ads_A10_v5\"\n  instances           = 2\n  resource_group_name = \"rg\"\n  location            = \"eastus\"\n  admin_username      = \"azureuser\"\n}\n\nmodule \"dns\" {\n  source = \"./dns\"\n  count  = length(data.azurerm_key_vault_secret.farm.value)\n}\n",
    );
    let o = crate::common::gpulint(&["check", "."], d, None);
    let notes = crate::common::stderr(&o);
    assert!(
        notes.contains(
            "not judged: `azurerm_linux_virtual_machine_scale_set.farm` in `main.tf`: its \
             `for_each` reads values gpulint cannot evaluate"
        ),
        "{notes}"
    );
    assert!(!notes.contains("module.dns"), "{notes}");
}

/// A module with a default for every variable, linted alone: a call from the project's own
/// deployment says what it runs with (its defaults never reach a machine); a call from an
/// examples folder does not, so it is judged on its defaults. A `provider` block in it
/// (modules written before Terraform 0.13) does not make it a root.
#[test]
fn a_defaulted_module_is_judged_through_a_deployment_not_through_an_example() {
    let module = "provider \"aws\" {\n  alias = \"gpu\"\n}\n\
                  variable \"min\" {\n  default = 1\n}\n\
                  resource \"aws_eks_node_group\" \"gpu\" {\n  cluster_name = \"c\"\n  \
                  node_role_arn = \"r\"\n  subnet_ids = [\"s\"]\n  instance_types = \
                  [\"g6.xlarge\"]\n  scaling_config {\n    min_size = var.min\n    max_size = 4\n    \
                  desired_size = var.min\n  }\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::common::write(d, "modules/gpu/main.tf", module);
    crate::common::write(
        d,
        "examples/basic/main.tf",
        "module \"gpu\" {\n  source = \"../../modules/gpu\"\n}\n",
    );
    let run = |d: &std::path::Path| {
        let o = crate::common::gpulint(&["check", "--format", "json", "modules/gpu"], d, None);
        let subjects: Vec<String> = json(&o)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["subject"].as_str().unwrap().to_string())
            .collect();
        (subjects, crate::common::stderr(&o))
    };
    // Only an example calls it: its default minimum of 1 is what a user gets.
    let (subjects, _) = run(d);
    assert_eq!(subjects, ["aws_eks_node_group.gpu"]);

    // The deployment calls it with a minimum of 0: judged through that call, nothing to say.
    crate::common::write(
        d,
        "envs/prod/main.tf",
        "module \"gpu\" {\n  source = \"../../modules/gpu\"\n  min    = 0\n}\n",
    );
    let (subjects, notes) = run(d);
    assert!(subjects.is_empty(), "{subjects:?}");
    assert!(
        notes.contains(
            "`modules/gpu` is a module the checkout calls, not a root: judged through its call \
             in `envs/prod`"
        ),
        "{notes}"
    );
}

/// A pool that reads one entry of a list input by index (`var.node_pools[count.index]
/// .node_count`) is traced to the tfvars line that sets the entry's key, and a module
/// nested five folders below its caller, linted alone, is judged through that caller.
#[test]
fn an_indexed_entry_is_traced_and_a_deep_module_finds_its_caller() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let module = "infra/terraform/modules/a3/cluster/gke";
    crate::common::write(
        root,
        &format!("{module}/main.tf"),
        "variable \"node_pools\" {}\n\
         resource \"google_container_node_pool\" \"pools\" {\n  \
         count      = length(var.node_pools)\n  \
         name       = \"np-${count.index}\"\n  \
         cluster    = \"c\"\n  \
         location   = \"us-central1-a\"\n  \
         node_count = var.node_pools[count.index].node_count\n  \
         node_config {\n    machine_type = var.node_pools[count.index].machine_type\n  }\n}\n",
    );
    crate::common::write(
        root,
        "infra/2-setup/main.tf",
        "variable \"node_count\" {}\n\
         module \"gke\" {\n  \
         source = \"../terraform/modules/a3/cluster/gke\"\n  \
         node_pools = [\n    {\n      \
         machine_type = \"a3-highgpu-8g\"\n      \
         node_count   = var.node_count\n    }\n  ]\n}\n",
    );
    crate::common::write(
        root,
        "infra/2-setup/terraform.auto.tfvars",
        "node_count = 1\n",
    );
    let check = |folder: &str| {
        json(&crate::common::gpulint(
            &["check", "--format", "json", folder],
            root,
            None,
        ))
    };

    let report = check("infra/2-setup");
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    let related = findings[0]["related"].as_array().unwrap();
    assert!(
        related
            .iter()
            .any(|r| r["file"] == "infra/2-setup/terraform.auto.tfvars"
                && r["line"] == 1
                && r["message"] == "`node_count` is set here, as `var.node_count`"),
        "{related:#?}"
    );

    let report = check(module);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    assert_eq!(findings[0]["file"], format!("{module}/main.tf"));
}

/// A finding inside a local module names the call that deploys it; when two roots call the
/// module under the same name, the one finding names both.
#[test]
fn the_calls_that_deploy_a_module_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    crate::common::write(
        root,
        "mod/main.tf",
        "variable \"instance_type\" {\n  default = \"g6.xlarge\"\n}\n\
         resource \"aws_instance\" \"this\" {\n  ami           = \"ami-0123456789abcdef0\"\n  \
         instance_type = var.instance_type\n}\n",
    );
    for r in ["a", "b"] {
        crate::common::write(
            root,
            &format!("{r}/main.tf"),
            "module \"gpu\" {\n  source = \"../mod\"\n}\n",
        );
    }
    let calls = |folders: &[&str]| -> Vec<String> {
        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(folders);
        let report = json(&crate::common::gpulint(&args, root, None));
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["related"].as_array().cloned().unwrap_or_default())
            .filter(|r| r["message"] == "`module.gpu` deploys the module here")
            .map(|r| r["file"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(calls(&["a"]), vec!["a/main.tf".to_string()]);
    assert_eq!(
        calls(&["a", "b"]),
        vec!["a/main.tf".to_string(), "b/main.tf".to_string()]
    );
}
