//! `shared_embedding_columns`.

use weir_graph::{DType, Error, Output, Result};
use weir_ops::init_ops::Initializer;
use weir_ops::state::{collection_variables, Variable};

use super::embedding::EmbeddingColumn;
use super::transform::{Cache, VarCtx};
use super::{Column, FeatureColumn};
use crate::{GetVariable, InitFromCheckpoint};

/// One column of [`shared_embedding_columns`]: TensorFlow's `_SharedEmbeddingColumn`, an
/// embedding whose table is the one variable of the graph collection `collection`.
pub(crate) struct SharedEmbedding {
    /// The categorical column, dimension and lookup options.
    pub(crate) embedding: EmbeddingColumn,
    /// `shared_embedding_collection_name`: the collection and variable scope of the table.
    pub(crate) collection: String,
}

impl SharedEmbedding {
    pub(crate) fn categorical_column(&self) -> &FeatureColumn {
        &self.embedding.categorical_column
    }

    pub(crate) fn name(&self) -> String {
        format!("{}_shared_embedding", self.categorical_column().name())
    }

    pub(crate) fn repr(&self) -> String {
        let e = &self.embedding;
        let opt = |o: Option<&str>| o.map_or("None".to_string(), |s| format!("'{s}'"));
        let ckpt = e.checkpoint();
        format!(
            "_SharedEmbeddingColumn(categorical_column={}, dimension={}, combiner='{}', initializer=<initializer>, shared_embedding_collection_name='{}', ckpt_to_load_from={}, tensor_name_in_ckpt={}, max_norm={}, trainable={}, use_safe_embedding_lookup=True)",
            self.categorical_column().repr(),
            e.dimension,
            e.combiner_name(),
            self.collection,
            opt(ckpt.map(|c| c.0)),
            opt(ckpt.map(|c| c.1)),
            e.max_norm_value().map_or("None".to_string(), super::py_float),
            if e.is_trainable() { "True" } else { "False" }
        )
    }

    /// `_get_dense_tensor`: the table from the collection (created as `embedding_weights` in
    /// the current variable scope by the first column built), looked up as
    /// `embedding_column` does.
    pub(crate) fn dense_tensor(
        &self,
        cache: &mut Cache<'_>,
        ctx: &VarCtx,
        name: &str,
    ) -> Result<Output> {
        let cat = self.categorical_column();
        let num_buckets = cat.num_buckets().ok_or_else(|| {
            Error::invalid_argument("shared_embedding_columns needs categorical columns")
        })?;
        let (ids, weights) = cache.sparse_tensors(cat)?;
        let g = ids.graph().clone();
        let _scope = g.name_scope(name);
        let shape = [num_buckets as usize, self.embedding.dimension];
        let existing = collection_variables(&g, &self.collection)?;
        let table = match existing.as_slice() {
            [] => {
                let keys: Vec<&str> = ctx.collections.iter().map(String::as_str).collect();
                let var = GetVariable::new("embedding_weights")
                    .shape(&shape)
                    .dtype(DType::F32)
                    .initializer(self.embedding.table_initializer())
                    .trainable(self.embedding.is_trainable() && ctx.trainable)
                    .collections(&keys)
                    .build(&g)?;
                var.add_to_collection(&self.collection);
                if let Some((ckpt, tensor)) = self.embedding.checkpoint() {
                    InitFromCheckpoint::new(ckpt)
                        .map(tensor, &var.name())
                        .apply(&g)?;
                }
                var
            }
            [var] => {
                let found = var.shape().dims().map(<[_]>::to_vec).unwrap_or_default();
                if found != shape.iter().map(|&d| Some(d)).collect::<Vec<_>>() {
                    return Err(Error::invalid_argument(format!(
                        "Shared embedding collection {} contains variable {}:0 of unexpected shape {}. Expected shape is ({}, {}). Suggested fix A: Choose a unique name for this collection. Suggested fix B: Do not add any variables to this collection. The feature_column library already adds a variable under the hood.",
                        self.collection,
                        var.name(),
                        py_shape(&found),
                        shape[0],
                        shape[1]
                    )));
                }
                var.clone()
            }
            many => {
                let vars: Vec<String> = many.iter().map(variable_repr).collect();
                return Err(Error::invalid_argument(format!(
                    "Collection [{}] can only contain one variable. Suggested fix A: Choose a unique name for this collection. Suggested fix B: Do not add any variables to this collection. The feature_column library already adds a variable under the hood.",
                    vars.join(", ")
                )));
            }
        };
        self.embedding.lookup(
            &table.value(),
            &ids,
            weights.as_ref(),
            &format!("{name}_weights"),
        )
    }
}

/// A static shape as TensorFlow prints a `TensorShape`: `(4, 2)`, `None` for unknown dims.
fn py_shape(dims: &[Option<usize>]) -> String {
    let d: Vec<String> = dims
        .iter()
        .map(|d| d.map_or("None".to_string(), |d| d.to_string()))
        .collect();
    if d.len() == 1 {
        format!("({},)", d[0])
    } else {
        format!("({})", d.join(", "))
    }
}

/// A reference variable as Python prints it.
fn variable_repr(v: &Variable) -> String {
    format!(
        "<tf.Variable '{}:0' shape={} dtype={}_ref>",
        v.name(),
        py_shape(&v.shape().dims().map(<[_]>::to_vec).unwrap_or_default()),
        v.dtype().python_name()
    )
}

/// The Python class of a column, as TensorFlow's messages print `type(column)`.
fn py_type(c: &FeatureColumn) -> String {
    let (module, class) = match c.kind() {
        Column::Numeric(_) => ("feature_column_v2", "NumericColumn"),
        Column::Bucketized(_) => ("feature_column_v2", "BucketizedColumn"),
        Column::Identity(_) => ("feature_column_v2", "IdentityCategoricalColumn"),
        Column::Hashed(_) => ("feature_column_v2", "HashedCategoricalColumn"),
        Column::VocabularyList(_) => ("feature_column_v2", "VocabularyListCategoricalColumn"),
        Column::VocabularyFile(_) => ("feature_column_v2", "VocabularyFileCategoricalColumn"),
        Column::Weighted(_) => ("feature_column_v2", "WeightedCategoricalColumn"),
        Column::Crossed(_) => ("feature_column_v2", "CrossedColumn"),
        Column::Indicator(_) => ("feature_column_v2", "IndicatorColumn"),
        Column::Embedding(_) => ("feature_column_v2", "EmbeddingColumn"),
        Column::SharedEmbedding(_) => ("feature_column", "_SharedEmbeddingColumn"),
    };
    format!("<class 'tensorflow.python.feature_column.{module}.{class}'>")
}

/// A weighted column's categorical column, repeatedly (TensorFlow unwraps weighted columns
/// before comparing the columns' types).
fn unwrap_weighted(c: &FeatureColumn) -> &FeatureColumn {
    match c.kind() {
        Column::Weighted(w) => unwrap_weighted(&w.categorical_column),
        _ => c,
    }
}

/// Whether two (unwrapped) columns are of one Python type.
fn same_type(a: &FeatureColumn, b: &FeatureColumn) -> bool {
    std::mem::discriminant(a.kind()) == std::mem::discriminant(b.kind())
}

/// The options of `tf.compat.v1.feature_column.shared_embedding_columns(categorical_columns,
/// dimension, combiner='mean', initializer=None, shared_embedding_collection_name=None,
/// ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None, trainable=True)`:
/// embedding columns, one per categorical column, looking up one `[num_buckets, dimension]`
/// table. The table is `embedding_weights` in the variable scope named after the collection
/// (by default the sorted columns' names joined by `_` plus `_shared_embedding`), made by the
/// first column built and found in that graph collection by the others.
///
/// ```
/// # use std::collections::BTreeMap;
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, init_ops::Initializer, state::{global_variables, global_variables_initializer}};
/// # use weir_session::Session;
/// use weir_train::feature_column::{self as fc, SharedEmbeddingColumns};
/// let g = Graph::new();
/// let (watched, shown) = (fc::categorical_column_with_identity("watched", 3)?, fc::categorical_column_with_identity("shown", 3)?);
/// let table = Tensor::from_vec(&[3, 1], vec![1.0f32, 10., 100.])?;
/// let cols = SharedEmbeddingColumns::new(&[watched, shown], 1).combiner("sum").initializer(Initializer::Constant(table)).build()?;
/// let features = BTreeMap::from([
///     ("watched".to_string(), constant(&g, Tensor::from_vec(&[1, 2], vec![0i64, 2])?)?.into()),
///     ("shown".to_string(), constant(&g, Tensor::from_vec(&[1, 2], vec![1i64, -1])?)?.into()),
/// ]);
/// let x = fc::input_layer(&features, &cols)?;
/// assert_eq!(global_variables(&g)?[0].name(), "input_layer/shown_watched_shared_embedding/embedding_weights");
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// assert_eq!(sess.eval(&x)?.to_vec::<f32>()?, [10., 101.]); // "shown" sorts first
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SharedEmbeddingColumns {
    categorical_columns: Vec<FeatureColumn>,
    options: EmbeddingColumn,
    collection: Option<String>,
}

impl SharedEmbeddingColumns {
    /// Shared embeddings of `categorical_columns` in `dimension` dims, with TensorFlow's
    /// defaults.
    pub fn new(categorical_columns: &[FeatureColumn], dimension: usize) -> Self {
        // The options' carrier: its categorical column is replaced per column in `build`.
        let carrier = categorical_columns
            .first()
            .cloned()
            .unwrap_or_else(|| FeatureColumn::new(Column::Numeric(super::NumericColumn::new(""))));
        SharedEmbeddingColumns {
            categorical_columns: categorical_columns.to_vec(),
            options: EmbeddingColumn::new(&carrier, dimension),
            collection: None,
        }
    }

    /// How the embeddings of one example combine (`combiner=`): `"mean"` (default), `"sqrtn"`
    /// or `"sum"`.
    pub fn combiner(mut self, combiner: &str) -> Self {
        self.options = self.options.combiner(combiner);
        self
    }

    /// The initializer of the table (`initializer=`).
    pub fn initializer(mut self, init: Initializer) -> Self {
        self.options = self.options.initializer(init);
        self
    }

    /// The collection (and variable scope) of the table
    /// (`shared_embedding_collection_name=`).
    pub fn shared_embedding_collection_name(mut self, name: &str) -> Self {
        self.collection = Some(name.to_string());
        self
    }

    /// The checkpoint to initialize the table from (`ckpt_to_load_from=`).
    pub fn ckpt_to_load_from(mut self, ckpt: &str) -> Self {
        self.options = self.options.ckpt_to_load_from(ckpt);
        self
    }

    /// The name of the table's tensor in that checkpoint (`tensor_name_in_ckpt=`).
    pub fn tensor_name_in_ckpt(mut self, name: &str) -> Self {
        self.options = self.options.tensor_name_in_ckpt(name);
        self
    }

    /// Clips each looked-up embedding to this L2 norm (`max_norm=`).
    pub fn max_norm(mut self, max_norm: f64) -> Self {
        self.options = self.options.max_norm(max_norm);
        self
    }

    /// Whether the table is trainable (`trainable=`, true).
    pub fn trainable(mut self, trainable: bool) -> Self {
        self.options = self.options.trainable(trainable);
        self
    }

    /// Validates the columns and options as TensorFlow does and makes the columns, in the
    /// order given.
    pub fn build(self) -> Result<Vec<FeatureColumn>> {
        self.options.check_options()?;
        let mut sorted = self.categorical_columns.clone();
        sorted.sort_by_key(|c| c.name());
        let Some(first) = sorted.first() else {
            return Err(Error::invalid_argument(
                "categorical_columns must not be empty.",
            ));
        };
        let num_buckets = match first.num_buckets() {
            Some(n) if first.is_categorical() => n,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "All categorical_columns must be subclasses of _CategoricalColumn. Given: {}, of type: {}",
                    first.repr(),
                    py_type(first)
                )))
            }
        };
        let c0 = unwrap_weighted(first);
        for c in &sorted[1..] {
            let c = unwrap_weighted(c);
            if !same_type(c, c0) {
                return Err(Error::invalid_argument(format!(
                    "To use shared_embedding_column, all categorical_columns must have the same type, or be weighted_categorical_column or sequence column of the same type. Given column: {} of type: {} does not match given column: {} of type: {}",
                    c0.repr(),
                    py_type(c0),
                    c.repr(),
                    py_type(c)
                )));
            }
            let n = c.num_buckets().unwrap_or(-1);
            if n != num_buckets {
                return Err(Error::invalid_argument(format!(
                    "To use shared_embedding_column, all categorical_columns must have the same number of buckets. ven column: {} with buckets: {num_buckets} does  not match column: {} with buckets: {n}",
                    c0.repr(),
                    c.repr()
                )));
            }
        }
        let collection = match self.collection.filter(|s| !s.is_empty()) {
            Some(name) => name,
            None => {
                let names: Vec<String> = sorted.iter().map(FeatureColumn::name).collect();
                format!("{}_shared_embedding", names.join("_"))
            }
        };
        let init = self.options.table_initializer();
        let options = self.options.initializer(init);
        Ok(self
            .categorical_columns
            .iter()
            .map(|c| {
                let mut embedding = options.clone();
                embedding.categorical_column = c.clone();
                FeatureColumn::new(Column::SharedEmbedding(SharedEmbedding {
                    embedding,
                    collection: collection.clone(),
                }))
            })
            .collect())
    }
}

/// `tf.compat.v1.feature_column.shared_embedding_columns(categorical_columns, dimension)`
/// with TensorFlow's defaults: embedding columns sharing one table; more options:
/// [`SharedEmbeddingColumns`].
///
/// ```
/// use weir_train::feature_column::{self as fc};
/// let a = fc::categorical_column_with_identity("a", 10)?;
/// let b = fc::categorical_column_with_identity("b", 10)?;
/// let cols = fc::shared_embedding_columns(&[b, a], 4)?;
/// assert_eq!(cols[0].name(), "b_shared_embedding");
/// let c = fc::categorical_column_with_identity("c", 11)?;
/// assert!(fc::shared_embedding_columns(&[cols[0].clone(), c], 4).is_err());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn shared_embedding_columns(
    categorical_columns: &[FeatureColumn],
    dimension: usize,
) -> Result<Vec<FeatureColumn>> {
    SharedEmbeddingColumns::new(categorical_columns, dimension).build()
}
