//! `weir convert csv`: CSV lines to a TFRecord file of `tf.train.Example`s, one per line.
//!
//! Lines are split as `TextLineReader` splits them and decoded by weir's `decode_csv` (the
//! `DecodeCSV` kernel's pure function) with the SPEC's record_defaults, [`CHUNK_LINES`] lines per
//! call. Because of that, an empty line is what TensorFlow makes of it: a record with no field,
//! so "Expect N fields but have 0", and a quoted field cannot span lines. On an error the failing
//! chunk is decoded again line by line, so the message is decode_csv's for that one line
//! (`record 0`), prefixed with `FILE:LINE` (1-based, header lines counted).
//!
//! The output is written to a temporary file beside it, synced and renamed into place only when
//! every line converted, so a failed conversion leaves no partial file.

pub mod encode;
pub mod lines;
pub mod spec;

use std::fs::File;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bytes::Bytes;
use weir::ops::io::{open_error, Compression, RecordWriter, TfRecordOptions};
use weir::ops::parsing::{decode_csv_tensors, CsvOptions};
use weir::{Error, Tensor};

use encode::{ExampleEncoder, Value};
use lines::Lines;
use spec::Spec;

/// How many lines one decode_csv call decodes.
pub const CHUNK_LINES: usize = 4096;

/// The settings of one `weir convert csv` run.
pub struct CsvJob {
    /// The CSV file.
    pub input: PathBuf,
    /// The TFRecord file to create (replaced if it exists).
    pub output: PathBuf,
    /// The columns: record_defaults and feature names.
    pub spec: Spec,
    /// decode_csv's options (field_delim, use_quote_delim, na_value, select_cols).
    pub csv: CsvOptions,
    /// Lines skipped at the start of the file.
    pub skip_header_lines: u64,
    /// The output's codec.
    pub compression: Compression,
}

/// A column of one decoded chunk, as a typed slice.
enum Col<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Str(&'a [Bytes]),
}

impl<'a> Col<'a> {
    fn of(t: &'a Tensor) -> Result<Col<'a>, Error> {
        use weir::DType;
        Ok(match t.dtype() {
            DType::I32 => Col::I32(t.as_slice()?),
            DType::I64 => Col::I64(t.as_slice()?),
            DType::F32 => Col::F32(t.as_slice()?),
            DType::F64 => Col::F64(t.as_slice()?),
            DType::String => Col::Str(t.as_slice()?),
            dt => return Err(Error::internal(format!("decode_csv gave a {dt} column"))),
        })
    }

    #[inline]
    fn value(&self, row: usize) -> Value<'a> {
        match self {
            Col::I32(v) => Value::Int(v[row] as i64),
            Col::I64(v) => Value::Int(v[row]),
            Col::F32(v) => Value::Float(v[row]),
            Col::F64(v) => Value::Float(v[row] as f32),
            Col::Str(v) => Value::Bytes(&v[row]),
        }
    }
}

/// The error of the first line of `chunk` that decode_csv rejects on its own, prefixed with
/// `FILE:LINE: `; `first_line` is the 1-based line number of `chunk[0]`.
fn locate_error(
    job: &CsvJob,
    defaults: &[Tensor],
    chunk: &[Bytes],
    first_line: u64,
    chunk_error: Error,
) -> Error {
    let file = job.input.display();
    for (i, line) in chunk.iter().enumerate() {
        let one = Tensor::from(vec![line.clone()]);
        if let Err(e) = decode_csv_tensors(&one, defaults, &job.csv) {
            return e.with_prefix(&format!("{file}:{}: ", first_line + i as u64));
        }
    }
    // Every line decodes alone: the error is not tied to a line (none is known today).
    let last = first_line + chunk.len() as u64 - 1;
    chunk_error.with_prefix(&format!("{file}:{first_line}-{last}: "))
}

/// A progress bar over the input's bytes, only when stderr is a terminal.
fn progress(total: u64) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {msg} examples",
    ) {
        bar.set_style(style);
    }
    Some(bar)
}

fn output_error(output: &Path, e: std::io::Error) -> Error {
    open_error(&output.to_string_lossy(), &e)
}

/// Converts `job.input` into `job.output`; the number of Examples written.
pub fn convert_csv(job: &CsvJob) -> Result<u64, Error> {
    let input_name = job.input.to_string_lossy();
    let input = File::open(&job.input).map_err(|e| open_error(&input_name, &e))?;
    let total_bytes = input
        .metadata()
        .map_err(|e| open_error(&input_name, &e))?
        .len();
    let dir = match job.output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let base = job
        .output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| {
            Error::invalid_argument(format!("{} is not a file name", job.output.display()))
        })?;
    // Dropping `tmp_path` on any early return deletes the partial file.
    let prefix = format!(".{base}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // tempfile's default 0600 would carry over to the output; ask for what File::create gives.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let (tmp_file, tmp_path) = builder
        .tempfile_in(dir)
        .map_err(|e| output_error(&job.output, e))?
        .into_parts();
    let mut writer = RecordWriter::new(tmp_file, TfRecordOptions::new(job.compression))?;

    let defaults: Vec<Tensor> = job.spec.0.iter().map(|c| c.default.clone()).collect();
    let names: Vec<&str> = job.spec.0.iter().map(|c| c.name.as_str()).collect();
    let mut encoder = ExampleEncoder::new(&names);
    let mut buf = Vec::new();
    let mut lines = Lines::new(input);
    let read_error = |e: std::io::Error| Error::from(e).with_prefix(&format!("{input_name}: "));

    let mut line_no = 1u64;
    let mut header = Vec::new();
    let mut skip = job.skip_header_lines;
    while skip > 0 {
        header.clear();
        let n = skip.min(CHUNK_LINES as u64) as usize;
        lines.read_lines(&mut header, n).map_err(read_error)?;
        line_no += header.len() as u64;
        skip = if header.len() < n { 0 } else { skip - n as u64 };
    }

    let bar = progress(total_bytes);
    let mut written = 0u64;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK_LINES);
        lines
            .read_lines(&mut chunk, CHUNK_LINES)
            .map_err(read_error)?;
        if chunk.is_empty() {
            break;
        }
        let rows = chunk.len();
        let records = Tensor::from(chunk);
        let columns = match decode_csv_tensors(&records, &defaults, &job.csv) {
            Ok(c) => c,
            Err(e) => {
                if let Some(b) = &bar {
                    b.finish_and_clear();
                }
                return Err(locate_error(
                    job,
                    &defaults,
                    records.as_slice()?,
                    line_no,
                    e,
                ));
            }
        };
        let cols = columns.iter().map(Col::of).collect::<Result<Vec<_>, _>>()?;
        let mut row_values = vec![Value::Int(0); cols.len()];
        for r in 0..rows {
            for (v, c) in row_values.iter_mut().zip(&cols) {
                *v = c.value(r);
            }
            encoder.encode(&row_values, &mut buf);
            writer.write(&buf)?;
        }
        written += rows as u64;
        line_no += rows as u64;
        if let Some(b) = &bar {
            b.set_position(lines.bytes_read());
            b.set_message(written.to_string());
        }
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }

    let file = writer.into_inner()?;
    file.sync_all().map_err(|e| output_error(&job.output, e))?;
    drop(file);
    tmp_path
        .persist(&job.output)
        .map_err(|e| output_error(&job.output, e.error))?;
    // Make the rename itself durable; a directory that cannot be synced is not an error.
    if let Ok(d) = File::open(dir) {
        d.sync_all().ok();
    }
    Ok(written)
}

/// `weir convert csv`: runs [`convert_csv`] and prints `wrote N examples to OUT` on stderr.
pub fn csv(job: &CsvJob) -> Result<ExitCode, Error> {
    let n = convert_csv(job)?;
    let s = if n == 1 { "" } else { "s" };
    eprintln!("wrote {n} example{s} to {}", job.output.display());
    Ok(ExitCode::SUCCESS)
}
