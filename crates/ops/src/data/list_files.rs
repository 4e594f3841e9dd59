//! `Dataset.list_files`: the files matching glob patterns, as a dataset of their names.

use weir_graph::{DType, Error, Output, Result};

use super::builders::Dataset;
use super::shuffle::tf_data_seeds;
use crate::array::{constant, constant_named, identity, shape_typed, StridedSlice};
use crate::control_flow::Assert;
use crate::io::matching_files;
use crate::math::{greater, maximum};
use crate::string::{reduce_join, string_join};

impl Dataset {
    /// `tf.data.Dataset.list_files(file_pattern, shuffle=None, seed=None)`: the sorted names of
    /// the files matching one or more glob patterns (a string scalar or vector), shuffled
    /// unless `shuffle` is `Some(false)`, with `seed` as the shuffle's op seed; a new order for
    /// each `repeat` epoch.
    ///
    /// No match fails where the dataset is made (an initializable iterator's initializer) with
    /// TensorFlow's InvalidArgument "assertion failed: [No files matched pattern: a*, b*]".
    /// (TensorFlow's one-shot iterator drops that check and is silently empty; weir's reports
    /// it.)
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::array::constant;
    /// use weir_ops::data::{Dataset, TfRecordDataset};
    ///
    /// let g = Graph::new();
    /// let files = Dataset::list_files(&constant(&g, "/data/train-*.tfrecord")?, None, Some(7))?;
    /// let records = files.interleave(|f| TfRecordDataset::new(&f[0]).build(), 4, 1)?;
    /// assert_eq!(records.output_types(), &[weir_graph::DType::String]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn list_files(
        file_pattern: &Output,
        shuffle: Option<bool>,
        seed: Option<i64>,
    ) -> Result<Dataset> {
        if file_pattern.dtype() != DType::String {
            return Err(Error::invalid_argument(format!(
                "Expected string, but got {} of type '{}'.",
                file_pattern.name(),
                file_pattern.dtype()
            )));
        }
        let g = file_pattern.graph().clone();
        let _scope = g.name_scope("list_files");
        let matching = matching_files(file_pattern, None)?;
        let count = StridedSlice::new().shrink_axis_mask(1).build(
            shape_typed(&matching, DType::I64)?,
            &[0],
            &[1],
            &[1],
        )?;
        let condition = greater(&count, constant(&g, 0i64)?)?;
        let message = string_join(
            &[
                constant(&g, "No files matched pattern: ")?,
                reduce_join(file_pattern, None, false, ", ")?,
            ],
            "",
        )?;
        let check = Assert::new()
            .summarize(1)
            .name("assert_not_empty")
            .build(&condition, &[message])?;
        let matching = {
            let _deps = g.control_dependencies(&[check])?;
            identity(&matching)?
        };
        let files = Dataset::from_tensor_slices(&[matching])?;
        if shuffle == Some(false) {
            return Ok(files);
        }
        // The buffer holds every name; at least 1, as a shuffle needs, when none matched.
        let buffer_size = maximum(count, constant_named(&g, 1i64, "buffer_size")?)?;
        let (seed, seed2) = tf_data_seeds(&g, seed);
        Dataset::build(
            crate::new_op(&g, "ShuffleDataset")
                .input(files.handle())
                .input(buffer_size)
                .input(constant_named(&g, seed, "seed")?)
                .input(constant_named(&g, seed2, "seed2")?)
                .attr("reshuffle_each_iteration", true),
            files.output_types().to_vec(),
            files.output_shapes().to_vec(),
        )
    }
}
