//! `Transpose` (`tf.transpose(a, perm)`) and `ReverseV2` (`tf.reverse(tensor, axis)`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Shape,
    Tensor, TensorType,
};

use super::shape_util::{const_i64s, to_i64s, IndexArg};
use super::slice::Window;

/// `tf.transpose(a, perm)`: dim `i` of the output is dim `perm[i]` of `a`.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::array::{constant, transpose};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 3, 4], vec![0u8; 24])?)?;
/// assert_eq!(transpose(&x, [2, 0, 1])?.shape(), Shape::known(&[4, 2, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn transpose(a: impl Into<Output>, perm: impl Into<IndexArg>) -> Result<Output> {
    let x = a.into();
    let g = x.graph().clone();
    let p = perm.into().to_output(&g)?;
    crate::new_op(&g, "Transpose")
        .input(x)
        .input(p)
        .build()?
        .output(0)
}

/// `tf.transpose(a)`: all dims reversed (a matrix transpose for rank 2). With unknown rank the
/// permutation is computed in the graph, as TensorFlow does.
pub fn transpose_default(a: impl Into<Output>) -> Result<Output> {
    let x = a.into();
    match x.shape().rank() {
        Some(r) => transpose(&x, (0..r as i64).rev().collect::<Vec<_>>()),
        None => {
            let g = x.graph().clone();
            let _scope = g.name_scope("transpose");
            let rank = crate::array::rank(&x)?;
            let one = crate::array::constant(&g, 1i32)?;
            let zero = crate::array::constant(&g, 0i32)?;
            let last = crate::math::sub(&rank, &one)?;
            let perm = crate::math::sub(&last, crate::math::range_from(&zero, &rank, &one)?)?;
            transpose(&x, perm)
        }
    }
}

/// `tf.reverse(tensor, axis)` (op `ReverseV2`): the elements in reverse order along each of
/// `axis` (negative axes count from the end).
pub fn reverse(tensor: impl Into<Output>, axis: impl Into<IndexArg>) -> Result<Output> {
    let x = tensor.into();
    let g = x.graph().clone();
    let a = axis.into().to_output(&g)?;
    crate::new_op(&g, "ReverseV2")
        .input(x)
        .input(a)
        .build()?
        .output(0)
}

/// Checks `perm` is a permutation of `0..rank` (TensorFlow's messages).
pub(crate) fn check_perm(perm: &[i64], rank: usize) -> Result<Vec<usize>> {
    if perm.len() != rank {
        return Err(Error::invalid_argument(format!(
            "transpose expects a vector of size {rank}. But input(1) is a vector of size {}",
            perm.len()
        )));
    }
    let mut seen = vec![false; rank];
    for &d in perm {
        if d < 0 || d as usize >= rank {
            return Err(Error::invalid_argument(format!(
                "{d} is out of range [0 .. {rank})"
            )));
        }
        seen[d as usize] = true;
    }
    if let Some(i) = seen.iter().position(|&s| !s) {
        let shown: Vec<String> = perm.iter().map(i64::to_string).collect();
        return Err(Error::invalid_argument(format!(
            "{i} is missing from {{{}}}.",
            shown.join(",")
        )));
    }
    Ok(perm.iter().map(|&d| d as usize).collect())
}

fn transpose_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    let rank = x.rank().or(ctx.input_shape(1).dim(0));
    let (Some(r), Some(perm)) = (rank, const_i64s(ctx, 1)?) else {
        ctx.set_output(0, super::shape_util::unknown_dims(rank));
        return Ok(());
    };
    let perm = check_perm(&perm, r)?;
    ctx.set_output(
        0,
        Shape::new(perm.iter().map(|&p| x.dim(p as isize)).collect::<Vec<_>>()),
    );
    Ok(())
}

/// Copies `x` into the permuted layout: the output is written in order, each innermost run
/// read with one fixed input stride and the outer axes stepped like an odometer, so there is
/// no per-element index arithmetic (ndarray's generic strided copy cost ~15 ns per element).
///
/// When the innermost output axis is short and the one before it longer (CHW -> HWC moves
/// three channels per pixel), the two innermost axes are copied as one block, so the odometer
/// steps once per image row instead of once per pixel (it was half of `cifar_t2`'s time).
pub(crate) fn permute<T: TensorType>(x: &Tensor, perm: &[usize]) -> Result<Tensor> {
    permute_with(x, perm, interleave::<T, 3>)
}

/// [`permute`] with `interleave3` copying three contiguous planes into channels-last rows.
fn permute_with<T: TensorType>(
    x: &Tensor,
    perm: &[usize],
    interleave3: fn(&mut [T], [&[T]; 3]),
) -> Result<Tensor> {
    let src = x.as_slice::<T>()?;
    let in_shape = x.shape();
    let rank = perm.len();
    let out_shape: Vec<usize> = perm.iter().map(|&p| in_shape[p]).collect();
    if rank == 0 || src.is_empty() {
        return Tensor::from_vec(&out_shape, src.to_vec());
    }
    let mut in_strides = vec![1usize; rank];
    for i in (0..rank - 1).rev() {
        in_strides[i] = in_strides[i + 1] * in_shape[i + 1];
    }
    // The input stride of each output axis.
    let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let last = rank - 1;
    let (inner, inner_stride) = (out_shape[last], strides[last]);
    let block_axes = if rank >= 2 && inner < SHORT_RUN && out_shape[last - 1] > inner {
        2
    } else {
        1
    };
    let mut out = Vec::with_capacity(src.len());
    let mut copy_block = |base: usize| {
        if block_axes == 1 {
            out.extend((0..inner).map(|i| src[base + i * inner_stride].clone()));
        } else {
            // Two to four contiguous planes (CHW -> HWC) are interleaved a row at a time;
            // otherwise each short-axis index is one strided pass over the rows.
            let (rows, row_stride) = (out_shape[last - 1], strides[last - 1]);
            let start = out.len();
            out.resize(start + rows * inner, src[base].clone());
            let block = &mut out[start..];
            let run = |i: usize| &src[base + i * inner_stride..];
            match (inner, row_stride) {
                (2, 1) => interleave(block, [run(0), run(1)]),
                (3, 1) => interleave3(block, [run(0), run(1), run(2)]),
                (4, 1) => interleave(block, [run(0), run(1), run(2), run(3)]),
                _ => {
                    for i in 0..inner {
                        let column = block[i..].iter_mut().step_by(inner);
                        for (o, v) in column.zip(run(i).iter().step_by(row_stride)) {
                            *o = v.clone();
                        }
                    }
                }
            }
        }
    };
    // The odometer over the axes outside the block.
    let outer = rank - block_axes;
    let mut idx = vec![0usize; outer];
    let mut base = 0usize;
    'outer: loop {
        copy_block(base);
        let mut ax = outer;
        loop {
            if ax == 0 {
                break 'outer;
            }
            ax -= 1;
            idx[ax] += 1;
            base += strides[ax];
            if idx[ax] < out_shape[ax] {
                break;
            }
            base -= strides[ax] * out_shape[ax];
            idx[ax] = 0;
        }
    }
    Tensor::from_vec(&out_shape, out)
}

/// Writes `block` as rows of `K` elements, element `k` of row `r` from `runs[k][r]`: the
/// channels-last layout from `K` contiguous channel planes, one row per step.
pub(super) fn interleave<T: Clone, const K: usize>(block: &mut [T], runs: [&[T]; K]) {
    let rows = block.len() / K;
    let runs = runs.map(|r| &r[..rows]);
    for (r, o) in block.chunks_exact_mut(K).enumerate() {
        for (x, run) in o.iter_mut().zip(&runs) {
            *x = run[r].clone();
        }
    }
}

/// Innermost output runs shorter than this are copied two axes at a time.
const SHORT_RUN: usize = 8;

struct TransposeKernel;

impl Kernel for TransposeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let perm = to_i64s(ctx.input(1))?;
        let x = ctx.take_input(0);
        let perm = check_perm(&perm, x.rank())?;
        // Moving only size-1 dims keeps the element order: a reshape suffices.
        let moved: Vec<usize> = perm
            .iter()
            .copied()
            .filter(|&p| x.shape()[p] != 1)
            .collect();
        let out = if moved.windows(2).all(|w| w[0] < w[1]) {
            let dims: Vec<usize> = perm.iter().map(|&p| x.shape()[p]).collect();
            x.reshape(&dims)?
        } else {
            let dt = x.dtype();
            if dt == DType::U8 {
                permute_with::<u8>(&x, &perm, super::interleave_u8::interleave3)?
            } else {
                weir_graph::match_data_dtype!(dt, T => permute::<T>(&x, &perm)?,
                _ => return Err(Error::invalid_argument(format!("Cannot transpose {dt} tensors"))))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// Which dims `axes` reverses (TensorFlow's messages for range and duplicates).
fn reverse_flags(axes: &[i64], rank: usize) -> Result<Vec<bool>> {
    let r = rank as i64;
    let mut flags = vec![false; rank];
    for (i, &a) in axes.iter().enumerate() {
        if a < -r || a >= r {
            return Err(Error::invalid_argument(format!(
                "'axis'[{i}] = {a} is out of valid range [0, {rank})"
            )));
        }
        let d = if a < 0 { a + r } else { a } as usize;
        if flags[d] {
            return Err(Error::invalid_argument(format!(
                "axis {d} specified more than once."
            )));
        }
        flags[d] = true;
    }
    Ok(flags)
}

fn reverse_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    if let (Some(r), Some(axes)) = (x.rank(), const_i64s(ctx, 1)?) {
        reverse_flags(&axes, r)?;
    }
    ctx.set_output(0, x);
    Ok(())
}

struct ReverseKernel;

impl Kernel for ReverseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let axes = to_i64s(ctx.input(1))?;
        let x = ctx.take_input(0);
        let flags = reverse_flags(&axes, x.rank())?;
        let shape = x.shape().to_vec();
        let begin: Vec<i64> = shape
            .iter()
            .zip(&flags)
            .map(|(&d, &f)| if f { d as i64 - 1 } else { 0 })
            .collect();
        let stride: Vec<i64> = flags.iter().map(|&f| if f { -1 } else { 1 }).collect();
        let w = Window {
            shape: &shape,
            begin: &begin,
            stride: &stride,
            count: &shape,
        };
        let out = w.apply(&x, &shape)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

const INDEX: &[DType] = &[DType::I32, DType::I64];

pub(super) fn register() {
    register_op(
        OpDef::new("Transpose")
            .input("x", ArgType::Attr("T"))
            .input("perm", ArgType::Attr("Tperm"))
            .output("y", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tperm", INDEX)
            .shape_fn(transpose_shape_fn),
    );
    register_kernel("Transpose", |_| Ok(Box::new(TransposeKernel)));
    register_op(
        OpDef::new("ReverseV2")
            .input("tensor", ArgType::Attr("T"))
            .input("axis", ArgType::Attr("Tidx"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tidx", INDEX)
            .shape_fn(reverse_shape_fn),
    );
    register_kernel("ReverseV2", |_| Ok(Box::new(ReverseKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[test]
    fn perm_checks() {
        assert_eq!(check_perm(&[1, 0], 2).unwrap(), vec![1, 0]);
        assert_eq!(
            check_perm(&[0], 2).unwrap_err().message(),
            "transpose expects a vector of size 2. But input(1) is a vector of size 1"
        );
        assert_eq!(
            check_perm(&[0, 2], 2).unwrap_err().message(),
            "2 is out of range [0 .. 2)"
        );
        assert_eq!(
            check_perm(&[1, 1], 2).unwrap_err().message(),
            "0 is missing from {1,1}."
        );
        assert_eq!(
            reverse_flags(&[0, -2], 2).unwrap_err().message(),
            "axis 0 specified more than once."
        );
        assert_eq!(
            reverse_flags(&[2], 2).unwrap_err().message(),
            "'axis'[0] = 2 is out of valid range [0, 2)"
        );
    }

    /// Every path of `permute` (long inner runs, the two-axis blocks with 2, 3, 4 and 5 short
    /// runs, strided and contiguous rows, an odometer outside the block) against ndarray.
    #[test]
    fn permute_matches_ndarray_for_short_and_long_runs() {
        let cases: [(&[usize], &[usize]); 10] = [
            (&[2, 7, 5], &[1, 2, 0]),
            (&[3, 6, 5], &[1, 2, 0]),
            (&[4, 3, 9], &[2, 1, 0]),
            (&[5, 8, 6], &[1, 2, 0]),
            (&[2, 3, 4, 5], &[0, 2, 3, 1]),
            (&[3, 2, 9, 4], &[3, 2, 0, 1]),
            (&[6, 4], &[1, 0]),
            (&[3, 1, 10], &[2, 1, 0]),
            (&[3, 32, 32], &[1, 2, 0]),
            (&[2, 3, 5, 21], &[0, 2, 3, 1]),
        ];
        for (shape, perm) in cases {
            let n: usize = shape.iter().product();
            let x = Tensor::from_vec(shape, (0..n as i64).collect::<Vec<i64>>()).unwrap();
            let want: Vec<i64> = x
                .view::<i64>()
                .unwrap()
                .permuted_axes(perm.to_vec())
                .iter()
                .copied()
                .collect();
            let t = permute::<i64>(&x, perm).unwrap();
            assert_eq!(t.to_vec::<i64>().unwrap(), want, "{shape:?} by {perm:?}");
            let strings: Vec<Bytes> = (0..n).map(|i| Bytes::from(i.to_string())).collect();
            let xs = Tensor::from_vec(shape, strings).unwrap();
            let ts = permute::<Bytes>(&xs, perm)
                .unwrap()
                .to_vec::<Bytes>()
                .unwrap();
            let got: Vec<i64> = ts
                .iter()
                .map(|b| std::str::from_utf8(b).unwrap().parse().unwrap())
                .collect();
            assert_eq!(got, want, "strings {shape:?} by {perm:?}");
            // The byte path the kernel takes for uint8, with its shuffled three-plane blocks.
            let xb = Tensor::from_vec(shape, (0..n).map(|i| i as u8).collect::<Vec<u8>>()).unwrap();
            let tb = permute_with::<u8>(&xb, perm, super::super::interleave_u8::interleave3)
                .unwrap()
                .to_vec::<u8>()
                .unwrap();
            let want_b: Vec<u8> = want.iter().map(|&v| v as u8).collect();
            assert_eq!(tb, want_b, "bytes {shape:?} by {perm:?}");
        }
    }

    #[test]
    fn permute_matches_index_math() {
        let x = Tensor::from_vec(&[2, 3], (0..6).collect::<Vec<i32>>()).unwrap();
        let t = permute::<i32>(&x, &[1, 0]).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![0, 3, 1, 4, 2, 5]);
        // CHW -> HWC, checked against ndarray's permuted view.
        let x = Tensor::from_vec(&[3, 4, 5], (0..60).collect::<Vec<i32>>()).unwrap();
        let t = permute::<i32>(&x, &[1, 2, 0]).unwrap();
        let want: Vec<i32> = x
            .view::<i32>()
            .unwrap()
            .permuted_axes(vec![1, 2, 0])
            .iter()
            .copied()
            .collect();
        assert_eq!(t.shape(), &[4, 5, 3]);
        assert_eq!(t.to_vec::<i32>().unwrap(), want);
    }
}
