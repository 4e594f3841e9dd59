//! `ToBool`: the truth of a tensor as TensorFlow's functional `If` takes a non-boolean
//! condition: a scalar's value, or whether a tensor of higher rank has any elements.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, Bytes, DType, Error, Kernel, OpContext, OpDef, Result, Shape, Tensor};

struct ToBoolKernel;

impl Kernel for ToBoolKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let truth = if t.rank() > 0 {
            t.num_elements() > 0
        } else {
            let dt = t.dtype();
            match dt {
                DType::Bool => t.to_scalar::<bool>()?,
                DType::String => !t.to_scalar::<Bytes>()?.is_empty(),
                // A NaN is true, as C++'s `!= 0` makes it.
                _ => weir_graph::match_real_dtype!(dt, T => {
                    t.to_scalar::<T>()? != T::default()
                }, _ => weir_graph::match_half_dtype!(dt, T => {
                    t.to_scalar::<T>()? != T::default()
                }, _ => return Err(Error::invalid_argument(format!("ToBool does not take {dt}"))))),
            }
        };
        ctx.set_output(0, Tensor::scalar(truth));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("ToBool")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Fixed(DType::Bool))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("ToBool", |_| Ok(Box::new(ToBoolKernel)));
}
