//! `tf.data.experimental.make_batched_features_dataset`: batches of parsed `Example`s from
//! the files matching a pattern, composed from `list_files`, `parallel_interleave` (or
//! `interleave`) of a reader dataset, `shuffle`, `repeat`, `batch`, `parse_example_dataset`
//! and `prefetch`, exactly as TensorFlow's Python composes it.

use std::sync::Arc;

use weir_graph::{DType, Error, Graph, Output, Result};

use super::file_pipeline::{interleave_files, maybe_shuffle_and_repeat};
use super::{Dataset, MapOptions, TfRecordDataset, AUTOTUNE};
use crate::parsing::Features;

/// A `reader`: the dataset of the records of one file, given its name.
type ReaderFn = Arc<dyn Fn(&Output) -> Result<Dataset>>;

/// `tf.data.experimental.make_batched_features_dataset(file_pattern, batch_size, features,
/// ...)`, with every argument and TensorFlow's defaults. The element is TensorFlow's features
/// dict (and label): its components are the features by name, then the label, returned with
/// their names; a `VarLenFeature` or `SparseFeature` is a sparse component.
///
/// ```no_run
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::data::MakeBatchedFeaturesDataset;
/// # use weir_ops::parsing::{Features, FixedLenFeature, VarLenFeature};
/// let g = Graph::new();
/// let features = Features::new()
///     .add("age", FixedLenFeature::new(&[], DType::I64).default(-1i64))
///     .add("kws", VarLenFeature::new(DType::String))
///     .add("label", FixedLenFeature::new(&[], DType::I64));
/// let (train, names) = MakeBatchedFeaturesDataset::new(&["data/train-*.tfrecord"], 32, features)
///     .label_key("label")
///     .num_epochs(Some(1))
///     .build(&g)?;
/// assert_eq!(names, ["age", "kws", "label"]);
/// let next = train.make_one_shot_iterator()?.get_next_components()?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct MakeBatchedFeaturesDataset {
    file_pattern: Vec<String>,
    batch_size: i64,
    features: Features,
    reader: Option<ReaderFn>,
    label_key: Option<String>,
    num_epochs: Option<i64>,
    shuffle: bool,
    shuffle_buffer_size: i64,
    shuffle_seed: Option<i64>,
    prefetch_buffer_size: Option<i64>,
    reader_num_threads: Option<i64>,
    parser_num_threads: Option<i64>,
    sloppy_ordering: bool,
    drop_final_batch: bool,
}

impl MakeBatchedFeaturesDataset {
    /// Batches of `batch_size` `Example`s parsed by `features`, from the files matching any of
    /// `file_pattern`; TensorFlow's defaults for the rest (read as TFRecord files, shuffled,
    /// repeated forever).
    pub fn new(file_pattern: &[&str], batch_size: i64, features: Features) -> Self {
        MakeBatchedFeaturesDataset {
            file_pattern: file_pattern.iter().map(|s| s.to_string()).collect(),
            batch_size,
            features,
            reader: None,
            label_key: None,
            num_epochs: None,
            shuffle: true,
            shuffle_buffer_size: 10_000,
            shuffle_seed: None,
            prefetch_buffer_size: None,
            reader_num_threads: None,
            parser_num_threads: None,
            sloppy_ordering: false,
            drop_final_batch: false,
        }
    }

    /// `reader` (with its `reader_args`): the dataset of one file's records, given the file
    /// name; the default is `TFRecordDataset(filename)`. A reader of `(key, value)` string
    /// pairs is read for its values.
    pub fn reader(mut self, reader: impl Fn(&Output) -> Result<Dataset> + 'static) -> Self {
        self.reader = Some(Arc::new(reader));
        self
    }

    /// `label_key`: the feature returned last, apart from the others (it must be one of
    /// `features`).
    pub fn label_key(mut self, key: &str) -> Self {
        self.label_key = Some(key.to_string());
        self
    }

    /// `num_epochs`: passes over the files; `None` (the default) repeats forever and makes
    /// every batch full.
    pub fn num_epochs(mut self, epochs: Option<i64>) -> Self {
        self.num_epochs = epochs;
        self
    }

    /// `shuffle` (default true): shuffle the file names and the records.
    pub fn shuffle(mut self, shuffle: bool) -> Self {
        self.shuffle = shuffle;
        self
    }

    /// `shuffle_buffer_size` (default 10,000).
    pub fn shuffle_buffer_size(mut self, n: i64) -> Self {
        self.shuffle_buffer_size = n;
        self
    }

    /// `shuffle_seed`.
    pub fn shuffle_seed(mut self, seed: i64) -> Self {
        self.shuffle_seed = Some(seed);
        self
    }

    /// `prefetch_buffer_size` (default [`AUTOTUNE`]).
    pub fn prefetch_buffer_size(mut self, n: i64) -> Self {
        self.prefetch_buffer_size = Some(n);
        self
    }

    /// `reader_num_threads` (default 1): files read at once; [`AUTOTUNE`] uses `interleave`
    /// with parallel calls instead of `parallel_interleave`.
    pub fn reader_num_threads(mut self, n: i64) -> Self {
        self.reader_num_threads = Some(n);
        self
    }

    /// `parser_num_threads` (default 2): batches parsed at once.
    pub fn parser_num_threads(mut self, n: i64) -> Self {
        self.parser_num_threads = Some(n);
        self
    }

    /// `sloppy_ordering` (default false): allow records out of order (weir keeps the
    /// deterministic order anyway).
    pub fn sloppy_ordering(mut self, sloppy: bool) -> Self {
        self.sloppy_ordering = sloppy;
        self
    }

    /// `drop_final_batch` (default false): drop a last batch smaller than `batch_size`.
    pub fn drop_final_batch(mut self, drop: bool) -> Self {
        self.drop_final_batch = drop;
        self
    }

    /// Builds the dataset in `g`: the dataset, and the names of its components (the features
    /// by name, then the label).
    pub fn build(&self, g: &Graph) -> Result<(Dataset, Vec<String>)> {
        let patterns: Vec<&str> = self.file_pattern.iter().map(String::as_str).collect();
        let pattern = crate::array::constant(g, weir_graph::Tensor::from_strings(&patterns))?;
        let mut ds = Dataset::list_files(&pattern, Some(self.shuffle), self.shuffle_seed)?;
        let read = |x: &[Output]| -> Result<Dataset> {
            match &self.reader {
                Some(r) => r(&x[0]),
                None => TfRecordDataset::new(&x[0]).build(),
            }
        };
        let threads = self.reader_num_threads.unwrap_or(1);
        ds = interleave_files(ds, threads, self.sloppy_ordering, read)?;
        if ds.output_types() == [DType::String, DType::String] && ds.sparse_specs()[0].is_none() {
            ds = ds.map(|kv| Ok(vec![kv[1].clone()]))?;
        }
        ds = maybe_shuffle_and_repeat(
            ds,
            self.shuffle,
            self.shuffle_buffer_size,
            self.shuffle_seed,
            self.num_epochs,
        )?;
        ds = ds.batch_with(
            self.batch_size,
            self.drop_final_batch || self.num_epochs.is_none(),
        )?;
        let threads = self.parser_num_threads.unwrap_or(2);
        let (mut ds, mut names) =
            ds.parse_example_dataset(&self.features, MapOptions::parallel(threads))?;
        if let Some(label) = &self.label_key {
            let Some(at) = names.iter().position(|n| n == label) else {
                let keys: Vec<String> = self.features.names().map(|k| format!("'{k}'")).collect();
                return Err(Error::invalid_argument(format!(
                    "The `label_key` provided ({label}) must be one of the `features` keys: \
                     dict_keys([{}]).",
                    keys.join(", ")
                )));
            };
            ds = ds.map_components(|x| {
                let mut out = x.to_vec();
                let l = out.remove(at);
                out.push(l);
                Ok(out)
            })?;
            let l = names.remove(at);
            names.push(l);
        }
        let ds = ds.prefetch(self.prefetch_buffer_size.unwrap_or(AUTOTUNE))?;
        Ok((ds, names))
    }
}
