//! The smooth activations of `tf.nn` and their backward kernels: `Softplus`, `Softsign`,
//! `Selu`, `SoftplusGrad`, `SoftsignGrad`, `SeluGrad`, and the composite `tf.nn.crelu`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, Error, Kernel, Node, OpContext, OpDef, Output, Result};

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

/// `tf.nn.softplus(features)`: `log(exp(features) + 1)`, without overflow or underflow (op
/// `Softplus`).
pub fn softplus(features: impl Into<Output>) -> Result<Output> {
    unary("Softplus", features.into())
}

/// `tf.nn.softsign(features)`: `features / (|features| + 1)` (op `Softsign`).
pub fn softsign(features: impl Into<Output>) -> Result<Output> {
    unary("Softsign", features.into())
}

/// `tf.nn.selu(features)`: `scale * features` where positive, `scale * alpha * (exp(features)
/// - 1)` elsewhere, with the self-normalizing constants (op `Selu`).
pub fn selu(features: impl Into<Output>) -> Result<Output> {
    unary("Selu", features.into())
}

/// TensorFlow's `SoftplusGrad(gradients, features)`: `gradients / (exp(-features) + 1)`.
pub fn softplus_grad(gradients: impl Into<Output>, features: impl Into<Output>) -> Result<Output> {
    binary("SoftplusGrad", gradients.into(), features.into())
}

/// TensorFlow's `SoftsignGrad(gradients, features)`: `gradients / (|features| + 1)²`.
pub fn softsign_grad(gradients: impl Into<Output>, features: impl Into<Output>) -> Result<Output> {
    binary("SoftsignGrad", gradients.into(), features.into())
}

/// TensorFlow's `SeluGrad(gradients, outputs)`: takes the Selu's *outputs*:
/// `gradients * (outputs + scale * alpha)` where `outputs < 0`, else `gradients * scale`.
pub fn selu_grad(gradients: impl Into<Output>, outputs: impl Into<Output>) -> Result<Output> {
    binary("SeluGrad", gradients.into(), outputs.into())
}

/// `tf.nn.crelu(features)`: `relu(concat([features, -features], -1))`, the positive and
/// negative parts side by side on the last axis.
pub fn crelu(features: impl Into<Output>) -> Result<Output> {
    crelu_with_axis(features, -1)
}

/// `tf.nn.crelu(features, axis)`: built as TensorFlow builds it, in scope `CRelu`: a `Neg`,
/// the `ConcatV2` named after the scope, and a `Relu`.
pub fn crelu_with_axis(features: impl Into<Output>, axis: i32) -> Result<Output> {
    let x = features.into();
    let g = x.graph().clone();
    let scope = g.name_scope("CRelu");
    let neg = crate::math::neg(&x)?;
    let axis = crate::array::constant_named(&g, axis, "axis")?;
    let c = crate::new_op(&g, "ConcatV2")
        .name(scope.prefix())
        .input(x)
        .input(neg)
        .input(axis)
        .build()?
        .output(0)?;
    super::relu(c)
}

/// `scale` and `scale * alpha` of SELU (Klambauer et al. 2017), as TensorFlow's kernel has them.
const SELU_SCALE: f64 = 1.0507009873554804934193349852946;
const SELU_SCALE_ALPHA: f64 = 1.7580993408473768599402175208123;

#[derive(Clone, Copy)]
enum Kind {
    Softplus,
    Softsign,
    Selu,
}

/// Softplus's switch points `+-(log(eps) + 2)`: beyond them softplus is `x` or `exp(x)` to
/// within machine precision, and `exp` would overflow or `log1p` add nothing.
fn softplus_threshold<T: NnFloat>() -> T {
    // TensorFlow takes epsilon from Eigen's NumTraits, which gives float16 2^-13 (not the
    // IEEE 2^-10): its float16 switch points are +-7.0078.
    let eps = if T::DTYPE == weir_graph::DType::F16 {
        T::from(2f32.powi(-13)).unwrap_or_else(T::epsilon)
    } else {
        T::epsilon()
    };
    eps.ln() + T::from(2.0).unwrap_or(T::ONE)
}

/// The activation at `x`; `threshold` is [`softplus_threshold`], computed once per kernel.
fn forward<T: NnFloat>(kind: Kind, x: T, threshold: T) -> T {
    match kind {
        Kind::Softplus => {
            if x > -threshold {
                x
            } else if x < threshold {
                x.exp()
            } else {
                x.exp().ln_1p()
            }
        }
        Kind::Softsign => x / (x.abs() + T::ONE),
        Kind::Selu => {
            if x < T::ZERO {
                T::from(SELU_SCALE_ALPHA).unwrap_or(T::ONE) * (x.exp() - T::ONE)
            } else {
                T::from(SELU_SCALE).unwrap_or(T::ONE) * x
            }
        }
    }
}

/// The backward kernels: `g` the incoming gradient, `v` the features (the outputs for Selu).
fn backward<T: NnFloat>(kind: Kind, g: T, v: T) -> T {
    match kind {
        Kind::Softplus => g / ((-v).exp() + T::ONE),
        Kind::Softsign => {
            let d = v.abs() + T::ONE;
            g / (d * d)
        }
        Kind::Selu => {
            if v < T::ZERO {
                g * (v + T::from(SELU_SCALE_ALPHA).unwrap_or(T::ONE))
            } else {
                g * T::from(SELU_SCALE).unwrap_or(T::ONE)
            }
        }
    }
}

struct ForwardKernel(Kind);

impl Kernel for ForwardKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let k = self.0;
        let out = match_float_or_half!(x.dtype(), T => {
            let t = softplus_threshold::<T>();
            map_in_place::<T>(x, |v| forward(k, v, t))?
        });
        ctx.set_output(0, out);
        Ok(())
    }
}

/// A backward kernel: its kind, op type and node name (for TensorFlow's shape message).
struct BackwardKernel(Kind, &'static str, String);

impl Kernel for BackwardKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let g = ctx.take_input(0);
        let v = ctx.input(1);
        if g.shape() != v.shape() {
            return Err(Error::invalid_argument(format!(
                "Inputs to operation {} of type {} must have the same size and shape.  \
                 Input 0: {} != input 1: {}",
                self.2,
                self.1,
                weir_graph::format_dims(g.shape()),
                weir_graph::format_dims(v.shape())
            )));
        }
        let k = self.0;
        let out = match_float_or_half!(g.dtype(), T => zip_in_place::<T>(g, v, self.1, |a, b| backward(k, a, b))?);
        ctx.set_output(0, out);
        Ok(())
    }
}

const FORWARD: [(&str, Kind); 3] = [
    ("Softplus", Kind::Softplus),
    ("Softsign", Kind::Softsign),
    ("Selu", Kind::Selu),
];

const BACKWARD: [(&str, Kind, &str); 3] = [
    ("SoftplusGrad", Kind::Softplus, "features"),
    ("SoftsignGrad", Kind::Softsign, "features"),
    ("SeluGrad", Kind::Selu, "outputs"),
];

fn make_forward(node: &Node) -> Result<Box<dyn Kernel>> {
    let (_, k) = FORWARD
        .iter()
        .find(|(n, _)| *n == node.op_type())
        .ok_or_else(|| Error::internal(format!("not an nn activation: {}", node.op_type())))?;
    Ok(Box::new(ForwardKernel(*k)))
}

fn make_backward(node: &Node) -> Result<Box<dyn Kernel>> {
    let (name, k, _) = BACKWARD
        .iter()
        .find(|(n, _, _)| *n == node.op_type())
        .ok_or_else(|| {
            Error::internal(format!("not an activation gradient: {}", node.op_type()))
        })?;
    Ok(Box::new(BackwardKernel(*k, name, node.name().to_string())))
}

pub(super) fn register() {
    for (name, _) in FORWARD {
        register_op(
            OpDef::new(name)
                .input("features", ArgType::Attr("T"))
                .output("activations", ArgType::Attr("T"))
                .type_attr("T", super::HALF_FLOATS)
                .shape_fn(same_as_input0),
        );
        register_kernel(name, make_forward);
    }
    for (name, _, second) in BACKWARD {
        register_op(
            OpDef::new(name)
                .input("gradients", ArgType::Attr("T"))
                .input(second, ArgType::Attr("T"))
                .output("backprops", ArgType::Attr("T"))
                .type_attr("T", super::HALF_FLOATS)
                .shape_fn(merge_inputs01),
        );
        register_kernel(name, make_backward);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softplus_switches_at_tensorflows_thresholds() {
        // float32: threshold = ln(2^-23) + 2 = -13.94.
        assert_eq!(forward(Kind::Softplus, 14.0f32, softplus_threshold()), 14.0);
        assert_eq!(
            forward(Kind::Softplus, -14.0f32, softplus_threshold()),
            (-14.0f32).exp()
        );
        assert_eq!(
            forward(Kind::Softplus, -13.0f32, softplus_threshold()),
            (-13.0f32).exp().ln_1p()
        );
        assert_eq!(forward(Kind::Softplus, 40.0f64, softplus_threshold()), 40.0);
        assert!(
            (forward(Kind::Softplus, 0.0f64, softplus_threshold()) - std::f64::consts::LN_2).abs()
                < 1e-16
        );
    }

    #[test]
    fn selu_and_softsign() {
        assert_eq!(
            forward(Kind::Selu, 1.0f64, softplus_threshold()),
            SELU_SCALE
        );
        assert!(
            (forward(Kind::Selu, -1.0f64, softplus_threshold())
                - SELU_SCALE_ALPHA * (-1.0f64).exp_m1())
            .abs()
                < 1e-15
        );
        assert_eq!(
            forward(Kind::Softsign, -3.0f64, softplus_threshold()),
            -0.75
        );
        assert_eq!(backward(Kind::Softsign, 2.0f64, -1.0), 0.5);
        assert_eq!(backward(Kind::Selu, 2.0f64, 1.0), 2.0 * SELU_SCALE);
        assert_eq!(backward(Kind::Softplus, 2.0f64, 0.0), 1.0);
    }
}
