//! `Roll` (`tf.roll`): elements shifted along axes, those that fall off one end coming back at
//! the other. Rows are copied as two contiguous runs.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Tensor, TensorType,
};

use super::shape_util::to_i64s;

/// `tf.roll(input, shift, axis)`: `input` rolled by `shift` along `axis` (int32 or int64
/// scalars, or vectors of one length: several axes at once; shifts of a repeated axis add
/// up; negative shifts roll backwards, negative axes count from the end).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{constant, roll};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, [0, 1, 2, 3, 4])?;
/// let y = roll(&x, constant(&g, 2)?, constant(&g, 0)?)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<i32>()?, vec![3, 4, 0, 1, 2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn roll(
    input: impl Into<Output>,
    shift: impl Into<Output>,
    axis: impl Into<Output>,
) -> Result<Output> {
    let (x, s, a) = (input.into(), shift.into(), axis.into());
    let g = crate::util::same_graph(&[&x, &s, &a])?.clone();
    crate::new_op(&g, "Roll")
        .input(x)
        .input(s)
        .input(a)
        .build()?
        .output(0)
}

/// The shift of each axis of `shape`, in `[0, dim)` (TensorFlow's checks and messages).
fn axis_shifts(shape: &[usize], shift: &Tensor, axis: &Tensor) -> Result<Vec<usize>> {
    for (t, what) in [(shift, "shift"), (axis, "axis")] {
        if t.rank() > 1 {
            return Err(Error::invalid_argument(format!(
                "{what} must be a scalar or a 1-D vector. Found: {}",
                format_dims(t.shape())
            )));
        }
    }
    if shift.shape() != axis.shape() {
        return Err(Error::invalid_argument(
            "shift and axis must have the same size",
        ));
    }
    if shape.is_empty() {
        return Err(Error::invalid_argument("input must be 1-D or higher"));
    }
    let r = shape.len() as i64;
    let mut sums = vec![0i64; shape.len()];
    for (s, a) in to_i64s(shift)?.into_iter().zip(to_i64s(axis)?) {
        let a = if a < 0 { a + r } else { a };
        if !(0..r).contains(&a) {
            return Err(Error::invalid_argument(format!("axis {a} is out of range")));
        }
        let ds = shape[a as usize].max(1) as i64;
        sums[a as usize] = ((sums[a as usize] + s) % ds + ds) % ds;
    }
    Ok(sums.into_iter().map(|v| v as usize).collect())
}

fn roll_typed<T: TensorType>(x: &Tensor, shifts: &[usize]) -> Result<Tensor> {
    let src = x.as_slice::<T>()?;
    let shape = x.shape();
    let n = src.len();
    if n == 0 {
        return Ok(x.clone());
    }
    let r = shape.len();
    let last = shape[r - 1];
    let mut strides = vec![1usize; r];
    for k in (0..r - 1).rev() {
        strides[k] = strides[k + 1] * shape[k + 1];
    }
    let mut out: Vec<T> = Vec::with_capacity(n);
    // The source row of each output row: per outer axis, source index (i - shift) mod dim.
    let mut idx = vec![0usize; r - 1];
    let s = shifts[r - 1];
    for _ in 0..n / last {
        let base: usize = idx
            .iter()
            .enumerate()
            .map(|(k, &i)| ((i + shape[k] - shifts[k]) % shape[k]) * strides[k])
            .sum();
        let row = &src[base..base + last];
        out.extend_from_slice(&row[last - s..]);
        out.extend_from_slice(&row[..last - s]);
        for k in (0..r - 1).rev() {
            idx[k] += 1;
            if idx[k] < shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Tensor::from_vec(shape, out)
}

struct RollKernel;

impl Kernel for RollKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let shifts = axis_shifts(x.shape(), ctx.input(1), ctx.input(2))?;
        let dt = x.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => roll_typed::<T>(x, &shifts)?,
            _ => return Err(Error::invalid_argument(format!("Roll does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    if x.rank() == Some(0) {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0",
        ));
    }
    let (s, a) = (ctx.input_shape(1).clone(), ctx.input_shape(2).clone());
    for t in [&s, &a] {
        if let Some(r) = t.rank().filter(|&r| r > 1) {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 1 but is rank {r}"
            )));
        }
    }
    if let (Some(n), Some(m)) = (s.dim(0), a.dim(0)) {
        if n != m {
            return Err(Error::invalid_argument(format!(
                "Dimension 0 in both shapes must be equal, but are {n} and {m}. Shapes are \
                 [{n}] and [{m}]."
            )));
        }
    }
    ctx.set_output(0, x);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Roll")
            .input("input", ArgType::Attr("T"))
            .input("shift", ArgType::Attr("Tshift"))
            .input("axis", ArgType::Attr("Taxis"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tshift", &[DType::I32, DType::I64])
            .type_attr("Taxis", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("Roll", |_| Ok(Box::new(RollKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_axes_and_checks_arguments() {
        let x = Tensor::from_vec(&[3, 4], (0..12).collect::<Vec<i32>>()).unwrap();
        let s = axis_shifts(
            x.shape(),
            &Tensor::from(vec![1i32, -3]),
            &Tensor::from(vec![0i32, 1]),
        )
        .unwrap();
        assert_eq!(s, vec![1, 1]);
        let y = roll_typed::<i32>(&x, &s).unwrap();
        assert_eq!(
            y.to_vec::<i32>().unwrap(),
            vec![11, 8, 9, 10, 3, 0, 1, 2, 7, 4, 5, 6]
        );
        let e = axis_shifts(&[3], &Tensor::scalar(1i32), &Tensor::scalar(2i32)).unwrap_err();
        assert_eq!(e.message(), "axis 2 is out of range");
        let e = axis_shifts(
            &[3],
            &Tensor::from(vec![1i32, 2]),
            &Tensor::from(vec![0i32]),
        )
        .unwrap_err();
        assert_eq!(e.message(), "shift and axis must have the same size");
    }
}
