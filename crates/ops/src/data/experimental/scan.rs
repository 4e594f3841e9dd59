//! `ScanDataset` (`Dataset.scan`): state tensors threaded through a function of each element,
//! which returns the new state and the output element.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Output, Result, Shape, Tensor,
};

use super::super::function::{build_function, BoundFunction, FunctionAttr};
use super::super::{
    dataset_def, dataset_tensor, input_dataset, output_dtypes, Dataset, DatasetBase, Element,
    IteratorBase, IteratorContext,
};
use super::common_supertype;

/// The elements of `input` passed through `f` along with a state.
struct Scan {
    input: Arc<dyn DatasetBase>,
    f: BoundFunction,
    initial_state: Vec<Tensor>,
    state_dtypes: Vec<DType>,
    dtypes: Vec<DType>,
    preserve_cardinality: bool,
}

impl DatasetBase for Scan {
    fn cardinality(&self) -> i64 {
        self.input.cardinality()
    }

    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(ScanIter {
            input: Some(self.input.make_iterator()?),
            f: self.f.clone(),
            state: self.initial_state.clone(),
            state_dtypes: self.state_dtypes.clone(),
            dtypes: self.dtypes.clone(),
            preserve_cardinality: self.preserve_cardinality,
        }))
    }
}

struct ScanIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    f: BoundFunction,
    state: Vec<Tensor>,
    state_dtypes: Vec<DType>,
    dtypes: Vec<DType>,
    preserve_cardinality: bool,
}

impl IteratorBase for ScanIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let Some(input) = self.input.as_mut() else {
            return Ok(None);
        };
        let Some(e) = input.get_next(ctx)? else {
            self.input = None;
            return Ok(None);
        };
        let mut args = self.state.clone();
        args.extend(e);
        let mut results = match self.f.call(args, ctx) {
            Ok(r) => r,
            // An OutOfRange would read as the end of the input: with `preserve_cardinality`
            // (what `Dataset.scan` asks for) it is an InvalidArgument, as in TensorFlow.
            Err(e) if e.is_out_of_range() && self.preserve_cardinality => {
                return Err(Error::invalid_argument(format!(
                    "Function invocation produced OutOfRangeError: {}",
                    e.message()
                )))
            }
            Err(e) if e.is_out_of_range() => {
                self.input = None;
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let n = self.state_dtypes.len();
        if results.len() != n + self.dtypes.len() {
            return Err(Error::invalid_argument(format!(
                "scan_func returned {} values, not the {} of its new state and element",
                results.len(),
                n + self.dtypes.len()
            )));
        }
        let expected = self.state_dtypes.iter().chain(&self.dtypes);
        for (i, (t, &want)) in results.iter().zip(expected).enumerate() {
            if t.dtype() != want {
                return Err(Error::invalid_argument(format!(
                    "Got wrong type for scan_func return value {i} (expected {want}, got {}).",
                    t.dtype()
                )));
            }
        }
        let output = results.split_off(n);
        self.state = results;
        Ok(Some(output))
    }
}

struct ScanKernel {
    f: FunctionAttr,
    preserve_cardinality: bool,
}

impl Kernel for ScanKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let state_dtypes: Vec<DType> = ctx.node().attr("Tstate")?;
        let n = state_dtypes.len();
        let inputs = ctx.inputs();
        if inputs.len() < 1 + n {
            return Err(Error::invalid_argument(format!(
                "ScanDataset has {} inputs, fewer than its {n} state components",
                inputs.len().saturating_sub(1)
            )));
        }
        let initial_state = inputs[1..1 + n].to_vec();
        let captured = inputs[1 + n..].to_vec();
        let f = BoundFunction::new(self.f.get(ctx)?, captured);
        let ds = Scan {
            input,
            f,
            initial_state,
            state_dtypes,
            dtypes: output_dtypes(ctx.node())?,
            preserve_cardinality: self.preserve_cardinality,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

impl Dataset {
    /// `dataset.scan(initial_state, scan_func)` (`tf.data.experimental.scan`): `f` is called
    /// with the state (starting at `initial_state`) and each element's components, and returns
    /// the new state (the same dtypes as `initial_state`) and the output element (op
    /// `ScanDataset`).
    ///
    /// Where the new state's static shape differs from the state's, `f` is built again with
    /// the state relaxed to the shape both have, as TensorFlow traces it again, so it may be
    /// called more than once.
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    /// use weir_ops::math::add;
    ///
    /// let g = Graph::new();
    /// let zero = constant(&g, 0i64)?;
    /// let sums = Dataset::range(&g, 1, 5, 1)?.scan(&[zero], |state, x| {
    ///     let sum = add(&state[0], &x[0])?;
    ///     Ok((vec![sum.clone()], vec![sum]))
    /// })?;
    /// // In a session: 1, 3, 6, 10, then OutOfRange "End of sequence".
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn scan(
        &self,
        initial_state: &[Output],
        f: impl Fn(&[Output], &[Output]) -> Result<(Vec<Output>, Vec<Output>)>,
    ) -> Result<Dataset> {
        self.dense_only("dataset.scan")?;
        let g = self.graph();
        if initial_state.iter().any(|s| !s.graph().ptr_eq(g)) {
            return Err(Error::invalid_argument(
                "The initial state of `scan` must be in the dataset's graph",
            ));
        }
        let n = initial_state.len();
        let state_dtypes: Vec<DType> = initial_state.iter().map(|s| s.dtype()).collect();
        let mut state_shapes: Vec<Shape> = initial_state.iter().map(|s| s.shape()).collect();
        let mut arg_dtypes = state_dtypes.clone();
        arg_dtypes.extend_from_slice(self.output_types());
        // TensorFlow's fixed point: where the new state's static shape differs, trace the
        // function again with the state relaxed to the shape both have.
        let func = loop {
            let mut arg_shapes = state_shapes.clone();
            arg_shapes.extend_from_slice(self.output_shapes());
            let mut num_outputs = 0;
            let func = build_function(g, "scan", &arg_dtypes, &arg_shapes, |args| {
                let (new_state, output) = f(&args[..n], &args[n..])?;
                if new_state.len() != n {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `scan_func`. The new state has {} components but the initial \
                         state has {n}.",
                        new_state.len()
                    )));
                }
                num_outputs = output.len();
                Ok(new_state.into_iter().chain(output).collect())
            })?;
            if num_outputs == 0 {
                return Err(Error::invalid_argument(
                    "Invalid `scan_func`. The output element must have at least one component.",
                ));
            }
            for (s, init) in func.results[..n].iter().zip(initial_state) {
                if s.dtype() != init.dtype() {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `scan_func`. The element types for the new state must match \
                         the initial state. Expected <dtype: '{}'>, got <dtype: '{}'>.",
                        init.dtype().python_name(),
                        s.dtype().python_name()
                    )));
                }
            }
            let relaxed: Vec<Shape> = state_shapes
                .iter()
                .zip(&func.results[..n])
                .map(|(old, new)| common_supertype(old, &new.shape()))
                .collect();
            if relaxed == state_shapes {
                break func;
            }
            state_shapes = relaxed;
        };
        let output = &func.results[n..];
        let dtypes: Vec<DType> = output.iter().map(|o| o.dtype()).collect();
        let shapes = output.iter().map(|o| o.shape()).collect();
        let b = crate::new_op(g, "ScanDataset")
            .input(self.handle())
            .inputs(initial_state.iter().cloned())
            .inputs(func.captured.iter().cloned())
            .attr("Tstate", state_dtypes)
            .attr(
                "Targuments",
                func.captured.iter().map(|o| o.dtype()).collect::<Vec<_>>(),
            )
            .attr("preserve_cardinality", true)
            .attr("use_default_device", true);
        Dataset::build(func.attrs(b, "f"), dtypes, shapes)
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("ScanDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("initial_state", ArgType::List("Tstate"))
            .input("other_arguments", ArgType::List("Targuments"))
            .attr("Tstate", AttrKind::Types, None)
            .attr("Targuments", AttrKind::Types, None)
            .attr("f_feeds", AttrKind::Strs, None)
            .attr("f_results", AttrKind::Strs, None)
            .attr(
                "preserve_cardinality",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .attr(
                "use_default_device",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            ),
    );
    register_kernel("ScanDataset", |node| {
        Ok(Box::new(ScanKernel {
            f: FunctionAttr::from_node(node, "f")?,
            preserve_cardinality: node.attr("preserve_cardinality")?,
        }))
    });
}
