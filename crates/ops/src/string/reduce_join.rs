//! `ReduceJoin` (`tf.strings.reduce_join`): joins the strings along some axes with a separator,
//! the reduction of the elementwise `StringJoin`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, InferenceContext, Kernel, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::StringsBuilder;
use crate::array::shape_util::to_i64s;

/// `tf.strings.reduce_join(inputs, axis=None, keepdims=False, separator='')`: joins the
/// strings along `axis` (negative axes count from the end; `None` joins everything in
/// row-major order), keeping reduced axes with length 1 when `keepdims`. As in TensorFlow
/// 2.21, an empty `axis` returns the strings unchanged.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, string::reduce_join};
/// let g = Graph::new();
/// let words = Tensor::from_strings(&["abc", "123", "def", "456"]).reshape(&[2, 2])?;
/// let words = constant(&g, words)?;
/// let rows = reduce_join(&words, Some(&[-1]), false, " ")?; // ["abc 123", "def 456"]
/// assert_eq!(rows.shape(), Shape::known(&[2]));
/// let all = reduce_join(&words, None, false, "")?; // "abc123def456"
/// assert_eq!(all.shape(), Shape::scalar());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn reduce_join(
    inputs: &Output,
    axis: Option<&[i32]>,
    keepdims: bool,
    separator: &str,
) -> Result<Output> {
    let g = inputs.graph().clone();
    let axes = match (axis, inputs.shape().rank()) {
        (Some(axes), _) => crate::array::constant(&g, Tensor::from(axes.to_vec()))?,
        // Python's wrapper passes the axes last to first, so the join is in row-major order.
        (None, Some(rank)) => {
            let rev: Vec<i32> = (0..rank as i32).rev().collect();
            crate::array::constant(&g, Tensor::from(rev))?
        }
        (None, None) => {
            let _scope = g.name_scope("ReduceJoin");
            let one = crate::array::constant(&g, 1i32)?;
            let last = crate::math::sub(crate::array::rank(inputs)?, &one)?;
            let minus_one = crate::array::constant(&g, -1i32)?;
            crate::math::range_from(&last, &minus_one, &minus_one)?
        }
    };
    reduce_join_tensor(inputs, &axes, keepdims, separator)
}

/// `tf.strings.reduce_join` with the axes an int32 scalar or vector tensor (op `ReduceJoin`'s
/// `reduction_indices`). The strings are joined with the first listed axis varying fastest.
pub fn reduce_join_tensor(
    inputs: &Output,
    axis: &Output,
    keepdims: bool,
    separator: &str,
) -> Result<Output> {
    let g = crate::util::same_graph(&[inputs, axis])?.clone();
    crate::new_op(&g, "ReduceJoin")
        .input(inputs.clone())
        .input(axis.clone())
        .attr("keep_dims", keepdims)
        .attr("separator", separator)
        .build()?
        .output(0)
}

/// TensorFlow's reduction shape function: the range of constant axes is checked (duplicates
/// are left to the kernel).
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let keep: bool = ctx.attr("keep_dims")?;
    if let Some(r) = ctx.input_shape(1).rank() {
        if r > 1 {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 1 but is rank {r}"
            )));
        }
    }
    let input = ctx.input_shape(0).clone();
    let axes = ctx.input_const(1).map(to_i64s).transpose()?;
    let out = match (input.dims(), axes) {
        (Some(dims), Some(axes)) => {
            let rank = dims.len() as i64;
            let mut reduced = vec![false; dims.len()];
            for &a in &axes {
                if a < -rank || a >= rank {
                    return Err(Error::invalid_argument(format!(
                        "Invalid reduction dimension {a} for input with {rank} dimensions."
                    )));
                }
                reduced[((a + rank) % rank) as usize] = true;
            }
            let d: Vec<_> = dims
                .iter()
                .zip(&reduced)
                .filter_map(|(&d, &r)| match (r, keep) {
                    (false, _) => Some(d),
                    (true, true) => Some(Some(1)),
                    (true, false) => None,
                })
                .collect();
            Shape::new(d)
        }
        (Some(dims), None) if keep => Shape::unknown_of_rank(dims.len()),
        _ => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

/// The reduced axes of a tensor of rank `rank`, in the order given, checked as TensorFlow's
/// kernel checks them.
fn reduced_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>> {
    let r = rank as i64;
    let mut out: Vec<usize> = Vec::with_capacity(axes.len());
    for &a in axes {
        if a < -r || a >= r {
            return Err(Error::out_of_range(format!(
                "Invalid reduction dimension {a} for input with {rank} dimension(s)"
            )));
        }
        let i = ((a + r) % r) as usize;
        if out.contains(&i) {
            return Err(Error::invalid_argument(format!(
                "Duplicate reduction dimension {a}"
            )));
        }
        out.push(i);
    }
    Ok(out)
}

/// Element offsets visited by an odometer over `(dim, stride)` pairs, the last pair fastest.
fn offsets(axes: &[(usize, usize)]) -> Vec<usize> {
    let n: usize = axes.iter().map(|a| a.0).product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; axes.len()];
    for _ in 0..n {
        out.push(idx.iter().zip(axes).map(|(&i, a)| i * a.1).sum());
        for k in (0..axes.len()).rev() {
            idx[k] += 1;
            if idx[k] < axes[k].0 {
                break;
            }
            idx[k] = 0;
        }
    }
    out
}

/// Joins `strings` (of shape `dims`) along `axes` (already checked), the first axis fastest.
fn join(
    strings: &[Bytes],
    dims: &[usize],
    axes: &[usize],
    keep: bool,
    sep: &[u8],
) -> Result<Tensor> {
    let mut strides = vec![1usize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    let kept: Vec<(usize, usize)> = (0..dims.len())
        .filter(|i| !axes.contains(i))
        .map(|i| (dims[i], strides[i]))
        .collect();
    let reduced: Vec<(usize, usize)> = axes.iter().rev().map(|&i| (dims[i], strides[i])).collect();
    let out_shape: Vec<usize> = (0..dims.len())
        .filter_map(|i| match (axes.contains(&i), keep) {
            (false, _) => Some(dims[i]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    let inner = offsets(&reduced);
    let outer = offsets(&kept);
    let mut out = StringsBuilder::with_capacity(outer.len(), 8 * inner.len().max(1));
    for base in outer {
        let buf = out.buf();
        for (k, off) in inner.iter().enumerate() {
            if k > 0 {
                buf.extend_from_slice(sep);
            }
            buf.extend_from_slice(&strings[base + off]);
        }
        out.finish_one();
    }
    out.build(&out_shape)
}

struct ReduceJoinKernel {
    keep: bool,
    sep: Bytes,
}

impl Kernel for ReduceJoinKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0);
        let axes = to_i64s(ctx.input(1))?;
        let axes = reduced_axes(&axes, input.rank())?;
        let out = if axes.is_empty() {
            input.clone()
        } else {
            join(
                input.as_slice::<Bytes>()?,
                input.shape(),
                &axes,
                self.keep,
                &self.sep,
            )?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("ReduceJoin")
            .input("inputs", ArgType::Fixed(DType::String))
            .input("reduction_indices", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Fixed(DType::String))
            .attr("keep_dims", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr(
                "separator",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .shape_fn(shape_fn),
    );
    register_kernel("ReduceJoin", |node| {
        Ok(Box::new(ReduceJoinKernel {
            keep: node.attr("keep_dims")?,
            sep: Bytes::from(node.attr::<String>("separator")?),
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dims: &[usize], axes: &[i64], keep: bool) -> Result<(Vec<String>, Vec<usize>)> {
        let n: usize = dims.iter().product();
        let strings: Vec<Bytes> = (0..n).map(|i| Bytes::from(i.to_string())).collect();
        let axes = reduced_axes(axes, dims.len())?;
        let t = join(&strings, dims, &axes, keep, b",")?;
        Ok((t.to_strings()?, t.shape().to_vec()))
    }

    #[test]
    fn first_listed_axis_varies_fastest() {
        let (v, s) = run(&[2, 3, 4], &[0, 1], false).unwrap();
        assert_eq!(s, [4]);
        assert_eq!(v[0], "0,12,4,16,8,20");
        let (v, _) = run(&[2, 3, 4], &[2, 0], false).unwrap();
        assert_eq!(v[0], "0,1,2,3,12,13,14,15");
        let (v, s) = run(&[2, 3], &[1, 0], true).unwrap();
        assert_eq!((v, s), (vec!["0,1,2,3,4,5".to_string()], vec![1, 1]));
        let (v, s) = run(&[2, 3], &[-1], false).unwrap();
        assert_eq!((v, s), (vec!["0,1,2".into(), "3,4,5".into()], vec![2]));
    }

    #[test]
    fn empty_groups_join_to_empty_strings() {
        let (v, s) = run(&[2, 0], &[1], false).unwrap();
        assert_eq!((v, s), (vec![String::new(), String::new()], vec![2]));
        let (v, s) = run(&[2, 0], &[0], true).unwrap();
        assert_eq!((v.len(), s), (0, vec![1, 0]));
    }

    #[test]
    fn bad_axes_fail_as_in_tensorflow() {
        let e = run(&[2, 3], &[2], false).unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::OutOfRange);
        assert_eq!(
            e.message(),
            "Invalid reduction dimension 2 for input with 2 dimension(s)"
        );
        let e = run(&[], &[0], false).unwrap_err();
        assert_eq!(
            e.message(),
            "Invalid reduction dimension 0 for input with 0 dimension(s)"
        );
        let e = run(&[2, 3], &[0, -2], false).unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument);
        assert_eq!(e.message(), "Duplicate reduction dimension -2");
    }
}
