//! The `parse_sequence_example` builder (`tf.io.parse_sequence_example`) and its op: a batch of
//! serialized `tf.train.SequenceExample`s parsed into context features, padded feature lists
//! and the length of each dense feature list.
//!
//! The op is TensorFlow's `ParseSequenceExample` (the form TensorFlow 1.13 wrote, still
//! registered in 2.21), whose feature keys, types and shapes are attrs, so a graph with it
//! exports to TensorFlow as it is; TensorFlow 2's Python writes `ParseSequenceExampleV2`, which
//! takes the keys as string inputs and has the same outputs. A scalar `serialized` is parsed as
//! one example without a batch dimension, as the V2 op does.

mod parse;
mod ragged;

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node, OpContext,
    Output, Result, Shape, Tensor,
};

pub use parse::{parse_sequence_example_batch, SequenceBatchTensors};
pub use ragged::RaggedTensors;

use super::features::{Feature, Features, ParsedFeature, ParsedFeatures};
use super::sequence::SequenceConfig;
use super::sequence_ops::{
    config_attrs, config_of, parsed_outputs, sequence_op_def, set_parsed_outputs, Layout,
};

/// `tf.io.parse_sequence_example(serialized, context_features, sequence_features)`: returns
/// `(context, feature_lists, feature_list_lengths)` (op `ParseSequenceExample`).
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::parsing::{parse_sequence_example, Features, FixedLenFeature,
///     FixedLenSequenceFeature, VarLenFeature};
/// let g = Graph::new();
/// let records = weir_ops::array::placeholder(&g, DType::String, Shape::new(vec![Some(4)]))?;
/// let (ctx, seq, lengths) = parse_sequence_example(
///     &records,
///     &Features::new().add("label", FixedLenFeature::new(&[], DType::I64)),
///     &Features::new()
///         .add("vecs", FixedLenSequenceFeature::new(&[2], DType::F32))
///         .add("tokens", VarLenFeature::new(DType::I64)),
/// )?;
/// assert_eq!(ctx.dense("label")?.shape().to_string(), "[4]");
/// assert_eq!(seq.dense("vecs")?.shape().to_string(), "[4,?,2]");
/// assert_eq!(lengths.dense("vecs")?.shape().to_string(), "[4]");
/// assert_eq!(seq.sparse("tokens")?.dense_shape.shape().to_string(), "[3]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn parse_sequence_example(
    serialized: impl Into<Output>,
    context_features: &Features,
    sequence_features: &Features,
) -> Result<(ParsedFeatures, ParsedFeatures, ParsedFeatures)> {
    ParseSequenceExample::new().build(serialized, context_features, sequence_features)
}

/// The options of `tf.io.parse_sequence_example(serialized, context_features=None,
/// sequence_features=None, example_names=None, name=None)` (op `ParseSequenceExample`).
#[derive(Clone, Debug, Default)]
pub struct ParseSequenceExample {
    example_names: Option<Output>,
    name: Option<String>,
}

impl ParseSequenceExample {
    /// TensorFlow's defaults: no example names (`<unknown>` in messages).
    pub fn new() -> ParseSequenceExample {
        ParseSequenceExample::default()
    }

    /// A string vector naming each example in error messages.
    pub fn example_names(mut self, names: impl Into<Output>) -> ParseSequenceExample {
        self.example_names = Some(names.into());
        self
    }

    /// The node's name.
    pub fn name(mut self, n: &str) -> ParseSequenceExample {
        self.name = Some(n.to_string());
        self
    }

    /// Adds the node; returns `(context, feature_lists, feature_list_lengths)`, the last with
    /// an int64 `[B]` tensor per `FixedLenSequenceFeature`.
    pub fn build(
        self,
        serialized: impl Into<Output>,
        context_features: &Features,
        sequence_features: &Features,
    ) -> Result<(ParsedFeatures, ParsedFeatures, ParsedFeatures)> {
        let serialized = serialized.into();
        if context_features.is_empty() && sequence_features.is_empty() {
            return Err(Error::invalid_argument(
                "Both `context_features` and `sequence_features` argument are None, but at least one should have values.",
            ));
        }
        for (k, f) in &sequence_features.map {
            if let Feature::FixedLenSequence(f) = f {
                if f.default.is_some() {
                    return Err(Error::invalid_argument(format!(
                        "Value feature_list.dense_defaults[{k}] must be None"
                    )));
                }
            }
        }
        let cfg = SequenceConfig::new(context_features, sequence_features)?;
        if serialized.dtype() != DType::String {
            return Err(Error::invalid_argument(format!(
                "Input serialized must be a string tensor, got {}",
                serialized.dtype()
            )));
        }
        let g = serialized.graph().clone();
        let names = match self.example_names {
            Some(n) => n,
            None => crate::array::constant(&g, Tensor::from(Vec::<Bytes>::new()))?,
        };
        let defaults = cfg
            .ctx_dense
            .iter()
            .map(|d| crate::array::constant(&g, d.default.clone()))
            .collect::<Result<Vec<_>>>()?;
        let op = config_attrs(
            crate::new_op(&g, "ParseSequenceExample")
                .maybe_name(self.name.as_deref())
                .input(&serialized)
                .input(&names)
                .inputs(defaults.iter()),
            &cfg,
        )
        .attr("Ncontext_dense", cfg.ctx_dense.len())
        .attr("Nfeature_list_dense", cfg.fl_dense.len())
        .build()?;
        let (ctx, seq) = parsed_outputs(&op, &cfg)?;
        let l = Layout::of(&cfg);
        let mut lengths = ParsedFeatures::default();
        for (i, d) in cfg.fl_dense.iter().enumerate() {
            let o = op.output(l.lengths + i)?;
            lengths.map.insert(d.name.clone(), ParsedFeature::Dense(o));
        }
        Ok((ctx, seq, lengths))
    }
}

/// TensorFlow's shape function: `serialized` of rank at most 1 sets the batch prefix of every
/// output (sparse ranks are its rank plus 1 for context and plus 2 for feature lists).
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = ctx.input_shape(0).clone();
    for i in 0..2 {
        if let Some(r) = ctx.input_shape(i).rank().filter(|&r| r > 1) {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 1 but is rank {r}"
            )));
        }
    }
    let a = ctx.attr::<Vec<DType>>("context_sparse_types")?.len();
    let cshapes: Vec<Shape> = ctx.attr("context_dense_shapes")?;
    let c = ctx.attr::<Vec<DType>>("feature_list_sparse_types")?.len();
    let fshapes: Vec<Shape> = ctx.attr("feature_list_dense_shapes")?;
    let l = Layout::from_counts(a, cshapes.len(), c, fshapes.len());
    let sparse = |ctx: &mut InferenceContext<'_>, base: usize, n: usize, delta: usize| {
        let rank = input.rank().map(|r| r + delta);
        for i in 0..n {
            ctx.set_output(base + i, Shape::new(vec![None, rank]));
            ctx.set_output(base + n + i, Shape::new(vec![None]));
            ctx.set_output(base + 2 * n + i, Shape::new(vec![rank]));
        }
    };
    sparse(ctx, 0, a, 1);
    for (i, s) in cshapes.iter().enumerate() {
        ctx.set_output(l.ctx_dense + i, input.concatenate(s));
    }
    sparse(ctx, l.fl_sparse, c, 2);
    let prefix = input.concatenate(&Shape::new(vec![None]));
    for (i, s) in fshapes.iter().enumerate() {
        ctx.set_output(l.fl_dense + i, prefix.concatenate(s));
        ctx.set_output(l.lengths + i, input.clone());
    }
    Ok(())
}

struct SequenceBatchKernel {
    cfg: SequenceConfig,
}

impl Kernel for SequenceBatchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ser = ctx.input(0);
        if ser.rank() > 1 {
            return Err(Error::invalid_argument(format!(
                "Expected serialized to be a scalar or vector, got shape: {}",
                format_dims(ser.shape())
            )));
        }
        let defaults = &ctx.inputs()[2..];
        for (d, (spec, t)) in self.cfg.ctx_dense.iter().zip(defaults).enumerate() {
            if t.num_elements() > 0 && t.shape() != &spec.shape[..] {
                return Err(Error::invalid_argument(format!(
                    "default_value[{d}].shape() == {} != context_dense_shapes[{d}] == {}",
                    format_dims(t.shape()),
                    format_dims(&spec.shape)
                )));
            }
        }
        let out = parse_sequence_example_batch(
            &self.cfg,
            defaults,
            ser.as_slice::<Bytes>()?,
            ctx.input(1).as_slice::<Bytes>()?,
            ser.rank() == 1,
        )?;
        let l = Layout::of(&self.cfg);
        set_parsed_outputs(ctx, &l, out.context, out.feature_lists);
        for (i, t) in out.lengths.into_iter().enumerate() {
            ctx.set_output(l.lengths + i, t);
        }
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SequenceBatchKernel {
        cfg: config_of(node)?,
    }))
}

pub(super) fn register() {
    register_op(
        sequence_op_def("ParseSequenceExample", &["serialized", "debug_name"])
            .output(
                "feature_list_dense_lengths",
                ArgType::RepeatedFixed {
                    count: "Nfeature_list_dense",
                    dtype: DType::I64,
                },
            )
            .attr("Ncontext_dense", AttrKind::Int, None)
            .attr("Nfeature_list_dense", AttrKind::Int, None)
            .shape_fn(shape_fn),
    );
    register_kernel("ParseSequenceExample", make);
}
