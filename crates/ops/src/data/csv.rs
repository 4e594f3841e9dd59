//! `tf.data.experimental.CsvDataset` (op `CSVDatasetV2`): the records of CSV files, one tuple
//! of scalars per record, converted by the record defaults.

mod iter;
mod scan;

use std::sync::Arc;

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, Graph, InferenceContext, Kernel, OpContext, Output, Result, Shape,
    Tensor,
};

use super::{dataset_def, dataset_tensor, output_dtypes, Dataset, DatasetBase, IteratorBase};
use crate::io::Compression;
use iter::{CsvIter, CsvSpec};
use scan::{Columns, Grammar};

/// Python's default `buffer_size` of `CsvDataset` (`_DEFAULT_READER_BUFFER_SIZE_BYTES`, 4 MiB).
const DEFAULT_BUFFER: i64 = 4 << 20;
/// The largest read size used, whatever `buffer_size` asks for.
const MAX_CHUNK: i64 = 16 << 20;

/// The dtypes a record default may have.
const CSV_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I32,
    DType::I64,
    DType::String,
];

/// Input positions of `CSVDatasetV2`; the record defaults (a list) come after `select_cols`,
/// and `exclude_cols` after them.
const FILENAMES: usize = 0;
const COMPRESSION: usize = 1;
const BUFFER_SIZE: usize = 2;
const HEADER: usize = 3;
const FIELD_DELIM: usize = 4;
const USE_QUOTE_DELIM: usize = 5;
const NA_VALUE: usize = 6;
const SELECT_COLS: usize = 7;
const DEFAULTS: usize = 8;

struct Csv {
    spec: Arc<CsvSpec>,
    dtypes: Vec<DType>,
}

impl DatasetBase for Csv {
    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(CsvIter::new(self.spec.clone())))
    }
}

fn string_arg(ctx: &OpContext<'_>, i: usize) -> Result<Vec<u8>> {
    Ok(ctx.input(i).to_scalar::<Bytes>()?.to_vec())
}

/// `select_cols` or `exclude_cols`: strictly increasing and non-negative, in that order of
/// checks.
fn columns_arg(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<Vec<usize>> {
    let cols = ctx.input(i).to_vec::<i64>()?;
    if cols.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::invalid_argument(format!(
            "{name} should be strictly increasing indices"
        )));
    }
    if cols.first().is_some_and(|&c| c < 0) {
        return Err(Error::invalid_argument(format!(
            "{name} should be non-negative indices"
        )));
    }
    Ok(cols.into_iter().map(|c| c as usize).collect())
}

struct CsvKernel {
    dtypes: Vec<DType>,
}

impl Kernel for CsvKernel {
    /// The arguments are checked in the order TensorFlow's kernel checks them.
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let names = ctx.input(FILENAMES);
        if names.rank() > 1 {
            return Err(Error::invalid_argument(
                "`filenames` must be a scalar or a vector.",
            ));
        }
        let names: Arc<[Bytes]> = names.to_vec::<Bytes>()?.into();
        let n = self.dtypes.len();
        let inputs = ctx.inputs();
        if inputs.len() != DEFAULTS + n + 1 {
            return Err(Error::invalid_argument(format!(
                "CSVDatasetV2 expects {} inputs, got {}",
                DEFAULTS + n + 1,
                inputs.len()
            )));
        }
        let buffer_size = ctx.input(BUFFER_SIZE).to_scalar::<i64>()?;
        if buffer_size <= 0 {
            return Err(Error::invalid_argument("buffer_size should be positive"));
        }
        let header = ctx.input(HEADER).to_scalar::<bool>()?;
        let delim = string_arg(ctx, FIELD_DELIM)?;
        let &[delim] = delim.as_slice() else {
            return Err(Error::invalid_argument("field_delim should be only 1 char"));
        };
        let use_quote_delim = ctx.input(USE_QUOTE_DELIM).to_scalar::<bool>()?;
        let na_value = string_arg(ctx, NA_VALUE)?;
        let compression = string_arg(ctx, COMPRESSION)?;
        let compression =
            Compression::parse(&String::from_utf8_lossy(&compression)).map_err(|_| {
                Error::invalid_argument(format!(
                    "Unsupported compression_type: {}.",
                    String::from_utf8_lossy(&compression)
                ))
            })?;
        let select_raw = ctx.input(SELECT_COLS).to_vec::<i64>()?;
        if !select_raw.is_empty() && select_raw.len() != n {
            return Err(Error::invalid_argument(
                "select_cols should match output size",
            ));
        }
        let select = columns_arg(ctx, SELECT_COLS, "select_cols")?;
        let exclude_raw = ctx.input(DEFAULTS + n).to_vec::<i64>()?;
        if !select.is_empty() && !exclude_raw.is_empty() {
            return Err(Error::invalid_argument(
                "Either select_cols or exclude_cols should be empty",
            ));
        }
        let exclude = columns_arg(ctx, DEFAULTS + n, "exclude_cols")?;
        let defaults: Vec<Tensor> = inputs[DEFAULTS..DEFAULTS + n].to_vec();
        crate::parsing::check_defaults(&defaults)?;
        for (f, d) in defaults.iter().enumerate() {
            if !CSV_TYPES.contains(&d.dtype()) {
                return Err(Error::invalid_argument(format!(
                    "csv: data type {} not supported in field {f}",
                    d.dtype()
                )));
            }
        }
        let columns = if !select.is_empty() {
            Columns::Select(select)
        } else if !exclude.is_empty() {
            Columns::Exclude(exclude)
        } else {
            Columns::All
        };
        let grammar = |columns, outputs| Grammar {
            delim,
            quote: use_quote_delim,
            columns,
            outputs,
        };
        let spec = CsvSpec {
            names,
            compression,
            chunk: buffer_size.clamp(1024, MAX_CHUNK) as usize,
            header,
            grammar: grammar(columns, n),
            header_grammar: grammar(Columns::Skip, 0),
            na_value,
            defaults,
        };
        ctx.set_output(
            0,
            dataset_tensor(Arc::new(Csv {
                spec: Arc::new(spec),
                dtypes: self.dtypes.clone(),
            })),
        );
        Ok(())
    }
}

/// TensorFlow's shape checks: `filenames` a scalar or vector, the options scalars, the column
/// lists vectors, each record default a scalar or a vector of at most one value.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let n = ctx.num_inputs();
    for i in 0..n {
        let s = ctx.input_shape(i);
        let Some(rank) = s.rank() else {
            continue;
        };
        let max = match i {
            FILENAMES | SELECT_COLS => 1,
            i if i + 1 == n => 1,
            i if i >= DEFAULTS => 1,
            _ => 0,
        };
        if rank > max {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank {max} but is rank {rank}"
            )));
        }
        if (DEFAULTS..n - 1).contains(&i) && rank == 1 && s.dim(0).is_some_and(|d| d > 1) {
            return Err(Error::invalid_argument(
                "Shape of a default must be a length-0 or length-1 vector, or a scalar.",
            ));
        }
    }
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

pub(super) fn register() {
    let s = || ArgType::Fixed(DType::String);
    let i = || ArgType::Fixed(DType::I64);
    let b = || ArgType::Fixed(DType::Bool);
    register_op(
        dataset_def("CSVDatasetV2")
            .input("filenames", s())
            .input("compression_type", s())
            .input("buffer_size", i())
            .input("header", b())
            .input("field_delim", s())
            .input("use_quote_delim", b())
            .input("na_value", s())
            .input("select_cols", i())
            .input("record_defaults", ArgType::List("output_types"))
            .input("exclude_cols", i())
            .shape_fn(shape_fn),
    );
    register_kernel("CSVDatasetV2", |node| {
        Ok(Box::new(CsvKernel {
            dtypes: output_dtypes(node)?,
        }))
    });
}

// ---------------------------------------------------------------------------------------------
// The graph builder.

/// `tf.data.experimental.CsvDataset(filenames, record_defaults, compression_type=None,
/// buffer_size=None, header=False, field_delim=',', use_quote_delim=True, na_value='',
/// select_cols=None, exclude_cols=None)` (op `CSVDatasetV2`): the records of CSV files, in
/// order, each a tuple of scalars, one per selected column, with the dtypes of
/// `record_defaults`.
///
/// A record default is a vector of one value (or a scalar) that an empty field, or one equal
/// to `na_value`, takes; an empty vector makes the column required. Records end at `\n`,
/// `\r\n` or `\r`; a quoted field may hold the delimiter, doubled quotes and line ends. A bad
/// record (a wrong field count, a value that does not parse, a missing required field, bad
/// quoting) is InvalidArgument from `get_next` after the records before it, and the next run
/// goes on with the record after it; a missing file is NotFound `"<file>; No such file or
/// directory"`.
///
/// ```
/// use weir_graph::{DType, Graph, Shape, Tensor};
/// use weir_ops::array::constant;
/// use weir_ops::data::CsvDataset;
///
/// let g = Graph::new();
/// let defaults = [
///     constant(&g, Tensor::from(Vec::<i64>::new()))?, // required
///     constant(&g, Tensor::from(vec![0.0f32]))?,
///     constant(&g, Tensor::from(vec!["n/a"]))?,
/// ];
/// let ds = CsvDataset::from_files(&g, &["train.csv.gz"], &defaults)?
///     .compression_type("GZIP")
///     .header(true)
///     .select_cols(&[0, 2, 3])
///     .build()?;
/// assert_eq!(ds.output_types(), &[DType::I64, DType::F32, DType::String]);
/// let row = ds.make_one_shot_iterator()?.get_next()?;
/// assert_eq!(row[1].shape(), Shape::scalar());
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CsvDataset {
    filenames: Output,
    record_defaults: Vec<Output>,
    compression_type: String,
    buffer_size: i64,
    header: bool,
    field_delim: String,
    use_quote_delim: bool,
    na_value: String,
    select_cols: Vec<i64>,
    exclude_cols: Vec<i64>,
}

impl CsvDataset {
    /// The records of the files named by `filenames` (a string scalar or vector), one output
    /// per record default.
    pub fn new(filenames: &Output, record_defaults: &[Output]) -> CsvDataset {
        CsvDataset {
            filenames: filenames.clone(),
            record_defaults: record_defaults.to_vec(),
            compression_type: String::new(),
            buffer_size: DEFAULT_BUFFER,
            header: false,
            field_delim: ",".into(),
            use_quote_delim: true,
            na_value: String::new(),
            select_cols: Vec::new(),
            exclude_cols: Vec::new(),
        }
    }

    /// The records of `files`, given as a constant in `g`.
    pub fn from_files(g: &Graph, files: &[&str], record_defaults: &[Output]) -> Result<CsvDataset> {
        let names = crate::array::constant(g, Tensor::from(files))?;
        Ok(CsvDataset::new(&names, record_defaults))
    }

    /// `compression_type`: `""` (the default), `"ZLIB"` or `"GZIP"`.
    pub fn compression_type(mut self, c: &str) -> Self {
        self.compression_type = c.to_string();
        self
    }

    /// `buffer_size`: bytes read at a time (default 4 MiB; must be positive).
    pub fn buffer_size(mut self, bytes: i64) -> Self {
        self.buffer_size = bytes;
        self
    }

    /// `header`: whether each file's first record is a header to skip (default false).
    pub fn header(mut self, header: bool) -> Self {
        self.header = header;
        self
    }

    /// `field_delim`: the one-byte field delimiter (default `","`; checked when the op runs).
    pub fn field_delim(mut self, d: &str) -> Self {
        self.field_delim = d.to_string();
        self
    }

    /// `use_quote_delim`: whether `"` quotes fields (RFC 4180, the default) or is an ordinary
    /// byte.
    pub fn use_quote_delim(mut self, q: bool) -> Self {
        self.use_quote_delim = q;
        self
    }

    /// `na_value`: a field text that, like the empty field, takes the column's default.
    pub fn na_value(mut self, na: &str) -> Self {
        self.na_value = na.to_string();
        self
    }

    /// `select_cols`: the columns to read, strictly increasing, one per record default
    /// (default: every column).
    pub fn select_cols(mut self, cols: &[i64]) -> Self {
        self.select_cols = cols.to_vec();
        self
    }

    /// `exclude_cols`: the columns to skip, strictly increasing (default: none). At most one of
    /// `select_cols` and `exclude_cols` may be given.
    pub fn exclude_cols(mut self, cols: &[i64]) -> Self {
        self.exclude_cols = cols.to_vec();
        self
    }

    /// Adds the dataset's op; build-time errors mirror TensorFlow's Python and shape checks.
    pub fn build(&self) -> Result<Dataset> {
        if self.filenames.dtype() != DType::String {
            return Err(Error::invalid_argument(
                "`filenames` must be a `tf.Tensor` of `tf.string` elements.",
            ));
        }
        if self.record_defaults.is_empty() {
            return Err(Error::invalid_argument(
                "Attr 'output_types' of 'CSVDatasetV2' Op passed list of length 0 less than \
                 minimum 1.",
            ));
        }
        for d in &self.record_defaults {
            if !CSV_TYPES.contains(&d.dtype()) {
                return Err(Error::invalid_argument(format!(
                    "Value passed to parameter 'record_defaults' has DataType {} not in list of \
                     allowed values: float32, float64, int32, int64, string",
                    d.dtype()
                )));
            }
        }
        let mut all = vec![&self.filenames];
        all.extend(self.record_defaults.iter());
        let g = crate::util::same_graph(&all)?.clone();
        let c = |t: Tensor| crate::array::constant(&g, t);
        let dtypes: Vec<DType> = self.record_defaults.iter().map(Output::dtype).collect();
        let b = crate::new_op(&g, "CSVDatasetV2")
            .input(&self.filenames)
            .input(c(Tensor::from(self.compression_type.as_str()))?)
            .input(c(Tensor::scalar(self.buffer_size))?)
            .input(c(Tensor::scalar(self.header))?)
            .input(c(Tensor::from(self.field_delim.as_str()))?)
            .input(c(Tensor::scalar(self.use_quote_delim))?)
            .input(c(Tensor::from(self.na_value.as_str()))?)
            .input(c(Tensor::from(self.select_cols.clone()))?)
            .inputs(self.record_defaults.iter())
            .input(c(Tensor::from(self.exclude_cols.clone()))?);
        let shapes = vec![Shape::scalar(); dtypes.len()];
        Dataset::build(b, dtypes, shapes)
    }
}
