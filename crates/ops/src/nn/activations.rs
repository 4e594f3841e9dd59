//! Elementwise activations and their backward kernels: `Relu`, `Relu6`, `Elu`, `LeakyRelu`,
//! `ReluGrad`, `Relu6Grad`, `EluGrad`, `LeakyReluGrad`.

use num_traits::{NumCast, Zero};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result,
};

use super::{
    map_in_place, match_float_or_half, merge_inputs01, same_as_input0, zip_in_place, NnFloat,
};

fn unary(op: &str, x: Output) -> Result<Output> {
    crate::new_op(&x.graph().clone(), op)
        .input(x)
        .build()?
        .output(0)
}

fn binary(op: &str, a: Output, b: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    crate::new_op(&g, op).input(a).input(b).build()?.output(0)
}

/// `tf.nn.relu(features)`: `max(features, 0)`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, nn::relu};
/// let g = Graph::new();
/// let y = relu(constant(&g, [-1.0f32, 2.0])?)?;
/// assert_eq!(y.op().op_type(), "Relu");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn relu(features: impl Into<Output>) -> Result<Output> {
    unary("Relu", features.into())
}

/// `tf.nn.relu6(features)`: `min(max(features, 0), 6)`.
pub fn relu6(features: impl Into<Output>) -> Result<Output> {
    unary("Relu6", features.into())
}

/// `tf.nn.elu(features)`: `exp(features) - 1` where negative, `features` elsewhere.
pub fn elu(features: impl Into<Output>) -> Result<Output> {
    unary("Elu", features.into())
}

/// `tf.nn.leaky_relu(features)` with TensorFlow's default `alpha=0.2`.
pub fn leaky_relu(features: impl Into<Output>) -> Result<Output> {
    leaky_relu_with_alpha(features, 0.2)
}

/// `tf.nn.leaky_relu(features, alpha)`: `features` where positive, `alpha * features` elsewhere.
pub fn leaky_relu_with_alpha(features: impl Into<Output>, alpha: f32) -> Result<Output> {
    let x = features.into();
    crate::new_op(&x.graph().clone(), "LeakyRelu")
        .input(x)
        .attr("alpha", alpha)
        .build()?
        .output(0)
}

/// `tf.nn.sigmoid(x)`: `1 / (1 + exp(-x))` (the math family's `Sigmoid` op).
pub fn sigmoid(x: impl Into<Output>) -> Result<Output> {
    crate::math::sigmoid(x)
}

/// `tf.nn.tanh(x)` (the math family's `Tanh` op).
pub fn tanh(x: impl Into<Output>) -> Result<Output> {
    crate::math::tanh(x)
}

/// TensorFlow's `ReluGrad(gradients, features)`: `gradients` where `features > 0`, else 0.
pub fn relu_grad(gradients: impl Into<Output>, features: impl Into<Output>) -> Result<Output> {
    binary("ReluGrad", gradients.into(), features.into())
}

/// TensorFlow's `Relu6Grad(gradients, features)`: `gradients` where `0 < features < 6`.
pub fn relu6_grad(gradients: impl Into<Output>, features: impl Into<Output>) -> Result<Output> {
    binary("Relu6Grad", gradients.into(), features.into())
}

/// TensorFlow's `EluGrad(gradients, outputs)`: takes the Elu's *outputs*:
/// `gradients * (outputs + 1)` where `outputs < 0`, else `gradients`.
pub fn elu_grad(gradients: impl Into<Output>, outputs: impl Into<Output>) -> Result<Output> {
    binary("EluGrad", gradients.into(), outputs.into())
}

/// TensorFlow's `LeakyReluGrad(gradients, features, alpha)`.
pub fn leaky_relu_grad(
    gradients: impl Into<Output>,
    features: impl Into<Output>,
    alpha: f32,
) -> Result<Output> {
    let (a, b) = (gradients.into(), features.into());
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    crate::new_op(&g, "LeakyReluGrad")
        .input(a)
        .input(b)
        .attr("alpha", alpha)
        .build()?
        .output(0)
}

#[derive(Clone, Copy)]
enum Act {
    Relu,
    Relu6,
    Elu,
    Leaky(f64),
}

/// The forward function of `act` at `x`, TensorFlow's formulas.
pub(crate) fn forward<T: NnFloat>(act: ActKind, x: T) -> T {
    let zero = T::ZERO;
    match act.0 {
        Act::Relu => {
            if x > zero {
                x
            } else {
                zero
            }
        }
        Act::Relu6 => {
            let six = T::from(6.0).unwrap_or(zero);
            if x > zero {
                if x < six {
                    x
                } else {
                    six
                }
            } else {
                zero
            }
        }
        Act::Elu => {
            if x < zero {
                x.exp() - T::ONE
            } else {
                x
            }
        }
        Act::Leaky(alpha) => {
            if x > zero {
                x
            } else {
                x * T::from(alpha).unwrap_or(zero)
            }
        }
    }
}

/// An activation, as the kernels dispatch on it.
#[derive(Clone, Copy)]
pub(crate) struct ActKind(Act);

struct ActKernel(ActKind);

impl Kernel for ActKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let k = self.0;
        let dt = x.dtype();
        let out = match k.0 {
            // The integer Relu and Relu6 kernels (their op defs take no integers for the rest).
            Act::Relu | Act::Relu6 if dt.is_integer() => {
                let six = matches!(k.0, Act::Relu6);
                weir_graph::match_real_dtype!(dt,
                    T => map_in_place::<T>(x, |v| clamp(v, six))?,
                    _ => return Err(Error::internal(format!("{dt} is not an integer type"))))
            }
            _ => match_float_or_half!(dt, T => map_in_place::<T>(x, |v| forward(k, v))?),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum GradKind {
    Relu,
    Relu6,
    Elu,
    Leaky(f64),
}

/// Relu (`max(x, 0)`) or Relu6 (also `min(_, 6)`) of an integer.
fn clamp<T: PartialOrd + Copy + NumCast + Zero>(x: T, relu6: bool) -> T {
    let x = if x > T::zero() { x } else { T::zero() };
    match T::from(6) {
        Some(six) if relu6 && x > six => six,
        _ => x,
    }
}

/// ReluGrad or Relu6Grad of integers: `g` where `0 < x` (and `x < 6` for Relu6), else 0.
fn clamp_grad<T: PartialOrd + Copy + NumCast + Zero>(g: T, x: T, relu6: bool) -> T {
    let below_six = T::from(6).is_none_or(|six| x < six);
    if x > T::zero() && (!relu6 || below_six) {
        g
    } else {
        T::zero()
    }
}

fn backward<T: NnFloat>(kind: GradKind, g: T, x: T) -> T {
    let zero = T::ZERO;
    match kind {
        GradKind::Relu => {
            if x > zero {
                g
            } else {
                zero
            }
        }
        GradKind::Relu6 => {
            if x > zero && x < T::from(6.0).unwrap_or(zero) {
                g
            } else {
                zero
            }
        }
        GradKind::Elu => {
            if x < zero {
                (x + T::ONE) * g
            } else {
                g
            }
        }
        GradKind::Leaky(alpha) => {
            if x > zero {
                g
            } else {
                g * T::from(alpha).unwrap_or(zero)
            }
        }
    }
}

struct GradKernel(GradKind, &'static str);

impl Kernel for GradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let g = ctx.take_input(0);
        let x = ctx.input(1);
        let k = self.0;
        let dt = g.dtype();
        let out = match k {
            GradKind::Relu | GradKind::Relu6 if dt.is_integer() => {
                let six = matches!(k, GradKind::Relu6);
                weir_graph::match_real_dtype!(dt,
                    T => zip_in_place::<T>(g, x, self.1, |a, b| clamp_grad(a, b, six))?,
                    _ => return Err(Error::internal(format!("{dt} is not an integer type"))))
            }
            _ => {
                match_float_or_half!(dt, T => zip_in_place::<T>(g, x, self.1, |a, b| backward(k, a, b))?)
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_act(node: &Node) -> Result<Box<dyn Kernel>> {
    let act = match node.op_type() {
        "Relu" => Act::Relu,
        "Relu6" => Act::Relu6,
        "Elu" => Act::Elu,
        "LeakyRelu" => Act::Leaky(node.attr::<f32>("alpha")? as f64),
        other => return Err(Error::internal(format!("not an nn activation: {other}"))),
    };
    Ok(Box::new(ActKernel(ActKind(act))))
}

fn make_grad(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(match node.op_type() {
        "ReluGrad" => GradKernel(GradKind::Relu, "ReluGrad"),
        "Relu6Grad" => GradKernel(GradKind::Relu6, "Relu6Grad"),
        "EluGrad" => GradKernel(GradKind::Elu, "EluGrad"),
        _ => GradKernel(
            GradKind::Leaky(node.attr::<f32>("alpha")? as f64),
            "LeakyReluGrad",
        ),
    }))
}

/// The types TensorFlow's op defs give an activation or its gradient: Relu and Relu6 (with
/// their gradients) take every real type, the rest the floating types.
fn act_types(op: &str) -> &'static [DType] {
    match op {
        "Relu" | "Relu6" | "ReluGrad" | "Relu6Grad" => DType::REAL_AND_HALF,
        _ => super::HALF_FLOATS,
    }
}

pub(super) fn register() {
    for name in ["Relu", "Relu6", "Elu", "LeakyRelu"] {
        let mut def = OpDef::new(name)
            .input("features", ArgType::Attr("T"))
            .output("activations", ArgType::Attr("T"))
            .type_attr("T", act_types(name))
            .shape_fn(same_as_input0);
        if name == "LeakyRelu" {
            def = def.attr("alpha", AttrKind::Float, Some(AttrValue::Float(0.2)));
        }
        register_op(def);
        register_kernel(name, make_act);
    }
    for (name, second) in [
        ("ReluGrad", "features"),
        ("Relu6Grad", "features"),
        ("EluGrad", "outputs"),
        ("LeakyReluGrad", "features"),
    ] {
        let mut def = OpDef::new(name)
            .input("gradients", ArgType::Attr("T"))
            .input(second, ArgType::Attr("T"))
            .output("backprops", ArgType::Attr("T"))
            .type_attr("T", act_types(name))
            .shape_fn(merge_inputs01);
        if name == "LeakyReluGrad" {
            def = def.attr("alpha", AttrKind::Float, Some(AttrValue::Float(0.2)));
        }
        register_op(def);
        register_kernel(name, make_grad);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_formulas() {
        let f = |a: Act, x: f64| forward(ActKind(a), x);
        assert_eq!(f(Act::Relu, -1.0), 0.0);
        assert_eq!(f(Act::Relu, 2.0), 2.0);
        assert_eq!(f(Act::Relu6, 7.0), 6.0);
        assert_eq!(f(Act::Relu6, 3.0), 3.0);
        assert_eq!(f(Act::Relu6, -3.0), 0.0);
        assert!((f(Act::Elu, -1.0) - (-1.0f64).exp_m1()).abs() < 1e-15);
        assert_eq!(f(Act::Elu, 1.5), 1.5);
        assert!((f(Act::Leaky(0.2), -2.0) + 0.4).abs() < 1e-12);
    }

    #[test]
    fn backward_masks() {
        assert_eq!(backward(GradKind::Relu, 3.0f32, 0.0), 0.0);
        assert_eq!(backward(GradKind::Relu, 3.0f32, 0.1), 3.0);
        assert_eq!(backward(GradKind::Relu6, 3.0f32, 6.0), 0.0);
        assert_eq!(backward(GradKind::Relu6, 3.0f32, 5.9), 3.0);
        assert_eq!(backward(GradKind::Elu, 2.0f32, -0.5), 1.0);
        assert_eq!(backward(GradKind::Leaky(0.5), 2.0f64, -1.0), 1.0);
    }
}
