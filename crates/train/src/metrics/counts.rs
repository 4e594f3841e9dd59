//! The binary-classification counts (`true_positives`, `false_positives`, `true_negatives`,
//! `false_negatives`) and the ratios built on them (`precision`, `recall`). Labels and
//! predictions are cast to bool: any nonzero value is positive.

use weir_graph::{DType, Error, Output, Result};
use weir_ops::array::constant;
use weir_ops::math::{self, Reduce};

use super::mean::pair_metric;
use super::{metric_options, metric_variable, read, remove_squeezable, MetricOptions};
use crate::losses::{graph_of, named_op, to_f32};

/// Which cell of the binary confusion matrix a count metric counts.
#[derive(Clone, Copy)]
enum Kind {
    TruePositives,
    FalsePositives,
    TrueNegatives,
    FalseNegatives,
}

impl Kind {
    fn scope(self) -> &'static str {
        match self {
            Kind::TruePositives => "true_positives",
            Kind::FalsePositives => "false_positives",
            Kind::TrueNegatives => "true_negatives",
            Kind::FalseNegatives => "false_negatives",
        }
    }

    /// The (label, prediction) values counted.
    fn cell(self) -> (bool, bool) {
        match self {
            Kind::TruePositives => (true, true),
            Kind::FalsePositives => (false, true),
            Kind::TrueNegatives => (false, false),
            Kind::FalseNegatives => (true, false),
        }
    }
}

/// Casts labels and predictions to bool and squeezes them with the weights.
fn as_bools(
    labels: &Output,
    predictions: &Output,
    weights: Option<Output>,
) -> Result<(Output, Output, Option<Output>)> {
    let p = math::cast(predictions, DType::Bool)?;
    let l = math::cast(labels, DType::Bool)?;
    remove_squeezable(p, l, weights)
}

/// A count metric under the scope `name` (or the kind's own).
fn count_metric(
    kind: Kind,
    labels: &Output,
    predictions: &Output,
    weights: Option<Output>,
    opts: &MetricOptions,
) -> Result<(Output, Output)> {
    let g = graph_of(&[labels, predictions])?;
    let _scope = g.name_scope(opts.name.as_deref().unwrap_or(kind.scope()));
    let (l, p, w) = as_bools(labels, predictions, weights)?;
    let (want_l, want_p) = kind.cell();
    let is_counted = math::logical_and(
        math::equal(&l, constant(&g, want_l)?)?,
        math::equal(&p, constant(&g, want_p)?)?,
    )?;
    count_condition(&is_counted, w, opts)
}

/// `_count_condition`: adds the (weighted) number of true `values` to the variable `count`.
fn count_condition(
    values: &Output,
    weights: Option<Output>,
    opts: &MetricOptions,
) -> Result<(Output, Output)> {
    let g = values.graph();
    let count = metric_variable(g, &[], DType::F32, "count")?;
    let mut values = to_f32(values)?;
    if let Some(w) = weights {
        if let (Some(wr), Some(vr)) = (w.shape().rank(), values.shape().rank()) {
            if wr != 0 && wr != vr {
                return Err(Error::invalid_argument(format!(
                    "Tensor {} must have rank in (0, {vr}).  Received rank {wr}, shape {}",
                    w.name(),
                    w.shape().python_str()
                )));
            }
        }
        values = math::mul(&values, to_f32(&w)?)?;
    }
    let value = read(&count)?;
    let update = count.assign_add(Reduce::sum().build(&values)?)?;
    opts.collect(&value, &update)?;
    Ok((value, update))
}

macro_rules! count_metric {
    ($t:ident, $f:ident, $kind:expr, $tf:literal) => {
        pair_metric!(
            #[doc = concat!("The options of `tf.compat.v1.metrics.", $tf, "(labels, predictions, weights=None, ...)`: the (weighted) number of ", $tf, " seen, in the variable `", $tf, "/count`.")]
            $t,
            $f,
            concat!("`tf.compat.v1.metrics.", $tf, "(labels, predictions)` with every default.")
        );

        impl $t {
            /// Adds the variable and ops: `(count, update_op)`.
            pub fn build(self) -> Result<(Output, Output)> {
                let g = graph_of(&[&self.labels, &self.predictions])?;
                let w = self.opts.weights_output(&g)?;
                count_metric($kind, &self.labels, &self.predictions, w, &self.opts)
            }
        }
    };
}

count_metric!(
    TruePositives,
    true_positives,
    Kind::TruePositives,
    "true_positives"
);
count_metric!(
    FalsePositives,
    false_positives,
    Kind::FalsePositives,
    "false_positives"
);
count_metric!(
    TrueNegatives,
    true_negatives,
    Kind::TrueNegatives,
    "true_negatives"
);
count_metric!(
    FalseNegatives,
    false_negatives,
    Kind::FalseNegatives,
    "false_negatives"
);

/// `where(a + b > 0, a / (a + b), 0, name)`: precision from (tp, fp), recall from (tp, fn).
fn ratio(a: &Output, b: &Output, name: &str) -> Result<Output> {
    let g = a.graph();
    let zero = constant(g, 0.0f32)?;
    let positive = math::greater(math::add(a, b)?, &zero)?;
    let q = math::realdiv(a, math::add(a, b)?)?;
    named_op(g, "Select", &[&positive, &q, &zero], Some(name))
}

/// `precision` / `recall`: two count metrics in the scope `default`, then their ratio.
fn ratio_metric(
    default: &str,
    other: Kind,
    labels: &Output,
    predictions: &Output,
    opts: &MetricOptions,
) -> Result<(Output, Output)> {
    let g = graph_of(&[labels, predictions])?;
    let _scope = g.name_scope(opts.name.as_deref().unwrap_or(default));
    let w = opts.weights_output(&g)?;
    let (l, p, w) = as_bools(labels, predictions, w)?;
    let inner = MetricOptions::default();
    let (tp, tp_update) = count_metric(Kind::TruePositives, &l, &p, w.clone(), &inner)?;
    let (x, x_update) = count_metric(other, &l, &p, w, &inner)?;
    let value = ratio(&tp, &x, "value")?;
    let update = ratio(&tp_update, &x_update, "update_op")?;
    opts.collect(&value, &update)?;
    Ok((value, update))
}

pair_metric!(
    /// The options of `tf.compat.v1.metrics.precision(labels, predictions, weights=None,
    /// ...)`: `tp / (tp + fp)` (0 when nothing was predicted positive), from the counts in
    /// `precision/true_positives/count` and `precision/false_positives/count`.
    Precision,
    precision,
    "`tf.compat.v1.metrics.precision(labels, predictions)` with every default."
);

impl Precision {
    /// Adds the variables and ops: `(precision, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        ratio_metric(
            "precision",
            Kind::FalsePositives,
            &self.labels,
            &self.predictions,
            &self.opts,
        )
    }
}

pair_metric!(
    /// The options of `tf.compat.v1.metrics.recall(labels, predictions, weights=None, ...)`:
    /// `tp / (tp + fn)` (0 when no label was positive), from the counts in
    /// `recall/true_positives/count` and `recall/false_negatives/count`.
    Recall,
    recall,
    "`tf.compat.v1.metrics.recall(labels, predictions)` with every default."
);

impl Recall {
    /// Adds the variables and ops: `(recall, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        ratio_metric(
            "recall",
            Kind::FalseNegatives,
            &self.labels,
            &self.predictions,
            &self.opts,
        )
    }
}
