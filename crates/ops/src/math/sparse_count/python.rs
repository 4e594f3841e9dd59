//! The Python-level builders over the count ops: `tf.sparse.bincount` ([`SparseBincount`])
//! and `tf.math.bincount` of a sparse or ragged `arr` ([`MathBincount`]).

use weir_graph::{DType, Error, Output, Result, Tensor};

use super::{
    dense_count_sparse_output, ragged_bincount_op, ragged_count_sparse_output, sparse_bincount_op,
    sparse_count_sparse_output, CountAttrs,
};
use crate::ragged::RaggedOutput;
use crate::sparse::SparseOutput;

/// Options of `tf.sparse.bincount(values, weights=None, axis=0, minlength=None,
/// maxlength=None, binary_output=False)`, for a dense, sparse or ragged `values`.
#[derive(Clone, Debug)]
pub struct SparseBincount {
    weights: Option<Output>,
    axis: i64,
    attrs: CountAttrs,
}

impl Default for SparseBincount {
    fn default() -> Self {
        SparseBincount::new()
    }
}

impl SparseBincount {
    /// TensorFlow's defaults: count over everything (`axis=0`), no weights.
    pub fn new() -> SparseBincount {
        SparseBincount {
            weights: None,
            axis: 0,
            attrs: CountAttrs::default(),
        }
    }

    /// Sum these (of `values`' shape, or the values of a sparse/ragged one) instead of ones.
    pub fn weights(mut self, w: impl Into<Output>) -> Self {
        self.weights = Some(w.into());
        self
    }

    /// `0` (flatten everything) or `-1` (count per row of a rank-2 input).
    pub fn axis(mut self, axis: i64) -> Self {
        self.axis = axis;
        self
    }

    /// The counts' dense shape is at least this wide.
    pub fn minlength(mut self, n: i64) -> Self {
        self.attrs.minlength = Some(n);
        self
    }

    /// Values at or above this are not counted.
    pub fn maxlength(mut self, n: i64) -> Self {
        self.attrs.maxlength = Some(n);
        self
    }

    /// Count presence instead of occurrences.
    pub fn binary_output(mut self, b: bool) -> Self {
        self.attrs.binary_output = b;
        self
    }

    fn check(&self) -> Result<()> {
        if self.weights.is_some() && self.attrs.binary_output {
            return Err(Error::invalid_argument(
                "Arguments `binary_output` and `weights` are mutually exclusive. Please specify \
                 only one.",
            ));
        }
        if self.axis != 0 && self.axis != -1 {
            return Err(Error::invalid_argument(format!(
                "Unsupported value for argument axis={}. Only 0 and -1 are currently supported.",
                self.axis
            )));
        }
        Ok(())
    }

    fn weights_or_empty(&self, g: &weir_graph::Graph, dtype: DType) -> Result<Output> {
        match &self.weights {
            Some(w) => Ok(w.clone()),
            None => crate::array::constant(g, Tensor::zeros(dtype, &[0])?),
        }
    }

    /// `tf.sparse.bincount` of a dense `values` (`DenseCountSparseOutput`).
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::{array::constant, math::SparseBincount};
    /// # use weir_session::Session;
    /// let g = Graph::new();
    /// let x = weir_graph::Tensor::from_vec(&[2, 3], vec![1, 1, 4, 2, 0, 2])?;
    /// let counts = SparseBincount::new().axis(-1).build(constant(&g, x)?)?;
    /// let sess = Session::new(&g)?;
    /// assert_eq!(sess.eval(&counts.indices)?.to_vec::<i64>()?, [0, 1, 0, 4, 1, 0, 1, 2]);
    /// assert_eq!(sess.eval(&counts.values)?.to_vec::<i32>()?, [2, 1, 1, 2]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn build(&self, values: impl Into<Output>) -> Result<SparseOutput> {
        self.check()?;
        let mut values = values.into();
        let g = values.graph().clone();
        let _scope = g.name_scope("count");
        let mut weights = self.weights_or_empty(&g, values.dtype())?;
        if self.axis == 0 {
            if self.weights.is_some() {
                weights = crate::array::reshape(&weights, [-1])?;
            }
            values = crate::array::reshape(&values, [-1])?;
        }
        dense_count_sparse_output(values, weights, self.attrs)
    }

    /// `tf.sparse.bincount` of a sparse `values` (`SparseCountSparseOutput`; with `axis=0`
    /// over its values alone).
    pub fn build_sparse(&self, values: &SparseOutput) -> Result<SparseOutput> {
        self.check()?;
        let g = values.graph().clone();
        let _scope = g.name_scope("count");
        let weights = self.weights_or_empty(&g, values.dtype())?;
        if self.axis == 0 {
            return dense_count_sparse_output(&values.values, weights, self.attrs);
        }
        sparse_count_sparse_output(values, weights, self.attrs)
    }

    /// `tf.sparse.bincount` of a ragged `values` (`RaggedCountSparseOutput` over its outer
    /// row splits, cast to int64; with `axis=0` over its values alone).
    pub fn build_ragged(&self, values: &RaggedOutput) -> Result<SparseOutput> {
        self.check()?;
        let g = values.graph().clone();
        let _scope = g.name_scope("count");
        let weights = self.weights_or_empty(&g, values.dtype())?;
        let flat = crate::array::reshape(&values.flat_values, [-1])?;
        if self.axis == 0 || values.ragged_rank() != 1 {
            let w = match &self.weights {
                Some(_) => crate::array::reshape(&weights, [-1])?,
                None => weights,
            };
            return dense_count_sparse_output(flat, w, self.attrs);
        }
        let splits = crate::math::cast(&values.nested_row_splits[0], DType::I64)?;
        ragged_count_sparse_output(splits, flat, weights, self.attrs)
    }
}

/// Options of `tf.math.bincount(arr, weights=None, minlength=None, maxlength=None,
/// dtype=tf.int32, axis=None, binary_output=False)` for a sparse or ragged `arr` (a dense
/// `arr` is [`crate::array::Bincount`]): `SparseBincount` / `RaggedBincount` per row with
/// `axis=-1`, `DenseBincount` over the values with `axis=0`.
#[derive(Clone, Debug)]
pub struct MathBincount {
    weights: Option<Output>,
    minlength: Option<i64>,
    maxlength: Option<i64>,
    dtype: DType,
    axis: i64,
    binary_output: bool,
}

impl Default for MathBincount {
    fn default() -> Self {
        MathBincount::new()
    }
}

impl MathBincount {
    /// TensorFlow's defaults: int32 counts over everything, as long as the largest value needs.
    pub fn new() -> MathBincount {
        MathBincount {
            weights: None,
            minlength: None,
            maxlength: None,
            dtype: DType::I32,
            axis: 0,
            binary_output: false,
        }
    }

    /// Sum these (one per value of `arr`) instead of ones; the counts take their dtype.
    pub fn weights(mut self, w: impl Into<Output>) -> Self {
        self.weights = Some(w.into());
        self
    }

    /// The output is at least this long.
    pub fn minlength(mut self, n: i64) -> Self {
        self.minlength = Some(n);
        self
    }

    /// The output is at most this long: larger values are not counted.
    pub fn maxlength(mut self, n: i64) -> Self {
        self.maxlength = Some(n);
        self
    }

    /// The dtype of the counts without weights.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// `0` (count over everything) or `-1` (count per row).
    pub fn axis(mut self, axis: i64) -> Self {
        self.axis = axis;
        self
    }

    /// Count presence instead of occurrences.
    pub fn binary_output(mut self, b: bool) -> Self {
        self.binary_output = b;
        self
    }

    /// The output length TensorFlow computes: `max(values) + 1` (0 when `arr` has no
    /// elements), clipped to `[minlength, maxlength]`; and `values` cast to an integer dtype.
    fn size(&self, values: &Output, nonempty: Output) -> Result<(Output, Output)> {
        use crate::array::constant;
        use crate::math::{add, cast, maximum, minimum, mul, reduce_max, Axes};
        if self.weights.is_some() && self.binary_output {
            return Err(Error::invalid_argument(
                "Arguments `binary_output` and `weights` are mutually exclusive. Please specify \
                 only one.",
            ));
        }
        if self.axis != 0 && self.axis != -1 {
            return Err(Error::invalid_argument(format!(
                "Unsupported value for argument axis={}. Only 0 and -1 are currently supported.",
                self.axis
            )));
        }
        let g = values.graph().clone();
        let values = if values.dtype().is_integer() {
            values.clone()
        } else {
            cast(values, DType::I32)?
        };
        let dt = values.dtype();
        let num = |v: i64| constant(&g, weir_graph::scalar_of(dt, v as f64)?);
        let top = maximum(reduce_max(&values, Axes::All)?, num(-1)?)?;
        let mut size = mul(cast(nonempty, dt)?, add(top, num(1)?)?)?;
        if let Some(n) = self.minlength {
            size = maximum(num(n)?, size)?;
        }
        if let Some(n) = self.maxlength {
            size = minimum(num(n)?, size)?;
        }
        Ok((values, size))
    }

    fn weights_or_empty(&self, g: &weir_graph::Graph) -> Result<Output> {
        match &self.weights {
            Some(w) => Ok(w.clone()),
            None => crate::array::constant(g, Tensor::zeros(self.dtype, &[0])?),
        }
    }

    fn dense_bincount(&self, values: Output, size: Output) -> Result<Output> {
        let g = values.graph().clone();
        let weights = self.weights_or_empty(&g)?;
        crate::new_op(&g, "DenseBincount")
            .input(values)
            .input(size)
            .input(weights)
            .attr("binary_output", self.binary_output)
            .build()?
            .output(0)
    }

    /// `tf.math.bincount` of a sparse `arr`.
    pub fn build_sparse(&self, arr: &SparseOutput) -> Result<Output> {
        use crate::math::{greater, reduce_prod, Axes};
        let g = arr.graph().clone();
        let _scope = g.name_scope("bincount");
        let total = reduce_prod(&arr.dense_shape, Axes::All)?;
        let nonempty = greater(total, crate::array::constant(&g, 0i64)?)?;
        let (values, size) = self.size(&arr.values, nonempty)?;
        if self.axis == 0 {
            return self.dense_bincount(values, size);
        }
        let sp = SparseOutput::new(arr.indices.clone(), values, arr.dense_shape.clone())?;
        let weights = self.weights_or_empty(&g)?;
        sparse_bincount_op(&sp, size, weights, self.binary_output)
    }

    /// `tf.math.bincount` of a ragged `arr` (of ragged rank 1 for `axis=-1`).
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::{array::constant, math::MathBincount, ragged::RaggedOutput};
    /// # use weir_session::Session;
    /// let g = Graph::new();
    /// let rt = RaggedOutput::from_nested_row_splits(
    ///     constant(&g, [1, 1, 3])?,
    ///     vec![constant(&g, [0i64, 2, 3])?],
    /// )?; // [[1, 1], [3]]
    /// let counts = MathBincount::new().axis(-1).build_ragged(&rt)?;
    /// let sess = Session::new(&g)?;
    /// assert_eq!(sess.eval(&counts)?.to_vec::<i32>()?, [0, 2, 0, 0, 0, 0, 0, 1]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn build_ragged(&self, arr: &RaggedOutput) -> Result<Output> {
        use crate::math::greater;
        let g = arr.graph().clone();
        let _scope = g.name_scope("bincount");
        let flat = crate::array::reshape(&arr.flat_values, [-1])?;
        let nonempty = greater(crate::array::size(&flat)?, crate::array::constant(&g, 0)?)?;
        let (values, size) = self.size(&flat, nonempty)?;
        if self.axis == 0 {
            return self.dense_bincount(values, size);
        }
        if arr.ragged_rank() != 1 {
            return Err(Error::invalid_argument(
                "tf.math.bincount with axis=-1 takes a ragged tensor of ragged rank 1",
            ));
        }
        let splits = crate::math::cast(&arr.nested_row_splits[0], DType::I64)?;
        let weights = match &self.weights {
            Some(w) => crate::array::reshape(w, [-1])?,
            None => self.weights_or_empty(&g)?,
        };
        ragged_bincount_op(splits, values, size, weights, self.binary_output)
    }
}
