//! `tf.nn.l2_normalize`: a composite of a reduction and arithmetic, built as TensorFlow's
//! `nn_impl.py` builds it.

use weir_graph::{scalar_of, Output, Result};

use crate::math::{maximum, rsqrt, square, Axes, Reduce};

/// `tf.nn.l2_normalize(x, axis, epsilon=1e-12)`: `x * rsqrt(max(sum(x^2, axis, keepdims),
/// epsilon))`, so each slice along `axis` ([`Axes::All`] for TensorFlow's `axis=None`) gets
/// unit L2 norm; a slice of norm below `sqrt(epsilon)` is divided by `sqrt(epsilon)` instead.
/// The result is a `Mul` named `l2_normalize`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::l2_normalize};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 2], vec![3.0f32, 4.0, 0.0, 0.0])?)?;
/// let y = l2_normalize(&x, 1, 1e-12)?;
/// assert_eq!(y.name(), "l2_normalize:0");
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [0.6, 0.8, 0.0, 0.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn l2_normalize(x: impl Into<Output>, axis: impl Into<Axes>, epsilon: f64) -> Result<Output> {
    let x = x.into();
    let g = x.graph().clone();
    let scope = g.name_scope("l2_normalize");
    let square_sum = Reduce::sum()
        .axis(axis)
        .keep_dims(true)
        .build(square(&x)?)?;
    let eps = crate::array::constant(&g, scalar_of(x.dtype(), epsilon)?)?;
    let inv_norm = rsqrt(maximum(square_sum, eps)?)?;
    crate::new_op(&g, "Mul")
        .name(scope.prefix())
        .input(x)
        .input(inv_norm)
        .build()?
        .output(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::placeholder;
    use weir_graph::{Code, DType, Graph, Shape};

    #[test]
    fn bad_axis_is_invalid_argument() {
        let g = Graph::new();
        let x = placeholder(&g, DType::F32, Shape::known(&[2, 3])).unwrap();
        let e = l2_normalize(&x, 2, 1e-12).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(
            l2_normalize(&x, -1, 1e-12).unwrap().shape(),
            Shape::known(&[2, 3])
        );
    }
}
