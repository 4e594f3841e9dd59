//! TensorFlow's fused gradient ops of the unary functions, `op(y, dy)` with `y` the function's
//! output: `TanhGrad`, `SigmoidGrad`, `SqrtGrad`, `RsqrtGrad` and `ReciprocalGrad`. weir's own
//! gradients write them as plain arithmetic; TensorFlow's gradient graphs use these ops, so
//! its training graphs import.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, Error, Kernel, Node, OpContext, OpDef, Result};

use super::{match_float, merge_inputs01, zip_in_place, NnFloat};

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

struct UnaryGradKernel(Kind, &'static str);

impl Kernel for UnaryGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let y = ctx.take_input(0);
        let dy = ctx.input(1);
        let k = self.0;
        let out = match_float!(y.dtype(), T => zip_in_place::<T>(y, dy, self.1, |a, b| backward(k, a, b))?);
        ctx.set_output(0, out);
        Ok(())
    }
}

const OPS: [(&str, Kind); 5] = [
    ("TanhGrad", Kind::Tanh),
    ("SigmoidGrad", Kind::Sigmoid),
    ("SqrtGrad", Kind::Sqrt),
    ("RsqrtGrad", Kind::Rsqrt),
    ("ReciprocalGrad", Kind::Reciprocal),
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
                .type_attr("T", super::FLOATS)
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
