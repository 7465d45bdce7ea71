//! Shell scripts a machine runs at start (a VM's `user_data`, `metadata_startup_script`,
//! `custom_data`): their command lines as words, and the serving engine one of them runs,
//! read as a container's command would be.

use gpulint_facts::workloads::{repository, workloads};
use gpulint_model::{Container, Serving, Span, Str, Value};

/// Programs that run a container: `docker run IMAGE ARGS…` runs what the image holds.
const RUNTIMES: [&str; 4] = ["docker", "podman", "nerdctl", "ctr"];

/// A script's command lines as words, in order: a line continued with a trailing `\` is
/// one line, comments are left out, quotes and a closing `;` are trimmed from each word,
/// and `$NAME` or `${NAME}` is replaced by what an earlier `NAME=value`, `NAME="several
/// words"` (or `export NAME=…`) line of the script set, before the line is split, as the
/// shell expands an unquoted variable into words.
pub fn script_commands(text: &str) -> Vec<Vec<String>> {
    let joined = text.replace("\\\n", " ");
    let mut set: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    for line in joined.lines() {
        let line = line.split(" #").next().unwrap_or(line).trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = substitute(line, &set);
        if let Some((name, value)) = assignment(&line) {
            set.retain(|(n, _)| *n != name);
            set.push((name, value));
        }
        let words: Vec<String> = line
            .split_whitespace()
            .map(|w| w.trim_matches(|c| matches!(c, '"' | '\'' | '\\' | ';')))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        out.push(words);
    }
    out
}

/// `NAME=value`, `NAME="a value"` or `export NAME=…`, alone on its line.
fn assignment(line: &str) -> Option<(String, String)> {
    let line = line.strip_prefix("export ").unwrap_or(line).trim();
    let (name, value) = line.split_once('=')?;
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let value = match value.chars().next() {
        Some(q @ ('"' | '\'')) => value.strip_prefix(q)?.strip_suffix(q)?,
        _ if value.contains(char::is_whitespace) => return None,
        _ => value,
    };
    valid.then(|| (name.to_string(), value.to_string()))
}

/// `text` with each `$NAME` and `${NAME}` that `set` holds replaced by its value.
fn substitute(text: &str, set: &[(String, String)]) -> String {
    if !text.contains('$') {
        return text.to_string();
    }
    let mut w = text.to_string();
    // Longest names first, so `$MODEL_ID` is not read as `$MODEL` followed by `_ID`.
    let mut by_length: Vec<&(String, String)> = set.iter().collect();
    by_length.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
    for (name, value) in by_length {
        w = w.replace(&format!("${{{name}}}"), value);
        let bare = format!("${name}");
        let mut from = 0;
        while let Some(at) = w[from..].find(&bare).map(|i| i + from) {
            let end = at + bare.len();
            let continues = w[end..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            if continues {
                from = end;
            } else {
                w.replace_range(at..end, value);
                from = at + value.len();
            }
        }
    }
    w
}

/// Whether a word is a container runtime: `docker`, `/usr/bin/docker`, systemd's
/// `ExecStart=/usr/bin/docker`.
pub fn is_runtime(word: &str) -> bool {
    word.rsplit(['/', '='])
        .next()
        .is_some_and(|b| RUNTIMES.contains(&b))
}

/// Whether a word names a container image (`vllm/vllm-openai:latest`, with an owner or a
/// registry): a path, a URL, a variable or an e-mail address is not one.
pub fn is_image(word: &str) -> bool {
    word.contains('/')
        && !word.starts_with(['/', '.', '~', '$', '-'])
        && !word.contains("://")
        && !word.contains('@')
}

/// The serving engine a start-up script runs and what it is told: the first command line
/// that runs one (`vllm serve MODEL …`, `docker run … vllm/vllm-openai --model MODEL`,
/// systemd's `ExecStart=/usr/bin/docker run …`), read as a container that runs it, with a
/// runtime's `-e NAME=value` as its environment. A line that installs packages (`pip
/// install vllm`) or pulls an image runs nothing. A line whose model is named comes before
/// one whose model is not. Every part is placed at `span`, where the script is written.
pub fn script_serving(text: &str, span: &Span) -> Option<Serving> {
    let table = workloads();
    let mut first = None;
    for words in script_commands(text) {
        if words.iter().any(|w| w == "install" || w == "pull") {
            continue;
        }
        let runs_container = words.windows(2).any(|w| is_runtime(&w[0]) && w[1] == "run");
        let image = words
            .iter()
            .filter(|_| runs_container)
            .find(|w| is_image(w) && table.engines.iter().any(|p| p.image(&repository(w))))
            .map(|w| Str::from(w.as_str()));
        let mut env = Vec::new();
        if runs_container {
            for pair in words.windows(2) {
                let setting = match pair[0].as_str() {
                    "-e" | "--env" => Some(pair[1].as_str()),
                    w => w.strip_prefix("--env="),
                };
                if let Some((k, v)) = setting.and_then(|s| s.split_once('=')) {
                    env.push((Str::from(k), Str::from(v), span.clone()));
                }
            }
        }
        let container = Container {
            name: "start-up script".into(),
            image,
            argv: words
                .iter()
                .map(|w| (Str::from(w.as_str()), span.clone()))
                .collect(),
            gpus: Value::Absent,
            mounts: Vec::new(),
            claims: Vec::new(),
            cpu_request: Value::Absent,
            memory_request: Value::Absent,
            env,
            listens: true,
            span: span.clone(),
        };
        let Some(s) = super::engines::serving(span.file, &[container], None) else {
            continue;
        };
        if s.model.is_some() {
            return Some(s);
        }
        first.get_or_insert(s);
    }
    first
}

#[cfg(test)]
mod tests {
    use super::{script_commands, script_serving};
    use gpulint_model::{Engine, Span};
    use gpulint_source::FileId;

    #[test]
    fn commands_join_continued_lines_and_substitute_variables_the_script_sets() {
        let text = "#!/bin/bash\nexport MODEL=\"Qwen/Qwen3-8B\"\nvllm serve $MODEL \\\n  --port 8000 # api\n";
        let lines = script_commands(text);
        assert_eq!(
            lines[1],
            ["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"]
        );
        // A longer name is not read as a shorter one followed by text.
        let lines = script_commands("M=a\nM_ID=b\necho $M_ID ${M} $MX");
        assert_eq!(lines[2], ["echo", "b", "a", "$MX"]);
        // A quoted value of several words expands into words where it is used.
        let text = "ARGS=\"--model m --max-model-len 8192\"\ndocker run img ${ARGS}\n";
        assert_eq!(
            script_commands(text)[1],
            [
                "docker",
                "run",
                "img",
                "--model",
                "m",
                "--max-model-len",
                "8192"
            ]
        );
    }

    #[test]
    fn an_engine_is_read_from_the_container_a_script_runs() {
        let span = Span::new(FileId(0), 0..10);
        let script = "apt-get install -y docker.io\ndocker pull vllm/vllm-openai:latest\n\
                      ExecStart=/usr/bin/docker run --gpus all -e HF_HOME=/data \\\n  \
                      vllm/vllm-openai:latest --model deepseek-ai/DeepSeek-R1-Distill-Llama-8B \\\n  \
                      --gpu-memory-utilization 0.45\n";
        let s = script_serving(script, &span).expect("vLLM is read");
        assert_eq!(s.engine, Engine::Vllm);
        assert_eq!(
            s.model.map(|(m, _)| m).as_deref(),
            Some("deepseek-ai/DeepSeek-R1-Distill-Llama-8B")
        );
        assert_eq!(s.gpu_memory_utilization.map(|(u, _)| u), Some(0.45));
        let tgi = "docker run -e MODEL_ID=mistralai/Mistral-7B-Instruct-v0.3 ghcr.io/huggingface/text-generation-inference:2.4";
        let s = script_serving(tgi, &span).expect("TGI is read");
        assert_eq!(
            s.model.map(|(m, _)| m).as_deref(),
            Some("mistralai/Mistral-7B-Instruct-v0.3")
        );
        // Installing or pulling an engine serves nothing.
        assert!(script_serving("pip install vllm\ndocker pull vllm/vllm-openai", &span).is_none());
    }
}
