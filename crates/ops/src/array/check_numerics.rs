//! `CheckNumerics` and `CheckNumericsV2`: pass a float tensor through unchanged, or fail the
//! run when it holds a NaN or an infinity (TensorFlow's `tf.debugging.check_numerics`; V2 tells
//! -Inf from +Inf).

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

/// `CheckNumerics`, or with `v2` `CheckNumericsV2`, which tells -Inf from +Inf.
struct CheckNumericsKernel {
    message: String,
    v2: bool,
}

/// What non-finite values `values` hold: a -Inf, a +Inf, a NaN.
fn non_finite<T: Copy + Into<f64>>(values: &[T]) -> [bool; 3] {
    let mut seen = [false; 3];
    // Most tensors are all finite: one cheap test per value, the kind only on a hit.
    for &v in values {
        let v: f64 = v.into();
        if !v.is_finite() {
            let kind = match v {
                f64::NEG_INFINITY => 0,
                f64::INFINITY => 1,
                _ => 2,
            };
            seen[kind] = true;
            if seen == [true; 3] {
                break;
            }
        }
    }
    seen
}

impl Kernel for CheckNumericsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.take_input(0);
        let [neg_inf, pos_inf, nan] = match t.dtype() {
            DType::F32 => non_finite(t.as_slice::<f32>()?),
            DType::F64 => non_finite(t.as_slice::<f64>()?),
            DType::F16 => non_finite(t.as_slice::<weir_graph::f16>()?),
            DType::BF16 => non_finite(t.as_slice::<weir_graph::bf16>()?),
            dt => {
                return Err(Error::invalid_argument(format!(
                    "CheckNumerics takes a floating-point tensor, got {dt}"
                )))
            }
        };
        let kinds: Vec<&str> = if self.v2 {
            [(neg_inf, "-Inf"), (pos_inf, "+Inf"), (nan, "NaN")]
                .iter()
                .filter(|(seen, _)| *seen)
                .map(|&(_, k)| k)
                .collect()
        } else {
            [(neg_inf || pos_inf, "Inf"), (nan, "NaN")]
                .iter()
                .filter(|(seen, _)| *seen)
                .map(|&(_, k)| k)
                .collect()
        };
        // TensorFlow's list: "A", "A and B", "A, B, and C".
        let kind = match kinds.as_slice() {
            [] => {
                ctx.set_output(0, t);
                return Ok(());
            }
            [a] => a.to_string(),
            [a, b] => format!("{a} and {b}"),
            [init @ .., last] => format!("{}, and {last}", init.join(", ")),
        };
        Err(Error::invalid_argument(format!(
            "{} : Tensor had {kind} values",
            self.message
        )))
    }
}

pub(super) fn register() {
    for op in ["CheckNumerics", "CheckNumericsV2"] {
        register_op(
            OpDef::new(op)
                .input("tensor", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", &[DType::F16, DType::BF16, DType::F32, DType::F64])
                .attr("message", AttrKind::Str, None)
                .stateful()
                .shape_fn(|ctx| {
                    let s = ctx.input_shape(0).clone();
                    ctx.set_output(0, s);
                    Ok(())
                }),
        );
    }
    register_kernel("CheckNumerics", |node| {
        Ok(Box::new(CheckNumericsKernel {
            message: node.attr::<String>("message")?,
            v2: false,
        }))
    });
    register_kernel("CheckNumericsV2", |node| {
        Ok(Box::new(CheckNumericsKernel {
            message: node.attr::<String>("message")?,
            v2: true,
        }))
    });
}
