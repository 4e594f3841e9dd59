//! `ScanDataset` (`Dataset.scan`): state tensors threaded through a function of each element,
//! which returns the new state and the output element.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Output, Result, Shape, Tensor,
};

use super::super::function::{build_function, BoundFunction, FunctionAttr};
use super::super::structure::{self, Component, ComponentSpec};
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
        let state: Vec<Component> = initial_state.iter().map(Component::from).collect();
        self.scan_op(&state, |state, element| {
            let state: Vec<Output> = state
                .iter()
                .map(|c| c.tensor().cloned())
                .collect::<Result<_>>()?;
            let element: Vec<Output> = element
                .iter()
                .map(|c| c.tensor().cloned())
                .collect::<Result<_>>()?;
            let (new_state, output) = f(&state, &element)?;
            Ok((
                new_state.into_iter().map(Component::from).collect(),
                output.into_iter().map(Component::from).collect(),
            ))
        })
    }

    /// [`scan`](Self::scan) where the state and the elements may hold sparse tensors
    /// (`tf.data.experimental.scan` with `SparseTensor`s): `f` reads them as
    /// [`map_components`](Self::map_components)'s function does and returns the new state (of
    /// the initial state's kinds and dtypes; a sparse state's dense shape may change, and is
    /// then relaxed as a dense state's shape is) and the output element.
    ///
    /// ```
    /// use weir_graph::{DType, Graph, Shape, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::{ComponentSpec, Dataset};
    /// use weir_ops::sparse::{sparse_add, SparseOutput};
    ///
    /// let g = Graph::new();
    /// let rows = SparseOutput::new(
    ///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 1, 2, 0])?)?,
    ///     constant(&g, [1.5f32, 2.5])?,
    ///     constant(&g, [3i64, 4])?,
    /// )?;
    /// let empty = SparseOutput::new(
    ///     constant(&g, Tensor::from_vec(&[0, 1], Vec::<i64>::new())?)?,
    ///     constant(&g, Tensor::from(Vec::<f32>::new()))?,
    ///     constant(&g, [4i64])?,
    /// )?;
    /// // The running sparse sum of the rows.
    /// let sums = Dataset::from_component_slices(&[rows.into()])?.scan_components(
    ///     &[empty.into()],
    ///     |state, x| {
    ///         let sum = sparse_add(state[0].sparse()?, x[0].sparse()?, constant(&g, 0f32)?)?;
    ///         Ok((vec![sum.clone().into()], vec![sum.into()]))
    ///     },
    /// )?;
    /// assert!(sums.element_spec()[0].is_sparse());
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn scan_components(
        &self,
        initial_state: &[Component],
        f: impl Fn(&[Component], &[Component]) -> Result<(Vec<Component>, Vec<Component>)>,
    ) -> Result<Dataset> {
        self.scan_op(initial_state, f)
    }

    /// The `ScanDataset` of `f` over components: a sparse state or element component travels
    /// encoded, as in every dataset op.
    fn scan_op(
        &self,
        initial_state: &[Component],
        f: impl Fn(&[Component], &[Component]) -> Result<(Vec<Component>, Vec<Component>)>,
    ) -> Result<Dataset> {
        let g = self.graph();
        let in_graph = |c: &Component| match c {
            Component::Tensor(o) => o.graph().ptr_eq(g),
            Component::Sparse(s) => s.outputs().iter().all(|o| o.graph().ptr_eq(g)),
        };
        if !initial_state.iter().all(in_graph) {
            return Err(Error::invalid_argument(
                "The initial state of `scan` must be in the dataset's graph",
            ));
        }
        let (state_inputs, _) = structure::encode(initial_state)?;
        let n = initial_state.len();
        let state_dtypes: Vec<DType> = state_inputs.iter().map(|s| s.dtype()).collect();
        let initial_specs: Vec<ComponentSpec> = initial_state.iter().map(|c| c.spec()).collect();
        let mut state_specs = initial_specs.clone();
        let element_sparse = self.sparse_specs().to_vec();
        // TensorFlow's fixed point: where the new state's static shape (a sparse state's dense
        // shape) differs, trace the function again with the state relaxed to the shape both
        // have.
        let (func, output_sparse) = loop {
            let (dtypes, mut arg_shapes, state_sparse) = structure::encoded(&state_specs);
            // A dense state's shape is its spec's; a sparse one's encoding is a string [3].
            for (shape, sp) in arg_shapes.iter_mut().zip(&state_sparse) {
                if sp.is_some() {
                    *shape = Shape::from([3]);
                }
            }
            let mut arg_dtypes = dtypes;
            arg_dtypes.extend_from_slice(self.output_types());
            arg_shapes.extend_from_slice(self.output_shapes());
            let mut arg_sparse = state_sparse.clone();
            arg_sparse.extend(element_sparse.iter().cloned());
            let mut num_outputs = 0;
            let mut new_specs = Vec::new();
            let mut output_sparse = Vec::new();
            let func = build_function(g, "scan", &arg_dtypes, &arg_shapes, |args| {
                let components = structure::decode(args, &arg_sparse)?;
                let (new_state, output) = f(&components[..n], &components[n..])?;
                if new_state.len() != n {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `scan_func`. The new state has {} components but the initial \
                         state has {n}.",
                        new_state.len()
                    )));
                }
                num_outputs = output.len();
                let (state_out, mut state_out_sparse) = structure::encode(&new_state)?;
                let (out, mut out_sparse) = structure::encode(&output)?;
                structure::keep_argument_shapes(
                    &new_state,
                    &mut state_out_sparse,
                    &components,
                    &arg_sparse,
                );
                structure::keep_argument_shapes(&output, &mut out_sparse, &components, &arg_sparse);
                new_specs = new_state
                    .iter()
                    .zip(&state_out_sparse)
                    .map(|(c, sp)| match (c, sp) {
                        (Component::Sparse(s), Some(sp)) => ComponentSpec::Sparse {
                            dtype: s.dtype(),
                            shape: sp.shape.clone(),
                        },
                        _ => c.spec(),
                    })
                    .collect();
                output_sparse = out_sparse;
                Ok(state_out.into_iter().chain(out).collect())
            })?;
            if num_outputs == 0 {
                return Err(Error::invalid_argument(
                    "Invalid `scan_func`. The output element must have at least one component.",
                ));
            }
            for (new, init) in new_specs.iter().zip(&initial_specs) {
                if new.is_sparse() != init.is_sparse() {
                    let class = |s: &ComponentSpec| {
                        if s.is_sparse() {
                            "tensorflow.python.framework.sparse_tensor.SparseTensor"
                        } else {
                            "tensorflow.python.framework.tensor.Tensor"
                        }
                    };
                    return Err(Error::invalid_argument(format!(
                        "Invalid `scan_func`. The element classes for the new state must match \
                         the initial state. Expected <class '{}'>, got <class '{}'>.",
                        class(init),
                        class(new)
                    )));
                }
            }
            for (new, init) in new_specs.iter().zip(&initial_specs) {
                if new.dtype() != init.dtype() {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `scan_func`. The element types for the new state must match \
                         the initial state. Expected <dtype: '{}'>, got <dtype: '{}'>.",
                        init.dtype().python_name(),
                        new.dtype().python_name()
                    )));
                }
            }
            let relaxed: Vec<ComponentSpec> = state_specs
                .iter()
                .zip(&new_specs)
                .map(|(old, new)| match old {
                    ComponentSpec::Tensor { dtype, shape } => ComponentSpec::Tensor {
                        dtype: *dtype,
                        shape: common_supertype(shape, new.shape()),
                    },
                    ComponentSpec::Sparse { dtype, shape } => ComponentSpec::Sparse {
                        dtype: *dtype,
                        shape: common_supertype(shape, new.shape()),
                    },
                })
                .collect();
            if relaxed == state_specs {
                break (func, output_sparse);
            }
            state_specs = relaxed;
        };
        let output = &func.results[n..];
        let dtypes: Vec<DType> = output.iter().map(|o| o.dtype()).collect();
        let shapes = output.iter().map(|o| o.shape()).collect();
        let b = crate::new_op(g, "ScanDataset")
            .input(self.handle())
            .inputs(state_inputs)
            .inputs(func.captured.iter().cloned())
            .attr("Tstate", state_dtypes)
            .attr(
                "Targuments",
                func.captured.iter().map(|o| o.dtype()).collect::<Vec<_>>(),
            )
            .attr("preserve_cardinality", true)
            .attr("use_default_device", true);
        Ok(Dataset::build(func.attrs(b, "f"), dtypes, shapes)?.with_sparse(output_sparse))
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
