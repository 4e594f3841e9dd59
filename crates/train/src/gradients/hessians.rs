//! `tf.hessians`: second derivatives, one row of the Hessian at a time.

use weir_graph::{AttrValue, Error, Output, Result, Tensor};

use super::util::konst;
use super::{gradients, op};

/// `tf.hessians(ys, xs)`: for each `x`, the Hessian of `sum(ys)` with respect to `x`, of shape
/// `x.shape + x.shape`.
///
/// TensorFlow computes the rows in a `tf.while_loop`; weir builds one row per element of `x`
/// (the same ops, unrolled), so `x` needs a statically known size, and the graph grows with
/// it. As in TensorFlow, an `x` on which the first derivative does not depend is an error.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::{mul, reduce_sum}};
/// # use weir_session::Session;
/// # use weir_train::gradients::hessians;
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0])?;
/// let cube = mul(&mul(&x, &x)?, &x)?;
/// let h = hessians(&[reduce_sum(&cube, [0])?], &[x])?; // diag(6 x)
/// let got = Session::new(&g)?.eval(&h[0])?;
/// assert_eq!(got.shape(), &[2, 2]);
/// assert_eq!(got.to_vec::<f32>()?, vec![6.0, 0.0, 0.0, 12.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn hessians(ys: &[Output], xs: &[Output]) -> Result<Vec<Output>> {
    let first = ys
        .first()
        .ok_or_else(|| Error::invalid_argument("hessians needs at least one y"))?;
    let g = first.graph().clone();
    let _scope = g.name_scope("hessians");
    let firsts = gradients(ys, xs, None)?;
    let mut out = Vec::with_capacity(xs.len());
    for (d, x) in firsts.into_iter().zip(xs) {
        let d = d.ok_or_else(|| {
            Error::invalid_argument(format!(
                "hessians: {} does not depend on {}",
                first.name(),
                x.name()
            ))
        })?;
        let dims = x.shape().to_known().ok_or_else(|| {
            Error::invalid_argument(format!(
                "hessians needs a static shape for {} (it has {})",
                x.name(),
                x.shape()
            ))
        })?;
        let n: usize = dims.iter().product();
        let flat = op(
            &g,
            "Reshape",
            &[&d, &konst(&g, Tensor::from(vec![-1i32]))?],
            &[],
        )?;
        let mut rows = Vec::with_capacity(n);
        for j in 0..n {
            let e = weir_ops::array::StridedSlice::new()
                .shrink_axis_mask(1)
                .build(&flat, &[j as i64], &[j as i64 + 1], &[1])?;
            let row = gradients(&[e], std::slice::from_ref(x), None)?
                .pop()
                .flatten()
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "hessians: element {j} of the gradient of {} does not depend on {} \
                         (TensorFlow fails here too: None values not supported)",
                        first.name(),
                        x.name()
                    ))
                })?;
            rows.push(row);
        }
        let refs: Vec<&Output> = rows.iter().collect();
        let stacked = op(
            &g,
            "Pack",
            &refs,
            &[("N", AttrValue::Int(n as i64)), ("axis", AttrValue::Int(0))],
        )?;
        let shape: Vec<i32> = dims.iter().chain(&dims).map(|&v| v as i32).collect();
        let shape = konst(&g, Tensor::from(shape))?;
        out.push(op(&g, "Reshape", &[&stacked, &shape], &[])?);
    }
    Ok(out)
}
