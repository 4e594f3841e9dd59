//! The cross-entropy losses on logits: `sigmoid_cross_entropy`, `softmax_cross_entropy` and
//! `sparse_softmax_cross_entropy`.

use weir_graph::{Error, Output, Result};
use weir_ops::array::{self, constant};
use weir_ops::math;
use weir_ops::nn;

use super::weighted::remove_squeezable_dimensions;
use super::{compute_weighted_loss, graph_of, loss_options, scalar, LossOptions, Weights};

/// `logits.get_shape().assert_is_compatible_with(labels.get_shape())`.
fn assert_compatible_logits(logits: &Output, labels: &Output) -> Result<()> {
    super::assert_compatible(logits, labels)
}

/// The options of `tf.compat.v1.losses.sigmoid_cross_entropy(multi_class_labels, logits,
/// weights=1.0, label_smoothing=0, ...)`: `tf.nn.sigmoid_cross_entropy_with_logits` against
/// labels smoothed towards 1/2 (`labels * (1 - s) + 0.5 * s`), weighted and reduced. The loss
/// keeps the logits' dtype.
#[derive(Clone, Debug)]
pub struct SigmoidCrossEntropy {
    labels: Output,
    logits: Output,
    label_smoothing: f64,
    opts: LossOptions,
}

impl SigmoidCrossEntropy {
    /// The loss of `logits` against `multi_class_labels` in {0, 1} (same shape), with
    /// TensorFlow's defaults.
    pub fn new(
        multi_class_labels: impl Into<Output>,
        logits: impl Into<Output>,
    ) -> SigmoidCrossEntropy {
        SigmoidCrossEntropy {
            labels: multi_class_labels.into(),
            logits: logits.into(),
            label_smoothing: 0.0,
            opts: LossOptions::default(),
        }
    }

    /// Smooths the labels towards 1/2 when greater than 0 (default 0).
    pub fn label_smoothing(mut self, s: f64) -> SigmoidCrossEntropy {
        self.label_smoothing = s;
        self
    }

    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        let g = graph_of(&[&self.labels, &self.logits])?;
        let scope = g.name_scope(
            self.opts
                .scope
                .as_deref()
                .unwrap_or("sigmoid_cross_entropy_loss"),
        );
        let prefix = scope.prefix().to_string();
        let logits = self.logits;
        let dt = logits.dtype();
        let mut labels = math::cast(&self.labels, dt)?;
        assert_compatible_logits(&logits, &labels)?;
        let s = self.label_smoothing;
        if s > 0.0 {
            labels = math::add(
                math::mul(&labels, scalar(&g, dt, 1.0 - s)?)?,
                scalar(&g, dt, 0.5 * s)?,
            )?;
        }
        let losses = nn::sigmoid_cross_entropy_with_logits(&labels, &logits)?;
        compute_weighted_loss(
            losses,
            self.opts.weights,
            Some(&prefix),
            self.opts.loss_collection.as_deref(),
            self.opts.reduction,
        )
    }
}

loss_options!(SigmoidCrossEntropy);

/// `tf.compat.v1.losses.sigmoid_cross_entropy(multi_class_labels, logits)` with every default.
pub fn sigmoid_cross_entropy(
    multi_class_labels: impl Into<Output>,
    logits: impl Into<Output>,
) -> Result<Output> {
    SigmoidCrossEntropy::new(multi_class_labels, logits).build()
}

/// The options of `tf.compat.v1.losses.softmax_cross_entropy(onehot_labels, logits,
/// weights=1.0, label_smoothing=0, ...)`: `tf.nn.softmax_cross_entropy_with_logits_v2` per
/// example against labels smoothed towards `1/num_classes` (`labels * (1 - s) + s /
/// num_classes`, with no gradient to the labels), weighted and reduced. Weights broadcast to
/// the per-example losses (shape `[batch]` for rank-2 logits).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::constant;
/// # use weir_session::Session;
/// use weir_train::losses::SoftmaxCrossEntropy;
/// let g = Graph::new();
/// let labels = constant(&g, Tensor::from_vec(&[2, 3], vec![0.0f32, 1., 0., 0., 0., 1.])?)?;
/// let logits = constant(&g, Tensor::from_vec(&[2, 3], vec![0.05f32, 0.95, 0., 0.1, 0.8, 0.1])?)?;
/// let w = constant(&g, [0.3f32, 0.7])?;
/// let loss = SoftmaxCrossEntropy::new(&labels, &logits)
///     .weights(&w)
///     .label_smoothing(0.2)
///     .build()?;
/// let v = Session::new(&g)?.eval(&loss)?.to_vec::<f32>()?[0];
/// assert!((v - 0.57618).abs() < 1e-5); // TensorFlow's documented value
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SoftmaxCrossEntropy {
    labels: Output,
    logits: Output,
    label_smoothing: f64,
    opts: LossOptions,
}

impl SoftmaxCrossEntropy {
    /// The loss of `logits` against `onehot_labels` (same shape), with TensorFlow's defaults.
    pub fn new(onehot_labels: impl Into<Output>, logits: impl Into<Output>) -> SoftmaxCrossEntropy {
        SoftmaxCrossEntropy {
            labels: onehot_labels.into(),
            logits: logits.into(),
            label_smoothing: 0.0,
            opts: LossOptions::default(),
        }
    }

    /// Smooths the labels towards `1/num_classes` when greater than 0 (default 0).
    pub fn label_smoothing(mut self, s: f64) -> SoftmaxCrossEntropy {
        self.label_smoothing = s;
        self
    }

    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        let g = graph_of(&[&self.labels, &self.logits])?;
        let scope = g.name_scope(
            self.opts
                .scope
                .as_deref()
                .unwrap_or("softmax_cross_entropy_loss"),
        );
        let prefix = scope.prefix().to_string();
        let logits = self.logits;
        let dt = logits.dtype();
        let mut labels = math::cast(&self.labels, dt)?;
        assert_compatible_logits(&logits, &labels)?;
        let s = self.label_smoothing;
        if s > 0.0 {
            let shape = labels.shape();
            let num_classes = match shape.dim(-1) {
                Some(n) if shape.rank() > Some(0) => scalar(&g, dt, n as f64)?,
                _ => {
                    let dims = array::shape(&labels)?;
                    let last = math::sub(array::size(&dims)?, constant(&g, 1i32)?)?;
                    let n = array::slice(&dims, array::reshape(&last, [1i32])?, [1i32])?;
                    math::cast(array::reshape(&n, Vec::<i32>::new())?, dt)?
                }
            };
            let positives = scalar(&g, dt, 1.0 - s)?;
            let negatives = math::realdiv(scalar(&g, dt, s)?, &num_classes)?;
            labels = math::add(math::mul(&labels, &positives)?, &negatives)?;
        }
        let labels = {
            weir_ops::register_all_ops();
            g.new_operation("StopGradient")
                .name("labels_stop_gradient")
                .input(&labels)
                .build()?
                .output(0)?
        };
        let losses = nn::softmax_cross_entropy_with_logits(&labels, &logits)?;
        compute_weighted_loss(
            losses,
            self.opts.weights,
            Some(&prefix),
            self.opts.loss_collection.as_deref(),
            self.opts.reduction,
        )
    }
}

loss_options!(SoftmaxCrossEntropy);

/// `tf.compat.v1.losses.softmax_cross_entropy(onehot_labels, logits)` with every default.
pub fn softmax_cross_entropy(
    onehot_labels: impl Into<Output>,
    logits: impl Into<Output>,
) -> Result<Output> {
    SoftmaxCrossEntropy::new(onehot_labels, logits).build()
}

/// The options of `tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits,
/// weights=1.0, ...)`: `tf.nn.sparse_softmax_cross_entropy_with_logits` per example, weighted
/// and reduced. Labels of the logits' rank with a last dim of 1 are squeezed first, and so are
/// weights of rank one more than the (squeezed) labels.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::constant;
/// # use weir_session::Session;
/// use weir_train::losses::SparseSoftmaxCrossEntropy;
/// let g = Graph::new();
/// let logits = constant(&g, Tensor::from_vec(&[2, 3], vec![1.0f32, 2., 3., 1., 2., 3.])?)?;
/// let labels = constant(&g, [2i64, 0])?;
/// let loss = SparseSoftmaxCrossEntropy::new(&labels, &logits)
///     .weights(&constant(&g, [1.0f32, 0.0])?) // the second example does not count
///     .build()?;
/// assert_eq!(loss.name(), "sparse_softmax_cross_entropy_loss/value:0");
/// let v = Session::new(&g)?.eval(&loss)?.to_vec::<f32>()?[0];
/// assert!((v - 0.407606).abs() < 1e-5);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SparseSoftmaxCrossEntropy {
    labels: Output,
    logits: Output,
    opts: LossOptions,
}

impl SparseSoftmaxCrossEntropy {
    /// The loss of `logits` (`[d0, ..., num_classes]`) against int32/int64 class ids `labels`
    /// (`[d0, ...]`), with TensorFlow's defaults.
    pub fn new(labels: impl Into<Output>, logits: impl Into<Output>) -> SparseSoftmaxCrossEntropy {
        SparseSoftmaxCrossEntropy {
            labels: labels.into(),
            logits: logits.into(),
            opts: LossOptions::default(),
        }
    }

    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        let g = graph_of(&[&self.labels, &self.logits])?;
        let scope = g.name_scope(
            self.opts
                .scope
                .as_deref()
                .unwrap_or("sparse_softmax_cross_entropy_loss"),
        );
        let prefix = scope.prefix().to_string();
        let (labels, logits) = remove_squeezable_dimensions(self.labels, self.logits, 1)?;
        // As TensorFlow's `_remove_squeezable_dimensions`, the weights become a tensor, squeezed
        // when their rank is one more than the labels'.
        let mut weights = self.opts.weights.to_output(&g)?;
        if let (Some(lr), Some(wr)) = (labels.shape().rank(), weights.shape().rank()) {
            if wr == lr + 1 {
                weights = array::squeeze(&weights, &[-1])?;
            }
        }
        if let (Some(lr), Some(gr)) = (labels.shape().rank(), logits.shape().rank()) {
            if lr + 1 != gr {
                return Err(Error::invalid_argument(format!(
                    "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape={} of rank {lr} and logits.shape={} of rank {gr}",
                    labels.shape().python_str(),
                    logits.shape().python_str()
                )));
            }
        }
        let losses = nn::sparse_softmax_cross_entropy_with_logits(&labels, &logits)?;
        compute_weighted_loss(
            losses,
            Weights::Tensor(weights),
            Some(&prefix),
            self.opts.loss_collection.as_deref(),
            self.opts.reduction,
        )
    }
}

loss_options!(SparseSoftmaxCrossEntropy);

/// `tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)` with every default.
pub fn sparse_softmax_cross_entropy(
    labels: impl Into<Output>,
    logits: impl Into<Output>,
) -> Result<Output> {
    SparseSoftmaxCrossEntropy::new(labels, logits).build()
}
