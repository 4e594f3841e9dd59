//! The metrics on scores at thresholds: `auc`, `precision_at_thresholds`,
//! `recall_at_thresholds` and the four `*_at_thresholds` counts, all built on TensorFlow's
//! `_confusion_matrix_at_thresholds` (a prediction is positive at a threshold when it is
//! strictly greater).

use std::fmt;
use std::str::FromStr;

use weir_graph::{DType, Error, Graph, Output, Result, Tensor};
use weir_ops::array::{self, constant};
use weir_ops::control_flow::{assert_greater_equal, assert_less_equal};
use weir_ops::math::{self, Reduce};

use super::{metric_options, metric_variable, remove_squeezable, MetricOptions};
use crate::losses::{broadcast_weights, graph_of, named_op};

/// The cells of the confusion matrix at each threshold, in TensorFlow's creation order.
const CELLS: [&str; 4] = ["tp", "fn", "tn", "fp"];

/// What `_confusion_matrix_at_thresholds` returns: per included cell, the variable's value and
/// its update, each of shape `[num_thresholds]`.
struct AtThresholds {
    values: Vec<(&'static str, Output)>,
    updates: Vec<(&'static str, Output)>,
}

impl AtThresholds {
    fn get(&self, cell: &str) -> Result<(Output, Output)> {
        let find = |v: &[(&str, Output)]| {
            v.iter()
                .find(|(c, _)| *c == cell)
                .map(|(_, o)| o.clone())
                .ok_or_else(|| Error::internal(format!("{cell} was not computed")))
        };
        Ok((find(&self.values)?, find(&self.updates)?))
    }
}

/// `_confusion_matrix_at_thresholds(labels, predictions, thresholds, weights, includes)`:
/// predictions (checked to be in [0, 1] at run time) compared with every threshold.
fn confusion_at_thresholds(
    labels: &Output,
    predictions: &Output,
    thresholds: &[f64],
    weights: Option<Output>,
    includes: &[&str],
) -> Result<AtThresholds> {
    let g = graph_of(&[labels, predictions])?;
    let pd = predictions.dtype();
    let msg = Some("predictions must be in [0, 1]");
    let lo = assert_greater_equal(predictions, &math::cast(constant(&g, 0.0f32)?, pd)?, msg)?;
    let hi = assert_less_equal(predictions, &math::cast(constant(&g, 1.0f32)?, pd)?, msg)?;
    let (labels, predictions, weights) = {
        let _deps = g.control_dependencies(&[lo, hi])?;
        remove_squeezable(
            math::cast(predictions, DType::F32)?,
            math::cast(labels, DType::Bool)?,
            weights,
        )?
    };
    let n = thresholds.len();
    let predictions_2d = array::reshape(&predictions, [-1i64, 1])?;
    let labels_2d = array::reshape(math::cast(&labels, DType::Bool)?, [1i64, -1])?;
    let num_predictions: Output = match predictions_2d.shape().dim(0) {
        Some(k) => constant(&g, k as i32)?,
        None => array::reshape(
            array::slice(array::shape(&predictions_2d)?, [0i32], [1i32])?,
            Vec::<i32>::new(),
        )?,
    };
    let t: Vec<f32> = thresholds.iter().map(|&v| v as f32).collect();
    let multiples = array::stack(&[constant(&g, 1i32)?, num_predictions], 0)?;
    let thresh_tiled = array::tile(
        array::expand_dims(constant(&g, Tensor::from(t))?, 1)?,
        multiples,
    )?;
    let pred_is_pos = math::greater(
        array::tile(array::transpose_default(&predictions_2d)?, [n as i64, 1])?,
        &thresh_tiled,
    )?;
    let pred_is_neg = math::logical_not(&pred_is_pos)?;
    let label_is_pos = array::tile(&labels_2d, [n as i64, 1])?;
    let label_is_neg = math::logical_not(&label_is_pos)?;
    let weights_tiled = match weights {
        Some(w) => {
            let w = broadcast_weights(&math::cast(&w, DType::F32)?, &predictions)?;
            Some(array::tile(array::reshape(&w, [1i64, -1])?, [n as i64, 1])?)
        }
        None => None,
    };
    let mut out = AtThresholds {
        values: Vec::new(),
        updates: Vec::new(),
    };
    for cell in CELLS.into_iter().filter(|c| includes.contains(c)) {
        let (name, l, p) = match cell {
            "tp" => ("true_positives", &label_is_pos, &pred_is_pos),
            "fn" => ("false_negatives", &label_is_pos, &pred_is_neg),
            "tn" => ("true_negatives", &label_is_neg, &pred_is_neg),
            _ => ("false_positives", &label_is_neg, &pred_is_pos),
        };
        let var = metric_variable(&g, &[n], DType::F32, name)?;
        let mut is_cell = math::cast(math::logical_and(l, p)?, DType::F32)?;
        if let Some(w) = &weights_tiled {
            is_cell = math::mul(&is_cell, w)?;
        }
        let update = var.assign_add(Reduce::sum().axis(1).build(&is_cell)?)?;
        out.values.push((cell, (&var).into()));
        out.updates.push((cell, update));
    }
    Ok(out)
}

/// The curve whose area `auc` computes: `curve='ROC'` or `'PR'`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Curve {
    /// The ROC curve: recall against the false positive rate (the default).
    #[default]
    Roc,
    /// The precision-recall curve.
    Pr,
}

impl FromStr for Curve {
    type Err = Error;

    /// `"ROC"` or `"PR"`; anything else is TensorFlow's ValueError, as InvalidArgument.
    fn from_str(s: &str) -> Result<Curve> {
        match s {
            "ROC" => Ok(Curve::Roc),
            "PR" => Ok(Curve::Pr),
            other => Err(Error::invalid_argument(format!(
                "Curve must be either ROC or PR. Curve {other} is unknown."
            ))),
        }
    }
}

/// How `auc` sums the area: TensorFlow's `summation_method`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SummationMethod {
    /// `'trapezoidal'` (the default): the trapezoidal rule.
    #[default]
    Trapezoidal,
    /// `'careful_interpolation'`: for PR, the interpolation of Davis & Goadrich; for ROC, the
    /// trapezoidal rule.
    CarefulInterpolation,
    /// `'minoring'`: left Riemann sums under the curve.
    Minoring,
    /// `'majoring'`: right Riemann sums over the curve.
    Majoring,
}

impl fmt::Display for SummationMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SummationMethod::Trapezoidal => "trapezoidal",
            SummationMethod::CarefulInterpolation => "careful_interpolation",
            SummationMethod::Minoring => "minoring",
            SummationMethod::Majoring => "majoring",
        })
    }
}

impl FromStr for SummationMethod {
    type Err = Error;

    /// TensorFlow's names; anything else is its ValueError, as InvalidArgument.
    fn from_str(s: &str) -> Result<SummationMethod> {
        match s {
            "trapezoidal" => Ok(SummationMethod::Trapezoidal),
            "careful_interpolation" => Ok(SummationMethod::CarefulInterpolation),
            "minoring" => Ok(SummationMethod::Minoring),
            "majoring" => Ok(SummationMethod::Majoring),
            other => Err(Error::invalid_argument(format!(
                "Invalid summation_method: {other} summation_method should be 'trapezoidal', 'careful_interpolation', 'minoring', or 'majoring'."
            ))),
        }
    }
}

/// The options of `tf.compat.v1.metrics.auc(labels, predictions, weights=None,
/// num_thresholds=200, curve='ROC', summation_method='trapezoidal', thresholds=None, ...)`:
/// the area under the ROC or PR curve, from the confusion counts at `num_thresholds`
/// thresholds spread evenly over [0, 1] (plus `-1e-7` and `1 + 1e-7`), in the variables
/// `auc/true_positives`, `/false_negatives`, `/true_negatives`, `/false_positives`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::constant;
/// # use weir_ops::state::local_variables_initializer;
/// # use weir_session::Session;
/// use weir_train::metrics::{Auc, Curve};
/// let g = Graph::new();
/// let labels = constant(&g, [0i64, 0, 1, 1])?;
/// let scores = constant(&g, [0.1f32, 0.4, 0.35, 0.8])?;
/// let (auc, update) = Auc::new(&labels, &scores).curve(Curve::Roc).build()?;
/// let s = Session::new(&g)?;
/// s.run_target(&local_variables_initializer(&g)?)?;
/// let v = s.eval(&update)?.to_vec::<f32>()?[0];
/// assert!((v - 0.75).abs() < 1e-2);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Auc {
    labels: Output,
    predictions: Output,
    num_thresholds: usize,
    curve: Curve,
    summation_method: SummationMethod,
    thresholds: Option<Vec<f64>>,
    opts: MetricOptions,
}

impl Auc {
    /// The AUC of scores `predictions` in [0, 1] against bool (or 0/1) `labels`, with
    /// TensorFlow's defaults.
    pub fn new(labels: impl Into<Output>, predictions: impl Into<Output>) -> Auc {
        Auc {
            labels: labels.into(),
            predictions: predictions.into(),
            num_thresholds: 200,
            curve: Curve::Roc,
            summation_method: SummationMethod::Trapezoidal,
            thresholds: None,
            opts: MetricOptions::default(),
        }
    }

    /// How many thresholds discretize the curve (default 200; at least 2).
    pub fn num_thresholds(mut self, n: usize) -> Auc {
        self.num_thresholds = n;
        self
    }

    /// The curve (default ROC).
    pub fn curve(mut self, curve: Curve) -> Auc {
        self.curve = curve;
        self
    }

    /// The summation method (default trapezoidal).
    pub fn summation_method(mut self, m: SummationMethod) -> Auc {
        self.summation_method = m;
        self
    }

    /// Explicit thresholds (sorted here) instead of evenly spread ones; `num_thresholds`
    /// becomes their number plus 2.
    pub fn thresholds(mut self, t: &[f64]) -> Auc {
        self.thresholds = Some(t.to_vec());
        self
    }

    /// Adds the variables and ops: `(auc, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        let g = graph_of(&[&self.labels, &self.predictions])?;
        let _scope = g.name_scope(self.opts.name.as_deref().unwrap_or("auc"));
        const KEPSILON: f64 = 1e-7;
        let inner = match self.thresholds {
            Some(mut t) => {
                t.sort_by(f64::total_cmp);
                t
            }
            None => {
                if self.num_thresholds < 2 {
                    return Err(Error::invalid_argument(format!(
                        "num_thresholds must be at least 2, got {}",
                        self.num_thresholds
                    )));
                }
                let n = self.num_thresholds;
                (0..n - 2)
                    .map(|i| (i + 1) as f64 / (n - 1) as f64)
                    .collect()
            }
        };
        let mut thresholds = vec![0.0 - KEPSILON];
        thresholds.extend(inner);
        thresholds.push(1.0 + KEPSILON);
        let w = self.opts.weights_output(&g)?;
        let cm = confusion_at_thresholds(&self.labels, &self.predictions, &thresholds, w, &CELLS)?;
        let (tp, tp_u) = cm.get("tp")?;
        let (fn_, fn_u) = cm.get("fn")?;
        let (tn, tn_u) = cm.get("tn")?;
        let (fp, fp_u) = cm.get("fp")?;
        let n = thresholds.len();
        let how = (self.curve, self.summation_method);
        let value = compute_auc(&g, how, n, [&tp, &fn_, &tn, &fp], "value")?;
        let update = compute_auc(&g, how, n, [&tp_u, &fn_u, &tn_u, &fp_u], "update_op")?;
        self.opts.collect(&value, &update)?;
        Ok((value, update))
    }
}

metric_options!(Auc);

/// `tf.compat.v1.metrics.auc(labels, predictions)` with every default (ROC, 200 thresholds,
/// trapezoidal).
pub fn auc(labels: impl Into<Output>, predictions: impl Into<Output>) -> Result<(Output, Output)> {
    Auc::new(labels, predictions).build()
}

/// `x[:n-1]` and `x[1:]`.
fn heads_tails(x: &Output, n: usize) -> Result<(Output, Output)> {
    let k = n as i64 - 1;
    Ok((array::slice(x, [0i64], [k])?, array::slice(x, [1i64], [k])?))
}

/// `auc`'s `compute_auc(tp, fn, tn, fp, name)`.
fn compute_auc(
    g: &Graph,
    (curve, method): (Curve, SummationMethod),
    n: usize,
    [tp, fn_, tn, fp]: [&Output; 4],
    name: &str,
) -> Result<Output> {
    if curve == Curve::Pr && method == SummationMethod::CarefulInterpolation {
        return interpolate_pr_auc(g, n, tp, fp, fn_);
    }
    let eps = || constant(g, 1.0e-6f32);
    let rec = math::realdiv(
        math::add(tp, eps()?)?,
        math::add(math::add(tp, fn_)?, eps()?)?,
    )?;
    let (x, y) = match curve {
        Curve::Roc => {
            let fp_rate = math::realdiv(fp, math::add(math::add(fp, tn)?, eps()?)?)?;
            (fp_rate, rec)
        }
        Curve::Pr => {
            let prec = math::realdiv(
                math::add(tp, eps()?)?,
                math::add(math::add(tp, fp)?, eps()?)?,
            )?;
            (rec, prec)
        }
    };
    let (x0, x1) = heads_tails(&x, n)?;
    let (y0, y1) = heads_tails(&y, n)?;
    let height = match method {
        SummationMethod::Minoring => math::minimum(&y0, &y1)?,
        SummationMethod::Majoring => math::maximum(&y0, &y1)?,
        _ => math::realdiv(math::add(&y0, &y1)?, constant(g, 2.0f32)?)?,
    };
    let areas = math::mul(math::sub(&x0, &x1)?, &height)?;
    Reduce::sum().name(name).build(&areas)
}

/// `auc`'s `interpolate_pr_auc(tp, fp, fn)`: the PR area with precision interpolated between
/// thresholds (Davis & Goadrich 2006).
fn interpolate_pr_auc(
    g: &Graph,
    n: usize,
    tp: &Output,
    fp: &Output,
    fn_: &Output,
) -> Result<Output> {
    let zero = || constant(g, 0.0f32);
    let (tp0, tp1) = heads_tails(tp, n)?;
    let dtp = math::sub(&tp0, &tp1)?;
    let p = math::add(tp, fp)?;
    let (p0, p1) = heads_tails(&p, n)?;
    let dp = math::maximum(math::sub(&p0, &p1)?, zero()?)?;
    let prec_slope = named_op(g, "DivNoNan", &[&dtp, &dp], Some("prec_slope"))?;
    let intercept = math::sub(&tp1, math::mul(&prec_slope, &p1)?)?;
    let both = math::logical_and(math::greater(&p0, zero()?)?, math::greater(&p1, zero()?)?)?;
    let p1_pos = math::maximum(&p1, zero()?)?;
    let ratio = named_op(
        g,
        "DivNoNan",
        &[&p0, &p1_pos],
        Some("recall_relative_ratio"),
    )?;
    let safe_p_ratio = math::select(&both, &ratio, array::ones_like(&p1)?)?;
    let num = math::mul(
        &prec_slope,
        math::add(&dtp, math::mul(&intercept, math::log(&safe_p_ratio)?)?)?,
    )?;
    let (_, fn1) = heads_tails(fn_, n)?;
    let den = math::maximum(math::add(&tp1, &fn1)?, zero()?)?;
    let increment = named_op(g, "DivNoNan", &[&num, &den], Some("pr_auc_increment"))?;
    Reduce::sum().name("interpolate_pr_auc").build(&increment)
}

/// Declares a metric on the confusion counts at explicit thresholds.
macro_rules! at_thresholds {
    ($(#[$doc:meta])* $t:ident, $f:ident, $fdoc:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $t {
            labels: Output,
            predictions: Output,
            thresholds: Vec<f64>,
            opts: MetricOptions,
        }

        impl $t {
            /// The metric of scores `predictions` in [0, 1] against bool (or 0/1) `labels` at
            /// each of `thresholds`, with TensorFlow's defaults.
            pub fn new(
                labels: impl Into<Output>,
                predictions: impl Into<Output>,
                thresholds: &[f64],
            ) -> $t {
                $t {
                    labels: labels.into(),
                    predictions: predictions.into(),
                    thresholds: thresholds.to_vec(),
                    opts: MetricOptions::default(),
                }
            }
        }

        metric_options!($t);

        #[doc = $fdoc]
        pub fn $f(
            labels: impl Into<Output>,
            predictions: impl Into<Output>,
            thresholds: &[f64],
        ) -> Result<(Output, Output)> {
            $t::new(labels, predictions, thresholds).build()
        }
    };
}

/// The shared body: scope, counts of `cells`, then `finish(values, updates)`.
fn thresholds_metric(
    default: &str,
    labels: &Output,
    predictions: &Output,
    thresholds: &[f64],
    opts: &MetricOptions,
    cells: &[&str],
    finish: impl Fn(&[Output], &str) -> Result<Output>,
) -> Result<(Output, Output)> {
    let g = graph_of(&[labels, predictions])?;
    let _scope = g.name_scope(opts.name.as_deref().unwrap_or(default));
    let w = opts.weights_output(&g)?;
    let cm = confusion_at_thresholds(labels, predictions, thresholds, w, cells)?;
    let mut values = Vec::new();
    let mut updates = Vec::new();
    for c in cells {
        let (v, u) = cm.get(c)?;
        values.push(v);
        updates.push(u);
    }
    let value = finish(&values, "value")?;
    let update = finish(&updates, "update_op")?;
    opts.collect(&value, &update)?;
    Ok((value, update))
}

/// `divide(a, epsilon + a + b, name=prefix + name)` with epsilon 1e-7.
fn eps_ratio(a: &Output, b: &Output, name: &str) -> Result<Output> {
    let g = a.graph();
    let den = math::add(math::add(constant(g, 1e-7f32)?, a)?, b)?;
    named_op(g, "RealDiv", &[a, &den], Some(name))
}

at_thresholds!(
    /// The options of `tf.compat.v1.metrics.precision_at_thresholds(labels, predictions,
    /// thresholds, weights=None, ...)`: `tp / (1e-7 + tp + fp)` at each threshold.
    PrecisionAtThresholds,
    precision_at_thresholds,
    "`tf.compat.v1.metrics.precision_at_thresholds(labels, predictions, thresholds)`."
);

impl PrecisionAtThresholds {
    /// Adds the variables and ops: `(precision, update_op)`, each of shape `[thresholds]`.
    pub fn build(self) -> Result<(Output, Output)> {
        thresholds_metric(
            "precision_at_thresholds",
            &self.labels,
            &self.predictions,
            &self.thresholds,
            &self.opts,
            &["tp", "fp"],
            |v, name| eps_ratio(&v[0], &v[1], &format!("precision_{name}")),
        )
    }
}

at_thresholds!(
    /// The options of `tf.compat.v1.metrics.recall_at_thresholds(labels, predictions,
    /// thresholds, weights=None, ...)`: `tp / (1e-7 + tp + fn)` at each threshold.
    RecallAtThresholds,
    recall_at_thresholds,
    "`tf.compat.v1.metrics.recall_at_thresholds(labels, predictions, thresholds)`."
);

impl RecallAtThresholds {
    /// Adds the variables and ops: `(recall, update_op)`, each of shape `[thresholds]`.
    pub fn build(self) -> Result<(Output, Output)> {
        thresholds_metric(
            "recall_at_thresholds",
            &self.labels,
            &self.predictions,
            &self.thresholds,
            &self.opts,
            &["tp", "fn"],
            |v, name| eps_ratio(&v[0], &v[1], &format!("recall_{name}")),
        )
    }
}

macro_rules! count_at_thresholds {
    ($t:ident, $f:ident, $cell:literal, $tf:literal) => {
        at_thresholds!(
            #[doc = concat!("The options of `tf.compat.v1.metrics.", $tf, "_at_thresholds(labels, predictions, thresholds, weights=None, ...)`: the (weighted) count at each threshold, in the variable `", $tf, "/", $tf, "`.")]
            $t,
            $f,
            concat!("`tf.compat.v1.metrics.", $tf, "_at_thresholds(labels, predictions, thresholds)`.")
        );

        impl $t {
            /// Adds the variable and ops: `(counts, update_op)`, each of shape `[thresholds]`.
            pub fn build(self) -> Result<(Output, Output)> {
                let g = graph_of(&[&self.labels, &self.predictions])?;
                let _scope = g.name_scope(self.opts.name.as_deref().unwrap_or($tf));
                let w = self.opts.weights_output(&g)?;
                let cm = confusion_at_thresholds(
                    &self.labels,
                    &self.predictions,
                    &self.thresholds,
                    w,
                    &[$cell],
                )?;
                let (var, update) = cm.get($cell)?;
                let value = read_value(&var)?;
                self.opts.collect(&value, &update)?;
                Ok((value, update))
            }
        }
    };
}

/// `tf.identity` of a count variable's value.
fn read_value(v: &Output) -> Result<Output> {
    array::identity(v)
}

count_at_thresholds!(
    TruePositivesAtThresholds,
    true_positives_at_thresholds,
    "tp",
    "true_positives"
);
count_at_thresholds!(
    FalsePositivesAtThresholds,
    false_positives_at_thresholds,
    "fp",
    "false_positives"
);
count_at_thresholds!(
    TrueNegativesAtThresholds,
    true_negatives_at_thresholds,
    "tn",
    "true_negatives"
);
count_at_thresholds!(
    FalseNegativesAtThresholds,
    false_negatives_at_thresholds,
    "fn",
    "false_negatives"
);
