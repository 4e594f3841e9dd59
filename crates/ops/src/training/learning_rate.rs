//! Learning-rate schedule kernels: weir's fused `ExponentialDecay` and `PiecewiseConstant`
//! (TensorFlow builds both from cast, div, floor, pow and case ops; each is one node here,
//! computing TensorFlow's expression in the learning rate's dtype).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result,
    Shape, Tensor, TensorType,
};

use crate::nn::{match_float, NnFloat};

/// weir's `ExponentialDecay(learning_rate, global_step, decay_steps, decay_rate)`:
/// `learning_rate * decay_rate ^ (global_step / decay_steps)`, the exponent floored when
/// `staircase`; every input is cast to the learning rate's dtype first, as TensorFlow does.
pub fn exponential_decay_op(
    learning_rate: impl Into<Output>,
    global_step: impl Into<Output>,
    decay_steps: impl Into<Output>,
    decay_rate: impl Into<Output>,
    staircase: bool,
    name: &str,
) -> Result<Output> {
    let (lr, step, steps, rate) = (
        learning_rate.into(),
        global_step.into(),
        decay_steps.into(),
        decay_rate.into(),
    );
    let g = crate::util::same_graph(&[&lr, &step, &steps, &rate])?.clone();
    crate::new_op(&g, "ExponentialDecay")
        .name(name)
        .input(lr)
        .input(step)
        .input(steps)
        .input(rate)
        .attr("staircase", staircase)
        .build()?
        .output(0)
}

/// weir's `PiecewiseConstant(x, boundaries, values)`: `values[0]` while `x <= boundaries[0]`,
/// `values[i]` while `boundaries[i-1] < x <= boundaries[i]`, the last value past the last
/// boundary (`tf.train.piecewise_constant`).
pub fn piecewise_constant_op(
    x: impl Into<Output>,
    boundaries: impl Into<Output>,
    values: impl Into<Output>,
    name: &str,
) -> Result<Output> {
    let (x, b, v) = (x.into(), boundaries.into(), values.into());
    let g = crate::util::same_graph(&[&x, &b, &v])?.clone();
    crate::new_op(&g, "PiecewiseConstant")
        .name(name)
        .input(x)
        .input(b)
        .input(v)
        .build()?
        .output(0)
}

/// A real-number scalar of any dtype as `T` (TensorFlow's `cast`).
fn scalar_as<T: NnFloat>(t: &Tensor, what: &str) -> Result<T> {
    let dt = t.dtype();
    if !dt.is_numeric() {
        return Err(Error::invalid_argument(format!(
            "{what} must be a number, got {dt}"
        )));
    }
    let v: f64 = crate::math::cast::cast_tensor(t, DType::F64)?.to_scalar::<f64>()?;
    T::from(v).ok_or_else(|| Error::invalid_argument(format!("{what} {v} does not fit")))
}

struct DecayKernel {
    staircase: bool,
}

fn decay<T: NnFloat>(staircase: bool, ctx: &OpContext<'_>) -> Result<Tensor> {
    let lr = ctx.input(0).to_scalar::<T>()?;
    let step = scalar_as::<T>(ctx.input(1), "global_step")?;
    let steps = scalar_as::<T>(ctx.input(2), "decay_steps")?;
    let rate = scalar_as::<T>(ctx.input(3), "decay_rate")?;
    let mut p = step / steps;
    if staircase {
        p = p.floor();
    }
    Ok(Tensor::scalar(lr * rate.powf(p)))
}

impl Kernel for DecayKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = match_float!(ctx.input(0).dtype(), T => decay::<T>(self.staircase, ctx)?);
        ctx.set_output(0, out);
        Ok(())
    }
}

struct PiecewiseKernel;

fn pick<X: TensorType + PartialOrd + Copy>(x: &Tensor, b: &Tensor) -> Result<usize> {
    let x = x.to_scalar::<X>()?;
    let b = b.as_slice::<X>()?;
    // The first boundary not below x; past all of them, the last value.
    Ok(b.iter().position(|&v| x <= v).unwrap_or(b.len()))
}

impl Kernel for PiecewiseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, b, v) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if b.rank() != 1 || v.rank() != 1 || v.shape()[0] != b.shape()[0] + 1 {
            return Err(Error::invalid_argument(
                "The length of boundaries should be 1 less than the length of values",
            ));
        }
        let dt = x.dtype();
        let i = weir_graph::match_real_dtype!(dt, X => pick::<X>(x, b)?,
            _ => return Err(Error::invalid_argument(format!("x must be a number, got {dt}"))));
        let out = v.slice_axis0(i, i + 1)?.reshape(&[])?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_decay(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(DecayKernel {
        staircase: node.attr("staircase")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("ExponentialDecay")
            .input("learning_rate", ArgType::Attr("T"))
            .input("global_step", ArgType::Attr("Tstep"))
            .input("decay_steps", ArgType::Attr("Tsteps"))
            .input("decay_rate", ArgType::Attr("Trate"))
            .output("decayed_learning_rate", ArgType::Attr("T"))
            .type_attr("T", DType::FLOAT)
            .type_attr("Tstep", DType::REAL_NUMBER)
            .type_attr("Tsteps", DType::REAL_NUMBER)
            .type_attr("Trate", DType::REAL_NUMBER)
            .attr("staircase", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("ExponentialDecay", make_decay);
    register_op(
        OpDef::new("PiecewiseConstant")
            .input("x", ArgType::Attr("Tx"))
            .input("boundaries", ArgType::Attr("Tx"))
            .input("values", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("Tx", DType::REAL_NUMBER)
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("PiecewiseConstant", |_| Ok(Box::new(PiecewiseKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piecewise_picks_by_upper_inclusive_boundaries() {
        let b = Tensor::from(vec![100i64, 200]);
        let at = |x: i64| pick::<i64>(&Tensor::from(x), &b).unwrap();
        assert_eq!(at(0), 0);
        assert_eq!(at(100), 0);
        assert_eq!(at(101), 1);
        assert_eq!(at(200), 1);
        assert_eq!(at(201), 2);
    }
}
