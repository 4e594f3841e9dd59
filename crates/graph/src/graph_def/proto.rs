//! TensorFlow's `GraphDef` and the messages it holds (`graph.proto`, `node_def.proto`,
//! `attr_value.proto`, `tensor.proto`, `tensor_shape.proto`, `versions.proto`), written by hand
//! as prost messages with TensorFlow's field numbers: the fields weir's graphs use.

use bytes::Bytes;

/// `tensorflow.GraphDef`: a graph's nodes and the versions it was made by.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphDef {
    /// Every node, inputs before their consumers.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeDef>,
    /// The functions the graph's `If`, `While` and call ops name (TensorFlow 2's control flow).
    #[prost(message, optional, tag = "2")]
    pub library: Option<FunctionDefLibrary>,
    /// Which GraphDef version the graph was written at.
    #[prost(message, optional, tag = "4")]
    pub versions: Option<VersionDef>,
}

/// `tensorflow.FunctionDefLibrary`: the functions of a graph.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionDefLibrary {
    /// Every function.
    #[prost(message, repeated, tag = "1")]
    pub function: Vec<FunctionDef>,
}

/// `tensorflow.FunctionDef`: a function's signature, body and results.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionDef {
    /// Name, arguments and results.
    #[prost(message, optional, tag = "1")]
    pub signature: Option<FunctionSignature>,
    /// The body. Inputs name an argument (`x`), an output of a body node (`node:arg:index`,
    /// by the node op's output argument names), or a control input (`^node`).
    #[prost(message, repeated, tag = "3")]
    pub node_def: Vec<NodeDef>,
    /// Each result's value, by output argument name.
    #[prost(btree_map = "string, string", tag = "4")]
    pub ret: std::collections::BTreeMap<String, String>,
    /// The body nodes that must run for the function to be done, by control output name.
    #[prost(btree_map = "string, string", tag = "6")]
    pub control_ret: std::collections::BTreeMap<String, String>,
}

/// `tensorflow.OpDef`, as a function's signature: its name and arguments.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionSignature {
    /// The function's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// The arguments, in call order.
    #[prost(message, repeated, tag = "2")]
    pub input_arg: Vec<FunctionArg>,
    /// The results, in output order.
    #[prost(message, repeated, tag = "3")]
    pub output_arg: Vec<FunctionArg>,
}

/// `tensorflow.OpDef.ArgDef`: one argument or result of a function.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionArg {
    /// Its name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its `DataType` number.
    #[prost(int32, tag = "3")]
    pub r#type: i32,
}

/// `tensorflow.NameAttrList`: a function named by an attribute, with attributes of its own.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NameAttrList {
    /// The function's name.
    #[prost(string, tag = "1")]
    pub name: String,
}

/// `tensorflow.VersionDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VersionDef {
    /// The GraphDef version of the writer.
    #[prost(int32, tag = "1")]
    pub producer: i32,
    /// The oldest reader that may run the graph.
    #[prost(int32, tag = "2")]
    pub min_consumer: i32,
}

/// `tensorflow.NodeDef`: one node.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeDef {
    /// The node's unique name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its op type.
    #[prost(string, tag = "2")]
    pub op: String,
    /// Data inputs as `node` or `node:index`, then control inputs as `^node`.
    #[prost(string, repeated, tag = "3")]
    pub input: Vec<String>,
    /// The requested device; empty, as weir places nothing.
    #[prost(string, tag = "4")]
    pub device: String,
    /// Attributes by name.
    #[prost(btree_map = "string, message", tag = "5")]
    pub attr: std::collections::BTreeMap<String, AttrValueProto>,
}

impl NodeDef {
    /// A node named `name` of `op`, with `input` (data, then `^control`) and `attrs`.
    pub fn new(
        name: String,
        op: &str,
        input: Vec<String>,
        attrs: &[(&str, AttrValueProto)],
    ) -> NodeDef {
        NodeDef {
            name,
            op: op.to_string(),
            input,
            device: String::new(),
            attr: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }
}

/// `tensorflow.AttrValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttrValueProto {
    /// The value, one of TensorFlow's attribute kinds.
    #[prost(
        oneof = "attr_value_proto::Value",
        tags = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10"
    )]
    pub value: Option<attr_value_proto::Value>,
}

/// The `oneof value` of [`AttrValueProto`].
pub mod attr_value_proto {
    /// `AttrValue.value`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// `list(...)`.
        #[prost(message, tag = "1")]
        List(super::ListValue),
        /// `string`.
        #[prost(bytes = "bytes", tag = "2")]
        S(super::Bytes),
        /// `int`.
        #[prost(int64, tag = "3")]
        I(i64),
        /// `float`.
        #[prost(float, tag = "4")]
        F(f32),
        /// `bool`.
        #[prost(bool, tag = "5")]
        B(bool),
        /// `type`: a `DataType` number.
        #[prost(int32, tag = "6")]
        Type(i32),
        /// `shape`.
        #[prost(message, tag = "7")]
        Shape(super::TensorShapeProto),
        /// `tensor`.
        #[prost(message, tag = "8")]
        Tensor(super::TensorProto),
        /// A reference to an attribute of the enclosing function (`$T`), in a function body.
        #[prost(string, tag = "9")]
        Placeholder(String),
        /// `func`: a function, as `If`'s branches are named.
        #[prost(message, tag = "10")]
        Func(super::NameAttrList),
    }
}

/// `tensorflow.AttrValue.ListValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListValue {
    /// `list(string)`.
    #[prost(bytes = "bytes", repeated, tag = "2")]
    pub s: Vec<Bytes>,
    /// `list(int)`.
    #[prost(int64, repeated, tag = "3")]
    pub i: Vec<i64>,
    /// `list(float)`.
    #[prost(float, repeated, tag = "4")]
    pub f: Vec<f32>,
    /// `list(bool)`.
    #[prost(bool, repeated, tag = "5")]
    pub b: Vec<bool>,
    /// `list(type)`.
    #[prost(int32, repeated, tag = "6")]
    pub r#type: Vec<i32>,
    /// `list(shape)`.
    #[prost(message, repeated, tag = "7")]
    pub shape: Vec<TensorShapeProto>,
    /// `list(func)`: a `Case`'s branches.
    #[prost(message, repeated, tag = "9")]
    pub func: Vec<NameAttrList>,
}

/// `tensorflow.TensorShapeProto`: dimensions of size -1 are unknown.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// The dimensions, outermost first.
    #[prost(message, repeated, tag = "2")]
    pub dim: Vec<tensor_shape_proto::Dim>,
    /// Whether even the rank is unknown.
    #[prost(bool, tag = "3")]
    pub unknown_rank: bool,
}

/// The nested messages of [`TensorShapeProto`].
pub mod tensor_shape_proto {
    /// `TensorShapeProto.Dim`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Dim {
        /// The size, -1 when unknown.
        #[prost(int64, tag = "1")]
        pub size: i64,
    }
}

/// `tensorflow.TensorProto`: a constant's value, either as raw little-endian bytes
/// (`tensor_content`) or in the typed field of its dtype.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// The `DataType` number.
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    /// The shape.
    #[prost(message, optional, tag = "2")]
    pub tensor_shape: Option<TensorShapeProto>,
    /// Every element, little-endian, in row-major order.
    #[prost(bytes = "bytes", tag = "4")]
    pub tensor_content: Bytes,
    /// `float` values.
    #[prost(float, repeated, tag = "5")]
    pub float_val: Vec<f32>,
    /// `double` values.
    #[prost(double, repeated, tag = "6")]
    pub double_val: Vec<f64>,
    /// `int32`, `int16`, `int8`, `uint16` and `uint8` values.
    #[prost(int32, repeated, tag = "7")]
    pub int_val: Vec<i32>,
    /// `string` values.
    #[prost(bytes = "bytes", repeated, tag = "8")]
    pub string_val: Vec<Bytes>,
    /// `int64` values.
    #[prost(int64, repeated, tag = "10")]
    pub int64_val: Vec<i64>,
    /// `bool` values.
    #[prost(bool, repeated, tag = "11")]
    pub bool_val: Vec<bool>,
    /// `complex64` values, real and imaginary parts interleaved.
    #[prost(float, repeated, tag = "9")]
    pub scomplex_val: Vec<f32>,
    /// `complex128` values, real and imaginary parts interleaved.
    #[prost(double, repeated, tag = "12")]
    pub dcomplex_val: Vec<f64>,
    /// `half` and `bfloat16` values: each one's 16 bits.
    #[prost(int32, repeated, tag = "13")]
    pub half_val: Vec<i32>,
    /// `uint32` values.
    #[prost(uint32, repeated, tag = "16")]
    pub uint32_val: Vec<u32>,
    /// `uint64` values.
    #[prost(uint64, repeated, tag = "17")]
    pub uint64_val: Vec<u64>,
}
