//! The record sources behind each reader kind: what a reader does with one work unit.

use std::io::Write;

use bytes::Bytes;
use weir_graph::{Error, Result};

use super::ReaderKind;
use crate::io::input::ChunkedInput;
use crate::io::options::Compression;
use crate::io::tfrecord::RecordReader;

/// TensorFlow's TextLineReader input buffer size.
const TEXT_CHUNK: usize = 256 << 10;
/// Read size for fixed-length and TFRecord files.
const FILE_CHUNK: usize = 1 << 20;

/// The records of one work unit.
pub(crate) trait RecordSource: Send {
    /// The next (key, value), or `None` when the work unit is exhausted; without `want_key`
    /// the key is left empty (nothing reads it, so it is not formatted). After an error the
    /// source stays where it was, so the next call retries from the same place.
    fn next(&mut self, want_key: bool) -> Result<Option<(Bytes, Bytes)>>;
}

/// The work string as a path.
fn work_path(work: &Bytes) -> Result<String> {
    std::str::from_utf8(work)
        .map(str::to_string)
        .map_err(|_| Error::invalid_argument("Filename is not valid UTF-8".to_string()))
}

/// `"<prefix><n>"` as one allocation: the keys `file:line`, `file:index`, `file:offset`; empty
/// when not wanted.
fn key(want: bool, prefix: &[u8], n: u64) -> Bytes {
    if !want {
        return Bytes::new();
    }
    let mut k = Vec::with_capacity(prefix.len() + 20);
    k.extend_from_slice(prefix);
    write!(k, "{n}").expect("writing to a Vec cannot fail");
    Bytes::from(k)
}

fn prefix_of(path: &str) -> Vec<u8> {
    let mut p = Vec::with_capacity(path.len() + 1);
    p.extend_from_slice(path.as_bytes());
    p.push(b':');
    p
}

/// Opens a work unit (the reader's start hook).
pub(crate) fn open(kind: &ReaderKind, work: &Bytes) -> Result<Box<dyn RecordSource>> {
    Ok(match *kind {
        ReaderKind::TextLine { skip_header_lines } => {
            let path = work_path(work)?;
            let input = ChunkedInput::open_read_ahead(&path, Compression::None, TEXT_CHUNK)?;
            let mut s = TextLineSource {
                input,
                prefix: prefix_of(&path),
                line: 0,
                scan_from: 0,
            };
            for _ in 0..skip_header_lines {
                if s.next_line()?.is_none() {
                    break;
                }
            }
            Box::new(s)
        }
        ReaderKind::FixedLength {
            header_bytes,
            record_bytes,
            footer_bytes,
            hop_bytes,
            compression,
        } => {
            let path = work_path(work)?;
            let mut input = ChunkedInput::open_read_ahead(&path, compression, FILE_CHUNK)?;
            if input.fill(header_bytes)? < header_bytes {
                return Err(Error::out_of_range("reached end of file"));
            }
            input.consume(header_bytes);
            Box::new(FixedLengthSource {
                input,
                prefix: prefix_of(&path),
                record_bytes,
                footer_bytes,
                step: if hop_bytes > 0 {
                    hop_bytes
                } else {
                    record_bytes
                },
                index: 0,
                done: false,
            })
        }
        ReaderKind::TfRecord { compression } => {
            let path = work_path(work)?;
            let input = ChunkedInput::open_tfrecord_read_ahead(&path, compression, FILE_CHUNK)?;
            Box::new(TfRecordSource {
                reader: RecordReader::from_input(input),
                prefix: prefix_of(&path),
            })
        }
        ReaderKind::WholeFile => Box::new(WholeFileSource {
            work: Some(work.clone()),
        }),
        ReaderKind::Identity => Box::new(IdentitySource {
            work: Some(work.clone()),
        }),
    })
}

/// `TextLineReader`: lines split on `\n`, one trailing `\r` removed; keys `file:line` (1-based).
struct TextLineSource {
    input: ChunkedInput,
    prefix: Vec<u8>,
    line: u64,
    /// How far the current line has been searched for `\n` already.
    scan_from: usize,
}

impl TextLineSource {
    fn next_line(&mut self) -> Result<Option<Bytes>> {
        loop {
            let avail = self.input.available();
            if let Some(i) = memchr::memchr(b'\n', &avail[self.scan_from..]) {
                let end = self.scan_from + i;
                let len = if end > 0 && avail[end - 1] == b'\r' {
                    end - 1
                } else {
                    end
                };
                let line = self.input.slice(0, len);
                self.input.consume(end + 1);
                self.scan_from = 0;
                self.line += 1;
                return Ok(Some(line));
            }
            let have = avail.len();
            if self.input.fill(have + 1)? <= have {
                // End of file: a last line without a newline is still a line.
                if have == 0 {
                    return Ok(None);
                }
                let avail = self.input.available();
                let len = if avail[have - 1] == b'\r' {
                    have - 1
                } else {
                    have
                };
                let line = self.input.slice(0, len);
                self.input.consume(have);
                self.scan_from = 0;
                self.line += 1;
                return Ok(Some(line));
            }
            self.scan_from = have;
        }
    }
}

impl RecordSource for TextLineSource {
    fn next(&mut self, want_key: bool) -> Result<Option<(Bytes, Bytes)>> {
        Ok(self
            .next_line()?
            .map(|line| (key(want_key, &self.prefix, self.line), line)))
    }
}

/// `FixedLengthRecordReader`: records of `record_bytes` every `step` bytes after the header,
/// each emitted only if it and the footer fit in the file; keys `file:index` (0-based).
struct FixedLengthSource {
    input: ChunkedInput,
    prefix: Vec<u8>,
    record_bytes: usize,
    footer_bytes: usize,
    step: usize,
    index: u64,
    done: bool,
}

impl RecordSource for FixedLengthSource {
    fn next(&mut self, want_key: bool) -> Result<Option<(Bytes, Bytes)>> {
        if self.done {
            return Ok(None);
        }
        let need = self.record_bytes + self.footer_bytes;
        if self.input.fill(need)? < need {
            // A trailing partial record is dropped, as TensorFlow drops it.
            self.done = true;
            return Ok(None);
        }
        let value = self.input.slice(0, self.record_bytes);
        let avail = self.input.fill(self.step)?;
        self.input.consume(self.step.min(avail));
        if avail < self.step {
            self.done = true;
        }
        let k = key(want_key, &self.prefix, self.index);
        self.index += 1;
        Ok(Some((k, value)))
    }
}

/// `TFRecordReader`: keys `file:offset` of each record's start.
struct TfRecordSource {
    reader: RecordReader,
    prefix: Vec<u8>,
}

impl RecordSource for TfRecordSource {
    fn next(&mut self, want_key: bool) -> Result<Option<(Bytes, Bytes)>> {
        let offset = self.reader.offset();
        Ok(self
            .reader
            .read_record()?
            .map(|v| (key(want_key, &self.prefix, offset), v)))
    }
}

/// `WholeFileReader`: the whole file as one record, keyed by the filename. As in TensorFlow the
/// file is read in the read itself, so a missing file fails that read and the next one retries.
struct WholeFileSource {
    work: Option<Bytes>,
}

impl RecordSource for WholeFileSource {
    fn next(&mut self, _want_key: bool) -> Result<Option<(Bytes, Bytes)>> {
        let Some(work) = &self.work else {
            return Ok(None);
        };
        let path = work_path(work)?;
        let data = std::fs::read(&path).map_err(|e| crate::io::open_error(&path, &e))?;
        let key = self.work.take().expect("checked above");
        Ok(Some((key, Bytes::from(data))))
    }
}

/// `IdentityReader`: the work string as both key and value.
struct IdentitySource {
    work: Option<Bytes>,
}

impl RecordSource for IdentitySource {
    fn next(&mut self, _want_key: bool) -> Result<Option<(Bytes, Bytes)>> {
        Ok(self.work.take().map(|w| (w.clone(), w)))
    }
}
