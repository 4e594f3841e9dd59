//! `Diag` and `DiagPart` (`tf.diag`, `tf.diag_part`: a tensor of any rank on the diagonal of
//! one of twice its rank, and back) and `MatrixBandPart` (`tf.linalg.band_part`: the band of
//! each matrix, zeros elsewhere).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor, TensorType,
};

use crate::array::shape_util::to_i64s;

const DIAG_TYPES: &[DType] = &[DType::F32, DType::F64, DType::I32, DType::I64];

/// `tf.diag(diagonal)`: a tensor of shape `diagonal.shape + diagonal.shape` with `diagonal`
/// at the coordinates `[i1..ik, i1..ik]` and zeros elsewhere.
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::{array::constant, linalg::diag};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let m = diag(constant(&g, [1.0f32, 2.0])?)?;
/// assert_eq!(m.shape(), Shape::known(&[2, 2]));
/// assert_eq!(Session::new(&g)?.eval(&m)?.to_vec::<f32>()?, vec![1.0, 0.0, 0.0, 2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn diag(diagonal: impl Into<Output>) -> Result<Output> {
    let d = diagonal.into();
    crate::new_op(&d.graph().clone(), "Diag")
        .input(d)
        .build()?
        .output(0)
}

/// `tf.diag_part(input)`: the diagonal of a tensor of shape `s + s` (the inverse of [`diag`]).
pub fn diag_part(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "DiagPart")
        .input(x)
        .build()?
        .output(0)
}

/// `tf.linalg.band_part(input, num_lower, num_upper)`: each matrix of `input` with the
/// elements more than `num_lower` below or `num_upper` above the diagonal zeroed (a negative
/// count keeps the whole triangle). The counts are int32 or int64 scalar tensors.
pub fn matrix_band_part(
    input: impl Into<Output>,
    num_lower: impl Into<Output>,
    num_upper: impl Into<Output>,
) -> Result<Output> {
    let (x, lo, up) = (input.into(), num_lower.into(), num_upper.into());
    let g = crate::util::same_graph(&[&x, &lo, &up])?.clone();
    crate::new_op(&g, "MatrixBandPart")
        .input(x)
        .input(lo)
        .input(up)
        .build()?
        .output(0)
}

/// [`matrix_band_part`] with the counts as numbers (int64 constants, TensorFlow's `Tindex`
/// default): `band_part(x, -1, 0)` is the lower triangle.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::band_part};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 2], vec![1, 2, 3, 4])?)?;
/// let lower = band_part(&x, -1, 0)?;
/// assert_eq!(Session::new(&g)?.eval(&lower)?.to_vec::<i32>()?, vec![1, 0, 3, 4]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn band_part(input: impl Into<Output>, num_lower: i64, num_upper: i64) -> Result<Output> {
    let x = input.into();
    let g = x.graph().clone();
    matrix_band_part(
        &x,
        crate::array::constant(&g, num_lower)?,
        crate::array::constant(&g, num_upper)?,
    )
}

fn diag_typed<T: TensorType>(x: &Tensor) -> Result<Tensor> {
    let src = x.as_slice::<T>()?;
    let n = src.len();
    let mut shape = x.shape().to_vec();
    shape.extend_from_slice(x.shape());
    let len = super::batch::checked_len(&shape)?;
    let mut out = crate::array::alloc_filled(&shape, len, T::zero(), x.dtype())?;
    for (i, v) in src.iter().enumerate() {
        out[i * n + i] = v.clone();
    }
    Tensor::from_vec(&shape, out)
}

struct DiagKernel;

impl Kernel for DiagKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        if x.rank() == 0 {
            return Err(Error::invalid_argument(
                "Input must be at least rank 1, got 0",
            ));
        }
        let dt = x.dtype();
        let out = weir_graph::match_real_dtype!(dt, T => diag_typed::<T>(x)?,
            _ => return Err(Error::invalid_argument(format!("Diag does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn diag_part_typed<T: TensorType>(x: &Tensor, k: usize) -> Result<Tensor> {
    let src = x.as_slice::<T>()?;
    let shape = &x.shape()[..k];
    let n: usize = shape.iter().product();
    let out: Vec<T> = (0..n).map(|i| src[i * n + i].clone()).collect();
    Tensor::from_vec(shape, out)
}

struct DiagPartKernel;

impl Kernel for DiagPartKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let s = x.shape();
        if s.is_empty() || s.len() % 2 != 0 {
            return Err(Error::invalid_argument(format!(
                "The rank of the tensor should be                                          even \
                 and positive, got shape {}",
                format_dims(s)
            )));
        }
        let k = s.len() / 2;
        if let Some(i) = (0..k).find(|&i| s[i] != s[i + k]) {
            return Err(Error::invalid_argument(format!(
                "Invalid shape {}: dimensions {i} and {} do not match.",
                format_dims(s),
                i + k
            )));
        }
        let dt = x.dtype();
        let out = weir_graph::match_real_dtype!(dt, T => diag_part_typed::<T>(x, k)?,
            _ => return Err(Error::invalid_argument(format!("DiagPart does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn band_typed<T: TensorType>(out: &mut Tensor, lo: i64, up: i64) -> Result<()> {
    let s = out.shape().to_vec();
    let (rows, cols) = (s[s.len() - 2], s[s.len() - 1]);
    let o = out.as_slice_mut::<T>()?;
    let mat = rows * cols;
    if mat == 0 {
        return Ok(());
    }
    for m in o.chunks_exact_mut(mat) {
        for (i, row) in m.chunks_exact_mut(cols).enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                let (i, j) = (i as i64, j as i64);
                if (lo >= 0 && i - j > lo) || (up >= 0 && j - i > up) {
                    *v = T::zero();
                }
            }
        }
    }
    Ok(())
}

struct BandPartKernel;

impl Kernel for BandPartKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = ctx.input(0).shape().to_vec();
        if s.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "input must be at least 2-dim, received shape: {}",
                format_dims(&s)
            )));
        }
        let mut counts = [0i64; 2];
        for (i, (name, what, limit)) in [
            ("num_lower", "rows", s[s.len() - 2]),
            ("num_upper", "columns", s[s.len() - 1]),
        ]
        .into_iter()
        .enumerate()
        {
            let t = ctx.input(i + 1);
            if t.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "{name} must be scalar, got shape {}",
                    format_dims(t.shape())
                )));
            }
            let v = to_i64s(t)?[0];
            if v > limit as i64 {
                return Err(Error::invalid_argument(format!(
                    "{name} must be negative or less or equal to number of {what} ({limit}) \
                     got: {v}"
                )));
            }
            counts[i] = v;
        }
        let mut out = ctx.take_input(0);
        let dt = out.dtype();
        weir_graph::match_data_dtype!(dt, T => band_typed::<T>(&mut out, counts[0], counts[1])?,
            _ => return Err(Error::invalid_argument(format!("MatrixBandPart does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn diag_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    if s.rank() == Some(0) {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0",
        ));
    }
    ctx.set_output(0, s.concatenate(&s));
    Ok(())
}

fn diag_part_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    let Some(d) = s.dims() else {
        return Ok(());
    };
    if d.is_empty() || d.len() % 2 != 0 {
        return Err(Error::invalid_argument(format!(
            "Input must have even and non-zero rank, input rank is {}",
            d.len()
        )));
    }
    let k = d.len() / 2;
    let mut out = Vec::with_capacity(k);
    for i in 0..k {
        match (d[i], d[i + k]) {
            (Some(a), Some(b)) if a != b => {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {a} and {b}"
                )))
            }
            (a, b) => out.push(a.or(b)),
        }
    }
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

fn band_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    if let Some(r) = s.rank().filter(|&r| r < 2) {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 2 but is rank {r}"
        )));
    }
    for i in [1, 2] {
        ctx.with_rank(i, 0)?;
    }
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Diag")
            .input("diagonal", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DIAG_TYPES)
            .shape_fn(diag_shape_fn),
    );
    register_kernel("Diag", |_| Ok(Box::new(DiagKernel)));
    register_op(
        OpDef::new("DiagPart")
            .input("input", ArgType::Attr("T"))
            .output("diagonal", ArgType::Attr("T"))
            .type_attr("T", DIAG_TYPES)
            .shape_fn(diag_part_shape_fn),
    );
    register_kernel("DiagPart", |_| Ok(Box::new(DiagPartKernel)));
    let mut band = OpDef::new("MatrixBandPart")
        .input("input", ArgType::Attr("T"))
        .input("num_lower", ArgType::Attr("Tindex"))
        .input("num_upper", ArgType::Attr("Tindex"))
        .output("band", ArgType::Attr("T"))
        .type_attr("T", DType::ALL_DATA)
        .type_attr("Tindex", &[DType::I32, DType::I64])
        .shape_fn(band_shape_fn);
    // `Tindex: {int32, int64} = DT_INT64`.
    if let Some(a) = band.attrs.iter_mut().find(|a| a.name == "Tindex") {
        a.default = Some(weir_graph::AttrValue::Type(DType::I64));
    }
    register_op(band);
    register_kernel("MatrixBandPart", |_| Ok(Box::new(BandPartKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diag_round_trips_and_band_masks() {
        let x = Tensor::from_vec(&[2, 2], vec![1i64, 2, 3, 4]).unwrap();
        let d = diag_typed::<i64>(&x).unwrap();
        assert_eq!(d.shape(), &[2, 2, 2, 2]);
        assert_eq!(diag_part_typed::<i64>(&d, 2).unwrap(), x);
        let mut m = Tensor::from_vec(&[3, 3], (1..=9).collect::<Vec<i32>>()).unwrap();
        band_typed::<i32>(&mut m, 0, 1).unwrap();
        assert_eq!(m.to_vec::<i32>().unwrap(), vec![1, 2, 0, 0, 5, 6, 0, 0, 9]);
    }
}
