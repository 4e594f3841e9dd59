//! The multi-class metrics: `mean_iou` (on a streaming confusion matrix) and
//! `mean_per_class_accuracy`.

use weir_graph::{DType, Graph, Output, Result, Tensor};
use weir_ops::array::{self, constant};
use weir_ops::math::{self, ConfusionMatrix, Reduce};

use super::{metric_options, metric_variable, safe_div, MetricOptions};
use crate::losses::{assert_compatible, graph_of, to_f32};

/// `x` flattened to a vector when its static rank is more than 1.
fn flatten(x: Output) -> Result<Output> {
    match x.shape().rank() {
        Some(r) if r > 1 => array::reshape(&x, [-1i64]),
        _ => Ok(x),
    }
}

/// The options of `tf.compat.v1.metrics.mean_iou(labels, predictions, num_classes,
/// weights=None, ...)`: the mean over classes (that occur) of `tp / (tp + fp + fn)`, from a
/// float64 confusion matrix `mean_iou/total_confusion_matrix`. As in TensorFlow, the update
/// op returns the updated confusion matrix, not the IOU.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::constant;
/// # use weir_ops::state::local_variables_initializer;
/// # use weir_session::Session;
/// use weir_train::metrics::MeanIou;
/// let g = Graph::new();
/// let labels = constant(&g, [0i32, 1, 1, 2])?;
/// let predictions = constant(&g, [0i32, 1, 2, 2])?;
/// let (iou, update) = MeanIou::new(&labels, &predictions, 3).build()?;
/// let s = Session::new(&g)?;
/// s.run_target(&local_variables_initializer(&g)?)?;
/// s.eval(&update)?;
/// let v = s.eval(&iou)?.to_vec::<f32>()?[0];
/// assert!((v - (1.0 + 0.5 + 0.5) / 3.0).abs() < 1e-6);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MeanIou {
    labels: Output,
    predictions: Output,
    num_classes: usize,
    opts: MetricOptions,
}

impl MeanIou {
    /// The mean IOU of class ids `predictions` against `labels` (same shape, in
    /// `[0, num_classes)`), with TensorFlow's defaults.
    pub fn new(
        labels: impl Into<Output>,
        predictions: impl Into<Output>,
        num_classes: usize,
    ) -> MeanIou {
        MeanIou {
            labels: labels.into(),
            predictions: predictions.into(),
            num_classes,
            opts: MetricOptions::default(),
        }
    }

    /// Adds the variable and ops: `(mean_iou, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        let g = graph_of(&[&self.labels, &self.predictions])?;
        let _scope = g.name_scope(self.opts.name.as_deref().unwrap_or("mean_iou"));
        assert_compatible(&self.predictions, &self.labels)?;
        let n = self.num_classes;
        let total_cm = metric_variable(&g, &[n, n], DType::F64, "total_confusion_matrix")?;
        let predictions = flatten(math::cast(&self.predictions, DType::I64)?)?;
        let labels = flatten(math::cast(&self.labels, DType::I64)?)?;
        let mut cm = ConfusionMatrix::new(&labels, &predictions)
            .num_classes(n)
            .dtype(DType::F64);
        if let Some(w) = self.opts.weights_output(&g)? {
            cm = cm.weights(flatten(w)?);
        }
        let update = total_cm.assign_add(cm.build()?)?;
        let value = compute_mean_iou(&g, &(&total_cm).into(), n)?;
        self.opts.collect(&value, &update)?;
        Ok((value, update))
    }
}

metric_options!(MeanIou);

/// `mean_iou`'s `compute_mean_iou(total_cm)`.
fn compute_mean_iou(g: &Graph, total_cm: &Output, n: usize) -> Result<Output> {
    let sum_over_row = math::cast(Reduce::sum().axis(0).build(total_cm)?, DType::F32)?;
    let sum_over_col = math::cast(Reduce::sum().axis(1).build(total_cm)?, DType::F32)?;
    // The diagonal (`diag_part`): the matrix times the identity, summed along rows.
    let mut eye = vec![0f64; n * n];
    for i in 0..n {
        eye[i * n + i] = 1.0;
    }
    let eye = constant(g, Tensor::from_vec(&[n, n], eye)?)?;
    let diag = Reduce::sum().axis(1).build(math::mul(total_cm, &eye)?)?;
    let cm_diag = math::cast(&diag, DType::F32)?;
    let denominator = math::sub(math::add(&sum_over_row, &sum_over_col)?, &cm_diag)?;
    let zero = constant(g, 0.0f32)?;
    let num_valid = Reduce::sum().build(math::cast(
        math::not_equal(&denominator, &zero)?,
        DType::F32,
    )?)?;
    let denominator = math::select(
        math::greater(&denominator, &zero)?,
        &denominator,
        array::ones_like(&denominator)?,
    )?;
    let iou = math::realdiv(&cm_diag, &denominator)?;
    let mean = math::realdiv(Reduce::sum().name("mean_iou").build(&iou)?, &num_valid)?;
    math::select(math::greater(&num_valid, &zero)?, &mean, &zero)
}

/// `tf.compat.v1.metrics.mean_iou(labels, predictions, num_classes)` with every default.
pub fn mean_iou(
    labels: impl Into<Output>,
    predictions: impl Into<Output>,
    num_classes: usize,
) -> Result<(Output, Output)> {
    MeanIou::new(labels, predictions, num_classes).build()
}

/// The options of `tf.compat.v1.metrics.mean_per_class_accuracy(labels, predictions,
/// num_classes, weights=None, ...)`: the mean over classes of each class's accuracy, from the
/// per-class (weighted) example counts `mean_accuracy/total` and correct counts
/// `mean_accuracy/count`. As in TensorFlow, the update op returns the per-class accuracies.
///
/// TensorFlow adds to the variables with `ScatterAdd`; here each batch's per-class sums come
/// from `UnsortedSegmentSum` and one `AssignAdd`, the same numbers.
#[derive(Clone, Debug)]
pub struct MeanPerClassAccuracy {
    labels: Output,
    predictions: Output,
    num_classes: usize,
    opts: MetricOptions,
}

impl MeanPerClassAccuracy {
    /// The mean per-class accuracy of class ids `predictions` against `labels` (in
    /// `[0, num_classes)`), with TensorFlow's defaults.
    pub fn new(
        labels: impl Into<Output>,
        predictions: impl Into<Output>,
        num_classes: usize,
    ) -> MeanPerClassAccuracy {
        MeanPerClassAccuracy {
            labels: labels.into(),
            predictions: predictions.into(),
            num_classes,
            opts: MetricOptions::default(),
        }
    }

    /// Adds the variables and ops: `(mean_accuracy, update_op)`.
    pub fn build(self) -> Result<(Output, Output)> {
        let g = graph_of(&[&self.labels, &self.predictions])?;
        let _scope = g.name_scope(self.opts.name.as_deref().unwrap_or("mean_accuracy"));
        let labels = flatten(math::cast(&self.labels, DType::I64)?)?;
        let mut predictions = flatten(self.predictions.clone())?;
        assert_compatible(&predictions, &labels)?;
        let n = self.num_classes;
        let total = metric_variable(&g, &[n], DType::F32, "total")?;
        let count = metric_variable(&g, &[n], DType::F32, "count")?;
        let mut ones = array::fill(
            array::reshape(array::size(&labels)?, [1i64])?,
            &constant(&g, 1.0f32)?,
        )?;
        if labels.dtype() != predictions.dtype() {
            predictions = math::cast(&predictions, labels.dtype())?;
        }
        let mut is_correct = math::cast(math::equal(&predictions, &labels)?, DType::F32)?;
        if let Some(w) = self.opts.weights_output(&g)? {
            let w = to_f32(&flatten(w)?)?;
            is_correct = math::mul(&is_correct, &w)?;
            ones = math::mul(&ones, &w)?;
        }
        let classes = constant(&g, n as i64)?;
        let update_total =
            total.assign_add(math::unsorted_segment_sum(&ones, &labels, &classes)?)?;
        let update_count =
            count.assign_add(math::unsorted_segment_sum(&is_correct, &labels, &classes)?)?;
        let per_class = safe_div(&(&count).into(), &(&total).into(), "div_no_nan")?;
        let value = Reduce::mean().name("mean_accuracy").build(&per_class)?;
        let update = safe_div(&update_count, &update_total, "update_op")?;
        self.opts.collect(&value, &update)?;
        Ok((value, update))
    }
}

metric_options!(MeanPerClassAccuracy);

/// `tf.compat.v1.metrics.mean_per_class_accuracy(labels, predictions, num_classes)` with
/// every default.
pub fn mean_per_class_accuracy(
    labels: impl Into<Output>,
    predictions: impl Into<Output>,
    num_classes: usize,
) -> Result<(Output, Output)> {
    MeanPerClassAccuracy::new(labels, predictions, num_classes).build()
}
