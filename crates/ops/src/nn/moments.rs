//! `tf.nn.moments` and `tf.nn.batch_normalization`: composites of reductions and arithmetic,
//! built op for op as TensorFlow's `nn_impl.py` builds them (what the non-fused path of
//! `tf.layers.batch_normalization` uses).

use weir_graph::{scalar_of, DType, Error, Output, Result};

use crate::array::{squeeze, stop_gradient};
use crate::math::{cast, neg, rsqrt, squared_difference, Reduce};

/// `tf.nn.moments(x, axes, keepdims)`: the mean and the (biased) variance of `x` over `axes`.
///
/// See [`Moments`] for the name scope; variance is `mean((x - stop_gradient(mean))^2)`.
pub fn moments(x: impl Into<Output>, axes: &[i64], keepdims: bool) -> Result<(Output, Output)> {
    Moments::new(axes).keep_dims(keepdims).build(x)
}

/// The options of `tf.nn.moments(x, axes, shift=None, name=None, keepdims=False)`.
///
/// TensorFlow computes `mean = reduce_mean(x, axes, keepdims=True, name="mean")` and `variance
/// = reduce_mean(squared_difference(x, stop_gradient(mean)), axes, keepdims=True,
/// name="variance")` in the name scope `moments`, then squeezes `axes` away unless `keepdims`;
/// float16 input is cast to float32 first and the results back.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::Moments};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 6.0])?)?;
/// let (mean, var) = Moments::new(&[0]).build(&x)?;
/// assert_eq!(mean.name(), "moments/Squeeze:0");
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&mean)?.to_vec::<f32>()?, [2.0, 4.0]);
/// assert_eq!(sess.eval(&var)?.to_vec::<f32>()?, [1.0, 4.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Moments {
    axes: Vec<i64>,
    keep_dims: bool,
    name: Option<String>,
}

impl Moments {
    /// Moments over `axes` (negative ones count from the end), squeezed.
    pub fn new(axes: &[i64]) -> Moments {
        Moments {
            axes: axes.to_vec(),
            keep_dims: false,
            name: None,
        }
    }

    /// Keeps the reduced axes with size 1 (`keepdims=True`).
    pub fn keep_dims(mut self, keep: bool) -> Moments {
        self.keep_dims = keep;
        self
    }

    /// The name scope of the ops (default `moments`, made unique).
    pub fn name(mut self, name: &str) -> Moments {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the ops: `(mean, variance)`.
    pub fn build(self, x: impl Into<Output>) -> Result<(Output, Output)> {
        let x = x.into();
        if !x.dtype().is_floating() {
            return Err(Error::invalid_argument(format!(
                "tf.nn.moments takes a floating-point tensor, got {}",
                x.dtype()
            )));
        }
        let g = x.graph().clone();
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("moments"));
        // float16's range is too small for the sums: TensorFlow computes in float32.
        let half = x.dtype() == DType::F16;
        let x = if half { cast(&x, DType::F32)? } else { x };
        let axes = self.axes.clone();
        let mean = Reduce::mean()
            .axis(axes.clone())
            .keep_dims(true)
            .name("mean")
            .build(&x)?;
        let diff = squared_difference(&x, stop_gradient(&mean)?)?;
        let variance = Reduce::mean()
            .axis(axes)
            .keep_dims(true)
            .name("variance")
            .build(diff)?;
        let (mean, variance) = if self.keep_dims {
            (mean, variance)
        } else {
            (squeeze(mean, &self.axes)?, squeeze(variance, &self.axes)?)
        };
        if half {
            Ok((cast(mean, DType::F16)?, cast(variance, DType::F16)?))
        } else {
            Ok((mean, variance))
        }
    }
}

/// `tf.nn.batch_normalization(x, mean, variance, offset, scale, variance_epsilon)`:
/// `x * inv + (offset - mean * inv)` with `inv = rsqrt(variance + variance_epsilon) * scale`,
/// in the name scope `batchnorm`. `offset` and `scale` are optional, as in TensorFlow
/// (`None` leaves out the shift or the scaling). All inputs broadcast against `x`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::{batch_normalization, moments}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 1], vec![1.0f32, 3.0])?)?;
/// let (mean, var) = moments(&x, &[0], false)?;
/// let y = batch_normalization(&x, &mean, &var, None, None, 0.0)?;
/// assert_eq!(y.name(), "batchnorm/add_1:0");
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [-1.0, 1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn batch_normalization(
    x: impl Into<Output>,
    mean: impl Into<Output>,
    variance: impl Into<Output>,
    offset: Option<Output>,
    scale: Option<Output>,
    variance_epsilon: f64,
) -> Result<Output> {
    let (x, mean, variance) = (x.into(), mean.into(), variance.into());
    let g = crate::util::same_graph(&[&x, &mean, &variance])?.clone();
    let _scope = g.name_scope("batchnorm");
    let eps =
        crate::array::constant_named(&g, scalar_of(variance.dtype(), variance_epsilon)?, "add/y")?;
    let mut inv = rsqrt(named("AddV2", &variance, &eps, "add")?)?;
    if let Some(s) = &scale {
        inv = named("Mul", &inv, s, "mul")?;
    }
    let scaled = named("Mul", &x, &cast_if(&inv, x.dtype())?, "mul_1")?;
    let shift = match &offset {
        Some(o) => named("Sub", o, &named("Mul", &mean, &inv, "mul_2")?, "sub")?,
        None => named("Mul", &neg(&mean)?, &inv, "mul_2")?,
    };
    named("AddV2", &scaled, &cast_if(&shift, x.dtype())?, "add_1")
}

/// A binary op named as TensorFlow's Python operators name theirs (`add`, `mul_1`).
fn named(op: &str, x: &Output, y: &Output, name: &str) -> Result<Output> {
    let g = crate::util::same_graph(&[x, y])?.clone();
    crate::new_op(&g, op)
        .name(name)
        .input(x)
        .input(y)
        .build()?
        .output(0)
}

/// `tf.cast(x, dtype)`, which adds nothing when `x` already has `dtype`.
fn cast_if(x: &Output, dtype: DType) -> Result<Output> {
    if x.dtype() == dtype {
        Ok(x.clone())
    } else {
        cast(x, dtype)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{constant, placeholder};
    use weir_graph::{Graph, Shape, Tensor};

    #[test]
    fn shapes_follow_keepdims() {
        let g = Graph::new();
        let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(4), Some(3)])).unwrap();
        let (m, v) = moments(&x, &[0, 1], false).unwrap();
        assert_eq!(m.shape(), Shape::known(&[3]));
        assert_eq!(v.shape(), Shape::known(&[3]));
        let (m, _) = Moments::new(&[0, 1]).keep_dims(true).build(&x).unwrap();
        assert_eq!(m.shape(), Shape::known(&[1, 1, 3]));
        assert_eq!(m.name(), "moments_1/mean:0");
    }

    #[test]
    fn integer_input_is_refused() {
        let g = Graph::new();
        let x = constant(&g, Tensor::from(vec![1i32, 2])).unwrap();
        let e = moments(&x, &[0], false).unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument);
    }

    #[test]
    fn op_names_are_tensorflows() {
        let g = Graph::new();
        let x = placeholder(&g, DType::F32, Shape::known(&[2, 3])).unwrap();
        let (m, v) = moments(&x, &[0], false).unwrap();
        let s = constant(&g, Tensor::from(vec![1.0f32; 3])).unwrap();
        let y = batch_normalization(&x, &m, &v, Some(s.clone()), Some(s), 1e-3).unwrap();
        for name in [
            "moments/mean",
            "moments/StopGradient",
            "moments/SquaredDifference",
            "moments/variance",
            "moments/Squeeze_1",
            "batchnorm/Rsqrt",
            "batchnorm/mul_2",
            "batchnorm/sub",
        ] {
            assert!(g.operation_by_name(name).is_some(), "{name}");
        }
        assert_eq!(y.shape(), Shape::known(&[2, 3]));
    }
}
