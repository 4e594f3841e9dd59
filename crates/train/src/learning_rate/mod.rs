//! TensorFlow 1's learning-rate schedules (`tf.compat.v1.train.*_decay`).
//!
//! `exponential_decay` and `piecewise_constant` are one fused graph node each (see
//! `weir_ops::training`). The others build TensorFlow's own expression from math ops under
//! TensorFlow's name scope, so their graphs and float32 values match TensorFlow's.

mod cosine;
mod expr;
mod inverse_time;
mod linear_cosine;
mod natural_exp;
mod polynomial;

pub use cosine::{cosine_decay, cosine_decay_restarts, CosineDecay, CosineDecayRestarts};
pub use inverse_time::{inverse_time_decay, InverseTimeDecay};
pub use linear_cosine::{
    linear_cosine_decay, noisy_linear_cosine_decay, LinearCosineDecay, NoisyLinearCosineDecay,
};
pub use natural_exp::{natural_exp_decay, NaturalExpDecay};
pub use polynomial::{polynomial_decay, PolynomialDecay};

use weir_graph::{Error, Output, Result, Tensor};

/// `tf.train.exponential_decay(learning_rate, global_step, decay_steps, decay_rate,
/// staircase=False)`: `learning_rate * decay_rate ^ (global_step / decay_steps)`, with the
/// exponent floored when `staircase`, as a float32 scalar tensor named `ExponentialDecay`.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::exponential_decay(0.1, &step, 1000.0, 0.96, true)?;
/// assert_eq!(lr.name(), "ExponentialDecay:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn exponential_decay(
    learning_rate: f64,
    global_step: impl Into<Output>,
    decay_steps: f64,
    decay_rate: f64,
    staircase: bool,
) -> Result<Output> {
    let step = global_step.into();
    let g = step.graph().clone();
    let lr = weir_ops::array::constant(&g, learning_rate as f32)?;
    exponential_decay_tensor(lr, step, decay_steps, decay_rate, staircase)
}

/// [`exponential_decay`] with the initial learning rate given as a float scalar tensor; the
/// result has its dtype.
pub fn exponential_decay_tensor(
    learning_rate: impl Into<Output>,
    global_step: impl Into<Output>,
    decay_steps: f64,
    decay_rate: f64,
    staircase: bool,
) -> Result<Output> {
    let (lr, step) = (learning_rate.into(), global_step.into());
    if decay_steps <= 0.0 {
        return Err(Error::invalid_argument(format!(
            "decay_steps must be positive, got {decay_steps}"
        )));
    }
    let g = step.graph().clone();
    let scope = g.name_scope("ExponentialDecay");
    let lr = weir_ops::array::identity_named(lr, "initial_learning_rate")?;
    let dt = lr.dtype();
    let steps = weir_ops::array::constant_named(
        &g,
        weir_graph::scalar_of(dt, decay_steps)?,
        "decay_steps",
    )?;
    let rate =
        weir_ops::array::constant_named(&g, weir_graph::scalar_of(dt, decay_rate)?, "decay_rate")?;
    let name = scope.prefix().to_string();
    weir_ops::training::exponential_decay_op(lr, step, steps, rate, staircase, &name)
}

/// `tf.train.piecewise_constant(x, boundaries, values)`: `values[0]` while
/// `x <= boundaries[0]`, `values[i]` while `boundaries[i-1] < x <= boundaries[i]`, and the
/// last value after the last boundary. `boundaries` must have `x`'s dtype and one element
/// fewer than `values`.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::piecewise_constant(&step, vec![100i64, 200], vec![1.0f32, 0.5, 0.1])?;
/// assert_eq!(lr.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn piecewise_constant(
    x: impl Into<Output>,
    boundaries: impl Into<Tensor>,
    values: impl Into<Tensor>,
) -> Result<Output> {
    let (x, b, v) = (x.into(), boundaries.into(), values.into());
    if b.dtype() != x.dtype() {
        return Err(Error::invalid_argument(format!(
            "Boundaries ({}) must have the same dtype as x ({}).",
            b.dtype(),
            x.dtype()
        )));
    }
    if b.rank() != 1 || v.rank() != 1 || v.shape()[0] != b.shape()[0] + 1 {
        return Err(Error::invalid_argument(
            "The length of boundaries should be 1 less than the length of values",
        ));
    }
    let g = x.graph().clone();
    let scope = g.name_scope("PiecewiseConstant");
    let b = weir_ops::array::constant_named(&g, b, "boundaries")?;
    let v = weir_ops::array::constant_named(&g, v, "values")?;
    let name = scope.prefix().to_string();
    weir_ops::training::piecewise_constant_op(x, b, v, &name)
}
