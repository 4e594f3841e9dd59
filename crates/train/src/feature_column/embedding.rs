//! `embedding_column`.

use weir_graph::{DType, Error, Output, Result};
use weir_ops::init_ops::Initializer;
use weir_ops::nn::SafeEmbeddingLookupSparse;
use weir_ops::sparse::SparseOutput;

use super::transform::{Cache, VarCtx};
use super::{Column, FeatureColumn};
use crate::{GetVariable, InitFromCheckpoint};

/// The options of `tf.feature_column.embedding_column(categorical_column, dimension,
/// combiner='mean', initializer=None, ckpt_to_load_from=None, tensor_name_in_ckpt=None,
/// max_norm=None, trainable=True)`: the ids of a categorical column looked up in a
/// `[num_buckets, dimension]` table `embedding_weights` and combined per example by
/// `tf.compat.v1.nn.safe_embedding_lookup_sparse` (invalid ids dropped, empty rows zero).
/// The default initializer is `truncated_normal(stddev=1/sqrt(dimension))`.
///
/// ```
/// # use std::collections::BTreeMap;
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, init_ops::Initializer, state::global_variables_initializer};
/// # use weir_session::Session;
/// use weir_train::feature_column::{self as fc, EmbeddingColumn};
/// let g = Graph::new();
/// let ids = fc::categorical_column_with_identity("id", 3)?;
/// let table = Tensor::from_vec(&[3, 2], vec![1.0f32, 2., 3., 4., 5., 6.])?;
/// let emb = EmbeddingColumn::new(&ids, 2).combiner("sum").initializer(Initializer::Constant(table)).build()?;
/// let features = BTreeMap::from([("id".to_string(), constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 2, -1, -1])?)?.into())]);
/// let x = fc::input_layer(&features, &[emb])?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// assert_eq!(sess.eval(&x)?.to_vec::<f32>()?, [6., 8., 0., 0.]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct EmbeddingColumn {
    pub(crate) categorical_column: FeatureColumn,
    pub(crate) dimension: usize,
    combiner: String,
    initializer: Option<Initializer>,
    ckpt_to_load_from: Option<String>,
    tensor_name_in_ckpt: Option<String>,
    max_norm: Option<f64>,
    trainable: bool,
}

impl EmbeddingColumn {
    /// The embedding of `categorical_column` in `dimension` dims, with TensorFlow's defaults.
    pub fn new(categorical_column: &FeatureColumn, dimension: usize) -> Self {
        EmbeddingColumn {
            categorical_column: categorical_column.clone(),
            dimension,
            combiner: "mean".to_string(),
            initializer: None,
            ckpt_to_load_from: None,
            tensor_name_in_ckpt: None,
            max_norm: None,
            trainable: true,
        }
    }

    /// How the embeddings of one example combine (`combiner=`): `"mean"` (default), `"sqrtn"`
    /// or `"sum"`.
    pub fn combiner(mut self, combiner: &str) -> Self {
        self.combiner = combiner.to_string();
        self
    }

    /// The initializer of the table (`initializer=`).
    pub fn initializer(mut self, init: Initializer) -> Self {
        self.initializer = Some(init);
        self
    }

    /// The checkpoint to initialize the table from (`ckpt_to_load_from=`); needs
    /// [`tensor_name_in_ckpt`](Self::tensor_name_in_ckpt).
    pub fn ckpt_to_load_from(mut self, ckpt: &str) -> Self {
        self.ckpt_to_load_from = Some(ckpt.to_string());
        self
    }

    /// The name of the table's tensor in that checkpoint (`tensor_name_in_ckpt=`).
    pub fn tensor_name_in_ckpt(mut self, name: &str) -> Self {
        self.tensor_name_in_ckpt = Some(name.to_string());
        self
    }

    /// Clips each looked-up embedding to this L2 norm (`max_norm=`).
    pub fn max_norm(mut self, max_norm: f64) -> Self {
        self.max_norm = Some(max_norm);
        self
    }

    /// Whether the table is trainable (`trainable=`, true).
    pub fn trainable(mut self, trainable: bool) -> Self {
        self.trainable = trainable;
        self
    }

    /// Validates the options as TensorFlow does and makes the column.
    pub fn build(mut self) -> Result<FeatureColumn> {
        self.check_options()?;
        if !self.categorical_column.is_categorical() {
            return Err(Error::invalid_argument(format!(
                "categorical_column must be a CategoricalColumn. Given: {}",
                self.categorical_column.repr()
            )));
        }
        if self.initializer.is_none() {
            self.initializer = Some(default_initializer(self.dimension));
        }
        Ok(FeatureColumn::new(Column::Embedding(self)))
    }

    pub(crate) fn repr(&self) -> String {
        let opt = |o: &Option<String>| o.as_ref().map_or("None".to_string(), |s| format!("'{s}'"));
        format!(
            "EmbeddingColumn(categorical_column={}, dimension={}, combiner='{}', initializer=<initializer>, ckpt_to_load_from={}, tensor_name_in_ckpt={}, max_norm={}, trainable={}, use_safe_embedding_lookup=True)",
            self.categorical_column.repr(),
            self.dimension,
            self.combiner,
            opt(&self.ckpt_to_load_from),
            opt(&self.tensor_name_in_ckpt),
            self.max_norm.map_or("None".to_string(), super::py_float),
            if self.trainable { "True" } else { "False" }
        )
    }

    /// `_get_dense_tensor`: creates `embedding_weights` in the current variable scope and
    /// looks the ids up, float32 `[batch, dimension]`.
    pub(crate) fn dense_tensor(&self, cache: &mut Cache<'_>, ctx: &VarCtx) -> Result<Output> {
        let num_buckets = self.categorical_column.num_buckets().ok_or_else(|| {
            Error::invalid_argument("embedding_column needs a categorical column")
        })?;
        let (ids, weights) = cache.sparse_tensors(&self.categorical_column)?;
        let g = ids.graph().clone();
        let keys: Vec<&str> = ctx.collections.iter().map(String::as_str).collect();
        let mut var = GetVariable::new("embedding_weights")
            .shape(&[num_buckets as usize, self.dimension])
            .dtype(DType::F32)
            .trainable(self.trainable && ctx.trainable)
            .collections(&keys);
        if let Some(init) = &self.initializer {
            var = var.initializer(init.clone());
        }
        let var = var.build(&g)?;
        if let (Some(ckpt), Some(tensor)) = (&self.ckpt_to_load_from, &self.tensor_name_in_ckpt) {
            InitFromCheckpoint::new(ckpt)
                .map(tensor, &var.name())
                .apply(&g)?;
        }
        let name = format!("{}_embedding_weights", self.categorical_column.name());
        self.lookup(&var.value(), &ids, weights.as_ref(), &name)
    }

    /// `safe_embedding_lookup_sparse(table, ids, weights)` with this column's combiner and
    /// max_norm, named `name`.
    pub(crate) fn lookup(
        &self,
        table: &Output,
        ids: &SparseOutput,
        weights: Option<&SparseOutput>,
        name: &str,
    ) -> Result<Output> {
        let mut lookup = SafeEmbeddingLookupSparse::new()
            .combiner(&self.combiner)
            .name(name);
        if let Some(m) = self.max_norm {
            lookup = lookup.max_norm(m);
        }
        lookup.build(std::slice::from_ref(table), ids, weights)
    }

    /// The table's initializer (`truncated_normal(1/sqrt(dimension))` unless set).
    pub(crate) fn table_initializer(&self) -> Initializer {
        self.initializer
            .clone()
            .unwrap_or_else(|| default_initializer(self.dimension))
    }

    /// `ckpt_to_load_from` and `tensor_name_in_ckpt`, when both are set.
    pub(crate) fn checkpoint(&self) -> Option<(&str, &str)> {
        match (&self.ckpt_to_load_from, &self.tensor_name_in_ckpt) {
            (Some(c), Some(t)) => Some((c, t)),
            _ => None,
        }
    }

    pub(crate) fn combiner_name(&self) -> &str {
        &self.combiner
    }

    pub(crate) fn max_norm_value(&self) -> Option<f64> {
        self.max_norm
    }

    pub(crate) fn is_trainable(&self) -> bool {
        self.trainable
    }

    /// The options' checks shared with `shared_embedding_columns`: dimension and checkpoint.
    pub(crate) fn check_options(&self) -> Result<()> {
        if self.dimension < 1 {
            return Err(Error::invalid_argument(format!(
                "Invalid dimension {}.",
                self.dimension
            )));
        }
        if self.ckpt_to_load_from.is_some() != self.tensor_name_in_ckpt.is_some() {
            return Err(Error::invalid_argument(
                "Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.",
            ));
        }
        Ok(())
    }
}

/// TensorFlow's default embedding initializer: `truncated_normal(0, 1/sqrt(dimension))`.
fn default_initializer(dimension: usize) -> Initializer {
    Initializer::TruncatedNormal {
        mean: 0.0,
        stddev: 1.0 / (dimension as f64).sqrt(),
        seed: None,
    }
}

/// `tf.feature_column.embedding_column(categorical_column, dimension)` with TensorFlow's
/// defaults; more options: [`EmbeddingColumn`].
pub fn embedding_column(
    categorical_column: &FeatureColumn,
    dimension: usize,
) -> Result<FeatureColumn> {
    EmbeddingColumn::new(categorical_column, dimension).build()
}
