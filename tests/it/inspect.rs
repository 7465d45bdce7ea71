//! `gpulint inspect`: the inventory the rules read, as a user sees it, in both formats,
//! and its JSON against `schemas/inspect.schema.json`.

use std::path::Path;

use crate::common::*;

fn inspect(args: &[&str], cwd: &Path, stdin: Option<&[u8]>) -> std::process::Output {
    let mut all = vec!["inspect"];
    all.extend(args);
    let o = gpulint(&all, cwd, stdin);
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    o
}

/// A Job that trains, with its parallelism and GPU count as placeholders, and a spot node
/// group it can land on, beside an instance whose type comes from a variable with no
/// value.
fn training_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "job.yaml",
        "apiVersion: batch/v1
kind: Job
metadata:
  name: pretrain
spec:
  parallelism: $N
  template:
    spec:
      nodeSelector:
        pool: h100
      containers:
        - name: train
          image: pytorch/pytorch:2.3.0
          command: [\"python\", \"pretrain.py\"]
          resources:
            limits:
              nvidia.com/gpu: $GPUS
      restartPolicy: Never
",
    );
    write(
        dir.path(),
        "main.tf",
        "variable \"gpu_type\" {}

resource \"aws_instance\" \"box\" {
  ami           = \"ami-1\"
  instance_type = var.gpu_type
}

resource \"aws_eks_node_group\" \"gpu\" {
  instance_types = [\"p5.48xlarge\"]
  capacity_type  = \"SPOT\"
  labels         = { pool = \"h100\" }
  scaling_config {
    min_size     = 0
    max_size     = 4
    desired_size = 1
  }
}
",
    );
    dir
}

/// Shapes the fixtures do not hold: a Karpenter NodePool, tolerations, a `configMap`
/// volume.
fn more_shapes() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "k8s.yaml",
        "apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: [\"g6e.12xlarge\"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: [\"spot\", \"on-demand\"]
---
apiVersion: v1
kind: Pod
metadata:
  name: debug
spec:
  tolerations:
    - key: nvidia.com/gpu
      operator: Exists
      effect: NoSchedule
    - operator: Exists
  containers:
    - name: c
      image: x
      resources: {limits: {nvidia.com/gpu: 1}}
  volumes:
    - name: cfg
      configMap: {name: cfg}
",
    );
    dir
}

fn schema() -> jsonschema::Validator {
    let text = std::fs::read(Path::new(ROOT).join("schemas/inspect.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_slice(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn assert_valid(validator: &jsonschema::Validator, doc: &serde_json::Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

#[test]
fn examples_human() {
    let o = inspect(&["examples/"], Path::new(ROOT), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn examples_json() {
    let o = inspect(&["--format", "json", "examples/"], Path::new(ROOT), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let mut top: Vec<&String> = v.as_object().unwrap().keys().collect();
    top.sort();
    assert_eq!(top, ["capacity", "problems", "version", "workloads"]);
    assert_eq!(v["version"], 1);
    insta::assert_snapshot!(stdout(&o));
}

/// The schema is the contract: every shape the fixtures of every rule produce, the
/// examples, the CI data (Terraform, Kubernetes, a file name with spaces), a plan, and
/// files that do not parse or hit a limit.
#[test]
fn json_matches_the_schema() {
    let validator = schema();
    let root = Path::new(ROOT);
    let fuzz = root.join("tests/data/fuzz");
    let training = training_folder();
    let more = more_shapes();
    for (cwd, args) in [
        (root, vec!["examples/"]),
        (root, vec!["fixtures/"]),
        (root, vec!["tests/fixtures/policies"]),
        (root, vec!["tests/data/ci"]),
        (root, vec!["tests/data/plan/plan.json"]),
        (fuzz.as_path(), vec!["."]),
        (training.path(), vec!["."]),
        (more.path(), vec!["."]),
    ] {
        let mut all = vec!["--format", "json"];
        all.extend(&args);
        let o = inspect(&all, cwd, None);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_valid(&validator, &json(&o), &format!("{args:?}"));
    }

    // Together they hold every optional part the schema describes, so none is untested.
    let mut text = stdout(&inspect(&["--format", "json", "fixtures/"], root, None));
    text += &stdout(&inspect(&["--format", "json", "."], more.path(), None));
    for part in [
        "\"serving\": {",
        "\"launcher\": {",
        "\"evidence\": {",
        "\"state\": \"unknown\"",
        "\"per_zone\": ",
        "\"region\": \"",
        "\"listed\": [",
        "\"kind\": \"persistent_volume_claim\"",
        "\"kind\": \"other\"",
        "\"landing\": [\n",
        "\"tolerations\": [\n",
        "\"spread\": [\n",
        "\"labels\": [\n",
        "\"stop\": [\n",
        "\"reserved\": {",
        "\"value\": \"mixed\"",
        "\"params\": {",
        "\"spans_pods\": {",
        "\"spans_exact\": false",
        "\"dp\": {",
        "\"unknown\": [\n",
        "\"ends\": {",
        "\"exact\": false",
        "\"kind\": \"single\"",
        "\"kind\": \"autoscaled\"",
        "\"idle_timeout\": {",
        "\"on\": ",
        "\"generated_by\": ",
        "\"shm_by\": ",
        "\"price\": {",
        "\"resolved\": {",
        "\"from\": \"registry\"",
    ] {
        assert!(text.contains(part), "no {part} in the inventories");
    }
    let problems = json(&inspect(&["--format", "json", "."], &fuzz, None));
    let kinds: Vec<&str> = problems["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"syntax_error") && kinds.contains(&"limit"),
        "{kinds:?}"
    );

    // The validator is not a rubber stamp: a field the schema does not name, a known
    // value without its position and a wrong version all fail.
    let mut doc = json(&inspect(&["--format", "json", "."], training.path(), None));
    assert!(validator.is_valid(&doc));
    doc["capacity"][0]["colour"] = "red".into();
    assert!(!validator.is_valid(&doc));
    doc["capacity"][0].as_object_mut().unwrap().remove("colour");
    let market = doc["capacity"][1]["market"].as_object_mut().unwrap();
    assert_eq!(market["value"], "spot");
    market.remove("line");
    assert!(!validator.is_valid(&doc));
    doc = json(&inspect(&["--format", "json", "."], training.path(), None));
    doc["version"] = 2.into();
    assert!(!validator.is_valid(&doc));
    // A price without its date fails.
    doc = json(&inspect(&["--format", "json", "."], training.path(), None));
    let price = &mut doc["capacity"][1]["machines"]["value"][0]["price"];
    assert_eq!(price["region"], "us-east-1");
    price.as_object_mut().unwrap().remove("as_of");
    assert!(!validator.is_valid(&doc));
}

/// Each machine carries its on-demand list price where the snapshot has one, and a served
/// model its size as the registry reads it: what policies read.
#[test]
fn machines_carry_their_price_and_models_their_size() {
    let dir = training_folder();
    let v = json(&inspect(&["--format", "json", "."], dir.path(), None));
    let price = &v["capacity"][1]["machines"]["value"][0]["price"];
    assert_eq!(
        v["capacity"][1]["machines"]["value"][0]["name"],
        "p5.48xlarge"
    );
    assert_eq!(price["region"], "us-east-1");
    assert_eq!(price["usd_per_hour"], 55.04, "{price}");
    assert_eq!(price["as_of"], "2026-07-20", "{price}");
    assert!(
        price["source"].as_str().unwrap().contains("AWS-K"),
        "{price}"
    );
    // The size it is asked to keep, beside its bounds; no region is written.
    let pool = &v["capacity"][1];
    assert_eq!(pool["scale"]["desired"]["value"], 1, "{pool}");
    assert_eq!(pool["scale"]["max"]["value"], 4, "{pool}");
    assert!(pool["region"].is_null(), "{pool}");
    // A zone names its region.
    let o = inspect(
        &["--format", "json", "examples/terraform/gcp"],
        Path::new(ROOT),
        None,
    );
    assert_eq!(json(&o)["capacity"][0]["region"], "us-central1");

    let o = inspect(
        &["--format", "json", "examples/kubernetes/vllm.yaml"],
        Path::new(ROOT),
        None,
    );
    let serving = &json(&o)["workloads"][0]["pods"][0]["serving"];
    assert_eq!(
        serving["resolved"],
        serde_json::json!({"id": "meta-llama/Llama-3.1-8B", "params": 8_030_261_248.0, "from": "registry"})
    );
}

/// Why a rule treats a Job as training: the role, the signal and its detail.
#[test]
fn a_workload_shows_its_role_with_the_evidence() {
    let dir = training_folder();
    let v = json(&inspect(
        &["--format", "json", "job.yaml"],
        dir.path(),
        None,
    ));
    let role = &v["workloads"][0]["role"];
    assert_eq!(role["state"], "known");
    assert_eq!(role["value"], "training");
    assert_eq!(role["evidence"]["signal"], "command");
    assert_eq!(
        role["evidence"]["detail"],
        "Job running `python pretrain.py`"
    );
    // Where the deciding signal is: the container that runs the command.
    assert_eq!(
        (&role["file"], &role["line"], &role["column"]),
        (&"job.yaml".into(), &12.into(), &11.into())
    );

    let human = stdout(&inspect(&["job.yaml"], dir.path(), None));
    assert!(
        human.contains(
            "    role: training (job.yaml:12:11)\n      evidence: {signal: command, detail: \
             Job running `python pretrain.py`}\n"
        ),
        "{human}"
    );
}

/// A value written where gpulint cannot evaluate it is listed as unknown, at the place it
/// was written, with why; a value not written is null.
#[test]
fn unknown_values_are_listed_with_their_position() {
    let dir = training_folder();
    let v = json(&inspect(&["--format", "json", "."], dir.path(), None));
    let pod = &v["workloads"][0]["pods"][0];
    let replicas = &pod["replicas"];
    assert_eq!(replicas["state"], "unknown");
    assert_eq!(
        (&replicas["file"], &replicas["line"], &replicas["column"]),
        (&"job.yaml".into(), &6.into(), &16.into())
    );
    assert!(
        replicas["reason"]
            .as_str()
            .unwrap()
            .starts_with("written here but not evaluable"),
        "{replicas}"
    );
    // `nvidia.com/gpu: $GPUS` asks for GPUs, at least one: known, but not exactly.
    let gpus = &pod["gpus"];
    assert_eq!(gpus["state"], "known");
    assert_eq!(
        gpus["value"],
        serde_json::json!({"resource": "nvidia.com/gpu", "count": 1, "exact": false})
    );
    assert_eq!((&gpus["line"], &gpus["column"]), (&17.into(), &31.into()));
    let bx = &v["capacity"][0];
    assert_eq!(bx["subject"], "aws_instance.box");
    assert_eq!(bx["machines"]["state"], "unknown");
    assert_eq!((&bx["line"], &bx["column"]), (&3.into(), &1.into()));
    assert_eq!(
        (&bx["machines"]["line"], &bx["machines"]["column"]),
        (&5.into(), &19.into())
    );
    assert!(bx["market"].is_null());
    assert!(pod["containers"][0]["cpu_request"].is_null());

    let human = stdout(&inspect(&["."], dir.path(), None));
    assert!(
        human.contains(
            "    machines: unknown (main.tf:5:19): written here but not evaluable: a variable \
             without a value, a data source, a function or placeholder gpulint does not read\n"
        ),
        "{human}"
    );
    assert!(
        human.contains("        replicas: unknown (job.yaml:6:16): written here"),
        "{human}"
    );
    assert!(
        human.contains(
            "        gpus: {resource: nvidia.com/gpu, count: 1, exact: false} (job.yaml:17:31)\n"
        ),
        "{human}"
    );
    assert!(human.contains("    market: not written\n"), "{human}");
}

/// The link step's result: the pool a pod can land on, by subject and index.
#[test]
fn a_pod_lists_the_capacity_it_lands_on() {
    let dir = training_folder();
    let v = json(&inspect(&["--format", "json", "."], dir.path(), None));
    let pool = &v["capacity"][1];
    assert_eq!(pool["subject"], "aws_eks_node_group.gpu");
    assert_eq!(pool["machines"]["value"][0]["gpu_count"], 8);
    assert_eq!(
        v["workloads"][0]["pods"][0]["landing"],
        serde_json::json!([{"subject": "aws_eks_node_group.gpu", "capacity": 1}])
    );
    let human = stdout(&inspect(&["."], dir.path(), None));
    assert!(
        human.contains(
            "        landing:\n          - subject: aws_eks_node_group.gpu, capacity: 1\n"
        ),
        "{human}"
    );
}

/// Inspect is not a gate: files that do not parse are listed and the run exits 0; a run
/// that cannot start exits 2.
#[test]
fn problems_are_listed_and_only_bad_usage_fails() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "broken.tf",
        "resource \"aws_instance\" \"x\" {\n  ami = \n}\n",
    );
    write(dir.path(), "gpu.tf", GPU_VM);
    let o = inspect(&["."], dir.path(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("problems:\n  - kind: syntax_error (broken.tf:2:9)\n    subject: broken.tf\n"),
        "{out}"
    );
    assert!(
        out.ends_with("\n1 capacity resource, 0 workloads and 1 problem in 2 files.\n"),
        "{out}"
    );

    for args in [
        &["no-such-folder"][..],
        &["--format", "sarif", "."],
        &["--select", "missing-shm", "."],
        &["--output", "gpu.tf", "."],
    ] {
        let o = inspect(args, dir.path(), None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
    }
    // `--output` refused to overwrite an input: it is intact.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("gpu.tf")).unwrap(),
        GPU_VM
    );
}

#[test]
fn stdin_var_files_and_output_work_as_for_check() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "main.tf",
        "variable \"type\" {}\nresource \"aws_instance\" \"x\" {\n  instance_type = var.type\n}\n",
    );
    write(dir.path(), "prod.tfvars", "type = \"g6e.48xlarge\"\n");
    let o = inspect(
        &[
            "--format",
            "json",
            "--var-file",
            "prod.tfvars",
            "--output",
            "inventory.json",
            ".",
        ],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let text = std::fs::read(dir.path().join("inventory.json")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let machines = &v["capacity"][0]["machines"];
    assert_eq!(machines["value"][0]["name"], "g6e.48xlarge");
    // The value's position is where the resource uses it.
    assert_eq!(
        (&machines["file"], &machines["line"], &machines["column"]),
        (&"main.tf".into(), &3.into(), &19.into())
    );

    let o = inspect(
        &["-", "--stdin-filename", "infra/gpu.tf"],
        dir.path(),
        Some(GPU_VM.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("  - subject: aws_instance.trainer (infra/gpu.tf:1:1)\n"),
        "{}",
        stdout(&o)
    );
}

/// Names and values from the files reach the terminal escaped; JSON keeps them exact.
#[test]
fn text_from_files_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"evil\\e[2J\\nforged\\u202e\"\nspec:\n  \
         containers:\n    - name: c\n      image: x\n      resources: {limits: {nvidia.com/gpu: 1}}\n",
    );
    let o = inspect(&["."], dir.path(), None);
    let out = stdout(&o);
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{202e}'),
        "{out:?}"
    );
    assert!(
        out.contains("name: evil\\u{1b}[2J\\nforged\\u{202e}\n"),
        "{out}"
    );
    let v = json(&inspect(&["--format", "json", "."], dir.path(), None));
    assert_eq!(v["workloads"][0]["name"], "evil\u{1b}[2J\nforged\u{202e}");
    assert!(!stdout(&inspect(&["--format", "json", "."], dir.path(), None)).contains('\u{202e}'));
}
