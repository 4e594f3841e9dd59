//! Sparse tensors as components of dataset elements, the way TensorFlow carries them: a
//! `SparseTensor` component travels through the dataset ops as its serialized form
//! (`SerializeSparse`, a string `[3]`: the `TensorProto`s of its indices, values and dense
//! shape) and is rebuilt by `DeserializeSparse` where a function or `get_next` reads it.
//!
//! Why this encoding: every dataset op then moves a sparse component like any string tensor
//! (`batch` stacks the encodings into `[batch, 3]`, which `DeserializeSparse` turns into one
//! sparse tensor with a leading batch dimension and the largest dense shape), which is how
//! TensorFlow's own `SparseTensorSpec` works with its variant encoding. weir has no variant
//! dtype, so the encoding is TensorFlow's `out_type=tf.string` one.

use weir_graph::{DType, Error, Output, Result, Shape};

use crate::sparse::{deserialize_sparse, serialize_many_sparse, serialize_sparse, SparseOutput};

/// One component of a dataset element in a graph: a tensor or a sparse tensor (the leaves
/// `tf.Tensor` and `tf.SparseTensor` of TensorFlow's element structure).
#[derive(Clone, Debug)]
pub enum Component {
    /// A dense tensor.
    Tensor(Output),
    /// A sparse tensor.
    Sparse(SparseOutput),
}

impl From<Output> for Component {
    fn from(o: Output) -> Component {
        Component::Tensor(o)
    }
}

impl From<&Output> for Component {
    fn from(o: &Output) -> Component {
        Component::Tensor(o.clone())
    }
}

impl From<SparseOutput> for Component {
    fn from(s: SparseOutput) -> Component {
        Component::Sparse(s)
    }
}

impl From<&SparseOutput> for Component {
    fn from(s: &SparseOutput) -> Component {
        Component::Sparse(s.clone())
    }
}

impl From<crate::parsing::SparseFeatureOutput> for Component {
    fn from(s: crate::parsing::SparseFeatureOutput) -> Component {
        Component::Sparse(s.into())
    }
}

impl Component {
    /// The dense tensor; InvalidArgument for a sparse component.
    pub fn tensor(&self) -> Result<&Output> {
        match self {
            Component::Tensor(o) => Ok(o),
            Component::Sparse(s) => Err(Error::invalid_argument(format!(
                "Expected a dense tensor but got the SparseTensor of {}",
                s.values.name()
            ))),
        }
    }

    /// The sparse tensor; InvalidArgument for a dense component.
    pub fn sparse(&self) -> Result<&SparseOutput> {
        match self {
            Component::Sparse(s) => Ok(s),
            Component::Tensor(o) => Err(Error::invalid_argument(format!(
                "Expected a SparseTensor but got the dense tensor {}",
                o.name()
            ))),
        }
    }

    /// The dtype of the tensor, or of the sparse tensor's values.
    pub fn dtype(&self) -> DType {
        match self {
            Component::Tensor(o) => o.dtype(),
            Component::Sparse(s) => s.dtype(),
        }
    }

    /// The component's type (`tf.TensorSpec` or `tf.SparseTensorSpec`).
    pub fn spec(&self) -> ComponentSpec {
        match self {
            Component::Tensor(o) => ComponentSpec::Tensor {
                dtype: o.dtype(),
                shape: o.shape(),
            },
            Component::Sparse(s) => ComponentSpec::Sparse {
                dtype: s.dtype(),
                shape: static_dense_shape(s),
            },
        }
    }
}

/// The type of a component of a dataset's elements: TensorFlow's `tf.TensorSpec` and
/// `tf.SparseTensorSpec`, what `dataset.element_spec` lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ComponentSpec {
    /// A dense tensor of this dtype and static shape.
    Tensor {
        /// The dtype.
        dtype: DType,
        /// The static shape.
        shape: Shape,
    },
    /// A sparse tensor of values of this dtype and this static dense shape.
    Sparse {
        /// The values' dtype.
        dtype: DType,
        /// The static dense shape.
        shape: Shape,
    },
}

impl ComponentSpec {
    /// The dtype of the tensor, or of the sparse tensor's values.
    pub fn dtype(&self) -> DType {
        match self {
            ComponentSpec::Tensor { dtype, .. } | ComponentSpec::Sparse { dtype, .. } => *dtype,
        }
    }

    /// The static shape of the tensor, or the sparse tensor's static dense shape.
    pub fn shape(&self) -> &Shape {
        match self {
            ComponentSpec::Tensor { shape, .. } | ComponentSpec::Sparse { shape, .. } => shape,
        }
    }

    /// Whether the component is a sparse tensor.
    pub fn is_sparse(&self) -> bool {
        matches!(self, ComponentSpec::Sparse { .. })
    }
}

/// What a dataset knows of a sparse component beyond its string encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SparseSpec {
    /// The values' dtype.
    pub dtype: DType,
    /// The static dense shape.
    pub shape: Shape,
}

/// The static dense shape of `s`, as TensorFlow's `SparseTensor.shape` gives it: the values
/// of a constant `dense_shape`, else as many unknown dims as its static length.
pub(crate) fn static_dense_shape(s: &SparseOutput) -> Shape {
    static_shape_of(&s.dense_shape)
}

/// The static dense shape a `dense_shape` tensor gives: a constant's values, a `Pack`'s
/// constant scalars (the dense shape [`decode`] rebuilds from a partly known spec), the shape
/// of a `SparseAdd` of two sparse tensors of one fully known dense shape (TensorFlow's
/// `tf.sparse.add` makes its dense shape that constant), else unknown dims.
fn static_shape_of(dense_shape: &Output) -> Shape {
    let g = dense_shape.graph();
    let node = g.node(dense_shape.node_id());
    if node.op_type() == "Pack" {
        let dims: Vec<Option<usize>> = node
            .inputs()
            .iter()
            .map(|&(id, _)| {
                g.node(id)
                    .const_value()
                    .and_then(|t| t.to_scalar::<i64>().ok())
                    .and_then(|d| usize::try_from(d).ok())
            })
            .collect();
        return Shape::new(dims);
    }
    if node.op_type() == "SparseAdd" && dense_shape.index() == 2 {
        let side = |i: usize| {
            let &(id, at) = node.inputs().get(i)?;
            let input = g.operation(id).and_then(|op| op.output(at)).ok()?;
            Some(static_shape_of(&input))
        };
        if let (Some(a), Some(b)) = (side(2), side(5)) {
            if a == b && a.dims().is_some_and(|d| d.iter().all(Option::is_some)) {
                return a;
            }
        }
    }
    if let Some(v) = node.const_value().and_then(|t| t.to_vec::<i64>().ok()) {
        return Shape::new(
            v.iter()
                .map(|&d| usize::try_from(d).ok())
                .collect::<Vec<_>>(),
        );
    }
    if let Some(s) = crate::parsing::sparse_merge::merged_dense_shape(dense_shape) {
        return s;
    }
    match dense_shape.shape().dims() {
        Some([Some(rank)]) => Shape::new(vec![None; *rank]),
        _ => Shape::unknown(),
    }
}

/// The flat outputs that carry `components` through dataset ops (a sparse one serialized),
/// with what each sparse one is.
pub(crate) fn encode(components: &[Component]) -> Result<(Vec<Output>, Vec<Option<SparseSpec>>)> {
    encode_with(components, serialize_sparse, |shape| shape.clone())
}

/// As [`encode`], for components whose first dimension is to be sliced into elements
/// (`from_tensor_slices`): a sparse one is serialized row by row (`SerializeManySparse`), and
/// its elements have the dense shape after the first dimension.
pub(crate) fn encode_rows(
    components: &[Component],
) -> Result<(Vec<Output>, Vec<Option<SparseSpec>>)> {
    encode_with(
        components,
        |s| {
            if static_dense_shape(s).rank() == Some(0) {
                return Err(Error::invalid_argument(
                    "Unbatching a sparse tensor is only supported for rank >= 1",
                ));
            }
            serialize_many_sparse(s)
        },
        |shape| match shape.dims() {
            Some(d) if !d.is_empty() => Shape::new(d[1..].to_vec()),
            _ => Shape::unknown(),
        },
    )
}

fn encode_with(
    components: &[Component],
    serialize: impl Fn(&SparseOutput) -> Result<Output>,
    element_shape: impl Fn(&Shape) -> Shape,
) -> Result<(Vec<Output>, Vec<Option<SparseSpec>>)> {
    let mut outputs = Vec::with_capacity(components.len());
    let mut sparse = Vec::with_capacity(components.len());
    for c in components {
        match c {
            Component::Tensor(o) => {
                outputs.push(o.clone());
                sparse.push(None);
            }
            Component::Sparse(s) => {
                outputs.push(serialize(s)?);
                sparse.push(Some(SparseSpec {
                    dtype: s.dtype(),
                    shape: element_shape(&static_dense_shape(s)),
                }));
            }
        }
    }
    Ok((outputs, sparse))
}

/// Where a sparse result is a sparse argument returned as it is, its spec keeps the static
/// dense shape the argument's spec gave it, as TensorFlow's keeps the shape of its spec.
pub(crate) fn keep_argument_shapes(
    results: &[Component],
    specs: &mut [Option<SparseSpec>],
    args: &[Component],
    arg_specs: &[Option<SparseSpec>],
) {
    for (r, spec) in results.iter().zip(specs) {
        let (Component::Sparse(out), Some(spec)) = (r, spec) else {
            continue;
        };
        let arg = args.iter().zip(arg_specs).find_map(|(c, a)| match (c, a) {
            (Component::Sparse(c), Some(a)) if c.dense_shape == out.dense_shape => Some(a),
            _ => None,
        });
        if let Some(a) = arg {
            spec.shape = a.shape.clone();
        }
    }
}

/// The components that `outputs` (encoded as `sparse` says) carry: each sparse one rebuilt,
/// with the static rank its spec knows and, as TensorFlow's `SparseTensorSpec` rebuilds it,
/// the dims of its dense shape that the spec knows as constants.
pub(crate) fn decode(outputs: &[Output], sparse: &[Option<SparseSpec>]) -> Result<Vec<Component>> {
    outputs
        .iter()
        .zip(sparse)
        .map(|(o, spec)| match spec {
            None => Ok(Component::Tensor(o.clone())),
            Some(spec) => {
                let s = deserialize_sparse(o, spec.dtype)?;
                let Some(dims) = spec.shape.dims() else {
                    return Ok(Component::Sparse(s));
                };
                let rank = dims.len();
                let g = o.graph();
                let known = |d: &Option<usize>| d.map(|d| i64::try_from(d).unwrap_or(i64::MAX));
                let dense_shape = if dims.iter().all(Option::is_some) {
                    let v: Vec<i64> = dims.iter().filter_map(known).collect();
                    crate::array::constant_named(g, v, "shape")?
                } else if dims.iter().any(Option::is_some) {
                    let pieces = crate::array::unstack(&s.dense_shape, Some(rank), 0)?;
                    let pieces = pieces
                        .into_iter()
                        .zip(dims)
                        .map(|(p, d)| match known(d) {
                            Some(d) => crate::array::constant(g, d),
                            None => Ok(p),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    crate::array::stack(&pieces, 0)?
                } else {
                    crate::array::reshape(&s.dense_shape, [rank as i64])?
                };
                Ok(Component::Sparse(SparseOutput::new(
                    crate::array::reshape(&s.indices, [-1, rank as i64])?,
                    s.values,
                    dense_shape,
                )?))
            }
        })
        .collect()
}

/// The component specs of a flat structure of `dtypes` and `shapes` in which `sparse` marks
/// the sparse components.
pub(crate) fn specs(
    dtypes: &[DType],
    shapes: &[Shape],
    sparse: &[Option<SparseSpec>],
) -> Vec<ComponentSpec> {
    dtypes
        .iter()
        .zip(shapes)
        .zip(sparse)
        .map(|((&dtype, shape), sp)| match sp {
            None => ComponentSpec::Tensor {
                dtype,
                shape: shape.clone(),
            },
            Some(s) => ComponentSpec::Sparse {
                dtype: s.dtype,
                shape: s.shape.clone(),
            },
        })
        .collect()
}

/// The flat dtypes and shapes that carry elements of `spec` through dataset ops, with its
/// sparse components marked. A sparse component's encoding may have a batch prefix, so its
/// shape is left unknown.
pub(crate) fn encoded(spec: &[ComponentSpec]) -> (Vec<DType>, Vec<Shape>, Vec<Option<SparseSpec>>) {
    let mut dtypes = Vec::with_capacity(spec.len());
    let mut shapes = Vec::with_capacity(spec.len());
    let mut sparse = Vec::with_capacity(spec.len());
    for c in spec {
        match c {
            ComponentSpec::Tensor { dtype, shape } => {
                dtypes.push(*dtype);
                shapes.push(shape.clone());
                sparse.push(None);
            }
            ComponentSpec::Sparse { dtype, shape } => {
                dtypes.push(DType::String);
                shapes.push(Shape::unknown());
                sparse.push(Some(SparseSpec {
                    dtype: *dtype,
                    shape: shape.clone(),
                }));
            }
        }
    }
    (dtypes, shapes, sparse)
}

impl std::fmt::Display for ComponentSpec {
    /// As Python prints it: `TensorSpec(shape=(None,), dtype=tf.string, name=None)` or
    /// `SparseTensorSpec(TensorShape([None, None]), tf.int64)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ComponentSpec::Tensor { dtype, shape } => write!(
                f,
                "TensorSpec(shape={}, dtype=tf.{}, name=None)",
                shape.python_str(),
                dtype.python_name()
            ),
            ComponentSpec::Sparse { dtype, shape } => {
                let shape = match shape.dims() {
                    None => "TensorShape(None)".to_string(),
                    Some(d) => {
                        let dims: Vec<String> = d
                            .iter()
                            .map(|d| d.map_or("None".to_string(), |n| n.to_string()))
                            .collect();
                        format!("TensorShape([{}])", dims.join(", "))
                    }
                };
                write!(f, "SparseTensorSpec({shape}, tf.{})", dtype.python_name())
            }
        }
    }
}

/// A dataset's `element_spec` as Python prints it: one spec, or a tuple of them.
pub(crate) fn python_element_spec(spec: &[ComponentSpec]) -> String {
    let specs: Vec<String> = spec.iter().map(ToString::to_string).collect();
    match specs.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", specs.join(", ")),
    }
}
