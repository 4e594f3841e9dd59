//! The steps that TensorFlow's `readers.py` shares between `make_csv_dataset` and
//! `make_batched_features_dataset`: files read through `parallel_interleave` (or `interleave`
//! with `AUTOTUNE`), and `_maybe_shuffle_and_repeat`.

use weir_graph::{Output, Result};

use super::{Dataset, InterleaveOptions, ParallelInterleaveOptions, AUTOTUNE};

/// The records of the files `files` names, read by `read` (a dataset per file name): with
/// `interleave(num_parallel_calls=AUTOTUNE)` when `threads` is [`AUTOTUNE`], else with
/// `parallel_interleave(cycle_length=threads)`; `sloppy` allows any order.
pub(super) fn interleave_files(
    files: Dataset,
    threads: i64,
    sloppy: bool,
    read: impl FnOnce(&[Output]) -> Result<Dataset>,
) -> Result<Dataset> {
    if threads == AUTOTUNE {
        let mut o = InterleaveOptions::default().num_parallel_calls(AUTOTUNE);
        o.deterministic = Some(!sloppy);
        files.interleave_with(read, o)
    } else {
        let mut o = ParallelInterleaveOptions::new(threads);
        o.sloppy = Some(sloppy);
        files.parallel_interleave(read, o)
    }
}

/// TensorFlow's `_maybe_shuffle_and_repeat`: `shuffle(buffer_size, seed)` when `shuffle`, then
/// `repeat(num_epochs)` unless `num_epochs` is 1.
pub(super) fn maybe_shuffle_and_repeat(
    mut ds: Dataset,
    shuffle: bool,
    buffer_size: i64,
    seed: Option<i64>,
    num_epochs: Option<i64>,
) -> Result<Dataset> {
    if shuffle {
        ds = ds.shuffle_with(buffer_size).maybe_seed(seed).build()?;
    }
    if num_epochs != Some(1) {
        ds = ds.repeat(num_epochs)?;
    }
    Ok(ds)
}
