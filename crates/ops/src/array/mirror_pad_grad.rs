//! `MirrorPadGrad`: the gradient of `MirrorPad`, folding the mirrored borders of a padded
//! tensor back onto the elements they copy (TensorFlow's `gen_array_ops.mirror_pad_grad`).
//!
//! The fold runs as TensorFlow's Eigen functor does: dim by dim, first the leading border, then
//! the trailing one, each added (reversed) into the rows it mirrors, over the part of the
//! earlier dims already folded and all of the later ones. Every element thus sees its additions
//! in TensorFlow's order, so float results match bit for bit.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, format_dims, ArgType, AttrKind, Complex, DType, Error, InferenceContext, Kernel,
    Node, OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::shape_util::to_i64s;
use super::tile_pad::PadMode;

/// `gen_array_ops.mirror_pad_grad(input, paddings, mode)` (op `MirrorPadGrad`): sums the
/// borders `tf.pad(x, paddings, mode)` mirrored back into a tensor of `x`'s shape.
///
/// `mode` must be [`PadMode::Reflect`] or [`PadMode::Symmetric`]; `paddings` is an int32 or
/// int64 `[rank, 2]` tensor.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::array::{constant, mirror_pad_grad, PadMode};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from(vec![1.0f32, 2.0, 3.0, 4.0]))?;
/// let p = constant(&g, Tensor::from_vec(&[1, 2], vec![1i32, 0])?)?;
/// let y = mirror_pad_grad(&x, &p, PadMode::Symmetric)?; // [1 + 2, 3, 4]
/// assert_eq!(y.shape(), Shape::known(&[3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn mirror_pad_grad(
    input: impl Into<Output>,
    paddings: impl Into<Output>,
    mode: PadMode,
) -> Result<Output> {
    let (x, p) = (input.into(), paddings.into());
    let g = crate::util::same_graph(&[&x, &p])?.clone();
    let mode = match mode {
        PadMode::Reflect => "REFLECT",
        PadMode::Symmetric => "SYMMETRIC",
        PadMode::Constant => "CONSTANT",
    };
    crate::new_op(&g, "MirrorPadGrad")
        .input(x)
        .input(p)
        .attr("mode", mode)
        .build()?
        .output(0)
}

/// The mode attr as the fold's offset: 1 for REFLECT (the edge is not copied), 0 for
/// SYMMETRIC; TensorFlow's op-def error for anything else.
fn offset_of(mode: &str) -> Result<usize> {
    match mode {
        "REFLECT" => Ok(1),
        "SYMMETRIC" => Ok(0),
        m => Err(Error::invalid_argument(format!(
            "Attr 'mode' of 'MirrorPadGrad' Op passed string '{m}' not in: \"REFLECT\", \"SYMMETRIC\"."
        ))),
    }
}

/// TensorFlow's shape function: the input's dims less both paddings, once the paddings' rows
/// (the rank) and values are known.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    offset_of(&ctx.attr::<String>("mode")?)?;
    let p_shape = ctx.with_rank(1, 2)?;
    let Some(rank) = p_shape.dim(0) else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let x = ctx.with_rank(0, rank)?;
    if let Some(cols) = p_shape.dim(1).filter(|&c| c != 2) {
        return Err(Error::invalid_argument(format!(
            "Dimension 1 in both shapes must be equal, but are {cols} and 2. Shapes are [{rank},{cols}] and [{rank},2]."
        )));
    }
    let Some(p) = ctx.input_const(1) else {
        ctx.set_output(0, Shape::unknown_of_rank(rank));
        return Ok(());
    };
    let p = to_i64s(p)?;
    let mut dims = Vec::with_capacity(rank);
    for i in 0..rank {
        let (before, after) = (p[2 * i], p[2 * i + 1]);
        if before < 0 || after < 0 {
            return Err(Error::invalid_argument("Paddings must be non-negative"));
        }
        let total = before + after;
        dims.push(match x.dim(i as isize) {
            Some(d) if (d as i64) < total => {
                return Err(Error::invalid_argument(format!(
                    "Negative dimension size caused by subtracting {total} from {d}"
                )))
            }
            Some(d) => Some(d - total as usize),
            None => None,
        });
    }
    ctx.set_output(0, Shape::new(dims));
    Ok(())
}

/// The types TensorFlow registers a CPU kernel for (`TF_CALL_NUMBER_TYPES`), in the order its
/// "no kernel" message lists them.
const KERNEL_TYPES: &[DType] = &[
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

/// TensorFlow's error for a `T` the op def allows but no CPU kernel takes (bool, string).
fn no_kernel(node: &Node, dt: DType) -> Error {
    let mut list = Vec::with_capacity(2 * KERNEL_TYPES.len());
    for t in KERNEL_TYPES {
        for idx in ["DT_INT64", "DT_INT32"] {
            list.push(format!(
                "  device='CPU'; T in [{}]; Tpaddings in [{idx}]",
                t.proto_name()
            ));
        }
    }
    let tp = node
        .attr::<DType>("Tpaddings")
        .unwrap_or(DType::I32)
        .proto_name();
    let mode = node.attr::<String>("mode").unwrap_or_default();
    Error::invalid_argument(format!(
        "No OpKernel was registered to support Op 'MirrorPadGrad' used by {{{{node {}}}}} with these attrs: [T={}, Tpaddings={tp}, mode=\"{mode}\"]\nRegistered devices: [CPU]\nRegistered kernels:\n{}\n",
        node.name(),
        dt.proto_name(),
        list.join("\n")
    ))
}

/// Addition as TensorFlow's kernels do it per type: integers wrap, the half types add in f32
/// and round back, floats and complex numbers are IEEE.
trait FoldAdd: TensorType + Copy {
    fn fold_add(self, other: Self) -> Self;
}

macro_rules! wrapping_fold {
    ($($t:ty),*) => {$(
        impl FoldAdd for $t {
            fn fold_add(self, other: Self) -> Self { self.wrapping_add(other) }
        }
    )*};
}
wrapping_fold!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! ieee_fold {
    ($($t:ty),*) => {$(
        impl FoldAdd for $t {
            fn fold_add(self, other: Self) -> Self { self + other }
        }
    )*};
}
ieee_fold!(f32, f64, Complex<f32>, Complex<f64>);

macro_rules! half_fold {
    ($($t:ty),*) => {$(
        impl FoldAdd for $t {
            fn fold_add(self, other: Self) -> Self {
                <$t>::from_f32(self.to_f32() + other.to_f32())
            }
        }
    )*};
}
half_fold!(f16, bf16);

/// Row-major strides of `dims`.
fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; dims.len()];
    for j in (0..dims.len().saturating_sub(1)).rev() {
        s[j] = s[j + 1] * dims[j + 1];
    }
    s
}

/// Calls `f` with the flat offset of every combination of coordinates `start[j]..start[j] +
/// extent[j]` over the dims `j < extent.len()` (a single call, offset 0, when there are none).
fn for_each_offset(start: &[usize], extent: &[usize], strides: &[usize], mut f: impl FnMut(usize)) {
    if extent.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; extent.len()];
    loop {
        let off = (0..extent.len())
            .map(|j| (start[j] + idx[j]) * strides[j])
            .sum();
        f(off);
        let mut j = extent.len();
        loop {
            if j == 0 {
                return;
            }
            j -= 1;
            idx[j] += 1;
            if idx[j] < extent[j] {
                break;
            }
            idx[j] = 0;
        }
    }
}

/// Folds `xs` (of shape `dims`) by `pads` (`[before, after]` per dim, already checked) with
/// `offset` (1 for REFLECT, 0 for SYMMETRIC) into the central part.
fn fold<T: FoldAdd>(xs: &[T], dims: &[usize], pads: &[[usize; 2]], offset: usize) -> Vec<T> {
    let mut s = xs.to_vec();
    let st = strides(dims);
    let out_dims: Vec<usize> = dims
        .iter()
        .zip(pads)
        .map(|(d, p)| d - p[0] - p[1])
        .collect();
    let begin: Vec<usize> = pads.iter().map(|p| p[0]).collect();
    for i in 0..dims.len() {
        // Rows of dim i are blocks of st[i] contiguous elements (the later dims in full).
        let row = st[i];
        let [before, after] = pads[i];
        // (destination row, source row) pairs along dim i: each border row reversed onto
        // the rows it mirrors, the leading border first.
        let d = dims[i];
        let pairs = (0..before)
            .map(|t| (before + offset + t, before - 1 - t))
            .chain((0..after).map(|t| (d - 2 * after - offset + t, d - 1 - t)));
        let pairs: Vec<(usize, usize)> = pairs.collect();
        if pairs.is_empty() {
            continue;
        }
        for_each_offset(&begin[..i], &out_dims[..i], &st, |base| {
            for &(dst, src) in &pairs {
                let (dst, src) = (base + dst * row, base + src * row);
                for e in 0..row {
                    s[dst + e] = s[dst + e].fold_add(s[src + e]);
                }
            }
        });
    }
    let n: usize = out_dims.iter().product();
    let mut out = Vec::with_capacity(n);
    match dims.len() {
        0 => out.extend_from_slice(&s),
        r => {
            let last = out_dims[r - 1];
            for_each_offset(&begin[..r - 1], &out_dims[..r - 1], &st, |base| {
                let from = base + begin[r - 1];
                out.extend_from_slice(&s[from..from + last]);
            });
        }
    }
    out
}

/// Checks the paddings against the input's shape, in TensorFlow's kernel's order and words,
/// and returns them as `[before, after]` per dim.
fn check(x_shape: &[usize], p: &Tensor, offset: usize) -> Result<Vec<[usize; 2]>> {
    let rank = x_shape.len();
    if rank > 5 {
        return Err(Error::unimplemented(format!(
            "inputs rank not in [0,5]: {rank}"
        )));
    }
    if p.rank() != 2 || p.shape()[1] != 2 {
        return Err(Error::invalid_argument(format!(
            "paddings must be a matrix with 2 columns: {}",
            format_dims(p.shape())
        )));
    }
    if p.shape()[0] != rank {
        return Err(Error::invalid_argument(format!(
            "The first dimension of paddings must be the rank of inputs{} {}",
            format_dims(p.shape()),
            format_dims(x_shape)
        )));
    }
    let v = to_i64s(p)?;
    let mut pads = Vec::with_capacity(rank);
    for (d, &size) in x_shape.iter().enumerate() {
        let (before, after) = (v[2 * d], v[2 * d + 1]);
        if before < 0 || after < 0 {
            return Err(Error::invalid_argument(format!(
                "Paddings must be non-negative: {before}, {after}"
            )));
        }
        let size = size as i64;
        if before + after >= size {
            return Err(Error::invalid_argument(format!(
                "Total paddings must be less than the input dimension size: {} was not less than {size}",
                before + after
            )));
        }
        let out = size - before - after;
        if offset == 0 && (before > out || after > out) {
            return Err(Error::invalid_argument(format!(
                "paddings must be no greater than the output dimension size: {before}, {after} greater than {out}"
            )));
        }
        if offset == 1 && (before >= out || after >= out) {
            return Err(Error::invalid_argument(format!(
                "paddings must be less than the output dimension size: {before}, {after} not less than {out}"
            )));
        }
        pads.push([before as usize, after as usize]);
    }
    Ok(pads)
}

fn fold_tensor<T: FoldAdd>(x: &Tensor, pads: &[[usize; 2]], offset: usize) -> Result<Tensor> {
    let out_dims: Vec<usize> = x
        .shape()
        .iter()
        .zip(pads)
        .map(|(d, p)| d - p[0] - p[1])
        .collect();
    Tensor::from_vec(&out_dims, fold(x.as_slice::<T>()?, x.shape(), pads, offset))
}

struct MirrorPadGradKernel {
    offset: usize,
}

impl Kernel for MirrorPadGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let pads = check(ctx.input(0).shape(), ctx.input(1), self.offset)?;
        if pads.iter().all(|p| p == &[0, 0]) {
            let x = ctx.take_input(0);
            ctx.set_output(0, x);
            return Ok(());
        }
        let x = ctx.input(0);
        let dt = x.dtype();
        let out = weir_graph::match_real_dtype!(dt, T => fold_tensor::<T>(x, &pads, self.offset)?,
            _ => weir_graph::match_half_dtype!(dt, T => fold_tensor::<T>(x, &pads, self.offset)?,
            _ => weir_graph::match_complex_dtype!(dt, T => fold_tensor::<T>(x, &pads, self.offset)?,
            _ => return Err(Error::internal(format!("MirrorPadGrad of {dt}"))))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let offset = offset_of(&node.attr::<String>("mode")?)?;
    let dt: DType = node.attr("T")?;
    if !KERNEL_TYPES.contains(&dt) {
        return Err(no_kernel(node, dt));
    }
    Ok(Box::new(MirrorPadGradKernel { offset }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("MirrorPadGrad")
            .input("input", ArgType::Attr("T"))
            .input("paddings", ArgType::Attr("Tpaddings"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tpaddings", &[DType::I32, DType::I64])
            .attr("mode", AttrKind::Str, None)
            .shape_fn(shape_fn),
    );
    register_kernel("MirrorPadGrad", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &[i64]) -> Tensor {
        Tensor::from_vec(&[v.len() / 2, 2], v.to_vec()).unwrap()
    }

    #[test]
    fn folds_both_borders_of_every_dim() {
        // TensorFlow's doc example: [[1,2,3],[4,5,6],[7,8,9]] folded by [[0,1],[0,1]].
        let x: Vec<i32> = (1..=9).collect();
        let out = fold(&x, &[3, 3], &[[0, 1], [0, 1]], 0);
        assert_eq!(out, vec![1, 5, 11, 28]);
        // REFLECT by [1, 1]: positions 0 and 4 both mirror position 2.
        let out = fold(&[1, 10, 100, 1000, 10000], &[5], &[[1, 1]], 1);
        assert_eq!(out, vec![10, 10101, 1000]);
    }

    #[test]
    fn half_adds_round_after_each_step() {
        let h = |v: f32| f16::from_f32(v);
        // 2048 + 1 rounds back to 2048 in f16, twice; a wider sum would reach 2050.
        let out = fold(&[h(1.0), h(2048.0), h(1.0)], &[3], &[[1, 1]], 1);
        assert_eq!(out, vec![h(2048.0)]);
    }

    #[test]
    fn checks_in_tensorflows_order() {
        let msg = |s: &[usize], v: &[i64], off| check(s, &p(v), off).unwrap_err().to_string();
        assert!(msg(&[3], &[-1, 5], 1).contains("Paddings must be non-negative: -1, 5"));
        assert!(msg(&[3], &[2, 2], 0).contains(
            "Total paddings must be less than the input dimension size: 4 was not less than 3"
        ));
        assert!(msg(&[4], &[2, 1], 1).contains(
            "paddings must be less than the output dimension size: 2, 1 not less than 1"
        ));
        let e = check(&[1; 6], &p(&[0; 12]), 0).unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::Unimplemented);
        assert_eq!(
            check(
                &[],
                &Tensor::from_vec(&[0, 2], Vec::<i32>::new()).unwrap(),
                0
            )
            .unwrap(),
            Vec::<[usize; 2]>::new()
        );
    }
}
