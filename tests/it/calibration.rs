//! `gpulint fit` against published, measured outcomes (tests/data/calibration.toml): every
//! case agrees within the estimate's own band, or is a miss the table says it is.

use std::path::Path;

use crate::common::{ROOT, gpulint};
use serde_json::Value;

const GIB: f64 = 1_073_741_824.0;

fn cases() -> Vec<toml::Table> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("tests/data/calibration.toml"))
        .expect("the calibration table");
    let table: toml::Table = toml::from_str(&text).expect("valid TOML");
    table["case"]
        .as_array()
        .expect("[[case]] rows")
        .iter()
        .map(|c| c.as_table().expect("a table").clone())
        .collect()
}

/// What a case's run says that disagrees with its source, in words (empty: it agrees).
fn disagreements(case: &toml::Table) -> Vec<String> {
    let args: Vec<&str> = case["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("a string"))
        .collect();
    let mut argv = vec!["fit", "--format", "json"];
    argv.extend(&args);
    let out = gpulint(&argv, Path::new(ROOT), None);
    let text = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{args:?}: no JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let verdict = json["verdict"].as_str().expect("a verdict with a GPU");
    let band = json["band_bytes"].as_f64().expect("band_bytes") / GIB;
    let mut wrong = Vec::new();
    match case["outcome"].as_str().expect("outcome") {
        "ran" if verdict == "does-not-fit" => wrong.push(format!("ran, but {verdict}")),
        "failed" if verdict == "fits" => wrong.push(format!("failed, but {verdict}")),
        "ran" | "failed" | "unknown" => {}
        other => panic!("unknown outcome {other}"),
    }
    for (key, field) in [
        ("weights_gib", "weights_bytes"),
        ("activation_gib", "activation_bytes"),
    ] {
        if let Some(measured) = case.get(key).and_then(toml::Value::as_float) {
            let got = json["per_gpu"][field].as_f64().expect(field) / GIB;
            if (got - measured).abs() > band {
                wrong.push(format!(
                    "{key}: estimated {got:.2} GiB, measured {measured:.2}, band ±{band:.2}"
                ));
            }
        }
    }
    wrong
}

#[test]
fn fit_agrees_with_every_calibration_case_within_its_band() {
    let cases = cases();
    assert!(cases.len() >= 40, "the table shrank to {}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().expect("id");
        assert!(
            case.get("source")
                .and_then(toml::Value::as_str)
                .is_some_and(|s| !s.is_empty()),
            "{id}: every case names its source"
        );
        let wrong = disagreements(case);
        match (case.get("known_miss"), wrong.is_empty()) {
            (None, false) => failures.push(format!("{id}: {}", wrong.join("; "))),
            (Some(_), true) => failures.push(format!(
                "{id}: agrees now; drop its known_miss and update the README's agreement rate"
            )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
