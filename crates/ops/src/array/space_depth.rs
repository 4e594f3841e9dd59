//! `SpaceToDepth` and `DepthToSpace` (`tf.space_to_depth`, `tf.depth_to_space`): blocks of
//! `block_size x block_size` pixels moved into the channels and back, for NHWC images (the
//! layout TensorFlow's CPU kernels take). Channels move as contiguous runs.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

fn build(op: &str, input: Output, block_size: i64) -> Result<Output> {
    crate::new_op(&input.graph().clone(), op)
        .input(input)
        .attr("block_size", block_size)
        .attr("data_format", "NHWC")
        .build()?
        .output(0)
}

/// `tf.space_to_depth(input, block_size)`: each `block_size x block_size` block of an NHWC
/// batch moved into the depth, giving `[batch, height / bs, width / bs, depth * bs * bs]`.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::array::{constant, space_to_depth};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[1, 2, 2, 1], vec![1, 2, 3, 4])?)?;
/// let y = space_to_depth(&x, 2)?;
/// assert_eq!(y.shape(), Shape::known(&[1, 1, 1, 4]));
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<i32>()?, vec![1, 2, 3, 4]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn space_to_depth(input: impl Into<Output>, block_size: i64) -> Result<Output> {
    build("SpaceToDepth", input.into(), block_size)
}

/// `tf.depth_to_space(input, block_size)`: the inverse of [`space_to_depth`], giving
/// `[batch, height * bs, width * bs, depth / (bs * bs)]`.
pub fn depth_to_space(input: impl Into<Output>, block_size: i64) -> Result<Output> {
    build("DepthToSpace", input.into(), block_size)
}

/// Moves runs of `c` elements between the space layout `[n, h*bs, w*bs, c]` and the depth
/// layout `[n, h, w, bs*bs*c]`; `to_depth` says which way.
fn shuffle<T: TensorType>(
    src: &[T],
    dims: [usize; 4],
    bs: usize,
    c: usize,
    to_depth: bool,
) -> Vec<T> {
    // dims: the depth layout's [n, h, w, depth].
    let [n, h, w, _] = dims;
    let (big_w, depth) = (w * bs, bs * bs * c);
    let mut out: Vec<T> = Vec::with_capacity(src.len());
    if to_depth {
        for b in 0..n {
            for i in 0..h {
                for j in 0..w {
                    for oi in 0..bs {
                        let row = ((b * h * bs + i * bs + oi) * big_w + j * bs) * c;
                        out.extend_from_slice(&src[row..row + bs * c]);
                    }
                }
            }
        }
    } else {
        for b in 0..n {
            for i in 0..h {
                for oi in 0..bs {
                    for j in 0..w {
                        let base = ((b * h + i) * w + j) * depth + oi * bs * c;
                        out.extend_from_slice(&src[base..base + bs * c]);
                    }
                }
            }
        }
    }
    out
}

struct Kern {
    block: usize,
    to_depth: bool,
}

impl Kernel for Kern {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let s = x.shape();
        if s.len() != 4 {
            return Err(Error::invalid_argument(format!(
                "Input rank should be 4 instead of {}",
                s.len()
            )));
        }
        let bs = self.block;
        let (sq, mul) = (bs * bs, |a: usize, b: usize| {
            a.checked_mul(b).ok_or_else(too_large)
        });
        let (dims, c, out_shape) = if self.to_depth {
            if s[1] % bs != 0 || s[2] % bs != 0 {
                return Err(Error::invalid_argument(format!(
                    "Image width {} and height {} should be divisible by block_size: {bs}",
                    s[2], s[1]
                )));
            }
            let d = [s[0], s[1] / bs, s[2] / bs, mul(s[3], sq)?];
            (d, s[3], d.to_vec())
        } else {
            if s[3] % sq != 0 {
                return Err(Error::invalid_argument(format!(
                    "Input depth dimension {} should be divisible by: {sq}",
                    s[3]
                )));
            }
            let c = s[3] / sq;
            (
                [s[0], s[1], s[2], s[3]],
                c,
                vec![s[0], mul(s[1], bs)?, mul(s[2], bs)?, c],
            )
        };
        let dt = x.dtype();
        let out = weir_graph::match_data_dtype!(dt,
            T => Tensor::from_vec(&out_shape, shuffle::<T>(x.as_slice::<T>()?, dims, bs, c, self.to_depth))?,
            _ => return Err(Error::invalid_argument(format!("{} does not support {dt}", ctx.node().op_type()))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn too_large() -> Error {
    Error::invalid_argument("The output of this block_size would have too many elements")
}

/// The block size, an int32 in TensorFlow's kernels.
fn block_size(v: i64) -> Result<usize> {
    match i32::try_from(v) {
        Ok(b) if b >= 2 => Ok(b as usize),
        Ok(_) => Err(Error::invalid_argument(format!(
            "Value for attr 'block_size' of {v} must be at least minimum 2"
        ))),
        Err(_) => Err(Error::invalid_argument(format!(
            "Attr block_size has value {v} out of range for an int32"
        ))),
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let format: String = node.attr("data_format")?;
    if format != "NHWC" {
        return Err(Error::invalid_argument(format!(
            "Only NHWC data_format supported on CPU. Got {format}"
        )));
    }
    Ok(Box::new(Kern {
        block: block_size(node.attr("block_size")?)?,
        to_depth: node.op_type() == "SpaceToDepth",
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.with_rank(0, 4)?;
    let bs = block_size(ctx.attr("block_size")?)?;
    let mul = |v: Option<usize>, by: usize| {
        v.map(|v| v.checked_mul(by).ok_or_else(too_large))
            .transpose()
    };
    let d = s.dims().map(<[_]>::to_vec).unwrap_or_default();
    let divisible = |v: Option<usize>, by: usize| -> Result<Option<usize>> {
        match v {
            Some(v) if v % by != 0 => Err(Error::invalid_argument(format!(
                "Dimension size must be evenly divisible by {by} but is {v}"
            ))),
            v => Ok(v.map(|v| v / by)),
        }
    };
    let out = if ctx.op_type == "SpaceToDepth" {
        let (h, w) = (divisible(d[1], bs)?, divisible(d[2], bs)?);
        vec![d[0], h, w, mul(d[3], bs * bs)?]
    } else {
        let c = divisible(d[3], bs * bs)?;
        vec![d[0], mul(d[1], bs)?, mul(d[2], bs)?, c]
    };
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

pub(super) fn register() {
    for name in ["SpaceToDepth", "DepthToSpace"] {
        register_op(
            OpDef::new(name)
                .input("input", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", DType::ALL_DATA)
                .int_attr_min("block_size", 2)
                .attr(
                    "data_format",
                    AttrKind::Str,
                    Some(AttrValue::Str("NHWC".into())),
                )
                .shape_fn(shape_fn),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_blocks() {
        let x: Vec<i32> = (0..16).collect();
        let d = shuffle(&x, [1, 2, 2, 4], 2, 1, true);
        assert_eq!(
            d,
            vec![0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]
        );
        assert_eq!(shuffle(&d, [1, 2, 2, 4], 2, 1, false), x);
    }
}
