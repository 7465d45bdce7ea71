//! Custom policies in Rego (`--policy`, `[policies] paths`): the example policies against
//! their fixtures, policy findings in every format and through suppressions, config
//! severities, selection and the baseline, broken policies, and the sandbox.

use std::path::Path;

use crate::common::*;

/// The example policies, by file stem.
fn examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("examples/policies"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rego"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `gpulint check ARGS` in `cwd`, never a crash.
fn check(args: &[&str], cwd: &Path) -> std::process::Output {
    let o = gpulint(&[&["check"], args].concat(), cwd, None);
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    o
}

/// The policy findings of a JSON report: (rule, severity, file, line).
fn policy_findings(o: &std::process::Output) -> Vec<(String, String, String, u64)> {
    json(o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("policy/"))
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A folder with `pools.tf` (two GPU node groups, neither with a `team` label) and the
/// team-label example policy in `policies/`.
fn team_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let policy = std::fs::read(Path::new(ROOT).join("examples/policies/team_label.rego")).unwrap();
    write(dir.path(), "policies/team_label.rego", policy);
    write(
        dir.path(),
        "pools.tf",
        "resource \"aws_eks_node_group\" \"a\" {\n  instance_types = [\"g6e.xlarge\"]\n}\n\n\
         resource \"aws_eks_node_group\" \"b\" {\n  instance_types = [\"g6e.xlarge\"]\n}\n",
    );
    dir
}

const TEAM: &str = "policy/gpulint.team_label/deny";

#[test]
fn each_example_policy_fires_on_its_fixtures_and_stays_clean_on_the_others() {
    let root = Path::new(ROOT);
    let names = examples();
    assert!(names.len() >= 4, "{names:?}");
    for name in &names {
        let policy = format!("examples/policies/{name}.rego");
        let fixtures = root.join("tests/fixtures/policies").join(name);
        assert!(
            fixtures.join("fires").is_dir() && fixtures.join("clean").is_dir(),
            "{name}: no fixtures"
        );

        let fires = format!("tests/fixtures/policies/{name}/fires");
        let o = check(&["--format", "json", "--policy", &policy, &fires], root);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let found = policy_findings(&o);
        assert!(!found.is_empty(), "{name} did not fire");
        for (rule, severity, file, _) in &found {
            assert!(
                rule.starts_with(&format!("policy/gpulint.{name}/")),
                "{rule}"
            );
            assert!(severity == "error" || severity == "warning", "{severity}");
            assert!(file.starts_with(&fires), "{file}");
        }

        let clean = format!("tests/fixtures/policies/{name}/clean");
        let o = check(&["--format", "json", "--policy", &policy, &clean], root);
        assert_ne!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert_eq!(policy_findings(&o), [], "{name} fired on its clean fixture");
    }
}

/// The README's first command is unchanged by the policies beside the examples: `.rego`
/// files are not inputs, and without `--policy` no policy runs.
#[test]
fn policies_are_not_inputs_and_run_only_when_given() {
    let root = Path::new(ROOT);
    let files = stdout(&check(&["--show-files", "examples/"], root));
    assert!(!files.contains(".rego"), "{files}");
    let without = check(&["--format", "json", "examples/"], root);
    assert_eq!(without.status.code(), Some(1));
    assert_eq!(policy_findings(&without), []);
    let with = check(
        &[
            "--format",
            "json",
            "--policy",
            "examples/policies",
            "examples/",
        ],
        root,
    );
    assert_eq!(with.status.code(), Some(1), "{}", stderr(&with));
    // The built-in findings are the same either way.
    let builtin = |o: &std::process::Output| -> Vec<serde_json::Value> {
        json(o)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| !f["rule"].as_str().unwrap().starts_with("policy/"))
            .cloned()
            .collect()
    };
    assert_eq!(builtin(&with), builtin(&without));
}

/// A policy finding in JSON is a finding like a built-in one: rule id, severity, file,
/// line and column of the inventory item, subject, the policy's help, and the policy file
/// where a built-in rule has its documentation.
#[test]
fn json_findings_name_the_rule_the_file_and_the_line() {
    let o = check(
        &[
            "--format",
            "json",
            "--policy",
            "examples/policies/team_label.rego",
            "tests/fixtures/policies/team_label/fires",
        ],
        Path::new(ROOT),
    );
    let v = json(&o);
    let f = &v["findings"][0];
    assert_eq!(f["rule"], TEAM);
    assert_eq!(f["severity"], "error");
    assert_eq!(
        f["file"],
        "tests/fixtures/policies/team_label/fires/pools.tf"
    );
    assert_eq!((&f["line"], &f["column"]), (&2.into(), &1.into()));
    assert_eq!(f["subject"], "aws_eks_node_group.gpu");
    assert_eq!(
        f["message"],
        "GPU pool `aws_eks_node_group.gpu` has no `team` label: nobody owns its GPU-hours"
    );
    assert_eq!(
        f["help"],
        "label its nodes with the team that pays for them, e.g. `team = \"ml-platform\"`"
    );
    assert_eq!(f["url"], "examples/policies/team_label.rego");
    assert_eq!(v["summary"]["errors"], 2);

    // `warn` is a warning, and a location inside an item (its `market`) is that line.
    let o = check(
        &[
            "--format",
            "json",
            "--policy",
            "examples/policies/inference_on_demand_base.rego",
            "tests/fixtures/policies/inference_on_demand_base/fires",
        ],
        Path::new(ROOT),
    );
    assert_eq!(
        policy_findings(&o),
        [(
            "policy/gpulint.inference_on_demand_base/warn".to_string(),
            "warning".to_string(),
            "tests/fixtures/policies/inference_on_demand_base/fires/pools.tf".to_string(),
            5
        )]
    );
}

#[test]
fn sarif_lists_each_policy_rule_and_passes_the_schema() {
    let o = check(
        &[
            "--format",
            "sarif",
            "--policy",
            "examples/policies",
            "tests/fixtures/policies/team_label/fires",
            "tests/fixtures/policies/inference_on_demand_base/fires",
        ],
        Path::new(ROOT),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let sarif = json(&o);
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&TEAM), "{ids:?}");
    assert!(
        ids.contains(&"policy/gpulint.inference_on_demand_base/warn"),
        "{ids:?}"
    );
    let team = rules.iter().find(|r| r["id"] == TEAM).unwrap();
    assert!(
        team["help"]["text"]
            .as_str()
            .unwrap()
            .contains("examples/policies/team_label.rego"),
        "{team}"
    );
    assert_eq!(team["defaultConfiguration"]["level"], "error");
    assert_eq!(team["properties"]["tags"], serde_json::json!(["policy"]));
    let results = run["results"].as_array().unwrap();
    let mut policy_results = 0;
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(ids[index], r["ruleId"], "{r}");
        policy_results += usize::from(r["ruleId"].as_str().unwrap().starts_with("policy/"));
    }
    // Two GPU pools without a team, and the inference pool: no team, and on spot.
    assert_eq!(policy_results, 4);
    let validator = sarif_schema();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// Every text format shows the policy's rule id with the message.
#[test]
fn every_format_shows_policy_findings() {
    for format in ["human", "compact", "github", "junit", "markdown"] {
        let o = check(
            &[
                "--format",
                format,
                "--no-color",
                "--policy",
                "examples/policies/team_label.rego",
                "tests/fixtures/policies/team_label/fires",
            ],
            Path::new(ROOT),
        );
        assert_eq!(o.status.code(), Some(1), "{format}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains(TEAM), "{format}:\n{out}");
        assert!(out.contains("has no `team` label"), "{format}:\n{out}");
    }
    let human = stdout(&check(
        &[
            "--no-color",
            "--policy",
            "examples/policies/team_label.rego",
            "tests/fixtures/policies/team_label/fires/pools.tf",
        ],
        Path::new(ROOT),
    ));
    assert!(
        human.contains("error[policy/gpulint.team_label/deny] (examples/policies/team_label.rego)"),
        "{human}"
    );
    assert!(
        human.contains("help: label its nodes with the team that pays for them"),
        "{human}"
    );
}

/// Suppressions name a policy's rule id as they name a built-in rule; a stale one is
/// reported when the policies ran, and left alone when they did not.
#[test]
fn suppressions_silence_policy_findings() {
    let dir = team_folder();
    write(
        dir.path(),
        "pools.tf",
        format!(
            "# gpulint:ignore {TEAM} -- the platform team owns it\n\
             resource \"aws_eks_node_group\" \"a\" {{\n  instance_types = [\"g6e.xlarge\"]\n}}\n\n\
             resource \"aws_eks_node_group\" \"b\" {{\n  instance_types = [\"g6e.xlarge\"]\n  \
             labels = {{ team = \"ml\" }}\n}}\n\n\
             # gpulint:ignore {TEAM} -- stale\n\
             resource \"aws_eks_node_group\" \"c\" {{\n  instance_types = [\"m7i.large\"]\n}}\n"
        ),
    );
    let o = check(
        &["--format", "json", "--policy", "policies", "."],
        dir.path(),
    );
    let v = json(&o);
    let rules: Vec<(&str, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(rules, [("unused-suppression", 11)], "{v}");
    assert!(
        v["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains(&format!(
                "hides `{TEAM}`, but `{TEAM}` reports nothing here"
            )),
        "{v}"
    );
    // Without the policy, its suppressions are not known to be stale.
    let o = check(&["--format", "json", "."], dir.path());
    assert_eq!(
        json(&o)["findings"],
        serde_json::json!([]),
        "{}",
        stdout(&o)
    );
}

/// `[policies] paths` (relative to the config file), `[rules."policy/…"]` severities,
/// `--select`/`--ignore` and per-file ignores treat policy rules as rules.
#[test]
fn config_selection_and_severities_apply_to_policy_rules() {
    let dir = team_folder();
    let run = |args: &[&str]| {
        let o = check(&[&["--format", "json"], args, &["."]].concat(), dir.path());
        assert_ne!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        policy_findings(&o)
            .into_iter()
            .map(|(rule, severity, _, line)| format!("{rule} {severity} {line}"))
            .collect::<Vec<_>>()
    };
    let both = [format!("{TEAM} error 1"), format!("{TEAM} error 5")];
    assert_eq!(run(&["--policy", "policies"]), both);
    assert_eq!(run(&["--policy", "policies", "--select", "policy"]), both);
    assert_eq!(
        run(&[
            "--policy",
            "policies",
            "--select",
            "policy/gpulint.team_label"
        ]),
        both
    );
    assert!(run(&["--policy", "policies", "--select", "cost"]).is_empty());
    assert!(run(&["--policy", "policies", "--ignore", "policy"]).is_empty());
    assert!(run(&["--policy", "policies", "--ignore", TEAM]).is_empty());

    // The config names the folder relative to itself, and sets the rule's severity.
    write(
        dir.path(),
        "ci/gpulint.toml",
        format!(
            "[policies]\npaths = [\"../policies\"]\n\n[rules.\"{TEAM}\"]\nseverity = \"warning\"\n\n\
             [per-file-ignores]\n\"other/**\" = [\"policy\"]\n"
        ),
    );
    assert_eq!(
        run(&["--config", "ci/gpulint.toml"]),
        [format!("{TEAM} warning 1"), format!("{TEAM} warning 5")]
    );
    let settings = stdout(&check(
        &["--config", "ci/gpulint.toml", "--show-settings", "."],
        dir.path(),
    ));
    assert!(
        settings.contains("policies.paths = [\"ci/../policies\"]"),
        "{settings}"
    );
    assert!(
        settings.contains(&format!("rules.{TEAM}.severity = \"warning\"")),
        "{settings}"
    );
    write(
        dir.path(),
        "ci/gpulint.toml",
        format!(
            "[policies]\npaths = [\"../policies\"]\n\n[rules.\"{TEAM}\"]\nseverity = \"off\"\n"
        ),
    );
    assert!(run(&["--config", "ci/gpulint.toml"]).is_empty());
    write(
        dir.path(),
        ".gpulint.toml",
        "[policies]\npaths = [\"policies\"]\n\n[per-file-ignores]\n\"pools.tf\" = [\"policy/gpulint.team_label\"]\n",
    );
    assert!(run(&[]).is_empty());

    // A policy rule has a severity and nothing else; `policy` is not a table of its own.
    for (config, error) in [
        (
            format!("[rules.\"{TEAM}\"]\nthreshold = 2\n"),
            "unknown option `threshold` for policy rule",
        ),
        (
            format!("[rules.\"{TEAM}\"]\nseverity = \"fatal\"\n"),
            "must be off, info, warning or error",
        ),
        (
            "[policies]\npath = [\"x\"]\n".to_string(),
            "unknown field `path`",
        ),
    ] {
        write(dir.path(), ".gpulint.toml", &config);
        let o = check(&["."], dir.path());
        assert_eq!(o.status.code(), Some(2), "{config}");
        assert!(stderr(&o).contains(error), "{config}: {}", stderr(&o));
    }
}

#[test]
fn the_baseline_records_and_hides_policy_findings() {
    let dir = team_folder();
    let o = check(
        &["--policy", "policies", "--write-baseline", "base.json", "."],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let base = std::fs::read_to_string(dir.path().join("base.json")).unwrap();
    assert!(
        base.contains(TEAM) && base.contains("aws_eks_node_group.b"),
        "{base}"
    );
    let o = check(
        &["--policy", "policies", "--baseline", "base.json", "."],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A third pool is new.
    write(
        dir.path(),
        "more.tf",
        "resource \"aws_eks_node_group\" \"c\" {\n  instance_types = [\"g6e.xlarge\"]\n}\n",
    );
    let o = check(
        &[
            "--format",
            "json",
            "--policy",
            "policies",
            "--baseline",
            "base.json",
            ".",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        policy_findings(&o),
        [(
            TEAM.to_string(),
            "error".to_string(),
            "more.tf".to_string(),
            1
        )]
    );
}

/// Runs `check --policy POLICY .` over the team folder with `policy` written as
/// `policies/NAME`; it must fail (2). Returns stderr.
fn broken(name: &str, policy: &str) -> String {
    let dir = team_folder();
    write(dir.path(), &format!("policies/{name}"), policy);
    let o = check(&["--policy", &format!("policies/{name}"), "."], dir.path());
    assert_eq!(o.status.code(), Some(2), "{policy}\n{}", stdout(&o));
    assert_eq!(stdout(&o), "", "{policy}");
    stderr(&o)
}

#[test]
fn a_syntax_error_names_the_policy_file_and_line() {
    // Rego v0, as older conftest policies are written.
    let e = broken(
        "old.rego",
        "package old\n\ndeny[msg] {\n  msg := \"x\"\n}\n",
    );
    assert!(
        e.starts_with("gpulint: error: policies/old.rego:3:11: `if` keyword is required"),
        "{e}"
    );
    assert!(e.contains("gpulint reads Rego v1"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let e = broken(
        "typo.rego",
        "package typo\n\ndeny contains x if {\n  x := \n}\n",
    );
    assert!(e.contains("policies/typo.rego:4:"), "{e}");
}

#[test]
fn a_policy_with_a_raw_control_character_is_refused_before_the_engine_sees_it() {
    // regorus prints some warnings with the policy's line to stderr itself: an escape
    // sequence in a policy must never get there.
    let e = broken(
        "ansi.rego",
        "package ansi\n\nimport input\n# \u{1b}[2J cleared\ndeny contains {\"msg\": \"x\"} if false\n",
    );
    assert!(
        e.starts_with("gpulint: error: policies/ansi.rego:4:3: a policy may not contain the control character \\u{1b}"),
        "{e}"
    );
    assert!(!e.contains('\u{1b}'), "{e:?}");
}

#[test]
fn a_runtime_error_names_the_policy_file_and_line() {
    let e = broken(
        "conflict.rego",
        "package conflict\n\nlimit := 1\nlimit := 2\n\ndeny contains {\"msg\": \"x\", \"subject\": \"aws_eks_node_group.a\"} if limit > 0\n",
    );
    assert!(
        e.contains("policies/conflict.rego:4:1: rule conflicts with the following rule"),
        "{e}"
    );
    let e = broken(
        "types.rego",
        "package types\n\ndeny contains {\"msg\": m, \"subject\": \"aws_eks_node_group.a\"} if {\n  m := 1 + \"a\"\n}\n",
    );
    assert!(e.contains("policies/types.rego:4:"), "{e}");
}

/// A result gpulint cannot turn into a finding (no `msg`, a bare string, a subject the
/// inventory does not have, a file the run did not read) stops the run, naming the rule.
#[test]
fn a_result_without_msg_or_place_is_an_error() {
    let cases = [
        (
            "deny contains {\"subject\": c.subject} if some c in input.capacity",
            "needs `msg`",
        ),
        (
            "deny contains \"no team\" if some c in input.capacity",
            "not a string",
        ),
        (
            "deny contains {\"msg\": \"x\"} if some c in input.capacity",
            "needs `location`",
        ),
        (
            "deny contains {\"msg\": \"x\", \"subject\": \"aws_instance.nope\"} if true",
            "no capacity or workload has the subject `aws_instance.nope`",
        ),
        (
            "deny contains {\"msg\": \"x\", \"location\": {\"file\": \"elsewhere.tf\", \"line\": 1}} if true",
            "`elsewhere.tf`, which this run did not read",
        ),
        (
            "deny contains {\"msg\": \"x\", \"location\": {\"file\": \"pools.tf\", \"line\": 99}} if true",
            "line 99 of `pools.tf`, which has 7 lines",
        ),
        (
            "deny contains {\"msg\": \"x\", \"id\": \"no spaces\", \"location\": c} if some c in input.capacity",
            "`id` is letters",
        ),
        ("deny := true", "returns a set of objects"),
    ];
    for (rule, error) in cases {
        let e = broken("bad.rego", &format!("package bad\n\n# a comment\n{rule}\n"));
        assert!(
            e.contains(
                "gpulint: error: policies/bad.rego:4: `deny` of policy package `bad` returned"
            ),
            "{rule}: {e}"
        );
        assert!(e.contains(error), "{rule}: {e}");
    }
}

/// A policy gets no builtin that reads the environment, the network or the clock: each is
/// an unknown function, and nothing of the environment reaches the output.
#[test]
fn a_policy_cannot_read_the_environment_the_network_or_the_clock() {
    let secret = "hunter2-do-not-print";
    for call in [
        "opa.runtime()",
        "opa.runtime().env.GPULINT_POLICY_SECRET",
        "http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:9/\"})",
        "time.now_ns()",
        "uuid.rfc4122(\"x\")",
        "net.lookup_ip_addr(\"example.com\")",
    ] {
        let dir = team_folder();
        write(
            dir.path(),
            "policies/env.rego",
            format!(
                "package env\n\ndeny contains {{\"msg\": sprintf(\"%v\", [{call}]), \"location\": c}} if some c in input.capacity\n"
            ),
        );
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .args(["check", "--policy", "policies/env.rego", "."])
            .current_dir(dir.path())
            .env("GPULINT_POLICY_SECRET", secret)
            .output()
            .unwrap();
        let (out, err) = (stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(2), "{call}: {out}{err}");
        assert!(err.contains("could not find function"), "{call}: {err}");
        assert!(
            err.contains("a policy reads only its input"),
            "{call}: {err}"
        );
        assert!(err.contains("policies/env.rego:3:"), "{call}: {err}");
        assert!(!out.contains(secret) && !err.contains(secret), "{call}");
    }
    // The inventory holds no value of the process's environment either: walking it finds
    // a value of the files (the control) and not the secret.
    let dir = team_folder();
    write(
        dir.path(),
        "policies/walk.rego",
        "package walk\n\nfound(x) if {\n  walk(input, [_, v])\n  v == x\n}\n\n\
         deny contains {\"msg\": \"the secret is in the input\", \"location\": c} if {\n  \
         some c in input.capacity\n  found(\"hunter2-do-not-print\")\n}\n\n\
         warn contains {\"msg\": \"the instance type is in the input\", \"location\": c} if {\n  \
         some c in input.capacity\n  found(\"g6e.xlarge\")\n}\n",
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "check",
            "--format",
            "json",
            "--policy",
            "policies/walk.rego",
            ".",
        ])
        .current_dir(dir.path())
        .env("GPULINT_POLICY_SECRET", secret)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rules: Vec<String> = policy_findings(&o).into_iter().map(|f| f.0).collect();
    assert_eq!(rules, ["policy/walk/warn", "policy/walk/warn"]);
}

/// What a policy or its file name holds reaches the terminal escaped: no raw control
/// characters in findings or errors.
#[test]
fn policy_text_is_escaped() {
    let dir = team_folder();
    write(
        dir.path(),
        "policies/evil.rego",
        "package evil\n\ndeny contains {\"msg\": \"owned\\u001b[2J\\nforged\", \"location\": c} if some c in input.capacity\n",
    );
    for format in ["human", "compact", "github"] {
        let o = check(
            &["--format", format, "--policy", "policies/evil.rego", "."],
            dir.path(),
        );
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(!out.contains('\u{1b}'), "{format}: {out:?}");
        assert!(out.contains("owned\\u{1b}[2J\\nforged"), "{format}: {out}");
    }
    let name = "policies/bad\u{1b}[2J.rego";
    write(dir.path(), name, "package bad\n\ndeny[x] { x := 1 }\n");
    let o = check(&["--policy", name, "."], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("bad\\u{1b}[2J.rego:3:"), "{err}");
}

/// A folder loads every `.rego` below it, in path order; a folder without one, or a path
/// that does not exist, is an error; `print` output becomes a note.
#[test]
fn policy_folders_and_paths() {
    let dir = team_folder();
    write(
        dir.path(),
        "policies/nested/spot.rego",
        "package nested.spot\n\nwarn contains {\"msg\": sprintf(\"pool %s\", [c.subject]), \"location\": c, \"id\": \"pool-seen\"} if {\n  some c in input.capacity\n  print(\"saw\", c.subject)\n}\n",
    );
    write(dir.path(), "policies/README.md", "not a policy\n");
    let o = check(
        &["--format", "json", "--policy", "policies", "."],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let mut rules: Vec<String> = policy_findings(&o).into_iter().map(|f| f.0).collect();
    rules.sort();
    rules.dedup();
    assert_eq!(rules, [TEAM, "policy/pool-seen"]);
    assert!(
        stderr(&o).contains("policy print: policies/nested/spot.rego:5: saw aws_eks_node_group.a"),
        "{}",
        stderr(&o)
    );

    write(dir.path(), "empty/README.md", "nothing\n");
    for (path, error) in [
        ("empty", "the policy folder `empty` holds no `.rego` file"),
        ("missing.rego", "cannot read policy `missing.rego`"),
    ] {
        let o = check(&["--policy", path, "."], dir.path());
        assert_eq!(o.status.code(), Some(2), "{path}");
        assert!(stderr(&o).contains(error), "{path}: {}", stderr(&o));
    }
}

#[test]
fn init_writes_the_policies_section() {
    let dir = tempfile::tempdir().unwrap();
    let o = gpulint(&["init"], dir.path(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join(".gpulint.toml")).unwrap();
    assert!(text.contains("[policies]\npaths = []\n"), "{text}");
    let settings = stdout(&gpulint(
        &["check", "--show-settings", "."],
        dir.path(),
        None,
    ));
    assert!(settings.contains("policies.paths = []"), "{settings}");
}

/// The README's policy is the example file, its usage comment aside.
#[test]
fn the_readme_shows_the_example_policy() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let policy =
        std::fs::read_to_string(Path::new(ROOT).join("examples/policies/team_label.rego")).unwrap();
    let block = readme
        .split("```rego\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a rego block in the README");
    let code = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| *l != "#" && !l.starts_with("#   "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(code(block), code(&policy));
}

/// A `.rego` in a policy folder that cannot be read (a dangling link, a link loop, a FIFO)
/// and a folder nested past the walk's depth are errors that say so, never a silent skip.
#[cfg(unix)]
#[test]
fn a_policy_folder_never_skips_a_policy_without_a_word() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "main.tf", GPU_VM);
    write(
        d,
        "pol/ok.rego",
        "package gpulint.ok\n\ndeny contains {\"msg\": \"x\"} if { false }\n",
    );
    symlink("nowhere.rego", d.join("pol/dangling.rego")).unwrap();
    let o = check(&["--policy", "pol", "main.tf"], d);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        stderr(&o).contains("`pol/dangling.rego`: not a regular file"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(d.join("pol/dangling.rego")).unwrap();
    symlink("loop.rego", d.join("pol/loop.rego")).unwrap();
    let o = check(&["--policy", "pol", "main.tf"], d);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(stderr(&o).contains("`pol/loop.rego`"), "{}", stderr(&o));
    std::fs::remove_file(d.join("pol/loop.rego")).unwrap();

    let deep = (0..34)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    write(
        d,
        &format!("pol/{deep}/deep.rego"),
        "package gpulint.deep\n",
    );
    let o = check(&["--policy", "pol", "main.tf"], d);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        stderr(&o).contains("nested more than 32 folders deep"),
        "{}",
        stderr(&o)
    );
}
