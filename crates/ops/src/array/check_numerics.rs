//! `CheckNumerics`: passes a float tensor through unchanged, or fails the run when it holds a
//! NaN or an infinity (TensorFlow's `tf.debugging.check_numerics`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, DType, Error, Kernel, OpContext, OpDef, Output, Result};

/// `tf.debugging.check_numerics(tensor, message)` (op `CheckNumerics`): `tensor` itself, or
/// InvalidArgument "`message` : Tensor had NaN values" (or "Inf values", or "Inf and NaN
/// values") in a run where it holds any.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{check_numerics, constant};
/// let g = Graph::new();
/// let checked = check_numerics(constant(&g, [1.0f32, 2.0])?, "logits")?;
/// assert_eq!(checked.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn check_numerics(tensor: impl Into<Output>, message: &str) -> Result<Output> {
    let t = tensor.into();
    crate::new_op(t.graph(), "CheckNumerics")
        .input(&t)
        .attr("message", message)
        .build()?
        .output(0)
}

struct CheckNumericsKernel {
    message: String,
}

/// Whether `values` hold an infinity and whether they hold a NaN.
fn non_finite<T: Copy + Into<f64>>(values: &[T]) -> (bool, bool) {
    let (mut inf, mut nan) = (false, false);
    // Most tensors are all finite: one cheap test per value, the kind only on a hit.
    for &v in values {
        let v: f64 = v.into();
        if !v.is_finite() {
            inf |= v.is_infinite();
            nan |= v.is_nan();
            if inf && nan {
                break;
            }
        }
    }
    (inf, nan)
}

impl Kernel for CheckNumericsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.take_input(0);
        let (inf, nan) = match t.dtype() {
            DType::F32 => non_finite(t.as_slice::<f32>()?),
            DType::F64 => non_finite(t.as_slice::<f64>()?),
            dt => {
                return Err(Error::invalid_argument(format!(
                    "CheckNumerics takes float32 or float64, got {dt}"
                )))
            }
        };
        let kind = match (inf, nan) {
            (false, false) => {
                ctx.set_output(0, t);
                return Ok(());
            }
            (true, false) => "Inf",
            (false, true) => "NaN",
            (true, true) => "Inf and NaN",
        };
        Err(Error::invalid_argument(format!(
            "{} : Tensor had {kind} values",
            self.message
        )))
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("CheckNumerics")
            .input("tensor", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::FLOAT)
            .attr("message", AttrKind::Str, None)
            .stateful()
            .shape_fn(|ctx| {
                let s = ctx.input_shape(0).clone();
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_kernel("CheckNumerics", |node| {
        Ok(Box::new(CheckNumericsKernel {
            message: node.attr::<String>("message")?,
        }))
    });
}
