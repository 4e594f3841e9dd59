//! `tf.data.experimental.TFRecordWriter`: an op (`DatasetToTFRecord`) that writes every element
//! of a dataset of scalar strings as one record of a TFRecord file, when it runs.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, Bytes, DType, Error, Kernel, OpContext, OpDef, Operation, Result};

use super::{input_dataset, Dataset, IteratorContext};
use crate::io::{Compression, TfRecordWriter as FileWriter};

/// `tf.data.experimental.TFRecordWriter(filename, compression_type)`: writes a dataset of
/// scalar strings to the TFRecord file `filename` ("" for no compression, "ZLIB" or "GZIP").
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, data::{Dataset, TfRecordWriter}};
/// let g = Graph::new();
/// let records = Dataset::from_tensor_slices(&[constant(&g, vec!["a", "bc"])?])?;
/// let path = std::env::temp_dir().join("weir_doc_dataset.tfrecord");
/// let write = TfRecordWriter::new(path.to_str().unwrap()).write(&records)?;
/// // Running `write` (a target) writes the file.
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TfRecordWriter {
    filename: String,
    compression_type: String,
}

impl TfRecordWriter {
    /// A writer of the file `filename`, uncompressed.
    pub fn new(filename: &str) -> TfRecordWriter {
        TfRecordWriter {
            filename: filename.to_string(),
            compression_type: String::new(),
        }
    }

    /// `compression_type`: "" (none), "ZLIB" or "GZIP"; anything else writes uncompressed, as
    /// TensorFlow's kernel does.
    pub fn compression_type(mut self, compression_type: &str) -> TfRecordWriter {
        self.compression_type = compression_type.to_string();
        self
    }

    /// `writer.write(dataset)`: the op (op `DatasetToTFRecord`, a run target) that writes the
    /// elements of `dataset`, which must be scalar strings (TensorFlow's TypeError otherwise,
    /// here InvalidArgument).
    pub fn write(&self, dataset: &Dataset) -> Result<Operation> {
        dataset.dense_only("TFRecordWriter.write")?;
        let scalar_strings = dataset.output_types() == [DType::String]
            && dataset.output_shapes().iter().all(|s| s.rank() == Some(0));
        if !scalar_strings {
            let shapes: Vec<String> = dataset
                .output_shapes()
                .iter()
                .map(|s| s.python_str())
                .collect();
            let types: Vec<String> = dataset
                .output_types()
                .iter()
                .map(|d| format!("<dtype: '{d}'>"))
                .collect();
            return Err(Error::invalid_argument(format!(
                "Invalid `dataset`. Expected a`dataset` that produces scalar `tf.string` \
                 elements, but got a dataset which produces elements with shapes {} and types {}.",
                shapes.join(", "),
                types.join(", ")
            )));
        }
        let g = dataset.graph();
        let filename = crate::array::constant_named(g, self.filename.as_str(), "filename")?;
        let compression =
            crate::array::constant_named(g, self.compression_type.as_str(), "compression_type")?;
        crate::new_op(g, "DatasetToTFRecord")
            .input(dataset.handle())
            .input(filename)
            .input(compression)
            .build()
    }
}

struct DatasetToTfRecordKernel;

impl Kernel for DatasetToTfRecordKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dataset = input_dataset(ctx, 0)?;
        let filename = String::from_utf8_lossy(&ctx.input(1).to_scalar::<Bytes>()?).into_owned();
        let compression = Compression::parse_lenient(&String::from_utf8_lossy(
            &ctx.input(2).to_scalar::<Bytes>()?,
        ));
        let it_ctx = IteratorContext::of(ctx);
        let mut it = dataset.make_iterator()?;
        let mut out = FileWriter::create(&filename, compression)?;
        // Records before a failing element stay in the file, as TensorFlow's writer leaves them.
        let written = loop {
            match it.get_next(&it_ctx) {
                Ok(Some(element)) => {
                    let record = element
                        .first()
                        .filter(|t| t.rank() == 0)
                        .ok_or_else(|| {
                            Error::invalid_argument("DatasetToTFRecord needs scalar elements")
                        })?
                        .to_scalar::<Bytes>()?;
                    out.write(&record)?;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        out.close()?;
        written
    }

    /// Reads the whole dataset, which may wait on its own inputs.
    fn may_block(&self) -> bool {
        true
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("DatasetToTFRecord")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("filename", ArgType::Fixed(DType::String))
            .input("compression_type", ArgType::Fixed(DType::String)),
    );
    register_kernel("DatasetToTFRecord", |_| {
        Ok(Box::new(DatasetToTfRecordKernel))
    });
}
