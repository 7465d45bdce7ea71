//! How gpulint scales: parse-only against full lint, files/s, MB/s, peak memory, and the
//! one-file latency of a pre-commit call, on synthetic trees from 100 to 20,000 files.
//!
//! ```sh
//! cargo bench --bench scale                          # 100, 1000, 5000 and 20000 files
//! cargo bench --bench scale -- --sizes 100,1000 --runs 3
//! cargo bench --bench scale -- --megabytes 200       # one tree of at least 200 MB
//! cargo bench --bench scale -- --dir ~/src/kuberay   # a real checkout, as it is
//! cargo bench --bench scale -- --crds 1000           # 1,000 CRD-heavy manifest files
//! cargo bench --bench scale -- generate DIR FILES    # only write a tree (bench/checkov.sh)
//! ```
//!
//! Every figure comes from a fresh process, so that peak RSS (`VmHWM`, Linux) is the
//! run's own: the bench starts itself as a child for parse-only and lint, and starts the
//! `gpulint` binary for the whole command and the one-file latency. Times are medians.
//! Each size also prints the findings' count and digest: an optimisation must not change
//! them.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::cast_sign_loss
)]

mod tree;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gpulint::lint::{Options, lint, parse_only};

const GPULINT: &str = env!("CARGO_BIN_EXE_gpulint");

fn main() {
    // `cargo bench` passes `--bench`; a harness-less bench ignores it.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.first().map(String::as_str) {
        Some("child") => child(&args[1], Path::new(&args[2])),
        Some("generate") => {
            let files: usize = args[2].parse().expect("FILES is a number");
            let bytes = tree::generate(Path::new(&args[1]), files).expect("the tree is written");
            println!("{files} files, {:.1} MB in {}", mb(bytes), args[1]);
        }
        _ => bench(&args),
    }
}

fn bench(args: &[String]) {
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .map(|i| args[i + 1].clone())
    };
    let runs: usize = value("--runs").map_or(5, |r| r.parse().expect("--runs N"));
    let sizes: Vec<usize> = match (value("--sizes"), value("--megabytes")) {
        (_, Some(mb)) => {
            // The tree averages 885 bytes a file: aim a little over.
            let target: f64 = mb.parse().expect("--megabytes N");
            vec![(target * 1e6 / 880.0) as usize]
        }
        (Some(s), None) => s.split(',').map(|n| n.parse().expect("a size")).collect(),
        (None, None) => vec![100, 1000, 5000, 20000],
    };
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trees");
    // `--crds N` measures N CRD-heavy manifest files (most of an operator's bytes).
    let crds: Option<usize> = value("--crds").map(|n| n.parse().expect("--crds N"));
    // `--dir PATH` measures a folder as it is (a real checkout) instead of synthetic trees.
    let real = value("--dir").map(PathBuf::from);
    println!(
        "{} runs each; {} cores; gpulint {}\n",
        runs,
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        env!("CARGO_PKG_VERSION")
    );
    println!(
        "| files | MB | parse-only | lint | lint / parse | files/s | MB/s | `gpulint check` | peak RSS | findings | digest |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut one_file = None;
    let trees: Vec<(usize, PathBuf)> = match (&real, crds) {
        (Some(dir), _) => vec![(0, dir.clone())],
        (None, Some(n)) => vec![(n, root.join(format!("crds-{n}")))],
        (None, None) => sizes
            .into_iter()
            .map(|files| (files, root.join(files.to_string())))
            .collect(),
    };
    for (files, dir) in trees {
        if real.is_none() && !dir.join(".complete").exists() {
            let _ = std::fs::remove_dir_all(&dir);
            if crds.is_some() {
                tree::generate_crds(&dir, files).expect("the tree is written");
            } else {
                tree::generate(&dir, files).expect("the tree is written");
            }
            std::fs::write(dir.join(".complete"), "").expect("a marker");
        }
        let bytes = tree_bytes(&dir);
        let parse = measure(runs, || in_child("read", &dir));
        // Parse-only reports the files it read.
        let files = if real.is_some() {
            usize::try_from(parse.digest).unwrap_or(0)
        } else {
            files
        };
        let full = measure(runs, || in_child("lint", &dir));
        let command = median(
            (0..runs)
                .map(|_| {
                    let start = Instant::now();
                    let out = Command::new(GPULINT)
                        .args(["check", "--format", "json", "--output", "/dev/null"])
                        .arg(&dir)
                        .output()
                        .expect("gpulint runs");
                    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
                    start.elapsed()
                })
                .collect(),
        );
        let lint_s = full.time.as_secs_f64();
        println!(
            "| {files} | {:.1} | {} | {} | {:.2} | {:.0} | {:.1} | {} | {:.0} MB | {} | {} |",
            mb(bytes),
            ms(parse.time),
            ms(full.time),
            lint_s / parse.time.as_secs_f64(),
            files as f64 / lint_s,
            mb(bytes) / lint_s,
            ms(command),
            full.rss_kb as f64 / 1024.0,
            full.findings,
            full.digest,
        );
        if real.is_none() && crds.is_none() {
            one_file.get_or_insert(dir);
        }
    }
    if let Some(dir) = one_file {
        let file = dir.join("aws/env-0/gpu.tf");
        let mut times: Vec<Duration> = (0..50)
            .map(|_| {
                let start = Instant::now();
                let out = Command::new(GPULINT)
                    .arg("check")
                    .arg(&file)
                    .output()
                    .expect("gpulint runs");
                assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
                start.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "\none file (`gpulint check aws/env-0/gpu.tf`, its module as context), 50 runs: \
             median {}, p90 {}",
            ms(times[25]),
            ms(times[45])
        );
    }
}

/// One child's report.
#[derive(Clone, Copy)]
struct Run {
    time: Duration,
    rss_kb: u64,
    findings: usize,
    digest: u64,
}

/// The median time of `runs` runs, the highest RSS, and the findings (all runs agree).
fn measure(runs: usize, mut run: impl FnMut() -> Run) -> Run {
    let all: Vec<Run> = (0..runs).map(|_| run()).collect();
    assert!(all.windows(2).all(|w| w[0].digest == w[1].digest));
    Run {
        time: median(all.iter().map(|r| r.time).collect()),
        rss_kb: all.iter().map(|r| r.rss_kb).max().unwrap_or(0),
        ..all[0]
    }
}

fn in_child(mode: &str, dir: &Path) -> Run {
    let out = Command::new(std::env::current_exe().expect("the bench binary"))
        .args(["child", mode])
        .arg(dir)
        .output()
        .expect("the child runs");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let f: Vec<&str> = text.split_whitespace().collect();
    Run {
        time: Duration::from_nanos(f[0].parse().expect("nanoseconds")),
        rss_kb: f[1].parse().expect("kB"),
        findings: f[2].parse().expect("a count"),
        digest: f[3].parse().expect("a digest"),
    }
}

/// In the child: one parse-only or lint run, reported as `nanos rss_kb findings digest`.
fn child(mode: &str, dir: &Path) {
    let opts = Options {
        paths: vec![dir.to_path_buf()],
        ..Options::default()
    };
    let start = Instant::now();
    // What a run built is freed after the clock stops in both modes: `gpulint check` frees
    // its trees on a thread of its own (or not at all, when the process ends first), so
    // freeing them inside the timed region would flatter lint against parse-only.
    let (findings, digest, nanos, kept): (usize, u64, u128, Box<dyn std::any::Any>) = match mode {
        "read" => {
            let files = parse_only(&opts).expect("the tree reads");
            let nanos = start.elapsed().as_nanos();
            (0, files as u64, nanos, Box::new(()))
        }
        _ => {
            let outcome = lint(&opts, std::io::empty()).expect("the tree lints");
            let nanos = start.elapsed().as_nanos();
            // Paths relative to the tree: the digest is the same on every machine.
            let mut h = DefaultHasher::new();
            for f in &outcome.findings {
                let file = outcome.db.get(f.primary.file);
                let name = Path::new(&file.name);
                let name = name.strip_prefix(dir).unwrap_or(name);
                (f.rule, name, &f.primary.span, &f.message).hash(&mut h);
            }
            (outcome.findings.len(), h.finish(), nanos, Box::new(outcome))
        }
    };
    println!("{nanos} {} {findings} {digest}", peak_rss_kb());
    // The process ends here: nothing is left to measure in freeing it.
    std::mem::forget(kept);
}

/// `VmHWM` of this process, in kB; 0 where `/proc` has none.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Bytes of the files a run over `dir` reads, found as a run finds them: a Helm chart's
/// templates, a folder's `.json` and links out of the folder are not read.
fn tree_bytes(dir: &Path) -> u64 {
    gpulint::discover::discover(&[dir.to_path_buf()], None, None, false, true).map_or(0, |found| {
        found
            .inputs
            .iter()
            .filter_map(|i| std::fs::metadata(i.path.as_ref()?).ok())
            .map(|m| m.len())
            .sum()
    })
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}
