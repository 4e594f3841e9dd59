//! `tf.compat.v1.map_fn` as TensorFlow 1 builds it: each of `elems` unstacked into a
//! TensorArray, a `while_loop` of at most `n` iterations that reads element `i` of each, calls
//! `fn` on them and writes its results into result TensorArrays (whose flows are the loop
//! variables), and the results stacked. Also what [`scan`](super::scan) and
//! [`foldl`](super::foldl) share with it.

use weir_graph::{DType, Error, Graph, Output, Result, Shape};

use super::WhileLoop;
use crate::array::{constant, constant_named, shape, StridedSlice};
use crate::math::{add, less, sub};
use crate::tensor_array::{Int32Arg, TensorArray};

/// How many elements a functional op iterates over: known when building, or computed from the
/// first of `elems`.
#[derive(Clone)]
pub(super) enum Len {
    Static(i32),
    Dynamic(Output),
}

impl Len {
    /// The first dimension of `first`: known when its static shape says so (and, when
    /// `zero_is_dynamic`, is not 0: Python's `dim or tf.shape(x)[0]`), else `tf.shape(x)[0]`.
    pub(super) fn of(first: &Output, zero_is_dynamic: bool) -> Result<Len> {
        match first.shape().dim(0) {
            Some(n) if n > 0 || !zero_is_dynamic => {
                let n = i32::try_from(n).map_err(|_| {
                    Error::invalid_argument(format!("{n} elements do not fit in an int32"))
                })?;
                Ok(Len::Static(n))
            }
            _ => Ok(Len::Dynamic(
                StridedSlice::new()
                    .shrink_axis_mask(1)
                    .build(shape(first)?, &[0], &[1], &[1])?,
            )),
        }
    }

    /// The length as an index or size argument.
    pub(super) fn arg(&self) -> Int32Arg {
        match self {
            Len::Static(n) => Int32Arg::Value(*n),
            Len::Dynamic(o) => Int32Arg::Tensor(o.clone()),
        }
    }

    /// The length as a tensor (a new `Const` named `name` when known).
    pub(super) fn tensor(&self, g: &Graph, name: &str) -> Result<Output> {
        match self {
            Len::Static(n) => constant_named(g, *n, name),
            Len::Dynamic(o) => Ok(o.clone()),
        }
    }

    /// The length minus `k`: a number when known, else a `Sub`.
    pub(super) fn minus(&self, g: &Graph, k: i32) -> Result<Int32Arg> {
        match self {
            Len::Static(n) => Ok(Int32Arg::Value(n - k)),
            Len::Dynamic(o) => Ok(Int32Arg::Tensor(sub(o, &constant(g, k)?)?)),
        }
    }
}

impl Int32Arg {
    /// The argument as a tensor (a new `Const` when it is a number).
    pub(super) fn output(&self, g: &Graph) -> Result<Output> {
        match self {
            Int32Arg::Value(v) => constant(g, *v),
            Int32Arg::Tensor(o) => Ok(o.clone()),
        }
    }
}

/// The graph of `elems`, which must not be empty and must share it.
pub(super) fn elems_graph(elems: &[Output]) -> Result<Graph> {
    let first = elems.first().ok_or_else(|| {
        Error::invalid_argument(
            "elems must be a Tensor or (possibly nested) sequence of Tensors. Got [], which does not contain any Tensors.",
        )
    })?;
    for e in elems {
        if !e.graph().ptr_eq(first.graph()) {
            return Err(Error::invalid_argument(format!(
                "Tensor {} must be from the same graph as Tensor {}.",
                e.name(),
                first.name()
            )));
        }
    }
    Ok(first.graph().clone())
}

/// The static first dimension every one of `elems` shares (Python's `n_static`, with
/// `assert_is_compatible_with` between them); each must have rank 1 or more.
pub(super) fn static_len(elems: &[Output]) -> Result<Option<usize>> {
    if elems.first().and_then(|e| e.shape().rank()) == Some(0) {
        return Err(Error::invalid_argument(
            "Elements in elems must be 1+ dimensional Tensors, not scalars",
        ));
    }
    let mut n_static = None;
    for (k, e) in elems.iter().enumerate() {
        let s = e.shape();
        if s.rank() == Some(0) {
            return Err(Error::invalid_argument(
                "Shape () must have rank at least 1",
            ));
        }
        let d = s.dim(0);
        if k == 0 {
            n_static = d;
        } else if let (Some(a), Some(b)) = (n_static, d) {
            if a != b {
                return Err(Error::invalid_argument(format!(
                    "Dimensions {a} and {b} are not compatible"
                )));
            }
        }
    }
    Ok(n_static)
}

/// Python's `nest.assert_same_structure` between what `fn` should return and what it did.
pub(super) fn check_structure(expected: usize, got: usize) -> Result<()> {
    if expected != got {
        return Err(Error::invalid_argument(format!(
            "The two structures don't have the same nested structure. fn returned {got} tensors where {expected} were expected."
        )));
    }
    Ok(())
}

/// The options every functional op passes to its `while_loop`.
#[derive(Clone, Debug)]
pub(super) struct LoopOptions {
    pub parallel_iterations: i64,
    pub back_prop: bool,
    pub swap_memory: bool,
}

impl LoopOptions {
    pub(super) fn while_loop(&self, maximum_iterations: &Output) -> WhileLoop {
        WhileLoop::new()
            .parallel_iterations(self.parallel_iterations)
            .back_prop(self.back_prop)
            .swap_memory(self.swap_memory)
            .maximum_iterations(maximum_iterations)
    }
}

/// `tf.compat.v1.map_fn(fn, elems, ...)` with its options; see [`map_fn`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::constant, control_flow::MapFn, math::{cast, mul}};
/// let g = Graph::new();
/// let x = constant(&g, [1.5f32, 2.5])?;
/// let doubled = MapFn::new()
///     .dtype(&[DType::I32])
///     .build(|v| Ok(vec![mul(&cast(&v[0], DType::I32)?, &constant(&g, 2i32)?)?]), &[x])?;
/// assert_eq!(doubled[0].dtype(), DType::I32);
/// assert_eq!(doubled[0].shape(), Shape::known(&[2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MapFn {
    signature: Option<Vec<(DType, Shape)>>,
    parallel_iterations: Option<i64>,
    back_prop: bool,
    swap_memory: bool,
    infer_shape: bool,
    name: Option<String>,
}

impl Default for MapFn {
    fn default() -> Self {
        MapFn {
            signature: None,
            parallel_iterations: None,
            back_prop: true,
            swap_memory: false,
            infer_shape: true,
            name: None,
        }
    }
}

impl MapFn {
    /// A `map_fn` with TensorFlow's defaults, named `map`.
    pub fn new() -> MapFn {
        MapFn::default()
    }

    /// The dtypes `fn` returns, one per result (TensorFlow's `dtype`); by default those of
    /// `elems`, one result per element tensor.
    pub fn dtype(mut self, dtypes: &[DType]) -> MapFn {
        self.signature = Some(dtypes.iter().map(|&d| (d, Shape::unknown())).collect());
        self
    }

    /// The dtype and shape of each result of `fn` (TensorFlow's `fn_output_signature` of
    /// `tf.TensorSpec`s).
    pub fn fn_output_signature(mut self, specs: &[(DType, Shape)]) -> MapFn {
        self.signature = Some(specs.to_vec());
        self
    }

    /// How many iterations TensorFlow may run at once (default 10).
    pub fn parallel_iterations(mut self, n: i64) -> MapFn {
        self.parallel_iterations = Some(n);
        self
    }

    /// Whether gradients may flow through the loop (default true).
    pub fn back_prop(mut self, on: bool) -> MapFn {
        self.back_prop = on;
        self
    }

    /// TensorFlow's `swap_memory` (default false); it changes nothing in weir.
    pub fn swap_memory(mut self, on: bool) -> MapFn {
        self.swap_memory = on;
        self
    }

    /// Whether every result of `fn` must have one shape across elements (default true).
    pub fn infer_shape(mut self, on: bool) -> MapFn {
        self.infer_shape = on;
        self
    }

    /// The name scope of the ops (default `map`).
    pub fn name(mut self, name: &str) -> MapFn {
        self.name = Some(name.to_string());
        self
    }

    /// Builds the map; see [`map_fn`].
    pub fn build(
        &self,
        f: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
        elems: &[Output],
    ) -> Result<Vec<Output>> {
        let g = elems_graph(elems)?;
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("map"));
        let n_static = static_len(elems)?;
        let n = Len::of(&elems[0], true)?;
        let elems_tas = elems
            .iter()
            .map(|e| {
                TensorArray::new(e.dtype())
                    .size(n.arg())
                    .build(&g)?
                    .unstack(e)
            })
            .collect::<Result<Vec<_>>>()?;
        let i = constant(&g, 0i32)?;
        let specs = match &self.signature {
            Some(s) => s.clone(),
            None => elems
                .iter()
                .map(|e| (e.dtype(), Shape::unknown()))
                .collect(),
        };
        let result_tas = specs
            .iter()
            .map(|(dtype, shape)| {
                TensorArray::new(*dtype)
                    .size(n.arg())
                    .infer_shape(self.infer_shape)
                    .element_shape(shape.clone())
                    .build(&g)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut vars = vec![i];
        vars.extend(result_tas.iter().map(|t| t.flow().clone()));
        let options = LoopOptions {
            parallel_iterations: self.parallel_iterations.unwrap_or(10),
            back_prop: self.back_prop,
            swap_memory: self.swap_memory,
        };
        let max = n.tensor(&g, "maximum_iterations")?;
        let out = options.while_loop(&max).build(
            |v| less(&v[0], &n.tensor(&g, "Less/y")?),
            |v| {
                let values = elems_tas
                    .iter()
                    .map(|ta| ta.read(&v[0]))
                    .collect::<Result<Vec<_>>>()?;
                let results = f(&values)?;
                check_structure(specs.len(), results.len())?;
                let mut next = vec![add(&v[0], &constant(&g, 1i32)?)?];
                for ((ta, flow), value) in result_tas.iter().zip(&v[1..]).zip(&results) {
                    next.push(ta.with_flow(flow).write(&v[0], value)?.flow().clone());
                }
                Ok(next)
            },
            &vars,
        )?;
        result_tas
            .iter()
            .zip(&out[1..])
            .map(|(ta, flow)| ta.with_flow(flow).stack_with_len(n_static))
            .collect()
    }
}

/// `tf.compat.v1.map_fn(fn, elems)`: `f` applied to the elements of `elems` along their first
/// dimension, the results stacked. `elems` are one or more tensors of one first dimension;
/// `f` gets one element of each and returns one value per result (by default as many as
/// `elems`, of their dtypes; see [`MapFn::dtype`]). Built as TensorFlow 1 builds it:
/// TensorArrays and a `while_loop`, `f` called once while building.
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::{array::constant, control_flow::map_fn, math::mul};
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0, 3.0])?;
/// let squares = map_fn(|v| Ok(vec![mul(&v[0], &v[0])?]), &[x])?;
/// assert_eq!(squares[0].shape(), Shape::known(&[3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn map_fn(
    f: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
    elems: &[Output],
) -> Result<Vec<Output>> {
    MapFn::new().build(f, elems)
}
