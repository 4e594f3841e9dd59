//! `Dataset.sample_from_datasets` (`tf.data.experimental.sample_from_datasets`): elements
//! drawn at random from several datasets, composed of other ops as TensorFlow 2.21's Python
//! composes it. Pairs of words of `Dataset.random(seed)` seed a `StatelessMultinomial` over
//! the log-weights for each element, and `DirectedInterleaveDataset` takes the element from
//! the dataset drawn; so a seeded sample gives TensorFlow's order.

use weir_graph::{DType, Error, Output, Result, Tensor};

use super::super::Dataset;
use crate::random::StatelessCategorical;

/// The `weights` of [`Dataset::sample_from_datasets`]: TensorFlow's `None`, a list of
/// floats, a float tensor, or a dataset of weight vectors.
#[derive(Clone, Debug)]
pub enum SampleWeights {
    /// Every dataset equally likely (`weights=None`).
    Uniform,
    /// One weight per dataset, made a float32 tensor as Python converts a list of floats;
    /// datasets whose weight is not positive are dropped, as TensorFlow drops them.
    Values(Vec<f64>),
    /// A float32 or float64 tensor of shape `[len(datasets)]`.
    Tensor(Output),
    /// A dataset of such vectors: element `i` weighs the choice of element `i`.
    Dataset(Dataset),
}

impl From<Vec<f64>> for SampleWeights {
    fn from(w: Vec<f64>) -> SampleWeights {
        SampleWeights::Values(w)
    }
}
impl From<&[f64]> for SampleWeights {
    fn from(w: &[f64]) -> SampleWeights {
        SampleWeights::Values(w.to_vec())
    }
}
impl<const N: usize> From<[f64; N]> for SampleWeights {
    fn from(w: [f64; N]) -> SampleWeights {
        SampleWeights::Values(w.to_vec())
    }
}
impl From<Output> for SampleWeights {
    fn from(w: Output) -> SampleWeights {
        SampleWeights::Tensor(w)
    }
}
impl From<Dataset> for SampleWeights {
    fn from(w: Dataset) -> SampleWeights {
        SampleWeights::Dataset(w)
    }
}

/// A scalar int64 index drawn from `logits` (`[1, n]`) by `StatelessMultinomial` with `seed`.
fn select(logits: &Output, seed: &Output) -> Result<Output> {
    let draw = StatelessCategorical::new(1, seed).build(logits)?;
    crate::array::squeeze(draw, &[0, 1])
}

/// `[1, n]` log-weights of a weights tensor.
fn log_weights(weights: &Output) -> Result<Output> {
    crate::array::expand_dims(crate::math::log(weights)?, 0)
}

impl Dataset {
    /// `tf.data.Dataset.sample_from_datasets(datasets, weights=None, seed=None,
    /// stop_on_empty_dataset=False)`: each element taken from a dataset drawn at random with
    /// probabilities proportional to `weights` (see [`SampleWeights`]).
    ///
    /// The draws come from `Dataset.random(seed)`, batched by two, each pair the seed of a
    /// `StatelessMultinomial` over the log-weights, and feed a `DirectedInterleaveDataset`
    /// (see [`choose_from_datasets`](Self::choose_from_datasets)), as TensorFlow 2.21 builds
    /// it: the same seeds (graph and op level) give TensorFlow's order. When a drawn dataset
    /// has ended, the whole ends if `stop_on_empty_dataset`; otherwise the others go on.
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::{Dataset, SampleWeights};
    ///
    /// let g = Graph::new();
    /// let a = Dataset::range(&g, 0, 3, 1)?;
    /// let b = Dataset::range(&g, 10, 13, 1)?;
    /// let ds = Dataset::sample_from_datasets(&[a, b], [0.25, 0.75], Some(7), false)?;
    /// let next = ds.make_one_shot_iterator()?.get_next()?;
    /// // In a session: the six elements in TensorFlow's order, then OutOfRange.
    /// # let _ = (next, SampleWeights::Uniform);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn sample_from_datasets(
        datasets: &[Dataset],
        weights: impl Into<SampleWeights>,
        seed: Option<i64>,
        stop_on_empty_dataset: bool,
    ) -> Result<Dataset> {
        let Some(first) = datasets.first() else {
            return Err(Error::invalid_argument(
                "Invalid `datasets`. `datasets` should not be empty.",
            ));
        };
        for d in datasets {
            d.dense_only("Dataset.sample_from_datasets")?;
        }
        let g = first.graph().clone();
        let n = datasets.len();
        let mut datasets = datasets.to_vec();
        let logits = match weights.into() {
            SampleWeights::Dataset(weights) => {
                let logits = weights.map(|p| {
                    // Python's `log(p)` of the element's tuple packs it: `[1, n]`.
                    let packed = crate::array::stack(p, 0)?;
                    Ok(vec![crate::math::log(packed)?])
                })?;
                let seeds = Dataset::random(&g, seed)?.batch(2)?;
                let selector =
                    Dataset::zip(&[logits, seeds])?.map(|x| Ok(vec![select(&x[0], &x[1])?]))?;
                return Dataset::choose_from_datasets(&datasets, &selector, stop_on_empty_dataset);
            }
            SampleWeights::Uniform => None,
            SampleWeights::Values(w) => {
                if w.len() != n {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `weights`. `weights` should have the same length as \
                         `datasets` but got `len(weights)={}` vs. `len(datasets)={n}`.",
                        w.len()
                    )));
                }
                let kept: Vec<(Dataset, f32)> = datasets
                    .iter()
                    .zip(&w)
                    .filter(|(_, &w)| w > 0.0)
                    .map(|(d, &w)| (d.clone(), w as f32))
                    .collect();
                let kept = if kept.is_empty() {
                    vec![(first.take(0)?, 1.0)]
                } else {
                    kept
                };
                let (kept, w): (Vec<Dataset>, Vec<f32>) = kept.into_iter().unzip();
                datasets = kept;
                let weights = crate::array::constant_named(&g, Tensor::from(w), "weights")?;
                Some(log_weights(&weights)?)
            }
            SampleWeights::Tensor(w) => {
                if !w.shape().is_compatible_with_dims(&[n]) {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `weights`. The shape of `weights` should be compatible with \
                         `[len(datasets)]` but is {}.",
                        w.shape().python_str()
                    )));
                }
                if !matches!(w.dtype(), DType::F32 | DType::F64) {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `weights`. `weights` type must be either `tf.float32` or \
                         `tf.float64` but is <dtype: '{}'>.",
                        w.dtype().python_name()
                    )));
                }
                Some(log_weights(&w)?)
            }
        };
        if datasets.len() == 1 {
            return Ok(datasets.swap_remove(0));
        }
        let k = datasets.len();
        let selector = Dataset::random(&g, seed)?.batch(2)?.map(|s| {
            let logits = match &logits {
                Some(l) => l.clone(),
                // Python's `[[1.0] * len(datasets)]`, made a constant inside the function.
                None => crate::array::constant(
                    s[0].graph(),
                    Tensor::from_vec(&[1, k], vec![1.0f32; k])?,
                )?,
            };
            Ok(vec![select(&logits, &s[0])?])
        })?;
        Dataset::choose_from_datasets(&datasets, &selector, stop_on_empty_dataset)
    }
}

#[cfg(test)]
mod tests {
    use weir_graph::{DType, Graph, Shape, Tensor};

    use super::SampleWeights;
    use crate::array::{constant, placeholder};
    use crate::data::Dataset;

    #[test]
    fn arguments_are_checked_as_tensorflow_checks_them() -> weir_graph::Result<()> {
        let g = Graph::new();
        let a = Dataset::range(&g, 0, 3, 1)?;
        let b = Dataset::range(&g, 5, 9, 1)?;
        let both = [a.clone(), b];
        let e =
            Dataset::sample_from_datasets(&[], SampleWeights::Uniform, None, false).unwrap_err();
        assert_eq!(
            e.message(),
            "Invalid `datasets`. `datasets` should not be empty."
        );
        let w = constant(&g, Tensor::from(vec![1.0f32, 2.0, 3.0]))?;
        let e = Dataset::sample_from_datasets(&both, w, None, false).unwrap_err();
        assert_eq!(
            e.message(),
            "Invalid `weights`. The shape of `weights` should be compatible with \
             `[len(datasets)]` but is (3,)."
        );
        let w = constant(&g, Tensor::from(vec![1i32, 2]))?;
        let e = Dataset::sample_from_datasets(&both, w, None, false).unwrap_err();
        assert_eq!(
            e.message(),
            "Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` but \
             is <dtype: 'int32'>."
        );
        // A fed weights tensor of unknown length passes, and so does a float64 one.
        let w = placeholder(&g, DType::F64, Shape::new(vec![None]))?;
        Dataset::sample_from_datasets(&both, w, Some(1), true)?;
        Ok(())
    }

    #[test]
    fn one_dataset_left_is_the_dataset_itself() -> weir_graph::Result<()> {
        let g = Graph::new();
        let a = Dataset::range(&g, 0, 3, 1)?;
        let b = Dataset::range(&g, 5, 9, 1)?;
        let one = Dataset::sample_from_datasets(std::slice::from_ref(&a), [2.0], None, false)?;
        assert_eq!(one.handle(), a.handle());
        // A weight that is not positive drops its dataset before anything is built.
        let nodes = g.num_nodes();
        let kept = Dataset::sample_from_datasets(&[a, b.clone()], [0.0, 1.0], Some(3), false)?;
        assert_eq!(kept.handle(), b.handle());
        // Only the weights constant and its log were added.
        assert!(
            g.num_nodes() <= nodes + 4,
            "{} nodes",
            g.num_nodes() - nodes
        );
        Ok(())
    }
}
