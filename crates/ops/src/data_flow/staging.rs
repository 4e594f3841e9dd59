//! `StagingArea`: TensorFlow 1.x's `tf.contrib.staging.StagingArea`
//! (`tensorflow.python.ops.data_flow_ops.StagingArea`), a FIFO buffer of tensor tuples kept in
//! the session across steps, with which an input pipeline prefetches the next batch while the
//! current one trains.
//!
//! Its ops (`Stage`, `Unstage`, `StagePeek`, `StageSize`, `StageClear`; see
//! `staging_kernels.rs`) take no handle: each carries the area's name as its `shared_name`,
//! with its capacity and memory limit, and finds the session's buffer by it.

use std::collections::BTreeMap;

use weir_graph::{AttrValue, DType, Error, Graph, NameScope, Operation, Output, Result, Shape};

/// The index of [`StagingArea::peek`]: a number (made an int32 constant named `index` in the
/// peek's scope, as TensorFlow's Python converts it) or an int32 scalar tensor.
#[derive(Clone, Debug)]
pub enum StageIndex {
    /// A known index.
    Value(i32),
    /// An index computed or fed at run time.
    Tensor(Output),
}

impl From<i32> for StageIndex {
    fn from(i: i32) -> StageIndex {
        StageIndex::Value(i)
    }
}

impl From<Output> for StageIndex {
    fn from(t: Output) -> StageIndex {
        StageIndex::Tensor(t)
    }
}

impl From<&Output> for StageIndex {
    fn from(t: &Output) -> StageIndex {
        StageIndex::Tensor(t.clone())
    }
}

/// The constructor arguments of TensorFlow's `StagingArea(dtypes, shapes=None, names=None,
/// shared_name=None, capacity=0, memory_limit=0)`, with its defaults; made by
/// [`StagingArea::builder`].
#[derive(Clone, Debug)]
pub struct StagingAreaBuilder {
    dtypes: Vec<DType>,
    shapes: Option<Vec<Shape>>,
    names: Option<Vec<String>>,
    shared_name: Option<String>,
    capacity: i64,
    memory_limit: i64,
}

impl StagingAreaBuilder {
    /// The (possibly partial) shape of each component; `put` refuses values whose static
    /// shapes are incompatible, and `get`/`peek` outputs have these static shapes. Use
    /// `Shape::unknown()` for a component without one.
    pub fn shapes(mut self, shapes: &[Shape]) -> Self {
        self.shapes = Some(shapes.to_vec());
        self
    }

    /// Names the components (`names=`): elements are then put and got as dictionaries keyed
    /// by these names ([`StagingArea::put_dict`], [`StagingArea::get_dict`]).
    pub fn names(mut self, names: &[&str]) -> Self {
        self.names = Some(names.iter().map(|n| n.to_string()).collect());
        self
    }

    /// The name under which sessions find the buffer, shared by every area given it; by
    /// default a name unique in the graph, `StagingArea`, `StagingArea_1`, ...
    pub fn shared_name(mut self, name: &str) -> Self {
        self.shared_name = Some(name.to_string());
        self
    }

    /// The most elements the buffer holds; a `put` waits for room. 0 (the default) is
    /// unbounded.
    pub fn capacity(mut self, capacity: i64) -> Self {
        self.capacity = capacity;
        self
    }

    /// The most bytes of tensors the buffer holds; a `put` waits for room, and one that could
    /// never fit fails. 0 (the default) is unbounded.
    pub fn memory_limit(mut self, bytes: i64) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Names the area and adds its colocation op (`<name>_root/NoOp`), as the Python
    /// constructor does; the buffer itself is made by the first of its ops a session runs.
    pub fn build(self, graph: &Graph) -> Result<StagingArea> {
        let name = match self.shared_name {
            Some(n) => n,
            None => graph.unique_name(&format!("{}StagingArea", graph.current_scope())),
        };
        let shapes = match self.shapes {
            Some(s) if s.len() != self.dtypes.len() => {
                return Err(Error::invalid_argument(
                    "StagingArea shapes must be the same length as dtypes",
                ))
            }
            Some(s) => s,
            None => vec![Shape::unknown(); self.dtypes.len()],
        };
        if self
            .names
            .as_ref()
            .is_some_and(|n| n.len() != self.dtypes.len())
        {
            return Err(Error::invalid_argument(
                "StagingArea names must be the same length as dtypes",
            ));
        }
        let root = {
            let _scope = graph.name_scope(&format!("{name}_root"));
            crate::control_flow::no_op(graph)?
        };
        Ok(StagingArea {
            graph: graph.clone(),
            name,
            dtypes: self.dtypes,
            shapes,
            names: self.names.filter(|n| !n.is_empty()),
            capacity: self.capacity,
            memory_limit: self.memory_limit,
            root,
        })
    }
}

/// A staging area in a graph: TensorFlow's `StagingArea`. Each method adds one op, named
/// as TensorFlow's Python names it (`StagingArea_put`, `StagingArea_get`, ...).
///
/// The buffer lives in the session, so two sessions of one graph have their own; elements
/// come out in the order they went in. `get` and `peek` wait for the element, a bounded `put`
/// for room: in weir (unlike TensorFlow, whose waits here ignore it) a run's timeout or the
/// session's close ends such a wait.
///
/// ```
/// # use std::time::Duration;
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::constant, data_flow::StagingArea};
/// # use weir_session::{RunArgs, Session};
/// let g = Graph::new();
/// let area = StagingArea::builder(&[DType::F32, DType::I32])
///     .shapes(&[Shape::known(&[2]), Shape::scalar()])
///     .capacity(2)
///     .build(&g)?;
/// let put = area.put(&[constant(&g, vec![1.0f32, 2.0])?, constant(&g, 7)?])?;
/// let got = area.get()?;
/// assert_eq!((put.name(), got[0].name()), ("StagingArea_put".into(), "StagingArea_get:0".into()));
/// assert_eq!(got[0].shape(), Shape::known(&[2]));
///
/// let sess = Session::new(&g)?;
/// sess.run(&RunArgs::new().target(&put))?;
/// let out = sess.run(&RunArgs::new().fetch(&got[1]).timeout(Duration::from_secs(10)))?;
/// assert_eq!(out[0].to_scalar::<i32>()?, 7);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StagingArea {
    graph: Graph,
    name: String,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
    names: Option<Vec<String>>,
    capacity: i64,
    memory_limit: i64,
    root: Operation,
}

impl StagingArea {
    /// A staging area of elements whose components have `dtypes`, with TensorFlow's defaults
    /// for everything else.
    pub fn builder(dtypes: &[DType]) -> StagingAreaBuilder {
        StagingAreaBuilder {
            dtypes: dtypes.to_vec(),
            shapes: None,
            names: None,
            shared_name: None,
            capacity: 0,
            memory_limit: 0,
        }
    }

    /// The area's name (`area.name`), which its ops carry as `shared_name`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The component dtypes (`area.dtypes`).
    pub fn dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    /// The component shapes (`area.shapes`), unknown where not given.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// The component names (`area.names`), if the area has them.
    pub fn names(&self) -> Option<&[String]> {
        self.names.as_deref()
    }

    /// The capacity in elements (`area.capacity`); 0 is unbounded.
    pub fn capacity(&self) -> i64 {
        self.capacity
    }

    /// The memory limit in bytes (`area.memory_limit`); 0 is unbounded.
    pub fn memory_limit(&self) -> i64 {
        self.memory_limit
    }

    /// The `<name>_root/NoOp` op its ops are colocated with in TensorFlow.
    pub fn root_op(&self) -> &Operation {
        &self.root
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// `area.put(values)`: a `Stage` op (`<name>_put`) appending one element; on a bounded
    /// area it waits for room when run. `values` are the first components in order (fewer than
    /// the dtypes is accepted, as in TensorFlow, but such an element fails the `get` that
    /// takes it).
    pub fn put(&self, values: &[Output]) -> Result<Operation> {
        self.put_with(values, None)
    }

    /// `area.put(values, name=name)`.
    pub fn put_with(&self, values: &[Output], name: Option<&str>) -> Result<Operation> {
        let scope = self.scope("put", name);
        if self.names.is_some() {
            return Err(Error::invalid_argument(
                "You must enqueue a dictionary in a staging area with names",
            ));
        }
        let indices: Vec<usize> = (0..values.len()).collect();
        self.add_stage(&scope, values, &indices)
    }

    /// `area.put({name: value, ...})` on an area with names: any of the names (an element
    /// with some missing fails the `get` that takes it), each value going to its component.
    pub fn put_dict(&self, values: &[(&str, Output)]) -> Result<Operation> {
        self.put_dict_with(values, None)
    }

    /// `area.put({name: value, ...}, name=name)`.
    pub fn put_dict_with(
        &self,
        values: &[(&str, Output)],
        name: Option<&str>,
    ) -> Result<Operation> {
        let scope = self.scope("put", name);
        let names = self.names.as_ref().ok_or_else(|| {
            Error::invalid_argument("Staging areas must have names to enqueue a dictionary")
        })?;
        let mut keys: Vec<&str> = values.iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::invalid_argument(format!(
                "Key '{}' appears twice in the dictionary to put",
                w[0]
            )));
        }
        if keys.iter().any(|k| !names.iter().any(|n| n == k)) {
            let mut want: Vec<&str> = names.iter().map(String::as_str).collect();
            want.sort_unstable();
            return Err(Error::invalid_argument(format!(
                "Keys in dictionary to put do not match names of staging area. Dictionary: {}Queue: {}",
                python_list(&keys),
                python_list(&want)
            )));
        }
        if values.is_empty() {
            // Python's error unpacking the empty list of (value, index, key) triples.
            return Err(Error::invalid_argument(
                "not enough values to unpack (expected 3, got 0)",
            ));
        }
        let (vals, indices): (Vec<Output>, Vec<usize>) = names
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                let (_, v) = values.iter().find(|(k, _)| k == n)?;
                Some((v.clone(), i))
            })
            .unzip();
        self.add_stage(&scope, &vals, &indices)
    }

    /// TensorFlow's `_check_put_dtypes` of `values` (components `indices`), then the `Stage`.
    fn add_stage(
        &self,
        scope: &NameScope,
        values: &[Output],
        indices: &[usize],
    ) -> Result<Operation> {
        if values.len() > self.dtypes.len() {
            return Err(Error::invalid_argument(format!(
                "Unexpected number of inputs {} vs {}",
                values.len(),
                self.dtypes.len()
            )));
        }
        for (v, &i) in values.iter().zip(indices) {
            if v.dtype() != self.dtypes[i] {
                return Err(Error::invalid_argument(format!(
                    "Datatypes do not match. Received val.dtype <dtype: '{}'> and dtype <dtype: '{}'>",
                    v.dtype().python_name(),
                    self.dtypes[i].python_name()
                )));
            }
            let shape = v.shape();
            if !shape.is_compatible_with(&self.shapes[i]) {
                return Err(Error::invalid_argument(format!(
                    "Shapes {} and {} are incompatible",
                    tf1_shape_str(&shape),
                    tf1_shape_str(&self.shapes[i])
                )));
            }
        }
        let dtypes: Vec<DType> = values.iter().map(Output::dtype).collect();
        self.check_attrs("Stage", &dtypes, true)?;
        self.stage_op("Stage", scope, dtypes)
            .inputs(values.iter().cloned())
            .build()
    }

    /// `area.get()`: an `Unstage` op (`<name>_get`) that takes the first element out, waiting
    /// for one; its outputs in component order, with the area's shapes.
    pub fn get(&self) -> Result<Vec<Output>> {
        self.get_with(None)
    }

    /// `area.get(name=name)`.
    pub fn get_with(&self, name: Option<&str>) -> Result<Vec<Output>> {
        let op = {
            let scope = self.scope("get", name);
            self.check_attrs("Unstage", &self.dtypes, true)?;
            self.with_shapes(self.stage_op("Unstage", &scope, self.dtypes.clone()))
                .build()?
        };
        self.after_get(op)
    }

    /// `area.get()` on an area with names: the element as a dictionary.
    pub fn get_dict(&self) -> Result<BTreeMap<String, Output>> {
        self.to_dict(self.get_with(None)?)
    }

    /// `area.get(name=name)` on an area with names.
    pub fn get_dict_with(&self, name: Option<&str>) -> Result<BTreeMap<String, Output>> {
        self.to_dict(self.get_with(name)?)
    }

    /// `area.peek(index)`: a `StagePeek` op (`<name>_peek`) that reads the element at `index`
    /// (0 is the next `get`'s) without removing it, waiting until there is one.
    pub fn peek(&self, index: impl Into<StageIndex>) -> Result<Vec<Output>> {
        self.peek_with(index, None)
    }

    /// `area.peek(index, name=name)`.
    pub fn peek_with(
        &self,
        index: impl Into<StageIndex>,
        name: Option<&str>,
    ) -> Result<Vec<Output>> {
        let op = {
            let scope = self.scope("peek", name);
            let index = match index.into() {
                StageIndex::Value(i) => crate::array::constant_named(
                    &self.graph,
                    weir_graph::Tensor::scalar(i),
                    "index",
                )?,
                StageIndex::Tensor(t) => t,
            };
            self.check_attrs("StagePeek", &self.dtypes, true)?;
            self.with_shapes(self.stage_op("StagePeek", &scope, self.dtypes.clone()))
                .input(index)
                .build()?
        };
        self.after_get(op)
    }

    /// `area.peek(index)` on an area with names: the element as a dictionary.
    pub fn peek_dict(&self, index: impl Into<StageIndex>) -> Result<BTreeMap<String, Output>> {
        self.to_dict(self.peek_with(index, None)?)
    }

    /// `area.size()`: a `StageSize` op (`<name>_size`), the int32 number of elements.
    pub fn size(&self) -> Result<Output> {
        self.size_with(None)
    }

    /// `area.size(name=name)`.
    pub fn size_with(&self, name: Option<&str>) -> Result<Output> {
        let scope = self.scope("size", name);
        self.check_attrs("StageSize", &self.dtypes, false)?;
        self.stage_op("StageSize", &scope, self.dtypes.clone())
            .build()?
            .output(0)
    }

    /// `area.clear()`: a `StageClear` op (`<name>_clear`) that drops every element, making
    /// room for waiting puts.
    pub fn clear(&self) -> Result<Operation> {
        self.clear_with(None)
    }

    /// `area.clear(name=name)`.
    pub fn clear_with(&self, name: Option<&str>) -> Result<Operation> {
        let scope = self.scope("clear", name);
        self.check_attrs("StageClear", &self.dtypes, false)?;
        self.stage_op("StageClear", &scope, self.dtypes.clone())
            .build()
    }

    /// The scope an op is named by: `name`, or `<area name>_<suffix>`, made unique.
    fn scope(&self, suffix: &str, name: Option<&str>) -> NameScope {
        let base = name.map_or_else(|| format!("{}_{suffix}", self.name), str::to_string);
        self.graph.name_scope(&base)
    }

    /// The attr checks TensorFlow's Python makes when it adds `op_type` (in its OpDef's attr
    /// order), in its words.
    fn check_attrs(&self, op_type: &str, dtypes: &[DType], dtypes_min_1: bool) -> Result<()> {
        for (attr, v) in [
            ("capacity", self.capacity),
            ("memory_limit", self.memory_limit),
        ] {
            if v < 0 {
                return Err(Error::invalid_argument(format!(
                    "Attr '{attr}' of '{op_type}' Op passed {v} less than minimum 0."
                )));
            }
        }
        if dtypes_min_1 && dtypes.is_empty() {
            return Err(Error::invalid_argument(format!(
                "Attr 'dtypes' of '{op_type}' Op passed list of length 0 less than minimum 1."
            )));
        }
        Ok(())
    }

    fn stage_op(
        &self,
        op_type: &str,
        scope: &NameScope,
        dtypes: Vec<DType>,
    ) -> weir_graph::OpBuilder {
        crate::new_op(&self.graph, op_type)
            .name(scope.prefix())
            .attr("dtypes", AttrValue::Types(dtypes))
            .attr("capacity", self.capacity)
            .attr("memory_limit", self.memory_limit)
            .attr("container", "")
            .attr("shared_name", self.name.as_str())
    }

    /// Python's `set_shape` of each output to the area's shape.
    fn with_shapes(&self, mut b: weir_graph::OpBuilder) -> weir_graph::OpBuilder {
        for (i, s) in self.shapes.iter().enumerate() {
            b = b.output_shape(i, s.clone());
        }
        b
    }

    /// The outputs of a get or peek. TensorFlow's Python adds a `NoOp` there (to compare
    /// device scopes), which later default op names count: so does weir.
    fn after_get(&self, op: Operation) -> Result<Vec<Output>> {
        crate::control_flow::no_op(&self.graph)?;
        Ok(op.outputs())
    }

    fn to_dict(&self, outs: Vec<Output>) -> Result<BTreeMap<String, Output>> {
        let names = self.names.as_ref().ok_or_else(|| {
            Error::invalid_argument("StagingArea must have names to return a dictionary")
        })?;
        Ok(names.iter().cloned().zip(outs).collect())
    }
}

/// Python's repr of a list of strings: `['a', 'b']`.
fn python_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// A static shape as TensorFlow 1.x's Python prints it in shape errors: `(3,)`, `(?, 2)`, `()`.
fn tf1_shape_str(s: &Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(dims) => {
            let parts: Vec<String> = dims
                .iter()
                .map(|d| d.map_or_else(|| "?".to_string(), |n| n.to_string()))
                .collect();
            match parts.len() {
                1 => format!("({},)", parts[0]),
                _ => format!("({})", parts.join(", ")),
            }
        }
    }
}

pub(super) fn register() {
    super::staging_kernels::register();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_print_as_tensorflow_1_does() {
        assert_eq!(tf1_shape_str(&Shape::known(&[3])), "(3,)");
        assert_eq!(tf1_shape_str(&Shape::new(vec![None, Some(2)])), "(?, 2)");
        assert_eq!(tf1_shape_str(&Shape::scalar()), "()");
        assert_eq!(tf1_shape_str(&Shape::unknown()), "<unknown>");
    }

    #[test]
    fn ops_carry_the_area_name_and_bounds() {
        let g = Graph::new();
        let a = StagingArea::builder(&[DType::I64])
            .capacity(3)
            .memory_limit(100)
            .build(&g)
            .unwrap();
        let size = a.size().unwrap();
        let op = size.op();
        assert_eq!(op.op_type(), "StageSize");
        assert_eq!(op.attr::<String>("shared_name").unwrap(), "StagingArea");
        assert_eq!(op.attr::<i64>("capacity").unwrap(), 3);
        assert_eq!(op.attr::<i64>("memory_limit").unwrap(), 100);
        assert_eq!(size.shape(), Shape::scalar());
        let b = StagingArea::builder(&[DType::I64]).build(&g).unwrap();
        assert_eq!(b.name(), "StagingArea_1");
        assert_eq!(b.root_op().name(), "StagingArea_1_root/NoOp");
    }
}
