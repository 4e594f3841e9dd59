//! `ParseExampleV2`: the op TensorFlow 2 writes for `tf.io.parse_example` and
//! `tf.io.parse_single_example` in graph mode. Unlike `ParseExample`, its feature keys are input
//! tensors (constants, in the graphs TensorFlow writes), read when the op runs; the parsing is
//! weir's `ParseExample` kernel. `RaggedFeature`s (its ragged keys) are not supported.

use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, Kernel, Node, OpContext, OpDef, Result, Shape,
    Tensor,
};

use super::example::{AsF32, ExampleConfig};
use super::example_ops::{dense_specs, parse_into, shape_fn};

/// The inputs before the dense defaults: serialized, names, sparse, dense and ragged keys.
const KEY_INPUTS: usize = 5;

struct ParseExampleV2Kernel {
    sparse_types: Vec<DType>,
    tdense: Vec<DType>,
    dense_shapes: Vec<Shape>,
    /// The parser for the keys of the last run: the keys are inputs, but in practice the same
    /// constants every run, so the config is built once.
    keyed: Mutex<Option<Arc<Keyed>>>,
}

/// A parser config and the keys it was built for.
struct Keyed {
    sparse_keys: Vec<Bytes>,
    dense_keys: Vec<Bytes>,
    cfg: ExampleConfig,
    as_f32: Vec<AsF32>,
}

/// The strings of key input `index` (`what` in messages), which must be a vector of `expected`.
fn keys<'c>(
    ctx: &'c OpContext<'_>,
    index: usize,
    what: &str,
    expected: usize,
) -> Result<&'c [Bytes]> {
    let t: &Tensor = ctx.input(index);
    if t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Expected {what} to be a vector, got shape: {}",
            format_dims(t.shape())
        )));
    }
    let keys = t.as_slice::<Bytes>()?;
    if keys.len() != expected {
        return Err(Error::invalid_argument(format!(
            "Expected len({what}) == {expected} (from the op's types), got {}",
            keys.len()
        )));
    }
    Ok(keys)
}

fn text(keys: &[Bytes]) -> Vec<String> {
    keys.iter()
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect()
}

impl ParseExampleV2Kernel {
    /// The parser for this run's keys: the cached one when they are the same (compared in
    /// place, so a run of the usual constant keys allocates nothing).
    fn config(&self, ctx: &OpContext<'_>) -> Result<Arc<Keyed>> {
        let sparse_keys = keys(ctx, 2, "sparse_keys", self.sparse_types.len())?;
        let dense_keys = keys(ctx, 3, "dense_keys", self.tdense.len())?;
        let ragged = ctx.input(4);
        if ragged.num_elements() != 0 {
            return Err(Error::unimplemented(format!(
                "ParseExampleV2: weir does not parse RaggedFeatures (ragged_keys {})",
                ragged.summarize_value(-1)
            )));
        }
        let mut keyed = self.keyed.lock();
        if let Some(k) = keyed.as_ref() {
            if k.sparse_keys == sparse_keys && k.dense_keys == dense_keys {
                return Ok(k.clone());
            }
        }
        let dense = dense_specs(text(dense_keys), &self.tdense, &self.dense_shapes)?;
        let sparse = text(sparse_keys)
            .into_iter()
            .zip(self.sparse_types.iter().copied())
            .collect();
        let cfg = ExampleConfig::new(dense, sparse)?;
        let k = Arc::new(Keyed {
            sparse_keys: sparse_keys.to_vec(),
            dense_keys: dense_keys.to_vec(),
            as_f32: vec![AsF32::default(); cfg.dense.len()],
            cfg,
        });
        *keyed = Some(k.clone());
        Ok(k)
    }
}

impl Kernel for ParseExampleV2Kernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let keyed = self.config(ctx)?;
        parse_into(&keyed.cfg, &keyed.as_f32, ctx, KEY_INPUTS)
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let ragged: Vec<DType> = node.attr("ragged_value_types")?;
    if !ragged.is_empty() {
        return Err(Error::unimplemented(
            "ParseExampleV2: weir does not parse RaggedFeatures",
        ));
    }
    let num_sparse: i64 = node.attr("num_sparse")?;
    let sparse_types: Vec<DType> = node.attr("sparse_types")?;
    let tdense: Vec<DType> = node.attr("Tdense")?;
    let dense_shapes: Vec<Shape> = node.attr("dense_shapes")?;
    if usize::try_from(num_sparse).ok() != Some(sparse_types.len()) {
        return Err(Error::invalid_argument(format!(
            "ParseExampleV2: num_sparse is {num_sparse} but sparse_types has {} types",
            sparse_types.len()
        )));
    }
    if tdense.len() != dense_shapes.len() {
        return Err(Error::invalid_argument(format!(
            "ParseExampleV2: Tdense has {} types but dense_shapes {} shapes",
            tdense.len(),
            dense_shapes.len()
        )));
    }
    Ok(Box::new(ParseExampleV2Kernel {
        sparse_types,
        tdense,
        dense_shapes,
        keyed: Mutex::new(None),
    }))
}

pub(super) fn register() {
    let strings = ArgType::Fixed(DType::String);
    register_op(
        OpDef::new("ParseExampleV2")
            .input("serialized", strings.clone())
            .input("names", strings.clone())
            .input("sparse_keys", strings.clone())
            .input("dense_keys", strings.clone())
            .input("ragged_keys", strings)
            .input("dense_defaults", ArgType::List("Tdense"))
            .output(
                "sparse_indices",
                ArgType::RepeatedFixed {
                    count: "num_sparse",
                    dtype: DType::I64,
                },
            )
            .output("sparse_values", ArgType::List("sparse_types"))
            .output(
                "sparse_shapes",
                ArgType::RepeatedFixed {
                    count: "num_sparse",
                    dtype: DType::I64,
                },
            )
            .output("dense_values", ArgType::List("Tdense"))
            .output("ragged_values", ArgType::List("ragged_value_types"))
            .output("ragged_row_splits", ArgType::List("ragged_split_types"))
            .attr("Tdense", AttrKind::Types, None)
            .attr("num_sparse", AttrKind::Int, None)
            .attr("sparse_types", AttrKind::Types, None)
            .attr("ragged_value_types", AttrKind::Types, None)
            .attr("ragged_split_types", AttrKind::Types, None)
            .attr("dense_shapes", AttrKind::Shapes, None)
            .shape_fn(shape_fn),
    );
    register_kernel("ParseExampleV2", make);
}
