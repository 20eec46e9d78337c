//! A schema file's text and the one place byte offsets become line/column positions.

use std::ops::Range;
use std::path::{Path, PathBuf};

use line_index::{LineCol, LineIndex, TextSize, WideEncoding};

/// Larger files are refused (counted while reading): positions are 32-bit (as in LSP) and no real
/// schema comes near this.
pub const MAX_SOURCE_BYTES: usize = 256 * 1024 * 1024;

/// The one error type for a problem with a file (reading, settings, checking,
/// generating, writing); rendered as `file:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub path: PathBuf,
    /// 1-based line and column (characters), when the problem is inside a file.
    pub line_col: Option<(usize, usize)>,
    /// A short machine-readable kind (`file-read`, `file-encoding`, `config`, …).
    pub code: &'static str,
    pub message: String,
}

impl FileError {
    pub fn new(path: impl Into<PathBuf>, code: &'static str, message: impl Into<String>) -> FileError {
        FileError {
            path: path.into(),
            line_col: None,
            code,
            message: message.into(),
        }
    }

    pub fn io(path: &Path, what: &str, e: &std::io::Error) -> FileError {
        FileError::new(path, "file-io", format!("{what}: {e}"))
    }
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line_col {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for FileError {}

// Lets `?` turn one problem into the list generation reports.
impl From<FileError> for Vec<FileError> {
    fn from(e: FileError) -> Vec<FileError> {
        vec![e]
    }
}

/// How columns are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnUnit {
    Utf8,
    Utf16,
    /// Unicode scalar values ("characters"): the CLI's unit (spec §10).
    Utf32,
}

/// A zero-based line and column in some [`ColumnUnit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

pub struct SourceFile {
    /// The path as the user gave it; used verbatim in messages.
    pub path: PathBuf,
    pub text: String,
    index: LineIndex,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, text: impl Into<String>) -> SourceFile {
        let text: String = text.into();
        // LSP ends lines at `\n`, `\r\n` and a lone `\r`; `line-index` knows only `\n`.
        // A lone `\r` is one byte like `\n`, so indexing a copy with those replaced
        // keeps every byte offset.
        // `contains` (memchr) first: scanning byte by byte cost ~6 M instructions per
        // keystroke on a 1 MB schema, which almost never has a `\r` at all.
        let lone_cr = |t: &str| {
            t.contains('\r')
                && t.bytes()
                    .enumerate()
                    .any(|(i, b)| b == b'\r' && t.as_bytes().get(i + 1) != Some(&b'\n'))
        };
        let index = if lone_cr(&text) {
            let bytes = text.as_bytes();
            let normalized: String = text
                .char_indices()
                .map(|(i, c)| {
                    if c == '\r' && bytes.get(i + 1) != Some(&b'\n') {
                        '\n'
                    } else {
                        c
                    }
                })
                .collect();
            LineIndex::new(&normalized)
        } else {
            LineIndex::new(&text)
        };
        SourceFile {
            path: path.into(),
            text,
            index,
        }
    }

    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<SourceFile, FileError> {
        if bytes.len() > MAX_SOURCE_BYTES {
            return Err(FileError::new(
                path,
                "file-read",
                format!("file is larger than the limit of {MAX_SOURCE_BYTES} bytes"),
            ));
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(path, text)),
            Err(err) => {
                let bytes = err.as_bytes();
                let bad = err.utf8_error().valid_up_to();
                let valid = String::from_utf8_lossy(&bytes[..bad]);
                let line = valid.matches('\n').count();
                let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count());
                Err(FileError {
                    path: path.to_path_buf(),
                    line_col: Some((line + 1, column + 1)),
                    code: "file-encoding",
                    message: format!("file is not valid UTF-8 (byte 0x{:02x} at offset {bad})", bytes[bad]),
                })
            }
        }
    }

    /// Zero-based position of a byte offset. Offsets inside a character or past the end
    /// are clamped to the nearest valid position before them.
    pub fn position(&self, offset: usize, unit: ColumnUnit) -> Position {
        let mut offset = self.floor_char_boundary(offset);
        // Between the `\r` and `\n` of one line break is no position: the end of the line.
        if offset > 0 && self.text.as_bytes()[offset - 1] == b'\r' && self.text.as_bytes().get(offset) == Some(&b'\n') {
            offset -= 1;
        }
        let lc = self.index.line_col(TextSize::from(offset as u32));
        let column = match unit {
            ColumnUnit::Utf8 => lc.col,
            ColumnUnit::Utf16 => self.index.to_wide(WideEncoding::Utf16, lc).map_or(lc.col, |w| w.col),
            ColumnUnit::Utf32 => self.index.to_wide(WideEncoding::Utf32, lc).map_or(lc.col, |w| w.col),
        };
        Position { line: lc.line, column }
    }

    /// Byte offset of a position. Lines past the end map to the end of the text; columns
    /// past the end of a line map to the end of that line (as LSP requires).
    pub fn offset(&self, pos: Position, unit: ColumnUnit) -> usize {
        let Some(line_range) = self.index.line(pos.line) else {
            return self.text.len();
        };
        let line_start = usize::from(line_range.start());
        let mut line_end = usize::from(line_range.end());
        // `line()` includes the terminator; a column can address at most up to it.
        let line_text = &self.text[line_start..line_end];
        line_end -= line_text.len() - line_text.trim_end_matches(['\n', '\r']).len();
        let col = match unit {
            ColumnUnit::Utf8 => Some(LineCol {
                line: pos.line,
                col: pos.column,
            }),
            ColumnUnit::Utf16 => self.index.to_utf8(
                WideEncoding::Utf16,
                line_index::WideLineCol {
                    line: pos.line,
                    col: pos.column,
                },
            ),
            ColumnUnit::Utf32 => self.index.to_utf8(
                WideEncoding::Utf32,
                line_index::WideLineCol {
                    line: pos.line,
                    col: pos.column,
                },
            ),
        };
        let offset = col
            .map_or(line_end, |lc| line_start.saturating_add(lc.col as usize))
            .min(line_end);
        self.floor_char_boundary(offset)
    }

    pub fn range_positions(&self, range: &Range<usize>, unit: ColumnUnit) -> (Position, Position) {
        (self.position(range.start, unit), self.position(range.end, unit))
    }

    /// The text of a zero-based line, without its line terminator.
    pub fn line_text(&self, line: u32) -> &str {
        self.index.line(line).map_or("", |r| {
            self.text[usize::from(r.start())..usize::from(r.end())].trim_end_matches(['\n', '\r'])
        })
    }

    pub fn line_count(&self) -> u32 {
        self.position(self.text.len(), ColumnUnit::Utf8).line + 1
    }

    fn floor_char_boundary(&self, offset: usize) -> usize {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_units_after_non_ascii() {
        // "é" is 2 bytes / 1 UTF-16 unit; "𝄞" is 4 bytes / 2 UTF-16 units / 1 char.
        let src = SourceFile::new("t.sdp", "// é𝄞\nstruct Aé𝄞 { x: u8 }\n");
        let off = src.text.find("{").unwrap();
        assert_eq!(src.position(off, ColumnUnit::Utf8), Position { line: 1, column: 15 });
        assert_eq!(src.position(off, ColumnUnit::Utf16), Position { line: 1, column: 12 });
        assert_eq!(src.position(off, ColumnUnit::Utf32), Position { line: 1, column: 11 });
        for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Utf32] {
            assert_eq!(src.offset(src.position(off, unit), unit), off);
        }
    }

    #[test]
    fn every_lsp_line_break_counts_and_no_position_falls_inside_crlf() {
        let src = SourceFile::new("t.sdp", "a\r\nb\rc\nd");
        let at = |line, column| Position { line, column };
        // `\r\n`: the offset between `\r` and `\n` is the end of line 0, not column 2.
        assert_eq!(src.position(1, ColumnUnit::Utf16), at(0, 1));
        assert_eq!(src.position(2, ColumnUnit::Utf16), at(0, 1));
        assert_eq!(src.position(3, ColumnUnit::Utf16), at(1, 0));
        // A lone `\r` ends a line.
        assert_eq!(src.position(5, ColumnUnit::Utf16), at(2, 0));
        assert_eq!(src.offset(at(2, 0), ColumnUnit::Utf16), 5);
        assert_eq!(src.offset(at(1, 9), ColumnUnit::Utf16), 4);
        assert_eq!(src.line_text(1), "b");
        assert_eq!(src.line_count(), 4);
    }

    #[test]
    fn out_of_range_positions_clamp() {
        let src = SourceFile::new("t.sdp", "ab\r\ncd");
        assert_eq!(src.offset(Position { line: 0, column: 99 }, ColumnUnit::Utf16), 2);
        assert_eq!(src.offset(Position { line: 7, column: 0 }, ColumnUnit::Utf16), 6);
        assert_eq!(src.position(999, ColumnUnit::Utf32), Position { line: 1, column: 2 });
        assert_eq!(src.line_text(0), "ab");
    }

    #[test]
    fn invalid_utf8_points_at_the_byte() {
        let err = SourceFile::from_bytes(Path::new("x.sdp"), b"struct A {\n  \xe9: u8 }".to_vec())
            .err()
            .unwrap();
        assert_eq!(err.line_col, Some((2, 3)));
        assert!(
            err.to_string().starts_with("x.sdp:2:3: file is not valid UTF-8"),
            "{err}"
        );
    }
}
