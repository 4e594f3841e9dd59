//! The backward ops of sparse structure ops: `SparseFillEmptyRowsGrad` (of
//! `SparseFillEmptyRows`) and `SparseSliceGrad` (of `SparseSlice`). Both route the gradient of
//! the output values back to the input values they came from.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, HalfFloat, InferenceContext, Kernel, Node, OpContext,
    OpDef, Output, Result, Shape, Tensor, TensorType,
};

fn invalid(msg: String) -> Error {
    Error::invalid_argument(msg)
}

/// TensorFlow's `numbertype`, in its order, without the quantized types weir lacks.
const NUMBER_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I32,
    DType::U8,
    DType::I16,
    DType::I8,
    DType::C64,
    DType::I64,
    DType::BF16,
    DType::U16,
    DType::C128,
    DType::F16,
    DType::U32,
    DType::U64,
];

/// The types `SparseFillEmptyRowsGrad` has CPU kernels for (`TF_CALL_NUMBER_TYPES`), in the
/// order TensorFlow's "No OpKernel" message lists them.
const FILL_GRAD_KERNELS: &[DType] = &[
    DType::C128,
    DType::C64,
    DType::F64,
    DType::F32,
    DType::BF16,
    DType::F16,
    DType::I32,
    DType::I8,
    DType::U8,
    DType::I16,
    DType::U16,
    DType::U32,
    DType::I64,
    DType::U64,
];

/// Addition as TensorFlow's kernels do it per element type: integers wrap; floats run with
/// denormals flushed to zero (TensorFlow's threads set DAZ and FTZ), halves widen to float and
/// round back after each sum (`Eigen::half`), complex numbers add componentwise.
trait GradSum: TensorType + Copy + Default {
    fn add(a: Self, b: Self) -> Self;
}

macro_rules! wrapping_sum {
    ($($t:ty),*) => {$(
        impl GradSum for $t {
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
        }
    )*};
}
wrapping_sum!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_sum {
    ($($t:ident),*) => {$(
        impl GradSum for $t {
            fn add(a: Self, b: Self) -> Self {
                let flush = |x: $t| if x.is_subnormal() { 0.0 * x.signum() } else { x };
                flush(flush(a) + flush(b))
            }
        }
        impl GradSum for weir_graph::Complex<$t> {
            fn add(a: Self, b: Self) -> Self {
                Self::new(<$t as GradSum>::add(a.re, b.re), <$t as GradSum>::add(a.im, b.im))
            }
        }
    )*};
}
float_sum!(f32, f64);

macro_rules! half_sum {
    ($($t:ty),*) => {$(
        impl GradSum for $t {
            fn add(a: Self, b: Self) -> Self {
                <$t as HalfFloat>::from_f32(<f32 as GradSum>::add(a.to_f32(), b.to_f32()))
            }
        }
    )*};
}
half_sum!(weir_graph::f16, weir_graph::bf16);

/// Dispatches `$body` over TensorFlow's number types (real, half and complex).
macro_rules! match_number_dtype {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        weir_graph::match_real_dtype!($dtype, $T => $body,
            _ => weir_graph::match_half_dtype!($dtype, $T => $body,
                _ => weir_graph::match_complex_dtype!($dtype, $T => $body, _ => $other)))
    };
}

/// TensorFlow's error for a node whose `T` has no CPU kernel (`kernels`, in TensorFlow's
/// order).
fn check_kernel(node: &Node, kernels: &[DType]) -> Result<()> {
    let dt: DType = node.attr("T")?;
    if kernels.contains(&dt) {
        return Ok(());
    }
    let list: Vec<String> = kernels
        .iter()
        .map(|k| format!("  device='CPU'; T in [{}]", k.proto_name()))
        .collect();
    Err(invalid(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these \
         attrs: [T={}]\nRegistered devices: [CPU]\nRegistered kernels:\n{}\n",
        node.op_type(),
        node.name(),
        dt.proto_name(),
        list.join("\n")
    )))
}

// ---------------------------------------------------------------------------------------------
// SparseFillEmptyRowsGrad

/// Op `SparseFillEmptyRowsGrad` (`gen_sparse_ops.sparse_fill_empty_rows_grad`): from the
/// gradient of `SparseFillEmptyRows`' output values (`grad_values`, `[N_full]`) and its
/// `reverse_index_map` (`[N]`), the gradient of the input values (`d_values[i] =
/// grad_values[reverse_index_map[i]]`) and of the default value (the sum of the gradients of
/// the entries no input value went to). Returns `(d_values, d_default_value)`.
pub fn sparse_fill_empty_rows_grad(
    reverse_index_map: impl Into<Output>,
    grad_values: impl Into<Output>,
) -> Result<(Output, Output)> {
    let (map, grad) = (reverse_index_map.into(), grad_values.into());
    let g = crate::util::same_graph(&[&map, &grad])?.clone();
    let op = crate::new_op(&g, "SparseFillEmptyRowsGrad")
        .input(&map)
        .input(&grad)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

struct FillGradKernel;

impl Kernel for FillGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (map, grad) = (ctx.input(0), ctx.input(1));
        if map.rank() != 1 {
            return Err(invalid(format!(
                "reverse_index_map must be a vector, saw: {}",
                format_dims(map.shape())
            )));
        }
        if grad.rank() != 1 {
            return Err(invalid(format!(
                "grad_values must be a vector, saw: {}",
                format_dims(grad.shape())
            )));
        }
        let map = map.as_slice::<i64>()?;
        let dt = grad.dtype();
        let (d_values, d_default) = match_number_dtype!(dt, T => fill_grad::<T>(map, grad)?,
            _ => return Err(invalid(format!("SparseFillEmptyRowsGrad does not support {dt}"))));
        ctx.set_output(0, d_values);
        ctx.set_output(1, d_default);
        Ok(())
    }
}

/// TensorFlow's CPU functor: the default value's gradient sums the unvisited entries in
/// order, in `T`.
fn fill_grad<T: GradSum>(map: &[i64], grad: &Tensor) -> Result<(Tensor, Tensor)> {
    let gv = grad.as_slice::<T>()?;
    let n_full = gv.len();
    let mut visited = vec![false; n_full];
    let mut d_values = Vec::with_capacity(map.len());
    for &r in map {
        if r < 0 || r as u64 >= n_full as u64 {
            return Err(invalid(format!(
                "Elements in reverse index must be in [0, {n_full}) but got {r}"
            )));
        }
        d_values.push(gv[r as usize]);
        visited[r as usize] = true;
    }
    let d_default = gv
        .iter()
        .zip(&visited)
        .filter(|(_, &v)| !v)
        .fold(T::default(), |acc, (&g, _)| T::add(acc, g));
    Ok((
        Tensor::from_vec(&[map.len()], d_values)?,
        Tensor::scalar(d_default),
    ))
}

fn fill_grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let map = ctx.with_rank(0, 1)?;
    ctx.with_rank(1, 1)?;
    ctx.set_output(0, map);
    ctx.set_output(1, Shape::scalar());
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// SparseSliceGrad

/// Op `SparseSliceGrad` (`gen_sparse_ops.sparse_slice_grad`): from the gradient of
/// `SparseSlice`'s output values, the gradient of its input values: each input entry whose
/// index is the next output index shifted by `input_start` takes that output's gradient, the
/// others zero. Both index lists must be in the same order (as `SparseSlice` keeps it).
pub fn sparse_slice_grad(
    backprop_val_grad: impl Into<Output>,
    input_indices: impl Into<Output>,
    input_start: impl Into<Output>,
    output_indices: impl Into<Output>,
) -> Result<Output> {
    let (grad, ix, start, out_ix) = (
        backprop_val_grad.into(),
        input_indices.into(),
        input_start.into(),
        output_indices.into(),
    );
    let g = crate::util::same_graph(&[&grad, &ix, &start, &out_ix])?.clone();
    crate::new_op(&g, "SparseSliceGrad")
        .input(&grad)
        .input(&ix)
        .input(&start)
        .input(&out_ix)
        .build()?
        .output(0)
}

struct SliceGradKernel;

impl Kernel for SliceGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (grad, ix, start, out_ix) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        if ix.rank() != 2 || out_ix.rank() != 2 {
            return Err(invalid(format!(
                "Input and output indices should be matrices but received shapes: {} and {}",
                format_dims(ix.shape()),
                format_dims(out_ix.shape())
            )));
        }
        if grad.rank() != 1 {
            return Err(invalid(format!(
                "Input backprop_val_grad should be a vector but received shape: {}",
                format_dims(grad.shape())
            )));
        }
        let (in_nnz, dims) = (ix.shape()[0], ix.shape()[1]);
        let (out_nnz, out_dims) = (out_ix.shape()[0], out_ix.shape()[1]);
        if dims != out_dims {
            return Err(invalid(format!(
                "The input and output should have the same ndims: got: {dims} and {out_dims}"
            )));
        }
        if out_nnz > in_nnz {
            return Err(invalid(format!(
                "# rows of output_indices should be not greater than of input_indices, got \
                 {out_nnz} and {in_nnz}"
            )));
        }
        if grad.num_elements() != out_nnz {
            return Err(invalid(format!(
                "# elements of backprop_val_grad and # rows of output_indices should match \
                 (#nnz of sum): got {} and {out_nnz}",
                grad.num_elements()
            )));
        }
        if start.rank() != 1 {
            return Err(invalid(format!(
                "The input_start should be a vector but received shape {}",
                format_dims(start.shape())
            )));
        }
        if start.num_elements() != dims {
            return Err(invalid(format!(
                "Expected input_start to be a vector of length {dims} but got length {}",
                start.num_elements()
            )));
        }
        let (ix, out_ix) = (ix.as_slice::<i64>()?, out_ix.as_slice::<i64>()?);
        let start = start.as_slice::<i64>()?;
        let dt = grad.dtype();
        let out = match_number_dtype!(dt, T => slice_grad::<T>(grad, ix, out_ix, start, in_nnz)?,
            _ => return Err(invalid(format!("SparseSliceGrad does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's single pass: input entry `i` takes output gradient `j` when its index equals
/// output index `j` plus `start` (wrapping, as the C++ sum does), and `j` moves on.
fn slice_grad<T: GradSum>(
    grad: &Tensor,
    ix: &[i64],
    out_ix: &[i64],
    start: &[i64],
    in_nnz: usize,
) -> Result<Tensor> {
    let gv = grad.as_slice::<T>()?;
    let dims = start.len();
    let mut out = vec![T::default(); in_nnz];
    let mut j = 0;
    for (i, slot) in out.iter_mut().enumerate() {
        if j >= gv.len() {
            break;
        }
        let a = &ix[i * dims..(i + 1) * dims];
        let b = &out_ix[j * dims..(j + 1) * dims];
        let same = a
            .iter()
            .zip(b)
            .zip(start)
            .all(|((&a, &b), &s)| a == b.wrapping_add(s));
        if same {
            *slot = gv[j];
            j += 1;
        }
    }
    if j != gv.len() {
        return Err(Error::internal(format!(
            "Elements of backprop_val_grad aren't all propagated. Num elements:{}, used: {j}",
            gv.len()
        )));
    }
    Tensor::from_vec(&[in_nnz], out)
}

fn slice_grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let ix = ctx.with_rank(1, 2)?;
    ctx.set_output(0, Shape::new(vec![ix.dim(0)]));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseFillEmptyRowsGrad")
            .input("reverse_index_map", ArgType::Fixed(DType::I64))
            .input("grad_values", ArgType::Attr("T"))
            .output("d_values", ArgType::Attr("T"))
            .output("d_default_value", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(fill_grad_shape_fn),
    );
    register_kernel("SparseFillEmptyRowsGrad", |node| {
        check_kernel(node, FILL_GRAD_KERNELS)?;
        Ok(Box::new(FillGradKernel))
    });
    register_op(
        OpDef::new("SparseSliceGrad")
            .input("backprop_val_grad", ArgType::Attr("T"))
            .input("input_indices", ArgType::Fixed(DType::I64))
            .input("input_start", ArgType::Fixed(DType::I64))
            .input("output_indices", ArgType::Fixed(DType::I64))
            .output("val_grad", ArgType::Attr("T"))
            .type_attr("T", NUMBER_TYPES)
            .shape_fn(slice_grad_shape_fn),
    );
    register_kernel("SparseSliceGrad", |_| Ok(Box::new(SliceGradKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_graph::f16;

    #[test]
    fn half_default_gradient_rounds_after_each_sum() {
        // 2048 + 1 rounds back to 2048 in float16, so summing in float would differ.
        let grad = Tensor::from_vec(
            &[3],
            vec![
                f16::from_f32(2048.0),
                f16::from_f32(1.0),
                f16::from_f32(1.0),
            ],
        )
        .unwrap();
        let (_, d) = fill_grad::<f16>(&[], &grad).unwrap();
        assert_eq!(d.to_scalar::<f16>().unwrap(), f16::from_f32(2048.0));
    }

    #[test]
    fn float_sums_flush_denormals() {
        let tiny = f32::from_bits(1);
        assert_eq!(<f32 as GradSum>::add(tiny, tiny).to_bits(), 0);
        assert_eq!(
            <f32 as GradSum>::add(-tiny, -0.0).to_bits(),
            (-0.0f32).to_bits()
        );
        assert_eq!(<f32 as GradSum>::add(1.0, tiny), 1.0);
    }

    #[test]
    fn slice_grad_matches_shifted_indices_in_order() {
        let grad = Tensor::from_vec(&[2], vec![5.0f32, 7.0]).unwrap();
        let out = slice_grad::<f32>(&grad, &[0, 1, 1, 2, 2, 3], &[0, 0, 1, 1], &[1, 2], 3).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), [0.0, 5.0, 7.0]);
        let err =
            slice_grad::<f32>(&grad, &[0, 1, 1, 2, 2, 3], &[1, 0, 0, 0], &[1, 2], 3).unwrap_err();
        assert_eq!(err.code(), weir_graph::Code::Internal);
    }
}
