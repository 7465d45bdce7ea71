//! Configuration: `.gpulint.toml`, found upward from the working directory, or
//! `--config FILE`. An unknown key is an error with its line, never ignored.
//!
//! ```toml
//! [rules.stale-generation-reservation]
//! threshold = 3
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::rules::{OptionKind, rule};

pub const FILE_NAME: &str = ".gpulint.toml";

/// The configuration of a run. `Default` is "no file".
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The file it came from.
    pub path: Option<PathBuf>,
    /// Options per rule id, validated against what each rule declares.
    pub rules: BTreeMap<String, toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    rules: BTreeMap<String, toml::Spanned<toml::Table>>,
}

impl Config {
    /// Loads `explicit`, else the nearest `.gpulint.toml` from `cwd` upward, else none.
    pub fn load(explicit: Option<&Path>, cwd: &Path) -> Result<Config, String> {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => cwd
                .ancestors()
                .map(|d| d.join(FILE_NAME))
                .find(|p| p.is_file()),
        };
        let Some(path) = path else {
            return Ok(Config::default());
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read config `{}`: {e}", path.display()))?;
        Config::parse(&text, &path)
    }

    /// Parses and validates a configuration file's text.
    pub fn parse(text: &str, path: &Path) -> Result<Config, String> {
        let at = |span: Option<std::ops::Range<usize>>, message: &str| {
            let (line, col) = span.map_or((1, 1), |s| line_col(text, s.start));
            format!("{}:{line}:{col}: {message}", path.display())
        };
        let file: File = toml::from_str(text).map_err(|e| at(e.span(), e.message()))?;
        let mut rules = BTreeMap::new();
        for (id, table) in file.rules {
            let span = table.span();
            let Some(entry) = rule(&id) else {
                return Err(at(
                    Some(span),
                    &format!("unknown rule `{id}` (see `gpulint rules`)"),
                ));
            };
            let table = table.into_inner();
            for (key, value) in &table {
                let Some(option) = entry.meta.options.iter().find(|o| o.name == key) else {
                    let known: Vec<&str> = entry.meta.options.iter().map(|o| o.name).collect();
                    let hint = if known.is_empty() {
                        "it has no options".to_string()
                    } else {
                        format!("its options: {}", known.join(", "))
                    };
                    return Err(at(
                        Some(span.clone()),
                        &format!("unknown option `{key}` for rule `{id}` ({hint})"),
                    ));
                };
                let valid = match option.kind {
                    OptionKind::PositiveInteger => value.as_integer().is_some_and(|n| n > 0),
                };
                if !valid {
                    return Err(at(
                        Some(span.clone()),
                        &format!("`{key}` of rule `{id}` must be {}", option.kind.describe()),
                    ));
                }
            }
            rules.insert(id, table);
        }
        Ok(Config {
            path: Some(path.to_path_buf()),
            rules,
        })
    }
}

fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let before = &text[..byte.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(text, Path::new(".gpulint.toml"))
    }

    #[test]
    fn rule_options_load() {
        let c = parse("[rules.stale-generation-reservation]\nthreshold = 3\n").unwrap();
        let t = &c.rules["stale-generation-reservation"];
        assert_eq!(t["threshold"].as_integer(), Some(3));
    }

    #[test]
    fn unknown_keys_are_errors_with_their_line() {
        let e = parse("fail_on = \"error\"\n\n[rulez]\n").unwrap_err();
        assert!(e.starts_with(".gpulint.toml:1:1:"), "{e}");
        let e = parse("\n[rules.no-such-rule]\nx = 1\n").unwrap_err();
        assert!(
            e.contains(":2:") && e.contains("unknown rule `no-such-rule`"),
            "{e}"
        );
        let e = parse("[rules.stale-generation-reservation]\nthreshhold = 3\n").unwrap_err();
        assert!(
            e.contains("unknown option `threshhold`") && e.contains("threshold"),
            "{e}"
        );
        let e = parse("[rules.missing-auto-shutdown]\nx = 1\n").unwrap_err();
        assert!(e.contains("it has no options"), "{e}");
        let e = parse("[rules.stale-generation-reservation]\nthreshold = 0\n").unwrap_err();
        assert!(e.contains("must be a positive integer"), "{e}");
    }

    #[test]
    fn the_nearest_file_upward_wins() {
        let dir = std::env::temp_dir().join(format!("gpulint-config-{}", std::process::id()));
        let inner = dir.join("a/b");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(
            dir.join(FILE_NAME),
            "[rules.stale-generation-reservation]\nthreshold = 4\n",
        )
        .unwrap();
        let c = Config::load(None, &inner).unwrap();
        assert_eq!(c.path.as_deref(), Some(dir.join(FILE_NAME).as_path()));
        let none = Config::load(None, Path::new("/")).unwrap();
        assert!(none.path.is_none() || none.path.as_deref() != Some(dir.join(FILE_NAME).as_path()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
