//! `AddN` (real, half and complex), `Range`, and the composite `clip_by_value`, plus
//! [`Operand`], which lets builders take Rust numbers where TensorFlow's Python layer takes
//! them.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, format_dims, scalar_of, ArgType, Complex, DType, Error, Graph, InferenceContext,
    Kernel, OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::bcast::{is_unique, Bcast};
use super::binary::Arith;

/// A builder argument that is a graph tensor or a number; a number becomes a constant of the
/// dtype of the tensor it combines with, as Python's `tf.clip_by_value(x, 0, 6)` converts it.
pub trait Operand {
    /// This operand as a tensor of `like`'s graph.
    fn to_output(self, like: &Output) -> Result<Output>;
}

impl Operand for Output {
    fn to_output(self, _: &Output) -> Result<Output> {
        Ok(self)
    }
}

impl Operand for &Output {
    fn to_output(self, _: &Output) -> Result<Output> {
        Ok(self.clone())
    }
}

macro_rules! number_operands {
    ($($t:ty),*) => {$(
        impl Operand for $t {
            fn to_output(self, like: &Output) -> Result<Output> {
                crate::array::constant(like.graph(), scalar_of(like.dtype(), self as f64)?)
            }
        }
    )*};
}
number_operands!(f32, f64, i32, i64);

/// `tf.clip_by_value(t, clip_value_min, clip_value_max)`: `maximum(minimum(t, max), min)` in a
/// `clip_by_value` name scope; the clip values may not broadcast `t` to a larger shape.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::clip_by_value};
/// let g = Graph::new();
/// let y = clip_by_value(&constant(&g, [-1.0f32, 0.5, 9.0])?, 0.0, 6.0)?;
/// // Evaluates to [0.0, 0.5, 6.0].
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn clip_by_value(
    t: &Output,
    clip_value_min: impl Operand,
    clip_value_max: impl Operand,
) -> Result<Output> {
    let g = t.graph().clone();
    let _scope = g.name_scope("clip_by_value");
    let lo = clip_value_min.to_output(t)?;
    let hi = clip_value_max.to_output(t)?;
    let t_min = super::minimum(t, &hi)?;
    check_clip_shape(t, &t_min)?;
    let t_max = super::maximum(&t_min, &lo)?;
    check_clip_shape(t, &t_max)?;
    Ok(t_max)
}

fn check_clip_shape(t: &Output, r: &Output) -> Result<()> {
    let (a, b) = (t.shape(), r.shape());
    if a.is_compatible_with(&b) {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "Shapes {a} and {b} are incompatible"
        )))
    }
}

/// `tf.add_n(inputs)`: the elementwise sum of tensors of one shape and dtype (no broadcasting).
pub fn add_n(inputs: &[Output]) -> Result<Output> {
    let g = crate::util::same_graph(&inputs.iter().collect::<Vec<_>>())?.clone();
    crate::new_op(&g, "AddN").inputs(inputs).build()?.output(0)
}

/// `tf.range(start, limit, delta)` of constants: `start, start + delta, ...` up to but not
/// including `limit`, of `T`'s dtype (float32, float64, int32 or int64).
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// let g = Graph::new();
/// let r = weir_ops::math::range(&g, 0i32, 10, 3)?;
/// assert_eq!(r.shape(), Shape::known(&[4]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn range<T: TensorType>(g: &Graph, start: T, limit: T, delta: T) -> Result<Output> {
    let _scope = g.name_scope("range");
    let s = crate::array::constant_named(g, Tensor::scalar(start), "start")?;
    let l = crate::array::constant_named(g, Tensor::scalar(limit), "limit")?;
    let d = crate::array::constant_named(g, Tensor::scalar(delta), "delta")?;
    range_from(&s, &l, &d)
}

/// `tf.range(start, limit, delta)` of scalar tensors computed by the graph.
pub fn range_from(start: &Output, limit: &Output, delta: &Output) -> Result<Output> {
    let g = crate::util::same_graph(&[start, limit, delta])?.clone();
    crate::new_op(&g, "Range")
        .input(start)
        .input(limit)
        .input(delta)
        .build()?
        .output(0)
}

/// A number type `Range` counts in.
trait RangeNum: TensorType + Copy + PartialOrd + std::fmt::Display {
    /// The number of elements, or None when it does not fit.
    fn size(start: Self, limit: Self, delta: Self) -> Option<usize>;
    fn step(v: Self, d: Self) -> Self;
}

macro_rules! int_range {
    ($($t:ty),*) => {$(
        impl RangeNum for $t {
            fn size(start: Self, limit: Self, delta: Self) -> Option<usize> {
                let (span, d) = ((limit as i128 - start as i128).abs(), (delta as i128).abs());
                usize::try_from((span + d - 1) / d).ok()
            }
            fn step(v: Self, d: Self) -> Self { v.wrapping_add(d) }
        }
    )*};
}
int_range!(i32, i64);

macro_rules! float_range {
    ($($t:ty),*) => {$(
        impl RangeNum for $t {
            fn size(start: Self, limit: Self, delta: Self) -> Option<usize> {
                let n = ((limit - start) / delta).abs().ceil();
                if n.is_finite() && n < usize::MAX as $t { Some(n as usize) } else { None }
            }
            fn step(v: Self, d: Self) -> Self { v + d }
        }
    )*};
}
float_range!(f32, f64);

fn range_size<T: RangeNum>(start: T, limit: T, delta: T) -> Result<usize> {
    if delta == T::zero() {
        return Err(Error::invalid_argument(format!(
            "Requires delta != 0: {delta}"
        )));
    }
    if delta > T::zero() && start > limit {
        return Err(Error::invalid_argument(format!(
            "Requires start <= limit when delta > 0: {start}/{limit}"
        )));
    }
    if delta < T::zero() && start < limit {
        return Err(Error::invalid_argument(format!(
            "Requires start >= limit when delta < 0: {start}/{limit}"
        )));
    }
    T::size(start, limit, delta)
        .ok_or_else(|| Error::invalid_argument("Requires ((limit - start) / delta) <= 2**63 - 1"))
}

fn range_values<T: RangeNum>(start: &Tensor, limit: &Tensor, delta: &Tensor) -> Result<Tensor> {
    for (t, what) in [(start, "start"), (limit, "limit"), (delta, "delta")] {
        if t.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "{what} must be a scalar, not shape {}",
                format_dims(t.shape())
            )));
        }
    }
    let (s, l, d) = (
        start.to_scalar::<T>()?,
        limit.to_scalar::<T>()?,
        delta.to_scalar::<T>()?,
    );
    let n = range_size(s, l, d)?;
    let mut v = Vec::with_capacity(n);
    let mut x = s;
    for _ in 0..n {
        v.push(x);
        x = T::step(x, d);
    }
    Tensor::from_vec(&[n], v)
}

fn range_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let consts = (ctx.input_const(0), ctx.input_const(1), ctx.input_const(2));
    let n = match consts {
        (Some(s), Some(l), Some(d)) => Some(
            match s.dtype() {
                DType::I32 => range_values::<i32>(s, l, d),
                DType::I64 => range_values::<i64>(s, l, d),
                DType::F32 => range_values::<f32>(s, l, d),
                DType::F64 => range_values::<f64>(s, l, d),
                dt => Err(Error::invalid_argument(format!(
                    "Range does not support {dt}"
                ))),
            }?
            .num_elements(),
        ),
        _ => None,
    };
    ctx.set_output(0, Shape::new(vec![n]));
    Ok(())
}

struct RangeKernel;

impl Kernel for RangeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (s, l, d) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let out = match s.dtype() {
            DType::I32 => range_values::<i32>(s, l, d)?,
            DType::I64 => range_values::<i64>(s, l, d)?,
            DType::F32 => range_values::<f32>(s, l, d)?,
            DType::F64 => range_values::<f64>(s, l, d)?,
            dt => {
                return Err(Error::invalid_argument(format!(
                    "Range does not support {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's error unless every input has the shape of the first.
fn check_same_shapes(inputs: &[Tensor]) -> Result<()> {
    let shape = inputs[0].shape();
    for (i, t) in inputs.iter().enumerate().skip(1) {
        if t.shape() != shape {
            return Err(Error::invalid_argument(format!(
                "Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: {} != input {i}: {}",
                format_dims(shape),
                format_dims(t.shape())
            )));
        }
    }
    Ok(())
}

/// The sum `((in0 + in1) + in2) + ...` in TensorFlow's order, which decides the rounding of the
/// half types (each addition rounds) and of complex sums: into `in0` when no one else holds it.
fn add_in_order<T: TensorType + Copy>(
    mut inputs: Vec<Tensor>,
    add: impl Fn(T, T) -> T,
) -> Result<Tensor> {
    check_same_shapes(&inputs)?;
    let first = inputs.remove(0);
    let mut acc = if is_unique::<T>(&first) || inputs.is_empty() {
        first
    } else {
        let second = inputs.remove(0);
        let (a, b) = (first.as_slice::<T>()?, second.as_slice::<T>()?);
        Tensor::from_vec(
            first.shape(),
            a.iter().zip(b).map(|(&p, &q)| add(p, q)).collect(),
        )?
    };
    let out = acc.as_slice_mut::<T>()?;
    for t in &inputs {
        for (o, &v) in out.iter_mut().zip(t.as_slice::<T>()?) {
            *o = add(*o, v);
        }
    }
    Ok(acc)
}

fn add_all<T: Arith>(mut inputs: Vec<Tensor>) -> Result<Tensor> {
    check_same_shapes(&inputs)?;
    let shape = inputs[0].shape().to_vec();
    if inputs.len() == 1 {
        return Ok(inputs.remove(0));
    }
    // Accumulate into an input no one else holds, or into one new buffer.
    let mut acc = match inputs.iter().position(is_unique::<T>) {
        Some(p) => inputs.remove(p),
        None => {
            let (a, b) = (inputs.remove(0), inputs.remove(0));
            let bc = Bcast::new(a.shape(), b.shape())?;
            let sum = bc.map(a.as_slice::<T>()?, b.as_slice::<T>()?, |&p, &q| {
                T::add(p, q)
            });
            Tensor::from_vec(&shape, sum)?
        }
    };
    let out = acc.as_slice_mut::<T>()?;
    for t in &inputs {
        for (o, &v) in out.iter_mut().zip(t.as_slice::<T>()?) {
            *o = T::add(*o, v);
        }
    }
    Ok(acc)
}

struct AddNKernel;

impl Kernel for AddNKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs: Vec<Tensor> = (0..ctx.num_inputs()).map(|i| ctx.take_input(i)).collect();
        let dt = inputs[0].dtype();
        let out = match dt {
            DType::F16 => add_in_order(inputs, <f16 as Arith>::add)?,
            DType::BF16 => add_in_order(inputs, <bf16 as Arith>::add)?,
            DType::C64 => add_in_order(inputs, |a: Complex<f32>, b| a + b)?,
            DType::C128 => add_in_order(inputs, |a: Complex<f64>, b| a + b)?,
            _ => weir_graph::match_real_dtype!(dt, T => add_all::<T>(inputs)?,
                _ => return Err(Error::invalid_argument(format!("AddN does not support {dt}")))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn add_n_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let mut s = ctx.input_shape(0).clone();
    for i in 1..ctx.num_inputs() {
        let next = ctx.input_shape(i);
        s = s.merge_with(next).map_err(|_| {
            Error::invalid_argument(format!(
                "Shapes must be equal for 'AddN', but input 0 has shape {} and input {i} has shape {next}",
                ctx.input_shape(0)
            ))
        })?;
    }
    ctx.set_output(0, s);
    Ok(())
}

/// `AddN`'s number types: every real one, the half and the complex types.
const ADD_N_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I32,
    DType::U8,
    DType::I16,
    DType::I8,
    DType::C64,
    DType::I64,
    DType::BF16,
    DType::U16,
    DType::C128,
    DType::F16,
    DType::U32,
    DType::U64,
];

pub(super) fn register() {
    register_op(
        OpDef::new("AddN")
            .input(
                "inputs",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .output("sum", ArgType::Attr("T"))
            .int_attr_min("N", 1)
            .type_attr("T", ADD_N_TYPES)
            .shape_fn(add_n_shape_fn),
    );
    register_kernel("AddN", |_| Ok(Box::new(AddNKernel)));
    register_op(
        OpDef::new("Range")
            .input("start", ArgType::Attr("Tidx"))
            .input("limit", ArgType::Attr("Tidx"))
            .input("delta", ArgType::Attr("Tidx"))
            .output("output", ArgType::Attr("Tidx"))
            .type_attr("Tidx", &[DType::F32, DType::F64, DType::I32, DType::I64])
            .shape_fn(range_shape_fn),
    );
    register_kernel("Range", |_| Ok(Box::new(RangeKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r<T: RangeNum>(s: T, l: T, d: T) -> Result<Vec<T>> {
        range_values::<T>(&Tensor::scalar(s), &Tensor::scalar(l), &Tensor::scalar(d))?.to_vec::<T>()
    }

    #[test]
    fn range_sizes_and_errors() {
        assert_eq!(r(0i32, 10, 3).unwrap(), vec![0, 3, 6, 9]);
        assert_eq!(r(5i64, 0, -2).unwrap(), vec![5, 3, 1]);
        assert_eq!(r(0i32, 0, 1).unwrap(), Vec::<i32>::new());
        assert_eq!(r(0.0f32, 1.0, 0.25).unwrap(), vec![0.0, 0.25, 0.5, 0.75]);
        assert_eq!(r(1.0f64, 2.1, 0.5).unwrap().len(), 3);
        assert_eq!(
            r(0i32, 1, 0).unwrap_err().message(),
            "Requires delta != 0: 0"
        );
        assert_eq!(
            r(5i32, 1, 1).unwrap_err().message(),
            "Requires start <= limit when delta > 0: 5/1"
        );
        assert_eq!(
            r(1i32, 5, -1).unwrap_err().message(),
            "Requires start >= limit when delta < 0: 1/5"
        );
    }

    #[test]
    fn add_n_checks_shapes_and_reuses_a_buffer() {
        let a = Tensor::from(vec![1i32, 2]);
        let keep = a.clone();
        let b = Tensor::from(vec![10i32, 20]);
        let b_ptr = b.as_slice::<i32>().unwrap().as_ptr();
        let c = Tensor::from(vec![100i32, 200]);
        let s = add_all::<i32>(vec![a, b, c]).unwrap();
        assert_eq!(s.to_vec::<i32>().unwrap(), vec![111, 222]);
        assert_eq!(s.as_slice::<i32>().unwrap().as_ptr(), b_ptr);
        assert_eq!(keep.to_vec::<i32>().unwrap(), vec![1, 2]);
        let e = add_all::<i32>(vec![Tensor::from(vec![1i32]), Tensor::from(vec![1i32, 2])])
            .unwrap_err();
        assert!(
            e.message().contains("must have the same size and shape"),
            "{e}"
        );
    }
}
