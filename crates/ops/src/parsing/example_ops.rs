//! The `ParseExample` op and the `parse_example` / `parse_single_example` builders.
//!
//! One op serves both: a scalar `serialized` is parsed as one example (TensorFlow's
//! `FastParseSingleExample`, with its error texts), a vector as a batch. Feature keys, types
//! and shapes are attrs; dense defaults are inputs, as in TensorFlow.

use std::sync::Arc;

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    OutputScale, Result, Shape, Tensor,
};

use super::example::{parse_single_with, AsF32, ExampleConfig};
use super::example_batch::parse_batch_with;
use super::features::{
    check_sparse_feature, fixed_len_spec, sequence_spec, var_len_dtype, DenseSpec, Feature,
    Features, ParsedFeature, ParsedFeatures, SparseFeatureOutput,
};
use super::sparse_merge::sparse_feature_merge;

/// `tf.io.parse_example(serialized, features)`: parses a batch (vector) of serialized
/// `tf.train.Example`s; every output has a leading batch dimension.
///
/// ```
/// use weir_graph::{DType, Graph, Tensor};
/// use weir_ops::parsing::{parse_example, Features, FixedLenFeature, VarLenFeature};
/// let g = Graph::new();
/// let serialized = weir_ops::array::placeholder(&g, DType::String, vec![None])?;
/// let features = Features::new()
///     .add("label", FixedLenFeature::new(&[], DType::I64).default(Tensor::from(-1i64)))
///     .add("ids", VarLenFeature::new(DType::I64));
/// let parsed = parse_example(&serialized, &features)?;
/// assert_eq!(parsed.dense("label")?.shape().to_string(), "[?]");
/// assert_eq!(parsed.sparse("ids")?.indices.shape().to_string(), "[?,2]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn parse_example(serialized: impl Into<Output>, features: &Features) -> Result<ParsedFeatures> {
    ParseExample::new().build(serialized, features)
}

/// `tf.io.parse_single_example(serialized, features)`: parses one (scalar) serialized
/// `tf.train.Example`.
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::parsing::{parse_single_example, Features, FixedLenFeature};
/// let g = Graph::new();
/// let record = weir_ops::array::placeholder(&g, DType::String, Shape::scalar())?;
/// let features = Features::new()
///     .add("image_raw", FixedLenFeature::new(&[], DType::String))
///     .add("label", FixedLenFeature::new(&[], DType::I64));
/// let parsed = parse_single_example(&record, &features)?;
/// assert_eq!(parsed.dense("label")?.dtype(), DType::I64);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn parse_single_example(
    serialized: impl Into<Output>,
    features: &Features,
) -> Result<ParsedFeatures> {
    ParseExample::new().single(true).build(serialized, features)
}

/// The options of `tf.io.parse_example(serialized, features, name=None, example_names=None)`
/// and (with [`single`](Self::single)) of `tf.io.parse_single_example`.
#[derive(Clone, Debug, Default)]
pub struct ParseExample {
    example_names: Option<Output>,
    name: Option<String>,
    single: bool,
}

/// A dense feature and the sparse (VarLen) keys the op will parse.
struct Plan {
    dense: Vec<DenseSpec>,
    sparse: Vec<(String, DType)>,
}

impl Plan {
    fn sparse_index(&mut self, key: &str, dtype: DType) -> Result<usize> {
        if let Some(i) = self.sparse.iter().position(|(k, _)| k == key) {
            if self.sparse[i].1 != dtype {
                return Err(Error::invalid_argument(format!(
                    "Conflicting type for feature {key}: {} and {dtype}",
                    self.sparse[i].1
                )));
            }
            return Ok(i);
        }
        self.sparse.push((key.to_string(), dtype));
        Ok(self.sparse.len() - 1)
    }
}

impl ParseExample {
    /// TensorFlow's defaults: a batch, no example names.
    pub fn new() -> ParseExample {
        ParseExample::default()
    }

    /// A string vector naming each example in error messages (instead of `<unknown>`).
    pub fn example_names(mut self, names: impl Into<Output>) -> ParseExample {
        self.example_names = Some(names.into());
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> ParseExample {
        self.name = Some(name.to_string());
        self
    }

    /// Parses one scalar example (`parse_single_example`) instead of a batch.
    pub fn single(mut self, single: bool) -> ParseExample {
        self.single = single;
        self
    }

    /// Adds the nodes and returns each feature's tensor(s).
    pub fn build(
        self,
        serialized: impl Into<Output>,
        features: &Features,
    ) -> Result<ParsedFeatures> {
        let serialized = serialized.into();
        if features.is_empty() {
            return Err(Error::invalid_argument(
                "Invalid argument: features cannot be empty.",
            ));
        }
        if serialized.dtype() != DType::String {
            return Err(Error::invalid_argument(format!(
                "Input serialized must be a string tensor, got {}",
                serialized.dtype()
            )));
        }
        match (self.single, serialized.shape().rank()) {
            (true, Some(r)) if r != 0 => {
                return Err(Error::invalid_argument("Input serialized must be a scalar"))
            }
            (false, Some(r)) if r > 1 => {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at most rank 1 but is rank {r}"
                )))
            }
            _ => {}
        }
        let mut plan = Plan {
            dense: Vec::new(),
            sparse: Vec::new(),
        };
        // Which op output each feature becomes.
        enum Target {
            Dense(usize),
            Sparse(usize),
            Merge {
                ids: Vec<usize>,
                values: usize,
                sizes: Vec<i64>,
                sorted: bool,
            },
        }
        let mut targets: Vec<(String, Target)> = Vec::new();
        for (name, spec) in &features.map {
            let t = match spec {
                Feature::FixedLen(f) => {
                    plan.dense.push(fixed_len_spec(name, f)?);
                    Target::Dense(plan.dense.len() - 1)
                }
                Feature::FixedLenSequence(f) => {
                    if !f.allow_missing {
                        return Err(Error::invalid_argument(
                            "Unsupported: FixedLenSequenceFeature requires allow_missing to be True.",
                        ));
                    }
                    plan.dense.push(sequence_spec(name, f)?);
                    Target::Dense(plan.dense.len() - 1)
                }
                Feature::VarLen(f) => Target::Sparse(plan.sparse_index(name, var_len_dtype(f)?)?),
                Feature::Sparse(f) => {
                    check_sparse_feature(name, f)?;
                    let ids = f
                        .index_keys
                        .iter()
                        .map(|k| plan.sparse_index(k, DType::I64))
                        .collect::<Result<Vec<_>>>()?;
                    let values = plan.sparse_index(&f.value_key, f.dtype)?;
                    Target::Merge {
                        ids,
                        values,
                        sizes: f.sizes.clone(),
                        sorted: f.already_sorted,
                    }
                }
            };
            targets.push((name.clone(), t));
        }
        for d in &plan.dense {
            if plan.sparse.iter().any(|(k, _)| *k == d.name) {
                return Err(Error::invalid_argument(format!(
                    "Feature {} is both dense and sparse",
                    d.name
                )));
            }
        }
        let g = serialized.graph().clone();
        let names = match self.example_names {
            Some(n) => n,
            None => crate::array::constant(&g, Tensor::from(Vec::<Bytes>::new()))?,
        };
        let defaults = plan
            .dense
            .iter()
            .map(|d| crate::array::constant(&g, d.default.clone()))
            .collect::<Result<Vec<_>>>()?;
        let shapes: Vec<Shape> = plan
            .dense
            .iter()
            .map(|d| {
                let mut dims: Vec<Option<usize>> = d.shape.iter().map(|&x| Some(x)).collect();
                if d.variable_length {
                    dims.insert(0, None);
                }
                Shape::new(dims)
            })
            .collect();
        let op = crate::new_op(&g, "ParseExample")
            .maybe_name(self.name.as_deref())
            .input(&serialized)
            .input(&names)
            .inputs(defaults.iter())
            .attr("Nsparse", plan.sparse.len())
            .attr(
                "sparse_keys",
                plan.sparse.iter().map(|s| s.0.clone()).collect::<Vec<_>>(),
            )
            .attr(
                "sparse_types",
                plan.sparse.iter().map(|s| s.1).collect::<Vec<_>>(),
            )
            .attr(
                "dense_keys",
                plan.dense
                    .iter()
                    .map(|d| d.name.clone())
                    .collect::<Vec<_>>(),
            )
            .attr(
                "Tdense",
                plan.dense.iter().map(|d| d.dtype).collect::<Vec<_>>(),
            )
            .attr("dense_shapes", shapes)
            .build()?;
        let ns = plan.sparse.len();
        let sparse_out = |i: usize| -> Result<SparseFeatureOutput> {
            Ok(SparseFeatureOutput {
                indices: op.output(i)?,
                values: op.output(ns + i)?,
                dense_shape: op.output(2 * ns + i)?,
            })
        };
        let mut parsed = ParsedFeatures::default();
        for (name, t) in targets {
            let p = match t {
                Target::Dense(d) => ParsedFeature::Dense(op.output(3 * ns + d)?),
                Target::Sparse(s) => ParsedFeature::Sparse(sparse_out(s)?),
                Target::Merge {
                    ids,
                    values,
                    sizes,
                    sorted,
                } => {
                    let ids = ids
                        .into_iter()
                        .map(sparse_out)
                        .collect::<Result<Vec<_>>>()?;
                    ParsedFeature::Sparse(sparse_feature_merge(
                        &ids,
                        &sparse_out(values)?,
                        &sizes,
                        sorted,
                    )?)
                }
            };
            parsed.map.insert(name, p);
        }
        Ok(parsed)
    }
}

pub(super) fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let ser = ctx.input_shape(0).clone();
    let types: Vec<DType> = ctx.attr("sparse_types")?;
    let shapes: Vec<Shape> = ctx.attr("dense_shapes")?;
    let ns = types.len();
    let batch: Option<Option<usize>> = match ser.rank() {
        Some(0) => None,
        Some(1) => Some(ser.dim(0)),
        Some(r) => {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 1 but is rank {r}"
            )))
        }
        None => return Ok(()),
    };
    let rank = if batch.is_some() { 2 } else { 1 };
    for i in 0..ns {
        ctx.set_output(i, Shape::new(vec![None, Some(rank)]));
        ctx.set_output(ns + i, Shape::new(vec![None]));
        ctx.set_output(2 * ns + i, Shape::known(&[rank]));
    }
    for (d, s) in shapes.iter().enumerate() {
        let dims = s.dims().map(<[_]>::to_vec).unwrap_or_default();
        let mut out: Vec<Option<usize>> = Vec::new();
        if let Some(b) = batch {
            out.push(b);
        }
        out.extend(dims);
        ctx.set_output(3 * ns + d, Shape::new(out));
    }
    Ok(())
}

/// Parses input 0 (one serialized example, or a vector of them named by input 1) with the dense
/// defaults from input `defaults_from` on, and sets the outputs in TensorFlow's order: sparse
/// indices, values and shapes, then dense values.
pub(super) fn parse_into(
    cfg: &ExampleConfig,
    as_f32: &[AsF32],
    ctx: &mut OpContext<'_>,
    defaults_from: usize,
) -> Result<()> {
    let defaults = &ctx.inputs()[defaults_from..];
    cfg.check_defaults(defaults)?;
    let ser = ctx.input(0);
    let out = match ser.rank() {
        0 => parse_single_with(cfg, defaults, as_f32, &ser.as_slice::<Bytes>()?[0])?,
        1 => parse_batch_with(
            cfg,
            defaults,
            as_f32,
            ser.as_slice::<Bytes>()?,
            ctx.input(1).as_slice::<Bytes>()?,
        )?,
        _ => {
            return Err(Error::invalid_argument(format!(
                "Expected serialized to be a scalar or vector, got shape: {}",
                weir_graph::format_dims(ser.shape())
            )))
        }
    };
    let ns = out.sparse.len();
    for (i, sp) in out.sparse.into_iter().enumerate() {
        ctx.set_output(i, sp.indices);
        ctx.set_output(ns + i, sp.values);
        ctx.set_output(2 * ns + i, sp.dense_shape);
    }
    for (d, t) in out.dense.into_iter().enumerate() {
        ctx.set_output(3 * ns + d, t);
    }
    Ok(())
}

#[derive(Clone)]
struct ParseExampleKernel {
    cfg: ExampleConfig,
    /// Per dense feature: an int64 output that a run plan asked for as float32
    /// ([`Kernel::with_output_cast`]), and scaled ([`Kernel::with_output_scaled`]).
    as_f32: Vec<AsF32>,
}

impl Kernel for ParseExampleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        parse_into(&self.cfg, &self.as_f32, ctx, 2)
    }

    fn is_expensive(&self) -> bool {
        true
    }

    /// A fixed-length int64 dense feature can come out as float32: the parser converts each
    /// value as it decodes it, and never holds the int64 values.
    fn with_output_cast(&self, output: usize, dtype: DType) -> Option<Arc<dyn Kernel>> {
        let d = output.checked_sub(3 * self.cfg.sparse.len())?;
        let spec = self.cfg.dense.get(d)?;
        if dtype != DType::F32 || spec.dtype != DType::I64 || spec.variable_length {
            return None;
        }
        let mut k = self.clone();
        k.as_f32[d].cast = true;
        Some(Arc::new(k))
    }

    fn with_output_scaled(&self, output: usize, scale: OutputScale) -> Option<Arc<dyn Kernel>> {
        let d = output.checked_sub(3 * self.cfg.sparse.len())?;
        let a = self.as_f32.get(d)?;
        if !a.cast || a.scale.is_some() {
            return None;
        }
        let mut k = self.clone();
        k.as_f32[d].scale = Some(scale);
        Some(Arc::new(k))
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let sparse_keys: Vec<String> = node.attr("sparse_keys")?;
    let sparse_types: Vec<DType> = node.attr("sparse_types")?;
    let dense_keys: Vec<String> = node.attr("dense_keys")?;
    let tdense: Vec<DType> = node.attr("Tdense")?;
    let shapes: Vec<Shape> = node.attr("dense_shapes")?;
    if sparse_keys.len() != sparse_types.len()
        || dense_keys.len() != tdense.len()
        || dense_keys.len() != shapes.len()
    {
        return Err(Error::invalid_argument(
            "ParseExample: attr lists of different lengths",
        ));
    }
    let dense = dense_specs(dense_keys, &tdense, &shapes)?;
    let cfg = ExampleConfig::new(dense, sparse_keys.into_iter().zip(sparse_types).collect())?;
    let as_f32 = vec![AsF32::default(); cfg.dense.len()];
    Ok(Box::new(ParseExampleKernel { cfg, as_f32 }))
}

/// The dense features named `keys`, of types `tdense` and shapes `shapes` (a leading unknown
/// dimension: a `FixedLenSequenceFeature`), as the parser takes them.
pub(super) fn dense_specs(
    keys: Vec<String>,
    tdense: &[DType],
    shapes: &[Shape],
) -> Result<Vec<DenseSpec>> {
    let mut dense = Vec::new();
    for ((name, &dtype), shape) in keys.into_iter().zip(tdense).zip(shapes) {
        let dims = shape.dims().ok_or_else(|| {
            Error::invalid_argument(format!("Shape of dense feature {name} has unknown rank"))
        })?;
        let variable_length = dims.first().is_some_and(Option::is_none);
        let rest = if variable_length { &dims[1..] } else { dims };
        let shape = rest
            .iter()
            .map(|d| {
                d.ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "Shape of dense feature {name} is not fully defined"
                    ))
                })
            })
            .collect::<Result<Vec<usize>>>()?;
        dense.push(DenseSpec {
            name,
            dtype,
            shape,
            variable_length,
            default: Tensor::zeros(dtype, &[0])?,
        });
    }
    Ok(dense)
}

pub(super) fn register() {
    register_op(
        OpDef::new("ParseExample")
            .input("serialized", ArgType::Fixed(DType::String))
            .input("names", ArgType::Fixed(DType::String))
            .input("dense_defaults", ArgType::List("Tdense"))
            .output(
                "sparse_indices",
                ArgType::RepeatedFixed {
                    count: "Nsparse",
                    dtype: DType::I64,
                },
            )
            .output("sparse_values", ArgType::List("sparse_types"))
            .output(
                "sparse_shapes",
                ArgType::RepeatedFixed {
                    count: "Nsparse",
                    dtype: DType::I64,
                },
            )
            .output("dense_values", ArgType::List("Tdense"))
            .attr("Nsparse", AttrKind::Int, None)
            .attr("sparse_keys", AttrKind::Strs, None)
            .attr("sparse_types", AttrKind::Types, None)
            .attr("dense_keys", AttrKind::Strs, None)
            .attr("Tdense", AttrKind::Types, None)
            .attr("dense_shapes", AttrKind::Shapes, None)
            .shape_fn(shape_fn),
    );
    register_kernel("ParseExample", make);
}
