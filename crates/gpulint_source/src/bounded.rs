//! Bounded reads of what the user names: stdin and the files given as options
//! (`--var-file`, `--baseline`, `--config`). Each read stops at a size cap, and a FIFO,
//! pipe or device that gives no data cannot hang the run: it is read on a helper thread
//! that the run stops waiting for.
//!
//! Files found in the linted folders are read by the lint pipeline (`gpulint::lint`), which opens regular files
//! only; a FIFO there is never opened.

use std::io::Read;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// How long a FIFO, pipe or device may give no data, unless `GPULINT_OPEN_TIMEOUT_MS` says
/// otherwise (the tests set it short).
const DEFAULT_WAIT: Duration = Duration::from_secs(10);

/// The bytes read in one step from a FIFO, pipe or device.
const CHUNK: usize = 64 << 10;

/// The wait for a FIFO, pipe or device to give data.
fn wait() -> Duration {
    std::env::var("GPULINT_OPEN_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .map_or(DEFAULT_WAIT, Duration::from_millis)
}

/// Reads at most `cap` bytes from `reader` (stdin). Over the cap it returns the first
/// `cap + 1` bytes and stops reading, so the caller can tell that the cap was hit.
pub fn read_stream(reader: impl Read, cap: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads the file at `path` whole, if it is at most `cap` bytes. A regular file is read
/// directly; anything else (a FIFO, process substitution's `/dev/fd/63`, a device) is
/// opened and read on a helper thread, and the run stops waiting when it gives no data
/// for the wait (10 s by default), with an error that says so.
/// `limit` names the cap in the error, with how to raise it.
pub fn read_file(path: &Path, cap: u64, limit: &'static str) -> Result<Vec<u8>, ReadError> {
    // `metadata` does not open the file, so it cannot wait for a FIFO's writer.
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(ReadError::Folder);
    }
    if meta.is_file() {
        if meta.len() > cap {
            return Err(ReadError::TooLarge {
                size: Some(meta.len()),
                cap,
                limit,
            });
        }
        let file = std::fs::File::open(path)?;
        let bytes = read_stream(file, cap)?;
        return check_cap(bytes, cap, limit);
    }
    read_special(path, cap, limit)
}

/// [`read_file`], for a file that must be UTF-8 text (a config, a policy, a baseline).
pub fn read_text(path: &Path, cap: u64, limit: &'static str) -> Result<String, ReadError> {
    String::from_utf8(read_file(path, cap, limit)?).map_err(|_| ReadError::NotUtf8)
}

/// Why a file the user named was not read. Its text is the reason as the user sees it,
/// after the caller's "cannot read `x`: ".
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The operating system's reason: no such file, permission denied, ….
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("it is a folder")]
    Folder,
    #[error("it is not UTF-8 text")]
    NotUtf8,
    /// Over `cap` bytes; `size` when it was known before reading. `limit` names the cap
    /// and how to raise it.
    #[error("{}", over(*.size, *.cap, .limit))]
    TooLarge {
        size: Option<u64>,
        cap: u64,
        limit: &'static str,
    },
    /// A FIFO, pipe or device gave nothing for the whole wait.
    #[error(
        "it gave no data within {}: a FIFO with no writer? (`GPULINT_OPEN_TIMEOUT_MS` sets the wait)",
        duration(*.wait)
    )]
    NoData { wait: Duration },
    #[error("cannot start a thread to read it: {0}")]
    Thread(std::io::Error),
    #[error("the reading thread stopped")]
    ThreadStopped,
}

fn check_cap(bytes: Vec<u8>, cap: u64, limit: &'static str) -> Result<Vec<u8>, ReadError> {
    if bytes.len() as u64 > cap {
        Err(ReadError::TooLarge {
            size: None,
            cap,
            limit,
        })
    } else {
        Ok(bytes)
    }
}

/// A FIFO, pipe or device: opening may wait for a writer and reading may never end, so
/// both happen on a thread that sends what it reads; this side gives up when nothing comes
/// for the wait, or once the cap is passed (the thread then ends at its next send).
fn read_special(path: &Path, cap: u64, limit: &'static str) -> Result<Vec<u8>, ReadError> {
    let wait = wait();
    let (tx, rx) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(4);
    let owned = path.to_path_buf();
    std::thread::Builder::new()
        .name("gpulint-read".into())
        .spawn(move || {
            let mut file = match std::fs::File::open(&owned) {
                Ok(f) => f,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            };
            loop {
                let mut buf = vec![0; CHUNK];
                let sent = match file.read(&mut buf) {
                    Ok(n) => {
                        buf.truncate(n);
                        let end = n == 0;
                        tx.send(Ok(buf)).is_ok() && !end
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => true,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        false
                    }
                };
                if !sent {
                    return;
                }
            }
        })
        .map_err(ReadError::Thread)?;
    let mut bytes = Vec::new();
    loop {
        match rx.recv_timeout(wait) {
            Ok(Ok(chunk)) if chunk.is_empty() => return Ok(bytes),
            Ok(Ok(chunk)) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() as u64 > cap {
                    return Err(ReadError::TooLarge {
                        size: None,
                        cap,
                        limit,
                    });
                }
            }
            Ok(Err(e)) => return Err(ReadError::Io(e)),
            Err(mpsc::RecvTimeoutError::Timeout) => return Err(ReadError::NoData { wait }),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(ReadError::ThreadStopped),
        }
    }
}

/// `10 s`, `300 ms`.
fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// Over the cap: `it is 2.5 MiB, over the 1 MiB limit (…)`, or, when the size is not known
/// (a stream stopped at the cap), `it is over the 1 MiB limit (…)`.
pub fn too_large(size: Option<u64>, cap: u64) -> String {
    over(size, cap, MAX_FILE_SIZE)
}

/// The limit of [`too_large`], with how to raise it.
pub const MAX_FILE_SIZE: &str = "`max_file_size` in .gpulint.toml";

fn over(size: Option<u64>, cap: u64, limit: &str) -> String {
    #[allow(clippy::cast_precision_loss)]
    let mib = |n: u64| n as f64 / f64::from(1 << 20);
    let size = size.map_or_else(String::new, |s| format!("{:.1} MiB, ", mib(s)));
    format!("it is {size}over the {:.0} MiB limit ({limit})", mib(cap))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_stop_after_the_cap() {
        let bytes = read_stream(std::io::repeat(0), 10).unwrap();
        assert_eq!(bytes.len(), 11);
        assert_eq!(
            check_cap(bytes, 10, MAX_FILE_SIZE).unwrap_err().to_string(),
            too_large(None, 10)
        );
        assert_eq!(read_stream(&b"abc"[..], 10).unwrap(), b"abc");
    }

    #[test]
    fn durations_read_plainly() {
        assert_eq!(duration(Duration::from_secs(10)), "10 s");
        assert_eq!(duration(Duration::from_millis(300)), "300 ms");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_capped() {
        let e = read_file(Path::new("/dev/zero"), 1 << 20, MAX_FILE_SIZE).unwrap_err();
        assert!(
            matches!(e, ReadError::TooLarge { size: None, cap, .. } if cap == 1 << 20),
            "{e:?}"
        );
        assert!(e.to_string().contains("over the 1 MiB limit"), "{e}");
    }

    #[test]
    fn folders_and_binary_text_say_so() {
        let dir = std::env::temp_dir();
        assert!(matches!(
            read_file(&dir, 1 << 20, MAX_FILE_SIZE),
            Err(ReadError::Folder)
        ));
        let path = dir.join(format!("gpulint-bounded-{}.bin", std::process::id()));
        std::fs::write(&path, [0xff, 0xfe, 0x00]).unwrap();
        let e = read_text(&path, 1 << 20, MAX_FILE_SIZE).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(e, ReadError::NotUtf8), "{e:?}");
        assert_eq!(e.to_string(), "it is not UTF-8 text");
    }
}
