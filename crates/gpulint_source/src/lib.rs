//! gpulint_source: the files a run reads and the offsets into them.
//!
//! Every span inside gpulint is a byte range into a file's text. This crate is the one
//! place that turns bytes into lines and columns (1-based, columns in Unicode code points,
//! as SARIF's `unicodeCodePoints`), so no other stage counts characters. It also holds the
//! limits that bound hostile input ([`limits`]), bounded reads of what the user names
//! ([`bounded`]), the names files are shown by ([`names`]) and the escaping of text on its
//! way to a terminal or a CI log ([`escape`]).
//!
//! May use: no other gpulint crate (it is the bottom of the pipeline).

pub mod bounded;
pub mod escape;
pub mod limits;
pub mod names;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Index of a file in a [`SourceDb`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// What a file holds, decided from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A Terraform `.tf` file.
    Terraform,
    /// A Terraform variables file (`.tfvars`).
    TfVars,
    /// A YAML file (Kubernetes manifests).
    Yaml,
    /// Terraform plan JSON (`terraform show -json`): any other `.json`, read only when
    /// named.
    Plan,
    /// A file a Terraform `file()` or `templatefile()` call reads (a VM's start-up
    /// script), held as text for what the machine runs: never parsed or linted on its own.
    Script,
}

impl FileKind {
    /// The kind of a file from its name, or `None` when gpulint does not read it.
    pub fn from_path(path: &Path) -> Option<Self> {
        // Only the ASCII extension matters: a name that is not UTF-8 still has one.
        let lower = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        let ext = lower.rsplit_once('.')?.1;
        match ext {
            "tf" => Some(FileKind::Terraform),
            "tfvars" => Some(FileKind::TfVars),
            "yaml" | "yml" => Some(FileKind::Yaml),
            "json" if lower.ends_with(".tf.json") => Some(FileKind::Terraform),
            "json" if lower.ends_with(".tfvars.json") => Some(FileKind::TfVars),
            "json" => Some(FileKind::Plan),
            _ => None,
        }
    }
}

/// One file's text, with a line index built once and shared by every finding in it.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as shown to users: relative to the working directory where possible.
    pub name: String,
    /// Where the file is read from ([`path`](Self::path)).
    read_from: ReadFrom,
    pub kind: FileKind,
    /// The text, BOM removed. For a file that is not UTF-8 this is a lossy copy, so that
    /// its finding can still show a line. Empty while [`unloaded`](Self::unload).
    text: Arc<str>,
    /// The length of the text, unloaded or not.
    len: usize,
    /// The file as it was when read (for a file read from disk), so that it can be let go
    /// of and read again for its findings.
    pub stamp: Option<Stamp>,
    /// Whether the user asked for this file (named or found in a named folder). Files read
    /// only as context, such as the other `.tf` files of a named file's module, are linted
    /// but their findings are not reported.
    pub requested: bool,
    /// The line index, while the text is here (`None` once [`unloaded`](Self::unload)):
    /// boxed, so that the record of a file let go of stays small.
    index: Option<Box<LineIndex>>,
}

/// Where a file is read from. Most files are read from the path they are shown as: that
/// path is then not held twice.
#[derive(Debug)]
enum ReadFrom {
    Stdin,
    Name,
    Path(PathBuf),
}

/// Where lines and chars are in a text.
#[derive(Debug, Default)]
struct LineIndex {
    /// Where each line starts. A line ends at `\n`, `\r\n` or a lone `\r` (old Mac
    /// files), as YAML reads them.
    line_starts: Vec<usize>,
    ascii: bool,
    /// For text that is not ASCII: `(byte, chars before it)` at the first char boundary
    /// at or after every [`CHECKPOINT`] bytes, so converting between bytes and chars walks
    /// at most one stretch, however long the line.
    checkpoints: Vec<(usize, usize)>,
}

/// The index of an unloaded file: no lines, every offset on the first.
static NO_INDEX: LineIndex = LineIndex {
    line_starts: Vec::new(),
    ascii: true,
    checkpoints: Vec::new(),
};

/// The text of every unloaded file: one allocation for all.
fn empty() -> Arc<str> {
    static EMPTY: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    Arc::clone(EMPTY.get_or_init(|| Arc::from("")))
}

/// A file as read from disk: its size and modification time, to tell whether it changed
/// before it is read again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub bytes: u64,
    pub modified: Option<std::time::SystemTime>,
}

/// Bytes between two char-count checkpoints.
const CHECKPOINT: usize = 1024;

impl SourceFile {
    pub fn new(
        name: String,
        path: Option<PathBuf>,
        kind: FileKind,
        text: Arc<str>,
        requested: bool,
    ) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        // Most files end their lines with `\n` alone: memchr finds those at memory speed.
        if memchr::memchr(b'\r', bytes).is_none() {
            line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        } else {
            line_starts.extend(
                bytes
                    .iter()
                    .enumerate()
                    .filter(|&(i, b)| {
                        *b == b'\n' || (*b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
                    })
                    .map(|(i, _)| i + 1),
            );
        }
        let ascii = text.is_ascii();
        let mut checkpoints = Vec::new();
        if !ascii {
            // `(byte, chars before it)` at the first char boundary at or after each
            // `CHECKPOINT` bytes; `chars().count()` counts a stretch without decoding it.
            let (mut at, mut chars) = (0, 0);
            while at < text.len() {
                checkpoints.push((at, chars));
                let mut next = (at + CHECKPOINT).min(text.len());
                while !text.is_char_boundary(next) {
                    next += 1;
                }
                chars += text[at..next].chars().count();
                at = next;
            }
            checkpoints.push((text.len(), chars));
        }
        let read_from = match path {
            None => ReadFrom::Stdin,
            Some(p) if p.as_os_str() == name.as_str() => ReadFrom::Name,
            Some(p) => ReadFrom::Path(p),
        };
        SourceFile {
            name,
            read_from,
            kind,
            len: text.len(),
            text,
            stamp: None,
            requested,
            index: Some(Box::new(LineIndex {
                line_starts,
                ascii,
                checkpoints,
            })),
        }
    }

    /// The path to read the file from (`None` for stdin).
    pub fn path(&self) -> Option<&Path> {
        match &self.read_from {
            ReadFrom::Stdin => None,
            ReadFrom::Name => Some(Path::new(&self.name)),
            ReadFrom::Path(p) => Some(p),
        }
    }

    fn ix(&self) -> &LineIndex {
        self.index.as_deref().unwrap_or(&NO_INDEX)
    }

    /// The text. Reading it after [`unload`](Self::unload) and before
    /// [`restore`](Self::restore) is a bug in gpulint.
    pub fn text(&self) -> &str {
        debug_assert!(self.is_loaded(), "`{}` read while unloaded", self.name);
        &self.text
    }

    /// The text's length in bytes, loaded or not.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the text is here: a file let go of by [`unload`](Self::unload) is not.
    pub fn is_loaded(&self) -> bool {
        self.index.is_some()
    }

    /// Lets go of the text and its line index, keeping the name, the length and the
    /// [`stamp`](Self::stamp): a large run holds only what its findings need, and reads a
    /// file again ([`restore`](Self::restore)) when one lands in it. A file with no stamp
    /// (stdin, a `--var-file`) cannot be read again and is kept.
    pub fn unload(&mut self) {
        if self.stamp.is_none() {
            return;
        }
        self.text = empty();
        self.index = None;
    }

    /// Puts back the text of an unloaded file, read again, as [`SourceFile::new`] would
    /// have it. A text of another length is refused: the file changed since it was read.
    pub fn restore(&mut self, text: Arc<str>) -> Result<(), String> {
        if text.len() != self.len {
            return Err(format!("`{}` changed while gpulint read it", self.name));
        }
        let fresh = SourceFile::new(String::new(), None, self.kind, text, self.requested);
        self.text = fresh.text;
        self.index = fresh.index;
        Ok(())
    }

    /// Chars before byte `byte` (a char boundary).
    fn chars_before(&self, byte: usize) -> usize {
        if self.ix().ascii {
            return byte;
        }
        let i = self.ix().checkpoints.partition_point(|&(b, _)| b <= byte) - 1;
        let (from, chars) = self.ix().checkpoints[i];
        chars + self.text[from..byte].chars().count()
    }

    /// Byte offset of the char with index `index` (the text's length past the end), as
    /// YAML markers count them.
    pub fn byte_of_char(&self, index: usize) -> usize {
        if self.ix().ascii {
            return index.min(self.text.len());
        }
        let i = self.ix().checkpoints.partition_point(|&(_, c)| c <= index) - 1;
        let (from, chars) = self.ix().checkpoints[i];
        self.text[from..]
            .char_indices()
            .nth(index - chars)
            .map_or(self.text.len(), |(b, _)| from + b)
    }

    /// 0-based line index of a byte offset.
    pub fn line_index(&self, byte: usize) -> usize {
        // An unloaded file has no line index: everything is on its first line.
        match self.ix().line_starts.binary_search(&byte) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Byte offset where a 0-based line starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.ix()
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// Byte offset just past the end of a 0-based line, including its newline.
    pub fn line_end(&self, line: usize) -> usize {
        self.ix()
            .line_starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len())
    }

    pub fn line_count(&self) -> usize {
        self.ix().line_starts.len()
    }

    /// 1-based line and column (in code points) of a byte offset.
    pub fn line_col(&self, byte: usize) -> (usize, usize) {
        let byte = self.floor_char_boundary(byte.min(self.text.len()));
        let line = self.line_index(byte);
        let start = self.line_start(line);
        let col = self.chars_before(byte) - self.chars_before(start);
        (line + 1, col + 1)
    }

    /// Byte offset of a 0-based line and 0-based column counted in chars, as YAML markers
    /// give them. Columns past the end of the line clamp to the line's end.
    pub fn byte_of_line_char(&self, line: usize, col: usize) -> usize {
        let start = self.line_start(line);
        let end = self.line_end(line);
        self.byte_of_char(self.chars_before(start) + col).min(end)
    }

    fn floor_char_boundary(&self, mut byte: usize) -> usize {
        while !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        byte
    }

    /// Start and end (exclusive) positions of a span as 1-based line and column.
    pub fn region(&self, span: &Range<usize>) -> Region {
        debug_assert!(self.is_loaded(), "`{}` located while unloaded", self.name);
        let (start_line, start_column) = self.line_col(span.start);
        let (end_line, end_column) = self.line_col(span.end.max(span.start));
        Region {
            start_line,
            start_column,
            end_line,
            end_column,
        }
    }
}

/// A span as lines and columns, 1-based; the end is exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub start_line: usize,
    pub start_column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// All files of one run, addressed by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceDb {
    files: Vec<SourceFile>,
}

impl SourceDb {
    pub fn with_capacity(files: usize) -> Self {
        SourceDb {
            files: Vec::with_capacity(files),
        }
    }

    pub fn add(&mut self, file: SourceFile) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).expect("fewer than 4 billion files"));
        self.files.push(file);
        id
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn get_mut(&mut self, id: FileId) -> &mut SourceFile {
        &mut self.files[id.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> SourceFile {
        SourceFile::new("t".into(), None, FileKind::Yaml, text.into(), true)
    }

    #[test]
    fn line_col_counts_code_points_not_bytes() {
        let f = file("# ünï\nname: x\n  é: 2\n");
        assert_eq!(f.line_col(0), (1, 1));
        let b = f.text.find("name").unwrap();
        assert_eq!(f.line_col(b), (2, 1));
        let two = f.text.find('2').unwrap();
        assert_eq!(f.line_col(two), (3, 6));
    }

    #[test]
    fn end_of_file_and_past_end_are_clamped() {
        let f = file("a\nbc");
        assert_eq!(f.line_col(4), (2, 3));
        assert_eq!(f.line_col(99), (2, 3));
    }

    #[test]
    fn char_columns_convert_to_bytes() {
        let f = file("ü: é\nx: 1\n");
        assert_eq!(f.byte_of_line_char(0, 3), "ü: ".len());
        assert_eq!(f.byte_of_line_char(1, 3), f.text.find('1').unwrap());
        // A column past the line end clamps to the end of the line.
        assert_eq!(f.byte_of_line_char(1, 40), f.text.len());
    }

    #[test]
    fn lines_end_at_lf_crlf_or_a_lone_cr() {
        let f = file("a: 1\rb: 2\r\nc: 3\nd: 4");
        assert_eq!(f.line_col(f.text.find('b').unwrap()), (2, 1));
        assert_eq!(f.line_col(f.text.find('c').unwrap()), (3, 1));
        assert_eq!(f.line_col(f.text.find('d').unwrap()), (4, 1));
        assert_eq!(f.line_count(), 4);
    }

    #[test]
    fn long_non_ascii_lines_convert_both_ways() {
        let text = "é".repeat(5000) + "x: ü" + &"ö".repeat(3000) + "\nz";
        let f = file(&text);
        let x = text.find('x').unwrap();
        assert_eq!(f.line_col(x), (1, 5001));
        assert_eq!(f.byte_of_line_char(0, 5000), x);
        assert_eq!(f.byte_of_char(5000), x);
        assert_eq!(f.byte_of_line_char(1, 0), text.len() - 1);
        assert_eq!(f.byte_of_char(usize::MAX / 2), text.len());
        for (i, (b, _)) in text.char_indices().enumerate().step_by(97) {
            assert_eq!(f.byte_of_char(i), b);
            assert_eq!(f.chars_before(b), i);
        }
    }

    #[test]
    fn region_end_is_exclusive() {
        let f = file("resource \"a\" \"b\" {\n}\n");
        let r = f.region(&(0..20));
        assert_eq!(
            (r.start_line, r.start_column, r.end_line, r.end_column),
            (1, 1, 2, 2)
        );
    }
}
