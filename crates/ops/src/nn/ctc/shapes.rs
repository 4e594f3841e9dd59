//! The shape-function steps the CTC ops share, with TensorFlow's wording.

use weir_graph::{Error, InferenceContext, Result, Shape};

/// The static shapes of all inputs as TensorFlow lists them after a shape error.
fn input_shapes(ctx: &InferenceContext<'_>) -> String {
    let shown: Vec<String> = (0..ctx.num_inputs())
        .map(|i| {
            let s = ctx.input_shape(i);
            match s.rank() {
                Some(_) => s.to_string(),
                None => "?".to_string(),
            }
        })
        .collect();
    shown.join(", ")
}

/// `InferenceContext::WithRank`: input `i` as a shape of `rank` dimensions.
pub(super) fn with_rank(
    ctx: &InferenceContext<'_>,
    i: usize,
    rank: usize,
) -> Result<Vec<Option<usize>>> {
    match ctx.input_shape(i).dims() {
        None => Ok(vec![None; rank]),
        Some(d) if d.len() == rank => Ok(d.to_vec()),
        Some(d) => Err(Error::invalid_argument(format!(
            "Shape must be rank {rank} but is rank {} for '{}' with input shapes: {}.",
            d.len(),
            ctx.op_type,
            input_shapes(ctx)
        ))),
    }
}

/// `InferenceContext::Merge` of two dimensions: the known one, or an error when both are known
/// and differ.
pub(super) fn merge_dim(
    ctx: &InferenceContext<'_>,
    a: Option<usize>,
    b: Option<usize>,
) -> Result<Option<usize>> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
            "Dimensions must be equal, but are {x} and {y} for '{}' with input shapes: {}.",
            ctx.op_type,
            input_shapes(ctx)
        ))),
        (Some(x), _) | (None, Some(x)) => Ok(Some(x)),
        (None, None) => Ok(None),
    }
}

/// The decoders' outputs: for each of `top_paths` paths a `[?, 2]` indices matrix, then the
/// `[?]` values, then the `[2]` dense shapes, and last the `[batch, cols]` log probabilities.
pub(super) fn decoder_shapes(
    ctx: &mut InferenceContext<'_>,
    top_paths: usize,
    cols: usize,
) -> Result<()> {
    let inputs = with_rank(ctx, 0, 3)?;
    let seq_len = with_rank(ctx, 1, 1)?;
    let batch = merge_dim(ctx, inputs[1], seq_len[0])?;
    for p in 0..top_paths {
        ctx.set_output(p, Shape::new(vec![None, Some(2)]));
        ctx.set_output(top_paths + p, Shape::new(vec![None]));
        ctx.set_output(2 * top_paths + p, Shape::new(vec![Some(2)]));
    }
    ctx.set_output(3 * top_paths, Shape::new(vec![batch, Some(cols)]));
    Ok(())
}
