//! `tf.debugging.Assert`: the `Assert` op, which fails a run with InvalidArgument when its
//! condition is false, summarizing its data tensors in the message.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, OpDef, Operation,
    Output, Result,
};

/// `tf.debugging.Assert(condition, data, summarize=None, name=None)`: an op that fails the run
/// with InvalidArgument `assertion failed: [d0] [d1]...` when the scalar bool `condition` is
/// false. Run it, or make the ops it guards depend on it (a control input).
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, control_flow::Assert};
/// let g = Graph::new();
/// let ok = constant(&g, false)?;
/// let msg = constant(&g, "x must be positive")?;
/// let check = Assert::new().summarize(5).build(&ok, &[msg])?;
/// assert_eq!(check.op_type(), "Assert");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Assert {
    summarize: i64,
    name: Option<String>,
}

impl Default for Assert {
    fn default() -> Assert {
        Assert::new()
    }
}

impl Assert {
    /// TensorFlow's defaults: each data tensor summarized by its first 3 values.
    pub fn new() -> Assert {
        Assert {
            summarize: 3,
            name: None,
        }
    }

    /// How many values of each data tensor the message shows (all when negative).
    pub fn summarize(mut self, summarize: i64) -> Assert {
        self.summarize = summarize;
        self
    }

    /// The op's name.
    pub fn name(mut self, name: &str) -> Assert {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the `Assert` op checking `condition`, with `data` for the message.
    pub fn build(self, condition: &Output, data: &[Output]) -> Result<Operation> {
        crate::new_op(condition.graph(), "Assert")
            .maybe_name(self.name.as_deref())
            .input(condition)
            .inputs(data.iter().cloned())
            .attr("summarize", self.summarize)
            .build()
    }
}

/// `tf.debugging.Assert(condition, data)` with TensorFlow's defaults.
pub fn assert(condition: &Output, data: &[Output]) -> Result<Operation> {
    Assert::new().build(condition, data)
}

struct AssertKernel {
    summarize: i64,
}

impl Kernel for AssertKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let cond = ctx.input(0);
        if !cond.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "In[0] should be a scalar: {}",
                format_dims(cond.shape())
            )));
        }
        if cond.as_slice::<bool>()?[0] {
            return Ok(());
        }
        let shown: Vec<String> = ctx.inputs()[1..]
            .iter()
            .map(|t| format!("[{}]", t.summarize_value(self.summarize)))
            .collect();
        Err(Error::invalid_argument(format!(
            "assertion failed: {}",
            shown.join(" ")
        )))
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("Assert")
            .input("condition", ArgType::Fixed(DType::Bool))
            .input("data", ArgType::List("T"))
            .attr("T", AttrKind::Types, None)
            .attr("summarize", AttrKind::Int, Some(AttrValue::Int(3)))
            .stateful(),
    );
    register_kernel("Assert", |node| {
        Ok(Box::new(AssertKernel {
            summarize: node.attr("summarize")?,
        }))
    });
}
