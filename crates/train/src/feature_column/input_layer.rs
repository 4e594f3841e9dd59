//! `input_layer`, `linear_model` and `make_parse_example_spec`.

use std::collections::BTreeMap;

use weir_graph::{graph_keys, Error, Graph, NameScope, Output, Result};
use weir_ops::array::{constant, reshape, shape, stack, strided_slice_items, SliceItem};
use weir_ops::init_ops::Initializer;
use weir_ops::math::{add_n, cast, matmul};
use weir_ops::nn::{bias_add, SafeEmbeddingLookupSparse};
use weir_ops::parsing::Features;
use weir_ops::sparse::{sparse_reshape_tensor, SparseOutput};

use super::transform::{graph_of, normalize, sorted, Cache, VarCtx};
use super::{FeatureColumn, FeatureMap, ParseSpec};
use crate::{GetVariable, VariableScope, VariableScopeGuard};

/// `tf.compat.v1.feature_column.input_layer(features, feature_columns)`: the dense columns'
/// tensors, each reshaped to `[batch, prod(variable_shape)]`, concatenated along axis 1 in
/// column-name order. Variables go in the scopes `input_layer/<column name>/`. More options:
/// [`InputLayer`]; an example is in the [module docs](super).
pub fn input_layer(features: &FeatureMap, feature_columns: &[FeatureColumn]) -> Result<Output> {
    InputLayer::new().build(features, feature_columns)
}

/// The options of `tf.compat.v1.feature_column.input_layer(features, feature_columns,
/// weight_collections=None, trainable=True)`.
#[derive(Clone, Debug)]
pub struct InputLayer {
    weight_collections: Vec<String>,
    trainable: bool,
}

impl Default for InputLayer {
    fn default() -> Self {
        InputLayer {
            weight_collections: Vec::new(),
            trainable: true,
        }
    }
}

impl InputLayer {
    /// No extra collections; trainable variables.
    pub fn new() -> InputLayer {
        InputLayer::default()
    }

    /// Collections the variables join besides `GLOBAL_VARIABLES` and `MODEL_VARIABLES`
    /// (`weight_collections=`).
    pub fn weight_collections(mut self, keys: &[&str]) -> Self {
        self.weight_collections = keys.iter().map(|k| k.to_string()).collect();
        self
    }

    /// Whether the variables are trainable (`trainable=`, true).
    pub fn trainable(mut self, trainable: bool) -> Self {
        self.trainable = trainable;
        self
    }

    /// Builds the layer over `features`; InvalidArgument (TensorFlow's `ValueError`s) for no
    /// columns, duplicate names, non-dense columns, missing features and batch sizes that
    /// differ statically.
    pub fn build(
        &self,
        features: &FeatureMap,
        feature_columns: &[FeatureColumn],
    ) -> Result<Output> {
        let columns = normalize(feature_columns)?;
        if let Some(c) = columns.iter().find(|c| !c.is_dense()) {
            return Err(Error::invalid_argument(format!(
                "Items of feature_columns must be a _DenseColumn. You can wrap a categorical column with an embedding_column or indicator_column. Given: {}",
                c.repr()
            )));
        }
        let ctx = VarCtx {
            collections: with_model_collections(&self.weight_collections),
            trainable: self.trainable,
        };
        let g = graph_of(features)?;
        let _scope = DefaultScope::open(&g, "input_layer")?;
        let mut cache = Cache::new(features);
        let mut outputs = Vec::new();
        let mut batch_sizes = Vec::new();
        for c in sorted(&columns) {
            let _col = DefaultScope::open(&g, &c.var_scope_name())?;
            let t = cache.dense_tensor(&c, &ctx)?;
            let n: usize = c.variable_shape().unwrap_or_default().iter().product();
            batch_sizes.push((c.name(), t.shape().dim(0)));
            outputs.push(to_batch_matrix(&t, n)?);
        }
        verify_batch_sizes(&batch_sizes)?;
        weir_ops::array::concat(&outputs, 1)
    }
}

/// `reshape(t, [shape(t)[0], n])`.
fn to_batch_matrix(t: &Output, n: usize) -> Result<Output> {
    let g = t.graph().clone();
    let batch = strided_slice_items(shape(t)?, &[SliceItem::Index(0)])?;
    let target = stack(&[batch, constant(&g, n as i32)?], 0)?;
    reshape(t, target)
}

/// `weight_collections` plus `GLOBAL_VARIABLES` and `MODEL_VARIABLES`.
fn with_model_collections(keys: &[String]) -> Vec<String> {
    let mut keys = keys.to_vec();
    for k in [graph_keys::GLOBAL_VARIABLES, graph_keys::MODEL_VARIABLES] {
        if !keys.iter().any(|x| x == k) {
            keys.push(k.to_string());
        }
    }
    keys
}

/// TensorFlow's `_verify_static_batch_size_equality`.
fn verify_batch_sizes(sizes: &[(String, Option<usize>)]) -> Result<()> {
    let mut expected: Option<(&str, usize)> = None;
    for (name, size) in sizes {
        let Some(size) = size else { continue };
        match expected {
            None => expected = Some((name, *size)),
            Some((first, want)) if want != *size => {
                return Err(Error::invalid_argument(format!(
                    "Batch size (first dimension) of each feature must be same. Batch size of columns ({first}, {name}): ({want}, {size})"
                )))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// `variable_scope(None, default_name=base)`: a variable scope named after the name scope
/// `base` (made unique: `base`, `base_1`, ...), holding the ops built meanwhile.
struct DefaultScope {
    _ops: NameScope,
    _vars: VariableScopeGuard,
    _outer: NameScope,
}

impl DefaultScope {
    fn open(g: &Graph, base: &str) -> Result<DefaultScope> {
        let prefix = DefaultScope::reserve(g, base);
        DefaultScope::enter(g, &prefix)
    }

    /// The unique scope prefix for `base` (e.g. `linear_model/zz_1/`), taken but not entered.
    fn reserve(g: &Graph, base: &str) -> String {
        let _n = g.name_scope(base);
        g.current_scope()
    }

    /// Enters the scope `prefix` that [`DefaultScope::reserve`] gave.
    fn enter(g: &Graph, prefix: &str) -> Result<DefaultScope> {
        let chosen = layer_name(prefix).to_string();
        // weir's variable scope opens a name scope of its own name: put it inside `prefix`,
        // where no op is named so, and build the ops in `prefix` itself.
        let outer = g.name_scope(prefix);
        let vars = VariableScope::new(&chosen).enter(g)?;
        let ops = g.name_scope(prefix);
        Ok(DefaultScope {
            _ops: ops,
            _vars: vars,
            _outer: outer,
        })
    }
}

/// `tf.compat.v1.feature_column.linear_model(features, feature_columns)`: one output
/// (`units=1`) summing, per column, the dense tensor times `linear_model/<column>/weights` or,
/// for categorical columns, the weights of its ids (`sparse_combiner='sum'`), plus
/// `linear_model/bias_weights`; all variables start at zero. More options: [`LinearModel`].
///
/// ```
/// # use std::collections::BTreeMap;
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, state::global_variables_initializer};
/// # use weir_session::Session;
/// use weir_train::feature_column::{self as fc};
/// let g = Graph::new();
/// let cols = [fc::numeric_column("x")?, fc::categorical_column_with_identity("id", 5)?];
/// let features = BTreeMap::from([
///     ("x".to_string(), constant(&g, [1.0f32, 2.0])?.into()),
///     ("id".to_string(), constant(&g, weir_graph::Tensor::from_vec(&[2, 1], vec![0i64, 4])?)?.into()),
/// ]);
/// let y = fc::linear_model(&features, &cols)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// assert_eq!(sess.eval(&y)?.to_vec::<f32>()?, [0.0, 0.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn linear_model(features: &FeatureMap, feature_columns: &[FeatureColumn]) -> Result<Output> {
    LinearModel::new().build(features, feature_columns)
}

/// The options of `tf.compat.v1.feature_column.linear_model(features, feature_columns,
/// units=1, sparse_combiner='sum', weight_collections=None, trainable=True)`.
#[derive(Clone, Debug)]
pub struct LinearModel {
    units: usize,
    sparse_combiner: String,
    weight_collections: Vec<String>,
    trainable: bool,
}

impl Default for LinearModel {
    fn default() -> Self {
        LinearModel {
            units: 1,
            sparse_combiner: "sum".to_string(),
            weight_collections: Vec::new(),
            trainable: true,
        }
    }
}

impl LinearModel {
    /// One unit, the `"sum"` combiner, trainable variables.
    pub fn new() -> LinearModel {
        LinearModel::default()
    }

    /// The number of outputs (`units=`).
    pub fn units(mut self, units: usize) -> Self {
        self.units = units;
        self
    }

    /// How the weights of a categorical column's ids combine (`sparse_combiner=`): `"sum"`,
    /// `"mean"` or `"sqrtn"`.
    pub fn sparse_combiner(mut self, combiner: &str) -> Self {
        self.sparse_combiner = combiner.to_string();
        self
    }

    /// Collections the variables join besides `GLOBAL_VARIABLES` and `MODEL_VARIABLES`.
    pub fn weight_collections(mut self, keys: &[&str]) -> Self {
        self.weight_collections = keys.iter().map(|k| k.to_string()).collect();
        self
    }

    /// Whether the variables are trainable (`trainable=`, true).
    pub fn trainable(mut self, trainable: bool) -> Self {
        self.trainable = trainable;
        self
    }

    /// Builds the model over `features`: float32 `[batch, units]`.
    pub fn build(
        &self,
        features: &FeatureMap,
        feature_columns: &[FeatureColumn],
    ) -> Result<Output> {
        let columns = normalize(feature_columns)?;
        if let Some(c) = columns
            .iter()
            .find(|c| !c.is_dense() && !c.is_categorical())
        {
            return Err(Error::invalid_argument(format!(
                "Items of feature_columns must be either a _DenseColumn or _CategoricalColumn. Given: {}",
                c.repr()
            )));
        }
        let ctx = VarCtx {
            collections: with_model_collections(&self.weight_collections),
            trainable: self.trainable,
        };
        let g = graph_of(features)?;
        let _scope = DefaultScope::open(&g, "linear_model")?;
        let mut cache = Cache::new(features);
        let mut sums = Vec::new();
        let mut batch_sizes = Vec::new();
        // TensorFlow names each column's layer after a unique variable scope taken in
        // column-name order, then builds the layers in layer-name order (they differ for
        // shared embeddings, whose scope is their collection's name).
        let mut layers: Vec<(String, FeatureColumn)> = sorted(&columns)
            .into_iter()
            .map(|c| (DefaultScope::reserve(&g, &c.var_scope_name()), c))
            .collect();
        layers.sort_by(|a, b| layer_name(&a.0).cmp(layer_name(&b.0)));
        for (prefix, c) in layers {
            let _col = DefaultScope::enter(&g, &prefix)?;
            let sum = self.weighted_sum(&g, &mut cache, &c, &ctx)?;
            batch_sizes.push((c.name(), sum.shape().dim(0)));
            sums.push(sum);
        }
        verify_batch_sizes(&batch_sizes)?;
        let no_bias = add_n(&sums)?;
        let bias = self.variable(&g, "bias_weights", &[self.units], &ctx)?;
        bias_add(no_bias, bias)
    }

    /// A zero-initialized float32 variable of the model.
    fn variable(&self, g: &Graph, name: &str, shape: &[usize], ctx: &VarCtx) -> Result<Output> {
        let keys: Vec<&str> = ctx.collections.iter().map(String::as_str).collect();
        Ok(GetVariable::new(name)
            .shape(shape)
            .initializer(Initializer::Zeros)
            .trainable(ctx.trainable)
            .collections(&keys)
            .build(g)?
            .value())
    }

    /// `_create_weighted_sum`: `[batch, units]` for one column.
    fn weighted_sum(
        &self,
        g: &Graph,
        cache: &mut Cache<'_>,
        column: &FeatureColumn,
        ctx: &VarCtx,
    ) -> Result<Output> {
        if column.is_categorical() {
            let rows = column.num_buckets().unwrap_or(0) as usize;
            let w = self.variable(g, "weights", &[rows, self.units], ctx)?;
            let (ids, weights) = cache.sparse_tensors(column)?;
            let ids = to_batch_rows(&ids)?;
            let weights = match weights {
                Some(w) => Some(to_batch_rows(&w)?),
                None => None,
            };
            return SafeEmbeddingLookupSparse::new()
                .combiner(&self.sparse_combiner)
                .name("weighted_sum")
                .build(&[w], &ids, weights.as_ref());
        }
        let n: usize = column.variable_shape().unwrap_or_default().iter().product();
        let w = self.variable(g, "weights", &[n, self.units], ctx)?;
        let t = cache.dense_tensor(column, ctx)?;
        matmul(to_batch_matrix(&t, n)?, w)
    }
}

/// The last component of a scope prefix: `zz_1` for `linear_model/zz_1/`.
fn layer_name(prefix: &str) -> &str {
    let p = prefix.trim_end_matches('/');
    p.rsplit('/').next().unwrap_or(p)
}

/// `sparse_reshape(sp, [shape(sp)[0], -1])`.
fn to_batch_rows(sp: &SparseOutput) -> Result<SparseOutput> {
    let g = sp.graph().clone();
    let batch = strided_slice_items(&sp.dense_shape, &[SliceItem::Index(0)])?;
    let target = stack(&[batch, constant(&g, -1i64)?], 0)?;
    sparse_reshape_tensor(sp, cast(target, weir_graph::DType::I64)?)
}

/// `tf.compat.v1.feature_column.make_parse_example_spec(feature_columns)`: the
/// `parse_example` features the columns read (`FixedLenFeature`s for numeric columns,
/// `VarLenFeature`s for categorical ones and weights); InvalidArgument when two columns
/// parse one key differently.
///
/// ```
/// use weir_train::feature_column::{self as fc};
/// let cols = [
///     fc::numeric_column("price")?,
///     fc::embedding_column(&fc::categorical_column_with_hash_bucket("word", 100)?, 8)?,
/// ];
/// let spec = fc::make_parse_example_spec(&cols)?;
/// assert_eq!(spec.names().collect::<Vec<_>>(), ["price", "word"]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn make_parse_example_spec(feature_columns: &[FeatureColumn]) -> Result<Features> {
    let mut features = Features::new();
    for (key, spec) in merged_parse_example_spec(feature_columns)? {
        features = features.add(&key, spec.to_feature()?);
    }
    Ok(features)
}

/// What [`make_parse_example_spec`] merges, as inspectable [`ParseSpec`]s by key.
pub fn merged_parse_example_spec(
    feature_columns: &[FeatureColumn],
) -> Result<BTreeMap<String, ParseSpec>> {
    let mut result: BTreeMap<String, ParseSpec> = BTreeMap::new();
    for c in feature_columns {
        let config = c.parse_example_spec()?;
        for (key, value) in &config {
            if let Some(prev) = result.get(key) {
                if prev != value {
                    return Err(Error::invalid_argument(format!(
                        "feature_columns contain different parse_spec for key {key}. Given {value} and {prev}"
                    )));
                }
            }
        }
        result.extend(config);
    }
    Ok(result)
}
