//! Feature crosses of sparse and dense columns: `tf.sparse.cross` (op `SparseCrossV2`),
//! `tf.sparse.cross_hashed` (op `SparseCross`), and the raw ops `SparseCross`, `SparseCrossV2`
//! and `SparseCrossHashed`. The kernels are in `cross_kernel.rs`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, Graph, InferenceContext, OpDef, Output, Result, Shape,
};

use super::cross_kernel::{CrossKernel, CrossKind};
use super::SparseOutput;

/// The `hash_key` `tf.sparse.cross_hashed` uses when none (or 0) is given: TensorFlow's
/// `_DEFAULT_HASH_KEY`.
pub const DEFAULT_CROSS_HASH_KEY: i64 = 0xDE_CAFC_AFFE;

/// One input of a feature cross, as TensorFlow's `tf.sparse.cross` takes them: a 2-D sparse
/// tensor (one row per example), or a dense `[batch, k]` matrix whose rows are all full.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CrossInput {
    /// A `tf.SparseTensor` of rank 2.
    Sparse(SparseOutput),
    /// A dense `tf.Tensor` of rank 2.
    Dense(Output),
}

impl From<SparseOutput> for CrossInput {
    fn from(s: SparseOutput) -> CrossInput {
        CrossInput::Sparse(s)
    }
}

impl From<&SparseOutput> for CrossInput {
    fn from(s: &SparseOutput) -> CrossInput {
        CrossInput::Sparse(s.clone())
    }
}

impl From<Output> for CrossInput {
    fn from(o: Output) -> CrossInput {
        CrossInput::Dense(o)
    }
}

impl From<&Output> for CrossInput {
    fn from(o: &Output) -> CrossInput {
        CrossInput::Dense(o.clone())
    }
}

/// The four input lists of TensorFlow's cross ops (`indices`, `values`, `shapes`,
/// `dense_inputs`), as `gen_sparse_ops.sparse_cross*` takes them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrossLists {
    /// int64 `[n, 2]` indices of each sparse input.
    pub indices: Vec<Output>,
    /// int64 or string values of each sparse input.
    pub values: Vec<Output>,
    /// int64 `[2]` dense shape of each sparse input.
    pub shapes: Vec<Output>,
    /// int64 or string `[batch, k]` dense inputs.
    pub dense_inputs: Vec<Output>,
}

impl CrossLists {
    /// TensorFlow's `_sparse_cross_internal`: the sparse inputs (in order) and the dense ones
    /// (in order), values of any dtype but string cast to int64. Returns the lists and whether
    /// any input became int64 (the `internal_type` of `SparseCross`).
    fn from_inputs(inputs: &[CrossInput]) -> Result<(CrossLists, bool)> {
        let mut lists = CrossLists::default();
        let mut any_int = false;
        let mut int64 = |o: &Output| -> Result<Output> {
            if o.dtype() == DType::String {
                return Ok(o.clone());
            }
            any_int = true;
            crate::math::cast(o, DType::I64)
        };
        for i in inputs {
            if let CrossInput::Sparse(s) = i {
                lists.indices.push(s.indices.clone());
                lists.values.push(int64(&s.values)?);
                lists.shapes.push(s.dense_shape.clone());
            }
        }
        for i in inputs {
            if let CrossInput::Dense(d) = i {
                lists.dense_inputs.push(int64(d)?);
            }
        }
        Ok((lists, any_int))
    }

    fn all(&self) -> Vec<&Output> {
        self.indices
            .iter()
            .chain(&self.values)
            .chain(&self.shapes)
            .chain(&self.dense_inputs)
            .collect()
    }

    /// Python's checks of the lists (`op` is the Python op name): types from {int64, string},
    /// as many shapes as indices.
    fn check(&self, op: &str) -> Result<()> {
        for (arg, list) in [
            ("values", &self.values),
            ("dense_inputs", &self.dense_inputs),
        ] {
            for o in list {
                check_allowed(arg, o.dtype())?;
            }
        }
        if self.shapes.len() != self.indices.len() {
            return Err(Error::invalid_argument(format!(
                "List argument 'shapes' to '{op}' Op with length {} must match length {} of \
                 argument 'indices'.",
                self.shapes.len(),
                self.indices.len()
            )));
        }
        Ok(())
    }
}

/// TensorFlow's message for a dtype outside `{int64, string}`.
fn check_allowed(arg: &str, dt: DType) -> Result<()> {
    if matches!(dt, DType::I64 | DType::String) {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Value passed to parameter '{arg}' has DataType {} not in list of allowed values: \
         int64, string",
        dt.python_name()
    )))
}

/// The attrs of TensorFlow's `SparseCross` op. Which kernel runs follows `out_type` (int64:
/// hashed), as in TensorFlow; `hashed_output` is recorded but not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparseCrossAttrs {
    /// `hashed_output`.
    pub hashed_output: bool,
    /// `num_buckets` (>= 0): hashed crosses are taken modulo it when positive.
    pub num_buckets: i64,
    /// `hash_key`: the seed of the `FingerprintCat64` chain.
    pub hash_key: i64,
    /// `out_type`: int64 (hashed) or string.
    pub out_type: DType,
    /// `internal_type`: int64 when any input is int64, else string.
    pub internal_type: DType,
}

fn inputs_of<I: Into<CrossInput>>(
    inputs: impl IntoIterator<Item = I>,
    what: &str,
) -> Result<(Graph, Vec<CrossInput>)> {
    let inputs: Vec<CrossInput> = inputs.into_iter().map(Into::into).collect();
    let first = inputs.first().ok_or_else(|| {
        Error::invalid_argument(format!("{what} needs at least one input to find its graph"))
    })?;
    let g = match first {
        CrossInput::Sparse(s) => s.graph().clone(),
        CrossInput::Dense(d) => d.graph().clone(),
    };
    Ok((g, inputs))
}

/// `tf.sparse.cross(inputs, separator=separator)` (op `SparseCrossV2`): per row, the
/// cartesian product of the inputs' values joined by `separator` (TensorFlow's default is
/// `"_X_"`), sparse inputs before dense ones, the last input varying fastest; int inputs are
/// cast to int64 and written in decimal. A row with no value in some input has no crosses.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_cross, CrossInput, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[3, 2], vec![0i64, 0, 1, 0, 1, 1])?)?,
///     constant(&g, ["a", "b", "c"])?,
///     constant(&g, vec![2i64, 2])?,
/// )?;
/// let dense = constant(&g, Tensor::from_vec(&[2, 1], vec![7i64, 8])?)?;
/// let crossed = sparse_cross([CrossInput::from(&sp), (&dense).into()], "_X_")?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&crossed.values)?.to_strings()?, ["a_X_7", "b_X_8", "c_X_8"]);
/// assert_eq!(sess.eval(&crossed.dense_shape)?.to_vec::<i64>()?, [2, 2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_cross<I: Into<CrossInput>>(
    inputs: impl IntoIterator<Item = I>,
    separator: &str,
) -> Result<SparseOutput> {
    let (g, inputs) = inputs_of(inputs, "sparse_cross")?;
    let (lists, _) = CrossLists::from_inputs(&inputs)?;
    let sep = crate::array::constant(&g, separator)?;
    sparse_cross_v2(&lists, sep)
}

/// `tf.sparse.cross_hashed(inputs, num_buckets, hash_key)` (op `SparseCross` with int64
/// output): per row, the product of [`sparse_cross`] hashed, `FingerprintCat64` chained from
/// `hash_key` (`None` or 0: [`DEFAULT_CROSS_HASH_KEY`]) over `Fingerprint64` of the strings
/// and the int64 values themselves, modulo `num_buckets` when positive.
///
/// ```
/// # use weir_graph::{Bytes, Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::sparse_cross_hashed};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 1], vec![Bytes::from("x"), Bytes::from("y")])?)?;
/// let b = constant(&g, Tensor::from_vec(&[2, 2], vec![1i64, 2, 3, 4])?)?;
/// let ids = sparse_cross_hashed([&a, &b], 100, None)?;
/// let sess = Session::new(&g)?;
/// let ids = sess.eval(&ids.values)?.to_vec::<i64>()?;
/// assert_eq!(ids.len(), 4);
/// assert!(ids.iter().all(|&id| (0..100).contains(&id)));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_cross_hashed<I: Into<CrossInput>>(
    inputs: impl IntoIterator<Item = I>,
    num_buckets: i64,
    hash_key: Option<i64>,
) -> Result<SparseOutput> {
    let (g, inputs) = inputs_of(inputs, "sparse_cross_hashed")?;
    let (lists, any_int) = CrossLists::from_inputs(&inputs)?;
    let attrs = SparseCrossAttrs {
        hashed_output: true,
        num_buckets,
        hash_key: hash_key
            .filter(|&k| k != 0)
            .unwrap_or(DEFAULT_CROSS_HASH_KEY),
        out_type: DType::I64,
        internal_type: if any_int { DType::I64 } else { DType::String },
    };
    sparse_cross_v1(&g, &lists, &attrs)
}

fn add_lists(b: weir_graph::OpBuilder, lists: &CrossLists) -> weir_graph::OpBuilder {
    let types = |l: &[Output]| l.iter().map(Output::dtype).collect::<Vec<DType>>();
    b.inputs(lists.indices.iter().cloned())
        .inputs(lists.values.iter().cloned())
        .inputs(lists.shapes.iter().cloned())
        .inputs(lists.dense_inputs.iter().cloned())
        .attr("N", lists.indices.len())
        .attr("sparse_types", types(&lists.values))
        .attr("dense_types", types(&lists.dense_inputs))
}

/// The raw op `SparseCross` (`tf.raw_ops.SparseCross`) in graph `g`: crosses as strings
/// joined by `"_X_"` when `attrs.out_type` is string, else hashed as
/// [`sparse_cross_hashed`] does.
pub fn sparse_cross_v1(
    g: &Graph,
    lists: &CrossLists,
    attrs: &SparseCrossAttrs,
) -> Result<SparseOutput> {
    lists.check("sparse_cross")?;
    if attrs.num_buckets < 0 {
        return Err(Error::invalid_argument(format!(
            "Attr 'num_buckets' of 'SparseCross' Op passed {} less than minimum 0.",
            attrs.num_buckets
        )));
    }
    check_allowed("out_type", attrs.out_type)?;
    check_allowed("internal_type", attrs.internal_type)?;
    let all = lists.all();
    if !all.is_empty() && !crate::util::same_graph(&all)?.ptr_eq(g) {
        return Err(Error::invalid_argument(
            "The inputs of sparse_cross_v1 must be in the graph it builds in",
        ));
    }
    let op = add_lists(crate::new_op(g, "SparseCross"), lists)
        .attr("hashed_output", attrs.hashed_output)
        .attr("num_buckets", attrs.num_buckets)
        .attr("hash_key", attrs.hash_key)
        .attr("out_type", attrs.out_type)
        .attr("internal_type", attrs.internal_type)
        .build()?;
    SparseOutput::from_op(&op)
}

/// The raw op `SparseCrossV2` (`tf.raw_ops.SparseCrossV2`): [`sparse_cross`] on the lists
/// as given, joined by the scalar string `sep`.
pub fn sparse_cross_v2(lists: &CrossLists, sep: impl Into<Output>) -> Result<SparseOutput> {
    let sep = sep.into();
    lists.check("sparse_cross_v2")?;
    let mut all = lists.all();
    all.push(&sep);
    let g = crate::util::same_graph(&all)?.clone();
    let op = add_lists(crate::new_op(&g, "SparseCrossV2"), lists)
        .input(&sep)
        .build()?;
    SparseOutput::from_op(&op)
}

/// The raw op `SparseCrossHashed` (`tf.raw_ops.SparseCrossHashed`): the product hashed per
/// column (`Fingerprint64`, or SipHash keyed by the two int64 of `salt` when the bool
/// `strong_hash` is true) and chained with `FingerprintCat64` from the first column, modulo
/// the int64 `num_buckets` when positive.
pub fn sparse_cross_hashed_v2(
    lists: &CrossLists,
    num_buckets: impl Into<Output>,
    strong_hash: impl Into<Output>,
    salt: impl Into<Output>,
) -> Result<SparseOutput> {
    let (nb, strong, salt) = (num_buckets.into(), strong_hash.into(), salt.into());
    lists.check("sparse_cross_hashed")?;
    let mut all = lists.all();
    all.extend([&nb, &strong, &salt]);
    let g = crate::util::same_graph(&all)?.clone();
    let op = add_lists(crate::new_op(&g, "SparseCrossHashed"), lists)
        .input(&nb)
        .input(&strong)
        .input(&salt)
        .build()?;
    SparseOutput::from_op(&op)
}

/// Every cross op's shape function: `[?, 2]`, `[?]`, `[2]`.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::new(vec![None, Some(2)]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::known(&[2]));
    Ok(())
}

/// An op def with the four lists every cross op starts with.
fn with_lists(name: &str) -> OpDef {
    let n64 = ArgType::RepeatedFixed {
        count: "N",
        dtype: DType::I64,
    };
    OpDef::new(name)
        .input("indices", n64.clone())
        .input("values", ArgType::List("sparse_types"))
        .input("shapes", n64)
        .input("dense_inputs", ArgType::List("dense_types"))
}

fn outputs(def: OpDef, values: ArgType) -> OpDef {
    def.output("output_indices", ArgType::Fixed(DType::I64))
        .output("output_values", values)
        .output("output_shape", ArgType::Fixed(DType::I64))
        .int_attr_min("N", 0)
}

fn list_attrs(def: OpDef) -> OpDef {
    def.attr("sparse_types", AttrKind::Types, None)
        .attr("dense_types", AttrKind::Types, None)
        .shape_fn(shape_fn)
}

const INT64_OR_STRING: &[DType] = &[DType::I64, DType::String];

pub(super) fn register() {
    let v1 = outputs(with_lists("SparseCross"), ArgType::Attr("out_type"))
        .attr("hashed_output", AttrKind::Bool, None)
        .int_attr_min("num_buckets", 0)
        .attr("hash_key", AttrKind::Int, None);
    register_op(
        list_attrs(v1)
            .type_attr("out_type", INT64_OR_STRING)
            .type_attr("internal_type", INT64_OR_STRING),
    );
    let v2 = with_lists("SparseCrossV2").input("sep", ArgType::Fixed(DType::String));
    register_op(list_attrs(outputs(v2, ArgType::Fixed(DType::String))));
    let hashed = with_lists("SparseCrossHashed")
        .input("num_buckets", ArgType::Fixed(DType::I64))
        .input("strong_hash", ArgType::Fixed(DType::Bool))
        .input("salt", ArgType::Fixed(DType::I64));
    register_op(list_attrs(outputs(hashed, ArgType::Fixed(DType::I64))));
    register_kernel("SparseCross", |node| {
        let out_type: DType = node.attr("out_type")?;
        Ok(Box::new(CrossKernel::new(
            node,
            CrossKind::V1 {
                hashed: out_type == DType::I64,
                num_buckets: node.attr("num_buckets")?,
                hash_key: node.attr::<i64>("hash_key")? as u64,
                internal_type: node.attr("internal_type")?,
            },
        )?))
    });
    register_kernel("SparseCrossV2", |node| {
        Ok(Box::new(CrossKernel::new(node, CrossKind::V2)?))
    });
    register_kernel("SparseCrossHashed", |node| {
        Ok(Box::new(CrossKernel::new(node, CrossKind::Hashed)?))
    });
}
