//! TensorFlow's fused gradient ops of the unary functions, `op(y, dy)` with `y` the function's
//! output: `TanhGrad`, `SigmoidGrad`, `SqrtGrad`, `RsqrtGrad` and `ReciprocalGrad`. weir's own
//! gradients write them as plain arithmetic; TensorFlow's gradient graphs use these ops, so
//! its training graphs import.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, Error, Kernel, Node, OpContext, OpDef, Result, Tensor};

use super::{match_float_or_half, merge_inputs01, zip_in_place, NnFloat};

#[derive(Clone, Copy)]
enum Kind {
    Tanh,
    Sigmoid,
    Sqrt,
    Rsqrt,
    Reciprocal,
}

fn backward<T: NnFloat>(kind: Kind, y: T, dy: T) -> T {
    let half = T::from(0.5).unwrap_or(T::ZERO);
    match kind {
        Kind::Tanh => dy * (T::ONE - y * y),
        Kind::Sigmoid => dy * y * (T::ONE - y),
        Kind::Sqrt => dy * half / y,
        Kind::Rsqrt => dy * y * y * y * -half,
        Kind::Reciprocal => -dy * y * y,
    }
}

/// The half types as TensorFlow's Eigen functors compute them, each operation rounded: the
/// tensor's body runs through the functors' packet formulas (8 lanes), its last `len % 8`
/// elements through their scalar formulas, which associate some products differently.
fn backward_half<T: NnFloat>(kind: Kind, y: T, dy: T, packet: bool) -> T {
    let half = T::from(0.5).unwrap_or(T::ZERO);
    match kind {
        Kind::Tanh => dy * (T::ONE - y * y),
        Kind::Sigmoid if packet => dy * (y * (T::ONE - y)),
        Kind::Sigmoid => dy * y * (T::ONE - y),
        Kind::Sqrt if packet => (half * dy) * (T::ONE / y),
        Kind::Sqrt => half * dy / y,
        Kind::Rsqrt => (dy * y) * (y * y) * -half,
        Kind::Reciprocal => -y * y * dy,
    }
}

/// [`backward_half`] over whole tensors, in place in `y`.
fn half_grads<T: NnFloat>(mut y: Tensor, dy: &Tensor, kind: Kind, what: &str) -> Result<Tensor> {
    super::same_shape(&y, dy, what)?;
    let ds = dy.as_slice::<T>()?;
    let ys = y.as_slice_mut::<T>()?;
    let body = ys.len() / 8 * 8;
    for (i, (v, &d)) in ys.iter_mut().zip(ds).enumerate() {
        *v = backward_half(kind, *v, d, i < body);
    }
    Ok(y)
}

struct UnaryGradKernel(Kind, &'static str);

impl Kernel for UnaryGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let y = ctx.take_input(0);
        let dy = ctx.input(1);
        let k = self.0;
        let out = match_float_or_half!(y.dtype(), T => if T::HALF {
            half_grads::<T>(y, dy, k, self.1)?
        } else {
            zip_in_place::<T>(y, dy, self.1, |a, b| backward(k, a, b))?
        });
        ctx.set_output(0, out);
        Ok(())
    }
}

const OPS: [(&str, Kind); 6] = [
    ("TanhGrad", Kind::Tanh),
    ("SigmoidGrad", Kind::Sigmoid),
    ("SqrtGrad", Kind::Sqrt),
    ("RsqrtGrad", Kind::Rsqrt),
    ("ReciprocalGrad", Kind::Reciprocal),
    // TensorFlow 1's name of ReciprocalGrad.
    ("InvGrad", Kind::Reciprocal),
];

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let (name, kind) = OPS
        .iter()
        .find(|(n, _)| *n == node.op_type())
        .ok_or_else(|| Error::internal(format!("not a unary gradient op: {}", node.op_type())))?;
    Ok(Box::new(UnaryGradKernel(*kind, name)))
}

pub(super) fn register() {
    for (name, _) in OPS {
        register_op(
            OpDef::new(name)
                .input("y", ArgType::Attr("T"))
                .input("dy", ArgType::Attr("T"))
                .output("z", ArgType::Attr("T"))
                .type_attr("T", super::HALF_FLOATS)
                .shape_fn(merge_inputs01),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derivatives_from_the_outputs() {
        // tanh' = 1 - y^2, sigmoid' = y (1 - y), sqrt' = 1 / (2 y), rsqrt' = -y^3 / 2, 1/x' = -y^2.
        let y = 0.5f64;
        assert_eq!(backward(Kind::Tanh, y, 2.0), 1.5);
        assert_eq!(backward(Kind::Sigmoid, y, 2.0), 0.5);
        assert_eq!(backward(Kind::Sqrt, y, 2.0), 2.0);
        assert_eq!(backward(Kind::Rsqrt, y, 2.0), -0.125);
        assert_eq!(backward(Kind::Reciprocal, y, 2.0), -0.5);
    }
}
