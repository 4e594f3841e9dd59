//! `GroupByReducerDataset` (`tf.data.experimental.group_by_reducer`): elements grouped by a key
//! function, each group folded into a state by a [`Reducer`], and each group's final state
//! turned into one element once the input has ended.

use std::collections::BTreeMap;
use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, Kernel, OpBuilder, OpContext, Output, Result, Shape, Tensor,
};

use super::builders::Dataset;
use super::experimental::common_supertype;
use super::function::{build_function, BoundFunction, BuiltFunction, FunctionAttr};
use super::{
    dataset_def, dataset_tensor, input_dataset, output_dtypes, DatasetBase, Element, IteratorBase,
    IteratorContext,
};

/// The four functions, by attr prefix, in the op's input order.
const FUNCTIONS: [&str; 4] = ["key_func", "init_func", "reduce_func", "finalize_func"];

/// `tf.data.experimental.Reducer(init_func, reduce_func, finalize_func)`: how
/// [`Dataset::group_by_reducer`] folds a group: `init_func(key)` gives its first state,
/// `reduce_func(state, element)` the next one, and `finalize_func(state)` its output element.
pub struct Reducer<I, R, F> {
    init_func: I,
    reduce_func: R,
    finalize_func: F,
}

impl<I, R, F> Reducer<I, R, F>
where
    I: FnOnce(&Output) -> Result<Vec<Output>>,
    R: Fn(&[Output], &[Output]) -> Result<Vec<Output>>,
    F: FnOnce(&[Output]) -> Result<Vec<Output>>,
{
    /// `tf.data.experimental.Reducer(init_func, reduce_func, finalize_func)`: `init_func` takes
    /// the `int64` scalar key, `reduce_func` the state's and the element's components (it may
    /// be built more than once, as the state's shape is relaxed), `finalize_func` the state's.
    pub fn new(init_func: I, reduce_func: R, finalize_func: F) -> Self {
        Reducer {
            init_func,
            reduce_func,
            finalize_func,
        }
    }
}

/// A structure of dtypes as Python's f-strings print it: `<dtype: 'int64'>` for one (its
/// `str`), `(tf.int64, tf.float32)` for a tuple (its elements' `repr`).
fn dtype_structure(dtypes: &[DType]) -> String {
    match dtypes {
        [one] => format!("<dtype: '{}'>", one.python_name()),
        many => {
            let each: Vec<String> = many
                .iter()
                .map(|d| format!("tf.{}", d.python_name()))
                .collect();
            format!("({})", each.join(", "))
        }
    }
}

/// The one `int64` scalar (one element) a key function returned, or TensorFlow's
/// InvalidArgument.
fn key_of(out: &[Tensor]) -> Result<i64> {
    match out {
        [t] if t.dtype() == DType::I64 && t.num_elements() == 1 => Ok(t.as_slice::<i64>()?[0]),
        _ => Err(Error::invalid_argument(
            "`key_func` must return a scalar int64.",
        )),
    }
}

impl Dataset {
    /// `dataset.apply(tf.data.experimental.group_by_reducer(key_func, reducer))`: elements
    /// grouped by the `int64` scalar `key_func` gives them, each group folded by `reducer`
    /// from `init_func(key)`; once the input has ended, one element per group,
    /// `finalize_func(state)`, in ascending key order (op `GroupByReducerDataset`).
    ///
    /// The new state must have the initial state's dtypes (InvalidArgument otherwise, as
    /// TensorFlow's TypeError); where its static shape differs, the state's shape is relaxed
    /// until both agree, as TensorFlow does.
    ///
    /// ```
    /// use weir_graph::{DType, Graph};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::{Dataset, Reducer};
    /// use weir_ops::math::{add, floormod};
    ///
    /// let g = Graph::new();
    /// // How many even and odd numbers: 5, 5.
    /// let counts = Dataset::range(&g, 0, 10, 1)?.group_by_reducer(
    ///     |x| floormod(&x[0], constant(x[0].graph(), 2i64)?),
    ///     Reducer::new(
    ///         |key| Ok(vec![constant(key.graph(), 0i64)?]),
    ///         |state, _x| Ok(vec![add(&state[0], constant(state[0].graph(), 1i64)?)?]),
    ///         |state| Ok(state.to_vec()),
    ///     ),
    /// )?;
    /// assert_eq!(counts.output_types(), &[DType::I64]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn group_by_reducer<I, R, F>(
        &self,
        key_func: impl FnOnce(&[Output]) -> Result<Output>,
        reducer: Reducer<I, R, F>,
    ) -> Result<Dataset>
    where
        I: FnOnce(&Output) -> Result<Vec<Output>>,
        R: Fn(&[Output], &[Output]) -> Result<Vec<Output>>,
        F: FnOnce(&[Output]) -> Result<Vec<Output>>,
    {
        self.dense_only("dataset.group_by_reducer")?;
        let g = self.graph();
        let Reducer {
            init_func,
            reduce_func,
            finalize_func,
        } = reducer;
        let key = build_function(
            g,
            "key_func",
            self.output_types(),
            self.output_shapes(),
            |x| {
                let k = key_func(x)?;
                if k.dtype() != DType::I64 || !k.shape().is_compatible_with(&Shape::scalar()) {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `key_func`. Expected `key_func` to return a scalar tf.int64 \
                         tensor, but instead `key_func` has output types=<dtype: '{}'> and \
                         shapes={}.",
                        k.dtype().python_name(),
                        k.shape().python_str()
                    )));
                }
                Ok(vec![k])
            },
        )?;
        let init = build_function(g, "init_func", &[DType::I64], &[Shape::scalar()], |k| {
            init_func(&k[0])
        })?;
        let state_dtypes: Vec<DType> = init.results.iter().map(Output::dtype).collect();
        let mut state_shapes: Vec<Shape> = init.results.iter().map(Output::shape).collect();
        let n = state_dtypes.len();
        let arg_dtypes: Vec<DType> = state_dtypes
            .iter()
            .chain(self.output_types())
            .copied()
            .collect();
        // TensorFlow's fixed point: relax the state's shape until the function keeps it.
        let reduce = loop {
            let arg_shapes: Vec<Shape> = state_shapes
                .iter()
                .chain(self.output_shapes())
                .cloned()
                .collect();
            let func = build_function(g, "reduce_func", &arg_dtypes, &arg_shapes, |args| {
                reduce_func(&args[..n], &args[n..])
            })?;
            // TensorFlow builds such a reducer and misreads the state when it runs.
            if func.results.len() != n {
                return Err(Error::invalid_argument(format!(
                    "Invalid `reducer`. The new state has {} components but the initial state \
                     has {n}.",
                    func.results.len()
                )));
            }
            let got: Vec<DType> = func.results.iter().map(Output::dtype).collect();
            if got != state_dtypes {
                return Err(Error::invalid_argument(format!(
                    "Invalid `reducer`. The element types for the new state {} do not match \
                     the element types of the old state {}.",
                    dtype_structure(&got),
                    dtype_structure(&state_dtypes)
                )));
            }
            let relaxed: Vec<Shape> = state_shapes
                .iter()
                .zip(&func.results)
                .map(|(s, r)| common_supertype(s, &r.shape()))
                .collect();
            if relaxed == state_shapes {
                break func;
            }
            state_shapes = relaxed;
        };
        let finalize = build_function(g, "finalize_func", &state_dtypes, &state_shapes, |s| {
            finalize_func(s)
        })?;
        if finalize.results.is_empty() {
            return Err(Error::invalid_argument(
                "Invalid `reducer`. `finalize_func` must return at least one tensor.",
            ));
        }
        let dtypes = finalize.results.iter().map(Output::dtype).collect();
        let shapes = finalize.results.iter().map(Output::shape).collect();
        let mut b = crate::new_op(g, "GroupByReducerDataset").input(self.handle());
        for (func, prefix) in [&key, &init, &reduce, &finalize].into_iter().zip(FUNCTIONS) {
            b = with_arguments(b, func, prefix);
        }
        Dataset::build(b, dtypes, shapes)
    }
}

/// `b` with `func`'s captured inputs, their types and the function's attrs, under `prefix`.
fn with_arguments(b: OpBuilder, func: &BuiltFunction, prefix: &str) -> OpBuilder {
    let types: Vec<DType> = func.captured.iter().map(Output::dtype).collect();
    let b = b
        .inputs(func.captured.iter().cloned())
        .attr(&format!("T{prefix}_other_arguments"), types);
    func.attrs(b, prefix)
}

/// The four functions of a `GroupByReducerDataset`, with their captured values.
#[derive(Clone)]
struct Functions {
    key: BoundFunction,
    init: BoundFunction,
    reduce: BoundFunction,
    finalize: BoundFunction,
}

struct GroupByReducer {
    input: Arc<dyn DatasetBase>,
    dtypes: Vec<DType>,
    functions: Functions,
}

impl DatasetBase for GroupByReducer {
    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(GroupByReducerIter {
            input: Some(self.input.make_iterator()?),
            functions: self.functions.clone(),
            states: BTreeMap::new(),
        }))
    }
}

struct GroupByReducerIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    functions: Functions,
    /// Each group's state, by key: handed out (finalized) from the first once the input ends.
    states: BTreeMap<i64, Vec<Tensor>>,
}

impl GroupByReducerIter {
    /// Folds `element` into its group's state. As in TensorFlow, a new group keeps its initial
    /// state even when the reduce function then fails.
    fn add(&mut self, element: Element, ctx: &IteratorContext) -> Result<()> {
        let f = &self.functions;
        let key_out = f.key.call(element.clone(), ctx)?;
        let key = key_of(&key_out)?;
        let mut args = match self.states.get(&key) {
            Some(state) => state.clone(),
            None => {
                let state = f.init.call(key_out, ctx)?;
                self.states.insert(key, state.clone());
                state
            }
        };
        args.extend(element);
        let state = f.reduce.call(args, ctx)?;
        self.states.insert(key, state);
        Ok(())
    }
}

impl IteratorBase for GroupByReducerIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        while let Some(input) = self.input.as_mut() {
            let Some(element) = input.get_next(ctx)? else {
                self.input = None;
                break;
            };
            // The whole input is read in this call: an endless one ends with the run.
            ctx.check()?;
            self.add(element, ctx)?;
        }
        // The group leaves before its finalize function runs: after a failure, the next
        // call goes on with the next group, as in TensorFlow.
        let Some((_, state)) = self.states.pop_first() else {
            return Ok(None);
        };
        self.functions.finalize.call(state, ctx).map(Some)
    }
}

struct GroupByReducerKernel {
    functions: [FunctionAttr; 4],
}

impl Kernel for GroupByReducerKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let mut next = 1;
        let mut bound = Vec::with_capacity(4);
        for (f, [_, types, ..]) in self.functions.iter().zip(ARGUMENTS) {
            let n = ctx.node().attr::<Vec<DType>>(types)?.len();
            let captured = ctx
                .inputs()
                .get(next..next + n)
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "{} has fewer inputs than its {types} attr lists",
                        ctx.node().name()
                    ))
                })?
                .to_vec();
            next += n;
            bound.push(BoundFunction::new(f.get(ctx)?, captured));
        }
        let [key, init, reduce, finalize]: [BoundFunction; 4] = bound
            .try_into()
            .map_err(|_| Error::internal("GroupByReducerDataset has four functions"))?;
        let ds = GroupByReducer {
            input,
            dtypes: output_dtypes(ctx.node())?,
            functions: Functions {
                key,
                init,
                reduce,
                finalize,
            },
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

/// Each function's input list, its types attr and its function attrs, as the op declares them.
const ARGUMENTS: [[&str; 4]; 4] = [
    [
        "key_func_other_arguments",
        "Tkey_func_other_arguments",
        "key_func_feeds",
        "key_func_results",
    ],
    [
        "init_func_other_arguments",
        "Tinit_func_other_arguments",
        "init_func_feeds",
        "init_func_results",
    ],
    [
        "reduce_func_other_arguments",
        "Treduce_func_other_arguments",
        "reduce_func_feeds",
        "reduce_func_results",
    ],
    [
        "finalize_func_other_arguments",
        "Tfinalize_func_other_arguments",
        "finalize_func_feeds",
        "finalize_func_results",
    ],
];

pub(super) fn register() {
    let mut def = dataset_def("GroupByReducerDataset")
        .input("input_dataset", ArgType::Fixed(DType::Resource));
    for [input, types, feeds, results] in ARGUMENTS {
        def = def
            .input(input, ArgType::List(types))
            .attr(types, AttrKind::Types, None)
            .attr(feeds, AttrKind::Strs, None)
            .attr(results, AttrKind::Strs, None);
    }
    register_op(def);
    register_kernel("GroupByReducerDataset", |node| {
        let f = |p: &str| FunctionAttr::from_node(node, p);
        Ok(Box::new(GroupByReducerKernel {
            functions: [
                f(FUNCTIONS[0])?,
                f(FUNCTIONS[1])?,
                f(FUNCTIONS[2])?,
                f(FUNCTIONS[3])?,
            ],
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{concat, constant, reshape, stack, zeros};
    use crate::math::{add, cast, floormod};
    use weir_graph::Graph;

    fn parity(x: &[Output]) -> Result<Output> {
        floormod(&x[0], constant(x[0].graph(), 2i64)?)
    }

    #[test]
    fn dtypes_print_as_python_formats_them() {
        assert_eq!(dtype_structure(&[DType::I32]), "<dtype: 'int32'>");
        assert_eq!(
            dtype_structure(&[DType::I64, DType::F32]),
            "(tf.int64, tf.float32)"
        );
    }

    #[test]
    fn keys_must_be_one_int64() {
        assert_eq!(key_of(&[Tensor::scalar(3i64)]).unwrap(), 3);
        assert_eq!(key_of(&[Tensor::from(vec![4i64])]).unwrap(), 4);
        for bad in [
            vec![Tensor::scalar(3i32)],
            vec![Tensor::from(vec![1i64, 2])],
            vec![Tensor::scalar(1i64), Tensor::scalar(2i64)],
            vec![],
        ] {
            let e = key_of(&bad).unwrap_err();
            assert_eq!(e.message(), "`key_func` must return a scalar int64.");
        }
    }

    #[test]
    fn state_shapes_relax_and_outputs_come_from_finalize() -> Result<()> {
        let g = Graph::new();
        let ds = Dataset::range(&g, 0, 7, 1)?.group_by_reducer(
            parity,
            Reducer::new(
                |k| Ok(vec![zeros(k.graph(), DType::I64, &[0])?]),
                |s, x| {
                    Ok(vec![concat(
                        &[s[0].clone(), reshape(&x[0], vec![1i64])?],
                        0,
                    )?])
                },
                |s| {
                    Ok(vec![
                        cast(&s[0], DType::F32)?,
                        stack(&[s[0].clone(), s[0].clone()], 0)?,
                    ])
                },
            ),
        )?;
        assert_eq!(ds.output_types(), &[DType::F32, DType::I64]);
        assert_eq!(
            ds.output_shapes(),
            &[Shape::new(vec![None]), Shape::new(vec![Some(2), None])]
        );
        assert_eq!(ds.handle().op().op_type(), "GroupByReducerDataset");
        Ok(())
    }

    #[test]
    fn mismatched_reducers_fail_when_built() -> Result<()> {
        let g = Graph::new();
        let ds = Dataset::range(&g, 0, 4, 1)?;
        let init = |k: &Output| Ok(vec![k.clone()]);
        let same = |s: &[Output]| Ok(s.to_vec());
        let e = ds
            .group_by_reducer(
                parity,
                Reducer::new(
                    init,
                    |s, x| Ok(vec![add(&s[0], &x[0])?, s[0].clone()]),
                    same,
                ),
            )
            .unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument);
        assert_eq!(
            e.message(),
            "Invalid `reducer`. The new state has 2 components but the initial state has 1."
        );
        let e = ds
            .group_by_reducer(
                parity,
                Reducer::new(init, |_, _| Ok(vec![]), |_| Ok(vec![])),
            )
            .unwrap_err();
        assert!(e.message().contains("has 0 components"), "{e}");
        let e = ds
            .group_by_reducer(
                parity,
                Reducer::new(|_| Ok(vec![]), |_, _| Ok(vec![]), |_| Ok(vec![])),
            )
            .unwrap_err();
        assert_eq!(
            e.message(),
            "Invalid `reducer`. `finalize_func` must return at least one tensor."
        );
        Ok(())
    }
}
