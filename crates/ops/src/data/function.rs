//! Functions that datasets call (`map`, `filter`) and the one-shot iterator's dataset factory:
//! a part of the graph whose arguments are `_Arg` nodes, named in the calling op's attrs.
//!
//! Why a part of the same graph rather than a separate function library: the session already
//! plans and runs any fed subgraph of its graph, with its variables and other state, and a
//! function body built by the same builders reads as any other graph code.

use std::sync::{Arc, OnceLock};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, Graph, GraphFunction, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

/// A function built into the graph: what its calls feed and fetch.
#[derive(Clone, Debug)]
pub(crate) struct BuiltFunction {
    /// The tensors each call feeds: the arguments, then the captured outside tensors.
    pub feeds: Vec<String>,
    /// Tensors from outside the body that it reads, passed to the calling op as inputs
    /// (TensorFlow's `other_arguments`), so they are evaluated when the dataset is made.
    pub captured: Vec<Output>,
    /// The results.
    pub results: Vec<Output>,
}

impl BuiltFunction {
    /// The calling op's attrs naming the function's feeds and results (attr `{prefix}_feeds`,
    /// `{prefix}_results`).
    pub(crate) fn attrs(&self, b: weir_graph::OpBuilder, prefix: &str) -> weir_graph::OpBuilder {
        b.attr(&format!("{prefix}_feeds"), self.feeds.clone()).attr(
            &format!("{prefix}_results"),
            self.results.iter().map(|o| o.name()).collect::<Vec<_>>(),
        )
    }
}

/// Builds `f` as a function of arguments of `dtypes` and `shapes`, under the name scope
/// `name`.
pub(crate) fn build_function(
    g: &Graph,
    name: &str,
    dtypes: &[DType],
    shapes: &[Shape],
    f: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
) -> Result<BuiltFunction> {
    let _scope = g.name_scope(name);
    let start = g.num_nodes();
    let args = dtypes
        .iter()
        .zip(shapes)
        .enumerate()
        .map(|(i, (&dt, s))| {
            crate::new_op(g, "_Arg")
                .name("arg")
                .attr("T", dt)
                .attr("index", i as i64)
                .output_shape(0, s.clone())
                .build()?
                .output(0)
        })
        .collect::<Result<Vec<_>>>()?;
    let results = f(&args)?;
    let end = g.num_nodes();
    let mut captured: Vec<Output> = Vec::new();
    for id in start..end {
        let node = g.node(id);
        for &(n, i) in node.inputs() {
            if n < start && !captured.iter().any(|c| c.node_id() == n && c.index() == i) {
                let o = g.output(n, i)?;
                captured.push(o);
            }
        }
    }
    for r in &results {
        if !r.graph().ptr_eq(g) {
            return Err(Error::invalid_argument(format!(
                "The function {name} returned a tensor of another graph"
            )));
        }
    }
    let feeds = args.iter().chain(&captured).map(|o| o.name()).collect();
    Ok(BuiltFunction {
        feeds,
        captured,
        results,
    })
}

/// A calling op's function, prepared in its session on first use.
pub(crate) struct FunctionAttr {
    feeds: Vec<String>,
    results: Vec<String>,
    prepared: OnceLock<Arc<dyn GraphFunction>>,
}

impl FunctionAttr {
    /// The function named by `node`'s attrs `{prefix}_feeds` and `{prefix}_results`.
    pub(crate) fn from_node(node: &Node, prefix: &str) -> Result<FunctionAttr> {
        Ok(FunctionAttr {
            feeds: node.attr(&format!("{prefix}_feeds"))?,
            results: node.attr(&format!("{prefix}_results"))?,
            prepared: OnceLock::new(),
        })
    }

    /// The number of results.
    pub(crate) fn num_results(&self) -> usize {
        self.results.len()
    }

    /// The function, prepared in the session running `ctx`.
    pub(crate) fn get(&self, ctx: &OpContext<'_>) -> Result<Arc<dyn GraphFunction>> {
        if let Some(f) = self.prepared.get() {
            return Ok(f.clone());
        }
        let f = ctx
            .resources()
            .function_runtime()?
            .instantiate(&self.feeds, &self.results)?;
        Ok(self.prepared.get_or_init(|| f).clone())
    }
}

/// A function with its captured values bound: what a dataset keeps and its iterators call.
#[derive(Clone)]
pub(crate) struct BoundFunction {
    function: Arc<dyn GraphFunction>,
    captured: Arc<[Tensor]>,
}

impl BoundFunction {
    pub(crate) fn new(function: Arc<dyn GraphFunction>, captured: Vec<Tensor>) -> Self {
        BoundFunction {
            function,
            captured: captured.into(),
        }
    }

    /// Calls the function on `args` (an element's components); a call blocked in one of its
    /// ops ends when `ctx`'s token is cancelled.
    pub(crate) fn call(
        &self,
        mut args: Vec<Tensor>,
        ctx: &super::IteratorContext,
    ) -> Result<Vec<Tensor>> {
        args.extend(self.captured.iter().cloned());
        self.function.call(&args, &ctx.cancellation, ctx.deadline)
    }
}

struct ArgKernel;

impl Kernel for ArgKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        Err(Error::invalid_argument(format!(
            "{} is an argument of a dataset function: only the dataset's own calls give it a value",
            ctx.node().name()
        )))
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("_Arg")
            .output("output", ArgType::Attr("T"))
            .attr("T", AttrKind::Type, None)
            .attr("index", AttrKind::Int, None),
    );
    register_kernel("_Arg", |_| Ok(Box::new(ArgKernel)));
}
