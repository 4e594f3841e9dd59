//! `UnsortedSegmentJoin` (`tf.strings.unsorted_segment_join`): joins the string slices of
//! `inputs` into `num_segments` rows by id, in input order, with a separator.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, Kernel, OpContext, OpDef, Output, Result,
    Tensor,
};

use super::StringsBuilder;
use crate::math::unsorted_segment::{segment_ids, shape_fn};

/// `tf.strings.unsorted_segment_join(inputs, segment_ids, num_segments, separator='')`:
/// `out[s]` joins, in input order and with `separator` between them, the slices of `inputs`
/// whose id is `s`; empty segments are `""`. Unlike the numeric unsorted segment ops, a
/// negative id is an error, as in TensorFlow.
pub fn unsorted_segment_join(
    inputs: impl Into<Output>,
    segment_ids: impl Into<Output>,
    num_segments: impl Into<Output>,
    separator: &str,
) -> Result<Output> {
    let inputs = inputs.into();
    crate::new_op(&inputs.graph().clone(), "UnsortedSegmentJoin")
        .input(inputs)
        .input(segment_ids)
        .input(num_segments)
        .attr("separator", separator)
        .build()?
        .output(0)
}

/// TensorFlow's `UnsortedSegmentJoinOp` checks, in its order and with its messages (which
/// name the input's rank where they say "input dimension"). Returns the segment count and the
/// output shape.
fn validate(input: &Tensor, ids: &Tensor, num: &Tensor) -> Result<(usize, Vec<usize>)> {
    if num.rank() != 0 {
        return Err(Error::invalid_argument(
            "Number of segments must be a scalar",
        ));
    }
    let n = segment_ids(num)?[0];
    let n = usize::try_from(n).map_err(|_| {
        Error::invalid_argument(format!(
            "Number of segments must be non-negative but got {n}"
        ))
    })?;
    let (d, i) = (input.shape(), ids.shape());
    if i.is_empty() {
        return Err(Error::invalid_argument("Segment_id cannot have rank 0"));
    }
    if i.len() > d.len() {
        return Err(Error::out_of_range(format!(
            "Invalid segment_id rank {} for input with {} dimension(s)",
            i.len(),
            d.len()
        )));
    }
    if let Some(k) = (0..i.len()).find(|&k| i[k] != d[k]) {
        return Err(Error::invalid_argument(format!(
            "Segment dimension is {} while input dimension is {} in rank {k}",
            i[k],
            d.len()
        )));
    }
    let mut out = vec![n];
    out.extend_from_slice(&d[i.len()..]);
    Ok((n, out))
}

struct SegmentJoinKernel {
    sep: Bytes,
}

impl Kernel for SegmentJoinKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (input, ids, num) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let (n, out_shape) = validate(input, ids, num)?;
        let seg = segment_ids(ids)?;
        let strings = input.as_slice::<Bytes>()?;
        let inner: usize = out_shape[1..].iter().product();
        // Each output element lists the input elements it joins, so the output is written
        // once, in order, into one buffer.
        let mut parts: Vec<Vec<usize>> = vec![Vec::new(); n * inner];
        for (k, &id) in seg.iter().enumerate() {
            let r = usize::try_from(id).ok().filter(|&r| r < n).ok_or_else(|| {
                Error::invalid_argument(
                    "segment_ids are not allowed to exceed num_segments or to have negative \
                     values.",
                )
            })?;
            for j in 0..inner {
                parts[r * inner + j].push(k * inner + j);
            }
        }
        let mut out = StringsBuilder::with_capacity(n * inner, 8);
        for p in &parts {
            let buf = out.buf();
            for (i, &src) in p.iter().enumerate() {
                if i > 0 {
                    buf.extend_from_slice(&self.sep);
                }
                buf.extend_from_slice(&strings[src]);
            }
            out.finish_one();
        }
        ctx.set_output(0, out.build(&out_shape)?);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("UnsortedSegmentJoin")
            .input("inputs", ArgType::Fixed(DType::String))
            .input("segment_ids", ArgType::Attr("Tindices"))
            .input("num_segments", ArgType::Attr("Tnumsegments"))
            .output("output", ArgType::Fixed(DType::String))
            .attr(
                "separator",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .type_attr("Tindices", &[DType::I32, DType::I64])
            .type_attr("Tnumsegments", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("UnsortedSegmentJoin", |node| {
        Ok(Box::new(SegmentJoinKernel {
            sep: Bytes::from(node.attr::<String>("separator")?),
        }))
    });
}
