//! `Cumsum` and `Cumprod`: running sums and products along an axis, optionally exclusive
//! and/or reversed (`tf.cumsum(x, axis, exclusive, reverse)`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Tensor,
};

use super::arith_ext::ComplexArith;
use super::bcast::is_unique;
use super::binary::Arith;
use crate::array::shape_util::scalar_i64;

/// The options of `tf.cumsum(x, axis=0, exclusive=False, reverse=False)` and `tf.cumprod`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::Scan};
/// let g = Graph::new();
/// let y = Scan::sum().exclusive(true).reverse(true).build(constant(&g, [1, 2, 3])?)?;
/// // Evaluates to [5, 3, 0].
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Scan {
    op: &'static str,
    axis: i64,
    exclusive: bool,
    reverse: bool,
}

impl Scan {
    /// `tf.cumsum` along axis 0.
    pub fn sum() -> Scan {
        Scan {
            op: "Cumsum",
            axis: 0,
            exclusive: false,
            reverse: false,
        }
    }

    /// `tf.math.cumprod` along axis 0.
    pub fn prod() -> Scan {
        Scan {
            op: "Cumprod",
            ..Scan::sum()
        }
    }

    /// `tf.math.cumulative_logsumexp` (op `CumulativeLogsumexp`) along axis 0: running
    /// `log(sum(exp(x)))`, for float16, bfloat16, float32 and float64.
    pub fn logsumexp() -> Scan {
        Scan {
            op: "CumulativeLogsumexp",
            ..Scan::sum()
        }
    }

    /// The axis to scan along (negative counts from the end).
    pub fn axis(mut self, axis: i64) -> Scan {
        self.axis = axis;
        self
    }

    /// Leaves each element out of its own result (the first result is the identity).
    pub fn exclusive(mut self, e: bool) -> Scan {
        self.exclusive = e;
        self
    }

    /// Scans from the end of the axis.
    pub fn reverse(mut self, r: bool) -> Scan {
        self.reverse = r;
        self
    }

    /// Adds the scan of `x`.
    pub fn build(self, x: impl Into<Output>) -> Result<Output> {
        let x = x.into();
        let g = x.graph().clone();
        let axis = crate::array::constant(&g, self.axis as i32)?;
        crate::new_op(&g, self.op)
            .input(x)
            .input(axis)
            .attr("exclusive", self.exclusive)
            .attr("reverse", self.reverse)
            .build()?
            .output(0)
    }
}

/// `tf.cumsum(x, axis)`: running sums along `axis`.
pub fn cumsum(x: impl Into<Output>, axis: i64) -> Result<Output> {
    Scan::sum().axis(axis).build(x)
}

/// `tf.math.cumprod(x, axis)`: running products along `axis`.
pub fn cumprod(x: impl Into<Output>, axis: i64) -> Result<Output> {
    Scan::prod().axis(axis).build(x)
}

/// `tf.math.cumulative_logsumexp(x, axis)`: running `log(sum(exp(x)))` along `axis`.
pub fn cumulative_logsumexp(x: impl Into<Output>, axis: i64) -> Result<Output> {
    Scan::logsumexp().axis(axis).build(x)
}

pub(super) fn scan_axis(axis: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Error::invalid_argument(format!(
            "ScanOp: Expected scan axis in the range [{}, {r}), but got {axis}",
            -r
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// Scans `[outer, n, inner]` in place along the middle axis.
pub(super) fn scan<T: Copy>(
    data: &mut [T],
    n: usize,
    inner: usize,
    identity: T,
    f: impl Fn(T, T) -> T,
    exclusive: bool,
    reverse: bool,
) {
    if n == 0 || inner == 0 {
        return;
    }
    for block in data.chunks_exact_mut(n * inner) {
        if inner == 1 {
            let mut acc = identity;
            let mut step = |v: &mut T| {
                let next = f(acc, *v);
                *v = if exclusive { acc } else { next };
                acc = next;
            };
            if reverse {
                block.iter_mut().rev().for_each(&mut step);
            } else {
                block.iter_mut().for_each(&mut step);
            }
            continue;
        }
        // Rows of `inner` contiguous elements: combine each with the running row.
        let mut acc = vec![identity; inner];
        for r in 0..n {
            let i = if reverse { n - 1 - r } else { r };
            let row = &mut block[i * inner..(i + 1) * inner];
            for (a, v) in acc.iter_mut().zip(row.iter_mut()) {
                let next = f(*a, *v);
                *v = if exclusive { *a } else { next };
                *a = next;
            }
        }
    }
}

struct ScanKernel {
    prod: bool,
    exclusive: bool,
    reverse: bool,
}

fn run<T: Arith>(k: &ScanKernel, x: Tensor, n: usize, inner: usize) -> Result<Tensor> {
    let mut x = if is_unique::<T>(&x) {
        x
    } else {
        Tensor::from_vec(x.shape(), x.to_vec::<T>()?)?
    };
    let data = x.as_slice_mut::<T>()?;
    if k.prod {
        scan(data, n, inner, T::one(), T::mul, k.exclusive, k.reverse);
    } else {
        scan(data, n, inner, T::default(), T::add, k.exclusive, k.reverse);
    }
    Ok(x)
}

/// [`run`] for complex `T`.
fn run_complex<T: ComplexArith>(
    k: &ScanKernel,
    x: Tensor,
    n: usize,
    inner: usize,
) -> Result<Tensor> {
    let mut x = if is_unique::<T>(&x) {
        x
    } else {
        Tensor::from_vec(x.shape(), x.to_vec::<T>()?)?
    };
    let data = x.as_slice_mut::<T>()?;
    if k.prod {
        scan(data, n, inner, T::one(), T::mul, k.exclusive, k.reverse);
    } else {
        scan(data, n, inner, T::default(), T::add, k.exclusive, k.reverse);
    }
    Ok(x)
}

impl Kernel for ScanKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let axis = scan_axis(scalar_i64(ctx.input(1), "ScanOp: axis")?, x.rank())?;
        let shape = x.shape();
        let n = shape[axis];
        let inner: usize = shape[axis + 1..].iter().product();
        let dt = x.dtype();
        // Halves accumulate in the half type, rounding at each step, as Eigen's scan does.
        let out = weir_graph::match_real_dtype!(dt, T => run::<T>(self, x, n, inner)?,
            _ => weir_graph::match_half_dtype!(dt, T => run::<T>(self, x, n, inner)?,
            _ => weir_graph::match_complex_dtype!(dt, T => run_complex::<T>(self, x, n, inner)?,
            _ => return Err(Error::invalid_argument(format!("Cannot scan {dt} tensors"))))));
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    if let (Some(r), Some(t)) = (s.rank(), ctx.input_const(1)) {
        scan_axis(scalar_i64(t, "ScanOp: axis")?, r)?;
    }
    ctx.set_output(0, s);
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(ScanKernel {
        prod: node.op_type() == "Cumprod",
        exclusive: node.attr("exclusive")?,
        reverse: node.attr("reverse")?,
    }))
}

pub(super) fn register() {
    for name in ["Cumsum", "Cumprod"] {
        register_op(
            OpDef::new(name)
                .input("x", ArgType::Attr("T"))
                .input("axis", ArgType::Attr("Tidx"))
                .output("out", ArgType::Attr("T"))
                .type_attr("T", super::arith_ext::ALL_NUMBERS)
                .type_attr("Tidx", &[DType::I32, DType::I64])
                .attr("exclusive", AttrKind::Bool, Some(AttrValue::Bool(false)))
                .attr("reverse", AttrKind::Bool, Some(AttrValue::Bool(false)))
                .shape_fn(shape_fn),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cs(v: &[i32], n: usize, inner: usize, exclusive: bool, reverse: bool) -> Vec<i32> {
        let mut d = v.to_vec();
        scan(&mut d, n, inner, 0, |a, b| a + b, exclusive, reverse);
        d
    }

    #[test]
    fn flags_combine_like_tensorflow() {
        let x = [1, 2, 3];
        assert_eq!(cs(&x, 3, 1, false, false), vec![1, 3, 6]);
        assert_eq!(cs(&x, 3, 1, true, false), vec![0, 1, 3]);
        assert_eq!(cs(&x, 3, 1, false, true), vec![6, 5, 3]);
        assert_eq!(cs(&x, 3, 1, true, true), vec![5, 3, 0]);
    }

    #[test]
    fn rows_scan_along_outer_axes() {
        // [2, 2] along axis 0.
        let x = [1, 2, 3, 4];
        assert_eq!(cs(&x, 2, 2, false, false), vec![1, 2, 4, 6]);
        assert_eq!(cs(&x, 2, 2, true, true), vec![3, 4, 0, 0]);
        assert_eq!(
            scan_axis(2, 2).unwrap_err().message(),
            "ScanOp: Expected scan axis in the range [-2, 2), but got 2"
        );
    }
}
