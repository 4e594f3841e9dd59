//! `GroupByWindowDataset` (`Dataset.group_by_window`): elements grouped by a key function,
//! each group of a window's size reduced to a dataset by a function of the key and the group.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, Kernel, OpBuilder, OpContext, Output, Result, Shape, Tensor,
};

use super::builders::Dataset;
use super::function::{build_function, BoundFunction, BuiltFunction, FunctionAttr};
use super::parallel_map::dataset_in;
use super::window::InMemory;
use super::{
    dataset_def, dataset_tensor, input_dataset, output_dtypes, DatasetBase, Element, IteratorBase,
    IteratorContext,
};

/// The three functions, by attr prefix, in the op's input order.
const FUNCTIONS: [&str; 3] = ["key_func", "reduce_func", "window_size_func"];

/// The one `int64` scalar a function returned, or InvalidArgument `message`.
fn scalar_int64(out: &[Tensor], message: &str) -> Result<i64> {
    match out {
        [t] if t.dtype() == DType::I64 && t.num_elements() == 1 => Ok(t.as_slice::<i64>()?[0]),
        _ => Err(Error::invalid_argument(message)),
    }
}

/// The one output of a function built for a scalar `int64`, in TensorFlow's words otherwise.
fn check_scalar_int64(name: &str, out: &Output) -> Result<()> {
    if out.dtype() == DType::I64 && out.shape().is_compatible_with(&Shape::scalar()) {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Invalid `{name}`. `{name}` must return a single `tf.int64` scalar tensor but its return \
         type is TensorSpec(shape={}, dtype=tf.{}, name=None).",
        out.shape().python_str(),
        out.dtype().python_name()
    )))
}

impl Dataset {
    /// `dataset.group_by_window(key_func, reduce_func, window_size)`: elements grouped by the
    /// `int64` scalar `key_func` gives them; when a group holds `window_size` elements,
    /// `reduce_func(key, group)` turns it into a dataset whose elements come next; at the end
    /// of the input the remaining groups are reduced in ascending key order (op
    /// `GroupByWindowDataset`).
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    /// use weir_ops::math::floormod;
    ///
    /// let g = Graph::new();
    /// // Even and odd numbers in batches of 2: [0 2], [1 3], [4 6], [5 7], ...
    /// let ds = Dataset::range(&g, 0, 10, 1)?.group_by_window(
    ///     |x| floormod(&x[0], constant(x[0].graph(), 2i64)?),
    ///     |_key, group| group.batch(2),
    ///     2,
    /// )?;
    /// assert_eq!(ds.output_types(), &[weir_graph::DType::I64]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn group_by_window(
        &self,
        key_func: impl FnOnce(&[Output]) -> Result<Output>,
        reduce_func: impl FnOnce(&Output, &Dataset) -> Result<Dataset>,
        window_size: i64,
    ) -> Result<Dataset> {
        self.group_by_window_with(key_func, reduce_func, |key| {
            crate::array::constant(key.graph(), window_size)
        })
    }

    /// `dataset.group_by_window(key_func, reduce_func, window_size_func=...)`: as
    /// [`group_by_window`](Self::group_by_window), with each key's window size given by
    /// `window_size_func(key)`, an `int64` scalar (below 1: InvalidArgument "Window size must
    /// be greater than zero, but got 0." for each element of that key).
    pub fn group_by_window_with(
        &self,
        key_func: impl FnOnce(&[Output]) -> Result<Output>,
        reduce_func: impl FnOnce(&Output, &Dataset) -> Result<Dataset>,
        window_size_func: impl FnOnce(&Output) -> Result<Output>,
    ) -> Result<Dataset> {
        self.dense_only("dataset.group_by_window")?;
        let g = self.graph();
        let key_shape = [Shape::scalar()];
        let key = build_function(
            g,
            "key_func",
            self.output_types(),
            self.output_shapes(),
            |x| {
                let k = key_func(x)?;
                check_scalar_int64("key_func", &k)?;
                Ok(vec![k])
            },
        )?;
        let mut reduced = None;
        let reduce = build_function(
            g,
            "reduce_func",
            &[DType::I64, DType::Resource],
            &[Shape::scalar(), Shape::scalar()],
            |args| {
                let group = Dataset::from_handle(
                    args[1].clone(),
                    self.output_types().to_vec(),
                    self.output_shapes().to_vec(),
                );
                let ds = reduce_func(&args[0], &group)?;
                let handle = ds.handle().clone();
                reduced = Some(ds);
                Ok(vec![handle])
            },
        )?;
        let reduced = reduced.ok_or_else(|| Error::internal("reduce_func was not built"))?;
        let window = build_function(g, "window_size_func", &[DType::I64], &key_shape, |k| {
            let w = window_size_func(&k[0])?;
            check_scalar_int64("window_size_func", &w)?;
            Ok(vec![w])
        })?;
        let mut b = crate::new_op(g, "GroupByWindowDataset").input(self.handle());
        for (func, prefix) in [&key, &reduce, &window].into_iter().zip(FUNCTIONS) {
            b = with_arguments(b, func, prefix);
        }
        Dataset::build_like(b, &reduced)
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

struct GroupByWindow {
    input: Arc<dyn DatasetBase>,
    dtypes: Vec<DType>,
    key: BoundFunction,
    reduce: BoundFunction,
    window_size: BoundFunction,
}

impl DatasetBase for GroupByWindow {
    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(GroupByWindowIter {
            input: Some(self.input.make_iterator()?),
            input_dtypes: self.input.output_dtypes().to_vec(),
            dtypes: self.dtypes.clone(),
            key: self.key.clone(),
            reduce: self.reduce.clone(),
            window_size: self.window_size.clone(),
            groups: BTreeMap::new(),
            window_sizes: HashMap::new(),
            current: None,
        }))
    }
}

struct GroupByWindowIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    input_dtypes: Vec<DType>,
    dtypes: Vec<DType>,
    key: BoundFunction,
    reduce: BoundFunction,
    window_size: BoundFunction,
    /// The groups being filled, by key; the first is flushed first at the end.
    groups: BTreeMap<i64, Vec<Element>>,
    window_sizes: HashMap<i64, usize>,
    /// The iterator of the group being handed out.
    current: Option<Box<dyn IteratorBase>>,
}

impl GroupByWindowIter {
    /// Reduces group `key` and starts handing out the dataset `reduce_func` made of it. The
    /// group stays until that worked, as in TensorFlow.
    fn flush(&mut self, key: i64, ctx: &IteratorContext) -> Result<()> {
        let elements: Arc<[Element]> = self.groups.get(&key).cloned().unwrap_or_default().into();
        let group = dataset_tensor(Arc::new(InMemory {
            elements,
            dtypes: self.input_dtypes.clone(),
        }));
        let out = self.reduce.call(vec![Tensor::scalar(key), group], ctx)?;
        let [handle] = out.as_slice() else {
            return Err(Error::invalid_argument(
                "`reduce_func` must return a single scalar of dtype DT_VARIANT.",
            ));
        };
        let ds = dataset_in(handle)?;
        if ds.output_dtypes() != self.dtypes.as_slice() {
            return Err(Error::invalid_argument(format!(
                "`reduce_func`'s dataset has dtypes {:?}, not {:?}",
                ds.output_dtypes(),
                self.dtypes
            )));
        }
        self.current = Some(ds.make_iterator()?);
        self.groups.remove(&key);
        Ok(())
    }

    /// The window size of `key`, from `window_size_func` the first time.
    fn window_size_of(&mut self, key: i64, ctx: &IteratorContext) -> Result<usize> {
        if let Some(&w) = self.window_sizes.get(&key) {
            return Ok(w);
        }
        let out = self.window_size.call(vec![Tensor::scalar(key)], ctx)?;
        let w = scalar_int64(&out, "`window_size_func` must return a scalar int64.")?;
        if w <= 0 {
            return Err(Error::invalid_argument(format!(
                "Window size must be greater than zero, but got {w}."
            )));
        }
        let w = usize::try_from(w).unwrap_or(usize::MAX);
        self.window_sizes.insert(key, w);
        Ok(w)
    }
}

impl IteratorBase for GroupByWindowIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        loop {
            if let Some(current) = self.current.as_mut() {
                if let Some(e) = current.get_next(ctx)? {
                    return Ok(Some(e));
                }
                self.current = None;
            }
            if let Some(input) = self.input.as_mut() {
                let Some(element) = input.get_next(ctx)? else {
                    self.input = None;
                    continue;
                };
                // Groups that never fill keep this loop reading: it ends with the run.
                ctx.check()?;
                let out = self.key.call(element.clone(), ctx)?;
                let key = scalar_int64(&out, "`key_func` must return a scalar int64.")?;
                let window = self.window_size_of(key, ctx)?;
                let group = self.groups.entry(key).or_default();
                group.push(element);
                if group.len() == window {
                    self.flush(key, ctx)?;
                }
                continue;
            }
            let Some(&key) = self.groups.keys().next() else {
                return Ok(None);
            };
            self.flush(key, ctx)?;
        }
    }
}

struct GroupByWindowKernel {
    functions: [FunctionAttr; 3],
}

impl Kernel for GroupByWindowKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let mut next = 1;
        let mut bound = Vec::with_capacity(3);
        for (f, [_, types, ..]) in self.functions.iter().zip(ARGUMENTS) {
            let n = ctx.node().attr::<Vec<DType>>(types)?.len();
            let captured = ctx.inputs()[next..next + n].to_vec();
            next += n;
            bound.push(BoundFunction::new(f.get(ctx)?, captured));
        }
        let [key, reduce, window_size]: [BoundFunction; 3] = bound
            .try_into()
            .map_err(|_| Error::internal("GroupByWindowDataset has three functions"))?;
        let ds = GroupByWindow {
            input,
            dtypes: output_dtypes(ctx.node())?,
            key,
            reduce,
            window_size,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

/// Each function's input list, its types attr and its function attrs, as the op declares them.
const ARGUMENTS: [[&str; 4]; 3] = [
    [
        "key_func_other_arguments",
        "Tkey_func_other_arguments",
        "key_func_feeds",
        "key_func_results",
    ],
    [
        "reduce_func_other_arguments",
        "Treduce_func_other_arguments",
        "reduce_func_feeds",
        "reduce_func_results",
    ],
    [
        "window_size_func_other_arguments",
        "Twindow_size_func_other_arguments",
        "window_size_func_feeds",
        "window_size_func_results",
    ],
];

pub(super) fn register() {
    let mut def =
        dataset_def("GroupByWindowDataset").input("input_dataset", ArgType::Fixed(DType::Resource));
    for [input, types, feeds, results] in ARGUMENTS {
        def = def
            .input(input, ArgType::List(types))
            .attr(types, AttrKind::Types, None)
            .attr(feeds, AttrKind::Strs, None)
            .attr(results, AttrKind::Strs, None);
    }
    register_op(def);
    register_kernel("GroupByWindowDataset", |node| {
        let f = |p: &str| FunctionAttr::from_node(node, p);
        Ok(Box::new(GroupByWindowKernel {
            functions: [f(FUNCTIONS[0])?, f(FUNCTIONS[1])?, f(FUNCTIONS[2])?],
        }))
    });
}
