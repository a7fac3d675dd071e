//! Lines read in bounded chunks: the reading half of the streaming JSON Lines formats.
//!
//! Memory is bounded by the chunk limits and [`MAX_LINE`], whatever the input's size: a line
//! longer than the limit is skipped as it is read (never held whole) and reported as refused.
//! Bytes are read straight into the chunk's buffer, and a chunk handed back to
//! [`LineReader::next_chunk_in`] is refilled in place: no copy, and no fresh memory per chunk.

use std::io::{self, Read};

/// The longest line kept; longer ones are refused without being read into memory.
pub const MAX_LINE: usize = 1 << 20;

/// Bytes asked of the input per read, at most.
const READ: usize = 256 << 10;

/// Bytes asked per read for the first chunk (doubling chunk by chunk up to [`READ`]): a
/// one-line input does not make and zero a quarter megabyte (0.3 ms of a 3 ms run).
const FIRST_READ: usize = 16 << 10;

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
    /// The lines' bytes, at the ranges `lines` give (the buffer may hold other bytes
    /// between and after them: a refused line's, or a previous chunk's).
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

/// The first chunk's lines at most (the limit then doubles, chunk by chunk): a file of a
/// few lines is still split among the workers (a dozen circular grasps that each cost
/// milliseconds: chunks of 1, 2, 4, 5 lines, not 8 and 4), and a large one soon reads in
/// chunks of `max_lines`.
pub const FIRST_LINES: usize = 1;

/// Splits a byte stream into chunks of at most `max_lines` lines or about `max_bytes`
/// bytes. Blank lines are skipped (but counted), a UTF-8 byte-order mark at the start is
/// dropped, and bytes are not checked for UTF-8 here: each line's parser does that, so a
/// bad byte spoils only its own line.
pub struct LineReader<R> {
    inner: R,
    max_lines: usize,
    /// This chunk's line limit: [`FIRST_LINES`] at first, doubled each chunk up to
    /// `max_lines`, so that a small input still makes a chunk for every worker.
    limit: usize,
    max_bytes: usize,
    /// Bytes asked per read now: [`FIRST_READ`], doubled each chunk up to [`READ`].
    read: usize,
    /// Lines seen so far, blank ones included.
    number: u64,
    /// Bytes consumed from `inner` so far (for progress).
    consumed: u64,
    /// Bytes read past the last chunk's final newline: the next chunk's first.
    carry: Vec<u8>,
    done: bool,
    /// The input's length where it is known (a regular file): read that far, it is done
    /// without a read that returns nothing.
    size: Option<u64>,
}

impl<R: Read> LineReader<R> {
    /// A reader of `inner` whose chunks hold at most `max_lines` lines (at least 1; the
    /// first ones fewer, from [`FIRST_LINES`] up) or about `max_bytes` bytes.
    pub fn new(inner: R, max_lines: usize, max_bytes: usize) -> Self {
        LineReader {
            inner,
            max_lines: max_lines.max(1),
            limit: FIRST_LINES.min(max_lines.max(1)),
            max_bytes,
            read: FIRST_READ,
            number: 0,
            consumed: 0,
            carry: Vec::new(),
            done: false,
            size: None,
        }
    }

    /// The same reader, told the input's length (a regular file's, where known).
    pub fn with_size(mut self, size: Option<u64>) -> Self {
        self.size = size;
        self
    }

    /// Bytes read so far.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Whether the input has been read to its end (or to its known length) and every line
    /// of it handed out.
    pub fn finished(&self) -> bool {
        self.carry.is_empty() && (self.done || self.size == Some(self.consumed))
    }

    /// The next chunk, or `None` at the end of the input.
    pub fn next_chunk(&mut self) -> io::Result<Option<LineChunk>> {
        self.next_chunk_in(LineChunk::default())
    }

    /// The next chunk, in `chunk`'s buffers (whatever they held), or `None` at the end.
    pub fn next_chunk_in(&mut self, mut chunk: LineChunk) -> io::Result<Option<LineChunk>> {
        chunk.lines.clear();
        // `data[..filled]` holds what was read; the buffer's length beyond is spare room,
        // initialised once and kept when the chunk comes back.
        let data = &mut chunk.data;
        // Room for a whole chunk at once: grown read by read, a fresh chunk's buffer was
        // copied at every doubling (a tenth of `eval`'s time on a file of large cones).
        let mut room = self.max_bytes.saturating_add(READ);
        if let Some(size) = self.size {
            room = room.min(usize::try_from(size.saturating_add(1)).unwrap_or(usize::MAX));
        }
        if data.capacity() < room {
            data.reserve(room - data.len());
        }
        let mut filled = self.carry.len();
        if data.len() < filled {
            data.resize(filled, 0);
        }
        data[..filled].copy_from_slice(&self.carry);
        self.carry.clear();
        // The line being read starts at `start`; bytes before `scanned` hold no newline
        // past it.
        let (mut start, mut scanned, mut too_long) = (0, 0, false);
        loop {
            while let Some(at) = memchr::memchr(b'\n', &data[scanned..filled]) {
                let end = scanned + at;
                self.end_line(&mut chunk.lines, data, start, end, too_long);
                (start, scanned, too_long) = (end + 1, end + 1, false);
                if chunk.lines.len() >= self.limit || start >= self.max_bytes {
                    self.carry.extend_from_slice(&data[start..filled]);
                    self.limit = (2 * self.limit).min(self.max_lines);
                    self.read = (2 * self.read).min(READ);
                    return Ok(Some(chunk));
                }
            }
            scanned = filled;
            if !too_long && filled - start > MAX_LINE {
                too_long = true;
            }
            if too_long {
                // Its bytes so far are dropped; only the newline that ends it is looked for.
                (filled, scanned) = (start, start);
            }
            if self.done {
                break;
            }
            // No room made (and zeroed) past a regular file's known end: the last chunks
            // of a small file asked for 256 KiB each.
            let read = match self.size {
                Some(size) if size >= self.consumed => {
                    let left = usize::try_from(size - self.consumed).unwrap_or(usize::MAX);
                    self.read.min(left.max(1))
                }
                _ => self.read,
            };
            if data.len() < filled + read {
                data.resize(filled + read, 0);
            }
            let n = match self.inner.read(&mut data[filled..filled + read]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.consumed += n as u64;
            filled += n;
            self.done = n == 0;
        }
        if too_long || filled > start {
            self.end_line(&mut chunk.lines, data, start, filled, too_long);
        }
        Ok((!chunk.lines.is_empty()).then_some(chunk))
    }

    /// Records the line `data[start..end]` (its newline excluded), or drops it when blank;
    /// a line longer than [`MAX_LINE`] is recorded as refused, without its bytes.
    fn end_line(
        &mut self,
        lines: &mut Vec<LineRef>,
        data: &[u8],
        mut start: usize,
        mut end: usize,
        too_long: bool,
    ) {
        self.number += 1;
        let too_long = too_long || end - start > MAX_LINE;
        if too_long {
            end = start;
        }
        if self.number == 1 && data[start..end].starts_with(BOM) {
            start += BOM.len();
        }
        if data[start..end].ends_with(b"\r") {
            end -= 1;
        }
        if !too_long && data[start..end].iter().all(u8::is_ascii_whitespace) {
            return;
        }
        lines.push(LineRef {
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

    /// Reads `bytes` a few bytes at a time, that much into chunks handed back.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn all(input: &[u8], max_lines: usize) -> Vec<(u64, Vec<u8>, bool)> {
        let whole = all_in(input, max_lines, usize::MAX);
        for step in [1, 7, 4096] {
            assert_eq!(
                all_in(input, max_lines, step),
                whole,
                "reads of {step} bytes"
            );
        }
        whole
    }

    fn all_in(input: &[u8], max_lines: usize, step: usize) -> Vec<(u64, Vec<u8>, bool)> {
        let mut r = LineReader::new(Trickle(input, step), max_lines, 1 << 20);
        let mut out = Vec::new();
        let mut spare = LineChunk::default();
        while let Some(c) = r.next_chunk_in(std::mem::take(&mut spare)).unwrap() {
            assert!(c.lines.len() <= max_lines);
            for k in 0..c.lines.len() {
                out.push((c.lines[k].number, c.text(k).to_vec(), c.lines[k].too_long));
            }
            spare = c;
        }
        out
    }

    #[test]
    fn finished_once_every_line_is_handed_out() {
        let first = |r: &mut LineReader<&[u8]>| r.next_chunk().unwrap().map(|c| c.lines.len());
        // As many lines as the first chunk takes, the last without its newline: the end was
        // read to find where that line ends.
        let mut text = b"x\n".repeat(FIRST_LINES);
        text.pop();
        let mut r = LineReader::new(&text[..], 100, 1 << 20);
        assert!(!r.finished());
        assert_eq!(first(&mut r), Some(FIRST_LINES));
        assert!(r.finished());
        // Each line with its newline: the first chunk ends at the last newline, before the
        // end is read; told the input's length, the reader knows it is there.
        let text = b"x\n".repeat(FIRST_LINES);
        for (size, finished) in [(None, false), (Some(text.len() as u64), true)] {
            let mut r = LineReader::new(&text[..], 100, 1 << 20).with_size(size);
            assert_eq!(first(&mut r), Some(FIRST_LINES));
            assert_eq!(r.finished(), finished);
        }
        // More lines than the first chunk takes: not finished until the last is out.
        let text = b"x\n".repeat(FIRST_LINES + 1);
        let size = Some(text.len() as u64);
        let mut r = LineReader::new(&text[..], 100, 1 << 20).with_size(size);
        assert_eq!(first(&mut r), Some(FIRST_LINES));
        assert!(!r.finished());
        assert_eq!(first(&mut r), Some(1));
        assert!(r.finished());
        assert!(r.next_chunk().unwrap().is_none());
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
    fn chunks_end_at_the_line_and_byte_limits_and_refilled_chunks_forget_the_last() {
        let text: Vec<u8> = (0..1000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let mut r = LineReader::new(Trickle(&text, 333), 7, 50);
        let (mut spare, mut seen) = (LineChunk::default(), 0u64);
        while let Some(c) = r.next_chunk_in(std::mem::take(&mut spare)).unwrap() {
            assert!(c.lines.len() <= 7 && c.lines.last().unwrap().end <= 50 + 10);
            for k in 0..c.lines.len() {
                seen += 1;
                assert_eq!(c.lines[k].number, seen);
                assert_eq!(c.text(k), format!("line {}", seen - 1).as_bytes());
            }
            spare = c;
        }
        assert_eq!((seen, r.consumed()), (1000, text.len() as u64));
    }

    /// The first chunks are small and double (a short file still feeds every worker),
    /// up to the limit, which the rest keep.
    #[test]
    fn chunks_start_small_and_double_up_to_the_limit() {
        let text: Vec<u8> = (0..2000)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let mut r = LineReader::new(&text[..], 100, 1 << 20);
        let mut sizes = Vec::new();
        let mut buffers = Vec::new();
        while let Some(c) = r.next_chunk().unwrap() {
            sizes.push(c.lines.len());
            buffers.push(c.data.len());
        }
        // The reads (and a fresh chunk's buffer) start small and double too.
        assert_eq!(buffers[0], FIRST_READ);
        assert_eq!(r.read, READ.min(FIRST_READ << sizes.len()));
        let mut want = vec![FIRST_LINES];
        while want.iter().sum::<usize>() < 2000 {
            let next = (2 * want.last().unwrap()).min(100);
            want.push(next.min(2000 - want.iter().sum::<usize>()));
        }
        assert_eq!(sizes, want);
        assert!(FIRST_LINES < 100 && sizes[sizes.len() - 2] == 100);
    }

    /// Told a regular file's length, the reader makes no room past its end (a fresh
    /// chunk's buffer is zeroed as it grows); a length that is wrong either way loses no line.
    #[test]
    fn no_room_is_made_past_a_known_end_and_a_wrong_length_loses_nothing() {
        let text: Vec<u8> = (0..3000)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let n = text.len() as u64;
        for size in [Some(n), Some(n / 3), Some(1), Some(0), Some(2 * n), None] {
            let mut r = LineReader::new(&text[..], 100, 1 << 20).with_size(size);
            let (mut lines, mut largest) = (0, 0);
            while let Some(c) = r.next_chunk().unwrap() {
                lines += c.lines.len();
                largest = largest.max(c.data.len());
            }
            assert_eq!((lines, r.consumed()), (3000, n), "told {size:?}");
            if size == Some(n) {
                assert!(largest as u64 <= n, "a buffer of {largest} for {n} bytes");
            }
        }
    }

    #[test]
    fn a_bom_later_is_kept() {
        assert_eq!(
            all(b"a\n\xEF\xBB\xBFb\n", 9)[1].1,
            b"\xEF\xBB\xBFb".to_vec()
        );
    }
}
