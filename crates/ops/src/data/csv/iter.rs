//! The `CsvDataset` iterator: opens the files one at a time, when it reaches them, finds each
//! record in the read buffer ([`Grammar::scan`]) and converts its fields with decode_csv's code,
//! string fields as slices of the buffer.

use std::sync::Arc;

use bytes::Bytes;
use weir_graph::{Error, Result, Tensor};

use super::super::{Element, IteratorBase, IteratorContext};
use super::scan::{Grammar, Record, Scan};
use crate::io::input::ChunkedInput;
use crate::io::Compression;
use crate::parsing::{csv_field_tensor, CsvField, CsvSpan};

/// Everything a `CsvDataset` iterator reads by: the files, the grammar, the defaults.
pub(super) struct CsvSpec {
    pub(super) names: Arc<[Bytes]>,
    pub(super) compression: Compression,
    /// Read size in bytes.
    pub(super) chunk: usize,
    pub(super) header: bool,
    pub(super) grammar: Grammar,
    /// `grammar` with no outputs: how a header line is read.
    pub(super) header_grammar: Grammar,
    pub(super) na_value: Vec<u8>,
    /// One per output, checked by the kernel: empty (required) or one value.
    pub(super) defaults: Vec<Tensor>,
}

impl CsvSpec {
    /// The path of file `i`, if the list has one.
    fn path(&self, i: usize) -> Option<Result<String>> {
        self.names.get(i).map(|n| {
            std::str::from_utf8(n)
                .map(str::to_string)
                .map_err(|_| Error::invalid_argument("Filename is not valid UTF-8"))
        })
    }
}

/// The file being read.
struct Open {
    input: ChunkedInput,
    /// Whether `input` has nothing beyond the bytes it holds.
    eof: bool,
}

pub(super) struct CsvIter {
    spec: Arc<CsvSpec>,
    index: usize,
    open: Option<Open>,
    /// The spans of the current record's output fields (kept to reuse its memory).
    spans: Vec<CsvSpan>,
}

impl CsvIter {
    pub(super) fn new(spec: Arc<CsvSpec>) -> CsvIter {
        let outputs = spec.grammar.outputs;
        CsvIter {
            spec,
            index: 0,
            open: None,
            spans: Vec::with_capacity(outputs),
        }
    }
}

/// Finds the next record of `open` by `grammar`, reading more of the file as it needs:
/// `None` at the end of the file.
fn next_record(
    open: &mut Open,
    grammar: &Grammar,
    spans: &mut Vec<CsvSpan>,
) -> Result<Option<Record>> {
    loop {
        let have = open.input.available().len();
        match grammar.scan(open.input.available(), open.eof, spans) {
            Scan::End => return Ok(None),
            Scan::Record(r) => {
                if r.len > u32::MAX as usize {
                    return Err(too_long());
                }
                return Ok(Some(r));
            }
            Scan::More => {
                if have >= u32::MAX as usize {
                    return Err(too_long());
                }
                // Twice the bytes each time, so a long record is scanned O(length) times over.
                let want = have.saturating_mul(2).max(have + 1);
                if open.input.fill(want)? < want {
                    open.eof = true;
                }
            }
        }
    }
}

fn too_long() -> Error {
    Error::invalid_argument("CsvDataset cannot read a record of 4 GiB or more")
}

impl CsvIter {
    /// The next element of the current file, `None` at its end. A bad record is consumed
    /// before its error is returned, so the next call reads the record after it.
    fn next_element(&mut self) -> Result<Option<Element>> {
        let spec = &*self.spec;
        let Some(open) = self.open.as_mut() else {
            return Ok(None);
        };
        let Some(r) = next_record(open, &spec.grammar, &mut self.spans)? else {
            return Ok(None);
        };
        let rec = open.input.slice(0, r.len);
        open.input.consume(r.len);
        // TensorFlow converts each field as it reads it: a bad value before the first parse
        // error is the one reported.
        let converted = r.error.as_ref().map_or(r.found, |e| e.0);
        let field = CsvField::new(&rec, &spec.na_value, None);
        let mut out = Vec::with_capacity(spec.grammar.outputs);
        for (c, (d, &s)) in spec.defaults.iter().zip(&self.spans).enumerate() {
            if c == converted {
                break;
            }
            out.push(csv_field_tensor(&field, d, c, s, &[])?);
        }
        if let Some((_, e)) = r.error {
            return Err(e);
        }
        let n = spec.grammar.outputs;
        if r.found < n {
            return Err(Error::invalid_argument(format!(
                "Expect {n} fields but have {} in record",
                r.found
            )));
        }
        Ok(Some(out))
    }

    /// Opens file `path`; its header line, if the dataset has one, is read and dropped. A
    /// header that cannot be read fails once; the next call goes on after it.
    fn open(&mut self, path: &str) -> Result<()> {
        let spec = &*self.spec;
        let input = ChunkedInput::open_read_ahead(path, spec.compression, spec.chunk)?;
        let open = self.open.insert(Open { input, eof: false });
        if spec.header {
            let header = next_record(open, &spec.header_grammar, &mut self.spans);
            match header {
                Ok(Some(r)) if r.error.is_none() => open.input.consume(r.len),
                Ok(Some(r)) => {
                    open.input.consume(r.len);
                    return Err(header_error());
                }
                Ok(None) | Err(_) => return Err(header_error()),
            }
        }
        Ok(())
    }
}

fn header_error() -> Error {
    Error::invalid_argument("Can't read header of file")
}

impl IteratorBase for CsvIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        loop {
            if self.open.is_some() {
                if let Some(el) = self.next_element()? {
                    return Ok(Some(el));
                }
                self.open = None;
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
