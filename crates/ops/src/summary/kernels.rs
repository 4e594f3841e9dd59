//! The summary kernels and their builders.

use std::collections::HashSet;

use bytes::Bytes;
use prost::Message;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    graph_keys, ArgType, CollectionItem, DType, Error, Graph, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

use super::histogram::histogram as histogram_of;
use super::proto::{summary_value::Value, Summary, SummaryValue};

/// `tf.summary.scalar(name, tensor)`: a Summary with one scalar, tagged with `name` in the
/// current name scope, added to the `SUMMARIES` collection.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, summary};
/// let g = Graph::new();
/// let loss = constant(&g, 0.5f32)?;
/// let s = summary::scalar("loss", &loss)?;
/// assert_eq!(s.name(), "loss:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scalar(name: &str, tensor: impl Into<Output>) -> Result<Output> {
    summary_op("ScalarSummary", name, tensor.into())
}

/// `tf.summary.histogram(name, values)`: a Summary with a histogram of `values` (any shape),
/// added to `SUMMARIES`. NaN or infinite values are InvalidArgument, as in TensorFlow.
pub fn histogram(name: &str, values: impl Into<Output>) -> Result<Output> {
    summary_op("HistogramSummary", name, values.into())
}

fn summary_op(op: &str, name: &str, values: Output) -> Result<Output> {
    let g = values.graph().clone();
    scoped_summary(&g, name, |tag, tags| {
        crate::new_op(&g, op)
            .name(format!("{tag}/"))
            .input(tags)
            .input(values)
            .build()?
            .output(0)
    })
}

/// TensorFlow's `summary_scope` and `collect`: opens name scope `name`, makes its `tag` constant
/// (the scope without its trailing slash) and lets `build` add the op named `{tag}/` (the scope
/// itself), then adds the op's output to `SUMMARIES`.
pub(super) fn scoped_summary(
    g: &Graph,
    name: &str,
    build: impl FnOnce(&str, Output) -> Result<Output>,
) -> Result<Output> {
    let scope = g.name_scope(name);
    let tag = scope.prefix().trim_end_matches('/').to_string();
    let tags = crate::array::constant_named(g, Tensor::from(tag.as_str()), "tag")?;
    let out = build(&tag, tags)?;
    drop(scope);
    g.add_to_collection(graph_keys::SUMMARIES, out.clone())?;
    Ok(out)
}

/// `tf.summary.merge(inputs)` (TF1's `tf.summary.merge`, op `Merge/MergeSummary`): one Summary holding the values of every input Summary;
/// InvalidArgument on a tag that appears twice.
pub fn merge(inputs: &[Output]) -> Result<Output> {
    let first = inputs
        .first()
        .ok_or_else(|| Error::invalid_argument("merge needs at least one summary"))?;
    // TensorFlow names it under a `Merge` name scope: `Merge/MergeSummary`.
    let _scope = first.graph().name_scope("Merge");
    crate::new_op(first.graph(), "MergeSummary")
        .inputs(inputs)
        .build()?
        .output(0)
}

/// `tf.summary.merge_all()`: merges every summary in `SUMMARIES`; `None` when there is none.
pub fn merge_all(graph: &Graph) -> Result<Option<Output>> {
    let items: Vec<Output> = graph
        .get_collection(graph_keys::SUMMARIES)
        .into_iter()
        .filter_map(|i| match i {
            CollectionItem::Output(o) => Some(o),
            _ => None,
        })
        .collect();
    if items.is_empty() {
        return Ok(None);
    }
    merge(&items).map(Some)
}

/// The serialized `summary` as a string scalar, what every summary op outputs.
pub(super) fn encode(summary: &Summary) -> Tensor {
    Tensor::scalar(Bytes::from(summary.encode_to_vec()))
}

fn as_f64<T: TensorType + Copy + Into<f64>>(t: &Tensor) -> Result<Vec<f64>> {
    Ok(t.as_slice::<T>()?.iter().map(|&v| v.into()).collect())
}

fn values_f64(t: &Tensor) -> Result<Vec<f64>> {
    match t.dtype() {
        DType::F32 => as_f64::<f32>(t),
        DType::F64 => as_f64::<f64>(t),
        DType::I8 => as_f64::<i8>(t),
        DType::I16 => as_f64::<i16>(t),
        DType::I32 => as_f64::<i32>(t),
        DType::U8 => as_f64::<u8>(t),
        DType::U16 => as_f64::<u16>(t),
        DType::I64 => Ok(t.as_slice::<i64>()?.iter().map(|&v| v as f64).collect()),
        dt => Err(Error::invalid_argument(format!(
            "Cannot summarize a {dt} tensor"
        ))),
    }
}

struct ScalarKernel;

impl Kernel for ScalarKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (tags, values) = (ctx.input(0), ctx.input(1));
        if tags.shape() != values.shape() {
            return Err(Error::invalid_argument(format!(
                "tags and values are not the same shape: {} != {}",
                weir_graph::format_dims(tags.shape()),
                weir_graph::format_dims(values.shape())
            )));
        }
        let vals = values_f64(values)?;
        let summary = Summary {
            value: tags
                .as_slice::<Bytes>()?
                .iter()
                .zip(vals)
                .map(|(t, v)| SummaryValue {
                    tag: String::from_utf8_lossy(t).into_owned(),
                    value: Some(Value::SimpleValue(v as f32)),
                    ..SummaryValue::default()
                })
                .collect(),
        };
        ctx.set_output(0, encode(&summary));
        Ok(())
    }
}

struct HistogramKernel;

impl Kernel for HistogramKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let tag = String::from_utf8_lossy(&ctx.input(0).to_scalar::<Bytes>()?).into_owned();
        let vals = values_f64(ctx.input(1))?;
        if vals.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid_argument(format!(
                "Nan in summary histogram for: {tag}"
            )));
        }
        let summary = Summary {
            value: vec![SummaryValue {
                tag,
                value: Some(Value::Histo(histogram_of(vals.into_iter()))),
                ..SummaryValue::default()
            }],
        };
        ctx.set_output(0, encode(&summary));
        Ok(())
    }
}

struct MergeKernel;

impl Kernel for MergeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut merged = Summary { value: Vec::new() };
        let mut seen = HashSet::new();
        for input in ctx.inputs() {
            for bytes in input.as_slice::<Bytes>()? {
                let s = Summary::decode(bytes.clone()).map_err(|_| {
                    Error::invalid_argument("Could not parse one of the summary inputs")
                })?;
                for v in s.value {
                    if !seen.insert(v.tag.clone()) {
                        return Err(Error::invalid_argument(format!(
                            "Duplicate tag {} found in summary inputs",
                            v.tag
                        )));
                    }
                    merged.value.push(v);
                }
            }
        }
        ctx.set_output(0, encode(&merged));
        Ok(())
    }
}

/// The shape function of every summary op: one string scalar.
pub(super) fn scalar_output(ctx: &mut weir_graph::InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

pub(super) fn register() {
    for (name, tags) in [("ScalarSummary", "tags"), ("HistogramSummary", "tag")] {
        register_op(
            OpDef::new(name)
                .input(tags, ArgType::Fixed(DType::String))
                .input("values", ArgType::Attr("T"))
                .output("summary", ArgType::Fixed(DType::String))
                .type_attr("T", DType::REAL_NUMBER)
                .shape_fn(scalar_output),
        );
    }
    register_kernel("ScalarSummary", |_| Ok(Box::new(ScalarKernel)));
    register_kernel("HistogramSummary", |_| Ok(Box::new(HistogramKernel)));
    register_op(
        OpDef::new("MergeSummary")
            .input(
                "inputs",
                ArgType::RepeatedFixed {
                    count: "N",
                    dtype: DType::String,
                },
            )
            .output("summary", ArgType::Fixed(DType::String))
            .int_attr_min("N", 1)
            .shape_fn(scalar_output),
    );
    register_kernel("MergeSummary", |_| Ok(Box::new(MergeKernel)));
}
