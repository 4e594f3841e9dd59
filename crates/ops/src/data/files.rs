//! tf.data's file datasets: `TFRecordDataset`, `TextLineDataset` and
//! `FixedLengthRecordDataset` (op `FixedLengthRecordDatasetV2`), one scalar string per record,
//! the files read in order, each opened only when the iterator reaches it.

mod iter;

use std::sync::Arc;

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Graph, Kernel, OpContext, Output, Result, Shape, Tensor};

use super::{dataset_def, dataset_tensor, Dataset, DatasetBase, IteratorBase};
use crate::io::Compression;
use iter::{FileSpec, FixedLengthIter, Layout, TextLineIter, TfRecordIter};

/// TensorFlow's default read buffer of the file datasets (`_DEFAULT_READ_BUFFER_SIZE_BYTES`).
const DEFAULT_BUFFER: i64 = 256 << 10;
/// The largest read size used, whatever `buffer_size` asks for.
const MAX_CHUNK: i64 = 16 << 20;

#[derive(Clone, Copy)]
enum Kind {
    TfRecord,
    TextLine,
    FixedLength(Layout),
}

/// A file dataset: its files, how to read them, and the record kind.
struct Files {
    spec: Arc<FileSpec>,
    kind: Kind,
}

impl DatasetBase for Files {
    fn output_dtypes(&self) -> &[DType] {
        &[DType::String]
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        let spec = self.spec.clone();
        Ok(match self.kind {
            Kind::TfRecord => Box::new(TfRecordIter {
                spec,
                index: 0,
                reader: None,
            }),
            Kind::TextLine => Box::new(TextLineIter {
                spec,
                index: 0,
                input: None,
                scan_from: 0,
            }),
            Kind::FixedLength(layout) => Box::new(FixedLengthIter {
                spec,
                layout,
                index: 0,
                current: None,
            }),
        })
    }
}

/// The `filenames` input: a scalar or a vector of strings.
fn filenames(ctx: &OpContext<'_>) -> Result<Arc<[Bytes]>> {
    let t = ctx.input(0);
    if t.rank() > 1 {
        return Err(Error::invalid_argument(
            "`filenames` must be a scalar or a vector.",
        ));
    }
    Ok(t.to_vec::<Bytes>()?.into())
}

fn string_arg(ctx: &OpContext<'_>, i: usize) -> Result<String> {
    Ok(String::from_utf8_lossy(&ctx.input(i).to_scalar::<Bytes>()?).into_owned())
}

/// A read size from `buffer_size` (0 and TensorFlow's "unspecified" -1 mean the default).
fn chunk(buffer_size: i64) -> usize {
    let b = if buffer_size <= 0 {
        DEFAULT_BUFFER
    } else {
        buffer_size
    };
    b.clamp(1024, MAX_CHUNK) as usize
}

/// The codec of `TextLineDataset` and `FixedLengthRecordDatasetV2`, which reject unknown ones.
fn strict_compression(s: &str) -> Result<Compression> {
    Compression::parse(s).map_err(|_| Error::invalid_argument("Unsupported compression_type."))
}

struct FilesKernel(fn(&OpContext<'_>) -> Result<(Kind, Compression, i64)>);

impl Kernel for FilesKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let names = filenames(ctx)?;
        let (kind, compression, buffer_size) = (self.0)(ctx)?;
        let spec = Arc::new(FileSpec {
            names,
            compression,
            chunk: chunk(buffer_size),
        });
        ctx.set_output(0, dataset_tensor(Arc::new(Files { spec, kind })));
        Ok(())
    }
}

/// `TFRecordDataset(filenames, compression_type, buffer_size)`: an unknown codec means none (TF
/// logs it), -1 means the default buffer.
fn tf_record_args(ctx: &OpContext<'_>) -> Result<(Kind, Compression, i64)> {
    let compression = Compression::parse_lenient(&string_arg(ctx, 1)?);
    let buffer_size = ctx.input(2).to_scalar::<i64>()?;
    if buffer_size < -1 {
        return Err(Error::invalid_argument(
            "`buffer_size` must be >= 0 (0 == no buffering)",
        ));
    }
    Ok((Kind::TfRecord, compression, buffer_size))
}

/// `TextLineDataset(filenames, compression_type, buffer_size)`.
fn text_line_args(ctx: &OpContext<'_>) -> Result<(Kind, Compression, i64)> {
    let compression = strict_compression(&string_arg(ctx, 1)?)?;
    let buffer_size = ctx.input(2).to_scalar::<i64>()?;
    if buffer_size < 0 {
        return Err(Error::invalid_argument(
            "`buffer_size` must be >= 0 (0 == default)",
        ));
    }
    Ok((Kind::TextLine, compression, buffer_size))
}

/// `FixedLengthRecordDatasetV2(filenames, header_bytes, record_bytes, footer_bytes,
/// buffer_size, compression_type)`.
fn fixed_length_args(ctx: &OpContext<'_>) -> Result<(Kind, Compression, i64)> {
    let int = |i: usize| ctx.input(i).to_scalar::<i64>();
    let (header, record, footer, buffer_size) = (int(1)?, int(2)?, int(3)?, int(4)?);
    let check = |ok: bool, msg: &str| {
        if ok {
            Ok(())
        } else {
            Err(Error::invalid_argument(msg))
        }
    };
    check(header >= 0, "`header_bytes` must be >= 0")?;
    check(record > 0, "`record_bytes` must be > 0")?;
    check(footer >= 0, "`footer_bytes` must be >= 0")?;
    check(buffer_size >= 0, "`buffer_size` must be >= 0")?;
    let compression = strict_compression(&string_arg(ctx, 5)?)?;
    let layout = Layout {
        header: header as u64,
        record: record as u64,
        footer: footer as u64,
    };
    Ok((Kind::FixedLength(layout), compression, buffer_size))
}

pub(super) fn register() {
    let s = || ArgType::Fixed(DType::String);
    let i = || ArgType::Fixed(DType::I64);
    for op in ["TFRecordDataset", "TextLineDataset"] {
        register_op(
            dataset_def(op)
                .input("filenames", s())
                .input("compression_type", s())
                .input("buffer_size", i()),
        );
    }
    register_op(
        dataset_def("FixedLengthRecordDatasetV2")
            .input("filenames", s())
            .input("header_bytes", i())
            .input("record_bytes", i())
            .input("footer_bytes", i())
            .input("buffer_size", i())
            .input("compression_type", s()),
    );
    register_kernel("TFRecordDataset", |_| {
        Ok(Box::new(FilesKernel(tf_record_args)))
    });
    register_kernel("TextLineDataset", |_| {
        Ok(Box::new(FilesKernel(text_line_args)))
    });
    register_kernel("FixedLengthRecordDatasetV2", |_| {
        Ok(Box::new(FilesKernel(fixed_length_args)))
    });
}

// ---------------------------------------------------------------------------------------------
// Graph builders.

impl Dataset {
    /// A file dataset op `op` on `filenames` (flattened to a vector as TensorFlow's Python does)
    /// followed by `args`: scalar strings out. With `num_parallel_reads`, TensorFlow's
    /// composition: a dataset of the file names, each read by its own op, `n` files at a time
    /// through `parallel_interleave` (cycle `n`, block 1), or through `interleave` with
    /// [`AUTOTUNE`](super::AUTOTUNE) parallelism when `n` is `AUTOTUNE`.
    fn files(
        op: &str,
        filenames: &Output,
        args: &[Tensor],
        num_parallel_reads: Option<i64>,
    ) -> Result<Dataset> {
        if filenames.dtype() != DType::String {
            return Err(Error::invalid_argument(
                "`filenames` must be a `tf.Tensor` of `tf.string` elements.",
            ));
        }
        let names = match (filenames.shape().rank(), num_parallel_reads) {
            (Some(0 | 1), None) => filenames.clone(),
            _ => crate::array::reshape(filenames, [-1i64])?,
        };
        let one_op = |names: &Output| {
            let g = names.graph();
            let mut b = crate::new_op(g, op).input(names.clone());
            for a in args {
                b = b.input(crate::array::constant(g, a.clone())?);
            }
            Dataset::build(b, vec![DType::String], vec![Shape::scalar()])
        };
        let Some(n) = num_parallel_reads else {
            return one_op(&names);
        };
        let each_file = |f: &[Output]| one_op(&f[0]);
        let names = Dataset::from_tensor_slices(&[names])?;
        if n == super::AUTOTUNE {
            names.interleave_with(
                each_file,
                super::InterleaveOptions {
                    num_parallel_calls: Some(super::AUTOTUNE),
                    ..super::InterleaveOptions::default()
                },
            )
        } else {
            names.parallel_interleave(each_file, super::ParallelInterleaveOptions::new(n))
        }
    }
}

/// A string vector constant of `files`.
fn file_list(g: &Graph, files: &[&str]) -> Result<Output> {
    crate::array::constant(g, Tensor::from(files))
}

/// Defines the builder of a dataset op over files that takes `filenames`, `compression_type`
/// and `buffer_size` inputs: `TfRecordDataset` and `TextLineDataset` have the same arguments.
macro_rules! compressed_files_builder {
    ($(#[$doc:meta])* $name:ident, $op:literal, $items:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name {
            filenames: Output,
            compression_type: String,
            buffer_size: i64,
            num_parallel_reads: Option<i64>,
        }

        impl $name {
            #[doc = concat!("The ", $items, " of the files named by `filenames`, a string scalar or vector.")]
            pub fn new(filenames: &Output) -> $name {
                $name {
                    filenames: filenames.clone(),
                    compression_type: String::new(),
                    buffer_size: DEFAULT_BUFFER,
                    num_parallel_reads: None,
                }
            }

            #[doc = concat!("The ", $items, " of `files`, given as a constant in `g`.")]
            pub fn from_files(g: &Graph, files: &[&str]) -> Result<$name> {
                Ok($name::new(&file_list(g, files)?))
            }

            /// `compression_type`: `""` (the default), `"ZLIB"` or `"GZIP"`.
            pub fn compression_type(mut self, c: &str) -> Self {
                self.compression_type = c.to_string();
                self
            }

            /// `buffer_size`: bytes read at a time (default 256 KiB; 0 means the default).
            pub fn buffer_size(mut self, bytes: i64) -> Self {
                self.buffer_size = bytes;
                self
            }

            /// `num_parallel_reads`: files read at once, each on a thread of its own, their records
            /// alternating one at a time (TensorFlow's deterministic order of
            /// `parallel_interleave(cycle_length=n)`; [`AUTOTUNE`](super::AUTOTUNE) interleaves with
            /// TensorFlow's automatic cycle). Default: one file after the other.
            pub fn num_parallel_reads(mut self, n: i64) -> Self {
                self.num_parallel_reads = Some(n);
                self
            }

            /// Adds the dataset's ops.
            pub fn build(&self) -> Result<Dataset> {
                Dataset::files(
                    $op,
                    &self.filenames,
                    &[
                        Tensor::from(self.compression_type.as_str()),
                        Tensor::scalar(self.buffer_size),
                    ],
                    self.num_parallel_reads,
                )
            }
        }
    };
}

compressed_files_builder!(
/// `tf.data.TFRecordDataset(filenames, compression_type=None, buffer_size=None,
/// num_parallel_reads=None)`: the records
/// of TFRecord files, in order, as scalar strings (op `TFRecordDataset`).
///
/// Damage is DataLoss from `get_next` after the records before it (the next run goes on with
/// the next file); a missing file is NotFound `"<file>; No such file or directory"`.
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::data::TfRecordDataset;
///
/// let g = Graph::new();
/// let ds = TfRecordDataset::from_files(&g, &["a.tfrecord.gz", "b.tfrecord.gz"])?
///     .compression_type("GZIP")
///     .build()?;
/// assert_eq!(ds.output_types(), &[DType::String]);
/// let record = ds.make_one_shot_iterator()?.get_next()?;
/// assert_eq!(record[0].shape(), Shape::scalar());
/// # Ok::<(), weir_graph::Error>(())
/// ```
    TfRecordDataset,
    "TFRecordDataset",
    "records"
);

compressed_files_builder!(
/// `tf.data.TextLineDataset(filenames, compression_type=None, buffer_size=None,
/// num_parallel_reads=None)`: the lines of
/// text files, in order, without their `\n` and with every `\r` removed (op `TextLineDataset`).
///
/// ```
/// use weir_graph::{DType, Graph};
/// use weir_ops::data::TextLineDataset;
///
/// let g = Graph::new();
/// let ds = TextLineDataset::from_files(&g, &["train.csv"])?.build()?.skip(1)?;
/// assert_eq!(ds.output_types(), &[DType::String]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
    TextLineDataset,
    "TextLineDataset",
    "lines"
);

/// `tf.data.FixedLengthRecordDataset(filenames, record_bytes, header_bytes=None,
/// footer_bytes=None, buffer_size=None, compression_type=None, num_parallel_reads=None)`:
/// records of `record_bytes` between each file's header and footer (op
/// `FixedLengthRecordDatasetV2`).
///
/// Stricter than `FixedLengthRecordReader`: a body that is not a whole number of records is
/// InvalidArgument (DataLoss when compressed) rather than a dropped partial record.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::data::FixedLengthRecordDataset;
///
/// let g = Graph::new();
/// // CIFAR-10's binary files: 1 label byte and a 32x32x3 image per record.
/// let ds = FixedLengthRecordDataset::from_files(&g, &["data_batch_1.bin"], 1 + 32 * 32 * 3)?
///     .header_bytes(0)
///     .build()?
///     .batch(128)?;
/// assert_eq!(ds.output_shapes(), &[weir_graph::Shape::new(vec![None])]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FixedLengthRecordDataset {
    filenames: Output,
    record_bytes: i64,
    header_bytes: i64,
    footer_bytes: i64,
    buffer_size: i64,
    compression_type: String,
    num_parallel_reads: Option<i64>,
}

impl FixedLengthRecordDataset {
    /// Records of `record_bytes` from the files named by `filenames`, a string scalar or
    /// vector.
    pub fn new(filenames: &Output, record_bytes: i64) -> FixedLengthRecordDataset {
        FixedLengthRecordDataset {
            filenames: filenames.clone(),
            record_bytes,
            header_bytes: 0,
            footer_bytes: 0,
            buffer_size: DEFAULT_BUFFER,
            compression_type: String::new(),
            num_parallel_reads: None,
        }
    }

    /// Records of `record_bytes` from `files`, given as a constant in `g`.
    pub fn from_files(
        g: &Graph,
        files: &[&str],
        record_bytes: i64,
    ) -> Result<FixedLengthRecordDataset> {
        Ok(FixedLengthRecordDataset::new(
            &file_list(g, files)?,
            record_bytes,
        ))
    }

    /// `header_bytes`: bytes skipped at the start of each file (default 0).
    pub fn header_bytes(mut self, n: i64) -> Self {
        self.header_bytes = n;
        self
    }

    /// `footer_bytes`: bytes ignored at the end of each file (default 0).
    pub fn footer_bytes(mut self, n: i64) -> Self {
        self.footer_bytes = n;
        self
    }

    /// `buffer_size`: bytes read at a time (default 256 KiB; 0 means the default).
    pub fn buffer_size(mut self, bytes: i64) -> Self {
        self.buffer_size = bytes;
        self
    }

    /// `compression_type`: `""` (the default), `"ZLIB"` or `"GZIP"`; header, footer and records
    /// are then counted in the decompressed bytes.
    pub fn compression_type(mut self, c: &str) -> Self {
        self.compression_type = c.to_string();
        self
    }

    /// `num_parallel_reads`: files read at once, each on a thread of its own, their records
    /// alternating one at a time (TensorFlow's deterministic order of
    /// `parallel_interleave(cycle_length=n)`; [`AUTOTUNE`](super::AUTOTUNE) interleaves with
    /// TensorFlow's automatic cycle). Default: one file after the other.
    pub fn num_parallel_reads(mut self, n: i64) -> Self {
        self.num_parallel_reads = Some(n);
        self
    }

    /// Adds the dataset's ops.
    pub fn build(&self) -> Result<Dataset> {
        Dataset::files(
            "FixedLengthRecordDatasetV2",
            &self.filenames,
            &[
                Tensor::scalar(self.header_bytes),
                Tensor::scalar(self.record_bytes),
                Tensor::scalar(self.footer_bytes),
                Tensor::scalar(self.buffer_size),
                Tensor::from(self.compression_type.as_str()),
            ],
            self.num_parallel_reads,
        )
    }
}
