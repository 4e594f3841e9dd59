//! The legacy op forms TensorFlow 1.x GraphDefs contain: `BatchMatMul` (no broadcasting),
//! `MatrixDiag`, `MatrixDiagPart`, `MatrixSetDiag` and their `V2` forms, `Concat` (axis first),
//! `Reverse` (a bool mask of dims) and `TopK` (k as an attr).
//!
//! Each runs the kernel of its modern form (`BatchMatMulV2`, `MatrixDiagV3`, `ConcatV2`,
//! `ReverseV2`, `TopKV2`) through a proxy node of that op, with its inputs rearranged, so the
//! numerics live in one place; where the legacy form checks more (V1 batch dims must match),
//! it checks first, with TensorFlow's messages.

use std::sync::Arc;

use weir_graph::registry::{kernel_factory, op_def, register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, Attrs, DType, Error, Graph, InferenceContext,
    Kernel, Node, OpContext, OpDef, Output, Result, Shape, Tensor,
};

/// Rearranges a legacy node's inputs into its modern form's.
type Remap = fn(&Node, &mut Vec<Tensor>) -> Result<()>;

/// A legacy op run by the kernel of its modern form, on a proxy node of that form.
struct Delegate {
    proxy: Arc<Node>,
    inner: Box<dyn Kernel>,
    remap: Remap,
}

impl Kernel for Delegate {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut inputs: Vec<Tensor> = (0..ctx.num_inputs()).map(|i| ctx.take_input(i)).collect();
        (self.remap)(ctx.node(), &mut inputs)?;
        let mut outputs = vec![None; self.proxy.output_dtypes().len()];
        {
            let mut sub = OpContext::new(
                &self.proxy,
                &mut inputs,
                &mut outputs,
                ctx.resources(),
                ctx.cancellation(),
                ctx.deadline(),
            );
            self.inner.compute(&mut sub)?;
        }
        for (i, o) in outputs.into_iter().enumerate() {
            if let Some(t) = o {
                ctx.set_output(i, t);
            }
        }
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        self.inner.is_expensive()
    }
}

/// A node of `op` (inputs of `dtypes`, placeholders) in a graph of its own: what a
/// [`Delegate`] hands the modern kernel as its node.
fn proxy(op: &str, dtypes: &[DType], attrs: &[(&str, AttrValue)]) -> Result<Delegate> {
    let g = Graph::new();
    let mut b = crate::new_op(&g, op);
    for &dt in dtypes {
        b = b.input(crate::array::placeholder(&g, dt, Shape::unknown())?);
    }
    for (k, v) in attrs {
        b = b.attr(k, v.clone());
    }
    let node = b.build()?.node();
    let inner = kernel_factory(op)?(&node)?;
    Ok(Delegate {
        proxy: node,
        inner,
        remap: |_, _| Ok(()),
    })
}

/// Runs the shape function of `op` on rearranged inputs (`consts` replaces the constant
/// inputs, `extra` appends inputs of known value) and copies its output shapes.
fn delegate_shapes(
    ctx: &mut InferenceContext<'_>,
    op: &str,
    order: &[usize],
    extra: &[Tensor],
    attrs: Attrs,
) -> Result<()> {
    let def = op_def(op)?;
    let mut dtypes = Vec::new();
    let mut shapes = Vec::new();
    let mut consts = Vec::new();
    for &i in order {
        dtypes.push(ctx.input_dtype(i));
        shapes.push(ctx.input_shape(i).clone());
        consts.push(ctx.input_const(i).cloned());
    }
    for t in extra {
        dtypes.push(t.dtype());
        shapes.push(Shape::known(t.shape()));
        consts.push(Some(t.clone()));
    }
    let out_dtypes: Vec<DType> = (0..ctx.num_outputs())
        .map(|i| ctx.output_dtype(i))
        .collect();
    let mut inner = InferenceContext::new(op, dtypes, shapes, consts, &attrs, &out_dtypes);
    if let Some(f) = def.shape_fn {
        f(&mut inner)?;
    }
    for (i, s) in inner.into_output_shapes().into_iter().enumerate() {
        ctx.set_output(i, s);
    }
    Ok(())
}

fn attrs_of(pairs: &[(&str, AttrValue)]) -> Attrs {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// BatchMatMul (V1): batch dims must be equal, no broadcasting.

/// TensorFlow's V1 checks: equal ranks of at least 2 and equal batch dims.
fn check_batch_matmul_v1(x: &[usize], y: &[usize]) -> Result<()> {
    if x.len() != y.len() {
        return Err(Error::invalid_argument(format!(
            "In[0] and In[1] has different ndims: {} vs. {}",
            format_dims(x),
            format_dims(y)
        )));
    }
    if x.len() < 2 {
        return Err(Error::invalid_argument(format!(
            "In[0] ndims must be >= 2: {}",
            x.len()
        )));
    }
    for i in 0..x.len() - 2 {
        if x[i] != y[i] {
            return Err(Error::invalid_argument(format!(
                "In[0].dim({i}) and In[1].dim({i}) must be the same: {} vs {}",
                format_dims(x),
                format_dims(y)
            )));
        }
    }
    Ok(())
}

fn batch_matmul_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (a, b) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    if let (Some(ra), Some(rb)) = (a.rank(), b.rank()) {
        for (i, s, r) in [(0, &a, ra), (1, &b, rb)] {
            if r < 2 {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at least rank 2 but is rank {r} for 'BatchMatMul' (input {i} \
                     has shape {s})"
                )));
            }
        }
        if ra != rb {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank {ra} but is rank {rb} for 'BatchMatMul' with input shapes: \
                 {a}, {b}"
            )));
        }
    }
    let attrs = attrs_of(&[
        ("T", AttrValue::Type(ctx.input_dtype(0))),
        ("adj_x", AttrValue::Bool(ctx.attr("adj_x")?)),
        ("adj_y", AttrValue::Bool(ctx.attr("adj_y")?)),
    ]);
    // V1 merges the batch dims instead of broadcasting them.
    if let (Some(da), Some(db)) = (a.dims(), b.dims()) {
        let n = da.len() - 2;
        for i in 0..n {
            if let (Some(x), Some(y)) = (da[i], db[i]) {
                if x != y {
                    return Err(Error::invalid_argument(format!(
                        "Dimensions must be equal, but are {x} and {y} for 'BatchMatMul' with \
                         input shapes: {a}, {b}."
                    )));
                }
            }
        }
    }
    delegate_shapes(ctx, "BatchMatMulV2", &[0, 1], &[], attrs)
}

fn make_batch_matmul(node: &Node) -> Result<Box<dyn Kernel>> {
    let dt: DType = node.attr("T")?;
    let mut d = proxy(
        "BatchMatMulV2",
        &[dt, dt],
        &[
            ("adj_x", AttrValue::Bool(node.attr("adj_x")?)),
            ("adj_y", AttrValue::Bool(node.attr("adj_y")?)),
        ],
    )?;
    d.remap = |_, ins| check_batch_matmul_v1(ins[0].shape(), ins[1].shape());
    Ok(Box::new(d))
}

// ---------------------------------------------------------------------------------------------
// MatrixDiag, MatrixDiagPart, MatrixSetDiag: V1 (main diagonal) and V2 (a band, LEFT_LEFT).

/// The V3 inputs a V1 diag op lacks: `k = 0`, and for `MatrixDiag` `num_rows = num_cols = -1`;
/// the padding value is a zero of the element type.
fn v1_diag_extra(op: &str, dt: DType) -> Result<Vec<Tensor>> {
    let zero = Tensor::zeros(dt, &[])?;
    Ok(match op {
        "MatrixDiag" => vec![
            Tensor::from(0i32),
            Tensor::from(-1i32),
            Tensor::from(-1i32),
            zero,
        ],
        "MatrixDiagPart" => vec![Tensor::from(0i32), zero],
        _ => vec![Tensor::from(0i32)],
    })
}

fn v3_of(op: &str) -> &'static str {
    match op.trim_end_matches("V2") {
        "MatrixDiag" => "MatrixDiagV3",
        "MatrixDiagPart" => "MatrixDiagPartV3",
        _ => "MatrixSetDiagV3",
    }
}

fn v3_dtypes(v3: &str, dt: DType) -> Vec<DType> {
    match v3 {
        "MatrixDiagV3" => vec![dt, DType::I32, DType::I32, DType::I32, dt],
        "MatrixDiagPartV3" => vec![dt, DType::I32, dt],
        _ => vec![dt, dt, DType::I32],
    }
}

/// V2's diagonals are packed as V3's `LEFT_LEFT`; V1 has only the main diagonal, where the
/// alignment does not matter.
const V2_ALIGN: &str = "LEFT_LEFT";

fn diag_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let op = ctx.op_type.to_string();
    let v3 = v3_of(&op);
    let dt = ctx.input_dtype(0);
    let attrs = attrs_of(&[
        ("T", AttrValue::Type(dt)),
        ("align", AttrValue::Str(V2_ALIGN.into())),
    ]);
    let n = ctx.num_inputs();
    let order: Vec<usize> = (0..n).collect();
    let extra = if op.ends_with("V2") {
        vec![]
    } else {
        if op == "MatrixDiag" && ctx.input_shape(0).rank() == Some(0) {
            return Err(Error::invalid_argument(
                "Shape must be at least rank 1 but is rank 0",
            ));
        }
        v1_diag_extra(&op, dt)?
    };
    delegate_shapes(ctx, v3, &order, &extra, attrs)
}

fn make_diag(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    let v3 = v3_of(op);
    let dt: DType = node.attr("T")?;
    let mut d = proxy(
        v3,
        &v3_dtypes(v3, dt),
        &[("align", AttrValue::Str(V2_ALIGN.into()))],
    )?;
    if !op.ends_with("V2") {
        d.remap = |node, ins| {
            let dt = ins[0].dtype();
            ins.extend(v1_diag_extra(node.op_type(), dt)?);
            Ok(())
        };
    }
    Ok(Box::new(d))
}

// ---------------------------------------------------------------------------------------------
// Concat (V1): `concat_dim` first.

fn concat_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let n = ctx.num_inputs();
    let order: Vec<usize> = (1..n).chain([0]).collect();
    let attrs = attrs_of(&[
        ("T", AttrValue::Type(ctx.input_dtype(1))),
        ("N", AttrValue::Int(n as i64 - 1)),
        ("Tidx", AttrValue::Type(DType::I32)),
    ]);
    delegate_shapes(ctx, "ConcatV2", &order, &[], attrs)
}

fn make_concat(node: &Node) -> Result<Box<dyn Kernel>> {
    let dt: DType = node.attr("T")?;
    let n: i64 = node.attr("N")?;
    let mut dtypes = vec![dt; n as usize];
    dtypes.push(DType::I32);
    let mut d = proxy("ConcatV2", &dtypes, &[])?;
    d.remap = |_, ins| {
        ins.rotate_left(1);
        Ok(())
    };
    Ok(Box::new(d))
}

// ---------------------------------------------------------------------------------------------
// Reverse (V1): a bool per dim.

/// The axes a V1 `dims` mask selects, with TensorFlow's checks against the input's rank.
fn reverse_axes(input: &[usize], dims: &Tensor) -> Result<Tensor> {
    if dims.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "'dims' must be 1-dimension, not {}",
            dims.rank()
        )));
    }
    let mask = dims.as_slice::<bool>()?;
    if mask.len() != input.len() {
        return Err(Error::invalid_argument(format!(
            "'dims' must have the same number of values as 'input' has dimensions. 'input' has \
             {}'dims' has {} values",
            input.len(),
            mask.len()
        )));
    }
    if input.len() > 8 {
        return Err(Error::invalid_argument(format!(
            "reverse is not implemented for tensors of rank > 8, got rank {}",
            input.len()
        )));
    }
    let axes: Vec<i32> = (0..mask.len() as i32)
        .filter(|&i| mask[i as usize])
        .collect();
    Ok(Tensor::from(axes))
}

fn reverse_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    let dims = ctx.with_rank(1, 1)?;
    if let Some(r) = x.rank() {
        if r > 8 {
            return Err(Error::invalid_argument(
                "reverse does not work on tensors with more than 8 dimensions",
            ));
        }
        if let Some(d) = dims.dim(0) {
            if d != r {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {d} and {r} for 'Reverse' with input \
                     shapes: {x}, {dims}."
                )));
            }
        }
    }
    ctx.set_output(0, x);
    Ok(())
}

fn make_reverse(node: &Node) -> Result<Box<dyn Kernel>> {
    let dt: DType = node.attr("T")?;
    let mut d = proxy("ReverseV2", &[dt, DType::I32], &[])?;
    d.remap = |_, ins| {
        ins[1] = reverse_axes(ins[0].shape(), &ins[1])?;
        Ok(())
    };
    Ok(Box::new(d))
}

// ---------------------------------------------------------------------------------------------
// TopK (V1): k as an attr.

fn k_tensor(k: i64) -> Result<Tensor> {
    i32::try_from(k)
        .map(Tensor::from)
        .map_err(|_| Error::invalid_argument(format!("k = {k} does not fit an int32")))
}

fn top_k_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let k: i64 = ctx.attr("k")?;
    let attrs = attrs_of(&[
        ("T", AttrValue::Type(ctx.input_dtype(0))),
        ("sorted", AttrValue::Bool(ctx.attr("sorted")?)),
    ]);
    delegate_shapes(ctx, "TopKV2", &[0], &[k_tensor(k)?], attrs)
}

fn make_top_k(node: &Node) -> Result<Box<dyn Kernel>> {
    let dt: DType = node.attr("T")?;
    let sorted: bool = node.attr("sorted")?;
    let mut d = proxy("TopKV2", &[dt, DType::I32], &[("sorted", sorted.into())])?;
    d.remap = |node, ins| {
        ins.push(k_tensor(node.attr("k")?)?);
        Ok(())
    };
    Ok(Box::new(d))
}

// ---------------------------------------------------------------------------------------------
// Builders.

/// `gen_array_ops.concat(concat_dim, values)`: the V1 `Concat` op, axis first (what
/// `tf.concat` built before `ConcatV2`); prefer [`concat`](crate::array::concat).
pub fn concat_v1(concat_dim: impl Into<Output>, values: &[Output]) -> Result<Output> {
    let dim = concat_dim.into();
    let g = dim.graph().clone();
    crate::new_op(&g, "Concat")
        .input(dim)
        .inputs(values.iter().cloned())
        .build()?
        .output(0)
}

/// `gen_array_ops.reverse(tensor, dims)`: the V1 `Reverse` op, reversing the dims where the
/// bool vector `dims` is true.
pub fn reverse_v1(tensor: impl Into<Output>, dims: impl Into<Output>) -> Result<Output> {
    let x = tensor.into();
    let g = x.graph().clone();
    crate::new_op(&g, "Reverse")
        .input(x)
        .input(dims.into())
        .build()?
        .output(0)
}

/// `gen_nn_ops.top_k(input, k, sorted)`: the V1 `TopK` op with `k` as an attr; `(values,
/// indices)`.
pub fn top_k_v1(input: impl Into<Output>, k: i64, sorted: bool) -> Result<(Output, Output)> {
    let x = input.into();
    let g = x.graph().clone();
    let op = crate::new_op(&g, "TopK")
        .input(x)
        .attr("k", k)
        .attr("sorted", sorted)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `gen_math_ops.batch_mat_mul(x, y, adj_x, adj_y)`: the V1 `BatchMatMul` op, whose batch
/// dims must be equal (no broadcasting).
pub fn batch_matmul_v1(
    x: impl Into<Output>,
    y: impl Into<Output>,
    adj_x: bool,
    adj_y: bool,
) -> Result<Output> {
    let x = x.into();
    let g = x.graph().clone();
    crate::new_op(&g, "BatchMatMul")
        .input(x)
        .input(y.into())
        .attr("adj_x", adj_x)
        .attr("adj_y", adj_y)
        .build()?
        .output(0)
}

pub(super) fn register() {
    let bool_false = || Some(AttrValue::Bool(false));
    register_op(
        OpDef::new("BatchMatMul")
            .input("x", ArgType::Attr("T"))
            .input("y", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::REAL_NUMBER)
            .attr("adj_x", AttrKind::Bool, bool_false())
            .attr("adj_y", AttrKind::Bool, bool_false())
            .shape_fn(batch_matmul_shape_fn),
    );
    register_kernel("BatchMatMul", make_batch_matmul);

    register_op(
        OpDef::new("MatrixDiag")
            .input("diagonal", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(diag_shape_fn),
    );
    register_op(
        OpDef::new("MatrixDiagPart")
            .input("input", ArgType::Attr("T"))
            .output("diagonal", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(diag_shape_fn),
    );
    register_op(
        OpDef::new("MatrixSetDiag")
            .input("input", ArgType::Attr("T"))
            .input("diagonal", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(diag_shape_fn),
    );
    register_op(
        OpDef::new("MatrixDiagV2")
            .input("diagonal", ArgType::Attr("T"))
            .input("k", ArgType::Fixed(DType::I32))
            .input("num_rows", ArgType::Fixed(DType::I32))
            .input("num_cols", ArgType::Fixed(DType::I32))
            .input("padding_value", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(diag_shape_fn),
    );
    register_op(
        OpDef::new("MatrixDiagPartV2")
            .input("input", ArgType::Attr("T"))
            .input("k", ArgType::Fixed(DType::I32))
            .input("padding_value", ArgType::Attr("T"))
            .output("diagonal", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(diag_shape_fn),
    );
    register_op(
        OpDef::new("MatrixSetDiagV2")
            .input("input", ArgType::Attr("T"))
            .input("diagonal", ArgType::Attr("T"))
            .input("k", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(diag_shape_fn),
    );
    for op in [
        "MatrixDiag",
        "MatrixDiagPart",
        "MatrixSetDiag",
        "MatrixDiagV2",
        "MatrixDiagPartV2",
        "MatrixSetDiagV2",
    ] {
        register_kernel(op, make_diag);
    }

    register_op(
        OpDef::new("Concat")
            .input("concat_dim", ArgType::Fixed(DType::I32))
            .input(
                "values",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .output("output", ArgType::Attr("T"))
            .int_attr_min("N", 2)
            .type_attr("T", DType::ALL)
            .shape_fn(concat_shape_fn),
    );
    register_kernel("Concat", make_concat);

    register_op(
        OpDef::new("Reverse")
            .input("tensor", ArgType::Attr("T"))
            .input("dims", ArgType::Fixed(DType::Bool))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(reverse_shape_fn),
    );
    register_kernel("Reverse", make_reverse);

    register_op(
        OpDef::new("TopK")
            .input("input", ArgType::Attr("T"))
            .output("values", ArgType::Attr("T"))
            .output("indices", ArgType::Fixed(DType::I32))
            .int_attr_min("k", 0)
            .attr("sorted", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .type_attr("T", DType::REAL_NUMBER)
            .shape_fn(top_k_shape_fn),
    );
    register_kernel("TopK", make_top_k);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_batch_checks_use_tensorflows_messages() {
        assert!(check_batch_matmul_v1(&[2, 2, 3], &[2, 3, 4]).is_ok());
        assert_eq!(
            check_batch_matmul_v1(&[2, 2, 3], &[3, 4])
                .unwrap_err()
                .message(),
            "In[0] and In[1] has different ndims: [2,2,3] vs. [3,4]"
        );
        assert_eq!(
            check_batch_matmul_v1(&[2, 2, 3], &[1, 3, 4])
                .unwrap_err()
                .message(),
            "In[0].dim(0) and In[1].dim(0) must be the same: [2,2,3] vs [1,3,4]"
        );
    }

    #[test]
    fn reverse_mask_becomes_axes() {
        let axes = reverse_axes(&[2, 3, 4], &Tensor::from(vec![true, false, true])).unwrap();
        assert_eq!(axes.to_vec::<i32>().unwrap(), vec![0, 2]);
        assert!(reverse_axes(&[2, 3], &Tensor::from(vec![true])).is_err());
    }
}
