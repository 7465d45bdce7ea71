//! What gpulint reads, and what it writes over: links that lead out of the linted tree,
//! special files given as options (devices, FIFOs, process substitution), stdin past the
//! size cap, two files that could share a name, an output naming an input, an unwritable
//! stderr, a var file inside the linted folder.
#![cfg(unix)]
#![allow(clippy::print_stderr)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::{GPU_VM, gpulint, json, rule_files, stderr, stdout, write};

/// Runs gpulint in `dir` with stdin closed and a short wait for FIFOs.
fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(args)
        .current_dir(dir)
        .env("GPULINT_OPEN_TIMEOUT_MS", "300")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
        .collect()
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn links_that_lead_out_of_the_tree_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A secret beside the repository, and a repository whose pull request links to it.
    write(d, "secret.yaml", "TOKEN: [hunter2-do-not-print\n");
    write(d, "repo/shared/gpu.tf", GPU_VM);
    write(d, "repo/root/main.tf", "locals {}\n");
    symlink("../shared/gpu.tf", d.join("repo/root/gpu.tf")).unwrap();
    symlink("../../secret.yaml", d.join("repo/root/env.yaml")).unwrap();
    symlink("../../secret.yaml", d.join("repo/root/creds.tf")).unwrap();

    let o = run(d, &["check", "--format", "json", "repo"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    // The link inside the tree is read under its own name; the links out are not.
    assert_eq!(
        rule_files(&o),
        pairs(&[
            ("missing-auto-shutdown", "repo/root/gpu.tf"),
            ("missing-auto-shutdown", "repo/shared/gpu.tf"),
        ])
    );
    assert!(!stdout(&o).contains("hunter2"));
    assert!(
        stderr(&o).contains(
            "gpulint: skipped `repo/root/creds.tf`, `repo/root/env.yaml`: links to files \
             outside the folder linted, not read unless `--follow-external-links`"
        ),
        "{}",
        stderr(&o)
    );

    // A named .tf brings its folder as context: the same rule holds for that folder.
    let o = run(d, &["check", "--format", "json", "repo/root/main.tf"]);
    assert!(!stdout(&o).contains("hunter2"));
    assert!(
        stderr(&o).contains("`repo/root/creds.tf`"),
        "{}",
        stderr(&o)
    );
    // Outside a checkout, its `.tf` link to a `.tf` in the working folder is read.
    assert!(!stderr(&o).contains("`repo/root/gpu.tf`"), "{}", stderr(&o));

    // A local module's folder too.
    write(
        d,
        "caller/main.tf",
        "module \"m\" {\n  source = \"../repo/root\"\n}\n",
    );
    let o = run(d, &["check", "--format", "json", "caller"]);
    assert!(!stdout(&o).contains("hunter2"));
    assert!(
        stderr(&o).contains("`repo/root/creds.tf`"),
        "{}",
        stderr(&o)
    );

    // Asked for, by flag or config, they are read; named, a link is read as named.
    let o = run(
        d,
        &[
            "check",
            "--format",
            "json",
            "--follow-external-links",
            "repo",
        ],
    );
    assert!(rule_files(&o).contains(&("parse-error".into(), "repo/root/env.yaml".into())));
    write(d, "repo/.gpulint.toml", "follow_external_links = true\n");
    let o = run(&d.join("repo"), &["check", "--format", "json", "root"]);
    assert!(rule_files(&o).contains(&("parse-error".into(), "root/env.yaml".into())));
    let o = run(d, &["check", "--format", "json", "repo/root/env.yaml"]);
    assert_eq!(
        rule_files(&o),
        pairs(&[("parse-error", "repo/root/env.yaml")])
    );
}

#[test]
fn outside_a_checkout_roots_read_the_terraform_they_link_from_above() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An exported tree (no `.git`): a root links its GPU VM and its variables from above.
    write(d, "tree/shared/gpu.tf", GPU_VM);
    write(
        d,
        "tree/shared/env.auto.tfvars",
        "token = \"hunter2-do-not-print\"\n",
    );
    write(d, "tree/env/aws/main.tf", "locals {}\n");
    symlink("../../shared/gpu.tf", d.join("tree/env/aws/gpu.tf")).unwrap();
    symlink(
        "../../shared/env.auto.tfvars",
        d.join("tree/env/aws/env.auto.tfvars"),
    )
    .unwrap();
    let o = run(d, &["check", "--format", "json", "tree/env/aws"]);
    // The `.tf` link is read under its own name; the tfvars link is not.
    assert_eq!(
        rule_files(&o),
        pairs(&[("missing-auto-shutdown", "tree/env/aws/gpu.tf")])
    );
    assert!(!stdout(&o).contains("hunter2"));
    assert!(
        stderr(&o).contains("`tree/env/aws/env.auto.tfvars`"),
        "{}",
        stderr(&o)
    );

    // In a checkout, the checkout is the bound, whatever the link is.
    std::fs::create_dir_all(d.join("co/.git")).unwrap();
    write(d, "co/root/main.tf", "locals {}\n");
    symlink("../../tree/shared/gpu.tf", d.join("co/root/gpu.tf")).unwrap();
    let o = run(d, &["check", "--format", "json", "co/root"]);
    assert_eq!(rule_files(&o), pairs(&[]));
    assert!(stderr(&o).contains("`co/root/gpu.tf`"), "{}", stderr(&o));
}

#[test]
fn devices_and_fifos_given_as_options_end_the_run_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "gpu/main.tf", GPU_VM);
    write(d, ".gpulint.toml", "max_file_size = 1\n");
    for flag in ["--var-file", "--baseline"] {
        let o = run(d, &["check", "gpu", flag, "/dev/zero"]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {o:?}");
        assert!(
            stderr(&o).contains("`/dev/zero`: it is over the 1 MiB limit (`max_file_size`"),
            "{}",
            stderr(&o)
        );
    }
    let o = run(d, &["check", "gpu", "--config", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read config `/dev/zero`: it is over the 1 MiB limit"),
        "{}",
        stderr(&o)
    );

    if !mkfifo(&d.join("fifo")) {
        crate::common::skip("no mkfifo");
        return;
    }
    for (flag, what) in [
        ("--var-file", "--var-file"),
        ("--baseline", "baseline"),
        ("--config", "config"),
    ] {
        let o = run(d, &["check", "gpu", flag, "fifo"]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {o:?}");
        assert!(
            stderr(&o).contains(&format!(
                "gpulint: error: cannot read {what} `fifo`: it gave no data within 300 ms: \
                 a FIFO with no writer?"
            )),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn process_substitution_still_gives_var_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "main.tf",
        "variable \"t\" {}\nresource \"aws_instance\" \"x\" { instance_type = var.t }\n",
    );
    let script = format!(
        "'{}' check --format json main.tf --var-file <(echo 't = \"p5.48xlarge\"')",
        env!("CARGO_BIN_EXE_gpulint")
    );
    let Ok(o) = Command::new("bash")
        .args(["-c", &script])
        .current_dir(d)
        .output()
    else {
        crate::common::skip("no bash");
        return;
    };
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(
        rule_files(&o),
        pairs(&[("missing-auto-shutdown", "main.tf")])
    );
}

#[test]
fn stdin_stops_at_the_cap_with_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, ".gpulint.toml", "max_file_size = 1\n");
    let o = gpulint(
        &["check", "--format", "json", "-"],
        d,
        Some(&vec![b'a'; 3 << 20]),
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let v = json(&o);
    assert_eq!(
        v["findings"][0]["message"],
        "gpulint could not read the file: it is over the 1 MiB limit \
         (`max_file_size` in .gpulint.toml)"
    );
}

#[test]
fn two_files_never_share_a_name_and_both_are_linted() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A name with a literal `\xFF`, and one with the byte 0xFF.
    write(d, "a/\\xFF.tf", GPU_VM);
    if std::fs::write(
        d.join("a").join(std::ffi::OsStr::from_bytes(b"\xFF.tf")),
        GPU_VM,
    )
    .is_err()
    {
        crate::common::skip("the file system refuses names that are not UTF-8");
    } else {
        let o = run(d, &["check", "--format", "json", "a"]);
        assert_eq!(
            rule_files(&o),
            pairs(&[
                ("missing-auto-shutdown", "a/\\\\xFF.tf"),
                ("missing-auto-shutdown", "a/\\xFF.tf"),
            ])
        );
    }

    // `lnk/../main.tf` is `other/main.tf` when `lnk` links to `other/sub`.
    write(d, "b/main.tf", GPU_VM);
    write(d, "other/main.tf", GPU_VM);
    std::fs::create_dir_all(d.join("other/sub")).unwrap();
    symlink("../other/sub", d.join("b/lnk")).unwrap();
    let o = run(
        &d.join("b"),
        &["check", "--format", "json", "main.tf", "lnk/../main.tf"],
    );
    assert_eq!(
        rule_files(&o),
        pairs(&[
            ("missing-auto-shutdown", "lnk/../main.tf"),
            ("missing-auto-shutdown", "main.tf"),
        ])
    );
}

#[test]
fn outputs_never_overwrite_what_the_run_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "gpu/main.tf", GPU_VM);
    write(d, "vars.tfvars", "x = 1\n");
    write(d, ".gpulint.toml", "");
    symlink("gpu/main.tf", d.join("link.txt")).unwrap();
    for (flag, target, what) in [
        ("--output", "gpu/main.tf", "`gpu/main.tf`"),
        ("--write-baseline", "gpu/main.tf", "`gpu/main.tf`"),
        ("--output", "link.txt", "`gpu/main.tf`"),
        ("--output", "vars.tfvars", "`vars.tfvars`"),
        ("--output", ".gpulint.toml", "the config"),
    ] {
        let o = run(
            d,
            &["check", "gpu", "--var-file", "vars.tfvars", flag, target],
        );
        assert_eq!(o.status.code(), Some(2), "{flag} {target}: {o:?}");
        assert!(
            stderr(&o).contains(&format!("`{flag} {target}` names {what}")),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(
        std::fs::read_to_string(d.join("gpu/main.tf")).unwrap(),
        GPU_VM
    );
    assert_eq!(
        std::fs::read_to_string(d.join("vars.tfvars")).unwrap(),
        "x = 1\n"
    );

    // A new file, and refreshing the baseline in place, are fine.
    let o = run(d, &["check", "gpu", "--write-baseline", "b.json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let o = run(
        d,
        &[
            "check",
            "gpu",
            "--baseline",
            "b.json",
            "--write-baseline",
            "b.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
}

#[test]
fn an_unwritable_stderr_changes_neither_report_nor_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "gpu/main.tf", GPU_VM);
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        crate::common::skip("no /dev/full");
        return;
    };
    // The baseline note and an error both go to stderr.
    let o = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "check",
            "--format",
            "compact",
            "gpu",
            "--write-baseline",
            "b.json",
        ])
        .current_dir(d)
        .stderr(full.try_clone().unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let o = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", "--format", "compact", "gpu", "missing"])
        .current_dir(d)
        .stderr(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}

#[test]
fn a_var_file_in_the_linted_folder_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "c/main.tf",
        "variable \"t\" {}\nresource \"aws_instance\" \"x\" { instance_type = var.t }\n",
    );
    write(d, "c/bad.tfvars", "t = [1, \n");
    let o = run(
        d,
        &[
            "check",
            "--format",
            "json",
            "c",
            "--var-file",
            "c/bad.tfvars",
        ],
    );
    assert_eq!(rule_files(&o), pairs(&[("parse-error", "c/bad.tfvars")]));

    // A good one applies, and is still one file.
    write(d, "c/good.tfvars", "t = \"p5.48xlarge\"\n");
    let o = run(
        d,
        &[
            "check",
            "--format",
            "json",
            "c",
            "--var-file",
            "./c/good.tfvars",
        ],
    );
    assert_eq!(
        rule_files(&o),
        pairs(&[
            ("missing-auto-shutdown", "c/main.tf"),
            ("parse-error", "c/bad.tfvars"),
        ])
    );
}

/// In a Git checkout, a link that stays inside it is read wherever the lint starts (a
/// `variables.tf` shared between roots through `../variables.tf`); a link out of the
/// checkout is still skipped.
#[test]
fn links_inside_the_checkout_are_read_from_any_folder_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "secret.yaml", "TOKEN: [hunter2-do-not-print\n");
    std::fs::create_dir_all(d.join("repo/.git")).unwrap();
    write(d, "repo/shared/gpu.tf", GPU_VM);
    write(d, "repo/root/main.tf", "locals {}\n");
    symlink("../shared/gpu.tf", d.join("repo/root/gpu.tf")).unwrap();
    symlink("../../secret.yaml", d.join("repo/root/creds.tf")).unwrap();

    let o = run(d, &["check", "--format", "json", "repo/root"]);
    assert_eq!(
        rule_files(&o),
        pairs(&[("missing-auto-shutdown", "repo/root/gpu.tf")])
    );
    assert!(!stdout(&o).contains("hunter2"));
    let notes = stderr(&o);
    assert!(notes.contains("`repo/root/creds.tf`"), "{notes}");
    assert!(!notes.contains("`repo/root/gpu.tf`"), "{notes}");
}

/// Every file the run reads is guarded against every file it writes: a policy (named, or a
/// `.rego` in a policy folder), a var file and the baseline, from `--output` and
/// `--report` alike. Nothing is written; the input is unchanged.
#[test]
fn no_output_overwrites_a_policy_a_var_file_or_the_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "main.tf", GPU_VM);
    let policy = "package gpulint.team\n\ndeny contains {\"msg\": \"x\"} if { false }\n";
    write(d, "team.rego", policy);
    write(d, "pol/more.rego", policy);
    write(d, "prod.tfvars", "x = 1\n");
    let o = run(d, &["check", "--write-baseline", "b.json", "main.tf"]);
    assert!(o.status.code().is_some_and(|c| c < 2), "{o:?}");
    let baseline = std::fs::read_to_string(d.join("b.json")).unwrap();
    for (args, names) in [
        (
            vec!["--output", "team.rego", "--policy", "team.rego"],
            "the policy",
        ),
        (
            vec!["--output", "pol/more.rego", "--policy", "pol"],
            "the policy",
        ),
        (
            vec!["--output", "prod.tfvars", "--var-file", "prod.tfvars"],
            "`prod.tfvars`",
        ),
        (
            vec!["--report", "sarif=b.json", "--baseline", "b.json"],
            "the baseline",
        ),
    ] {
        let mut all = vec!["check"];
        all.extend(&args);
        all.push("main.tf");
        let o = run(d, &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        let err = stderr(&o);
        assert!(err.contains("refusing to overwrite"), "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("team.rego")).unwrap(),
        policy
    );
    assert_eq!(
        std::fs::read_to_string(d.join("pol/more.rego")).unwrap(),
        policy
    );
    assert_eq!(
        std::fs::read_to_string(d.join("prod.tfvars")).unwrap(),
        "x = 1\n"
    );
    assert_eq!(std::fs::read_to_string(d.join("b.json")).unwrap(), baseline);
}

/// Ignore files are read as every input is: a FIFO, a link to a device and a link out of
/// the checkout are named in a note and not read (nothing hangs, nothing is echoed), and
/// ignore files above the repository's root hide nothing, as git stops at the root.
#[test]
fn ignore_files_are_bounded_in_tree_and_stop_at_the_checkout_root() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "secret.txt", "DB_PASSWORD=hunter2\n");
    // Above the repository: would hide every .tf file if it were honoured.
    write(d, ".gitignore", "*.tf\n");
    std::fs::create_dir_all(d.join("repo/.git")).unwrap();
    write(d, "repo/a/main.tf", GPU_VM);
    write(d, "repo/b/main.tf", GPU_VM);
    write(d, "repo/c/main.tf", GPU_VM);
    write(d, "repo/ok/.gitignore", "skipped.tf\n");
    write(d, "repo/ok/skipped.tf", GPU_VM);
    if !mkfifo(&d.join("repo/a/.gitignore")) {
        return;
    }
    symlink("/dev/zero", d.join("repo/b/.ignore")).unwrap();
    symlink("../../secret.txt", d.join("repo/c/.gitignore")).unwrap();

    let o = run(&d.join("repo"), &["check", "--format", "json", "."]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let mut files: Vec<String> = rule_files(&o).into_iter().map(|(_, f)| f).collect();
    files.dedup();
    assert_eq!(files, ["a/main.tf", "b/main.tf", "c/main.tf"], "{o:?}");
    let notes = stderr(&o);
    assert!(
        notes.contains("`a/.gitignore`: not a regular file"),
        "{notes}"
    );
    assert!(
        notes.contains("`b/.ignore`: a link out of the checkout"),
        "{notes}"
    );
    assert!(
        notes.contains("`c/.gitignore`: a link out of the checkout"),
        "{notes}"
    );
    assert!(!notes.contains("hunter2") && !stdout(&o).contains("hunter2"));
}

/// The files Terraform's `file()` and `templatefile()` read are read into the run only
/// from inside the checkout: not through `..` past it, a link out of it, an absolute
/// path, or a FIFO (which would hang the run).
#[test]
fn scripts_terraform_reads_are_read_only_from_inside_the_checkout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let serve = "#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000\n";
    write(d, "outside.sh", serve);
    std::fs::create_dir_all(d.join("repo/.git")).unwrap();
    write(d, "repo/inside.sh", serve);
    symlink("../outside.sh", d.join("repo/link.sh")).unwrap();
    let fifo = mkfifo(&d.join("repo/fifo.sh"));
    let vm = |name: &str, script: &str| {
        format!(
            "resource \"aws_instance\" \"{name}\" {{\n  instance_type = \"g5.xlarge\"\n  \
             user_data = file(\"{script}\")\n}}\n"
        )
    };
    let absolute = d.join("outside.sh").display().to_string();
    let tf = [
        vm("inside", "${path.module}/inside.sh"),
        vm("parent", "${path.module}/../outside.sh"),
        vm("link", "link.sh"),
        vm("absolute", &absolute),
        vm("fifo", "fifo.sh"),
    ]
    .concat();
    write(d, "repo/main.tf", tf);

    let o = run(d, &["check", "--format", "json", "repo"]);
    let fits: Vec<(String, String)> = rule_files(&o)
        .into_iter()
        .filter(|(rule, _)| rule == "model-exceeds-gpu-memory")
        .collect();
    assert_eq!(
        fits,
        pairs(&[("model-exceeds-gpu-memory", "repo/inside.sh")]),
        "{o:?}"
    );
    let subjects: Vec<String> = json(&o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "model-exceeds-gpu-memory")
        .map(|f| f["subject"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(subjects, ["aws_instance.inside"]);
    assert!(
        fifo || cfg!(not(target_os = "linux")),
        "mkfifo is there on Linux"
    );
}

/// Outside a Git checkout, a script is read from the working folder, as a link from a `.tf`
/// file is, and never from above it.
#[test]
fn scripts_outside_a_checkout_stay_in_the_working_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let serve = "#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000\n";
    write(d, "above.sh", serve);
    write(d, "work/scripts/serve.sh", serve);
    let vm = |name: &str, script: &str| {
        format!(
            "resource \"aws_instance\" \"{name}\" {{\n  instance_type = \"g5.xlarge\"\n  \
             user_data = file(\"{script}\")\n}}\n"
        )
    };
    let tf = [
        vm("shared", "${path.module}/../scripts/serve.sh"),
        vm("above", "${path.module}/../../above.sh"),
    ]
    .concat();
    write(d, "work/infra/main.tf", tf);

    let o = run(&d.join("work"), &["check", "--format", "json", "infra"]);
    let subjects: Vec<String> = json(&o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "model-exceeds-gpu-memory")
        .map(|f| f["subject"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(subjects, ["aws_instance.shared"], "{o:?}");
}
