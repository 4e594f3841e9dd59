//! The complex (`complex64`, `complex128`) kernels of the broadcasting binary ops `Add`,
//! `Sub`, `Mul`, `Div`/`RealDiv`, `DivNoNan`, `Pow` and `SquaredDifference`.
//!
//! Division follows Eigen's two paths (see [`super::arith_ext`]): the output elements that
//! fill whole SIMD packets use the packet formula, the last `len % PACKET` use Smith's
//! algorithm. Every other op computes each element the same way on both paths.

use weir_graph::{Error, Result, Tensor};

use super::arith_ext::ComplexArith;
use super::bcast::{broadcast_shapes, broadcast_update};
use super::binary::BinOp;

/// `op(x, y)` with broadcasting, for complex `T`.
pub(super) fn apply<T: ComplexArith>(op: BinOp, x: Tensor, y: Tensor) -> Result<Tensor> {
    match op {
        BinOp::Add => broadcast_update(x, y, T::add),
        BinOp::Sub => broadcast_update(x, y, T::sub),
        BinOp::Mul => broadcast_update(x, y, T::mul),
        BinOp::Div => divide::<T>(x, y, false),
        BinOp::DivNoNan => divide::<T>(x, y, true),
        // Not vectorized by Eigen: every element goes through `std::pow`.
        BinOp::Pow => broadcast_update(x, y, T::pow),
        // TensorFlow's `(x - y) * conj(x - y)`: real, with a zero imaginary part.
        BinOp::SqDiff => broadcast_update(x, y, |a, b| {
            let d = T::sub(a, b);
            T::mul(d, T::conj(d))
        }),
        op => Err(Error::internal(format!("{op:?} does not take complex"))),
    }
}

/// `x / y` (0 where `y` is 0 for `DivNoNan`), with the packet formula on whole packets and
/// Smith's on the tail.
fn divide<T: ComplexArith>(x: Tensor, y: Tensor, no_nan: bool) -> Result<Tensor> {
    let zero = T::default();
    let pick = move |q: T, b: T| if no_nan && b == zero { zero } else { q };
    // Kept for the tail: cheap handles, and they keep the inputs' buffers from being reused.
    let (x0, y0) = (x.clone(), y.clone());
    let mut out = broadcast_update(x, y, move |a, b| pick(T::div_packet(a, b), b))?;
    let len = out.num_elements();
    let tail = len % T::PACKET;
    if tail == 0 {
        return Ok(out);
    }
    let shape = broadcast_shapes(x0.shape(), y0.shape())?;
    let (xs, ys) = (x0.as_slice::<T>()?, y0.as_slice::<T>()?);
    let os = out.as_slice_mut::<T>()?;
    for (i, o) in os.iter_mut().enumerate().skip(len - tail) {
        let a = xs[source_index(i, &shape, x0.shape())];
        let b = ys[source_index(i, &shape, y0.shape())];
        *o = pick(T::div_scalar(a, b), b);
    }
    Ok(out)
}

/// The flat index in an operand of shape `src` (broadcast to `out`) of output element `i`.
fn source_index(mut i: usize, out: &[usize], src: &[usize]) -> usize {
    let (mut idx, mut stride) = (0usize, 1usize);
    let skip = out.len() - src.len();
    for (k, &d) in out.iter().enumerate().rev() {
        let c = i % d;
        i /= d;
        if k >= skip {
            let s = src[k - skip];
            if s != 1 {
                idx += c * stride;
            }
            stride *= s;
        }
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_index_follows_broadcasting() {
        // out [2,3]: from [3] the column, from [2,1] the row, from [] always 0.
        assert_eq!(source_index(4, &[2, 3], &[3]), 1);
        assert_eq!(source_index(4, &[2, 3], &[2, 1]), 1);
        assert_eq!(source_index(5, &[2, 3], &[]), 0);
        assert_eq!(source_index(5, &[2, 3], &[2, 3]), 5);
    }
}
