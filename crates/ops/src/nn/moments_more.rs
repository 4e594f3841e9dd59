//! `tf.nn.sufficient_statistics` and `tf.nn.weighted_moments`, built op for op as
//! TensorFlow's `nn_impl.py` builds them.

use weir_graph::{scalar_of, DType, Error, Output, Result};

use crate::array::{constant, squeeze, zeros_like};
use crate::math::{add, cast, div_no_nan, mul, square, squared_difference, sub, Reduce};

/// `tf.nn.sufficient_statistics(x, axes, shift=None, keepdims=False)`: `(count, sum of x -
/// shift, sum of (x - shift)^2, shift)` over `axes`, the pieces `tf.nn.normalize_moments`
/// turns into a mean and variance. `x`'s reduced dims must be static (weir builds `count` as
/// a constant, as TensorFlow does when it can).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::sufficient_statistics};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 6.0])?)?;
/// let (count, m, v, _) = sufficient_statistics(&x, &[0], None, false)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&count)?.to_scalar::<f32>()?, 2.0);
/// assert_eq!(sess.eval(&m)?.to_vec::<f32>()?, [4.0, 8.0]);
/// assert_eq!(sess.eval(&v)?.to_vec::<f32>()?, [10.0, 40.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sufficient_statistics(
    x: impl Into<Output>,
    axes: &[i64],
    shift: Option<&Output>,
    keepdims: bool,
) -> Result<(Output, Output, Output, Option<Output>)> {
    let x = x.into();
    let g = x.graph().clone();
    let _scope = g.name_scope("sufficient_statistics");
    // Python dedups the axes through a set.
    let mut axes = axes.to_vec();
    axes.sort_unstable();
    axes.dedup();
    let shape = x.shape();
    let rank = shape.rank();
    let mut counts = 1.0f64;
    for &a in &axes {
        let d = rank
            .and_then(|r| usize::try_from(if a < 0 { a + r as i64 } else { a }).ok())
            .and_then(|i| shape.dim(i as isize));
        match d {
            Some(d) => counts *= d as f64,
            None => {
                return Err(Error::invalid_argument(format!(
                "sufficient_statistics needs the static size of axis {a} of {} (it has {shape})",
                x.name()
            )))
            }
        }
    }
    let counts = constant(&g, scalar_of(x.dtype(), counts)?)?;
    let (m, v) = match shift {
        Some(s) => (sub(&x, s)?, squared_difference(&x, s)?),
        None => (x.clone(), square(&x)?),
    };
    let sum = |t: Output, name: &str| {
        Reduce::sum()
            .axis(axes.clone())
            .keep_dims(keepdims)
            .name(name)
            .build(t)
    };
    let m_ss = sum(m, "mean_ss")?;
    let v_ss = sum(v, "var_ss")?;
    Ok((counts, m_ss, v_ss, shift.cloned()))
}

/// `tf.nn.weighted_moments(x, axes, frequency_weights, keepdims=False)`: the mean and variance
/// of `x` over `axes` with each element counted `frequency_weights` times (weights broadcast
/// against `x`); 0 where the weights sum to 0. float16 is computed in float32, as in
/// TensorFlow.
pub fn weighted_moments(
    x: impl Into<Output>,
    axes: &[i64],
    frequency_weights: impl Into<Output>,
    keepdims: bool,
) -> Result<(Output, Output)> {
    let (mut x, mut w) = (x.into(), frequency_weights.into());
    let g = x.graph().clone();
    let _scope = g.name_scope("weighted_moments");
    let needs_cast = x.dtype() == DType::F16;
    if needs_cast {
        x = cast(&x, DType::F32)?;
    }
    if w.dtype() != x.dtype() {
        w = cast(&w, x.dtype())?;
    }
    let sum = |t: Output, name: &str| {
        Reduce::sum()
            .axis(axes.to_vec())
            .keep_dims(true)
            .name(name)
            .build(t)
    };
    let weighted_input_sum = sum(mul(&w, &x)?, "weighted_input_sum")?;
    let broadcasted = add(&w, zeros_like(&x)?)?;
    let sum_of_weights = sum(broadcasted, "sum_of_weights")?;
    let mut mean = div_no_nan(weighted_input_sum, &sum_of_weights)?;
    let distsq = sum(mul(&w, squared_difference(&x, &mean)?)?, "weighted_distsq")?;
    let mut variance = div_no_nan(distsq, &sum_of_weights)?;
    if !keepdims {
        mean = squeeze(mean, axes)?;
        variance = squeeze(variance, axes)?;
    }
    if needs_cast {
        mean = cast(mean, DType::F16)?;
        variance = cast(variance, DType::F16)?;
    }
    Ok((mean, variance))
}
