//! What the install routes rely on, checked from the files (the release workflow, the
//! Dockerfile and the wheel's build cannot run here; `.ci/wheel` builds and installs the
//! wheel for real): versions agree, hooks and targets are all there.

use std::path::Path;

use saphyr_parser::{Event, Parser};
use serde_json::{Map, Value};

use crate::common::{ROOT, gpulint, stdout};

fn read(file: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A `[package]` field of the root Cargo.toml, through `field.workspace = true` to
/// `[workspace.package]` where it is inherited.
fn package_field<'a>(cargo: &'a toml::Table, field: &str) -> Option<&'a str> {
    let own = &cargo["package"][field];
    if own.get("workspace").and_then(toml::Value::as_bool) == Some(true) {
        cargo["workspace"]["package"][field].as_str()
    } else {
        own.as_str()
    }
}

/// Every crate of the workspace inherits the version, edition, minimum Rust and licence,
/// so the wheel, the image and the crates can never disagree about them.
#[test]
fn every_crate_inherits_the_workspace_package() {
    let root: toml::Table = read("Cargo.toml").parse().unwrap();
    let members = crate::common::member_crates();
    for dir in &members {
        let cargo: toml::Table = std::fs::read_to_string(dir.join("Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
        for field in ["version", "edition", "rust-version", "license"] {
            let inherited = cargo["package"]
                .get(field)
                .and_then(|v| v.get("workspace"))
                .and_then(toml::Value::as_bool);
            assert_eq!(
                inherited,
                Some(true),
                "{}: {field} is not inherited",
                dir.display()
            );
        }
        let name = cargo["package"]["name"].as_str().unwrap();
        assert_eq!(
            root["workspace"]["dependencies"][name]["version"].as_str(),
            Some(VERSION),
            "{name}: the workspace dependency names the version cargo publish needs"
        );
    }
    assert!(members.len() >= 8, "{} crates", members.len());
}

#[test]
fn the_license_is_the_one_cargo_toml_names() {
    let cargo: toml::Table = read("Cargo.toml").parse().unwrap();
    assert_eq!(package_field(&cargo, "license"), Some("Apache-2.0"));
    let license = read("LICENSE");
    assert!(license.contains("Apache License\n                        Version 2.0, January 2004"));
    assert!(license.trim_end().ends_with("END OF TERMS AND CONDITIONS"));
    // The published crate carries it, and the changelog.
    let include = cargo["package"]["include"].as_array().unwrap();
    for file in [
        "/LICENSE",
        "/CHANGELOG.md",
        "/rules/*.md",
        "/src/**/*",
        "/crates/**/*",
    ] {
        assert!(include.iter().any(|i| i.as_str() == Some(file)), "{file}");
    }
}

#[test]
fn the_changelog_has_this_version() {
    let changelog = read("CHANGELOG.md");
    assert!(changelog.contains("## [Unreleased]"));
    assert!(
        changelog.contains(&format!("## [{VERSION}] - ")),
        "CHANGELOG.md has no section for {VERSION}"
    );
    assert!(changelog.contains(&format!(
        "[{VERSION}]: https://github.com/gpulint/gpulint/releases/tag/v{VERSION}"
    )));
}

#[test]
fn the_wheel_is_maturin_bin_of_this_crate() {
    let wheel: toml::Table = read("python/pyproject.toml").parse().unwrap();
    assert_eq!(
        wheel["build-system"]["build-backend"].as_str(),
        Some("maturin")
    );
    assert_eq!(wheel["project"]["name"].as_str(), Some("gpulint"));
    // The version is Cargo.toml's, read by maturin.
    assert_eq!(
        wheel["project"]["dynamic"].as_array().unwrap()[0].as_str(),
        Some("version")
    );
    let maturin = &wheel["tool"]["maturin"];
    assert_eq!(maturin["bindings"].as_str(), Some("bin"));
    assert_eq!(maturin["manifest-path"].as_str(), Some("../Cargo.toml"));
    assert!(Path::new(ROOT).join("python/README.md").is_file());
    // maturin puts the license files of python/ in the wheel: the same license.
    assert_eq!(read("python/LICENSE"), read("LICENSE"));
}

#[test]
fn the_pre_commit_shim_pins_the_wheel_of_this_version() {
    let shim: toml::Table = read("pyproject.toml").parse().unwrap();
    let project = &shim["project"];
    assert_eq!(project["name"].as_str(), Some("gpulint-pre-commit"));
    assert_eq!(project["version"].as_str(), Some(VERSION));
    let deps: Vec<&str> = project["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d.as_str())
        .collect();
    assert_eq!(deps, [format!("gpulint=={VERSION}")]);
    // Pure Python: pip installs it without a compiler.
    assert_eq!(
        shim["build-system"]["build-backend"].as_str(),
        Some("setuptools.build_meta")
    );
}

/// A YAML file as JSON values, every scalar a string: its structure, as the tool that reads
/// it (pre-commit, GitHub Actions) sees it. saphyr-parser is gpulint's own YAML parser.
fn yaml(file: &str) -> Value {
    let text = read(file);
    // Open collections, each with the key waiting for its value when it is a mapping.
    let mut open: Vec<(Value, Option<String>)> = Vec::new();
    let mut root = None;
    for event in Parser::new_from_str(&text) {
        let (event, span) = event.unwrap_or_else(|e| panic!("{file}: not YAML: {e}"));
        let value = match event {
            Event::MappingStart(..) => {
                open.push((Value::Object(Map::new()), None));
                continue;
            }
            Event::SequenceStart(..) => {
                open.push((Value::Array(Vec::new()), None));
                continue;
            }
            Event::MappingEnd | Event::SequenceEnd => open.pop().unwrap().0,
            Event::Scalar(text, ..) => Value::String(text.into_owned()),
            Event::Alias(_) => panic!("{file}: an alias at {span:?}"),
            _ => continue,
        };
        match open.last_mut() {
            None => root = Some(value),
            Some((Value::Array(items), _)) => items.push(value),
            Some((Value::Object(map), key)) => match key.take() {
                None => *key = Some(value.as_str().expect("a scalar key").to_string()),
                Some(k) => assert!(
                    map.insert(k.clone(), value).is_none(),
                    "{file}: `{k}` twice ({span:?})"
                ),
            },
            Some(_) => unreachable!(),
        }
    }
    root.unwrap_or_else(|| panic!("{file}: no document"))
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a scalar: {v}"))
}

#[test]
fn the_pre_commit_hooks_install_the_wheel_build_or_use_path() {
    let hooks = yaml(".pre-commit-hooks.yaml");
    let hooks = hooks.as_array().expect("a list of hooks");
    let ids: Vec<(&str, &str)> = hooks
        .iter()
        .map(|h| (text(&h["id"]), text(&h["language"])))
        .collect();
    assert_eq!(
        ids,
        [
            ("gpulint", "python"),
            ("gpulint-rust", "rust"),
            ("gpulint-system", "system")
        ]
    );
    for h in hooks {
        let id = text(&h["id"]);
        assert_eq!(text(&h["entry"]), "gpulint check", "{id}");
        assert_eq!(h["files"], hooks[0]["files"], "{id}: another file pattern");
        assert_eq!(text(&h["pass_filenames"]), "true", "{id}");
        assert_eq!(text(&h["require_serial"]), "true", "{id}");
        assert!(!text(&h["description"]).is_empty(), "{id}");
    }
    let files = text(&hooks[0]["files"]);
    for ext in ["tf", "tfvars", "ya?ml", "tf\\.json"] {
        assert!(files.contains(ext), "{files} misses {ext}");
    }
    // gpulint reads both files as YAML and finds nothing to say about them.
    let o = gpulint(
        &[
            "check",
            "-f",
            "compact",
            ".pre-commit-hooks.yaml",
            ".github/workflows/release.yml",
        ],
        Path::new(ROOT),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

const TARGETS: [&str; 5] = [
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "aarch64-apple-darwin",
    "x86_64-apple-darwin",
    "x86_64-pc-windows-msvc",
];

/// The `run:` scripts and `uses:` of a job's steps, and each step's `with:`.
fn steps(job: &Value) -> Vec<&Value> {
    job["steps"].as_array().expect("steps").iter().collect()
}

fn runs(job: &Value) -> String {
    steps(job)
        .iter()
        .filter_map(|s| s.get("run").map(text))
        .collect::<Vec<_>>()
        .join("\n")
}

fn uses<'a>(job: &'a Value, action: &str) -> Vec<&'a Value> {
    steps(job)
        .into_iter()
        .filter(|s| s.get("uses").is_some_and(|u| text(u).starts_with(action)))
        .collect()
}

fn matrix_targets(job: &Value) -> Vec<&str> {
    job["strategy"]["matrix"]["include"]
        .as_array()
        .expect("a matrix")
        .iter()
        .map(|m| text(&m["target"]))
        .collect()
}

#[test]
fn the_release_builds_every_platform_with_checksums_wheels_and_publishes() {
    let release = yaml(".github/workflows/release.yml");
    assert_eq!(release["on"]["push"]["tags"], serde_json::json!(["v*"]));
    // Read-only unless a job says otherwise.
    assert_eq!(
        release["permissions"],
        serde_json::json!({"contents": "read"})
    );
    let jobs = release["jobs"].as_object().unwrap();
    for (name, job) in jobs {
        for step in steps(job) {
            if let Some(action) = step.get("uses").map(text) {
                // A release tag; rust-toolchain's rev names the toolchain it installs.
                assert!(
                    action
                        .split_once('@')
                        .is_some_and(|(_, v)| v.starts_with('v'))
                        || [
                            "pypa/gh-action-pypi-publish@release/v1",
                            "dtolnay/rust-toolchain@stable"
                        ]
                        .contains(&action),
                    "{name}: {action} is not pinned to a release"
                );
            }
        }
        let writes: Vec<&str> = job
            .get("permissions")
            .and_then(Value::as_object)
            .map(|p| {
                p.iter()
                    .filter(|(_, v)| v.as_str() == Some("write"))
                    .map(|(k, _)| k.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let allowed: &[&str] = match name.as_str() {
            "release" => &["contents"],
            "pypi" => &["id-token"],
            "image" => &["packages"],
            _ => &[],
        };
        assert_eq!(writes, allowed, "{name}: write permissions");
    }

    // A static or native binary for each target, archived with its checksum.
    let binaries = &jobs["binaries"];
    assert_eq!(matrix_targets(binaries), TARGETS);
    for m in binaries["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
    {
        let os = text(&m["os"]);
        assert!(
            os.ends_with("-latest"),
            "{os}: a runner image that can be retired"
        );
    }
    let archive = runs(binaries);
    assert!(archive.contains("name=\"gpulint-$TAG-$TARGET\""));
    assert!(archive.contains("\"$name.tar.gz\"") && archive.contains("\"$name.zip\""));
    assert!(archive.contains("sha256sum \"$name.tar.gz\" > \"$name.tar.gz.sha256\""));
    assert!(archive.contains("sha256sum \"$name.zip\" > \"$name.zip.sha256\""));

    // A wheel for each target (and manylinux ones), by maturin from python/, and an sdist.
    let wheels = &jobs["wheels"];
    let built = matrix_targets(wheels);
    for target in TARGETS {
        assert!(built.contains(&target), "no wheel for {target}");
    }
    let maturin = uses(wheels, "PyO3/maturin-action@");
    assert_eq!(text(&maturin[0]["with"]["working-directory"]), "python");
    assert!(text(&maturin[0]["with"]["args"]).contains("--release"));
    let sdist = uses(&jobs["sdist"], "PyO3/maturin-action@");
    assert_eq!(text(&sdist[0]["with"]["command"]), "sdist");

    // The GitHub release: archives, their checksums, one SHA256SUMS, the wheels.
    let gh = &jobs["release"];
    assert!(runs(gh).contains("> SHA256SUMS"));
    let files = text(&uses(gh, "softprops/action-gh-release@")[0]["with"]["files"]);
    for f in [
        "gpulint-*.tar.gz",
        "gpulint-*.zip",
        "*.sha256",
        "SHA256SUMS",
        "*.whl",
    ] {
        assert!(
            files.contains(&format!("dist/{f}")),
            "the release lacks {f}"
        );
    }

    // PyPI by trusted publishing (no token), crates.io with the token secret.
    let pypi = &jobs["pypi"];
    assert_eq!(uses(pypi, "pypa/gh-action-pypi-publish@").len(), 1);
    assert!(!serde_json::to_string(pypi).unwrap().contains("secrets."));
    let crate_job = &jobs["crate"];
    assert!(runs(crate_job).contains("cp -r rules crates/gpulint_rules/rules"));
    assert!(runs(crate_job).contains("cargo publish --workspace --locked --allow-dirty"));
    let publish = steps(crate_job)
        .into_iter()
        .find(|s| s.get("env").is_some())
        .unwrap();
    assert_eq!(
        text(&publish["env"]["CARGO_REGISTRY_TOKEN"]),
        "${{ secrets.CARGO_REGISTRY_TOKEN }}"
    );

    // The image: both platforms, from the static binaries where the Dockerfile takes them.
    let image = &jobs["image"];
    let push = &uses(image, "docker/build-push-action@")[0]["with"];
    assert_eq!(text(&push["platforms"]), "linux/amd64,linux/arm64");
    assert_eq!(text(&push["build-args"]), "BINARY=prebuilt");
    assert_eq!(text(&push["push"]), "true");
    let downloads: Vec<(&str, &str)> = uses(image, "actions/download-artifact@")
        .iter()
        .map(|s| (text(&s["with"]["name"]), text(&s["with"]["path"])))
        .collect();
    assert_eq!(
        downloads,
        [
            ("static-x86_64-unknown-linux-musl", "dist/linux-amd64"),
            ("static-aarch64-unknown-linux-musl", "dist/linux-arm64")
        ]
    );

    // The names the Action downloads are the names the release writes.
    let action = read("action.yml");
    assert!(action.contains("archive=\"gpulint-$tag-$target.$ext\""));
    assert!(action.contains("SHA256SUMS") && action.contains("sha256sum -c"));
    // The job summary also prices the capacity, from the same paths.
    assert!(action.contains("if priced=$(gpulint cost $PATHS); then"));
    assert!(action.contains(">> \"$GITHUB_STEP_SUMMARY\""));
}

#[test]
fn the_image_is_the_static_binary_on_an_empty_base() {
    let docker = read("Dockerfile");
    // (base, stage name) of each FROM.
    let stages: Vec<(&str, &str)> = docker
        .lines()
        .filter_map(|l| l.strip_prefix("FROM "))
        .map(|f| f.split_once(" AS ").unwrap_or((f, "")))
        .collect();
    assert_eq!(
        stages,
        [
            ("rust:1.90-alpine", "source"),
            ("scratch", "prebuilt"),
            ("${BINARY}", "binary"),
            ("scratch", "")
        ]
    );
    // The image's Rust is the crate's minimum: what the crate promises to build with.
    let cargo: toml::Table = read("Cargo.toml").parse().unwrap();
    assert_eq!(
        package_field(&cargo, "rust-version"),
        Some("1.90"),
        "rust:1.90-alpine"
    );
    assert!(docker.contains("\nARG BINARY=source\n"));
    assert!(docker.contains("cargo build --release --locked -p gpulint"));
    // Everything `cargo build` needs is copied in.
    for dir in ["src", "crates", "rules", "benches"] {
        assert!(docker.contains(&format!("COPY {dir} ./{dir}")), "{dir}");
    }
    assert!(docker.contains("COPY --chmod=755 dist/linux-${TARGETARCH}/gpulint /gpulint"));
    let last = docker.rsplit("\nFROM ").next().unwrap();
    assert!(last.contains("COPY --from=binary /gpulint /gpulint"));
    assert!(last.contains("ENTRYPOINT [\"/gpulint\"]"));
    assert!(last.contains("org.opencontainers.image.licenses=\"Apache-2.0\""));
    // The build context has the sources and the release's binaries, not target/ or .git/.
    let ignore = read(".dockerignore");
    let ignored: Vec<&str> = ignore.lines().collect();
    for dir in ["target/", ".git/"] {
        assert!(ignored.contains(&dir), "{dir}");
    }
    for needed in [
        "src",
        "rules",
        "benches",
        "dist",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        assert!(
            !ignored.iter().any(|i| i.trim_end_matches('/') == needed),
            "{needed} is ignored"
        );
    }
}
