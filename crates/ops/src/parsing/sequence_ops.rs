//! The `ParseSingleSequenceExample` op and the `parse_single_sequence_example` builder.

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpBuilder, OpContext, OpDef, Operation, Output, Result, Shape, Tensor,
};

use super::example::ParsedTensors;
use super::features::{DenseSpec, Features, ParsedFeature, ParsedFeatures, SparseFeatureOutput};
use super::sequence::{parse_sequence_example_tensors, ListSpec, SequenceConfig};

/// `tf.io.parse_single_sequence_example(serialized, context_features, sequence_features)`:
/// returns `(context, feature_lists)`.
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::parsing::{parse_single_sequence_example, Features, FixedLenFeature,
///     FixedLenSequenceFeature, VarLenFeature};
/// let g = Graph::new();
/// let record = weir_ops::array::placeholder(&g, DType::String, Shape::scalar())?;
/// let (ctx, seq) = parse_single_sequence_example(
///     &record,
///     &Features::new().add("len", FixedLenFeature::new(&[], DType::I64)),
///     &Features::new()
///         .add("vecs", FixedLenSequenceFeature::new(&[2], DType::F32))
///         .add("tokens", VarLenFeature::new(DType::I64)),
/// )?;
/// assert_eq!(seq.dense("vecs")?.shape().to_string(), "[?,2]");
/// assert_eq!(ctx.dense("len")?.shape().to_string(), "[]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn parse_single_sequence_example(
    serialized: impl Into<Output>,
    context_features: &Features,
    sequence_features: &Features,
) -> Result<(ParsedFeatures, ParsedFeatures)> {
    ParseSingleSequenceExample::new().build(serialized, context_features, sequence_features)
}

/// The options of `tf.io.parse_single_sequence_example(serialized, context_features=None,
/// sequence_features=None, example_name=None, name=None)`.
#[derive(Clone, Debug, Default)]
pub struct ParseSingleSequenceExample {
    example_name: Option<String>,
    name: Option<String>,
}

impl ParseSingleSequenceExample {
    /// No example name (`<unknown>` in messages).
    pub fn new() -> ParseSingleSequenceExample {
        ParseSingleSequenceExample::default()
    }

    /// The name of the example in error messages.
    pub fn example_name(mut self, n: &str) -> ParseSingleSequenceExample {
        self.example_name = Some(n.to_string());
        self
    }

    /// The node's name.
    pub fn name(mut self, n: &str) -> ParseSingleSequenceExample {
        self.name = Some(n.to_string());
        self
    }

    /// Adds the node; returns `(context, feature_lists)`.
    pub fn build(
        self,
        serialized: impl Into<Output>,
        context_features: &Features,
        sequence_features: &Features,
    ) -> Result<(ParsedFeatures, ParsedFeatures)> {
        let serialized = serialized.into();
        let cfg = SequenceConfig::new(context_features, sequence_features)?;
        if serialized.dtype() != DType::String {
            return Err(Error::invalid_argument(
                "Input serialized must be a string tensor",
            ));
        }
        if serialized.shape().rank().is_some_and(|r| r != 0) {
            return Err(Error::invalid_argument("Input serialized must be a scalar"));
        }
        let g = serialized.graph().clone();
        let defaults = cfg
            .ctx_dense
            .iter()
            .map(|d| crate::array::constant(&g, d.default.clone()))
            .collect::<Result<Vec<_>>>()?;
        let op = config_attrs(
            crate::new_op(&g, "ParseSingleSequenceExample")
                .maybe_name(self.name.as_deref())
                .input(&serialized)
                .inputs(defaults.iter()),
            &cfg,
        )
        .attr(
            "example_name",
            self.example_name.unwrap_or_else(|| "<unknown>".into()),
        )
        .build()?;
        parsed_outputs(&op, &cfg)
    }
}

/// The context and feature-list features of a sequence parser `op` built from `cfg`, by name.
pub(super) fn parsed_outputs(
    op: &Operation,
    cfg: &SequenceConfig,
) -> Result<(ParsedFeatures, ParsedFeatures)> {
    let layout = Layout::of(cfg);
    let sparse = |base: usize, n: usize, i: usize| -> Result<ParsedFeature> {
        Ok(ParsedFeature::Sparse(SparseFeatureOutput {
            indices: op.output(base + i)?,
            values: op.output(base + n + i)?,
            dense_shape: op.output(base + 2 * n + i)?,
        }))
    };
    let mut ctx = ParsedFeatures::default();
    for (i, d) in cfg.ctx_dense.iter().enumerate() {
        ctx.map.insert(
            d.name.clone(),
            ParsedFeature::Dense(op.output(layout.ctx_dense + i)?),
        );
    }
    for (i, (k, _)) in cfg.ctx_sparse.iter().enumerate() {
        ctx.map
            .insert(k.clone(), sparse(0, cfg.ctx_sparse.len(), i)?);
    }
    let mut seq = ParsedFeatures::default();
    for (i, d) in cfg.fl_dense.iter().enumerate() {
        seq.map.insert(
            d.name.clone(),
            ParsedFeature::Dense(op.output(layout.fl_dense + i)?),
        );
    }
    for (i, (k, _)) in cfg.fl_sparse.iter().enumerate() {
        seq.map
            .insert(k.clone(), sparse(layout.fl_sparse, cfg.fl_sparse.len(), i)?);
    }
    Ok((ctx, seq))
}

/// Sets the attrs describing `cfg` (keys, types and shapes of each feature group), shared with
/// `ParseSequenceExampleV2`.
pub(super) fn config_attrs(op: OpBuilder, cfg: &SequenceConfig) -> OpBuilder {
    let strs = |v: Vec<&String>| v.into_iter().cloned().collect::<Vec<String>>();
    op.attr("Ncontext_sparse", cfg.ctx_sparse.len())
        .attr(
            "context_sparse_keys",
            strs(cfg.ctx_sparse.iter().map(|s| &s.0).collect()),
        )
        .attr(
            "context_sparse_types",
            cfg.ctx_sparse.iter().map(|s| s.1).collect::<Vec<_>>(),
        )
        .attr(
            "context_dense_keys",
            strs(cfg.ctx_dense.iter().map(|d| &d.name).collect()),
        )
        .attr(
            "Tcontext_dense",
            cfg.ctx_dense.iter().map(|d| d.dtype).collect::<Vec<_>>(),
        )
        .attr(
            "context_dense_shapes",
            cfg.ctx_dense
                .iter()
                .map(|d| Shape::known(&d.shape))
                .collect::<Vec<_>>(),
        )
        .attr("Nfeature_list_sparse", cfg.fl_sparse.len())
        .attr(
            "feature_list_sparse_keys",
            strs(cfg.fl_sparse.iter().map(|s| &s.0).collect()),
        )
        .attr(
            "feature_list_sparse_types",
            cfg.fl_sparse.iter().map(|s| s.1).collect::<Vec<_>>(),
        )
        .attr(
            "feature_list_dense_keys",
            strs(cfg.fl_dense.iter().map(|d| &d.name).collect()),
        )
        .attr(
            "feature_list_dense_types",
            cfg.fl_dense.iter().map(|d| d.dtype).collect::<Vec<_>>(),
        )
        .attr(
            "feature_list_dense_shapes",
            cfg.fl_dense
                .iter()
                .map(|d| Shape::known(&d.row))
                .collect::<Vec<_>>(),
        )
        .attr(
            "feature_list_dense_missing_assumed_empty",
            cfg.fl_dense
                .iter()
                .filter(|d| d.allow_missing)
                .map(|d| d.name.clone())
                .collect::<Vec<_>>(),
        )
}

/// Where each group of outputs starts.
pub(super) struct Layout {
    pub(super) ctx_dense: usize,
    pub(super) fl_sparse: usize,
    pub(super) fl_dense: usize,
    /// The batched parser's feature-list lengths (the single parser has none).
    pub(super) lengths: usize,
}

impl Layout {
    pub(super) fn of(cfg: &SequenceConfig) -> Layout {
        Layout::from_counts(
            cfg.ctx_sparse.len(),
            cfg.ctx_dense.len(),
            cfg.fl_sparse.len(),
            cfg.fl_dense.len(),
        )
    }

    /// The layout of the given numbers of features in each group.
    pub(super) fn from_counts(
        ctx_sparse: usize,
        ctx_dense: usize,
        fl_sparse: usize,
        fl_dense: usize,
    ) -> Layout {
        let fl_sparse_at = 3 * ctx_sparse + ctx_dense;
        let fl_dense_at = fl_sparse_at + 3 * fl_sparse;
        Layout {
            ctx_dense: 3 * ctx_sparse,
            fl_sparse: fl_sparse_at,
            fl_dense: fl_dense_at,
            lengths: fl_dense_at + fl_dense,
        }
    }
}

/// Sets a sequence parser kernel's outputs from its parsed context and feature lists.
pub(super) fn set_parsed_outputs(
    ctx: &mut OpContext<'_>,
    layout: &Layout,
    context: ParsedTensors,
    feature_lists: ParsedTensors,
) {
    let a = context.sparse.len();
    for (i, sp) in context.sparse.into_iter().enumerate() {
        ctx.set_output(i, sp.indices);
        ctx.set_output(a + i, sp.values);
        ctx.set_output(2 * a + i, sp.dense_shape);
    }
    for (i, t) in context.dense.into_iter().enumerate() {
        ctx.set_output(layout.ctx_dense + i, t);
    }
    let c = feature_lists.sparse.len();
    for (i, sp) in feature_lists.sparse.into_iter().enumerate() {
        ctx.set_output(layout.fl_sparse + i, sp.indices);
        ctx.set_output(layout.fl_sparse + c + i, sp.values);
        ctx.set_output(layout.fl_sparse + 2 * c + i, sp.dense_shape);
    }
    for (i, t) in feature_lists.dense.into_iter().enumerate() {
        ctx.set_output(layout.fl_dense + i, t);
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = ctx.attr::<Vec<DType>>("context_sparse_types")?.len();
    let cshapes: Vec<Shape> = ctx.attr("context_dense_shapes")?;
    let c = ctx.attr::<Vec<DType>>("feature_list_sparse_types")?.len();
    let fshapes: Vec<Shape> = ctx.attr("feature_list_dense_shapes")?;
    for i in 0..a {
        ctx.set_output(i, Shape::new(vec![None, Some(1)]));
        ctx.set_output(a + i, Shape::new(vec![None]));
        ctx.set_output(2 * a + i, Shape::known(&[1]));
    }
    for (i, s) in cshapes.iter().enumerate() {
        ctx.set_output(3 * a + i, s.clone());
    }
    let base = 3 * a + cshapes.len();
    for i in 0..c {
        ctx.set_output(base + i, Shape::new(vec![None, Some(2)]));
        ctx.set_output(base + c + i, Shape::new(vec![None]));
        ctx.set_output(base + 2 * c + i, Shape::known(&[2]));
    }
    for (i, s) in fshapes.iter().enumerate() {
        ctx.set_output(base + 3 * c + i, Shape::new(vec![None]).concatenate(s));
    }
    Ok(())
}

struct SequenceKernel {
    cfg: SequenceConfig,
    example_name: String,
}

impl Kernel for SequenceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ser = ctx.input(0);
        if ser.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "Expected serialized to be a scalar, got shape: {}",
                format_dims(ser.shape())
            )));
        }
        let ser = ser.as_slice::<Bytes>()?[0].clone();
        let out = parse_sequence_example_tensors(
            &self.cfg,
            &ctx.inputs()[1..],
            &ser,
            &self.example_name,
        )?;
        let layout = Layout::of(&self.cfg);
        set_parsed_outputs(ctx, &layout, out.context, out.feature_lists);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SequenceKernel {
        cfg: config_of(node)?,
        example_name: node.attr("example_name")?,
    }))
}

/// The features a node's attrs (set by [`config_attrs`]) describe.
pub(super) fn config_of(node: &Node) -> Result<SequenceConfig> {
    let known = |s: &Shape, key: &str| -> Result<Vec<usize>> {
        s.to_known().ok_or_else(|| {
            Error::invalid_argument(format!("Shape of feature {key} is not fully defined"))
        })
    };
    let ck: Vec<String> = node.attr("context_dense_keys")?;
    let ct: Vec<DType> = node.attr("Tcontext_dense")?;
    let cs: Vec<Shape> = node.attr("context_dense_shapes")?;
    let mut ctx_dense = Vec::new();
    for ((name, dtype), s) in ck.into_iter().zip(ct).zip(cs) {
        let shape = known(&s, &name)?;
        ctx_dense.push(DenseSpec {
            name,
            dtype,
            shape,
            variable_length: false,
            default: Tensor::zeros(dtype, &[0])?,
        });
    }
    let missing: Vec<String> = node.attr("feature_list_dense_missing_assumed_empty")?;
    let fk: Vec<String> = node.attr("feature_list_dense_keys")?;
    let ft: Vec<DType> = node.attr("feature_list_dense_types")?;
    let fs: Vec<Shape> = node.attr("feature_list_dense_shapes")?;
    let mut fl_dense = Vec::new();
    for ((name, dtype), s) in fk.into_iter().zip(ft).zip(fs) {
        fl_dense.push(ListSpec {
            row: known(&s, &name)?,
            allow_missing: missing.contains(&name),
            name,
            dtype,
        });
    }
    let pairs = |k: &str, t: &str| -> Result<Vec<(String, DType)>> {
        let keys: Vec<String> = node.attr(k)?;
        let types: Vec<DType> = node.attr(t)?;
        Ok(keys.into_iter().zip(types).collect())
    };
    Ok(SequenceConfig {
        ctx_dense,
        ctx_sparse: pairs("context_sparse_keys", "context_sparse_types")?,
        ctx_ragged: Vec::new(),
        fl_dense,
        fl_sparse: pairs("feature_list_sparse_keys", "feature_list_sparse_types")?,
        fl_ragged: Vec::new(),
    })
}

/// The OpDef parts TensorFlow's sequence parsers share: the string inputs `strings` (then the
/// context defaults), the sparse and dense outputs of the context and of the feature lists, and
/// the attrs naming their keys, types and shapes.
pub(super) fn sequence_op_def(name: &str, strings: &[&'static str]) -> OpDef {
    let i64s = |count| ArgType::RepeatedFixed {
        count,
        dtype: DType::I64,
    };
    let mut def = OpDef::new(name);
    for s in strings {
        def = def.input(s, ArgType::Fixed(DType::String));
    }
    def.input("context_dense_defaults", ArgType::List("Tcontext_dense"))
        .output("context_sparse_indices", i64s("Ncontext_sparse"))
        .output(
            "context_sparse_values",
            ArgType::List("context_sparse_types"),
        )
        .output("context_sparse_shapes", i64s("Ncontext_sparse"))
        .output("context_dense_values", ArgType::List("Tcontext_dense"))
        .output("feature_list_sparse_indices", i64s("Nfeature_list_sparse"))
        .output(
            "feature_list_sparse_values",
            ArgType::List("feature_list_sparse_types"),
        )
        .output("feature_list_sparse_shapes", i64s("Nfeature_list_sparse"))
        .output(
            "feature_list_dense_values",
            ArgType::List("feature_list_dense_types"),
        )
        .attr("Ncontext_sparse", AttrKind::Int, None)
        .attr("context_sparse_keys", AttrKind::Strs, None)
        .attr("context_sparse_types", AttrKind::Types, None)
        .attr("context_dense_keys", AttrKind::Strs, None)
        .attr("Tcontext_dense", AttrKind::Types, None)
        .attr("context_dense_shapes", AttrKind::Shapes, None)
        .attr("Nfeature_list_sparse", AttrKind::Int, None)
        .attr("feature_list_sparse_keys", AttrKind::Strs, None)
        .attr("feature_list_sparse_types", AttrKind::Types, None)
        .attr("feature_list_dense_keys", AttrKind::Strs, None)
        .attr("feature_list_dense_types", AttrKind::Types, None)
        .attr("feature_list_dense_shapes", AttrKind::Shapes, None)
        .attr(
            "feature_list_dense_missing_assumed_empty",
            AttrKind::Strs,
            Some(AttrValue::Strs(Vec::new())),
        )
}

pub(super) fn register() {
    register_op(
        sequence_op_def("ParseSingleSequenceExample", &["serialized"])
            .attr(
                "example_name",
                AttrKind::Str,
                Some(AttrValue::Str("<unknown>".into())),
            )
            .shape_fn(shape_fn),
    );
    register_kernel("ParseSingleSequenceExample", make);
}
