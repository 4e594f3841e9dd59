//! CRC checks of TFRecord framing on the read-ahead thread, while the chunk it just read is in
//! its cache.
//!
//! Why: in `mnist_bytes_batched` the CRC32C of every record was about a seventh of the time of
//! the queue-runner thread that every example waits for, while the read-ahead thread's core had
//! time to spare. The read-ahead thread walks the framing from the start of the file and
//! reports, with each chunk, the span of whole records in it whose two CRCs matched; the reader
//! skips its own checks only for a record that starts exactly where such a span starts (see
//! `ChunkedInput::take_prechecked`). Everything else, damage above all, is still checked by the
//! reader, so its errors, their offsets and the records before them do not change: the walk
//! stops at the first record that does not check out and leaves the rest to the reader.

use std::ops::Range;

use crate::io::crc::masked_crc32c;

use super::reader::{FOOTER_LEN, HEADER_LEN};

/// The walk over one file's framing, chunk by chunk in file order.
#[derive(Debug, Default)]
pub(crate) struct FramingCheck {
    /// The file offset where the next record starts.
    next: u64,
    /// The bytes read so far of a header that straddles two chunks.
    header: Vec<u8>,
    /// Set at the first record that did not check out: nothing after it is vouched for.
    stopped: bool,
}

impl FramingCheck {
    /// Checks the whole records in `data`, the file's bytes from `offset` on (chunks come in
    /// order, without gaps), and returns the file offsets they span (empty if none).
    pub(crate) fn chunk(&mut self, offset: u64, data: &[u8]) -> Range<u64> {
        let end = offset + data.len() as u64;
        if self.stopped || self.next >= end {
            return 0..0;
        }
        if !self.header.is_empty() {
            // The rest of a straddling header is at the start of this chunk.
            let need = HEADER_LEN - self.header.len();
            let take = need.min(data.len());
            self.header.extend_from_slice(&data[..take]);
            if self.header.len() < HEADER_LEN {
                return 0..0;
            }
            let header = std::mem::take(&mut self.header);
            match record_len(&header) {
                Some(len) => self.next = self.next.saturating_add(record_total(len)),
                None => {
                    self.stopped = true;
                    return 0..0;
                }
            }
            if self.next >= end {
                return 0..0;
            }
        }
        // `next` is in this chunk now: a straddling record ends here or later.
        let mut at = (self.next - offset) as usize;
        let first = self.next;
        while !self.stopped {
            let rest = &data[at..];
            if rest.len() < HEADER_LEN {
                self.header = rest.to_vec();
                break;
            }
            let Some(len) = record_len(&rest[..HEADER_LEN]) else {
                self.stopped = true;
                break;
            };
            let total = record_total(len);
            if total > rest.len() as u64 {
                // It straddles: the reader checks it; the walk goes on after it.
                self.next = self.next.saturating_add(total);
                return first..(offset + at as u64);
            }
            let total = total as usize;
            let body = &rest[HEADER_LEN..total - FOOTER_LEN];
            let stored = u32::from_le_bytes(rest[total - FOOTER_LEN..total].try_into().expect("4"));
            if masked_crc32c(body) != stored {
                self.stopped = true;
                break;
            }
            at += total;
            self.next += total as u64;
        }
        first..(offset + at as u64)
    }
}

/// The data length a header gives, if its length CRC matches.
fn record_len(header: &[u8]) -> Option<u64> {
    let len_bytes: [u8; 8] = header[..8].try_into().expect("8 bytes");
    let stored = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    (masked_crc32c(&len_bytes) == stored).then(|| u64::from_le_bytes(len_bytes))
}

/// A record's bytes with its framing (saturating: a huge length only has to be past the end).
fn record_total(len: u64) -> u64 {
    len.saturating_add((HEADER_LEN + FOOTER_LEN) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{Compression, RecordWriter};

    fn framed(records: &[Vec<u8>]) -> Vec<u8> {
        let mut w = RecordWriter::new(Vec::new(), Compression::None).unwrap();
        for r in records {
            w.write(r).unwrap();
        }
        w.into_inner().unwrap()
    }

    /// Where each record starts in the file of `records`.
    fn starts(records: &[Vec<u8>]) -> Vec<u64> {
        let mut at = 0u64;
        records
            .iter()
            .map(|r| {
                let s = at;
                at += (r.len() + HEADER_LEN + FOOTER_LEN) as u64;
                s
            })
            .collect()
    }

    /// Walks `file` in chunks of `chunk` bytes: the spans reported.
    fn walk(file: &[u8], chunk: usize) -> Vec<Range<u64>> {
        let mut c = FramingCheck::default();
        file.chunks(chunk)
            .enumerate()
            .map(|(i, d)| c.chunk((i * chunk) as u64, d))
            .collect()
    }

    /// Every span starts and ends on a record boundary, lies in its chunk, and every record
    /// wholly inside a chunk is covered, whatever the chunk size.
    #[test]
    fn spans_are_the_whole_records_of_each_chunk() {
        let records: Vec<Vec<u8>> = (0..60usize)
            .map(|i| vec![i as u8; (i * 37) % 200])
            .collect();
        let file = framed(&records);
        let starts = starts(&records);
        let mut bounds = starts.clone();
        bounds.push(file.len() as u64);
        for chunk in [1usize, 5, 12, 13, 16, 64, 100, 257, 1000, file.len()] {
            let spans = walk(&file, chunk);
            for (i, s) in spans.iter().enumerate() {
                let (lo, hi) = ((i * chunk) as u64, ((i + 1) * chunk).min(file.len()) as u64);
                if s.is_empty() {
                    continue;
                }
                assert!(
                    lo <= s.start && s.end <= hi,
                    "chunk {chunk}: {s:?} outside {lo}..{hi}"
                );
                assert!(bounds.contains(&s.start) && bounds.contains(&s.end));
            }
            for w in bounds.windows(2) {
                let (lo, hi) = (w[0], w[1]);
                let c = lo as usize / chunk;
                if (hi as usize - 1) / chunk == c {
                    assert!(
                        spans[c].start <= lo && hi <= spans[c].end,
                        "chunk {chunk}: record {lo}..{hi} not covered by {:?}",
                        spans[c]
                    );
                }
            }
        }
    }

    /// A damaged record is never vouched for, and in one chunk the walk stops at it.
    #[test]
    fn damage_is_left_to_the_reader() {
        let records: Vec<Vec<u8>> = (0..20usize).map(|i| vec![i as u8; 50]).collect();
        let starts = starts(&records);
        let (lo, hi) = (starts[7], starts[8]);
        for (what, at) in [("length", lo + 3), ("data", lo + 20)] {
            let mut file = framed(&records);
            file[at as usize] ^= 1;
            for chunk in [16usize, 100, 150, file.len()] {
                let spans = walk(&file, chunk);
                assert!(
                    spans
                        .iter()
                        .all(|s| s.is_empty() || hi <= s.start || s.end <= lo),
                    "{what} damage, chunk {chunk}: {spans:?}"
                );
            }
            assert_eq!(walk(&file, file.len()), vec![0..lo], "{what} damage");
        }
        // A length claiming more than the file: never vouched for, nothing after it either.
        let mut file = framed(&records);
        let huge = (1u64 << 40).to_le_bytes();
        let at = starts[3] as usize;
        file[at..at + 8].copy_from_slice(&huge);
        file[at + 8..at + 12].copy_from_slice(&masked_crc32c(&huge).to_le_bytes());
        let spans = walk(&file, 100);
        assert!(spans.iter().all(|s| s.is_empty() || s.end <= starts[3]));
    }
}
