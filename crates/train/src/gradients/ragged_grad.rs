//! Gradients of the ragged ops, as TensorFlow registers them (`ragged_conversion_ops.py`,
//! `ragged_tensor.py`, `ragged_math_ops.py`): `RaggedTensorToTensor` and
//! `RaggedTensorToSparse` pass the dense gradient back to the flat values (and, for the
//! former, the padding's gradient to `default_value`); `RaggedRange` is not differentiable.
//! TensorFlow registers no gradient for `RaggedGather`, `RaggedCross` or the count ops.

use weir_graph::{AttrValue, DType, Error, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, register_not_differentiable, GradContext};
use super::util::{konst, shape_of};

type Grads = Result<Vec<Option<Output>>>;

fn ints(ctx: &GradContext<'_>, v: Vec<i32>) -> Result<Output> {
    konst(ctx.graph(), Tensor::from(v))
}

/// `_ragged_tensor_to_sparse_gradient`: the sparse values' gradient, reshaped to the flat
/// values'; none for the row splits.
fn to_sparse_grad(ctx: &GradContext<'_>) -> Grads {
    let n = ctx.num_inputs() - 1;
    let mut out = vec![None; n];
    let Some(grad) = ctx.grad(1).cloned() else {
        out.push(None);
        return Ok(out);
    };
    let values = ctx.input(n);
    out.push(Some(op(
        ctx.graph(),
        "Reshape",
        &[&grad, &shape_of(&values)?],
        &[],
    )?));
    Ok(out)
}

/// `tf.rank(value)` ignoring leading dims of size 1, from the static shape.
fn rank_ignoring_leading_ones(x: &Output) -> Result<usize> {
    let dims = x.shape().to_known().ok_or_else(|| {
        Error::unimplemented(
            "the gradient of RaggedTensorToTensor needs the static shape of default_value",
        )
    })?;
    let lead = dims.iter().take_while(|&&d| d == 1).count();
    Ok(dims.len() - lead)
}

/// `_ragged_tensor_to_tensor_grad`: each output position's flat-value index (the op re-run on
/// `range(nvals)` with default -1) routes the gradient back: to the flat values by an
/// `UnsortedSegmentSum` (TensorFlow's `IndexedSlices`, made dense), and the padding's to
/// `default_value`, summed over the dims it was broadcast along.
fn to_tensor_grad(ctx: &GradContext<'_>) -> Grads {
    let n_parts = ctx.num_inputs() - 3;
    let mut out: Vec<Option<Output>> = vec![None; 3 + n_parts];
    let Some(grad) = ctx.grad(0).cloned() else {
        return Ok(out);
    };
    let g = ctx.graph();
    let (values, default) = (ctx.input(1), ctx.input(2));
    let types: Vec<String> = ctx.attr("row_partition_types")?;
    let ragged_rank = types.iter().filter(|t| *t != "FIRST_DIM_SIZE").count();
    let shrink = [("shrink_axis_mask", AttrValue::Int(1))];
    let nvals = op(
        g,
        "StridedSlice",
        &[
            &shape_of(&values)?,
            &ints(ctx, vec![0])?,
            &ints(ctx, vec![1])?,
            &ints(ctx, vec![1])?,
        ],
        &shrink,
    )?;
    let head = op(
        g,
        "StridedSlice",
        &[
            &shape_of(&grad)?,
            &ints(ctx, vec![0])?,
            &ints(ctx, vec![1 + ragged_rank as i32])?,
            &ints(ctx, vec![1])?,
        ],
        &[],
    )?;
    let positions = op(
        g,
        "Range",
        &[
            &konst(g, Tensor::scalar(0i32))?,
            &nvals,
            &konst(g, Tensor::scalar(1i32))?,
        ],
        &[],
    )?;
    let parts: Vec<Output> = (3..ctx.num_inputs()).map(|i| ctx.input(i)).collect();
    let mut b = g
        .new_operation("RaggedTensorToTensor")
        .input(head)
        .input(positions)
        .input(konst(g, Tensor::scalar(-1i32))?);
    for p in &parts {
        b = b.input(p);
    }
    let indices = b
        .attr("num_row_partition_tensors", parts.len() as i64)
        .attr("row_partition_types", types)
        .build()?
        .output(0)?;
    let mask = op(
        g,
        "NotEqual",
        &[&indices, &konst(g, Tensor::scalar(-1i32))?],
        &[],
    )?;
    // Padding goes to one extra segment, `nvals`, that becomes the default's gradient.
    let segments = op(g, "SelectV2", &[&mask, &indices, &nvals], &[])?;
    let count = op(g, "AddV2", &[&nvals, &konst(g, Tensor::scalar(1i32))?], &[])?;
    let summed = op(g, "UnsortedSegmentSum", &[&grad, &segments, &count], &[])?;
    let end = op(g, "Reshape", &[&nvals, &ints(ctx, vec![1])?], &[])?;
    let values_grad = op(
        g,
        "StridedSlice",
        &[&summed, &ints(ctx, vec![0])?, &end, &ints(ctx, vec![1])?],
        &[],
    )?;
    let padding = op(
        g,
        "GatherV2",
        &[&summed, &nvals, &konst(g, Tensor::scalar(0i32))?],
        &[],
    )?;
    let inner_rank = grad
        .shape()
        .rank()
        .map(|r| r.saturating_sub(1 + ragged_rank))
        .ok_or_else(|| {
            Error::unimplemented("the gradient of RaggedTensorToTensor needs its output's rank")
        })?;
    let keep = rank_ignoring_leading_ones(&default)?;
    let reduce: Vec<i32> = (0..inner_rank.saturating_sub(keep) as i32).collect();
    let reduced = if reduce.is_empty() {
        padding
    } else {
        op(
            g,
            "Sum",
            &[&padding, &ints(ctx, reduce)?],
            &[("keep_dims", AttrValue::Bool(false))],
        )?
    };
    let default_grad = op(g, "Reshape", &[&reduced, &shape_of(&default)?], &[])?;
    out[1] = Some(values_grad);
    if matches!(
        default.dtype(),
        DType::F16 | DType::BF16 | DType::F32 | DType::F64
    ) {
        out[2] = Some(default_grad);
    }
    Ok(out)
}

pub(super) fn register() {
    register_gradient("RaggedTensorToSparse", to_sparse_grad);
    register_gradient("RaggedTensorToTensor", to_tensor_grad);
    register_not_differentiable("RaggedRange");
}

#[cfg(test)]
mod tests {
    use weir_graph::{Graph, Tensor};
    use weir_ops::array::constant;
    use weir_ops::ragged::{ragged_tensor_to_sparse, RaggedOutput, RaggedToTensor};
    use weir_session::Session;

    use crate::gradients::gradients;

    fn ragged(g: &Graph) -> RaggedOutput {
        let v = Tensor::from_vec(&[3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        RaggedOutput::from_nested_row_splits(
            constant(g, v).unwrap(),
            vec![constant(g, [0i64, 1, 1, 3]).unwrap()],
        )
        .unwrap()
    }

    fn arange(dims: &[usize]) -> Tensor {
        let n: usize = dims.iter().product();
        Tensor::from_vec(dims, (0..n).map(|i| i as f32).collect()).unwrap()
    }

    // Expected values recorded from TensorFlow 2.21's tf.gradients of the same graphs.
    #[test]
    fn to_tensor_routes_gradients_to_values_and_default() {
        let g = Graph::new();
        let rt = ragged(&g);
        let d = constant(&g, [8.0f32, 9.0]).unwrap();
        let y = RaggedToTensor::new()
            .default_value_output(d.clone())
            .build(&rt)
            .unwrap();
        let gy = constant(&g, arange(&[3, 2, 2])).unwrap();
        let grads = gradients(&[y], &[rt.flat_values.clone(), d], Some(&[gy])).unwrap();
        let sess = Session::new(&g).unwrap();
        let dv = sess.eval(grads[0].as_ref().unwrap()).unwrap();
        assert_eq!(
            dv.to_vec::<f32>().unwrap(),
            [0.0, 1.0, 8.0, 9.0, 10.0, 11.0]
        );
        let dd = sess.eval(grads[1].as_ref().unwrap()).unwrap();
        assert_eq!(dd.to_vec::<f32>().unwrap(), [12.0, 15.0]);
    }

    #[test]
    fn to_tensor_with_shape_drops_truncated_values() {
        let g = Graph::new();
        let rt = ragged(&g);
        let d = constant(&g, 0.5f32).unwrap();
        let y = RaggedToTensor::new()
            .default_value_output(d.clone())
            .shape(weir_graph::Shape::from(vec![2usize, 3, 2]))
            .build(&rt)
            .unwrap();
        let gy = constant(&g, arange(&[2, 3, 2])).unwrap();
        let grads = gradients(&[y], &[rt.flat_values.clone(), d], Some(&[gy])).unwrap();
        let sess = Session::new(&g).unwrap();
        let dv = sess.eval(grads[0].as_ref().unwrap()).unwrap();
        assert_eq!(dv.to_vec::<f32>().unwrap(), [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
        let dd = sess.eval(grads[1].as_ref().unwrap()).unwrap();
        assert_eq!(dd.to_vec::<f32>().unwrap(), [65.0]);
    }

    #[test]
    fn to_sparse_reshapes_the_values_gradient() {
        let g = Graph::new();
        let rt = ragged(&g);
        let sp = ragged_tensor_to_sparse(&rt).unwrap();
        let gy = constant(&g, arange(&[6])).unwrap();
        let grads = gradients(
            &[sp.values],
            std::slice::from_ref(&rt.flat_values),
            Some(&[gy]),
        )
        .unwrap();
        let dv = Session::new(&g)
            .unwrap()
            .eval(grads[0].as_ref().unwrap())
            .unwrap();
        assert_eq!(dv.shape(), &[3, 2]);
        assert_eq!(dv.to_vec::<f32>().unwrap(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    }
}
