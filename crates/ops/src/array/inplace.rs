//! TensorFlow's inplace ops (`InplaceUpdate`, `InplaceAdd`, `InplaceSub`, `DeepCopy`, and the
//! `inplace_ops` helpers over them) and `ParallelConcat` (`tf.parallel_stack`).
//!
//! TensorFlow's inplace kernels write into `x`'s own buffer, so every other reader of `x`
//! sees the change; weir's return a tensor of the same values and leave `x` alone (they write
//! in place only when no one else holds `x`'s buffer). TensorFlow runs `ParallelConcat` by
//! rewriting it, before a run, into a zeroed output that one `_ParallelConcatUpdate` per
//! input fills as the input arrives; weir's kernel fills the output from all inputs at once,
//! with the same checks and results.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, format_dims, ArgType, AttrKind, Complex, DType, Error, InferenceContext, Kernel,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::{constant, constant_named, reshape, shape};
use crate::array::shape_util::merge_shapes as merge;

/// Which inplace op: `InplaceUpdate` (`x[i] = v`), `InplaceAdd` (`x[i] += v`) or `InplaceSub`
/// (`x[i] -= v`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InplaceOp {
    /// `InplaceUpdate`: rows replaced; a repeated row takes its last value.
    Update,
    /// `InplaceAdd`: rows added to; a repeated row adds each value.
    Add,
    /// `InplaceSub`: rows subtracted from.
    Sub,
}

impl InplaceOp {
    fn op_type(self) -> &'static str {
        match self {
            InplaceOp::Update => "InplaceUpdate",
            InplaceOp::Add => "InplaceAdd",
            InplaceOp::Sub => "InplaceSub",
        }
    }

    /// `gen_array_ops.inplace_update(x, i, v)` and its siblings: `x` with its rows `i` (an
    /// int32 vector; an index wraps around, `-1` is the last row) updated by the rows of `v`
    /// (`v` has `x`'s shape but for its first dimension, which is `i`'s length).
    pub fn build(
        self,
        x: impl Into<Output>,
        i: impl Into<Output>,
        v: impl Into<Output>,
    ) -> Result<Output> {
        let (x, i, v) = (x.into(), i.into(), v.into());
        let g = crate::util::same_graph(&[&x, &i, &v])?.clone();
        crate::new_op(&g, self.op_type())
            .input(x)
            .input(i)
            .input(v)
            .build()?
            .output(0)
    }
}

/// `tf.raw_ops.InplaceUpdate(x, i, v)`: `x` with rows `i` replaced by the rows of `v`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::{constant, inplace_update};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[3, 2], vec![0.0f32; 6])?)?;
/// let v = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?)?;
/// let y = inplace_update(&x, constant(&g, [2, 0])?, &v)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [3.0, 4.0, 0.0, 0.0, 1.0, 2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn inplace_update(
    x: impl Into<Output>,
    i: impl Into<Output>,
    v: impl Into<Output>,
) -> Result<Output> {
    InplaceOp::Update.build(x, i, v)
}

/// `tf.raw_ops.InplaceAdd(x, i, v)`: `x` with the rows of `v` added to its rows `i`.
pub fn inplace_add(
    x: impl Into<Output>,
    i: impl Into<Output>,
    v: impl Into<Output>,
) -> Result<Output> {
    InplaceOp::Add.build(x, i, v)
}

/// `tf.raw_ops.InplaceSub(x, i, v)`: `x` with the rows of `v` subtracted from its rows `i`.
pub fn inplace_sub(
    x: impl Into<Output>,
    i: impl Into<Output>,
    v: impl Into<Output>,
) -> Result<Output> {
    InplaceOp::Sub.build(x, i, v)
}

/// `gen_array_ops.deep_copy(x)` (`DeepCopy`): a copy of `x` in a buffer of its own.
pub fn deep_copy(x: impl Into<Output>) -> Result<Output> {
    let x = x.into();
    crate::new_op(x.graph(), "DeepCopy")
        .input(x)
        .build()?
        .output(0)
}

/// The helpers of TensorFlow's `inplace_ops` module: `inplace_update(x, i, v)`,
/// `inplace_add`, `inplace_sub` (which copy `x` with `DeepCopy` first) and
/// `alias_inplace_update`, `alias_inplace_add`, `alias_inplace_sub` (which do not).
#[derive(Clone, Copy, Debug)]
pub struct Inplace {
    op: InplaceOp,
    alias: bool,
}

impl Inplace {
    /// `inplace_ops.inplace_update` / `inplace_add` / `inplace_sub` for `op`.
    pub fn new(op: InplaceOp) -> Inplace {
        Inplace { op, alias: false }
    }

    /// The `alias_inplace_*` form: no `DeepCopy` of `x` first.
    pub fn alias(mut self, alias: bool) -> Inplace {
        self.alias = alias;
        self
    }

    /// As TensorFlow's `_inplace_helper`: with `i` `None`, `v` has `x`'s shape and replaces
    /// (adds to, subtracts from) all of it; a scalar `i` names one row and `v` is that row; a
    /// vector `i` names rows, as [`InplaceOp::build`]. `i` may be any integer type (cast to
    /// int32).
    pub fn build(
        self,
        x: impl Into<Output>,
        i: Option<Output>,
        v: impl Into<Output>,
    ) -> Result<Output> {
        let (x, v) = (x.into(), v.into());
        let g = crate::util::same_graph(&[&x, &v])?.clone();
        let x = if self.alias { x } else { deep_copy(x)? };
        match i {
            None => {
                let flat_x = reshape(&x, [1i64, -1])?;
                let rows = crate::new_op(&g, self.op.op_type())
                    .input(flat_x)
                    .input(constant(&g, Tensor::from(vec![0i32]))?)
                    .input(reshape(&v, [1i64, -1])?)
                    .build()?
                    .output(0)?;
                reshape(rows, shape(&x)?)
            }
            Some(i) => {
                let i = crate::math::cast(i, DType::I32)?;
                if i.shape().rank() == Some(0) {
                    let rows = reshape(&i, [1i64])?;
                    self.op.build(&x, rows, super::expand_dims(&v, 0)?)
                } else {
                    self.op.build(&x, i, &v)
                }
            }
        }
    }
}

/// `tf.parallel_stack(values, name="parallel_stack")`: the tensors `values` (all of one
/// dtype and one fully known static shape) stacked along a new first dimension, as a
/// `ParallelConcat` of their `expand_dims(value, 0)` in the name scope `parallel_stack`.
/// Unlike `stack` it needs the shapes at graph-building time, and has no gradient.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{constant, parallel_stack};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let v = [constant(&g, [1, 4])?, constant(&g, [2, 5])?, constant(&g, [3, 6])?];
/// let y = parallel_stack(&v)?;
/// assert_eq!(y.name(), "parallel_stack/ParallelConcat:0");
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<i32>()?, [1, 4, 2, 5, 3, 6]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn parallel_stack(values: &[Output]) -> Result<Output> {
    parallel_stack_named(values, "parallel_stack")
}

/// [`parallel_stack`] in the name scope `name`.
pub fn parallel_stack_named(values: &[Output], name: &str) -> Result<Output> {
    let refs: Vec<&Output> = values.iter().collect();
    let g = crate::util::same_graph(&refs)?.clone();
    let _scope = g.name_scope(name);
    let output_shape = values[0].shape().with_leading(Some(values.len()));
    let expanded = values
        .iter()
        .map(|v| {
            // TensorFlow's names: `ExpandDims` with its axis constant `ExpandDims/dim`.
            let scope = g.name_scope("ExpandDims");
            let exact = scope.prefix().to_string();
            let dim = constant_named(&g, Tensor::scalar(0i32), "dim")?;
            drop(scope);
            crate::new_op(&g, "ExpandDims")
                .name(exact)
                .input(v)
                .input(dim)
                .build()?
                .output(0)
        })
        .collect::<Result<Vec<_>>>()?;
    parallel_concat(&expanded, output_shape)
}

/// `gen_array_ops.parallel_concat(values, shape)` (`ParallelConcat`): the inputs, each of
/// shape `[1, ...]`, concatenated along the first dimension into a tensor of the fully
/// defined `shape`.
pub fn parallel_concat(values: &[Output], shape: impl Into<Shape>) -> Result<Output> {
    let refs: Vec<&Output> = values.iter().collect();
    let g = crate::util::same_graph(&refs)?.clone();
    crate::new_op(&g, "ParallelConcat")
        .inputs(values.iter().cloned())
        .attr("shape", shape.into())
        .build()?
        .output(0)
}

/// The elementwise `+=` and `-=` of the number types, wrapping for integers as TensorFlow's
/// do (the half types round each result, as Eigen's do).
trait RowArith: TensorType + Copy {
    fn plus(self, o: Self) -> Self;
    fn minus(self, o: Self) -> Self;
}

macro_rules! wrapping_arith {
    ($($t:ty),*) => {$(
        impl RowArith for $t {
            fn plus(self, o: Self) -> Self { self.wrapping_add(o) }
            fn minus(self, o: Self) -> Self { self.wrapping_sub(o) }
        }
    )*};
}
wrapping_arith!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! ieee_arith {
    ($($t:ty),*) => {$(
        impl RowArith for $t {
            fn plus(self, o: Self) -> Self { self + o }
            fn minus(self, o: Self) -> Self { self - o }
        }
    )*};
}
ieee_arith!(f32, f64, f16, bf16, Complex<f32>, Complex<f64>);

/// The row of `x`'s first dimension (`rows` of them) that index `i` names: TensorFlow's
/// `(i % rows + rows) % rows`.
fn wrap_row(i: i32, rows: usize) -> usize {
    let n = rows as i64;
    ((i as i64 % n + n) % n) as usize
}

fn update_rows<T: TensorType + Clone>(mut y: Tensor, idx: &[i32], v: &Tensor) -> Result<Tensor> {
    let rows = y.shape()[0];
    let width = y.num_elements() / rows;
    let vs = v.as_slice::<T>()?;
    let ys = y.as_slice_mut::<T>()?;
    for (j, &i) in idx.iter().enumerate() {
        let r = wrap_row(i, rows);
        ys[r * width..(r + 1) * width].clone_from_slice(&vs[j * width..(j + 1) * width]);
    }
    Ok(y)
}

fn combine_rows<T: RowArith>(mut y: Tensor, idx: &[i32], v: &Tensor, add: bool) -> Result<Tensor> {
    let rows = y.shape()[0];
    let width = y.num_elements() / rows;
    let vs = v.as_slice::<T>()?;
    let ys = y.as_slice_mut::<T>()?;
    for (j, &i) in idx.iter().enumerate() {
        let r = wrap_row(i, rows);
        let src = &vs[j * width..(j + 1) * width];
        for (a, &b) in ys[r * width..(r + 1) * width].iter_mut().zip(src) {
            *a = if add { a.plus(b) } else { a.minus(b) };
        }
    }
    Ok(y)
}

fn unsupported(dt: DType) -> Error {
    Error::invalid_argument(format!("Unsupported data type: {}", dt.name()))
}

/// `i`, `x` and `v` checked as TensorFlow's `InplaceOpBase` checks them.
fn check_inplace(x: &Tensor, i: &Tensor, v: &Tensor) -> Result<()> {
    let (xd, vd) = (format_dims(x.shape()), format_dims(v.shape()));
    if i.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "i must be a vector. {}",
            format_dims(i.shape())
        )));
    }
    if x.rank() != v.rank() {
        return Err(Error::invalid_argument(format!(
            "x and v shape doesn't match (ranks differ): {xd} vs. {vd}"
        )));
    }
    for k in 1..x.rank() {
        if x.shape()[k] != v.shape()[k] {
            return Err(Error::invalid_argument(format!(
                "x and v shape doesn't match at index {k} : {xd} vs. {vd}"
            )));
        }
    }
    if v.shape().first() != Some(&i.shape()[0]) {
        return Err(Error::invalid_argument(format!(
            "i and x shape doesn't match at index 0: {} vs. {vd}",
            format_dims(i.shape())
        )));
    }
    Ok(())
}

struct InplaceKernel(InplaceOp);

impl Kernel for InplaceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (i, v) = (ctx.input(1).clone(), ctx.input(2).clone());
        let x = ctx.take_input(0);
        check_inplace(&x, &i, &v)?;
        if x.num_elements() == 0 || v.num_elements() == 0 {
            ctx.set_output(0, x);
            return Ok(());
        }
        let idx = i.as_slice::<i32>()?;
        let dt = x.dtype();
        let y = match self.0 {
            InplaceOp::Update => weir_graph::match_data_dtype!(dt,
                T => update_rows::<T>(x, idx, &v)?,
                _ => return Err(unsupported(dt))),
            op => {
                let add = op == InplaceOp::Add;
                weir_graph::match_real_dtype!(dt, T => combine_rows::<T>(x, idx, &v, add)?,
                    _ => weir_graph::match_half_dtype!(dt, T => combine_rows::<T>(x, idx, &v, add)?,
                        _ => weir_graph::match_complex_dtype!(dt,
                            T => combine_rows::<T>(x, idx, &v, add)?,
                            _ => return Err(unsupported(dt)))))
            }
        };
        ctx.set_output(0, y);
        Ok(())
    }
}

struct DeepCopyKernel;

impl Kernel for DeepCopyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        if x.dtype() == DType::Resource {
            return Err(unsupported(DType::Resource));
        }
        let y = x.deep_copy();
        ctx.set_output(0, y);
        Ok(())
    }
}

/// The inputs of a `ParallelConcat` copied into an output of `shape`, each input checked as
/// TensorFlow's `_ParallelConcatUpdate` checks its update (in input order); rows past the
/// inputs (a `shape` longer than the input count) are zero, where TensorFlow leaves them
/// uninitialized.
fn parallel_concat_rows<T: TensorType + Clone>(
    dims: &[usize],
    values: &[Tensor],
) -> Result<Tensor> {
    let out = format_dims(dims);
    if dims.is_empty() {
        return Err(Error::invalid_argument("value should be at least rank 1."));
    }
    let width: usize = dims[1..].iter().product();
    let mut data: Vec<T> = Vec::with_capacity(dims.iter().product());
    for (loc, u) in values.iter().enumerate() {
        let upd = format_dims(u.shape());
        if dims[0] <= loc {
            return Err(Error::invalid_argument(format!(
                "0th dimension of value = {} must be greater than loc_ = {loc}",
                dims[0]
            )));
        }
        if u.rank() != dims.len() {
            return Err(Error::invalid_argument(format!(
                "value and update shape doesn't match: {out} vs. {upd}"
            )));
        }
        if u.shape()[1..] != dims[1..] {
            return Err(Error::invalid_argument(format!(
                "value and update shape doesn't match {out} vs. {upd}"
            )));
        }
        if u.shape()[0] != 1 {
            return Err(Error::invalid_argument(format!(
                "update shape doesn't match: {upd}"
            )));
        }
        data.extend_from_slice(u.as_slice::<T>()?);
    }
    data.resize(dims[0] * width, T::zero());
    Tensor::from_vec(dims, data)
}

struct ParallelConcatKernel {
    dims: Vec<usize>,
}

impl Kernel for ParallelConcatKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dt = ctx.output_dtype(0);
        let y = weir_graph::match_data_dtype!(dt,
            T => parallel_concat_rows::<T>(&self.dims, ctx.inputs())?,
            _ => return Err(Error::invalid_argument(format!(
                "Unsupported data type: {}", dt.name()))));
        ctx.set_output(0, y);
        Ok(())
    }
}

fn parallel_concat_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let passed: Shape = ctx.attr("shape")?;
    let dims = match passed.dims() {
        Some(d) if passed.is_fully_defined() => d.to_vec(),
        _ => return Err(Error::invalid_argument("shape attr must be fully defined.")),
    };
    if dims.is_empty() {
        return Err(Error::invalid_argument(
            "Out of range dim_index 0 for shape with 0 dimensions",
        ));
    }
    let mut cur = Shape::new(dims[1..].to_vec()).with_leading(Some(1));
    for i in 0..ctx.num_inputs() {
        let s = ctx.input_shape(i).clone();
        if !s.is_fully_defined() {
            return Err(Error::invalid_argument(
                "All input shapes must be fully defined.",
            ));
        }
        if s.dim(0) != Some(1) || s.rank() == Some(0) {
            return Err(Error::invalid_argument(
                "Size of first dimension must be 1.",
            ));
        }
        cur = merge(&s, &cur).map_err(|e| {
            Error::invalid_argument(format!(
                "{}\n\tFrom merging shape {i} with other shapes.",
                e.message()
            ))
        })?;
    }
    ctx.set_output(0, passed);
    Ok(())
}

fn unchanged(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    for op in [InplaceOp::Update, InplaceOp::Add, InplaceOp::Sub] {
        register_op(
            OpDef::new(op.op_type())
                .input("x", ArgType::Attr("T"))
                .input("i", ArgType::Fixed(DType::I32))
                .input("v", ArgType::Attr("T"))
                .output("y", ArgType::Attr("T"))
                .type_attr("T", DType::ALL)
                .shape_fn(unchanged),
        );
    }
    register_kernel("InplaceUpdate", |_| {
        Ok(Box::new(InplaceKernel(InplaceOp::Update)))
    });
    register_kernel("InplaceAdd", |_| {
        Ok(Box::new(InplaceKernel(InplaceOp::Add)))
    });
    register_kernel("InplaceSub", |_| {
        Ok(Box::new(InplaceKernel(InplaceOp::Sub)))
    });
    register_op(
        OpDef::new("DeepCopy")
            .input("x", ArgType::Attr("T"))
            .output("y", ArgType::Attr("T"))
            .type_attr("T", DType::ALL)
            .stateful()
            .shape_fn(unchanged),
    );
    register_kernel("DeepCopy", |_| Ok(Box::new(DeepCopyKernel)));
    register_op(
        OpDef::new("ParallelConcat")
            .input(
                "values",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .output("output", ArgType::Attr("T"))
            .int_attr_min("N", 1)
            .type_attr("T", DType::ALL)
            .attr("shape", AttrKind::Shape, None)
            .shape_fn(parallel_concat_shape),
    );
    register_kernel("ParallelConcat", |node| {
        let shape: Shape = node.attr("shape")?;
        let dims = shape
            .to_known()
            .ok_or_else(|| Error::invalid_argument("shape attr must be fully defined."))?;
        Ok(Box::new(ParallelConcatKernel { dims }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_wrap_and_repeat() {
        assert_eq!([-1, 5, -5, 0].map(|i| wrap_row(i, 4)), [3, 1, 3, 0]);
        let x = Tensor::from_vec(&[3, 2], vec![1i8; 6]).unwrap();
        let v = Tensor::from_vec(&[2, 2], vec![127i8, 1, 2, 3]).unwrap();
        let y = combine_rows::<i8>(x.clone(), &[2, -1], &v, true).unwrap();
        // Row 2 twice: 1 + 127 wraps to -128, then + 2.
        assert_eq!(y.to_vec::<i8>().unwrap(), [1, 1, 1, 1, -126, 5]);
        let y = update_rows::<i8>(x, &[2, -1], &v).unwrap();
        assert_eq!(y.to_vec::<i8>().unwrap(), [1, 1, 1, 1, 2, 3]);
    }

    #[test]
    fn parallel_concat_pads_and_checks() {
        let a = Tensor::from_vec(&[1, 2], vec![1i32, 2]).unwrap();
        let y = parallel_concat_rows::<i32>(&[3, 2], &[a.clone(), a.clone()]).unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), [1, 2, 1, 2, 0, 0]);
        let e = parallel_concat_rows::<i32>(&[1, 2], &[a.clone(), a]).unwrap_err();
        assert_eq!(
            e.message(),
            "0th dimension of value = 1 must be greater than loc_ = 1"
        );
    }
}
