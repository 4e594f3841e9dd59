//! `TensorScatterUpdate`, `TensorScatterAdd`, `TensorScatterSub` (`tf.tensor_scatter_nd_update`,
//! `_add`, `_sub`): a copy of a tensor with slices replaced, added to or subtracted from at
//! the coordinates in `indices`. The input's buffer is reused when nothing else holds it.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::scatter_apply::{apply, plan_nd, Combine, NUMBER_TYPES};

pub(super) fn build(op: &str, tensor: Output, indices: Output, updates: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&tensor, &indices, &updates])?.clone();
    crate::new_op(&g, op)
        .input(tensor)
        .input(indices)
        .input(updates)
        .build()?
        .output(0)
}

/// `tf.tensor_scatter_nd_update(tensor, indices, updates)`: `tensor` with the slices at the
/// coordinates in the innermost dimension of `indices` replaced by `updates` (the last of
/// repeated coordinates wins).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::{constant, tensor_scatter_nd_update};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let t = constant(&g, [1.0f32, 2.0, 3.0, 4.0])?;
/// let i = constant(&g, Tensor::from_vec(&[2, 1], vec![3, 0])?)?;
/// let y = tensor_scatter_nd_update(&t, &i, constant(&g, [9.0f32, 8.0])?)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, vec![8.0, 2.0, 3.0, 9.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn tensor_scatter_nd_update(
    tensor: impl Into<Output>,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    build(
        "TensorScatterUpdate",
        tensor.into(),
        indices.into(),
        updates.into(),
    )
}

/// `tf.tensor_scatter_nd_add(tensor, indices, updates)`: `tensor` with `updates` added at the
/// coordinates in `indices`; repeated coordinates accumulate.
pub fn tensor_scatter_nd_add(
    tensor: impl Into<Output>,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    build(
        "TensorScatterAdd",
        tensor.into(),
        indices.into(),
        updates.into(),
    )
}

/// `tf.tensor_scatter_nd_sub(tensor, indices, updates)`: `tensor` with `updates` subtracted
/// at the coordinates in `indices`.
pub fn tensor_scatter_nd_sub(
    tensor: impl Into<Output>,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    build(
        "TensorScatterSub",
        tensor.into(),
        indices.into(),
        updates.into(),
    )
}

/// Why shapes `a` and `b` do not merge, in the words of TensorFlow's `Merge` (a dimension
/// mismatch also shows both shapes).
fn shapes_differ(a: &[Option<usize>], b: &[Option<usize>]) -> Option<String> {
    if a.len() != b.len() {
        return Some(format!(
            "Shapes must be equal rank, but are {} and {}",
            a.len(),
            b.len()
        ));
    }
    a.iter()
        .zip(b)
        .enumerate()
        .find_map(|(i, (x, y))| match (x, y) {
            (Some(x), Some(y)) if x != y => Some(format!(
                "Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are {} \
                 and {}.",
                Shape::new(a.to_vec()),
                Shape::new(b.to_vec())
            )),
            _ => None,
        })
}

/// The static checks of an nd scatter into a tensor of shape `input` (TensorFlow's
/// `ScatterNdShapeHelper`), shared with the variable `ScatterNd*` builders, whose shape
/// functions also want `indices` and `updates` of rank 1 or more (`ranked`).
pub(crate) fn check_nd_static(
    input: &Shape,
    indices: &Shape,
    updates: &Shape,
    ranked: bool,
) -> Result<()> {
    for s in [indices, updates] {
        if ranked && s.rank() == Some(0) {
            return Err(Error::invalid_argument(
                "Shape must be at least rank 1 but is rank 0",
            ));
        }
    }
    if indices.rank() == Some(0) || updates.rank() == Some(0) {
        return Ok(());
    }
    let empty_input = input.num_elements() == Some(0);
    if empty_input
        && (indices.num_elements().is_some_and(|n| n > 0)
            || updates.num_elements().is_some_and(|n| n > 0))
    {
        return Err(Error::invalid_argument(
            "Indices and updates specified for empty input",
        ));
    }
    let (Some(id), Some(ud), Some(pd)) = (indices.dims(), updates.dims(), input.dims()) else {
        return Ok(());
    };
    let outer = id.len() - 1;
    let Some(ix) = id[outer] else {
        return Ok(());
    };
    let show = |d: &[Option<usize>]| Shape::new(d.to_vec()).to_string();
    let up = &ud[..outer.min(ud.len())];
    if let Some(why) = shapes_differ(&id[..outer], up) {
        return Err(Error::invalid_argument(format!(
            "Dimensions [0,{outer}) of indices[shape={indices}] = {} must match dimensions \
             [0,{outer}) of updates[shape={updates}] = {}: {why}",
            show(&id[..outer]),
            show(up)
        )));
    }
    let po = &pd[ix.min(pd.len())..];
    let us = &ud[outer.min(ud.len())..];
    if let Some(why) = shapes_differ(po, us) {
        return Err(Error::invalid_argument(format!(
            "Dimensions [{ix},{}) of input[shape={input}] = {} must match dimensions \
             [{outer},{}) of updates[shape={updates}] = {}: {why}",
            pd.len(),
            show(po),
            ud.len(),
            show(us)
        )));
    }
    Ok(())
}

pub(super) fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (t, i, u) = (
        ctx.input_shape(0).clone(),
        ctx.input_shape(1).clone(),
        ctx.input_shape(2).clone(),
    );
    check_nd_static(&t, &i, &u, false)?;
    ctx.set_output(0, t);
    Ok(())
}

/// The geometry checks of TensorFlow's `TensorScatterOp`, in its order and words.
pub(super) fn check_geometry(shape: &[usize], indices: &Tensor, updates: &Tensor) -> Result<()> {
    let (is, us) = (indices.shape(), updates.shape());
    if is.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Indices shape must have rank at least one. Found:{}",
            format_dims(is)
        )));
    }
    if us.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Updates shape must have rank at least one. Found:{}",
            format_dims(us)
        )));
    }
    let n_in: usize = shape.iter().product();
    let (n_idx, n_upd) = (indices.num_elements(), updates.num_elements());
    if !((n_idx == 0 && n_upd == 0) || (n_in != 0 && n_idx != 0 && n_upd != 0)) {
        return Err(Error::invalid_argument(
            "Indices and updates specified for empty output shape",
        ));
    }
    let outer = is.len() - 1;
    if us.len() < outer || is[..outer] != us[..outer] {
        return Err(Error::invalid_argument(format!(
            "Outer dimensions of indices and update must match. Indices shape: {}, updates \
             shape:{}",
            format_dims(is),
            format_dims(us)
        )));
    }
    let ix = is[outer];
    if ix > shape.len() || us.len() - outer != shape.len() - ix {
        return Err(Error::invalid_argument(format!(
            "Inner dimensions of output shape must match inner dimensions of updates shape. \
             Output: {} updates: {}",
            format_dims(shape),
            format_dims(us)
        )));
    }
    if us[outer..] != shape[ix..] {
        return Err(Error::invalid_argument(format!(
            "The inner {} dimensions of output.shape={} must match the inner {} dimensions of \
             updates.shape={}",
            shape.len() - ix,
            format_dims(shape),
            us.len() - outer,
            format_dims(us)
        )));
    }
    Ok(())
}

struct TensorScatterKernel(Combine);

impl Kernel for TensorScatterKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape = ctx.input(0).shape().to_vec();
        check_geometry(&shape, ctx.input(1), ctx.input(2))?;
        let plan = plan_nd(&shape, ctx.input(1), ctx.input(2).shape())?;
        let mut out = ctx.take_input(0);
        apply(&mut out, &plan, ctx.input(2), self.0)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(TensorScatterKernel(Combine::of_op(
        node.op_type(),
    ))))
}

pub(super) fn register() {
    for (name, types) in [
        ("TensorScatterUpdate", DType::ALL_DATA),
        ("TensorScatterAdd", NUMBER_TYPES),
        ("TensorScatterSub", NUMBER_TYPES),
    ] {
        register_op(
            OpDef::new(name)
                .input("tensor", ArgType::Attr("T"))
                .input("indices", ArgType::Attr("Tindices"))
                .input("updates", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", types)
                .type_attr("Tindices", &[DType::I32, DType::I64])
                .attr(
                    "bad_indices_policy",
                    AttrKind::Str,
                    Some(AttrValue::Str(String::new())),
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
    fn static_checks_follow_tensorflows_shape_function() {
        let s = |d: &[usize]| Shape::known(d);
        assert!(check_nd_static(&s(&[5]), &s(&[2, 1]), &s(&[2]), false).is_ok());
        let e = check_nd_static(&s(&[2, 2]), &s(&[1, 1]), &s(&[1, 3]), false).unwrap_err();
        assert!(e.is_invalid_argument());
        assert!(e.message().starts_with(
            "Dimensions [1,2) of input[shape=[2,2]] = [2] must match dimensions [1,2) of \
             updates[shape=[1,3]] = [3]"
        ));
        let e = check_nd_static(&s(&[0, 2]), &s(&[1, 1]), &s(&[1, 2]), false).unwrap_err();
        assert_eq!(e.message(), "Indices and updates specified for empty input");
        assert!(check_nd_static(&s(&[5]), &s(&[1]), &Shape::scalar(), true).is_err());
        assert!(check_nd_static(&s(&[5]), &s(&[1]), &Shape::scalar(), false).is_ok());
        assert!(check_nd_static(&Shape::unknown(), &s(&[2, 1]), &s(&[2]), false).is_ok());
    }
}
