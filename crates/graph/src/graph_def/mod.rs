//! A graph as TensorFlow's `GraphDef` (`tf.Graph.as_graph_def`), in binary or text format
//! (`tf.io.write_graph`), so TensorBoard draws weir's graphs and TensorFlow can read them; and
//! the way back (`tf.import_graph_def`), so a graph TensorFlow wrote runs here.

mod import;
mod import_parsing;
mod lower_functions;
pub mod meta_graph;
pub mod proto;
mod text;
mod text_parse;
mod tf_compat;

use std::path::{Path, PathBuf};

use bytes::Bytes;
/// prost's `Message`, whose `encode_to_vec` and `decode` read and write these messages.
pub use prost::Message;

use crate::{
    bf16, f16, AttrValue, Complex, DType, Error, Graph, LeBytes, Node, Result, Shape, Tensor,
};
use proto::attr_value_proto::Value;
use proto::{
    tensor_shape_proto, AttrValueProto, GraphDef, ListValue, NodeDef, TensorProto,
    TensorShapeProto, VersionDef,
};

pub use import::{tensor_from_proto, ImportGraphDef};
pub use text::{node_def_to_text, to_text};
pub use text_parse::parse_text;

/// The GraphDef version weir writes: TensorFlow 2.21's `tf.version.GRAPH_DEF_VERSION`, whose
/// op set (`AddV2`, `VariableV2`, ...) weir's graphs use.
pub const GRAPH_DEF_VERSION: i32 = 2474;

/// `shape` as a `TensorShapeProto`.
pub fn shape_proto(shape: &Shape) -> TensorShapeProto {
    match shape.dims() {
        None => TensorShapeProto {
            dim: Vec::new(),
            unknown_rank: true,
        },
        Some(dims) => TensorShapeProto {
            dim: dims
                .iter()
                .map(|d| tensor_shape_proto::Dim {
                    size: d.map_or(-1, |s| s as i64),
                })
                .collect(),
            unknown_rank: false,
        },
    }
}

/// Little-endian bytes of every element.
fn raw_bytes<T: LeBytes>(values: &[T]) -> Bytes {
    let mut out = Vec::with_capacity(values.len() * T::SIZE);
    for &v in values {
        v.put(&mut out);
    }
    Bytes::from(out)
}

/// `t` as a `TensorProto`, laid out as TensorFlow's Python lays out a constant: a scalar in its
/// dtype's typed field, anything larger as `tensor_content` (strings always as `string_val`).
pub fn tensor_proto(t: &Tensor) -> Result<TensorProto> {
    let mut p = TensorProto {
        dtype: t.dtype().proto_number(),
        tensor_shape: Some(shape_proto(&Shape::known(t.shape()))),
        ..TensorProto::default()
    };
    if t.rank() != 0 && t.dtype() != DType::String {
        // Python's make_tensor_proto lays out anything larger than a scalar as raw bytes.
        p.tensor_content = crate::match_le_dtype!(t.dtype(), T => raw_bytes(t.as_slice::<T>()?),
            _ => return Err(no_proto(t.dtype())));
        return Ok(p);
    }
    match t.dtype() {
        DType::F32 => p.float_val = t.to_vec()?,
        DType::F64 => p.double_val = t.to_vec()?,
        DType::I32 => p.int_val = t.to_vec()?,
        DType::I64 => p.int64_val = t.to_vec()?,
        DType::I16 => p.int_val = vec![t.to_scalar::<i16>()?.into()],
        DType::U16 => p.int_val = vec![t.to_scalar::<u16>()?.into()],
        DType::I8 => p.int_val = vec![t.to_scalar::<i8>()?.into()],
        DType::U8 => p.int_val = vec![t.to_scalar::<u8>()?.into()],
        DType::U32 => p.uint32_val = t.to_vec()?,
        DType::U64 => p.uint64_val = t.to_vec()?,
        DType::F16 => p.half_val = vec![t.to_scalar::<f16>()?.to_bits().into()],
        DType::BF16 => p.half_val = vec![t.to_scalar::<bf16>()?.to_bits().into()],
        DType::C64 => {
            let c = t.to_scalar::<Complex<f32>>()?;
            p.scomplex_val = vec![c.re, c.im];
        }
        DType::C128 => {
            let c = t.to_scalar::<Complex<f64>>()?;
            p.dcomplex_val = vec![c.re, c.im];
        }
        DType::Bool => p.bool_val = t.to_vec()?,
        DType::String => p.string_val = t.as_slice::<Bytes>()?.to_vec(),
        DType::Resource => return Err(no_proto(DType::Resource)),
    }
    Ok(p)
}

fn no_proto(dtype: DType) -> Error {
    Error::unimplemented(format!("A {dtype} tensor has no TensorProto form in weir"))
}

/// `t` as a `TensorProto` laid out as TensorFlow's `Tensor::AsProtoTensorContent` lays it out,
/// which `tf.io.serialize_tensor` writes: every numeric or boolean value, a scalar's too, as
/// little-endian `tensor_content`; strings as `string_val`.
pub fn tensor_proto_content(t: &Tensor) -> Result<TensorProto> {
    let mut p = tensor_proto(t)?;
    if t.rank() == 0 && t.dtype() != DType::String {
        // tensor_proto put the scalar in its typed field; lay it out as an array of one.
        let one = t.reshape(&[1])?;
        let content = tensor_proto(&one)?.tensor_content;
        p = TensorProto {
            dtype: p.dtype,
            tensor_shape: p.tensor_shape,
            tensor_content: content,
            ..TensorProto::default()
        };
    }
    Ok(p)
}

/// An attribute as TensorFlow's `AttrValue`.
pub fn attr_proto(v: &AttrValue) -> Result<AttrValueProto> {
    let value = match v {
        AttrValue::Int(i) => Value::I(*i),
        AttrValue::Float(f) => Value::F(*f),
        AttrValue::Bool(b) => Value::B(*b),
        AttrValue::Str(s) => Value::S(Bytes::copy_from_slice(s.as_bytes())),
        AttrValue::Type(d) => Value::Type(d.proto_number()),
        AttrValue::Shape(s) => Value::Shape(shape_proto(s)),
        AttrValue::Tensor(t) => Value::Tensor(tensor_proto(t)?),
        AttrValue::Ints(v) => Value::List(ListValue {
            i: v.clone(),
            ..ListValue::default()
        }),
        AttrValue::Floats(v) => Value::List(ListValue {
            f: v.clone(),
            ..ListValue::default()
        }),
        AttrValue::Strs(v) => Value::List(ListValue {
            s: v.iter()
                .map(|s| Bytes::copy_from_slice(s.as_bytes()))
                .collect(),
            ..ListValue::default()
        }),
        AttrValue::Types(v) => Value::List(ListValue {
            r#type: v.iter().map(|d| d.proto_number()).collect(),
            ..ListValue::default()
        }),
        AttrValue::Shapes(v) => Value::List(ListValue {
            shape: v.iter().map(shape_proto).collect(),
            ..ListValue::default()
        }),
    };
    Ok(AttrValueProto { value: Some(value) })
}

impl Graph {
    /// The graph as TensorFlow's `GraphDef` (`graph.as_graph_def(add_shapes)`): every node with
    /// its op, inputs (`node:index`, then `^node` for control inputs) and attributes; with
    /// `add_shapes`, each node's static output shapes in `_output_shapes`, which TensorBoard
    /// draws on the edges. Written so TensorFlow can run it: a read of a `VariableV2` is TF1's
    /// `Identity` of the ref, and weir's composites `ReducedShape` and `RandomInitializer`
    /// become the ops TensorFlow's Python builds instead, under their names.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// let def = Graph::new().as_graph_def(true)?;
    /// assert!(def.node.is_empty());
    /// assert_eq!(def.versions.unwrap().producer, weir_graph::graph_def::GRAPH_DEF_VERSION);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn as_graph_def(&self, add_shapes: bool) -> Result<GraphDef> {
        self.with_nodes(|nodes| {
            let refs = tf1_refs(nodes);
            let mut node = Vec::with_capacity(nodes.len());
            for n in nodes {
                // A loop's Merge takes its NextIteration last, as TensorFlow wires it.
                let input: Vec<String> = n
                    .inputs()
                    .iter()
                    .chain(n.loop_back_edge().as_ref())
                    .map(|&(id, i)| match i {
                        0 => nodes[id].name().to_string(),
                        i => format!("{}:{i}", nodes[id].name()),
                    })
                    .collect();
                let controls: Vec<String> = n
                    .control_inputs()
                    .iter()
                    .map(|&id| format!("^{}", nodes[id].name()))
                    .collect();
                let shapes = || -> Result<AttrValueProto> {
                    // TensorFlow's VariableV2 outputs the variable itself (a ref of its shape),
                    // and so do the Ref* ops that forward it; weir's output a scalar handle.
                    let shapes = n
                        .output_shapes()
                        .iter()
                        .enumerate()
                        .map(|(o, s)| match refs.get(&(n.id(), o)) {
                            Some((_, var_shape)) => var_shape.clone(),
                            None => s.clone(),
                        })
                        .collect();
                    attr_proto(&AttrValue::Shapes(shapes))
                };
                let producers: Vec<(&Node, usize)> =
                    n.inputs().iter().map(|&(id, i)| (&*nodes[id], i)).collect();
                if let Some(mut expanded) = tf_compat::expand(n, &input, &producers, &controls) {
                    if add_shapes {
                        if let Some(last) = expanded.iter_mut().find(|d| d.name == n.name()) {
                            last.attr.insert("_output_shapes".to_string(), shapes()?);
                        }
                    }
                    node.extend(expanded);
                    continue;
                }
                // A read of a TensorFlow 1.x variable is an Identity of its ref output, which
                // TensorFlow imports; weir's ReadVariableOp of it is not.
                let ref_read = n.op_type() == "ReadVariableOp"
                    && n.inputs().first().is_some_and(|i| refs.contains_key(i));
                // A variable passed through control flow (a cond branch assigning it, as batch
                // normalization's moving averages do) goes through TensorFlow's Ref* forms.
                let ref_forward = REF_FORWARDING.contains(&n.op_type())
                    && n.inputs().first().is_some_and(|i| refs.contains_key(i));
                let ref_op;
                let op = if ref_read {
                    "Identity"
                } else if ref_forward {
                    ref_op = format!("Ref{}", n.op_type());
                    ref_op.as_str()
                } else {
                    n.op_type()
                };
                let ref_dtype = n.inputs().first().and_then(|i| refs.get(i)).map(|r| r.0);
                let mut attr = n
                    .attrs()
                    .iter()
                    .map(|(k, v)| match (ref_forward, k.as_str(), ref_dtype) {
                        (true, "T", Some(d)) => (k, std::borrow::Cow::Owned(AttrValue::Type(d))),
                        _ => (k, std::borrow::Cow::Borrowed(v)),
                    })
                    // TensorFlow's ReadVariableOp has no `shape` (weir's keeps the variable's).
                    .filter(|(k, _)| {
                        !(ref_read || n.op_type() == "ReadVariableOp") || k.as_str() == "dtype"
                    })
                    .map(|(k, v)| (if ref_read { "T" } else { k.as_str() }, v))
                    .map(|(k, v)| {
                        attr_proto(&v)
                            .map(|p| (k.to_string(), p))
                            .map_err(|e| e.with_node(n.name(), n.op_type()))
                    })
                    .collect::<Result<std::collections::BTreeMap<_, _>>>()?;
                if add_shapes {
                    attr.insert("_output_shapes".to_string(), shapes()?);
                }
                if n.loop_back_edge().is_some() {
                    attr.insert(
                        "N".to_string(),
                        attr_proto(&AttrValue::Int(input.len() as i64))?,
                    );
                }
                let mut all_inputs = input;
                all_inputs.extend(controls);
                node.push(NodeDef {
                    name: n.name().to_string(),
                    op: op.to_string(),
                    input: all_inputs,
                    device: String::new(),
                    attr,
                });
            }
            Ok(GraphDef {
                node,
                library: None,
                versions: Some(VersionDef {
                    producer: GRAPH_DEF_VERSION,
                    min_consumer: 0,
                }),
            })
        })
    }
}

/// weir's forwarding ops that TensorFlow 1 has a `Ref` form of, for a variable's ref.
const REF_FORWARDING: [&str; 6] = [
    "Switch",
    "Enter",
    "Exit",
    "Identity",
    "Merge",
    "NextIteration",
];

/// The outputs that are TensorFlow 1 variable refs in TensorFlow's view, with the variable's
/// dtype: each `VariableV2`'s handle, and the resource outputs of forwarding ops (a `Switch`
/// or `Enter` of it, ...) that pass one on.
fn tf1_refs(
    nodes: &[std::sync::Arc<Node>],
) -> std::collections::HashMap<(usize, usize), (DType, Shape)> {
    let mut refs = std::collections::HashMap::new();
    for (id, n) in nodes.iter().enumerate() {
        if n.op_type() == "VariableV2" {
            if let Some(AttrValue::Type(d)) = n.attrs().get("dtype") {
                let shape = match n.attrs().get("shape") {
                    Some(AttrValue::Shape(s)) => s.clone(),
                    _ => Shape::unknown(),
                };
                refs.insert((id, 0), (*d, shape));
            }
        } else if REF_FORWARDING.contains(&n.op_type()) {
            if let Some(r) = n.inputs().first().and_then(|i| refs.get(i)).cloned() {
                for (o, t) in n.output_dtypes().iter().enumerate() {
                    if *t == DType::Resource {
                        refs.insert((id, o), r.clone());
                    }
                }
            }
        }
    }
    refs
}

/// Writes `def` to `logdir/name` (`tf.io.write_graph(graph_def, logdir, name, as_text)`): in
/// protobuf's text format when `as_text` (TensorFlow's default; name it `*.pbtxt`), else as the
/// binary message (`*.pb`). Creates `logdir`, writes through a temporary file renamed into
/// place, and returns the path.
///
/// ```
/// # use weir_graph::{graph_def::write_graph, Graph};
/// let dir = std::env::temp_dir().join(format!("weir-write-graph-doc-{}", std::process::id()));
/// let path = write_graph(&Graph::new().as_graph_def(false)?, &dir, "graph.pbtxt", true)?;
/// assert!(std::fs::read_to_string(&path).unwrap().starts_with("versions {"));
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn write_graph(
    def: &GraphDef,
    logdir: impl AsRef<Path>,
    name: &str,
    as_text: bool,
) -> Result<PathBuf> {
    let bytes = if as_text {
        to_text(def).into_bytes()
    } else {
        def.encode_to_vec()
    };
    let dir = logdir.as_ref();
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let fail = |e: std::io::Error| -> Error {
        Error::from(e).with_prefix(&format!("Failed to write {}: ", path.display()))
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    std::fs::write(&tmp, bytes).map_err(fail)?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })?;
    Ok(path)
}
