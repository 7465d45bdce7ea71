//! Serving engines, training frameworks and distributed launchers, as a container shows
//! them: by its image's repository and by the words of its command (`data/workloads.toml`).

use std::sync::OnceLock;

use serde::Deserialize;

const WORKLOADS: &str = include_str!("data/workloads.toml");

/// One engine, framework or launcher, and how to recognise it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Program {
    pub id: String,
    /// As shown in messages: `vLLM`, `Text Generation Inference`.
    pub name: String,
    #[serde(default)]
    images: Vec<String>,
    #[serde(default)]
    image_words: Vec<String>,
    #[serde(default)]
    programs: Vec<String>,
    #[serde(default)]
    subcommands: Vec<String>,
    #[serde(default)]
    modules: Vec<String>,
    /// Words any argument holds (a `python -c` one-liner's `torch.cuda.is_available`).
    #[serde(default)]
    snippets: Vec<String>,
    /// Words, or runs of words, in the name of a script it runs (`nccl` of
    /// `efa_nccl_preflight.py`, `all-reduce` of `test_all_reduce.sh`).
    #[serde(default)]
    script_words: Vec<String>,
    /// A benchmark whose ranks talk to each other (nccl-tests, OSU, Horovod's synthetic
    /// runs): how the pod feeds and wires its GPUs still matters. Benchmarks only.
    #[serde(default)]
    pub collective: bool,
    /// Signs, in its container's command, that a serving engine places ranks in other
    /// pods: its parallel sizes then count the GPUs of the group, not of this pod.
    #[serde(default)]
    pub spans_pods: Vec<PodsSign>,
    /// Where [`Program::spans_pods`] comes from.
    #[serde(default)]
    pub spans_pods_source: Option<String>,
    /// Environment variables an image built around the engine reads its model from
    /// (`MODEL_NAME`), when no flag names one: read only with a value that names a model
    /// (`owner/name`), not a path.
    #[serde(default)]
    pub model_env: Vec<String>,
    pub source: String,
}

/// One sign that an engine spans pods: a flag (with a value, or a number above a bound,
/// or alone), words that stand together in the command (`ray start`), or an environment
/// variable the container sets (`RAY_ADDRESS`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PodsSign {
    #[serde(default)]
    pub flag: Option<String>,
    /// The flag's value that says so (`ray`), compared without case.
    #[serde(default)]
    pub value: Option<String>,
    /// The flag's number must be above this (`--nnodes 2`); a value gpulint cannot read
    /// (`--nnodes $(LWS_GROUP_SIZE)`) may be, so it counts too.
    #[serde(default)]
    pub above: Option<u32>,
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub env: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scripts {
    training_words: Vec<String>,
    pub source: String,
}

/// What keeps a GPU Job from counting as training by its shape alone.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    not_training_words: Vec<String>,
    wait_images: Vec<String>,
    wait_programs: Vec<String>,
    pub source: String,
}

impl Shape {
    /// A word (in a name, a label, a script's name) that says other batch work.
    pub fn other_work(&self, text: &str) -> Option<String> {
        text.to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .find(|w| self.not_training_words.iter().any(|t| t == w))
            .map(str::to_string)
    }

    /// A container that only waits: a sleep image, or `sleep …` as its command.
    pub fn waits(&self, image: Option<&str>, argv: &[&str]) -> bool {
        let by_image = image.map(repository).is_some_and(|repo| {
            self.wait_images
                .iter()
                .any(|w| repo == *w || repo.ends_with(&format!("/{w}")))
        });
        by_image
            || argv
                .first()
                .is_some_and(|a| self.wait_programs.iter().any(|p| base(a) == p))
            || self.script_waits(argv)
    }

    /// A shell script (`sh -c`, its words split) that waits and runs nothing else: no
    /// script, path or interpreter among its words (`echo started; sleep 600`).
    fn script_waits(&self, argv: &[&str]) -> bool {
        let [shell, flag, script @ ..] = argv else {
            return false;
        };
        let program = |w: &str| {
            w.contains('/')
                || std::path::Path::new(w)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("py") || e.eq_ignore_ascii_case("sh"))
                || w.starts_with("python")
                || w.starts_with("./")
        };
        // `-c`, or short options together with it (`-ec`, `-xc`, `-lc`).
        let command_flag = flag
            .strip_prefix('-')
            .is_some_and(|f| f.contains('c') && f.bytes().all(|b| b.is_ascii_lowercase()));
        matches!(base(shell), "sh" | "bash" | "ash" | "dash" | "zsh")
            && command_flag
            && script
                .iter()
                .any(|w| self.wait_programs.iter().any(|p| w == p))
            && !script.iter().any(|w| program(w))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workloads {
    #[serde(rename = "engine")]
    pub engines: Vec<Program>,
    #[serde(rename = "framework")]
    pub frameworks: Vec<Program>,
    #[serde(rename = "launcher")]
    pub launchers: Vec<Program>,
    /// Programs that measure or check GPUs, and neither train nor serve.
    #[serde(rename = "benchmark")]
    pub benchmarks: Vec<Program>,
    /// Servers a person works in by hand (notebooks).
    #[serde(rename = "interactive")]
    pub interactive: Vec<Program>,
    pub scripts: Scripts,
    pub shape: Shape,
    /// Host CPU and memory per GPU below which a GPU pod is starved, by GPU class.
    #[serde(rename = "host_floor")]
    pub host_floors: Vec<HostFloor>,
    /// Groups of machines behind a load balancer, by resource type.
    pub load_balanced: Vec<LoadBalanced>,
    /// Commands by which a start-up script shuts its own machine down.
    pub self_stop: SelfStop,
    /// What a start-up script says about storage that outlives its machine.
    pub lasting_storage: LastingStorage,
}

/// Storage a VM's start-up script or its variables set up that outlives the machine: a
/// network or object file system it mounts, object storage it copies to over and over.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LastingStorage {
    mounts: Vec<String>,
    syncs: Vec<String>,
    repeats: Vec<String>,
    arg_words: Vec<String>,
    checkpoint_words: Vec<String>,
    /// Resource types that create a shared file system pods can mount.
    pub file_systems: Vec<String>,
    /// CSI drivers (EKS add-on names, Helm charts) that mount shared file systems or
    /// object storage into pods.
    pub csi_drivers: Vec<String>,
    /// GKE `addons_config` blocks that turn such a driver on.
    pub gke_addons: Vec<String>,
    /// Inputs of GKE modules that turn such a driver on.
    pub module_inputs: Vec<String>,
    /// Bucket resource types, with the attributes that name the bucket.
    pub buckets: std::collections::BTreeMap<String, Vec<String>>,
    pub source: String,
}

impl LastingStorage {
    /// Whether a bucket's name says it holds checkpoints (`llm-checkpoints`, `ckpt-store`).
    pub fn names_checkpoints(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.checkpoint_words
            .iter()
            .any(|w| name.contains(w.as_str()))
    }

    /// The first line of a script, 1-based, that mounts lasting storage, or copies to
    /// object storage in a script that repeats something (a loop, a cron entry): a copy
    /// made only when the job ends is lost with the machine before it. Comments are not
    /// read.
    pub fn line_in(&self, script: &str) -> Option<usize> {
        let code: Vec<&str> = script
            .lines()
            .map(|l| l.split('#').next().unwrap_or(""))
            .collect();
        let has = |line: &str, words: &[String]| words.iter().any(|w| line.contains(w.as_str()));
        if let Some(n) = code.iter().position(|l| has(l, &self.mounts)) {
            return Some(n + 1);
        }
        let repeats = code.iter().any(|l| has(l, &self.repeats));
        code.iter()
            .position(|l| repeats && has(l, &self.syncs))
            .map(|n| n + 1)
    }

    /// Whether the name of a variable a start-up script is rendered with names a file
    /// system for it to mount (`efs_id`, `fsx_dns_name`), whatever its value.
    pub fn names_file_system(&self, key: &str) -> bool {
        key.to_ascii_lowercase()
            .split(['_', '-', '.'])
            .any(|s| self.arg_words.iter().any(|w| s.starts_with(w.as_str())))
    }

    /// Whether a variable a start-up script is rendered with gives it a checkpoint location
    /// in object storage (`checkpoint_uri = "s3://…"`, `checkpoint_bucket = "runs"`).
    pub fn checkpoint_store(&self, key: &str, value: &str) -> bool {
        let key = key.to_ascii_lowercase();
        !value.trim().is_empty()
            && self
                .checkpoint_words
                .iter()
                .any(|w| key.contains(w.as_str()))
            && (value.contains("://") || key.split(['_', '-', '.']).any(|s| s == "bucket"))
    }
}

/// Commands by which a machine's start-up script shuts it down.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfStop {
    commands: Vec<String>,
    schedulers: Vec<String>,
    arg_words: Vec<String>,
    /// Words in a function's name that say it stops machines (`idle-backstop`,
    /// `stop-gpu-nightly`).
    function_words: Vec<String>,
    pub source: String,
}

impl SelfStop {
    /// Whether a function's name (a Lambda's resource name or `function_name`) says it
    /// stops machines: it holds one of the `function_words`, in any case.
    pub fn function_stops(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.function_words
            .iter()
            .any(|w| name.contains(w.as_str()))
    }

    /// Whether a variable a start-up script is rendered with tells it to stop the machine:
    /// its name holds one of the `arg_words` and its value is not off.
    pub fn arg_stops(&self, key: &str, value: &str) -> bool {
        let key = key.to_ascii_lowercase().replace('-', "_");
        let value = value.trim().to_ascii_lowercase();
        // A duration of nothing is off too: `0s`, `0m`, `0h`.
        let zero = value
            .strip_suffix(['s', 'm', 'h', 'd'])
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b == b'0'));
        let off = zero
            || matches!(
                value.as_str(),
                "" | "false" | "0" | "no" | "off" | "none" | "null" | "disabled"
            );
        !off && self.arg_words.iter().any(|w| key.contains(w.as_str()))
    }

    /// The first line of a shell script that shuts the machine down, 1-based, if any: a
    /// command (after `sudo`, `nohup`, `exec`; by name or path) that begins with one of the
    /// commands, or a scheduler given one (`systemd-run --on-active=2h /sbin/poweroff`,
    /// `echo "shutdown -h now" | at now + 2 hours`). Comments are not read.
    pub fn line_in(&self, script: &str) -> Option<usize> {
        script
            .lines()
            .position(|line| {
                let code = line.split('#').next().unwrap_or("");
                let cmds: Vec<Vec<&str>> = code
                    .split(['&', ';', '|', '(', ')', '`'])
                    .map(|c| {
                        c.split_whitespace()
                            .skip_while(|w| {
                                matches!(
                                    *w,
                                    "sudo" | "nohup" | "exec" | "-n" | "then" | "else" | "do"
                                )
                            })
                            .collect()
                    })
                    .collect();
                let scheduled = cmds.iter().any(|c| {
                    c.first()
                        .is_some_and(|w| self.schedulers.iter().any(|s| s == name(w)))
                });
                cmds.iter().any(|c| self.starts_stop(c))
                    || (scheduled
                        && cmds
                            .iter()
                            .flatten()
                            .any(|w| self.commands.iter().any(|c| c == name(w))))
            })
            .map(|n| n + 1)
    }

    /// Whether a command's words begin with one of the commands.
    fn starts_stop(&self, words: &[&str]) -> bool {
        let Some((first, rest)) = words.split_first() else {
            return false;
        };
        let text = std::iter::once(name(first))
            .chain(rest.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        self.commands
            .iter()
            .any(|c| text == *c || text.starts_with(&format!("{c} ")))
    }
}

/// A command word without its path and quotes: `"/sbin/shutdown` gives `shutdown`.
fn name(word: &str) -> &str {
    let w = word.trim_matches(['"', '\'']);
    w.rsplit('/').next().unwrap_or(w)
}

/// The arguments that put a group of machines of one resource type behind a load balancer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadBalanced {
    pub resource: String,
    /// `target_pools`, or a dotted path through nested blocks.
    pub keys: Vec<String>,
    pub source: String,
}

impl Workloads {
    /// The arguments that put a group of `resource` behind a load balancer.
    pub fn load_balancer_keys(&self, resource: &str) -> &[String] {
        self.load_balanced
            .iter()
            .find(|l| l.resource == resource)
            .map_or(&[], |l| &l.keys)
    }
}

/// The host CPU and memory each GPU of a class needs at least (`gpu-starved-cpu-memory`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostFloor {
    /// The row applies to GPUs with at least this much memory (GB, the vendor figure).
    pub min_gpu_memory_gb: f64,
    pub cpu: u64,
    pub memory_gib: u64,
    /// A request below this share of the floor is a warning on a multi-GPU pod; above it,
    /// or on one GPU, a note.
    pub warn_below: f64,
    /// A request at or above this share of the floor is left alone (a margin).
    pub note_below: f64,
    pub source: String,
}

impl Workloads {
    /// The floor for a GPU of `memory_gb` (the smallest row when the GPU is unknown).
    pub fn host_floor(&self, memory_gb: Option<f64>) -> &HostFloor {
        let fits = |f: &&HostFloor| memory_gb.is_some_and(|m| m >= f.min_gpu_memory_gb);
        self.host_floors
            .iter()
            .filter(fits)
            .max_by(|a, b| a.min_gpu_memory_gb.total_cmp(&b.min_gpu_memory_gb))
            .or_else(|| {
                self.host_floors
                    .iter()
                    .min_by(|a, b| a.min_gpu_memory_gb.total_cmp(&b.min_gpu_memory_gb))
            })
            .expect("workloads.toml has host floors (tested)")
    }
}

/// The embedded table, parsed on first use (only runs with Kubernetes workloads need it).
pub fn workloads() -> &'static Workloads {
    static TABLE: OnceLock<Workloads> = OnceLock::new();
    TABLE.get_or_init(|| toml::from_str(WORKLOADS).expect("workloads.toml is valid (tested)"))
}

/// An image reference's repository, lower-cased: without its `@digest` and `:tag`
/// (a `:` before the last `/` is a registry port, not a tag).
pub fn repository(image: &str) -> String {
    let image = image.split('@').next().unwrap_or(image);
    let last_slash = image.rfind('/').map_or(0, |i| i + 1);
    let repo = match image[last_slash..].find(':') {
        Some(colon) => &image[..last_slash + colon],
        None => image,
    };
    repo.to_ascii_lowercase()
}

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(['-', '_', '.']).filter(|w| !w.is_empty())
}

/// Whether the words of `text` hold the words of `entry` in a row (`nccl-tests` holds
/// `nccl tests`, split alike on `-`, `_` and `.`). An entry of no words holds nothing.
fn holds_words(text: &str, entry: &str) -> bool {
    let want: Vec<&str> = words(entry).collect();
    let have: Vec<&str> = words(text).collect();
    !want.is_empty() && have.windows(want.len()).any(|w| w == want.as_slice())
}

/// The last part of a path: `/usr/bin/torchrun` → `torchrun`.
fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

impl Program {
    /// Whether the image's repository (from [`repository`]) is this program's.
    pub fn image(&self, repo: &str) -> bool {
        let by_path = self.images.iter().any(|p| {
            let p = p.to_ascii_lowercase();
            if p.ends_with('/') {
                repo.starts_with(&p)
            } else {
                repo == p || repo.ends_with(&format!("/{p}"))
            }
        });
        by_path
            || self
                .image_words
                .iter()
                .any(|entry| repo.split('/').any(|segment| holds_words(segment, entry)))
    }

    /// Whether `word` is a `.py` or `.sh` script whose name holds one of
    /// [`Program::script_words`].
    fn script(&self, word: &str) -> bool {
        let name = base(word).to_ascii_lowercase();
        let Some(stem) = name
            .strip_suffix(".py")
            .or_else(|| name.strip_suffix(".sh"))
        else {
            return false;
        };
        self.script_words
            .iter()
            .any(|entry| holds_words(stem, entry))
    }

    /// The words of `argv` that show this program (`vllm serve`,
    /// `python -m vllm.entrypoints.openai.api_server`), or `None`.
    pub fn command(&self, argv: &[&str]) -> Option<String> {
        for (i, &w) in argv.iter().enumerate() {
            if self.programs.iter().any(|p| base(w) == p) {
                return Some(base(w).to_string());
            }
            if let Some(&next) = argv.get(i + 1) {
                let pair = format!("{} {next}", base(w));
                if self.subcommands.contains(&pair) {
                    return Some(pair);
                }
            }
            if let Some(s) = self.snippets.iter().find(|s| w.contains(s.as_str())) {
                return Some(s.clone());
            }
            if self.script(w) {
                return Some(base(w).to_string());
            }
            let module = self.modules.iter().any(|m| {
                w == m
                    || w.strip_prefix(m.as_str())
                        .is_some_and(|r| r.starts_with('.'))
            });
            if module {
                return Some(if i > 0 && argv[i - 1] == "-m" {
                    format!("python -m {w}")
                } else {
                    w.to_string()
                });
            }
        }
        None
    }
}

impl Workloads {
    /// Whether `word` runs a program of the benchmark table (`./auto_tune.sh`,
    /// `/usr/bin/all_reduce_perf`).
    pub fn benchmark_program(&self, word: &str) -> bool {
        let name = base(word);
        self.benchmarks
            .iter()
            .any(|b| b.programs.iter().any(|p| p == name))
    }

    /// A script whose name says it trains (`train.py`, `pretrain_gpt.py`, `sft.sh`), as
    /// shown: `python train.py`. A name that also says it serves or evaluates is not one.
    pub fn training_script(&self, argv: &[&str]) -> Option<String> {
        const NOT: [&str; 6] = ["serve", "server", "serving", "infer", "inference", "eval"];
        for (i, &w) in argv.iter().enumerate() {
            let name = base(w);
            // A benchmark's own script trains nothing, whatever its name (vLLM's
            // `auto_tune.sh` tunes serving settings).
            if self.benchmark_program(w) {
                continue;
            }
            let Some(stem) = name
                .strip_suffix(".py")
                .or_else(|| name.strip_suffix(".sh"))
            else {
                continue;
            };
            let stem = stem.to_ascii_lowercase();
            let trains = words(&stem).any(|x| self.scripts.training_words.iter().any(|t| t == x));
            if trains && !words(&stem).any(|x| NOT.contains(&x)) {
                return Some(match i.checked_sub(1).map(|p| base(argv[p])) {
                    Some(prev) if prev.starts_with("python") || prev == "bash" || prev == "sh" => {
                        format!("{prev} {name}")
                    }
                    _ => name.to_string(),
                });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(id: &str) -> &'static Program {
        workloads().engines.iter().find(|e| e.id == id).unwrap()
    }

    #[test]
    fn a_script_named_for_the_collectives_is_a_collective_test() {
        let w = workloads();
        let b = w
            .benchmarks
            .iter()
            .find(|b| b.id == "collective-script")
            .unwrap();
        for script in [
            "/opt/test/efa_nccl_preflight.py",
            "all_reduce_test.sh",
            "run-all-gather.py",
        ] {
            assert!(b.command(&["torchrun", script]).is_some(), "{script}");
        }
        for script in ["train.py", "allocate.sh", "reduce_all.py", "nccl"] {
            assert!(b.command(&["torchrun", script]).is_none(), "{script}");
        }
    }

    #[test]
    fn the_table_loads_and_every_row_has_a_source_and_a_way_to_match() {
        let w = workloads();
        let all = (w.engines.iter().chain(&w.frameworks).chain(&w.launchers))
            .chain(&w.benchmarks)
            .chain(&w.interactive);
        for p in all {
            assert!(!p.source.is_empty(), "{}", p.id);
            let ways = p.images.len()
                + p.image_words.len()
                + p.programs.len()
                + p.subcommands.len()
                + p.modules.len()
                + p.snippets.len()
                + p.script_words.len();
            assert!(ways > 0, "{} matches nothing", p.id);
            if !p.spans_pods.is_empty() {
                assert!(
                    p.spans_pods_source.as_ref().is_some_and(|s| !s.is_empty()),
                    "{}",
                    p.id
                );
            }
            for s in &p.spans_pods {
                let kinds = usize::from(s.flag.is_some())
                    + usize::from(!s.command.is_empty())
                    + usize::from(s.env.is_some());
                assert_eq!(
                    kinds, 1,
                    "{}: a sign is a flag, a command or a variable",
                    p.id
                );
                assert!(s.value.is_none() || s.above.is_none(), "{}", p.id);
            }
        }
    }

    #[test]
    fn repositories_drop_tag_and_digest_never_a_port() {
        assert_eq!(repository("verlai/verl:vllm0.8"), "verlai/verl");
        assert_eq!(
            repository("localhost:5000/vllm/vllm-openai:v0.6@sha256:ab"),
            "localhost:5000/vllm/vllm-openai"
        );
        assert_eq!(
            repository("NVCR.IO/nim/meta/llama3"),
            "nvcr.io/nim/meta/llama3"
        );
    }

    #[test]
    fn images_match_by_repository_never_by_tag() {
        let vllm = engine("vllm");
        assert!(vllm.image(&repository("vllm/vllm-openai:v0.6.3")));
        assert!(vllm.image(&repository("ghcr.io/acme/vllm-server:1")));
        assert!(!vllm.image(&repository("verlai/verl:ngc-vllm0.8")));
        assert!(engine("nim").image(&repository("nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3")));
        assert!(engine("tgi").image(&repository(
            "ghcr.io/huggingface/text-generation-inference:2.4"
        )));
        assert!(!engine("tgi").image(&repository("ghcr.io/acme/text-generation:1")));
    }

    #[test]
    fn commands_match_programs_subcommands_and_modules() {
        let vllm = engine("vllm");
        assert_eq!(
            vllm.command(&["vllm", "serve", "m"]).as_deref(),
            Some("vllm serve")
        );
        assert_eq!(
            vllm.command(&["python3", "-m", "vllm.entrypoints.openai.api_server"])
                .as_deref(),
            Some("python -m vllm.entrypoints.openai.api_server")
        );
        assert_eq!(vllm.command(&["actor_rollout_ref.rollout.name=vllm"]), None);
        assert_eq!(
            engine("tgi")
                .command(&["/usr/local/bin/text-generation-launcher"])
                .as_deref(),
            Some("text-generation-launcher")
        );
    }

    #[test]
    fn training_scripts_by_name() {
        let w = workloads();
        assert_eq!(
            w.training_script(&["python", "pretrain.py"]).as_deref(),
            Some("python pretrain.py")
        );
        assert_eq!(
            w.training_script(&["/opt/sft_trainer.py"]).as_deref(),
            Some("sft_trainer.py")
        );
        assert_eq!(w.training_script(&["python", "serve_trained.py"]), None);
        assert_eq!(w.training_script(&["python", "app.py"]), None);
        assert_eq!(w.training_script(&["python", "constraint.py"]), None);
    }
}
