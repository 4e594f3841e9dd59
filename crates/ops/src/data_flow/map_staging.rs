//! TensorFlow's `MapStagingArea` (`tf.compat.v1` `data_flow_ops.MapStagingArea`): an
//! associative container of tuples of tensors keyed by int64 that outlives steps, with puts of
//! some components at a time (a tuple is incomplete until all its components arrived), peeks,
//! gets by key or of any key (the smallest, when ordered), sizes and clear.
//!
//! Every op of one area names the session's map by `shared_name` (the area's name), so the
//! first of them to run makes it; peeks and gets of a missing key wait until it is put, a get
//! without a key waits while the map is empty, and a put waits while the map is at its
//! capacity or memory limit. All those waits end when the run is cancelled or times out.

use weir_graph::{DType, Error, Graph, Operation, Output, Result, Shape, Tensor};

pub(super) use super::map_staging_kernels::register;

/// Which components a peek or get reads: Python's `indices` argument (`None`, a list of ints,
/// or a list of component names).
#[derive(Clone, Copy, Debug, Default)]
pub enum StagingIndices<'a> {
    /// Every component, in order (`indices=None`).
    #[default]
    All,
    /// These component positions; negative ones count from the end for the dtypes and shapes,
    /// as Python's list indexing does, but reach the op as they are.
    Positions(&'a [i32]),
    /// The components of these names (an area built with `names`).
    Names(&'a [&'a str]),
}

/// Options of a [`MapStagingArea`], with TensorFlow's defaults: `shapes=None, names=None,
/// shared_name=None, ordered=False, capacity=0, memory_limit=0`.
#[derive(Clone, Debug)]
pub struct MapStagingAreaBuilder {
    dtypes: Vec<DType>,
    shapes: Option<Vec<Shape>>,
    names: Option<Vec<String>>,
    shared_name: Option<String>,
    ordered: bool,
    capacity: i64,
    memory_limit: i64,
}

impl MapStagingAreaBuilder {
    /// The static shape of each component (one per dtype; `Shape::unknown()` leaves one free).
    pub fn shapes(mut self, shapes: &[Shape]) -> Self {
        self.shapes = Some(shapes.to_vec());
        self
    }

    /// Names the components, one per dtype: puts then take `(name, value)` pairs
    /// ([`MapStagingArea::put_dict`]) and indices may be names.
    pub fn names(mut self, names: &[&str]) -> Self {
        self.names = Some(names.iter().map(|n| n.to_string()).collect());
        self
    }

    /// The name the area's ops share the map by; by default a graph-unique `MapStagingArea`.
    pub fn shared_name(mut self, name: &str) -> Self {
        self.shared_name = Some(name.to_string());
        self
    }

    /// Keeps the tuples in key order (the `OrderedMap*` ops): a get without a key then takes
    /// the smallest key.
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// The most complete tuples the map holds before puts wait; 0 is unbounded.
    pub fn capacity(mut self, capacity: i64) -> Self {
        self.capacity = capacity;
        self
    }

    /// The most bytes of values the map holds before puts wait; 0 is unbounded.
    pub fn memory_limit(mut self, memory_limit: i64) -> Self {
        self.memory_limit = memory_limit;
        self
    }

    /// Makes the area: its name, and the `<name>_root/NoOp` TensorFlow colocates its ops with.
    pub fn build(self, graph: &Graph) -> Result<MapStagingArea> {
        let name = match self.shared_name {
            Some(n) => n,
            None => graph.unique_name(&format!("{}MapStagingArea", graph.current_scope())),
        };
        let n = self.dtypes.len();
        let shapes = match self.shapes {
            Some(s) if s.len() != n => {
                return Err(Error::invalid_argument(
                    "StagingArea shapes must be the same length as dtypes",
                ))
            }
            Some(s) => s,
            None => vec![Shape::unknown(); n],
        };
        if self.names.as_ref().is_some_and(|names| names.len() != n) {
            return Err(Error::invalid_argument(
                "StagingArea names must be the same length as dtypes",
            ));
        }
        {
            let _root = graph.name_scope(&format!("{name}_root"));
            crate::control_flow::no_op(graph)?;
        }
        Ok(MapStagingArea {
            graph: graph.clone(),
            name,
            dtypes: self.dtypes,
            shapes,
            names: self.names,
            ordered: self.ordered,
            capacity: self.capacity,
            memory_limit: self.memory_limit,
        })
    }
}

/// TensorFlow's `MapStagingArea(dtypes, shapes=None, names=None, shared_name=None,
/// ordered=False, capacity=0, memory_limit=0)`: int64 keys to tuples of `dtypes`, kept in the
/// session between runs.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::constant;
/// # use weir_ops::data_flow::{MapStagingArea, StagingIndices};
/// let g = Graph::new();
/// let area = MapStagingArea::builder(&[DType::F32, DType::I32])
///     .ordered(true)
///     .capacity(8)
///     .build(&g)?;
/// let key = constant(&g, 7i64)?;
/// let x = constant(&g, 1.5f32)?;
/// let y = constant(&g, 2i32)?;
/// // Two partial puts: the tuple of key 7 is complete after the second.
/// let put_x = area.put(&key, &[x], Some(&[0]))?;
/// let put_y = area.put(&key, &[y], Some(&[1]))?;
/// let (_, values) = area.get(Some(&key), StagingIndices::All)?;
/// let (smallest_key, _) = area.get(None, StagingIndices::Positions(&[1]))?;
/// assert_eq!(put_x.name(), "MapStagingArea_put");
/// assert_eq!(values[0].name(), "MapStagingArea_get:0");
/// assert_eq!(smallest_key.dtype(), DType::I64);
/// # let _ = put_y;
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MapStagingArea {
    graph: Graph,
    name: String,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
    names: Option<Vec<String>>,
    ordered: bool,
    capacity: i64,
    memory_limit: i64,
}

/// Python's repr of a list of strings: `['a', 'b']`.
fn python_list<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{}'", s.as_ref())).collect();
    format!("[{}]", quoted.join(", "))
}

fn python_dtype(d: DType) -> String {
    format!("<dtype: '{}'>", d.python_name())
}

impl MapStagingArea {
    /// Options for an area of `dtypes`, with TensorFlow's defaults.
    pub fn builder(dtypes: &[DType]) -> MapStagingAreaBuilder {
        MapStagingAreaBuilder {
            dtypes: dtypes.to_vec(),
            shapes: None,
            names: None,
            shared_name: None,
            ordered: false,
            capacity: 0,
            memory_limit: 0,
        }
    }

    /// An unordered, unbounded area of `dtypes` with TensorFlow's defaults.
    pub fn new(graph: &Graph, dtypes: &[DType]) -> Result<MapStagingArea> {
        MapStagingArea::builder(dtypes).build(graph)
    }

    /// The area's name: the `shared_name` of its ops.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The dtype of each component.
    pub fn dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    /// The static shape of each component (unknown where none was given).
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// The component names, if the area has them.
    pub fn names(&self) -> Option<&[String]> {
        self.names.as_deref()
    }

    /// Whether the area keeps its tuples in key order.
    pub fn ordered(&self) -> bool {
        self.ordered
    }

    /// The most complete tuples it holds (0: unbounded).
    pub fn capacity(&self) -> i64 {
        self.capacity
    }

    /// The most bytes it holds (0: unbounded).
    pub fn memory_limit(&self) -> i64 {
        self.memory_limit
    }

    fn op_type(&self, op: &str) -> String {
        if self.ordered {
            format!("Ordered{op}")
        } else {
            op.to_string()
        }
    }

    /// Component `i` as Python's list indexing finds it (negative counts from the end).
    fn component(&self, i: i32) -> Result<usize> {
        let n = self.dtypes.len() as i64;
        let at = if i < 0 { i as i64 + n } else { i as i64 };
        if (0..n).contains(&at) {
            Ok(at as usize)
        } else {
            Err(Error::invalid_argument("list index out of range"))
        }
    }

    /// A map op of this area, with the attrs every one of them carries.
    fn map_op(&self, op: &str, dtypes: Vec<DType>) -> weir_graph::OpBuilder {
        crate::new_op(&self.graph, &self.op_type(op))
            .attr("dtypes", dtypes)
            .attr("shared_name", self.name.as_str())
            .attr("container", "")
            .attr("capacity", self.capacity)
            .attr("memory_limit", self.memory_limit)
    }

    fn indices_const(&self, indices: &[i32]) -> Result<Output> {
        let t = Tensor::from_vec(&[indices.len()], indices.to_vec())?;
        crate::array::constant_named(&self.graph, t, "indices")
    }

    /// `put(key, vals, indices)`: stages `vals` as components `indices` of `key`'s tuple; the
    /// op is `<name>_put`. As in Python, `indices` is required for a list of values.
    pub fn put(&self, key: &Output, vals: &[Output], indices: Option<&[i32]>) -> Result<Operation> {
        self.put_with(key, vals, indices, None)
    }

    /// `put(key, vals, indices, name=name)`.
    pub fn put_with(
        &self,
        key: &Output,
        vals: &[Output],
        indices: Option<&[i32]>,
        name: Option<&str>,
    ) -> Result<Operation> {
        // Python enters the op's scope before it checks the values.
        let scope = self.put_scope(name);
        if self.names.is_some() {
            return Err(Error::invalid_argument(
                "You must enqueue a dictionary in a staging area with names",
            ));
        }
        let indices = indices.ok_or_else(|| {
            Error::invalid_argument("Indices must be supplied when inserting a list of tensors")
        })?;
        if indices.len() != vals.len() {
            return Err(Error::invalid_argument(format!(
                "Number of indices {} doesn't match number of values {}",
                indices.len(),
                vals.len()
            )));
        }
        self.add_put(&scope, key, vals, indices)
    }

    /// `put(key, {name: value, ...})` on an area with names: any subset of the components.
    pub fn put_dict(&self, key: &Output, vals: &[(&str, Output)]) -> Result<Operation> {
        self.put_dict_with(key, vals, None)
    }

    /// `put(key, {name: value, ...}, name=name)`.
    pub fn put_dict_with(
        &self,
        key: &Output,
        vals: &[(&str, Output)],
        name: Option<&str>,
    ) -> Result<Operation> {
        let scope = self.put_scope(name);
        let names = self.names.as_ref().ok_or_else(|| {
            Error::invalid_argument("Staging areas must have names to enqueue a dictionary")
        })?;
        let mut keys: Vec<&str> = vals.iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        keys.dedup();
        if keys.iter().any(|k| !names.iter().any(|n| n == k)) {
            let mut want: Vec<&str> = names.iter().map(String::as_str).collect();
            want.sort_unstable();
            return Err(Error::invalid_argument(format!(
                "Keys in dictionary to put do not match names of staging area. Dictionary: {}Queue: {}",
                python_list(&keys),
                python_list(&want)
            )));
        }
        let (mut picked, mut indices) = (Vec::new(), Vec::new());
        for (i, n) in names.iter().enumerate() {
            // A later pair of one name wins, as in a Python dict literal.
            if let Some((_, v)) = vals.iter().rev().find(|(k, _)| k == n) {
                picked.push(v.clone());
                indices.push(i as i32);
            }
        }
        if picked.is_empty() {
            return Err(Error::invalid_argument(
                "not enough values to unpack (expected 3, got 0)",
            ));
        }
        self.add_put(&scope, key, &picked, &indices)
    }

    fn put_scope(&self, name: Option<&str>) -> weir_graph::NameScope {
        let base = name.map_or_else(|| format!("{}_put", self.name), str::to_string);
        self.graph.name_scope(&base)
    }

    /// Python's `_check_put_dtypes` checks of each value, then the `MapStage` op.
    fn add_put(
        &self,
        scope: &weir_graph::NameScope,
        key: &Output,
        vals: &[Output],
        indices: &[i32],
    ) -> Result<Operation> {
        if vals.len() > self.dtypes.len() {
            return Err(Error::invalid_argument(format!(
                "Unexpected number of inputs {} vs {}",
                vals.len(),
                self.dtypes.len()
            )));
        }
        for (v, &i) in vals.iter().zip(indices) {
            let at = self.component(i)?;
            if v.dtype() != self.dtypes[at] {
                return Err(Error::invalid_argument(format!(
                    "Datatypes do not match. Received val.dtype {} and dtype {}",
                    python_dtype(v.dtype()),
                    python_dtype(self.dtypes[at])
                )));
            }
            let (have, want) = (v.shape(), &self.shapes[at]);
            if !have.is_compatible_with(want) {
                return Err(Error::invalid_argument(format!(
                    "Shapes {} and {} are incompatible",
                    have.python_str(),
                    want.python_str()
                )));
            }
        }
        if vals.is_empty() {
            return Err(Error::invalid_argument(format!(
                "Attr 'fake_dtypes' of '{}' Op passed list of length 0 less than minimum 1.",
                self.op_type("MapStage")
            )));
        }
        let indices = self.indices_const(indices)?;
        let fake: Vec<DType> = vals.iter().map(Output::dtype).collect();
        self.map_op("MapStage", self.dtypes.clone())
            .name(scope.prefix())
            .input(key)
            .input(indices)
            .inputs(vals.iter().cloned())
            .attr("fake_dtypes", fake)
            .build()
    }

    /// Python's `_get_indices_and_dtypes`: the component positions `indices` names, with the
    /// positions as given (the op sees negative ones as they are) and the components they pick.
    fn resolve(&self, indices: StagingIndices<'_>) -> Result<(Vec<i32>, Vec<usize>)> {
        let given: Vec<i32> = match indices {
            StagingIndices::All => (0..self.dtypes.len() as i32).collect(),
            StagingIndices::Positions(p) => p.to_vec(),
            StagingIndices::Names([]) => Vec::new(),
            StagingIndices::Names(wanted) => {
                let names = self.names.as_ref().ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "String indices provided {}, but this Staging Area was not created with names.",
                        python_list(wanted)
                    ))
                })?;
                wanted
                    .iter()
                    .map(|w| {
                        names
                            .iter()
                            .position(|n| n == w)
                            .map(|i| i as i32)
                            .ok_or_else(|| {
                                Error::invalid_argument(format!(
                                    "Named index not in Staging Area names {}",
                                    python_list(names)
                                ))
                            })
                    })
                    .collect::<Result<_>>()?
            }
        };
        if given.is_empty() {
            return Err(Error::invalid_argument("Empty indices"));
        }
        let picked = given
            .iter()
            .map(|&i| self.component(i))
            .collect::<Result<_>>()?;
        Ok((given, picked))
    }

    /// Adds a peek or get op (`key` is `None` for `MapUnstageNoKey`) named in a scope of its
    /// own, with the area's static shapes on its value outputs.
    fn add_read(
        &self,
        op: &str,
        base: String,
        key: Option<&Output>,
        indices: StagingIndices<'_>,
    ) -> Result<Vec<Output>> {
        let (given, picked) = self.resolve(indices)?;
        let scope = self.graph.name_scope(&base);
        let first = usize::from(key.is_none());
        let dtypes: Vec<DType> = picked.iter().map(|&i| self.dtypes[i]).collect();
        let mut b = self.map_op(op, dtypes).name(scope.prefix());
        if let Some(k) = key {
            b = b.input(k);
        }
        b = b.input(self.indices_const(&given)?);
        for (j, &i) in picked.iter().enumerate() {
            b = b.output_shape(first + j, self.shapes[i].clone());
        }
        Ok(b.build()?.outputs())
    }

    /// `peek(key, indices)`: the values of `key`'s tuple (waiting until it is put), left in
    /// place; the op is `<name>_pop`, as TensorFlow names it.
    pub fn peek(&self, key: &Output, indices: StagingIndices<'_>) -> Result<Vec<Output>> {
        self.peek_with(key, indices, None)
    }

    /// `peek(key, indices, name=name)`.
    pub fn peek_with(
        &self,
        key: &Output,
        indices: StagingIndices<'_>,
        name: Option<&str>,
    ) -> Result<Vec<Output>> {
        let base = name.map_or_else(|| format!("{}_pop", self.name), str::to_string);
        self.add_read("MapPeek", base, Some(key), indices)
    }

    /// `get(key, indices)`: with a key, takes `key`'s tuple (waiting until it is put; op
    /// `<name>_get`) and returns that key; without, takes the smallest key's tuple (ordered) or
    /// any (unordered), waiting while the map is empty (op `<name>_get_nokey`), and returns the
    /// key it took. A partial get takes those components; the tuple goes once all are taken.
    pub fn get(
        &self,
        key: Option<&Output>,
        indices: StagingIndices<'_>,
    ) -> Result<(Output, Vec<Output>)> {
        self.get_with(key, indices, None)
    }

    /// `get(key, indices, name=name)`.
    pub fn get_with(
        &self,
        key: Option<&Output>,
        indices: StagingIndices<'_>,
        name: Option<&str>,
    ) -> Result<(Output, Vec<Output>)> {
        match key {
            Some(k) => {
                let base = name.map_or_else(|| format!("{}_get", self.name), str::to_string);
                let values = self.add_read("MapUnstage", base, Some(k), indices)?;
                Ok((k.clone(), values))
            }
            None => {
                let base = name.map_or_else(|| format!("{}_get_nokey", self.name), str::to_string);
                let mut outs = self.add_read("MapUnstageNoKey", base, None, indices)?;
                let key = outs.remove(0);
                Ok((key, outs))
            }
        }
    }

    /// Values keyed by the component names of `indices`, as Python returns them from an area
    /// with names; InvalidArgument for an area without.
    pub fn named(
        &self,
        indices: StagingIndices<'_>,
        values: Vec<Output>,
    ) -> Result<Vec<(String, Output)>> {
        let names = self
            .names
            .as_ref()
            .ok_or_else(|| Error::invalid_argument("This Staging Area has no names"))?;
        let (_, picked) = self.resolve(indices)?;
        Ok(picked
            .iter()
            .map(|&i| names[i].clone())
            .zip(values)
            .collect())
    }

    fn counter(&self, op: &str, suffix: &str, name: Option<&str>) -> Result<Operation> {
        let base = name.map_or_else(|| format!("{}_{suffix}", self.name), str::to_string);
        self.map_op(op, self.dtypes.clone()).name(base).build()
    }

    /// `size()`: an int32 scalar, the complete tuples staged; the op is `<name>_size`.
    pub fn size(&self) -> Result<Output> {
        self.size_with(None)
    }

    /// `size(name=name)`.
    pub fn size_with(&self, name: Option<&str>) -> Result<Output> {
        self.counter("MapSize", "size", name)?.output(0)
    }

    /// `incomplete_size()`: an int32 scalar, the tuples still missing components; the op is
    /// `<name>_incomplete_size`.
    pub fn incomplete_size(&self) -> Result<Output> {
        self.incomplete_size_with(None)
    }

    /// `incomplete_size(name=name)`.
    pub fn incomplete_size_with(&self, name: Option<&str>) -> Result<Output> {
        self.counter("MapIncompleteSize", "incomplete_size", name)?
            .output(0)
    }

    /// `clear()`: drops every tuple, complete or not; the op is `<name>_clear`.
    pub fn clear(&self) -> Result<Operation> {
        self.clear_with(None)
    }

    /// `clear(name=name)`.
    pub fn clear_with(&self, name: Option<&str>) -> Result<Operation> {
        self.counter("MapClear", "clear", name)
    }
}
