//! `tf.compat.v1.metrics`: streaming metrics. Each returns `(value, update_op)`: running
//! `update_op` accumulates a batch into the metric's local variables and gives the updated
//! value; `value` reads the accumulated value without changing it (0 before any update).
//!
//! The variables are TensorFlow's: float32 zeros (float64 for `mean_iou`'s confusion matrix)
//! named under the metric's scope (`accuracy/total`, `accuracy/count`), not trainable, in the
//! `LOCAL_VARIABLES` and `METRIC_VARIABLES` collections, so `local_variables_initializer`
//! initializes (and resets) them. Given `metrics_collections` / `updates_collections`, the
//! value / update tensors join those collections.
//!
//! ```
//! # use weir_graph::{DType, Graph, Shape, Tensor};
//! # use weir_ops::array::placeholder;
//! # use weir_ops::state::local_variables_initializer;
//! # use weir_session::{RunArgs, Session};
//! use weir_train::metrics::Accuracy;
//! let g = Graph::new();
//! let labels = placeholder(&g, DType::I64, Shape::known(&[4]))?;
//! let predictions = placeholder(&g, DType::I64, Shape::known(&[4]))?;
//! let (acc, update) = Accuracy::new(&labels, &predictions).build()?;
//! assert_eq!(update.name(), "accuracy/update_op:0");
//! let s = Session::new(&g)?;
//! s.run_target(&local_variables_initializer(&g)?)?;
//! for (l, p) in [([1i64, 2, 0, 1], [1i64, 0, 0, 1]), ([0, 0, 1, 2], [0, 1, 1, 2])] {
//!     let feed = RunArgs::new()
//!         .feed(&labels, Tensor::from(l.to_vec()))
//!         .feed(&predictions, Tensor::from(p.to_vec()))
//!         .fetch(&update);
//!     s.run(&feed)?;
//! }
//! assert_eq!(s.eval(&acc)?.to_vec::<f32>()?, vec![0.75]);
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod classes;
mod counts;
mod mean;
mod thresholds;

use weir_graph::{graph_keys, DType, Graph, Output, Result};
use weir_ops::array::{self, zeros};
use weir_ops::state::Variable;

use crate::losses::{named_op, Weights};

pub use classes::{mean_iou, mean_per_class_accuracy, MeanIou, MeanPerClassAccuracy};
pub use counts::{
    false_negatives, false_positives, precision, recall, true_negatives, true_positives,
    FalseNegatives, FalsePositives, Precision, Recall, TrueNegatives, TruePositives,
};
pub use mean::{
    accuracy, mean, mean_absolute_error, mean_squared_error, root_mean_squared_error, Accuracy,
    Mean, MeanAbsoluteError, MeanSquaredError, RootMeanSquaredError,
};
pub use thresholds::{
    auc, false_negatives_at_thresholds, false_positives_at_thresholds, precision_at_thresholds,
    recall_at_thresholds, true_negatives_at_thresholds, true_positives_at_thresholds, Auc, Curve,
    FalseNegativesAtThresholds, FalsePositivesAtThresholds, PrecisionAtThresholds,
    RecallAtThresholds, SummationMethod, TrueNegativesAtThresholds, TruePositivesAtThresholds,
};

/// The options every metric shares: `weights=None, metrics_collections=None,
/// updates_collections=None, name=None`.
#[derive(Clone, Debug, Default)]
pub(crate) struct MetricOptions {
    pub(crate) weights: Option<Weights>,
    pub(crate) metrics_collections: Vec<String>,
    pub(crate) updates_collections: Vec<String>,
    pub(crate) name: Option<String>,
}

impl MetricOptions {
    /// The weights as a tensor of `g`, if any.
    pub(crate) fn weights_output(&self, g: &Graph) -> Result<Option<Output>> {
        self.weights.as_ref().map(|w| w.to_output(g)).transpose()
    }

    /// Adds `value` and `update` to the requested collections.
    pub(crate) fn collect(&self, value: &Output, update: &Output) -> Result<()> {
        for k in &self.metrics_collections {
            value.graph().add_to_collection(k, value.clone())?;
        }
        for k in &self.updates_collections {
            update.graph().add_to_collection(k, update.clone())?;
        }
        Ok(())
    }
}

/// The option setters of a metric builder.
macro_rules! metric_options {
    ($t:ty) => {
        impl $t {
            /// Weights of the examples: a number, or a tensor broadcastable to the predictions
            /// (default: every example counts 1).
            pub fn weights(mut self, weights: impl Into<$crate::losses::Weights>) -> Self {
                self.opts.weights = Some(weights.into());
                self
            }

            /// Collections the value tensor joins.
            pub fn metrics_collections(mut self, keys: &[&str]) -> Self {
                self.opts.metrics_collections = keys.iter().map(|k| k.to_string()).collect();
                self
            }

            /// Collections the update op joins.
            pub fn updates_collections(mut self, keys: &[&str]) -> Self {
                self.opts.updates_collections = keys.iter().map(|k| k.to_string()).collect();
                self
            }

            /// The metric's scope name (default: the metric's own, made unique).
            pub fn name(mut self, name: &str) -> Self {
                self.opts.name = Some(name.to_string());
                self
            }
        }
    };
}
pub(crate) use metric_options;

/// `metric_variable(shape, dtype, name)`: a zero-initialized, non-trainable variable
/// `<scope>/<name>` in `LOCAL_VARIABLES` and `METRIC_VARIABLES`, created outside any control
/// dependency, its initial value under `<scope>/<name>/Initializer/`.
pub(crate) fn metric_variable(
    g: &Graph,
    shape: &[usize],
    dtype: DType,
    name: &str,
) -> Result<Variable> {
    let _lifted = g.init_scope();
    let full = g.unique_name(&format!("{}{name}", g.current_scope()));
    let initial = {
        let _s = g.name_scope(&format!("{full}/Initializer/"));
        zeros(g, dtype, shape)?
    };
    Variable::builder(initial)
        .name(&format!("{full}/"))
        .trainable(false)
        .collections(&[graph_keys::LOCAL_VARIABLES, graph_keys::METRIC_VARIABLES])
        .build()
}

/// `div_no_nan(x, maximum(y, 0), name=name)`, the metrics' safe division.
pub(crate) fn safe_div(x: &Output, y: &Output, name: &str) -> Result<Output> {
    let g = x.graph();
    let zero = weir_ops::array::constant(g, weir_graph::scalar_of(y.dtype(), 0.0)?)?;
    let y = weir_ops::math::maximum(y, &zero)?;
    named_op(g, "DivNoNan", &[x, &y], Some(name))
}

/// The metrics' `_remove_squeezable_dimensions(predictions, labels, weights)`: labels and
/// predictions squeezed to one rank and checked compatible, then the weights adjusted by
/// [`adjust_weights`]. Returns (labels, predictions, weights).
pub(crate) fn remove_squeezable(
    predictions: Output,
    labels: Output,
    weights: Option<Output>,
) -> Result<(Output, Output, Option<Output>)> {
    let (labels, predictions) =
        crate::losses::remove_squeezable_dimensions(labels, predictions, 0)?;
    crate::losses::assert_compatible(&predictions, &labels)?;
    let weights = weights
        .map(|w| adjust_weights(&predictions, w))
        .transpose()?;
    Ok((labels, predictions, weights))
}

/// Weights of rank one more than `predictions` squeezed, of rank one less expanded.
pub(crate) fn adjust_weights(predictions: &Output, w: Output) -> Result<Output> {
    match (w.shape().rank(), predictions.shape().rank()) {
        (Some(0), _) => Ok(w),
        (Some(wr), Some(pr)) if wr == pr + 1 => array::squeeze(&w, &[-1]),
        (Some(wr), Some(pr)) if pr == wr + 1 => array::expand_dims(&w, -1),
        _ => Ok(w),
    }
}

/// The value of a count variable: `tf.identity(var)` (TensorFlow's `read_var`).
pub(crate) fn read(var: &Variable) -> Result<Output> {
    array::identity(var)
}

#[cfg(test)]
mod tests;
