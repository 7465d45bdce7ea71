//! Waits in a command line that never return (`sleep infinity`, `tail -f /dev/null`, an
//! endless loop): what a GPU container that holds its GPUs for nothing ends in.

use gpulint_model::Span;
use gpulint_model::Str;

/// A sleep this long is a wait for nothing.
const DAY_SECONDS: f64 = 86_400.0;

/// A word of a command line, or a shell separator between commands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    Word(&'a str, &'a Span),
    Sep(&'static str),
}

/// The argv's words with shell separators (`;`, `&`, `&&`, `|`, `||`) split off, and
/// grouping brackets dropped. `2>&1` is a redirection, not a separator.
fn tokens(argv: &[(Str, Span)]) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    for (word, span) in argv {
        let word = word.trim_matches(|c| matches!(c, '(' | ')' | '{' | '}'));
        let bytes = word.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            let redirect = c == b'&'
                && ((i > 0 && matches!(bytes[i - 1], b'>' | b'<'))
                    || bytes.get(i + 1) == Some(&b'>'));
            let sep = match c {
                b';' => Some((";", 1)),
                b'&' if redirect => None,
                b'&' if bytes.get(i + 1) == Some(&b'&') => Some(("&&", 2)),
                b'&' => Some(("&", 1)),
                b'|' if bytes.get(i + 1) == Some(&b'|') => Some(("||", 2)),
                b'|' => Some(("|", 1)),
                _ => None,
            };
            if let Some((s, len)) = sep {
                if start < i {
                    out.push(Tok::Word(&word[start..i], span));
                }
                out.push(Tok::Sep(s));
                i += len;
                start = i;
            } else {
                i += 1;
            }
        }
        if start < word.len() {
            out.push(Tok::Word(&word[start..], span));
        }
    }
    out
}

fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Seconds in a `sleep` operand: `30`, `1.5h`, `365d`, `inf`, `infinity`.
fn seconds(word: &str) -> Option<f64> {
    let w = word.to_ascii_lowercase();
    if w == "inf" || w == "infinity" {
        return Some(f64::INFINITY);
    }
    let (number, unit) = match w.as_bytes().last()? {
        b's' => (&w[..w.len() - 1], 1.0),
        b'm' => (&w[..w.len() - 1], 60.0),
        b'h' => (&w[..w.len() - 1], 3600.0),
        b'd' => (&w[..w.len() - 1], DAY_SECONDS),
        _ => (w.as_str(), 1.0),
    };
    // Digits only: Rust would also read `nan` and `inf` with a unit.
    if !number
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'+'))
    {
        return None;
    }
    let n: f64 = number.parse().ok()?;
    (n >= 0.0).then_some(n * unit)
}

/// `sleep` and its operands ending at the end of `t`: their index and total seconds.
fn trailing_sleep(t: &[Tok<'_>]) -> Option<(usize, f64)> {
    let mut total = 0.0;
    let mut i = t.len();
    while i > 0 {
        match t[i - 1] {
            Tok::Word(w, _) if base(w) == "sleep" && i < t.len() => return Some((i - 1, total)),
            Tok::Word(w, _) => total += seconds(w)?,
            Tok::Sep(_) => return None,
        }
        i -= 1;
    }
    None
}

/// `tail -f /dev/null` ending at the end of `t`: its index.
fn trailing_tail(t: &[Tok<'_>]) -> Option<usize> {
    let [.., Tok::Word("/dev/null", _)] = t else {
        return None;
    };
    let mut follows = false;
    for i in (0..t.len() - 1).rev() {
        match t[i] {
            Tok::Word(w, _) if base(w) == "tail" => return follows.then_some(i),
            Tok::Word(w, _) if w.starts_with("--follow") => follows = true,
            Tok::Word(w, _) if w.starts_with('-') && !w.starts_with("--") => {
                follows |= w.contains(['f', 'F']);
            }
            Tok::Word(w, _) if w.bytes().all(|b| b.is_ascii_digit()) => {}
            _ => return None,
        }
    }
    None
}

/// The words of `t`, separators left out.
fn words<'a>(t: &[Tok<'a>]) -> Vec<&'a str> {
    t.iter()
        .filter_map(|t| match t {
            Tok::Word(w, _) => Some(*w),
            Tok::Sep(_) => None,
        })
        .collect()
}

/// `while true; do sleep N; done` (or `while :`, `until false`) ending at the end of `t`,
/// with nothing but sleeps in the loop: its index.
fn trailing_loop(t: &[Tok<'_>]) -> Option<usize> {
    let [.., Tok::Word("done", _)] = t else {
        return None;
    };
    let head = t
        .iter()
        .rposition(|t| matches!(t, Tok::Word("while" | "until", _)))?;
    let body_start = head
        + t[head..]
            .iter()
            .position(|t| matches!(t, Tok::Word("do", _)))?;
    let condition = words(&t[head + 1..body_start]).join(" ");
    let forever = match t[head] {
        Tok::Word("while", _) => matches!(
            condition.as_str(),
            "true" | ":" | "[ 1 ]" | "[ true ]" | "[[ 1 ]]" | "[[ true ]]"
        ),
        _ => condition == "false",
    };
    if !forever {
        return None;
    }
    let body = words(&t[body_start + 1..t.len() - 1]);
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            "true" | ":" => i += 1,
            w if base(w) == "sleep" => {
                let n = body[i + 1..]
                    .iter()
                    .take_while(|w| seconds(w).is_some())
                    .count();
                if n == 0 {
                    return None;
                }
                i += 1 + n;
            }
            _ => return None,
        }
    }
    (!body.is_empty()).then_some(head)
}

/// The wait a command line ends in, if it never returns: `sleep infinity`, a sleep of a
/// day or more, `tail -f /dev/null`, an endless loop of sleeps; also backgrounded and
/// then waited for (`sleep infinity & wait`). Returns the wait as written and its span.
pub(crate) fn forever_wait(argv: &[(Str, Span)]) -> Option<(String, Span)> {
    trailing_wait(argv)
        .filter(|(_, _, secs)| *secs >= DAY_SECONDS)
        .map(|(w, sp, _)| (w, sp))
}

/// The wait a command line ends in, as [`forever_wait`] finds it, with how long it waits
/// in seconds (infinite for `tail -f` and endless loops), however short.
pub(crate) fn trailing_wait(argv: &[(Str, Span)]) -> Option<(String, Span, f64)> {
    let toks = tokens(argv);
    let mut t = &toks[..];
    loop {
        t = match t {
            // A trailing `;`, and `cmd & wait`: the shell waits for `cmd`.
            [rest @ .., Tok::Sep(";")] | [rest @ .., Tok::Sep("&"), Tok::Word("wait", _)] => rest,
            [
                rest @ ..,
                Tok::Sep("&"),
                Tok::Word("wait", _),
                Tok::Word(arg, _),
            ] if arg.starts_with('$') || arg.bytes().all(|b| b.is_ascii_digit()) => rest,
            _ => break,
        };
    }
    let (start, secs) = match trailing_sleep(t) {
        Some(found) => found,
        None => (
            trailing_tail(t).or_else(|| trailing_loop(t))?,
            f64::INFINITY,
        ),
    };
    let wait = &t[start..];
    let (Tok::Word(_, first), Tok::Word(_, last)) = (wait[0], wait[wait.len() - 1]) else {
        return None;
    };
    let span = if first.file == last.file && first.range().start <= last.range().end {
        Span::new(first.file, first.range().start..last.range().end)
    } else {
        last.clone()
    };
    Some((render(wait), span, secs))
}

/// Words and separators as a shell line: `while true; do sleep 30; done`.
fn render(t: &[Tok<'_>]) -> String {
    let mut s = String::new();
    for tok in t {
        match tok {
            Tok::Word(w, _) => {
                if !s.is_empty() {
                    s.push(' ');
                }
                s.push_str(w);
            }
            Tok::Sep(";") => s.push(';'),
            Tok::Sep(sep) => {
                s.push(' ');
                s.push_str(sep);
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_source::FileId;

    fn argv(words: &[&str]) -> Vec<(Str, Span)> {
        words
            .iter()
            .enumerate()
            .map(|(i, w)| (Str::from(*w), Span::new(FileId(0), i * 10..i * 10 + 5)))
            .collect()
    }

    /// As the lowerer splits a `sh -c` script: words sharing one span.
    fn script(s: &str) -> Vec<(Str, Span)> {
        let mut v = argv(&["sh", "-c"]);
        v.extend(
            s.split_whitespace()
                .map(|w| (Str::from(w), Span::new(FileId(0), 100..200))),
        );
        v
    }

    fn wait(a: &[(Str, Span)]) -> Option<String> {
        forever_wait(a).map(|(w, _)| w)
    }

    #[test]
    fn forever_waits_are_found() {
        let some = |s: &str| Some(s.to_string());
        assert_eq!(wait(&argv(&["sleep", "infinity"])), some("sleep infinity"));
        assert_eq!(wait(&argv(&["/bin/sleep", "inf"])), some("/bin/sleep inf"));
        assert_eq!(wait(&argv(&["sleep", "365d"])), some("sleep 365d"));
        assert_eq!(wait(&argv(&["sleep", "86400"])), some("sleep 86400"));
        assert_eq!(wait(&argv(&["sleep", "1e9"])), some("sleep 1e9"));
        assert_eq!(wait(&argv(&["sleep", "12h", "12h"])), some("sleep 12h 12h"));
        assert_eq!(
            wait(&argv(&["tail", "-f", "/dev/null"])),
            some("tail -f /dev/null")
        );
        assert_eq!(
            wait(&script("nvidia-smi && sleep infinity")),
            some("sleep infinity")
        );
        assert_eq!(
            wait(&script("while true; do sleep 30; done;")),
            some("while true; do sleep 30; done")
        );
        assert_eq!(
            wait(&script("while :\ndo\n  sleep 3600\ndone")),
            some("while : do sleep 3600 done")
        );
        assert_eq!(
            wait(&script("trap : TERM INT; sleep infinity & wait")),
            some("sleep infinity")
        );
        assert_eq!(
            wait(&script("python setup.py >/tmp/log 2>&1; tail -F /dev/null")),
            some("tail -F /dev/null")
        );
        let (_, span) = forever_wait(&argv(&["sleep", "infinity"])).unwrap();
        assert_eq!(span.range(), 0..15, "from `sleep` to its operand");
    }

    #[test]
    fn finite_waits_say_how_long() {
        let secs = |a: &[(Str, Span)]| trailing_wait(a).map(|(_, _, s)| s);
        assert_eq!(
            secs(&script(
                "nvidia-smi -L; trap 'exit 0' TERM; sleep 9999 & wait"
            )),
            Some(9999.0)
        );
        assert_eq!(secs(&argv(&["sleep", "1h"])), Some(3600.0));
        assert_eq!(
            secs(&argv(&["tail", "-f", "/dev/null"])),
            Some(f64::INFINITY)
        );
        assert_eq!(secs(&argv(&["python", "train.py"])), None);
    }

    #[test]
    fn work_and_short_or_unknown_sleeps_are_not_waits() {
        for a in [
            argv(&["sleep", "3600"]),
            argv(&["sleep", "$DURATION"]),
            argv(&["python", "serve.py"]),
            argv(&["sleep", "nan"]),
            script("sleep infinity; python serve.py"),
            script("sleep infinity &"),
            script("python train.py; sleep 60"),
            script("while true; do python poll.py; sleep 60; done"),
            script("while [ -f /tmp/busy ]; do sleep 30; done"),
            script("sleep infinity & python serve.py & wait"),
            argv(&["tail", "/dev/null"]),
            argv(&["echo", "done"]),
        ] {
            assert_eq!(wait(&a), None, "{a:?}");
        }
    }
}
