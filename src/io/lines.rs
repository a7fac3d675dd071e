//! Lines read in bounded chunks: the reading half of the streaming JSON Lines formats.
//!
//! Memory is bounded by the chunk limits and [`MAX_LINE`], whatever the input's size: a line
//! longer than the limit is skipped as it is read (never held whole) and reported as refused.

use std::io::{self, BufRead};

/// The longest line kept; longer ones are refused without being read into memory.
pub const MAX_LINE: usize = 1 << 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One non-blank input line within a [`LineChunk`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRef {
    /// 1-based line number in the input.
    pub number: u64,
    /// Byte range in [`LineChunk::data`] (empty when `too_long`).
    pub start: usize,
    /// End of the byte range (exclusive).
    pub end: usize,
    /// Longer than [`MAX_LINE`]: refused, its bytes dropped.
    pub too_long: bool,
}

/// Consecutive lines of the input: their bytes and where each one lies.
#[derive(Debug, Default)]
pub struct LineChunk {
    /// The lines' bytes, back to back.
    pub data: Vec<u8>,
    /// The non-blank lines, in input order.
    pub lines: Vec<LineRef>,
}

impl LineChunk {
    /// The bytes of line `k` of the chunk (without its newline or a trailing `\r`).
    pub fn text(&self, k: usize) -> &[u8] {
        let l = &self.lines[k];
        &self.data[l.start..l.end]
    }
}

/// Splits a byte stream into chunks of at most `max_lines` lines or about `max_bytes`
/// bytes. Blank lines are skipped (but counted), a UTF-8 byte-order mark at the start is
/// dropped, and bytes are not checked for UTF-8 here: each line's parser does that, so a
/// bad byte spoils only its own line.
pub struct LineReader<R> {
    inner: R,
    max_lines: usize,
    max_bytes: usize,
    /// Lines seen so far, blank ones included.
    number: u64,
    /// Bytes consumed from `inner` so far (for progress).
    consumed: u64,
    done: bool,
}

impl<R: BufRead> LineReader<R> {
    /// A reader of `inner` whose chunks hold at most `max_lines` lines (at least 1) or about
    /// `max_bytes` bytes.
    pub fn new(inner: R, max_lines: usize, max_bytes: usize) -> Self {
        LineReader {
            inner,
            max_lines: max_lines.max(1),
            max_bytes,
            number: 0,
            consumed: 0,
            done: false,
        }
    }

    /// Bytes read so far.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The next chunk, or `None` at the end of the input.
    pub fn next_chunk(&mut self) -> io::Result<Option<LineChunk>> {
        let mut chunk = LineChunk::default();
        if self.done {
            return Ok(None);
        }
        // The line being read: where it starts in `chunk.data`, and whether it overflowed.
        let mut start = 0;
        let mut too_long = false;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                self.done = true;
                if too_long || chunk.data.len() > start {
                    self.end_line(&mut chunk, start, too_long);
                }
                break;
            }
            let (take, newline) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            if !too_long {
                if chunk.data.len() - start + take > MAX_LINE {
                    too_long = true;
                    chunk.data.truncate(start);
                } else {
                    chunk.data.extend_from_slice(&buf[..take]);
                }
            }
            let used = take + usize::from(newline);
            self.inner.consume(used);
            self.consumed += used as u64;
            if newline {
                self.end_line(&mut chunk, start, too_long);
                start = chunk.data.len();
                too_long = false;
                if chunk.lines.len() >= self.max_lines || chunk.data.len() >= self.max_bytes {
                    break;
                }
            }
        }
        Ok((!chunk.lines.is_empty()).then_some(chunk))
    }

    /// Records the line that ends here (its bytes are `chunk.data[start..]`), or drops it
    /// when blank.
    fn end_line(&mut self, chunk: &mut LineChunk, mut start: usize, too_long: bool) {
        self.number += 1;
        if self.number == 1 && chunk.data[start..].starts_with(BOM) {
            start += BOM.len();
        }
        let mut end = chunk.data.len();
        if chunk.data[start..end].ends_with(b"\r") {
            end -= 1;
        }
        if !too_long && chunk.data[start..end].iter().all(u8::is_ascii_whitespace) {
            chunk.data.truncate(start);
            return;
        }
        chunk.lines.push(LineRef {
            number: self.number,
            start,
            end,
            too_long,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], max_lines: usize) -> Vec<(u64, Vec<u8>, bool)> {
        let mut r = LineReader::new(io::BufReader::with_capacity(7, input), max_lines, 1 << 20);
        let mut out = Vec::new();
        while let Some(c) = r.next_chunk().unwrap() {
            assert!(c.lines.len() <= max_lines);
            for k in 0..c.lines.len() {
                out.push((c.lines[k].number, c.text(k).to_vec(), c.lines[k].too_long));
            }
        }
        out
    }

    #[test]
    fn numbers_lines_skips_blank_ones_and_the_bom() {
        let got = all(b"\xEF\xBB\xBFone\n\n  \r\ntwo\r\nthree", 2);
        let want: Vec<(u64, Vec<u8>, bool)> = vec![
            (1, b"one".to_vec(), false),
            (4, b"two".to_vec(), false),
            (5, b"three".to_vec(), false),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn refuses_a_long_line_without_keeping_it() {
        let mut input = b"a\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 5));
        input.extend(b"\nb\n");
        let got = all(&input, 100);
        assert_eq!(got.len(), 3);
        assert_eq!(got[1], (2, Vec::new(), true));
        assert_eq!(got[2], (3, b"b".to_vec(), false));
        // Exactly the limit is still kept.
        let mut input = vec![b'y'; MAX_LINE];
        input.push(b'\n');
        assert!(!all(&input, 1)[0].2);
    }

    #[test]
    fn a_bom_later_is_kept() {
        assert_eq!(
            all(b"a\n\xEF\xBB\xBFb\n", 9)[1].1,
            b"\xEF\xBB\xBFb".to_vec()
        );
    }
}
