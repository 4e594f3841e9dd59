//! Splits a text file into lines as TensorFlow's `TextLineReader` does (on `\n`, one trailing
//! `\r` removed, a last line without newline kept, an empty line is `""`), reading big blocks
//! and handing out lines as slices of them.

use std::io::Read;

use bytes::Bytes;

const BLOCK: usize = 1 << 20;

/// Lines of a byte stream, as [`Bytes`] slices of shared blocks.
pub struct Lines<R: Read> {
    inner: R,
    /// Whole lines (each ended by `\n`, except maybe the very last of the stream).
    ready: Bytes,
    pos: usize,
    /// The start of a line whose end has not been read yet.
    carry: Vec<u8>,
    eof: bool,
    /// Bytes consumed from `inner` so far (for progress).
    bytes_read: u64,
}

impl<R: Read> Lines<R> {
    /// Lines of `inner`.
    pub fn new(inner: R) -> Lines<R> {
        Lines {
            inner,
            ready: Bytes::new(),
            pos: 0,
            carry: Vec::new(),
            eof: false,
            bytes_read: 0,
        }
    }

    /// How many bytes have been read from the stream.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Reads the next block of whole lines into `ready`; false at the end of the stream.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let mut buf = Vec::with_capacity(BLOCK.max(2 * self.carry.len()));
        buf.append(&mut self.carry);
        loop {
            if buf.len() == buf.capacity() {
                buf.reserve(buf.len());
            }
            let old = buf.len();
            let cap = buf.capacity();
            buf.resize(cap, 0);
            let n = match self.inner.read(&mut buf[old..]) {
                Ok(n) => n,
                Err(e) => {
                    buf.truncate(old);
                    if e.kind() == std::io::ErrorKind::Interrupted {
                        continue;
                    }
                    return Err(e);
                }
            };
            buf.truncate(old + n);
            self.bytes_read += n as u64;
            if n == 0 {
                self.eof = true;
                if buf.is_empty() {
                    return Ok(false);
                }
                self.ready = Bytes::from(buf);
                self.pos = 0;
                return Ok(true);
            }
            if let Some(p) = memchr::memrchr(b'\n', &buf[old..]) {
                let end = old + p + 1;
                self.carry.extend_from_slice(&buf[end..]);
                buf.truncate(end);
                self.ready = Bytes::from(buf);
                self.pos = 0;
                return Ok(true);
            }
        }
    }

    /// Appends up to `max` lines to `out`; fewer only at the end of the stream.
    pub fn read_lines(&mut self, out: &mut Vec<Bytes>, max: usize) -> std::io::Result<()> {
        let mut got = 0;
        while got < max {
            if self.pos >= self.ready.len() && !self.fill()? {
                break;
            }
            let rest = &self.ready[self.pos..];
            let (len, next) = match memchr::memchr(b'\n', rest) {
                Some(i) => (i, self.pos + i + 1),
                None => (rest.len(), self.ready.len()),
            };
            let mut end = self.pos + len;
            if len > 0 && self.ready[end - 1] == b'\r' {
                end -= 1;
            }
            out.push(self.ready.slice(self.pos..end));
            self.pos = next;
            got += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader handing out at most `step` bytes per read, to cross block edges.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn all(data: &[u8], step: usize, max: usize) -> Vec<String> {
        let mut l = Lines::new(Trickle(data, step));
        let mut out = Vec::new();
        loop {
            let before = out.len();
            l.read_lines(&mut out, max).unwrap();
            if out.len() - before < max {
                break;
            }
        }
        assert_eq!(l.bytes_read(), data.len() as u64);
        out.iter()
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
            .collect()
    }

    #[test]
    fn splits_like_text_line_reader() {
        for step in [1, 2, 3, 1 << 20] {
            for max in [1, 2, 4096] {
                assert_eq!(
                    all(b"a\rb\nc\r\r\nlast\r\n", step, max),
                    ["a\rb", "c\r", "last"]
                );
                assert_eq!(all(b"\n", step, max), [""]);
                assert_eq!(all(b"\n\n", step, max), ["", ""]);
                assert_eq!(all(b"\r\n", step, max), [""]);
                assert_eq!(all(b"only\r", step, max), ["only"]);
                assert_eq!(all(b"x\ny", step, max), ["x", "y"]);
                assert!(all(b"", step, max).is_empty());
            }
        }
    }

    #[test]
    fn lines_longer_than_a_block() {
        let long = "z".repeat(3 * BLOCK + 5);
        let data = format!("a\n{long}\nb");
        assert_eq!(all(data.as_bytes(), 1 << 16, 7), ["a", long.as_str(), "b"]);
    }
}
