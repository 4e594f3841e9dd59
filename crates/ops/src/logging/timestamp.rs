//! `Timestamp` (TensorFlow's `tf.timestamp()`): the wall-clock time at which the op runs, in
//! seconds since the Unix epoch as a float64 scalar. Stateful, so each run reads the clock
//! again and graph optimizations never fold or merge it.

use std::time::{SystemTime, UNIX_EPOCH};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, Graph, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

/// `tf.timestamp()` (op `Timestamp`): seconds since the Unix epoch, with microsecond or finer
/// resolution, each time the op runs.
pub fn timestamp(graph: &Graph) -> Result<Output> {
    crate::new_op(graph, "Timestamp").build()?.output(0)
}

struct TimestampKernel;

impl Kernel for TimestampKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| Error::internal(format!("The system clock is before 1970: {e}")))?;
        ctx.set_output(0, Tensor::from(now.as_secs_f64()));
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Timestamp")
            .output("ts", ArgType::Fixed(DType::F64))
            .stateful()
            .shape_fn(shape_fn),
    );
    register_kernel("Timestamp", |_| Ok(Box::new(TimestampKernel)));
}
