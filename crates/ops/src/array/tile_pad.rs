//! `Tile` (`tf.tile`) and `Pad`/`PadV2`/`MirrorPad` (`tf.pad`): outputs built front to back in
//! one buffer, whole input rows at a time, with repeated blocks copied from the output itself.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, scalar_of, ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::shape_util::{const_i64s, to_i64s, IndexArg};

/// `tf.tile(input, multiples)`: `input` repeated `multiples[i]` times along dim `i`.
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::array::{constant, tile};
/// let g = Graph::new();
/// let x = constant(&g, [1, 2])?;
/// assert_eq!(tile(&x, [3])?.shape(), Shape::known(&[6]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn tile(input: impl Into<Output>, multiples: impl Into<IndexArg>) -> Result<Output> {
    let x = input.into();
    let g = x.graph().clone();
    let m = multiples.into().to_output(&g)?;
    crate::new_op(&g, "Tile")
        .input(x)
        .input(m)
        .build()?
        .output(0)
}

/// `tf.pad(tensor, paddings)`: zeros (or `""`/`false`) added before and after each dim;
/// `paddings[i] = [before, after]`.
pub fn pad(tensor: impl Into<Output>, paddings: &[[i64; 2]]) -> Result<Output> {
    Pad::new().build(tensor, paddings)
}

/// How `tf.pad` fills: TensorFlow's `mode` argument.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PadMode {
    /// A constant value (`CONSTANT`, the default).
    #[default]
    Constant,
    /// Mirrored without the edge element (`REFLECT`): `[1,2,3]` padded by 2 is `3,2,1,2,3,2,1`.
    Reflect,
    /// Mirrored with the edge element (`SYMMETRIC`): `[1,2,3]` padded by 2 is `2,1,1,2,3,3,2`.
    Symmetric,
}

/// The options of `tf.pad(tensor, paddings, mode='CONSTANT', constant_values=0)`.
#[derive(Clone, Debug, Default)]
pub struct Pad {
    mode: PadMode,
    constant_values: Option<f64>,
}

impl Pad {
    /// Constant zero padding.
    pub fn new() -> Pad {
        Pad::default()
    }

    /// The fill mode.
    pub fn mode(mut self, mode: PadMode) -> Pad {
        self.mode = mode;
        self
    }

    /// The fill value for [`PadMode::Constant`] (converted to the tensor's dtype).
    pub fn constant_values(mut self, v: f64) -> Pad {
        self.constant_values = Some(v);
        self
    }

    /// Adds the node with `paddings` as an int32 `[rank, 2]` constant.
    pub fn build(self, tensor: impl Into<Output>, paddings: &[[i64; 2]]) -> Result<Output> {
        let x = tensor.into();
        let g = x.graph().clone();
        let flat: Vec<i32> = paddings
            .iter()
            .flatten()
            .map(|&v| {
                i32::try_from(v)
                    .map_err(|_| Error::invalid_argument(format!("Padding {v} is too large")))
            })
            .collect::<Result<_>>()?;
        let p = crate::array::constant(&g, Tensor::from_vec(&[paddings.len(), 2], flat)?)?;
        self.build_from(x, p)
    }

    /// Adds the node with `paddings` (an int32/int64 `[rank, 2]` tensor) computed by the graph.
    pub fn build_from(self, x: Output, paddings: Output) -> Result<Output> {
        let g = crate::util::same_graph(&[&x, &paddings])?.clone();
        match (self.mode, self.constant_values) {
            (PadMode::Constant, None) => crate::new_op(&g, "Pad")
                .input(x)
                .input(paddings)
                .build()?
                .output(0),
            (PadMode::Constant, Some(v)) => {
                let c = crate::array::constant(&g, scalar_of(x.dtype(), v)?)?;
                crate::new_op(&g, "PadV2")
                    .input(x)
                    .input(paddings)
                    .input(c)
                    .build()?
                    .output(0)
            }
            (mode, _) => crate::new_op(&g, "MirrorPad")
                .input(x)
                .input(paddings)
                .attr(
                    "mode",
                    if mode == PadMode::Reflect {
                        "REFLECT"
                    } else {
                        "SYMMETRIC"
                    },
                )
                .build()?
                .output(0),
        }
    }
}

fn check_multiples(m: &[i64], rank: usize) -> Result<Vec<usize>> {
    if m.len() != rank {
        return Err(Error::invalid_argument(format!(
            "Expected multiples argument to be a vector of length {rank} but got length {}",
            m.len()
        )));
    }
    m.iter()
        .enumerate()
        .map(|(i, &v)| {
            usize::try_from(v).map_err(|_| {
                Error::invalid_argument(format!("Expected multiples[{i}] >= 0, but got {v}"))
            })
        })
        .collect()
}

fn tile_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    let rank = x.rank().or(ctx.input_shape(1).dim(0));
    let (Some(r), Some(m)) = (rank, const_i64s(ctx, 1)?) else {
        // Multiples known in part (`tf.stack([n, 2])`): the dims they and x both know.
        let out = match (x.dims(), ctx.input_partial_shape(1).and_then(Shape::dims)) {
            (Some(d), Some(m)) if d.len() == m.len() => Shape::new(
                d.iter()
                    .zip(m)
                    .map(|(a, b)| Some((*a)? * (*b)?))
                    .collect::<Vec<_>>(),
            ),
            _ => super::shape_util::unknown_dims(rank),
        };
        ctx.set_output(0, out);
        return Ok(());
    };
    let m = check_multiples(&m, r)?;
    let dims: Vec<Option<usize>> = (0..r)
        .map(|i| x.dim(i as isize).map(|d| d * m[i]))
        .collect();
    ctx.set_output(0, Shape::new(dims));
    Ok(())
}

/// Tiles `xs` (of `shape`) by `mult` into `out`.
fn tile_into<T: Clone>(xs: &[T], shape: &[usize], mult: &[usize], out: &mut Vec<T>) {
    fn rec<T: Clone>(
        xs: &[T],
        shape: &[usize],
        mult: &[usize],
        strides: &[usize],
        j: usize,
        off: usize,
        out: &mut Vec<T>,
    ) {
        let start = out.len();
        if j + 1 == shape.len() {
            out.extend_from_slice(&xs[off..off + shape[j]]);
        } else {
            for i in 0..shape[j] {
                rec(xs, shape, mult, strides, j + 1, off + i * strides[j], out);
            }
        }
        let len = out.len() - start;
        for _ in 1..mult[j] {
            out.extend_from_within(start..start + len);
        }
        if mult[j] == 0 {
            out.truncate(start);
        }
    }
    if shape.is_empty() {
        out.extend_from_slice(xs);
        return;
    }
    let mut strides = vec![1usize; shape.len()];
    for j in (0..shape.len() - 1).rev() {
        strides[j] = strides[j + 1] * shape[j + 1];
    }
    rec(xs, shape, mult, &strides, 0, 0, out);
}

fn tile_tensor<T: TensorType>(x: &Tensor, mult: &[usize], out_shape: &[usize]) -> Result<Tensor> {
    let n: usize = out_shape.iter().product();
    let mut out = Vec::with_capacity(n);
    if n > 0 {
        tile_into(x.as_slice::<T>()?, x.shape(), mult, &mut out);
    }
    Tensor::from_vec(out_shape, out)
}

struct TileKernel;

impl Kernel for TileKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let m = ctx.input(1);
        if m.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Expected multiples argument to be a vector of length {} but got shape {}",
                ctx.input(0).rank(),
                format_dims(m.shape())
            )));
        }
        let m = to_i64s(m)?;
        let x = ctx.take_input(0);
        let mult = check_multiples(&m, x.rank())?;
        if mult.iter().all(|&v| v == 1) {
            ctx.set_output(0, x);
            return Ok(());
        }
        let out_shape: Vec<usize> = x.shape().iter().zip(&mult).map(|(d, m)| d * m).collect();
        let dt = x.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => tile_tensor::<T>(&x, &mult, &out_shape)?,
            _ => return Err(Error::invalid_argument(format!("Cannot tile {dt} tensors"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// Checks `paddings` (flattened `[rank, 2]`) against `shape`; TensorFlow's messages.
fn check_paddings(
    p: &[i64],
    p_shape: &[usize],
    shape: &[Option<usize>],
    mode: PadMode,
) -> Result<Vec<[usize; 2]>> {
    if p_shape.len() != 2 || p_shape[1] != 2 {
        return Err(Error::invalid_argument(format!(
            "paddings must be a matrix with 2 columns: {}",
            format_dims(p_shape)
        )));
    }
    if p_shape[0] != shape.len() {
        return Err(Error::invalid_argument(format!(
            "The first dimension of paddings must be the rank of inputs{} [rank {}]",
            format_dims(p_shape),
            shape.len()
        )));
    }
    let mut out = Vec::with_capacity(shape.len());
    for (i, d) in shape.iter().enumerate() {
        let (b, a) = (p[2 * i], p[2 * i + 1]);
        if b < 0 || a < 0 {
            return Err(Error::invalid_argument(format!(
                "Paddings must be non-negative: {b} {a}"
            )));
        }
        if let Some(d) = *d {
            let d = d as i64;
            match mode {
                PadMode::Reflect if b >= d || a >= d => {
                    return Err(Error::invalid_argument(format!(
                        "paddings must be less than the dimension size: {b}, {a} not less than {d}"
                    )))
                }
                PadMode::Symmetric if b > d || a > d => {
                    return Err(Error::invalid_argument(format!(
                        "paddings must be no greater than the dimension size: {b}, {a} greater than {d}"
                    )))
                }
                _ => {}
            }
        }
        out.push([b as usize, a as usize]);
    }
    Ok(out)
}

fn pad_mode(ctx_mode: Option<&str>) -> Result<PadMode> {
    match ctx_mode {
        None => Ok(PadMode::Constant),
        Some("REFLECT") => Ok(PadMode::Reflect),
        Some("SYMMETRIC") => Ok(PadMode::Symmetric),
        Some(m) => Err(Error::invalid_argument(format!(
            "Unknown padding mode: {m}"
        ))),
    }
}

fn pad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let mode = if ctx.op_type == "MirrorPad" {
        pad_mode(Some(ctx.attr::<String>("mode")?.as_str()))?
    } else {
        PadMode::Constant
    };
    if ctx.op_type == "PadV2" && ctx.input_shape(2).rank().is_some_and(|r| r != 0) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 0 but is rank {} for 'PadV2' (constant_values)",
            ctx.input_shape(2).rank().unwrap_or(0)
        )));
    }
    let x = ctx.input_shape(0).clone();
    let p = ctx.input_const(1).cloned();
    let rank = x.rank().or(ctx.input_shape(1).dim(0));
    let (Some(r), Some(p)) = (rank, p) else {
        ctx.set_output(0, super::shape_util::unknown_dims(rank));
        return Ok(());
    };
    let dims: Vec<Option<usize>> = (0..r).map(|i| x.dim(i as isize)).collect();
    let pads = check_paddings(&to_i64s(&p)?, p.shape(), &dims, mode)?;
    let out: Vec<Option<usize>> = dims
        .iter()
        .zip(&pads)
        .map(|(d, p)| d.map(|d| d + p[0] + p[1]))
        .collect();
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

/// The source index of each output position along one dim: `None` for constant fill.
fn mirror_indices(dim: usize, pad: [usize; 2], mode: PadMode) -> Vec<Option<usize>> {
    let mut v = Vec::with_capacity(dim + pad[0] + pad[1]);
    let off = usize::from(mode == PadMode::Reflect);
    for k in (0..pad[0]).rev() {
        v.push(if mode == PadMode::Constant {
            None
        } else {
            Some(k + off)
        });
    }
    v.extend((0..dim).map(Some));
    for k in 0..pad[1] {
        v.push(if mode == PadMode::Constant {
            None
        } else {
            Some(dim - 1 - off - k)
        });
    }
    v
}

fn pad_tensor<T: TensorType>(
    x: &Tensor,
    pads: &[[usize; 2]],
    mode: PadMode,
    fill: T,
) -> Result<Tensor> {
    let shape = x.shape();
    let out_shape: Vec<usize> = shape
        .iter()
        .zip(pads)
        .map(|(d, p)| d + p[0] + p[1])
        .collect();
    let n: usize = out_shape.iter().product();
    let xs = x.as_slice::<T>()?;
    let mut out: Vec<T> = Vec::with_capacity(n);
    if n == 0 {
        return Tensor::from_vec(&out_shape, out);
    }
    if shape.is_empty() {
        out.extend_from_slice(xs);
        return Tensor::from_vec(&out_shape, out);
    }
    let r = shape.len();
    let mut strides = vec![1usize; r];
    let mut out_block = vec![1usize; r];
    for j in (0..r - 1).rev() {
        strides[j] = strides[j + 1] * shape[j + 1];
        out_block[j] = out_block[j + 1] * out_shape[j + 1];
    }
    let index: Vec<Vec<Option<usize>>> = (0..r)
        .map(|j| mirror_indices(shape[j], pads[j], mode))
        .collect();
    struct Ctx<'a, T> {
        xs: &'a [T],
        strides: &'a [usize],
        out_block: &'a [usize],
        index: &'a [Vec<Option<usize>>],
        fill: T,
        constant: bool,
        dims: &'a [usize],
        pads: &'a [[usize; 2]],
    }
    fn rec<T: Clone>(c: &Ctx<'_, T>, j: usize, off: usize, out: &mut Vec<T>) {
        let last = j + 1 == c.dims.len();
        if last && c.constant {
            let [b, a] = c.pads[j];
            out.extend(std::iter::repeat_n(c.fill.clone(), b));
            out.extend_from_slice(&c.xs[off..off + c.dims[j]]);
            out.extend(std::iter::repeat_n(c.fill.clone(), a));
            return;
        }
        for src in &c.index[j] {
            match (src, last) {
                (None, _) => out.extend(std::iter::repeat_n(c.fill.clone(), c.out_block[j])),
                (Some(i), true) => out.push(c.xs[off + i].clone()),
                (Some(i), false) => rec(c, j + 1, off + i * c.strides[j], out),
            }
        }
    }
    let c = Ctx {
        xs,
        strides: &strides,
        out_block: &out_block,
        index: &index,
        fill,
        constant: mode == PadMode::Constant,
        dims: shape,
        pads,
    };
    rec(&c, 0, 0, &mut out);
    Tensor::from_vec(&out_shape, out)
}

struct PadKernel(PadMode);

impl Kernel for PadKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let p = ctx.input(1);
        let dims: Vec<Option<usize>> = x.shape().iter().map(|&d| Some(d)).collect();
        let pads = check_paddings(&to_i64s(p)?, p.shape(), &dims, self.0)?;
        let fill = if ctx.num_inputs() > 2 {
            let c = ctx.input(2);
            if c.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "constant_values must be a scalar. Shape of constant_values was {}",
                    format_dims(c.shape())
                )));
            }
            Some(c.clone())
        } else {
            None
        };
        if pads.iter().all(|p| p == &[0, 0]) {
            let x = ctx.take_input(0);
            ctx.set_output(0, x);
            return Ok(());
        }
        let dt = x.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => {
            let f = match &fill {
                Some(c) => c.to_scalar::<T>()?,
                None => T::zero(),
            };
            pad_tensor::<T>(x, &pads, self.0, f)?
        }, _ => return Err(Error::invalid_argument(format!("Cannot pad {dt} tensors"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_pad(node: &Node) -> Result<Box<dyn Kernel>> {
    let mode = if node.op_type() == "MirrorPad" {
        pad_mode(Some(node.attr::<String>("mode")?.as_str()))?
    } else {
        PadMode::Constant
    };
    Ok(Box::new(PadKernel(mode)))
}

const INDEX: &[DType] = &[DType::I32, DType::I64];

pub(super) fn register() {
    register_op(
        OpDef::new("Tile")
            .input("input", ArgType::Attr("T"))
            .input("multiples", ArgType::Attr("Tmultiples"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tmultiples", INDEX)
            .shape_fn(tile_shape_fn),
    );
    register_kernel("Tile", |_| Ok(Box::new(TileKernel)));
    for name in ["Pad", "PadV2", "MirrorPad"] {
        let mut def = OpDef::new(name)
            .input("input", ArgType::Attr("T"))
            .input("paddings", ArgType::Attr("Tpaddings"));
        if name == "PadV2" {
            def = def.input("constant_values", ArgType::Attr("T"));
        }
        def = def
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tpaddings", INDEX);
        if name == "MirrorPad" {
            def = def.attr("mode", AttrKind::Str, None);
        }
        register_op(def.shape_fn(pad_shape_fn));
        register_kernel(name, make_pad);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_repeats_blocks() {
        let mut out = Vec::new();
        tile_into(&[1, 2, 3, 4], &[2, 2], &[2, 3], &mut out);
        assert_eq!(
            out,
            vec![1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4]
        );
        assert_eq!(
            check_multiples(&[-1], 1).unwrap_err().message(),
            "Expected multiples[0] >= 0, but got -1"
        );
    }

    #[test]
    fn pad_modes() {
        let x = Tensor::from(vec![1, 2, 3]);
        let c = pad_tensor::<i32>(&x, &[[2, 1]], PadMode::Constant, 9).unwrap();
        assert_eq!(c.to_vec::<i32>().unwrap(), vec![9, 9, 1, 2, 3, 9]);
        let r = pad_tensor::<i32>(&x, &[[2, 2]], PadMode::Reflect, 0).unwrap();
        assert_eq!(r.to_vec::<i32>().unwrap(), vec![3, 2, 1, 2, 3, 2, 1]);
        let s = pad_tensor::<i32>(&x, &[[2, 2]], PadMode::Symmetric, 0).unwrap();
        assert_eq!(s.to_vec::<i32>().unwrap(), vec![2, 1, 1, 2, 3, 3, 2]);
        let m = Tensor::from_vec(&[2, 2], vec![1, 2, 3, 4]).unwrap();
        let p = pad_tensor::<i32>(&m, &[[1, 0], [0, 1]], PadMode::Constant, 0).unwrap();
        assert_eq!(p.shape(), &[3, 3]);
        assert_eq!(p.to_vec::<i32>().unwrap(), vec![0, 0, 0, 1, 2, 0, 3, 4, 0]);
        let e = check_paddings(&[3, 0], &[1, 2], &[Some(3)], PadMode::Reflect).unwrap_err();
        assert_eq!(
            e.message(),
            "paddings must be less than the dimension size: 3, 0 not less than 3"
        );
        assert!(check_paddings(&[-1, 0], &[1, 2], &[Some(3)], PadMode::Constant).is_err());
    }
}
