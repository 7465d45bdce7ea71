//! The everyday command line that ruff and tflint users reach for: `init`, `--statistics`,
//! `--quiet`, `--exit-zero`, did-you-mean, per-path ignores, `.gitignore`, colour and
//! completions.

use std::fmt::Write as _;
use std::path::Path;

use crate::common::*;

/// A folder with a GPU VM that `missing-auto-shutdown` flags in `infra/` and in `samples/`.
fn two_vms() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "infra/gpu.tf", GPU_VM);
    write(dir.path(), "samples/demo/gpu.tf", GPU_VM);
    dir
}

/// Runs `check .` with `config` as `.gpulint.toml`: it must fail (2); returns stderr.
fn config_error(dir: &Path, config: &str) -> String {
    write(dir, ".gpulint.toml", config);
    let o = gpulint(&["check", "."], dir, None);
    assert_eq!(o.status.code(), Some(2), "{config}");
    stderr(&o)
}

fn files_of(o: &std::process::Output) -> Vec<String> {
    let mut files: Vec<String> = json(o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    files.sort();
    files
}

#[test]
fn init_writes_a_config_that_loads_as_the_defaults_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let o = gpulint(&["init"], dir.path(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join(".gpulint.toml")).unwrap();
    for option in [
        "fail_on = \"warning\"",
        "max_file_size = 16",
        "[limits]",
        "evaluation = 128",
        "[rules]",
        "[rules.stale-generation-reservation]",
        "threshold = 2",
        "min_cpu_per_gpu = 2",
        "[per-file-ignores]",
    ] {
        assert!(text.contains(option), "{option} missing from:\n{text}");
    }
    // The file it wrote is read back, and changes nothing: the same findings as without it.
    write(dir.path(), "gpu.tf", GPU_VM);
    let with = gpulint(&["check", "-f", "json", "."], dir.path(), None);
    assert_eq!(with.status.code(), Some(1), "{}", stderr(&with));
    assert_eq!(json(&with)["summary"]["findings"], 1);

    std::fs::write(dir.path().join(".gpulint.toml"), "fail_on = \"error\"\n").unwrap();
    let again = gpulint(&["init"], dir.path(), None);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("refusing to overwrite"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".gpulint.toml")).unwrap(),
        "fail_on = \"error\"\n"
    );
}

#[test]
fn statistics_count_findings_by_rule() {
    let dir = two_vms();
    let o = gpulint(&["check", "--statistics", "."], dir.path(), None);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.starts_with("2  warning  missing-auto-shutdown  a GPU VM"),
        "{out}"
    );
    // Then the count, and what the priced findings add up to: two p5.48xlarge at list price.
    assert!(
        out.ends_with(
            "2 findings in 2 files.\nPriced waste: $80,358/month ($110/h) over 2 priced \
             findings at list prices, no discounts (findings can flag the same machines: \
             `gpulint cost` prices the capacity itself).\n"
        ),
        "{out}"
    );

    let j = gpulint(
        &["check", "--statistics", "-f", "json", "."],
        dir.path(),
        None,
    );
    let v = json(&j);
    assert_eq!(v["statistics"][0]["rule"], "missing-auto-shutdown");
    assert_eq!(v["statistics"][0]["count"], 2);
    assert_eq!(v["summary"]["findings"], 2);

    let sarif = gpulint(
        &["check", "--statistics", "-f", "sarif", "."],
        dir.path(),
        None,
    );
    assert_eq!(sarif.status.code(), Some(2));
    assert!(stderr(&sarif).contains("`--statistics` prints text or JSON"));
}

#[test]
fn quiet_prints_findings_only_and_exit_zero_passes() {
    let dir = two_vms();
    // A skipped file makes a note; `--quiet` drops it and the summary line.
    write(dir.path(), "README.md", "# not IaC\n");
    let loud = gpulint(&["check", "infra", "README.md"], dir.path(), None);
    assert!(
        stderr(&loud).contains("skipped `README.md`"),
        "{}",
        stderr(&loud)
    );
    assert!(stdout(&loud).contains("Found 1 finding"));

    let quiet = gpulint(&["check", "-q", "infra", "README.md"], dir.path(), None);
    assert_eq!(quiet.status.code(), Some(1));
    assert_eq!(stderr(&quiet), "");
    assert!(stdout(&quiet).contains("warning[missing-auto-shutdown]"));
    assert!(!stdout(&quiet).contains("Found"), "{}", stdout(&quiet));

    let passed = gpulint(
        &["check", "--exit-zero", "-f", "compact", "."],
        dir.path(),
        None,
    );
    assert_eq!(passed.status.code(), Some(0));
    assert_eq!(stdout(&passed).lines().count(), 2);
    // A run that fails is still 2.
    let failed = gpulint(&["check", "--exit-zero", "missing/"], dir.path(), None);
    assert_eq!(failed.status.code(), Some(2));
}

#[test]
fn names_are_understood_in_any_case_and_typos_get_a_suggestion() {
    let dir = two_vms();
    let o = gpulint(
        &[
            "check",
            "-f",
            "json",
            "--select",
            "MISSING_AUTO_SHUTDOWN",
            ".",
        ],
        dir.path(),
        None,
    );
    assert_eq!(json(&o)["summary"]["findings"], 2, "{}", stderr(&o));

    for (args, meant) in [
        (
            &["check", "--select", "missing-auto-shutdwn", "."][..],
            "did you mean `missing-auto-shutdown`?",
        ),
        (
            &["check", "--ignore", "cots", "."][..],
            "did you mean `cost`?",
        ),
        (
            &["explain", "missing-shmm"][..],
            "did you mean `missing-shm`?",
        ),
    ] {
        let o = gpulint(args, dir.path(), None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(meant), "{args:?}: {}", stderr(&o));
    }
    let o = gpulint(&["chek"], dir.path(), None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("'check'"), "{}", stderr(&o));

    let err = config_error(
        dir.path(),
        "[rules.gpu-starved-cpu-memry]\nseverity = \"off\"\n",
    );
    assert!(
        err.contains("did you mean `gpu-starved-cpu-memory`?"),
        "{err}"
    );
}

#[test]
fn suppressions_understand_variants_and_suggest_for_typos() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.tf",
        format!("# gpulint:ignore Missing_Auto_Shutdown -- a reaper stops it\n{GPU_VM}"),
    );
    write(
        dir.path(),
        "b.tf",
        format!("# gpulint:ignore missing-auto-shutdwn -- typo\n{GPU_VM}"),
    );
    let o = gpulint(&["check", "-f", "json", "."], dir.path(), None);
    let v = json(&o);
    let found: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["file"].as_str().unwrap(), f["rule"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [
            ("b.tf", "unused-suppression"),
            ("b.tf", "missing-auto-shutdown")
        ]
    );
    let typo = &v["findings"][0];
    assert!(
        typo["help"]
            .as_str()
            .unwrap()
            .contains("did you mean `missing-auto-shutdown`?"),
        "{typo}"
    );
}

#[test]
fn per_file_ignores_silence_a_folder_and_report_unused_entries() {
    let dir = two_vms();
    write(
        dir.path(),
        ".gpulint.toml",
        "[per-file-ignores]\n\"samples/**\" = [\"missing-auto-shutdown\"]\n\"legacy/**\" = [\"cost\"]\n",
    );
    let o = gpulint(&["check", "-f", "json", "."], dir.path(), None);
    assert_eq!(files_of(&o), ["infra/gpu.tf"], "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            ".gpulint.toml:3:1: the `per-file-ignores` entry `legacy/**` silenced nothing"
        ),
        "{err}"
    );
    assert!(!err.contains("samples/**"), "{err}");

    // From a subfolder, the globs stay relative to the config file.
    let o = gpulint(
        &["check", "-f", "json", "."],
        &dir.path().join("samples"),
        None,
    );
    assert_eq!(json(&o)["summary"]["findings"], 0, "{}", stderr(&o));

    let err = config_error(
        dir.path(),
        "[per-file-ignores]\n\"samples/**\" = [\"missing-auto-shutdwn\"]\n",
    );
    assert!(
        err.contains(":2:17: unknown rule or category `missing-auto-shutdwn` in `per-file-ignores`; did you mean `missing-auto-shutdown`?"),
        "{err}"
    );
}

#[test]
fn gitignored_files_are_not_read_unless_no_ignore() {
    let dir = two_vms();
    write(dir.path(), ".gitignore", "samples/\n");
    // A virtual environment's YAML is never linted, ignored or not.
    write(dir.path(), ".venv/lib/site/bad.yaml", "key: [unclosed\n");
    let o = gpulint(&["check", "-f", "json", "."], dir.path(), None);
    assert_eq!(files_of(&o), ["infra/gpu.tf"], "{}", stderr(&o));

    let o = gpulint(
        &["check", "-f", "json", "--no-ignore", "."],
        dir.path(),
        None,
    );
    assert_eq!(files_of(&o), ["infra/gpu.tf", "samples/demo/gpu.tf"]);

    // A file named on the command line is read, as git reads a path it is given.
    let o = gpulint(
        &["check", "-f", "json", "samples/demo/gpu.tf"],
        dir.path(),
        None,
    );
    assert_eq!(files_of(&o), ["samples/demo/gpu.tf"]);
}

fn colored(args: &[&str], env: &[(&str, &str)]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "gpu.tf", GPU_VM);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(args)
        .arg(".")
        .current_dir(dir.path())
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    stdout(&o).contains('\u{1b}')
}

#[test]
fn color_follows_the_flag_then_no_color_and_force_color() {
    // Not a terminal: no colour unless asked.
    assert!(!colored(&["check"], &[]));
    assert!(colored(&["check", "--color", "always"], &[]));
    assert!(colored(&["check"], &[("FORCE_COLOR", "1")]));
    assert!(!colored(
        &["check"],
        &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]
    ));
    assert!(!colored(
        &["check", "--color", "never"],
        &[("FORCE_COLOR", "1")]
    ));
    assert!(!colored(&["check", "--no-color", "--color", "always"], &[]));
}

#[test]
fn human_output_wraps_at_spaces_and_links_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "gpu.tf", GPU_VM);
    let o = gpulint(&["check", "."], dir.path(), None);
    let out = stdout(&o);
    assert!(
        out.contains(&format!(
            "warning[missing-auto-shutdown] (https://github.com/gpulint/gpulint/blob/v{}/rules/missing-auto-shutdown.md)",
            env!("CARGO_PKG_VERSION")
        )),
        "{out}"
    );
    // At 40 columns every line that wraps still ends at a space, never inside a word.
    let narrow = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", "."])
        .current_dir(dir.path())
        .env("COLUMNS", "40")
        .env_remove("FORCE_COLOR")
        .output()
        .unwrap();
    let text = stdout(&narrow);
    assert!(text.contains("p5.48xlarge"), "{text}");
    for line in text.lines() {
        assert!(
            !line.trim_end().ends_with('-'),
            "broken at a hyphen: {line:?}"
        );
    }

    // A mirror for the links.
    write(
        dir.path(),
        ".gpulint.toml",
        "docs_url = \"https://docs.example/gpulint/{version}/{rule}\"\n",
    );
    let o = gpulint(&["check", "-f", "json", "."], dir.path(), None);
    assert_eq!(
        json(&o)["findings"][0]["url"],
        format!(
            "https://docs.example/gpulint/{}/missing-auto-shutdown",
            env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn short_flags_and_completions() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "gpu.tf", GPU_VM);
    write(dir.path(), "conf/strict.toml", "fail_on = \"error\"\n");
    let o = gpulint(
        &[
            "check",
            "-c",
            "conf/strict.toml",
            "-f",
            "sarif",
            "-o",
            "out.sarif",
            ".",
        ],
        dir.path(),
        None,
    );
    // `fail_on = "error"` from `-c`: a warning passes.
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let sarif = std::fs::read_to_string(dir.path().join("out.sarif")).unwrap();
    assert!(sarif.contains("\"missing-auto-shutdown\""));

    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let o = gpulint(&["completions", shell], Path::new("."), None);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert!(stdout(&o).contains("statistics"), "{shell}");
    }
}

#[test]
fn one_run_writes_more_reports_and_a_markdown_summary() {
    let dir = two_vms();
    let o = gpulint(
        &[
            "check",
            "-f",
            "github",
            "--report",
            "sarif=out/gpulint.sarif",
            "--report",
            "markdown=summary.md",
            ".",
        ],
        dir.path(),
        None,
    );
    // A report that cannot be written (its folder does not exist) fails the run.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot write `out/gpulint.sarif`"),
        "{}",
        stderr(&o)
    );
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let o = gpulint(
        &[
            "check",
            "-f",
            "github",
            "--report",
            "sarif=out/gpulint.sarif",
            "--report",
            "markdown=summary.md",
            ".",
        ],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o).matches("::warning file=").count(), 2);
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/gpulint.sarif")).unwrap(),
    )
    .unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 2);
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        summary.starts_with("## gpulint\n\n2 findings (2 warnings) in 2 files."),
        "{summary}"
    );
    assert!(
        summary.contains("| warning | `missing-auto-shutdown` | `infra/gpu.tf:1:1` |"),
        "{summary}"
    );

    let bad = gpulint(&["check", "--report", "pdf=x.pdf", "."], dir.path(), None);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("unknown format `pdf`"),
        "{}",
        stderr(&bad)
    );
    // A report may not overwrite what the run reads.
    let o = gpulint(
        &["check", "--report", "json=infra/gpu.tf", "."],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("infra/gpu.tf")).unwrap(),
        GPU_VM
    );
}

#[test]
fn show_files_and_show_settings_say_what_a_run_would_do() {
    let dir = two_vms();
    write(dir.path(), ".gitignore", "samples/\n");
    write(
        dir.path(),
        ".gpulint.toml",
        "fail_on = \"error\"\n[limits]\nevaluation = 256\n",
    );
    let o = gpulint(&["check", "--show-files", "."], dir.path(), None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "infra/gpu.tf\n");

    let o = gpulint(
        &["check", "--show-settings", "--select", "cost", "."],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let source = |key: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .and_then(|l| l.rsplit_once("# "))
            .map_or_else(|| panic!("{key} missing:\n{out}"), |(_, s)| s.to_string())
    };
    assert_eq!(source("select"), "command line");
    assert!(source("fail_on").ends_with(".gpulint.toml"), "{out}");
    assert!(
        source("limits.evaluation").ends_with(".gpulint.toml"),
        "{out}"
    );
    assert_eq!(source("limits.instances"), "default");
    assert!(out.contains("limits.evaluation = 256"), "{out}");
}

#[test]
fn a_far_label_gets_its_own_snippet_and_the_lines_between_are_not_printed() {
    let dir = tempfile::tempdir().unwrap();
    let filler = (0..30).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "# filler line {i}");
        s
    });
    write(
        dir.path(),
        "main.tf",
        format!(
            "variable \"gpu_type\" {{\n  default = \"p5.48xlarge\"\n}}\n{filler}resource \"aws_instance\" \"trainer\" {{\n  instance_type = var.gpu_type\n}}\n"
        ),
    );
    let out = stdout(&gpulint(&["check", "."], dir.path(), None));
    assert!(out.contains("the default of `var.gpu_type`"), "{out}");
    assert!(out.contains("default = \"p5.48xlarge\""), "{out}");
    // One line of context around each label, nothing of the 28 lines between.
    assert!(out.contains("# filler line 29"), "{out}");
    assert!(!out.contains("# filler line 10"), "{out}");
}

#[test]
fn config_key_typos_get_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "gpu.tf", GPU_VM);
    for (config, meant) in [
        ("fial_on = \"error\"\n", "did you mean `fail_on`?"),
        ("[limits]\nevaluaton = 3\n", "did you mean `evaluation`?"),
    ] {
        let err = config_error(dir.path(), config);
        assert!(err.contains(meant), "{config}: {err}");
    }
}
