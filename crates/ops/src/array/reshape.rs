//! Ops that change only a tensor's shape, never its data (all zero-copy): `Reshape`,
//! `ExpandDims`, `Squeeze`; and the ops that report a shape: `Shape`, `Size`, `Rank`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::shape_util::{const_i64s, input_dims, known_product, to_i64s, IndexArg};

/// `tf.reshape(tensor, shape)`: the same elements in another shape; one dim may be -1, meaning
/// "whatever makes the sizes match".
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::array::{constant, reshape};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 3], vec![0i32; 6])?)?;
/// assert_eq!(reshape(&x, [3, -1])?.shape(), Shape::known(&[3, 2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn reshape(tensor: impl Into<Output>, shape: impl Into<IndexArg>) -> Result<Output> {
    let x = tensor.into();
    let g = x.graph().clone();
    let s = shape.into().to_output(&g)?;
    crate::new_op(&g, "Reshape")
        .input(x)
        .input(s)
        .build()?
        .output(0)
}

/// `tf.expand_dims(input, axis)`: inserts a dimension of size 1 at `axis` (in
/// `[-rank-1, rank]`).
pub fn expand_dims(input: impl Into<Output>, axis: i64) -> Result<Output> {
    let x = input.into();
    let g = x.graph().clone();
    let dim = crate::array::constant(&g, axis as i32)?;
    crate::new_op(&g, "ExpandDims")
        .input(x)
        .input(dim)
        .build()?
        .output(0)
}

/// `tf.squeeze(input, axis)`: removes the size-1 dims listed in `axis`, or every size-1 dim
/// when `axis` is empty.
pub fn squeeze(input: impl Into<Output>, axis: &[i64]) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "Squeeze")
        .input(x)
        .attr("squeeze_dims", axis.to_vec())
        .build()?
        .output(0)
}

/// `tf.shape(input)`: the run-time shape as an int32 vector.
pub fn shape(input: impl Into<Output>) -> Result<Output> {
    shape_typed(input, DType::I32)
}

/// `tf.shape(input, out_type)`: the run-time shape as an int32 or int64 vector.
pub fn shape_typed(input: impl Into<Output>, out_type: DType) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "Shape")
        .input(x)
        .attr("out_type", out_type)
        .build()?
        .output(0)
}

/// `tf.size(input)`: the number of elements as an int32 scalar.
pub fn size(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "Size")
        .input(x)
        .attr("out_type", DType::I32)
        .build()?
        .output(0)
}

/// `tf.rank(input)`: the number of dimensions as an int32 scalar.
pub fn rank(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "Rank")
        .input(x)
        .build()?
        .output(0)
}

/// Resolves a requested shape with at most one -1 against an input of dims `input`
/// (TensorFlow's Reshape kernel checks and messages). When the request has a 0, the -1 is
/// inferred from the input's non-zero dims, as TensorFlow 2.x does: `[0, 3]` reshaped to
/// `[0, -1]` is `[0, 3]`, and an empty input to `[-1, 0]` is `[1, 0]`.
pub(crate) fn resolve_reshape(input: &[usize], requested: &[i64]) -> Result<Vec<usize>> {
    let n: usize = input.iter().product();
    let mut unknown = None;
    // The product of the requested sizes, and of the non-zero ones only.
    let (mut product, mut nonzero) = (1usize, 1usize);
    let mut has_zero = false;
    for (i, &d) in requested.iter().enumerate() {
        if d == -1 {
            if let Some(j) = unknown {
                return Err(Error::invalid_argument(format!(
                    "Only one input size may be -1, not both {j} and {i}"
                )));
            }
            unknown = Some(i);
        } else if d < 0 {
            return Err(Error::invalid_argument(format!(
                "Size {i} must be non-negative, not {d}"
            )));
        } else if d == 0 {
            has_zero = true;
            product = 0;
        } else {
            product = product.saturating_mul(d as usize);
            nonzero = nonzero.saturating_mul(d as usize);
        }
    }
    let mut out: Vec<usize> = requested.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = unknown {
        // With a 0 in the request, the input's 0 dims are left out of the count the -1 is
        // inferred from (and the count need not divide evenly then).
        let input_has_zero = has_zero && input.contains(&0);
        let counted: usize = input.iter().filter(|&&d| d > 0 || !has_zero).product();
        let missing = counted / nonzero;
        if !input_has_zero && nonzero.saturating_mul(missing) != counted {
            return Err(Error::invalid_argument(format!(
                "Input to reshape is a tensor with {n} values, but the requested shape requires a multiple of {nonzero}"
            )));
        }
        out[i] = missing;
        product = product.saturating_mul(missing);
    }
    if product != n {
        return Err(Error::invalid_argument(format!(
            "Input to reshape is a tensor with {n} values, but the requested shape has {product}"
        )));
    }
    Ok(out)
}

/// The static shape of a reshape to a target known only in part (`[shape(x)[0], 784]`): its
/// known dims, and its one unknown dim too when the input's size and the others tell it, as
/// TensorFlow's shape function infers.
fn partial_target(input: &Shape, dims: &[Option<usize>]) -> Result<Shape> {
    let target = Shape::new(dims.to_vec());
    let mut dims = dims.to_vec();
    let unknown: Vec<usize> = (0..dims.len()).filter(|&i| dims[i].is_none()).collect();
    let known: usize = dims.iter().flatten().product();
    if let ([i], Some(n)) = (unknown.as_slice(), input.dims().and_then(known_product)) {
        if known > 0 {
            if n % known != 0 {
                return Err(Error::invalid_argument(format!(
                    "Dimension size must be evenly divisible by {known} but is {n} for \
                     'Reshape' with input shapes: {input}, [{}] and with input tensors \
                     computed as partial shapes: input[1] = {target}.",
                    dims.len()
                )));
            }
            dims[*i] = Some(n / known);
        }
    }
    Ok(Shape::new(dims))
}

fn reshape_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = ctx.input_shape(0).clone();
    let Some(req) = const_i64s(ctx, 1)? else {
        let out = match ctx.input_partial_shape(1).and_then(Shape::dims) {
            Some(dims) => partial_target(&input, dims)?,
            None => super::shape_util::unknown_dims(ctx.input_shape(1).dim(0)),
        };
        ctx.set_output(0, out);
        return Ok(());
    };
    let in_elems = input.dims().and_then(known_product);
    let bad = |elems: usize, shown: usize| {
        Error::invalid_argument(format!(
            "Cannot reshape a tensor with {elems} elements to shape {} ({shown} elements) for 'Reshape' with input shapes: {input}, [{}]",
            Shape::from_i64(&req),
            req.len()
        ))
    };
    if req.iter().filter(|&&d| d == -1).count() > 1 {
        return Err(Error::invalid_argument(format!(
            "Cannot infer multiple unknown dimensions in shape [{}]",
            req.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
        )));
    }
    if let Some(&d) = req.iter().find(|&&d| d < -1) {
        return Err(Error::invalid_argument(format!(
            "Dimension size must be >= -1, got {d}"
        )));
    }
    let known: usize = req
        .iter()
        .filter(|&&d| d >= 0)
        .map(|&d| d as usize)
        .product();
    let mut dims: Vec<Option<usize>> = req
        .iter()
        .map(|&d| if d < 0 { None } else { Some(d as usize) })
        .collect();
    if let Some(n) = in_elems {
        match dims.iter().position(Option::is_none) {
            Some(i) if known > 0 => {
                if n % known != 0 {
                    return Err(bad(n, known));
                }
                dims[i] = Some(n / known);
            }
            Some(_) => {}
            None if known != n => return Err(bad(n, known)),
            None => {}
        }
    }
    ctx.set_output(0, Shape::new(dims));
    Ok(())
}

struct ReshapeKernel;

impl Kernel for ReshapeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = ctx.input(1);
        if s.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "shape must be a vector of {{int32,int64}}, got shape {}",
                format_dims(s.shape())
            )));
        }
        let req = to_i64s(s)?;
        let x = ctx.take_input(0);
        let dims = resolve_reshape(x.shape(), &req)?;
        ctx.set_output(0, x.reshape(&dims)?);
        Ok(())
    }
}

/// The position `axis` inserts at, for a tensor of `rank`; TensorFlow's error otherwise.
fn expand_axis(axis: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if axis < -r - 1 || axis > r {
        return Err(Error::invalid_argument(format!(
            "Tried to expand dim index {axis} for tensor with {rank} dimensions."
        )));
    }
    Ok(if axis < 0 { axis + r + 1 } else { axis } as usize)
}

fn single_value(t: &Tensor, what: &str) -> Result<i64> {
    let v = to_i64s(t)?;
    match v.as_slice() {
        [a] => Ok(*a),
        _ => Err(Error::invalid_argument(format!(
            "'{what}' must be a tensor with a single value"
        ))),
    }
}

fn expand_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (Some(dims), Some(axis)) = (input_dims(ctx, 0), const_i64s(ctx, 1)?) else {
        let r = ctx.input_shape(0).rank().map(|r| r + 1);
        ctx.set_output(0, super::shape_util::unknown_dims(r));
        return Ok(());
    };
    let [a] = axis.as_slice() else {
        return Err(Error::invalid_argument(
            "'dim' must be a tensor with a single value",
        ));
    };
    let at = expand_axis(*a, dims.len())?;
    let mut d = dims;
    d.insert(at, Some(1));
    ctx.set_output(0, Shape::new(d));
    Ok(())
}

struct ExpandDimsKernel;

impl Kernel for ExpandDimsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let axis = single_value(ctx.input(1), "dim")?;
        let x = ctx.take_input(0);
        let at = expand_axis(axis, x.rank())?;
        let mut dims = x.shape().to_vec();
        dims.insert(at, 1);
        ctx.set_output(0, x.reshape(&dims)?);
        Ok(())
    }
}

/// The dims `squeeze_dims` keeps, checking each squeezed dim is 1 when known.
fn squeeze_dims(dims: &[Option<usize>], axes: &[i64]) -> Result<Option<Vec<Option<usize>>>> {
    let r = dims.len() as i64;
    let mut drop = vec![false; dims.len()];
    for &a in axes {
        if a < -r || a >= r {
            return Err(Error::invalid_argument(format!(
                "Tried to squeeze dim index {a} for tensor with {r} dimensions."
            )));
        }
        let i = if a < 0 { a + r } else { a } as usize;
        if let Some(d) = dims[i] {
            if d != 1 {
                return Err(Error::invalid_argument(format!(
                    "Can not squeeze dim[{i}], expected a dimension of 1, got {d}"
                )));
            }
        }
        drop[i] = true;
    }
    if axes.is_empty() {
        // Which dims are 1 is only known when every dim is known.
        if dims.iter().any(Option::is_none) {
            return Ok(None);
        }
        return Ok(Some(
            dims.iter().copied().filter(|&d| d != Some(1)).collect(),
        ));
    }
    Ok(Some(
        dims.iter()
            .zip(&drop)
            .filter(|(_, &x)| !x)
            .map(|(&d, _)| d)
            .collect(),
    ))
}

fn squeeze_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let axes: Vec<i64> = ctx.attr("squeeze_dims")?;
    let out = match input_dims(ctx, 0) {
        Some(dims) => squeeze_dims(&dims, &axes)?
            .map(Shape::new)
            .unwrap_or_else(Shape::unknown),
        None => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

struct SqueezeKernel(Vec<i64>);

impl Kernel for SqueezeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let dims: Vec<Option<usize>> = x.shape().iter().map(|&d| Some(d)).collect();
        let kept = squeeze_dims(&dims, &self.0)?
            .ok_or_else(|| Error::internal("run-time dims are known"))?;
        let kept: Vec<usize> = kept.into_iter().map(|d| d.unwrap_or(0)).collect();
        ctx.set_output(0, x.reshape(&kept)?);
        Ok(())
    }
}

/// The shape-reporting ops.
#[derive(Clone, Copy, PartialEq)]
enum Report {
    Shape,
    Size,
    Rank,
}

struct ReportKernel(Report, DType);

impl Kernel for ReportKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dims = ctx.input(0).shape();
        let vals: Vec<i64> = match self.0 {
            Report::Shape => dims.iter().map(|&d| d as i64).collect(),
            Report::Size => vec![dims.iter().product::<usize>() as i64],
            Report::Rank => vec![dims.len() as i64],
        };
        let out = if self.1 == DType::I64 {
            Tensor::from(vals)
        } else {
            let mut v32 = Vec::with_capacity(vals.len());
            for v in vals {
                v32.push(i32::try_from(v).map_err(|_| {
                    Error::invalid_argument(format!(
                        "Value {v} does not fit in int32; use out_type=int64"
                    ))
                })?);
            }
            Tensor::from(v32)
        };
        let out = if self.0 == Report::Shape {
            out
        } else {
            out.reshape(&[])?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn report_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let out = if ctx.op_type == "Shape" {
        Shape::new(vec![ctx.input_shape(0).rank()])
    } else {
        Shape::scalar()
    };
    ctx.set_output(0, out);
    Ok(())
}

fn make_report(node: &Node) -> Result<Box<dyn Kernel>> {
    let kind = match node.op_type() {
        "Shape" => Report::Shape,
        "Size" => Report::Size,
        _ => Report::Rank,
    };
    let out = if kind == Report::Rank {
        DType::I32
    } else {
        node.attr("out_type")?
    };
    Ok(Box::new(ReportKernel(kind, out)))
}

const INDEX: &[DType] = &[DType::I32, DType::I64];

pub(super) fn register() {
    register_op(
        OpDef::new("Reshape")
            .input("tensor", ArgType::Attr("T"))
            .input("shape", ArgType::Attr("Tshape"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tshape", INDEX)
            .shape_fn(reshape_shape_fn),
    );
    register_kernel("Reshape", |_| Ok(Box::new(ReshapeKernel)));
    register_op(
        OpDef::new("ExpandDims")
            .input("input", ArgType::Attr("T"))
            .input("dim", ArgType::Attr("Tdim"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tdim", INDEX)
            .shape_fn(expand_shape_fn),
    );
    register_kernel("ExpandDims", |_| Ok(Box::new(ExpandDimsKernel)));
    register_op(
        OpDef::new("Squeeze")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .attr(
                "squeeze_dims",
                AttrKind::Ints,
                Some(AttrValue::Ints(Vec::new())),
            )
            .shape_fn(squeeze_shape_fn),
    );
    register_kernel("Squeeze", |node| {
        Ok(Box::new(SqueezeKernel(node.attr("squeeze_dims")?)))
    });
    for name in ["Shape", "Size"] {
        register_op(
            OpDef::new(name)
                .input("input", ArgType::Attr("T"))
                .output("output", ArgType::Attr("out_type"))
                .type_attr("T", DType::ALL_DATA)
                .attr(
                    "out_type",
                    AttrKind::Type,
                    Some(AttrValue::Type(DType::I32)),
                )
                .shape_fn(report_shape_fn),
        );
        register_kernel(name, make_report);
    }
    register_op(
        OpDef::new("Rank")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Fixed(DType::I32))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(report_shape_fn),
    );
    register_kernel("Rank", make_report);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshape_resolves_one_unknown() {
        assert_eq!(resolve_reshape(&[6], &[3, -1]).unwrap(), vec![3, 2]);
        assert_eq!(resolve_reshape(&[2, 3], &[-1]).unwrap(), vec![6]);
        assert_eq!(resolve_reshape(&[0], &[0, 3]).unwrap(), vec![0, 3]);
        assert_eq!(resolve_reshape(&[0], &[-1, 3]).unwrap(), vec![0, 3]);
        assert_eq!(
            resolve_reshape(&[6], &[4]).unwrap_err().message(),
            "Input to reshape is a tensor with 6 values, but the requested shape has 4"
        );
        assert_eq!(
            resolve_reshape(&[7], &[2, -1]).unwrap_err().message(),
            "Input to reshape is a tensor with 7 values, but the requested shape requires a multiple of 2"
        );
        assert_eq!(
            resolve_reshape(&[6], &[-1, -1]).unwrap_err().message(),
            "Only one input size may be -1, not both 0 and 1"
        );
        assert!(resolve_reshape(&[6], &[-2, -3]).is_err());
    }

    /// TensorFlow 2.21's results for a -1 beside a 0 (run by hand: `tf.reshape` of fed zeros).
    #[test]
    fn a_zero_in_the_request_leaves_the_inputs_zero_dims_out() {
        let cases: [(&[usize], &[i64], &[usize]); 11] = [
            (&[0], &[0, -1], &[0, 1]),
            (&[0], &[-1, 0], &[1, 0]),
            (&[0, 3], &[0, -1], &[0, 3]),
            (&[0, 3], &[-1, 3], &[0, 3]),
            (&[0, 3], &[3, -1], &[3, 0]),
            (&[2, 0], &[-1, 0], &[2, 0]),
            (&[2, 0], &[0, -1], &[0, 2]),
            (&[2, 0], &[4, -1], &[4, 0]),
            (&[0], &[-1], &[0]),
            (&[0, 5], &[5, 0, -1], &[5, 0, 1]),
            (&[0, 5], &[2, 0, -1], &[2, 0, 2]),
        ];
        for (input, req, want) in cases {
            assert_eq!(
                resolve_reshape(input, req).unwrap(),
                want,
                "{input:?} {req:?}"
            );
        }
        assert_eq!(
            resolve_reshape(&[3], &[0, -1]).unwrap_err().message(),
            "Input to reshape is a tensor with 3 values, but the requested shape has 0"
        );
    }

    #[test]
    fn squeeze_and_expand_axes() {
        let d = [Some(1), Some(3), Some(1)];
        assert_eq!(squeeze_dims(&d, &[]).unwrap(), Some(vec![Some(3)]));
        assert_eq!(
            squeeze_dims(&d, &[-1]).unwrap(),
            Some(vec![Some(1), Some(3)])
        );
        assert_eq!(
            squeeze_dims(&d, &[1]).unwrap_err().message(),
            "Can not squeeze dim[1], expected a dimension of 1, got 3"
        );
        assert_eq!(squeeze_dims(&[None, Some(1)], &[]).unwrap(), None);
        assert_eq!(
            squeeze_dims(&[None, Some(1)], &[1]).unwrap(),
            Some(vec![None])
        );
        assert_eq!(expand_axis(-1, 2).unwrap(), 2);
        assert_eq!(expand_axis(0, 0).unwrap(), 0);
        assert_eq!(
            expand_axis(2, 0).unwrap_err().message(),
            "Tried to expand dim index 2 for tensor with 0 dimensions."
        );
    }
}
