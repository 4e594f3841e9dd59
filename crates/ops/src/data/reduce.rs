//! `ReduceDataset` (`Dataset.reduce`): a state folded over every element, in one op whose
//! outputs are the final state.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, Kernel, OpContext, OpDef, Output, Result, Shape,
};

use super::builders::Dataset;
use super::experimental::common_supertype;
use super::function::{build_function, BoundFunction, FunctionAttr};
use super::structure::{self, Component};
use super::{input_dataset, IteratorContext};

/// Python's repr of a dtype structure, as TensorFlow's messages print it.
fn dtype_structure(dtypes: &[DType]) -> String {
    let each: Vec<String> = dtypes
        .iter()
        .map(|d| format!("<dtype: '{}'>", d.python_name()))
        .collect();
    match each.len() {
        1 => each[0].clone(),
        _ => format!("({})", each.join(", ")),
    }
}

impl Dataset {
    /// `dataset.reduce(initial_state, reduce_func)`: `reduce_func(state, element)` applied to
    /// every element in turn, starting from `initial_state`; the outputs are the final state
    /// (the initial state for an empty dataset), in one op, `ReduceDataset`, that reads the
    /// whole dataset each time it runs. The new state must have the initial state's dtypes;
    /// where its static shape differs, the state's shape is relaxed until both agree, as
    /// TensorFlow does, so `reduce_func` may be built more than once.
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    /// use weir_ops::math::add;
    ///
    /// let g = Graph::new();
    /// let total = Dataset::range(&g, 0, 5, 1)?
    ///     .reduce(&[constant(&g, 0i64)?], |s, x| Ok(vec![add(&s[0], &x[0])?]))?;
    /// // In a session: 10.
    /// assert_eq!(total[0].op().op_type(), "ReduceDataset");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn reduce(
        &self,
        initial_state: &[Output],
        reduce_func: impl Fn(&[Output], &[Output]) -> Result<Vec<Output>>,
    ) -> Result<Vec<Output>> {
        self.dense_only("dataset.reduce")?;
        self.reduce_op(initial_state, reduce_func)
    }

    /// [`reduce`](Self::reduce) for elements that may hold sparse tensors: `reduce_func` reads
    /// the element's components as [`map_components`](Self::map_components)'s function does
    /// (the state stays dense).
    pub fn reduce_components(
        &self,
        initial_state: &[Output],
        reduce_func: impl Fn(&[Output], &[Component]) -> Result<Vec<Output>>,
    ) -> Result<Vec<Output>> {
        let sparse = self.sparse_specs().to_vec();
        self.reduce_op(initial_state, |state, element| {
            reduce_func(state, &structure::decode(element, &sparse)?)
        })
    }

    /// The `ReduceDataset` op of `reduce_func`, which takes the state and the element's flat
    /// (encoded) components.
    fn reduce_op(
        &self,
        initial_state: &[Output],
        reduce_func: impl Fn(&[Output], &[Output]) -> Result<Vec<Output>>,
    ) -> Result<Vec<Output>> {
        let g = self.graph();
        let state_dtypes: Vec<DType> = initial_state.iter().map(Output::dtype).collect();
        let mut state_shapes: Vec<Shape> = initial_state.iter().map(Output::shape).collect();
        let n = state_dtypes.len();
        let dtypes: Vec<DType> = state_dtypes
            .iter()
            .chain(self.output_types())
            .copied()
            .collect();
        // TensorFlow's fixed point: relax the state's shape until the function keeps it.
        let func = loop {
            let shapes: Vec<Shape> = state_shapes
                .iter()
                .chain(self.output_shapes())
                .cloned()
                .collect();
            let func = build_function(g, "reduce_func", &dtypes, &shapes, |args| {
                reduce_func(&args[..n], &args[n..])
            })?;
            if func.results.len() != n {
                return Err(Error::invalid_argument(format!(
                    "The number of components of the initial state and the reduce function \
                     output does not match. (initial_state={n}, output={}).",
                    func.results.len()
                )));
            }
            let got: Vec<DType> = func.results.iter().map(Output::dtype).collect();
            if got != state_dtypes {
                return Err(Error::invalid_argument(format!(
                    "The element types for the new state must match the initial state. \
                     Expected {} but got {}.",
                    dtype_structure(&state_dtypes),
                    dtype_structure(&got)
                )));
            }
            let next: Vec<Shape> = state_shapes
                .iter()
                .zip(&func.results)
                .map(|(s, r)| common_supertype(s, &r.shape()))
                .collect();
            if next == state_shapes {
                break func;
            }
            state_shapes = next;
        };
        let op = crate::new_op(g, "ReduceDataset")
            .input(self.handle())
            .inputs(initial_state.iter().cloned())
            .inputs(func.captured.iter().cloned())
            .attr("Tstate", state_dtypes.clone())
            .attr(
                "Targuments",
                func.captured.iter().map(Output::dtype).collect::<Vec<_>>(),
            )
            .attr("output_types", state_dtypes)
            .attr("output_shapes", state_shapes.clone());
        let op = func.attrs(op, "f").build()?;
        (0..n).map(|i| op.output(i)).collect()
    }
}

struct ReduceKernel {
    f: FunctionAttr,
}

impl Kernel for ReduceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dataset = input_dataset(ctx, 0)?;
        let state_dtypes: Vec<DType> = ctx.node().attr("Tstate")?;
        let n = state_dtypes.len();
        let inputs = ctx.inputs();
        let mut state = inputs[1..1 + n].to_vec();
        let f = BoundFunction::new(self.f.get(ctx)?, inputs[1 + n..].to_vec());
        let ictx = IteratorContext::of(ctx);
        let mut it = dataset.make_iterator()?;
        while let Some(element) = it.get_next(&ictx)? {
            // An endless dataset ends with the run's cancellation or deadline.
            ictx.check()?;
            let mut args = std::mem::take(&mut state);
            args.extend(element);
            state = f.call(args, &ictx)?;
            if state.len() != n {
                return Err(Error::invalid_argument(format!(
                    "The number of components of the initial state and the reduce function \
                     output does not match. (initial_state={n}, output={}).",
                    state.len()
                )));
            }
            for (t, want) in state.iter().zip(&state_dtypes) {
                if t.dtype() != *want {
                    return Err(Error::invalid_argument(format!(
                        "The element types for the new state must match the initial state. \
                         Expected {want} but got {}.",
                        t.dtype()
                    )));
                }
            }
        }
        for (i, t) in state.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("ReduceDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("initial_state", ArgType::List("Tstate"))
            .input("other_arguments", ArgType::List("Targuments"))
            .output("components", ArgType::List("output_types"))
            .attr("Tstate", AttrKind::Types, None)
            .attr("Targuments", AttrKind::Types, None)
            .attr("output_types", AttrKind::Types, None)
            .attr("output_shapes", AttrKind::Shapes, None)
            .attr("f_feeds", AttrKind::Strs, None)
            .attr("f_results", AttrKind::Strs, None)
            .stateful()
            .shape_fn(|ctx| {
                let shapes: Vec<Shape> = ctx.attr("output_shapes")?;
                for (i, s) in shapes.into_iter().enumerate() {
                    ctx.set_output(i, s);
                }
                Ok(())
            }),
    );
    register_kernel("ReduceDataset", |node| {
        Ok(Box::new(ReduceKernel {
            f: FunctionAttr::from_node(node, "f")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_print_as_python_does() {
        assert_eq!(dtype_structure(&[DType::I32]), "<dtype: 'int32'>");
        assert_eq!(
            dtype_structure(&[DType::I32, DType::F32]),
            "(<dtype: 'int32'>, <dtype: 'float32'>)"
        );
    }
}
