//! `ReverseSequence` (`tf.reverse_sequence`): the first `seq_lengths[b]` elements along
//! `seq_axis` reversed in each batch entry `b`, the rest left in place.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::shape_util::to_i64s;

/// `tf.reverse_sequence(input, seq_lengths, seq_axis, batch_axis)` (op `ReverseSequence`): in
/// each slice `b` along `batch_axis`, the first `seq_lengths[b]` elements along `seq_axis`
/// reversed.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::{constant, reverse_sequence};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6])?)?;
/// let y = reverse_sequence(&x, constant(&g, [2i64, 3])?, 1, 0)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<i32>()?, vec![2, 1, 3, 6, 5, 4]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn reverse_sequence(
    input: impl Into<Output>,
    seq_lengths: impl Into<Output>,
    seq_axis: i64,
    batch_axis: i64,
) -> Result<Output> {
    let x = input.into();
    let g = x.graph().clone();
    crate::new_op(&g, "ReverseSequence")
        .input(x)
        .input(seq_lengths.into())
        .attr("seq_dim", seq_axis)
        .attr("batch_dim", batch_axis)
        .build()?
        .output(0)
}

/// TensorFlow's kernel checks, in its order; returns the two axes as indices.
fn check(
    shape: &[usize],
    lens: &Tensor,
    seq_dim: i64,
    batch_dim: i64,
) -> Result<(usize, usize, Vec<i64>)> {
    if lens.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "seq_lengths must be 1-dim, not {}",
            lens.rank()
        )));
    }
    let rank = shape.len() as i64;
    if batch_dim == seq_dim {
        return Err(Error::invalid_argument(format!(
            "batch_dim == seq_dim == {seq_dim}"
        )));
    }
    if seq_dim < 0 || seq_dim >= rank {
        return Err(Error::invalid_argument(format!(
            "seq_dim must be < input rank ( {seq_dim} vs. {rank})"
        )));
    }
    if batch_dim < 0 || batch_dim >= rank {
        return Err(Error::invalid_argument(format!(
            "batch_dim must be < input rank ( {batch_dim} vs. {rank})"
        )));
    }
    let (sd, bd) = (seq_dim as usize, batch_dim as usize);
    let lens = to_i64s(lens)?;
    if lens.len() != shape[bd] {
        return Err(Error::invalid_argument(format!(
            "Length of seq_lengths != input.dims({bd}), ({} vs. {})",
            lens.len(),
            shape[bd]
        )));
    }
    for (d, &l) in lens.iter().enumerate() {
        if l < 0 {
            return Err(Error::invalid_argument(format!("seq_lens({d}) < 0")));
        }
        if l as usize > shape[sd] {
            return Err(Error::invalid_argument(format!(
                "seq_lens({d}) > input.dims({sd})"
            )));
        }
    }
    Ok((sd, bd, lens))
}

/// Each output element reads the input at its own index with the sequence index mirrored
/// inside its batch entry's length; runs along the innermost axis are copied whole when that
/// axis is neither the batch nor the sequence axis.
fn reverse_typed<T: TensorType>(x: &Tensor, sd: usize, bd: usize, lens: &[i64]) -> Result<Tensor> {
    let shape = x.shape();
    let src = x.as_slice::<T>()?;
    let rank = shape.len();
    let mut strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    let last = rank - 1;
    let run = if sd != last && bd != last {
        shape[last]
    } else {
        1
    };
    let mut out: Vec<T> = Vec::with_capacity(src.len());
    let mut start = 0;
    while start < src.len() {
        let b = (start / strides[bd]) % shape[bd];
        let s = (start / strides[sd]) % shape[sd];
        let len = lens[b] as usize;
        let from = if s < len {
            start - s * strides[sd] + (len - 1 - s) * strides[sd]
        } else {
            start
        };
        out.extend_from_slice(&src[from..from + run]);
        start += run;
    }
    Tensor::from_vec(shape, out)
}

struct ReverseSequenceKernel {
    seq_dim: i64,
    batch_dim: i64,
}

impl Kernel for ReverseSequenceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let (sd, bd, lens) = check(x.shape(), ctx.input(1), self.seq_dim, self.batch_dim)?;
        let dt = x.dtype();
        let out = weir_graph::match_data_dtype!(dt,
            T => reverse_typed::<T>(x, sd, bd, &lens)?,
            _ => return Err(Error::invalid_argument(format!("ReverseSequence does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    let lens = ctx.with_rank(1, 1)?;
    let (seq_dim, batch_dim): (i64, i64) = (ctx.attr("seq_dim")?, ctx.attr("batch_dim")?);
    let Some(dims) = x.dims() else {
        ctx.set_output(0, x);
        return Ok(());
    };
    let rank = dims.len() as i64;
    if batch_dim < 0 || batch_dim >= rank {
        return Err(Error::invalid_argument(format!(
            "Invalid batch_dim {batch_dim}"
        )));
    }
    if seq_dim < 0 || seq_dim >= rank {
        return Err(Error::invalid_argument(format!(
            "Invalid seq_dim {seq_dim}"
        )));
    }
    let mut out = dims.to_vec();
    let bd = batch_dim as usize;
    match (out[bd], lens.dim(0)) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {a} and {b} for 'ReverseSequence' with input \
                 shapes: {x}, {}.",
                format_dims(&[b])
            )))
        }
        (None, b) => out[bd] = b,
        _ => {}
    }
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("ReverseSequence")
            .input("input", ArgType::Attr("T"))
            .input("seq_lengths", ArgType::Attr("Tlen"))
            .output("output", ArgType::Attr("T"))
            .attr("seq_dim", AttrKind::Int, None)
            .attr("batch_dim", AttrKind::Int, Some(AttrValue::Int(0)))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tlen", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("ReverseSequence", |n| {
        let (seq_dim, batch_dim): (i64, i64) = (n.attr("seq_dim")?, n.attr("batch_dim")?);
        // TensorFlow's kernel constructor rejects negative dims before any run.
        if batch_dim < 0 {
            return Err(Error::invalid_argument(format!(
                "Invalid batch_dim {batch_dim}"
            )));
        }
        if seq_dim < 0 {
            return Err(Error::invalid_argument(format!(
                "Invalid seq_dim {seq_dim}"
            )));
        }
        Ok(Box::new(ReverseSequenceKernel { seq_dim, batch_dim }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_inside_each_length() {
        let x = Tensor::from_vec(&[2, 3], (0..6).collect::<Vec<i32>>()).unwrap();
        let y = reverse_typed::<i32>(&x, 1, 0, &[3, 0]).unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), vec![2, 1, 0, 3, 4, 5]);
        // Batch along the innermost axis.
        let y = reverse_typed::<i32>(&x, 0, 1, &[2, 1, 0]).unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), vec![3, 1, 2, 0, 4, 5]);
    }
}
