//! The iterators of the file datasets. Each opens its files one at a time, when it reaches
//! them, and hands out records as slices of the read buffer.

use std::sync::Arc;

use bytes::Bytes;
use weir_graph::{Error, Result, Tensor};

use super::super::{Element, IteratorBase, IteratorContext};
use crate::io::input::ChunkedInput;
use crate::io::tfrecord::RecordReader;
use crate::io::{open_error, Compression};

/// A dataset's file names and how to read each.
pub(super) struct FileSpec {
    pub(super) names: Arc<[Bytes]>,
    pub(super) compression: Compression,
    /// Read size in bytes.
    pub(super) chunk: usize,
}

impl FileSpec {
    /// The path of file `i`, if the list has one.
    fn path(&self, i: usize) -> Option<Result<String>> {
        self.names.get(i).map(|n| {
            std::str::from_utf8(n)
                .map(str::to_string)
                .map_err(|_| Error::invalid_argument("Filename is not valid UTF-8"))
        })
    }
}

fn element(v: Bytes) -> Option<Element> {
    Some(vec![Tensor::scalar(v)])
}

/// `TFRecordDataset`: after damage (DataLoss) the next call goes on with the next file; a file
/// that cannot be opened fails every call, as TensorFlow retries it.
pub(super) struct TfRecordIter {
    pub(super) spec: Arc<FileSpec>,
    pub(super) index: usize,
    pub(super) reader: Option<RecordReader>,
}

impl IteratorBase for TfRecordIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        loop {
            if let Some(r) = self.reader.as_mut() {
                let got = r.read_record();
                if let Ok(Some(v)) = got {
                    return Ok(element(v));
                }
                self.reader = None;
                self.index += 1;
                got?;
                continue;
            }
            let Some(path) = self.spec.path(self.index) else {
                return Ok(None);
            };
            ctx.check()?;
            let input = ChunkedInput::open_tfrecord_read_ahead(
                &path?,
                self.spec.compression,
                self.spec.chunk,
            )?;
            self.reader = Some(RecordReader::from_input(input));
        }
    }
}

/// `TextLineDataset`: lines split on `\n` with every `\r` removed, as TensorFlow's
/// `BufferedInputStream::ReadLine` does; a last line without `\n` is a line unless nothing is
/// left of it. A read error is returned again on every call.
pub(super) struct TextLineIter {
    pub(super) spec: Arc<FileSpec>,
    pub(super) index: usize,
    pub(super) input: Option<ChunkedInput>,
    /// How far the current line has been searched for `\n` already.
    pub(super) scan_from: usize,
}

/// The first `len` available bytes of `input` without their `\r`s: a slice when there are none.
fn without_cr(input: &ChunkedInput, len: usize) -> Bytes {
    let line = &input.available()[..len];
    if memchr::memchr(b'\r', line).is_none() {
        return input.slice(0, len);
    }
    Bytes::from(
        line.iter()
            .copied()
            .filter(|&c| c != b'\r')
            .collect::<Vec<u8>>(),
    )
}

impl TextLineIter {
    fn next_line(&mut self) -> Result<Option<Bytes>> {
        let Some(input) = self.input.as_mut() else {
            return Ok(None);
        };
        loop {
            let avail = input.available();
            if let Some(i) = memchr::memchr(b'\n', &avail[self.scan_from..]) {
                let end = self.scan_from + i;
                let line = without_cr(input, end);
                input.consume(end + 1);
                self.scan_from = 0;
                return Ok(Some(line));
            }
            let have = avail.len();
            if input.fill(have + 1)? <= have {
                let line = without_cr(input, have);
                input.consume(have);
                self.scan_from = 0;
                return Ok((!line.is_empty()).then_some(line));
            }
            self.scan_from = have;
        }
    }
}

impl IteratorBase for TextLineIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        loop {
            if self.input.is_some() {
                if let Some(line) = self.next_line()? {
                    return Ok(element(line));
                }
                self.input = None;
                self.index += 1;
                continue;
            }
            let Some(path) = self.spec.path(self.index) else {
                return Ok(None);
            };
            ctx.check()?;
            self.input = Some(ChunkedInput::open_read_ahead(
                &path?,
                self.spec.compression,
                self.spec.chunk,
            )?);
            self.scan_from = 0;
        }
    }
}

/// The record layout of a `FixedLengthRecordDataset`.
#[derive(Clone, Copy)]
pub(super) struct Layout {
    pub(super) header: u64,
    pub(super) record: u64,
    pub(super) footer: u64,
}

impl Layout {
    /// TensorFlow's message for a body that is not a whole number of records.
    fn body_error(&self, file: &str, body: u64) -> String {
        format!(
            "Excluding the header ({} bytes) and footer ({} bytes), input file \"{file}\" has \
             body length {body} bytes, which is not an exact multiple of the record length ({} \
             bytes).",
            self.header, self.footer, self.record
        )
    }
}

/// Where a `FixedLengthRecordDataset` iterator is in its current file.
pub(super) enum Fixed {
    /// An uncompressed file whose size was checked: `left` records remain.
    Plain { input: ChunkedInput, left: u64 },
    /// A compressed file, read until too few bytes remain for a record and the footer;
    /// `done` once the file is over.
    Compressed { input: ChunkedInput, done: bool },
}

/// `FixedLengthRecordDataset`. An uncompressed file's size is checked before it is read: a body
/// that is not a whole number of records is InvalidArgument on every call, as TensorFlow
/// retries the file. A compressed file is checked at its end (DataLoss, then the next file).
pub(super) struct FixedLengthIter {
    pub(super) spec: Arc<FileSpec>,
    pub(super) layout: Layout,
    pub(super) index: usize,
    pub(super) current: Option<Fixed>,
}

/// What TensorFlow's iterator framework makes of the OutOfRange a compressed file too short
/// for its header or footer gives.
fn eof_error() -> Error {
    Error::internal(
        "Iterator \"Iterator::Root::FixedLengthRecordV2\" returned `OutOfRange`. This indicates \
         an implementation error as `OutOfRange` errors are not expected to be returned here. \
         Original message: EOF reached",
    )
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

impl FixedLengthIter {
    /// The next record of the current file, `None` at its end.
    fn next_record(&mut self) -> Result<Option<Bytes>> {
        let l = self.layout;
        let record = to_usize(l.record);
        match self.current.as_mut() {
            None => Ok(None),
            Some(Fixed::Plain { input, left }) => {
                if *left == 0 || input.fill(record)? < record {
                    *left = 0;
                    return Ok(None);
                }
                *left -= 1;
                let v = input.slice(0, record);
                input.consume(record);
                Ok(Some(v))
            }
            Some(Fixed::Compressed { input, done }) => {
                if *done {
                    return Ok(None);
                }
                let need = record.saturating_add(to_usize(l.footer));
                let avail = input.fill(need)?;
                if avail >= need {
                    let v = input.slice(0, record);
                    input.consume(record);
                    return Ok(Some(v));
                }
                *done = true;
                let partial = avail.saturating_sub(to_usize(l.footer)) as u64;
                if partial == 0 {
                    return Ok(None);
                }
                let body = (input.offset() + partial).wrapping_sub(l.header);
                let name = input.name().to_string();
                Err(Error::data_loss(l.body_error(&name, body)))
            }
        }
    }

    /// Opens file `path`, checking its size first when it is not compressed.
    fn open(&mut self, path: &str) -> Result<()> {
        let l = self.layout;
        let spec = &self.spec;
        if spec.compression == Compression::None {
            let size = std::fs::metadata(path)
                .map_err(|e| open_error(path, &e))?
                .len();
            let body = size.wrapping_sub(l.header.wrapping_add(l.footer));
            if body % l.record != 0 {
                return Err(Error::invalid_argument(l.body_error(path, body)));
            }
            let mut input = ChunkedInput::open_read_ahead(path, spec.compression, spec.chunk)?;
            let header = to_usize(l.header);
            let mut left = if size >= l.header.saturating_add(l.footer) {
                body / l.record
            } else {
                0
            };
            if left > 0 {
                if input.fill(header)? < header {
                    left = 0;
                } else {
                    input.consume(header);
                }
            }
            self.current = Some(Fixed::Plain { input, left });
            return Ok(());
        }
        let input = ChunkedInput::open(path, spec.compression, spec.chunk)?;
        // As in TensorFlow, the file is current before its header is skipped: a file too short
        // for it fails once, and the next call goes on with the next file.
        self.current = Some(Fixed::Compressed { input, done: true });
        let Some(Fixed::Compressed { input, done }) = self.current.as_mut() else {
            return Ok(());
        };
        let (header, footer) = (to_usize(l.header), to_usize(l.footer));
        if input.fill(header)? < header {
            return Err(eof_error());
        }
        input.consume(header);
        if input.fill(footer)? < footer {
            return Err(eof_error());
        }
        *done = false;
        Ok(())
    }
}

impl IteratorBase for FixedLengthIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        loop {
            if self.current.is_some() {
                if let Some(v) = self.next_record()? {
                    return Ok(element(v));
                }
                self.current = None;
                self.index += 1;
                continue;
            }
            let Some(path) = self.spec.path(self.index) else {
                return Ok(None);
            };
            ctx.check()?;
            self.open(&path?)?;
        }
    }
}
