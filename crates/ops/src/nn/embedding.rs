//! `tf.nn.embedding_lookup` and `tf.nn.embedding_lookup_sparse`, built op for op as
//! TensorFlow's `embedding_ops.py` builds them: a gather (or, over partitioned params,
//! `DynamicPartition` of the ids, one gather per shard and `ParallelDynamicStitch`), optional
//! `clip_by_norm` of the looked-up rows, and for sparse ids a segment reduction; and
//! `tf.compat.v1.nn.safe_embedding_lookup_sparse`, which prunes invalid ids and weights first.
//!
//! Gradients reach the params through the gathers' and segment ops' gradients; TensorFlow
//! makes them `IndexedSlices`, weir dense tensors of the params' shape.

use weir_graph::{scalar_of, DType, Error, Graph, Output, Result, Shape};

use crate::array::{constant, constant_named, shape as shape_of, SliceItem};
use crate::math::{self, Axes};
use crate::sparse::SparseOutput;

/// `tf.nn.embedding_lookup(params, ids)` with the default `"mod"` partition strategy and no
/// `max_norm`; see [`EmbeddingLookup`].
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, nn::embedding_lookup};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let table = constant(&g, Tensor::from_vec(&[3, 2], vec![0.0f32, 1., 2., 3., 4., 5.])?)?;
/// let rows = embedding_lookup(&[table], constant(&g, Tensor::from_vec(&[2, 1], vec![2i32, 0])?)?)?;
/// assert_eq!(rows.shape(), Shape::known(&[2, 1, 2]));
/// assert_eq!(Session::new(&g)?.eval(&rows)?.to_vec::<f32>()?, [4., 5., 0., 1.]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn embedding_lookup(params: &[Output], ids: impl Into<Output>) -> Result<Output> {
    EmbeddingLookup::new().build(params, ids)
}

/// The options of TensorFlow 1's `tf.nn.embedding_lookup(params, ids,
/// partition_strategy="mod", max_norm=None)`: the rows of `params` (one tensor, or a list of
/// shards of one table split along dim 0) named by `ids` (int32 or int64, any shape); the
/// result has shape `ids.shape + params.shape[1:]`.
///
/// With several shards, id `i` lives in shard `i % n` at row `i / n` under `"mod"`, and under
/// `"div"` in contiguous ranges, the first `total % n` shards holding one row more. With
/// `max_norm`, each looked-up row is clipped to that L2 norm.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::EmbeddingLookup};
/// # use weir_session::Session;
/// let g = Graph::new();
/// // A table of 5 rows [i, 10 i] split "div"-wise into shards of 3 and 2 rows.
/// let a = constant(&g, Tensor::from_vec(&[3, 2], vec![0.0f32, 0., 1., 10., 2., 20.])?)?;
/// let b = constant(&g, Tensor::from_vec(&[2, 2], vec![3.0f32, 30., 4., 40.])?)?;
/// let rows = EmbeddingLookup::new()
///     .partition_strategy("div")
///     .build(&[a, b], constant(&g, [4i32, 1])?)?;
/// assert_eq!(Session::new(&g)?.eval(&rows)?.to_vec::<f32>()?, [4., 40., 1., 10.]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct EmbeddingLookup {
    partition_strategy: String,
    max_norm: Option<f64>,
    name: Option<String>,
}

impl Default for EmbeddingLookup {
    fn default() -> Self {
        EmbeddingLookup {
            partition_strategy: "mod".into(),
            max_norm: None,
            name: None,
        }
    }
}

impl EmbeddingLookup {
    /// The `"mod"` strategy, no clipping, name scope `embedding_lookup`.
    pub fn new() -> EmbeddingLookup {
        EmbeddingLookup::default()
    }

    /// `"mod"` or `"div"`; anything else is InvalidArgument when there are several shards
    /// (TensorFlow ignores the strategy for one).
    pub fn partition_strategy(mut self, strategy: &str) -> Self {
        self.partition_strategy = strategy.to_string();
        self
    }

    /// Clips each looked-up row whose L2 norm exceeds `max_norm` to that norm.
    pub fn max_norm(mut self, max_norm: f64) -> Self {
        self.max_norm = Some(max_norm);
        self
    }

    /// The name scope (default `embedding_lookup`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the lookup of `ids` in `params`.
    pub fn build(&self, params: &[Output], ids: impl Into<Output>) -> Result<Output> {
        let ids = ids.into();
        if params.is_empty() {
            return Err(Error::invalid_argument(
                "Length of params is currently 0. Need at least one param.",
            ));
        }
        let mut all: Vec<&Output> = params.iter().collect();
        all.push(&ids);
        let g = crate::util::same_graph(&all)?.clone();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("embedding_lookup"));
        if let [p] = params {
            let axis = constant_named(&g, 0i32, "axis")?;
            let rows = crate::new_op(&g, "GatherV2")
                .name(scope.prefix())
                .input(p)
                .input(&ids)
                .input(axis)
                .attr("batch_dims", 0i64)
                .build()?
                .output(0)?;
            return crate::array::identity(clip(&rows, &ids, self.max_norm)?);
        }
        let strategy = Strategy::parse(&self.partition_strategy)?;
        let ret = partitioned(&g, scope.prefix(), params, &ids, strategy)?;
        clip(&ret, &ids, self.max_norm)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Strategy {
    Mod,
    Div,
}

impl Strategy {
    fn parse(s: &str) -> Result<Strategy> {
        match s {
            "mod" => Ok(Strategy::Mod),
            "div" => Ok(Strategy::Div),
            other => Err(Error::invalid_argument(format!(
                "Unrecognized partition strategy: {other}.Must be one of either `mod` or `div`."
            ))),
        }
    }
}

/// TensorFlow's `_clip`: `clip_by_norm` of the looked-up rows over their non-id dims.
fn clip(rows: &Output, ids: &Output, max_norm: Option<f64>) -> Result<Output> {
    let Some(max_norm) = max_norm else {
        return Ok(rows.clone());
    };
    // TensorFlow takes the static ranks only when the ids' rank is known and non-zero.
    let axes = match (ids.shape().rank(), rows.shape().rank()) {
        (Some(i), Some(p)) if i > 0 => Axes::List((i as i64..p as i64).collect()),
        _ => {
            let g = rows.graph();
            let one = constant(g, 1i32)?;
            let (ri, rp) = (crate::array::rank(ids)?, crate::array::rank(rows)?);
            Axes::Tensor(math::range_from(&ri, &rp, &one)?)
        }
    };
    math::clip_by_norm(rows, max_norm, axes)
}

/// The lookup over several shards, in the current name scope `prefix`.
fn partitioned(
    g: &Graph,
    prefix: &str,
    params: &[Output],
    ids: &Output,
    strategy: Strategy,
) -> Result<Output> {
    let np = params.len();
    let dt = ids.dtype();
    let int = |v: f64| constant(g, scalar_of(dt, v)?);
    let flat = crate::array::reshape(ids, [-1])?;
    let (zero, one) = (constant(g, 0i32)?, constant(g, 1i32)?);
    let original_indices = math::range_from(&zero, &crate::array::size(&flat)?, &one)?;
    let n = int(np as f64)?;
    let (assignments, new_ids) = match strategy {
        Strategy::Mod => (math::floormod(&flat, &n)?, math::floordiv(&flat, &n)?),
        Strategy::Div => {
            let total = total_rows(g, params, dt)?;
            let per = math::floordiv(&total, &n)?;
            let extras = math::floormod(&total, &n)?;
            let per_plus_one = math::add(&per, int(1.0)?)?;
            let a = math::maximum(
                math::floordiv(&flat, &per_plus_one)?,
                math::floordiv(math::sub(&flat, &extras)?, &per)?,
            )?;
            let new_ids = math::select(
                math::less(&a, &extras)?,
                math::floormod(&flat, &per_plus_one)?,
                math::floormod(math::sub(&flat, &extras)?, &per)?,
            )?;
            (a, new_ids)
        }
    };
    let assignments = math::cast(assignments, DType::I32)?;
    let gather_ids = crate::data_flow::dynamic_partition(new_ids, &assignments, np)?;
    let pindices = crate::data_flow::dynamic_partition(original_indices, &assignments, np)?;
    let shards = params
        .iter()
        .zip(&gather_ids)
        .map(|(p, i)| crate::array::gather(p, i, 0))
        .collect::<Result<Vec<_>>>()?;
    let stitched = crate::new_op(g, "ParallelDynamicStitch")
        .name(prefix)
        .inputs(&pindices)
        .inputs(&shards)
        .attr("N", np as i64)
        .build()?
        .output(0)?;
    let mut element = tail(&params[0].shape());
    for p in &params[1..] {
        element = element.merge_with(&tail(&p.shape())).map_err(|e| {
            Error::invalid_argument(format!("embedding_lookup params: {}", e.message()))
        })?;
    }
    let element_d = match element.to_known() {
        Some(d) => constant(g, d.iter().map(|&v| v as i32).collect::<Vec<_>>())?,
        None => crate::array::slice(shape_of(&params[0])?, [1], [-1])?,
    };
    let new_shape = crate::array::concat(&[shape_of(ids)?, element_d], 0)?;
    crate::new_op(g, "Reshape")
        .input(stitched)
        .input(new_shape)
        .output_shape(0, ids.shape().concatenate(&element))
        .build()?
        .output(0)
}

/// A shape without its first dim (unknown if its rank is).
fn tail(s: &Shape) -> Shape {
    match s.dims() {
        Some(d) if !d.is_empty() => Shape::new(d[1..].to_vec()),
        _ => Shape::unknown(),
    }
}

/// The number of rows of all shards, of `dt`: a constant when their sizes are known.
fn total_rows(g: &Graph, params: &[Output], dt: DType) -> Result<Output> {
    let dims: Vec<Option<usize>> = params.iter().map(|p| p.shape().dim(0)).collect();
    let known: Option<usize> = dims.iter().copied().sum();
    if let Some(total) = known.filter(|&t| t > 0) {
        return constant(g, scalar_of(dt, total as f64)?);
    }
    let parts = params
        .iter()
        .zip(&dims)
        .map(|(p, d)| match d {
            Some(d) => constant(g, *d as i32),
            None => crate::array::strided_slice_items(shape_of(p)?, &[SliceItem::Index(0)]),
        })
        .collect::<Result<Vec<_>>>()?;
    let stacked = crate::array::stack(&parts, 0)?;
    math::Reduce::sum()
        .axis(Axes::All)
        .build(math::cast(stacked, dt)?)
}

/// `tf.nn.embedding_lookup_sparse(params, sp_ids, sp_weights, combiner)` with the `"mod"`
/// strategy and no `max_norm`; see [`EmbeddingLookupSparse`].
pub fn embedding_lookup_sparse(
    params: &[Output],
    sp_ids: &SparseOutput,
    sp_weights: Option<&SparseOutput>,
    combiner: &str,
) -> Result<Output> {
    EmbeddingLookupSparse::new()
        .combiner(combiner)
        .build(params, sp_ids, sp_weights)
}

/// The options of TensorFlow 1's `tf.nn.embedding_lookup_sparse(params, sp_ids, sp_weights,
/// partition_strategy="mod", combiner="mean", max_norm=None)`: for each row `r` of the sparse
/// `[batch, ?]` ids, the combination of the embeddings of its ids, weighted by `sp_weights`
/// (same indices) or by 1 when `None`. `"sum"` adds them, `"mean"` divides by the sum of the
/// weights and `"sqrtn"` by the root of the sum of their squares. The result has `last row
/// with an id + 1` rows (rows without ids are zero).
///
/// Without weights this is one `SparseSegmentSum`/`Mean`/`SqrtN`; with weights a gather, a
/// product and `SegmentSum`s, as TensorFlow builds them.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::embedding_lookup_sparse, sparse::SparseOutput};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let params = constant(&g, Tensor::from_vec(&[3, 1], vec![1.0f32, 2.0, 4.0])?)?;
/// // Row 0 holds ids 0 and 2, row 1 holds id 1.
/// let ids = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[3, 2], vec![0i64, 0, 0, 1, 1, 0])?)?,
///     constant(&g, vec![0i64, 2, 1])?,
///     constant(&g, vec![2i64, 2])?,
/// )?;
/// let y = embedding_lookup_sparse(&[params], &ids, None, "mean")?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [2.5, 2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct EmbeddingLookupSparse {
    lookup: EmbeddingLookup,
    combiner: String,
}

impl Default for EmbeddingLookupSparse {
    fn default() -> Self {
        EmbeddingLookupSparse {
            lookup: EmbeddingLookup::new(),
            combiner: "mean".into(),
        }
    }
}

impl EmbeddingLookupSparse {
    /// The `"mean"` combiner, `"mod"` strategy, no clipping, name scope
    /// `embedding_lookup_sparse`.
    pub fn new() -> EmbeddingLookupSparse {
        EmbeddingLookupSparse::default()
    }

    /// `"mean"`, `"sqrtn"` or `"sum"`; anything else is InvalidArgument.
    pub fn combiner(mut self, combiner: &str) -> Self {
        self.combiner = combiner.to_string();
        self
    }

    /// As [`EmbeddingLookup::partition_strategy`].
    pub fn partition_strategy(mut self, strategy: &str) -> Self {
        self.lookup = self.lookup.partition_strategy(strategy);
        self
    }

    /// As [`EmbeddingLookup::max_norm`].
    pub fn max_norm(mut self, max_norm: f64) -> Self {
        self.lookup = self.lookup.max_norm(max_norm);
        self
    }

    /// The name scope (default `embedding_lookup_sparse`).
    pub fn name(mut self, name: &str) -> Self {
        self.lookup.name = Some(name.to_string());
        self
    }

    /// Adds the lookup of `sp_ids` (int32 or int64 values) in `params`, weighted by
    /// `sp_weights`.
    pub fn build(
        &self,
        params: &[Output],
        sp_ids: &SparseOutput,
        sp_weights: Option<&SparseOutput>,
    ) -> Result<Output> {
        let combiner = self.combiner.as_str();
        if !matches!(combiner, "mean" | "sqrtn" | "sum") {
            return Err(Error::invalid_argument(format!(
                "combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}"
            )));
        }
        if params.is_empty() {
            return Err(Error::invalid_argument(
                "Length of params is currently 0. Need at least one param.",
            ));
        }
        if let Some(w) = sp_weights {
            for (a, b) in sp_ids.outputs().iter().zip(w.outputs().iter()) {
                let (sa, sb) = (a.shape(), b.shape());
                if !sa.is_compatible_with(&sb) {
                    return Err(Error::invalid_argument(format!(
                        "Shapes {sa} and {sb} are incompatible"
                    )));
                }
            }
        }
        let mut all: Vec<&Output> = params.iter().collect();
        all.push(&sp_ids.indices);
        let g = crate::util::same_graph(&all)?.clone();
        let scope = g.name_scope(
            self.lookup
                .name
                .as_deref()
                .unwrap_or("embedding_lookup_sparse"),
        );
        let segment_ids = crate::array::strided_slice_items(
            &sp_ids.indices,
            &[SliceItem::from(..), SliceItem::Index(0)],
        )?;
        let fast = params.len() == 1 && self.lookup.max_norm.is_none() && sp_weights.is_none();
        let (embeddings, idx) = if fast {
            (params[0].clone(), sp_ids.values.clone())
        } else {
            let (unique_ids, idx) = crate::array::unique(&sp_ids.values)?;
            let lookup = EmbeddingLookup {
                name: None,
                ..self.lookup.clone()
            };
            (lookup.build(params, unique_ids)?, idx)
        };
        let Some(w) = sp_weights else {
            let op = match combiner {
                "sum" => "SparseSegmentSum",
                "mean" => "SparseSegmentMean",
                _ => "SparseSegmentSqrtN",
            };
            return math::sparse_segment::sparse_segment_op(
                op,
                embeddings,
                idx,
                segment_ids,
                Some(scope.prefix()),
                fast,
            );
        };
        weighted(
            &g,
            scope.prefix(),
            combiner,
            embeddings,
            idx,
            segment_ids,
            w,
        )
    }
}

/// The weighted combination, in the current name scope `prefix`.
fn weighted(
    g: &Graph,
    prefix: &str,
    combiner: &str,
    embeddings: Output,
    idx: Output,
    segment_ids: Output,
    sp_weights: &SparseOutput,
) -> Result<Output> {
    let segment_ids = math::cast(segment_ids, DType::I32)?;
    let embeddings = crate::array::gather(embeddings, idx, 0)?;
    let weights = math::cast(&sp_weights.values, embeddings.dtype())?;
    // Weights of shape [n, 1, ..., 1], to scale each embedding row.
    let rank_minus_one = math::sub(crate::array::rank(&embeddings)?, constant(g, 1i32)?)?;
    let ones_shape = crate::array::expand_dims(rank_minus_one, 0)?;
    let ones = crate::array::fill(ones_shape, &constant(g, 1i32)?)?;
    let bcast = crate::array::concat(&[shape_of(&weights)?, ones], 0)?;
    let static_shape = match embeddings.shape().rank() {
        Some(r) => weights
            .shape()
            .concatenate(&Shape::known(&vec![1; r.saturating_sub(1)])),
        None => Shape::unknown(),
    };
    let weights = crate::new_op(g, "Reshape")
        .input(&weights)
        .input(bcast)
        .output_shape(0, static_shape)
        .build()?
        .output(0)?;
    let embeddings = math::mul(embeddings, &weights)?;
    let segment_sum = |x: Output, name: Option<&str>| {
        crate::new_op(g, "SegmentSum")
            .maybe_name(name)
            .input(x)
            .input(&segment_ids)
            .build()?
            .output(0)
    };
    let divisor = match combiner {
        "sum" => return segment_sum(embeddings, Some(prefix)),
        "mean" => segment_sum(weights, None)?,
        _ => {
            let two = constant(g, scalar_of(weights.dtype(), 2.0)?)?;
            math::sqrt(segment_sum(math::pow(&weights, two)?, None)?)?
        }
    };
    let sums = segment_sum(embeddings, None)?;
    crate::new_op(g, "DivNoNan")
        .name(prefix)
        .input(sums)
        .input(divisor)
        .build()?
        .output(0)
}

/// `tf.compat.v1.nn.safe_embedding_lookup_sparse(embedding_weights, sparse_ids,
/// sparse_weights=None, combiner="mean")`; see [`SafeEmbeddingLookupSparse`].
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::safe_embedding_lookup_sparse, sparse::SparseOutput};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let params = constant(&g, Tensor::from_vec(&[3, 1], vec![1.0f32, 2.0, 4.0])?)?;
/// // Row 0 holds ids 0 and 2, row 1 only the invalid id -1, row 2 nothing.
/// let ids = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[3, 2], vec![0i64, 0, 0, 1, 1, 0])?)?,
///     constant(&g, vec![0i64, 2, -1])?,
///     constant(&g, vec![3i64, 2])?,
/// )?;
/// let y = safe_embedding_lookup_sparse(&[params], &ids, None, "mean")?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [2.5, 0.0, 0.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn safe_embedding_lookup_sparse(
    embedding_weights: &[Output],
    sparse_ids: &SparseOutput,
    sparse_weights: Option<&SparseOutput>,
    combiner: &str,
) -> Result<Output> {
    SafeEmbeddingLookupSparse::new().combiner(combiner).build(
        embedding_weights,
        sparse_ids,
        sparse_weights,
    )
}

/// The options of TensorFlow 1's `tf.compat.v1.nn.safe_embedding_lookup_sparse(
/// embedding_weights, sparse_ids, sparse_weights=None, combiner="mean", default_id=None,
/// name=None, partition_strategy="div", max_norm=None)`: [`EmbeddingLookupSparse`] made safe
/// for real input. Ids of any rank `r >= 2` are looked up along their last dim; ids `< 0` are
/// dropped, and with a combiner other than `"sum"` so are entries whose weight is `<= 0`; rows
/// left empty give zeros, or the embedding of `default_id`. The result has shape
/// `dense_shape[:-1] + params.shape[1:]`.
///
/// Built op for op as TensorFlow builds it: `SparseReshape`, `sparse_retain`s,
/// `SparseFillEmptyRows`, the lookup and a `Select` of zeros for the empty rows.
#[derive(Clone, Debug)]
pub struct SafeEmbeddingLookupSparse {
    lookup: EmbeddingLookupSparse,
    default_id: Option<i64>,
}

impl Default for SafeEmbeddingLookupSparse {
    fn default() -> Self {
        SafeEmbeddingLookupSparse {
            lookup: EmbeddingLookupSparse::new().partition_strategy("div"),
            default_id: None,
        }
    }
}

impl SafeEmbeddingLookupSparse {
    /// The `"mean"` combiner, `"div"` strategy, no clipping, zeros for empty rows, name scope
    /// `embedding_lookup`.
    pub fn new() -> SafeEmbeddingLookupSparse {
        SafeEmbeddingLookupSparse::default()
    }

    /// `"mean"`, `"sqrtn"` or `"sum"`; anything else is InvalidArgument.
    pub fn combiner(mut self, combiner: &str) -> Self {
        self.lookup = self.lookup.combiner(combiner);
        self
    }

    /// The id whose embedding empty rows get (`default_id=`; zeros when unset).
    pub fn default_id(mut self, id: i64) -> Self {
        self.default_id = Some(id);
        self
    }

    /// As [`EmbeddingLookup::partition_strategy`] (default `"div"` here, as in TensorFlow).
    pub fn partition_strategy(mut self, strategy: &str) -> Self {
        self.lookup = self.lookup.partition_strategy(strategy);
        self
    }

    /// As [`EmbeddingLookup::max_norm`].
    pub fn max_norm(mut self, max_norm: f64) -> Self {
        self.lookup = self.lookup.max_norm(max_norm);
        self
    }

    /// The name scope (default `embedding_lookup`).
    pub fn name(mut self, name: &str) -> Self {
        self.lookup.lookup.name = Some(name.to_string());
        self
    }

    /// Adds the lookup of `sparse_ids` (int32 or int64 values) in `embedding_weights` (one
    /// table or its shards), weighted by `sparse_weights` (same indices) when given.
    pub fn build(
        &self,
        embedding_weights: &[Output],
        sparse_ids: &SparseOutput,
        sparse_weights: Option<&SparseOutput>,
    ) -> Result<Output> {
        if embedding_weights.is_empty() {
            return Err(Error::invalid_argument("Missing embedding_weights []."));
        }
        let combiner = self.lookup.combiner.clone();
        if !matches!(combiner.as_str(), "mean" | "sqrtn" | "sum") {
            return Err(Error::invalid_argument(format!(
                "combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}"
            )));
        }
        let params: Vec<Output> = match sparse_weights {
            Some(w) => embedding_weights
                .iter()
                .map(|p| {
                    if p.dtype() == w.dtype() {
                        Ok(p.clone())
                    } else {
                        Err(Error::invalid_argument(format!(
                            "Tensor conversion requested dtype {} for Tensor with dtype {}: {}",
                            w.dtype().python_name(),
                            p.dtype().python_name(),
                            p.name()
                        )))
                    }
                })
                .collect::<Result<_>>()?,
            None => embedding_weights.to_vec(),
        };
        let mut all: Vec<&Output> = params.iter().collect();
        all.push(&sparse_ids.indices);
        let g = crate::util::same_graph(&all)?.clone();
        let scope = g.name_scope(
            self.lookup
                .lookup
                .name
                .as_deref()
                .unwrap_or("embedding_lookup"),
        );
        let prefix = scope.prefix().to_string();
        // Reshape higher-rank ids and weights to [prod(dense_shape[:-1]), dense_shape[-1]].
        let original_shape = sparse_ids.dense_shape.clone();
        let rank_dim = original_shape.shape().dim(0);
        let original_rank = match rank_dim {
            Some(r) => constant(&g, r as i32)?,
            None => crate::array::size(&original_shape)?,
        };
        let one = constant(&g, 1i32)?;
        let rank_minus_one = math::sub(&original_rank, &one)?;
        let leading = crate::array::slice(
            &original_shape,
            constant(&g, vec![0i32])?,
            crate::array::reshape(&rank_minus_one, [1i64])?,
        )?;
        let rows = math::Reduce::prod()
            .axis(Axes::List(vec![0]))
            .build(&leading)?;
        let last = crate::array::gather(&original_shape, &rank_minus_one, 0)?;
        let new_shape = crate::array::stack(&[rows, last], 0)?;
        let mut ids = crate::sparse::sparse_reshape_tensor(sparse_ids, new_shape)?;
        let mut weights = match sparse_weights {
            Some(w) => Some(SparseOutput::new(
                ids.indices.clone(),
                w.values.clone(),
                ids.dense_shape.clone(),
            )?),
            None => None,
        };
        // Prune invalid ids, and invalid weights unless summing.
        let zero_id = constant(&g, scalar_of(ids.dtype(), 0.0)?)?;
        let valid = math::greater_equal(&ids.values, &zero_id)?;
        (ids, weights) = retain_both(&ids, weights.as_ref(), &valid)?;
        if combiner != "sum" {
            if let Some(w) = &weights {
                let zero = constant(&g, scalar_of(w.dtype(), 0.0)?)?;
                let valid = math::greater(&w.values, zero)?;
                (ids, weights) = retain_both(&ids, Some(w), &valid)?;
            }
        }
        // Give every empty row one entry.
        let default_id = constant(
            &g,
            scalar_of(ids.dtype(), self.default_id.unwrap_or(0) as f64)?,
        )?;
        let (ids, is_row_empty) = crate::sparse::sparse_fill_empty_rows(&ids, default_id)?;
        let weights = match weights {
            Some(w) => {
                let one = constant(&g, scalar_of(w.dtype(), 1.0)?)?;
                Some(crate::sparse::sparse_fill_empty_rows(&w, one)?.0)
            }
            None => None,
        };
        let mut lookup = self.lookup.clone();
        lookup.lookup.name = None;
        let mut result = lookup.build(&params, &ids, weights.as_ref())?;
        if self.default_id.is_none() {
            let column = crate::array::reshape(&is_row_empty, [-1i64, 1])?;
            let width =
                crate::array::strided_slice_items(shape_of(&result)?, &[SliceItem::Index(1)])?;
            let multiples = crate::array::stack(&[one.clone(), width], 0)?;
            let is_row_empty = crate::array::tile(column, multiples)?;
            result = crate::new_op(&g, "Select")
                .name(&prefix)
                .input(is_row_empty)
                .input(crate::array::zeros_like(&result)?)
                .input(&result)
                .build()?
                .output(0)?;
        }
        // Back from [rows, dim...] to dense_shape[:-1] + [dim...].
        let outer = crate::array::slice(
            math::cast(&original_shape, DType::I32)?,
            constant(&g, vec![0i32])?,
            crate::array::reshape(&rank_minus_one, [1i64])?,
        )?;
        let inner = crate::array::slice(shape_of(&result)?, [1i32], [-1i32])?;
        let final_shape = crate::array::concat(&[outer, inner], 0)?;
        let static_shape = match rank_dim {
            Some(r) => {
                Shape::new(vec![None; r.saturating_sub(1)]).concatenate(&tail(&result.shape()))
            }
            None => Shape::unknown(),
        };
        crate::new_op(&g, "Reshape")
            .input(&result)
            .input(final_shape)
            .output_shape(0, static_shape)
            .build()?
            .output(0)
    }
}

/// `sparse_retain` of the ids and (when given) the weights by one mask.
fn retain_both(
    ids: &SparseOutput,
    weights: Option<&SparseOutput>,
    keep: &Output,
) -> Result<(SparseOutput, Option<SparseOutput>)> {
    let ids = crate::sparse::sparse_retain(ids, keep)?;
    let weights = match weights {
        Some(w) => Some(crate::sparse::sparse_retain(w, keep)?),
        None => None,
    };
    Ok((ids, weights))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::placeholder;
    use weir_graph::Code;

    #[test]
    fn errors_have_tensorflow_kinds() {
        let g = Graph::new();
        let p = placeholder(&g, DType::F32, Shape::known(&[4, 2])).unwrap();
        let ids = constant(&g, [0i32, 3]).unwrap();
        let e = EmbeddingLookup::new()
            .partition_strategy("foo")
            .build(&[p.clone(), p.clone()], &ids)
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(
            e.message(),
            "Unrecognized partition strategy: foo.Must be one of either `mod` or `div`."
        );
        // One shard: TensorFlow never looks at the strategy.
        assert!(EmbeddingLookup::new()
            .partition_strategy("foo")
            .build(std::slice::from_ref(&p), &ids)
            .is_ok());
        let e = embedding_lookup(&[], &ids).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        // Shards whose rows differ in shape.
        let q = placeholder(&g, DType::F32, Shape::known(&[4, 3])).unwrap();
        let e = embedding_lookup(&[p.clone(), q], &ids).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let sp = SparseOutput::new(
            constant(
                &g,
                weir_graph::Tensor::from_vec(&[2, 2], vec![0i64, 0, 1, 0]).unwrap(),
            )
            .unwrap(),
            constant(&g, vec![0i64, 1]).unwrap(),
            constant(&g, vec![2i64, 1]).unwrap(),
        )
        .unwrap();
        let e = embedding_lookup_sparse(&[p], &sp, None, "max").unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(
            e.message(),
            "combiner must be one of 'mean', 'sqrtn' or 'sum', got max"
        );
    }
}
