//! The metrics that are weighted means: `mean`, `accuracy`, `mean_absolute_error`,
//! `mean_squared_error` and `root_mean_squared_error`.

use weir_graph::{DType, Output, Result};
use weir_ops::array;
use weir_ops::math::{self, Reduce};

use super::{
    adjust_weights, metric_options, metric_variable, remove_squeezable, safe_div, MetricOptions,
};
use crate::losses::{broadcast_weights, graph_of, to_f32};

/// `tf.compat.v1.metrics.mean`'s body, under the scope `name` (or `default_name`): adds each
/// batch's (weighted) sum to `total` and its size (or weight sum) to `count`.
fn streaming_mean(
    values: &Output,
    weights: Option<Output>,
    opts: &MetricOptions,
    default_name: &str,
) -> Result<(Output, Output)> {
    let g = values.graph().clone();
    let _scope = g.name_scope(opts.name.as_deref().unwrap_or(default_name));
    let mut values = to_f32(values)?;
    let total = metric_variable(&g, &[], DType::F32, "total")?;
    let count = metric_variable(&g, &[], DType::F32, "count")?;
    let num_values = match weights {
        None => to_f32(&array::size(&values)?)?,
        Some(w) => {
            let w = adjust_weights(&values, w)?;
            let w = broadcast_weights(&to_f32(&w)?, &values)?;
            values = math::mul(&values, &w)?;
            Reduce::sum().build(&w)?
        }
    };
    let update_total = total.assign_add(Reduce::sum().build(&values)?)?;
    // TensorFlow builds this under `control_dependencies([values])`; that orders nothing the
    // result depends on, and a control edge from a fed tensor's op (the values are often a
    // placeholder) would make weir's session run the op it was fed instead of, so it is left
    // out.
    let update_count = count.assign_add(&num_values)?;
    let value = safe_div(&(&total).into(), &(&count).into(), "value")?;
    let update = safe_div(&update_total, &update_count, "update_op")?;
    opts.collect(&value, &update)?;
    Ok((value, update))
}

/// The options of `tf.compat.v1.metrics.mean(values, weights=None, metrics_collections=None,
/// updates_collections=None, name=None)`: the (weighted) mean of every value seen, in
/// variables `mean/total` and `mean/count`.
#[derive(Clone, Debug)]
pub struct Mean {
    values: Output,
    opts: MetricOptions,
}

impl Mean {
    /// The running mean of `values`, with TensorFlow's defaults.
    pub fn new(values: impl Into<Output>) -> Mean {
        Mean {
            values: values.into(),
            opts: MetricOptions::default(),
        }
    }

    /// Adds the variables and ops: `(mean, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        let w = self.opts.weights_output(self.values.graph())?;
        streaming_mean(&self.values, w, &self.opts, "mean")
    }
}

metric_options!(Mean);

/// `tf.compat.v1.metrics.mean(values)` with every default.
pub fn mean(values: impl Into<Output>) -> Result<(Output, Output)> {
    Mean::new(values).build()
}

/// Declares a metric on (labels, predictions) whose body is `$body(labels, predictions,
/// weights, opts)`.
macro_rules! pair_metric {
    ($(#[$doc:meta])* $t:ident, $f:ident, $fdoc:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $t {
            labels: Output,
            predictions: Output,
            opts: MetricOptions,
        }

        impl $t {
            /// The metric of `predictions` against `labels` (same shape), with TensorFlow's
            /// defaults.
            pub fn new(labels: impl Into<Output>, predictions: impl Into<Output>) -> $t {
                $t {
                    labels: labels.into(),
                    predictions: predictions.into(),
                    opts: MetricOptions::default(),
                }
            }
        }

        metric_options!($t);

        #[doc = $fdoc]
        pub fn $f(
            labels: impl Into<Output>,
            predictions: impl Into<Output>,
        ) -> Result<(Output, Output)> {
            $t::new(labels, predictions).build()
        }
    };
}
pub(crate) use pair_metric;

/// Squeezes labels, predictions and weights as the mean-based metrics do.
fn squeezed(
    labels: &Output,
    predictions: &Output,
    opts: &MetricOptions,
) -> Result<(Output, Output, Option<Output>)> {
    let g = graph_of(&[labels, predictions])?;
    let w = opts.weights_output(&g)?;
    remove_squeezable(predictions.clone(), labels.clone(), w)
}

pair_metric!(
    /// The options of `tf.compat.v1.metrics.accuracy(labels, predictions, weights=None, ...)`:
    /// how often `predictions` equals `labels` (predictions cast to the labels' dtype), a
    /// weighted mean in variables `accuracy/total` and `accuracy/count`.
    Accuracy,
    accuracy,
    "`tf.compat.v1.metrics.accuracy(labels, predictions)` with every default."
);

impl Accuracy {
    /// Adds the variables and ops: `(accuracy, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        let (l, mut p, w) = squeezed(&self.labels, &self.predictions, &self.opts)?;
        if l.dtype() != p.dtype() {
            p = math::cast(&p, l.dtype())?;
        }
        let is_correct = math::cast(math::equal(&p, &l)?, DType::F32)?;
        streaming_mean(&is_correct, w, &self.opts, "accuracy")
    }
}

pair_metric!(
    /// The options of `tf.compat.v1.metrics.mean_absolute_error(labels, predictions,
    /// weights=None, ...)`: the weighted mean of `|predictions - labels|`.
    MeanAbsoluteError,
    mean_absolute_error,
    "`tf.compat.v1.metrics.mean_absolute_error(labels, predictions)` with every default."
);

impl MeanAbsoluteError {
    /// Adds the variables and ops: `(mean_absolute_error, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        let (l, p, w) = squeezed(&self.labels, &self.predictions, &self.opts)?;
        let errors = math::abs(math::sub(&p, &l)?)?;
        streaming_mean(&errors, w, &self.opts, "mean_absolute_error")
    }
}

pair_metric!(
    /// The options of `tf.compat.v1.metrics.mean_squared_error(labels, predictions,
    /// weights=None, ...)`: the weighted mean of `(labels - predictions)²`.
    MeanSquaredError,
    mean_squared_error,
    "`tf.compat.v1.metrics.mean_squared_error(labels, predictions)` with every default."
);

impl MeanSquaredError {
    /// Adds the variables and ops: `(mean_squared_error, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        let (l, p, w) = squeezed(&self.labels, &self.predictions, &self.opts)?;
        let errors = math::squared_difference(&l, &p)?;
        streaming_mean(&errors, w, &self.opts, "mean_squared_error")
    }
}

pair_metric!(
    /// The options of `tf.compat.v1.metrics.root_mean_squared_error(labels, predictions,
    /// weights=None, ...)`: the square root of the weighted mean squared error, kept in
    /// `root_mean_squared_error/total` and `/count`; value and update are `Sqrt` ops outside
    /// the scope, as in TensorFlow.
    RootMeanSquaredError,
    root_mean_squared_error,
    "`tf.compat.v1.metrics.root_mean_squared_error(labels, predictions)` with every default."
);

impl RootMeanSquaredError {
    /// Adds the variables and ops: `(root_mean_squared_error, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        let (l, p, w) = squeezed(&self.labels, &self.predictions, &self.opts)?;
        let errors = math::squared_difference(&l, &p)?;
        let inner = MetricOptions {
            weights: None,
            metrics_collections: Vec::new(),
            updates_collections: Vec::new(),
            name: self.opts.name.clone(),
        };
        let (mse, update_mse) = streaming_mean(&errors, w, &inner, "root_mean_squared_error")?;
        let value = math::sqrt(&mse)?;
        let update = math::sqrt(&update_mse)?;
        self.opts.collect(&value, &update)?;
        Ok((value, update))
    }
}
