//! `tf.tensordot`: a contraction over chosen axes, lowered as TensorFlow's Python lowers it
//! (transpose and reshape each side to a matrix, one `MatMul`, reshape to the free dims).

use weir_graph::{Error, Output, Result};

use crate::array::{reshape, transpose};
use crate::math::matmul;

/// The `axes` argument of [`tensordot`].
#[derive(Clone, Debug)]
pub enum TensordotAxes {
    /// `axes=N`: the last `N` axes of `a` with the first `N` of `b`.
    Count(usize),
    /// `axes=[[a axes], [b axes]]`, pairwise; negative axes count from the end.
    Pairs(Vec<i64>, Vec<i64>),
}

impl From<usize> for TensordotAxes {
    fn from(n: usize) -> TensordotAxes {
        TensordotAxes::Count(n)
    }
}

impl<const N: usize> From<[[i64; N]; 2]> for TensordotAxes {
    fn from([a, b]: [[i64; N]; 2]) -> TensordotAxes {
        TensordotAxes::Pairs(a.to_vec(), b.to_vec())
    }
}

/// `tf.tensordot(a, b, axes)`: the sum over the contracted axes of `a` and `b` of their
/// products, of shape `a`'s free dims then `b`'s. weir lowers it from static shapes, so both
/// shapes must be known when the graph is built.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, math::tensordot};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?)?;
/// let b = constant(&g, [1.0f32, 0.0, -1.0])?;
/// let y = tensordot(&a, &b, 1)?; // a @ b
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, vec![-2.0, -2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn tensordot(
    a: impl Into<Output>,
    b: impl Into<Output>,
    axes: impl Into<TensordotAxes>,
) -> Result<Output> {
    let (a, b) = (a.into(), b.into());
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    let dims = |x: &Output| {
        x.shape().to_known().ok_or_else(|| {
            Error::invalid_argument(format!(
                "tensordot needs the static shape of {} (it has {})",
                x.name(),
                x.shape()
            ))
        })
    };
    let (sa, sb) = (dims(&a)?, dims(&b)?);
    let (a_axes, b_axes) = match axes.into() {
        TensordotAxes::Count(n) => {
            if n > sa.len() {
                return Err(Error::invalid_argument(format!(
                    "`axes` must not be larger than the number of dimensions of tensor {}.  \
                     Received {n}, vs tensor dimensions {}.",
                    a.name(),
                    sa.len()
                )));
            }
            let n = n as i64;
            let r = sa.len() as i64;
            ((r - n..r).collect(), (0..n).collect())
        }
        TensordotAxes::Pairs(x, y) => {
            if x.len() != y.len() {
                return Err(Error::invalid_argument(format!(
                    "Different number of contraction axes `a` and `b`, {} != {}.",
                    x.len(),
                    y.len()
                )));
            }
            (x, y)
        }
    };
    let _scope = g.name_scope("Tensordot");
    let (a2, a_free) = to_matrix(&a, &sa, &a_axes, false)?;
    let (b2, b_free) = to_matrix(&b, &sb, &b_axes, true)?;
    let ab = matmul(&a2, &b2)?;
    let out: Vec<usize> = a_free.iter().chain(&b_free).copied().collect();
    if ab.shape().to_known().as_deref() == Some(&out[..]) {
        return Ok(ab);
    }
    reshape(&ab, out)
}

/// `_tensordot_reshape`: `x` as a `[free, contracted]` matrix (`[contracted, free]` when
/// `flipped`), and its free dims.
fn to_matrix(
    x: &Output,
    shape: &[usize],
    axes: &[i64],
    flipped: bool,
) -> Result<(Output, Vec<usize>)> {
    let r = shape.len() as i64;
    let axes: Vec<usize> = axes
        .iter()
        .map(|&i| {
            let i = if i < 0 { i + r } else { i };
            usize::try_from(i)
                .ok()
                .filter(|&i| i < shape.len())
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "tensordot: axis {i} is out of range for {} of rank {r}",
                        x.name()
                    ))
                })
        })
        .collect::<Result<_>>()?;
    let free: Vec<usize> = (0..shape.len()).filter(|i| !axes.contains(i)).collect();
    let free_dims: Vec<usize> = free.iter().map(|&i| shape[i]).collect();
    let prod_free: usize = free_dims.iter().product();
    let prod_axes: usize = axes.iter().map(|&i| shape[i]).product();
    let perm: Vec<usize> = if flipped {
        axes.iter().chain(&free).copied().collect()
    } else {
        free.iter().chain(&axes).copied().collect()
    };
    let new_shape = if flipped {
        vec![prod_axes, prod_free]
    } else {
        vec![prod_free, prod_axes]
    };
    let t = if perm.iter().enumerate().any(|(i, &p)| i != p) {
        transpose(x, perm)?
    } else {
        x.clone()
    };
    let m = if t.shape().to_known().as_deref() != Some(&new_shape[..]) {
        reshape(&t, new_shape)?
    } else {
        t
    };
    Ok((m, free_dims))
}
