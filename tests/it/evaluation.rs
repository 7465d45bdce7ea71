//! Terraform evaluation under attack: a few KB of HCL that would take hours or terabytes
//! to evaluate in full. Each class must end quickly with a `limit-exceeded` finding, or
//! resolve where it is only unusual, and must never cost the finding on a literal GPU VM
//! beside it. The last test runs a fixed sweep of generated programs (the `eval` fuzz
//! target's grammar, `fuzz/fuzz_targets/program.rs`) through the library.

#[path = "../../fuzz/fuzz_targets/program.rs"]
mod program;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::common::{GPU_VM, ROOT, gpulint, json, stderr, write};

/// `(rule, subject, message)` of every finding of `gpulint check` on `text` as `main.tf`.
fn check_tf(text: &str) -> Vec<(String, String, String)> {
    let o = gpulint(
        &[
            "check",
            "--format",
            "json",
            "-",
            "--stdin-filename",
            "main.tf",
        ],
        Path::new(ROOT),
        Some(text.as_bytes()),
    );
    findings_of(&o)
}

fn findings_of(o: &std::process::Output) -> Vec<(String, String, String)> {
    let err = stderr(o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
    json(o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap().to_string();
            (s("rule"), s("subject"), s("message"))
        })
        .collect()
}

/// The literal VM of [`GPU_VM`] is flagged, once.
fn vm_flagged(found: &[(String, String, String)]) -> bool {
    found
        .iter()
        .filter(|f| f.0 == "missing-auto-shutdown" && f.1 == "aws_instance.trainer")
        .count()
        == 1
}

fn limit_hit(found: &[(String, String, String)], what: &str) -> bool {
    found
        .iter()
        .any(|f| f.0 == "limit-exceeded" && f.2.contains(what))
}

/// `locals { l0 = FIRST; lN = STEP(local.l(N-1)) … }` for `n` locals, with the GPU VM.
fn chain(n: usize, first: &str, step: impl Fn(&str) -> String) -> String {
    let mut text = format!("locals {{\n  l0 = {first}\n");
    for i in 1..n {
        let _ = writeln!(text, "  l{i} = {}", step(&format!("local.l{}", i - 1)));
    }
    text.push_str("}\n");
    let _ = writeln!(
        text,
        "resource \"aws_instance\" \"uses\" {{\n  instance_type = \"g5.xlarge\"\n  tags = {{ v = local.l{} }}\n}}",
        n - 1
    );
    text + GPU_VM
}

const EVALUATION: &str = "MiB of evaluated Terraform values";

#[test]
fn doubling_values_run_out_of_budget_not_of_memory() {
    let cases = [
        chain(48, "\"abcdefghij\"", |p| format!("\"${{{p}}}${{{p}}}\"")),
        chain(48, "[\"abcdefghij\"]", |p| format!("concat({p}, {p})")),
        chain(48, "\"abcdefghij\"", |p| {
            format!("format(\"%s%s\", {p}, {p})")
        }),
        chain(48, "\"abcdefghij\"", |p| format!("join(\"\", [{p}, {p}])")),
        chain(48, "{ a = \"abcdefghij\" }", |p| {
            format!("merge({p}, {{ for k, v in {p} : \"${{k}}/${{length({p})}}\" => v }})")
        }),
        chain(48, "[\"abcdefghij\"]", |p| format!("[{p}, {p}]")),
        // Each step replaces every `a` with the whole string: 10 → 100 → 10⁴ → 10⁸ → 10¹⁶.
        chain(6, "\"aaaaaaaaaa\"", |p| format!("replace({p}, \"a\", {p})")),
    ];
    for text in cases {
        let found = check_tf(&text);
        assert!(limit_hit(&found, EVALUATION), "{found:#?}\n{text}");
        assert!(vm_flagged(&found), "{found:#?}");
    }
}

/// `n` comma-separated numbers.
fn items(n: usize) -> String {
    (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

#[test]
fn large_collections_are_linear_or_bounded() {
    let split = |n: usize| format!("split(\",\", \"{}\")", items(n));
    let cases = [
        // Three nested `for` over 2,000 items: 8 × 10⁹ strings.
        (
            format!(
                "locals {{\n  s = {}\n  x = [for a in local.s : [for b in local.s : [for c in local.s : \"${{a}}${{b}}${{c}}\"]]]\n}}\n",
                split(2000)
            ),
            true,
        ),
        // `distinct` over 200,000 items was quadratic; now one pass, within budget.
        (
            format!(
                "locals {{\n  d = distinct({})\n}}\noutput \"n\" {{ value = length(local.d) }}\n",
                split(200_000)
            ),
            false,
        ),
        // `zipmap` over 200,000 keys.
        (
            format!(
                "locals {{\n  k = {}\n  z = zipmap(local.k, local.k)\n}}\n",
                split(200_000)
            ),
            false,
        ),
    ];
    for (text, over) in cases {
        let found = check_tf(&(text.clone() + GPU_VM));
        assert_eq!(limit_hit(&found, EVALUATION), over, "{found:#?}");
        assert!(vm_flagged(&found), "{found:#?}");
    }
}

#[test]
fn locals_in_reverse_dependency_order_resolve_in_one_pass() {
    // l0 needs l1, which needs l2, …: re-evaluating every pending local on each pass was
    // quadratic (45 s for 1,500). Resolved in dependency order, the type reaches the VM.
    let n = 3000;
    let mut text = String::from("locals {\n");
    for i in 0..n - 1 {
        let _ = writeln!(text, "  l{i} = local.l{}", i + 1);
    }
    let _ = writeln!(text, "  l{} = \"p4d.24xlarge\"\n}}", n - 1);
    text.push_str("resource \"aws_instance\" \"deep\" {\n  instance_type = local.l0\n}\n");
    let found = check_tf(&text);
    assert!(
        found
            .iter()
            .any(|f| f.1 == "aws_instance.deep" && f.2.contains("p4d.24xlarge")),
        "{found:#?}"
    );
    assert!(!found.iter().any(|f| f.0 == "limit-exceeded"), "{found:#?}");
}

#[test]
fn instances_are_bounded_per_block_and_per_run() {
    let big = "x".repeat(2 << 20);
    let mut blocks = String::new();
    for i in 0..2000 {
        let _ = writeln!(
            blocks,
            "resource \"aws_instance\" \"b{i}\" {{\n  count = 1024\n  instance_type = \"t3.micro\"\n}}"
        );
    }
    let cases = [
        // A 2 MiB default copied into 1,000 instances: 2 GB.
        (
            format!(
                "variable \"big\" {{\n  default = \"{big}\"\n}}\nresource \"aws_instance\" \"c\" {{\n  count = 1000\n  instance_type = \"t3.micro\"\n  tags = {{ v = var.big }}\n}}\n"
            ),
            EVALUATION,
        ),
        // 2,000 blocks of 1,024 instances each.
        (blocks, EVALUATION),
        // One block over the per-block cap, through nested `dynamic` blocks.
        (
            format!(
                "resource \"aws_instance\" \"d\" {{\n  count = 5000\n  instance_type = \"t3.micro\"\n  dynamic \"ebs_block_device\" {{\n    for_each = {hundred}\n    content {{\n      dynamic \"tag\" {{\n        for_each = {hundred}\n        content {{ v = tag.value }}\n      }}\n    }}\n  }}\n}}\n",
                hundred = format!("split(\",\", \"{}\")", items(100))
            ),
            "instances of one `count`, `for_each` or `dynamic` block",
        ),
    ];
    for (text, what) in cases {
        let found = check_tf(&(text + GPU_VM));
        assert!(limit_hit(&found, what), "{what}: {found:#?}");
        assert!(vm_flagged(&found), "{found:#?}");
    }
}

/// `dir/modules/mI` calling `mI+1` up to `depth`, with a GPU VM at level `gpu`.
fn module_chain(dir: &Path, depth: usize, gpu: usize) {
    write(
        dir,
        "main.tf",
        "module \"m0\" {\n  source = \"./modules/m0\"\n}\n",
    );
    for i in 0..depth {
        let mut text = String::new();
        if i + 1 < depth {
            let _ = writeln!(
                text,
                "module \"m{}\" {{\n  source = \"../m{}\"\n}}",
                i + 1,
                i + 1
            );
        }
        if i == gpu {
            text.push_str(GPU_VM);
        }
        write(dir, &format!("modules/m{i}/main.tf"), text);
    }
}

fn check_dir(dir: &Path, paths: &[&str]) -> Vec<(String, String, String)> {
    let o = gpulint(&[&["check", "--format", "json"], paths].concat(), dir, None);
    findings_of(&o)
}

#[test]
fn a_module_chain_deeper_than_the_limit_is_a_finding_and_shallow_gpus_are_found_once() {
    let tmp = tempfile::tempdir().unwrap();
    module_chain(tmp.path(), 130, 5);
    let found = check_dir(tmp.path(), &["main.tf"]);
    assert!(limit_hit(&found, "levels of module calls"), "{found:#?}");
    let vm: Vec<_> = found
        .iter()
        .filter(|f| f.0 == "missing-auto-shutdown")
        .collect();
    assert_eq!(vm.len(), 1, "{vm:#?}");
    assert!(vm[0].1.ends_with("aws_instance.trainer"), "{vm:#?}");
    // Within the limit a chain is followed to its end: a VM 60 calls deep, found once,
    // whether the run names the root file or its folder.
    let tmp = tempfile::tempdir().unwrap();
    module_chain(tmp.path(), 64, 60);
    for paths in [&["main.tf"][..], &["."][..]] {
        let found = check_dir(tmp.path(), paths);
        let rules: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(rules, ["missing-auto-shutdown"], "{paths:?}: {found:#?}");
        assert!(found[0].1.starts_with("module.m0.module.m1."), "{found:#?}");
    }
}

#[test]
fn each_root_has_its_own_module_budget() {
    // Root `a` multiplies module instances 64 × 64 × 64; root `b`, beside it, is plain.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(
        dir,
        "a/main.tf",
        "module \"l1\" {\n  source = \"./l1\"\n  count = 64\n}\n",
    );
    write(
        dir,
        "a/l1/main.tf",
        "module \"l2\" {\n  source = \"./l2\"\n  count = 64\n}\n",
    );
    write(
        dir,
        "a/l1/l2/main.tf",
        "module \"l3\" {\n  source = \"./l3\"\n  count = 64\n}\n",
    );
    write(dir, "a/l1/l2/l3/main.tf", "output \"x\" { value = 1 }\n");
    write(
        dir,
        "b/main.tf",
        "module \"gpu\" {\n  source = \"./gpu\"\n}\n",
    );
    write(dir, "b/gpu/main.tf", GPU_VM);
    let found = check_dir(dir, &["a", "b"]);
    assert!(
        limit_hit(&found, "module instances under one root module"),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f.0 == "missing-auto-shutdown" && f.1 == "module.gpu.aws_instance.trainer"),
        "{found:#?}"
    );
}

#[test]
fn generated_programs_never_lose_the_literal_gpu_vm() {
    // A fixed sweep through the eval fuzz target's grammar: xorshift bytes, so every run
    // checks the same 400 programs. Each goes through the library as the fuzz target runs it.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for case in 0..400 {
        let bytes: Vec<u8> = (0..256)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.to_le_bytes()[0]
            })
            .collect();
        let text = program::program(&bytes);
        let opts = gpulint::lint::Options {
            paths: vec![PathBuf::from("-")],
            stdin_filename: Some("main.tf".to_string()),
            ..gpulint::lint::Options::default()
        };
        let outcome = gpulint::lint::lint(&opts, text.as_bytes()).unwrap();
        assert!(
            outcome
                .findings
                .iter()
                .any(|f| f.rule == program::SENTINEL_RULE && f.subject == program::SENTINEL),
            "case {case}: the literal GPU VM was not flagged:\n{text}"
        );
        assert!(
            !outcome.findings.iter().any(|f| f.rule == "parse-error"),
            "case {case}: the grammar wrote invalid HCL:\n{text}"
        );
    }
}
