//! `tf.import_graph_def`: a `GraphDef` (TensorFlow's or weir's) added to a graph, node by node,
//! through the same registry and checks as graph-building code.

use std::collections::{HashMap, HashSet};

use bytes::Bytes;

use super::proto::attr_value_proto::Value;
use super::proto::{AttrValueProto, GraphDef, NodeDef, TensorProto, TensorShapeProto};
use crate::op_def::{ArgType, AttrKind, OpDef};
use crate::{
    bf16, f16, registry, AttrValue, Complex, DType, Error, Graph, LeBytes, Operation, Output,
    Result, Shape, Tensor,
};

/// The options of `tf.import_graph_def(graph_def, input_map, name)`: where the imported nodes'
/// names go and which of their inputs come from tensors already in the graph.
///
/// ```
/// # use weir_graph::{graph_def::ImportGraphDef, Graph};
/// let def = Graph::new().as_graph_def(false)?;
/// let into = Graph::new();
/// let ops = ImportGraphDef::new(&def).name("").import(&into)?;
/// assert!(ops.is_empty());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct ImportGraphDef<'a> {
    def: &'a GraphDef,
    name: String,
    /// Whether `name` is used as given, not made unique first.
    exact: bool,
    input_map: HashMap<String, Output>,
}

/// `node:0` for `node`, the name of an output as `input_map` keys and NodeDef inputs spell it.
fn canonical(name: &str) -> String {
    match name.rsplit_once(':') {
        Some((_, i)) if i.parse::<usize>().is_ok() => name.to_string(),
        _ => format!("{name}:0"),
    }
}

fn split_input(input: &str) -> (&str, usize) {
    match input.rsplit_once(':') {
        Some((n, i)) => match i.parse() {
            Ok(i) => (n, i),
            Err(_) => (input, 0),
        },
        None => (input, 0),
    }
}

fn dtype_of(n: i32) -> Result<DType> {
    DType::from_proto_number(n)
        .ok_or_else(|| Error::unimplemented(format!("DataType {n} is not supported by weir")))
}

fn shape_of(s: &TensorShapeProto) -> Shape {
    if s.unknown_rank {
        return Shape::unknown();
    }
    Shape::new(
        s.dim
            .iter()
            .map(|d| usize::try_from(d.size).ok())
            .collect::<Vec<_>>(),
    )
}

/// `count` values from a typed field holding `got`: all of them, or the last one repeated (how
/// TensorFlow reads a constant written as one value), or `zero` when the field is empty.
fn fill<T: Clone>(got: Vec<T>, count: usize, zero: T) -> Result<Vec<T>> {
    match got.len() {
        n if n == count => Ok(got),
        0 => Ok(vec![zero; count]),
        n if n < count => {
            let last = got[n - 1].clone();
            let mut v = got;
            v.resize(count, last);
            Ok(v)
        }
        n => Err(Error::invalid_argument(format!(
            "TensorProto has {n} values for a tensor of {count} elements"
        ))),
    }
}

/// `bytes` as `count` little-endian elements of `size` bytes each.
fn from_le<T>(
    bytes: &[u8],
    count: usize,
    size: usize,
    read: impl Fn(&[u8]) -> T,
) -> Result<Vec<T>> {
    if bytes.len() != count * size {
        return Err(Error::invalid_argument(format!(
            "TensorProto's tensor_content has {} bytes for {count} elements of {size} bytes",
            bytes.len()
        )));
    }
    Ok(bytes.chunks_exact(size).map(read).collect())
}

/// Interleaved (real, imaginary) pairs as `count` complex values; fewer pairs repeat the last,
/// as for every typed field.
fn complex_vals<F: Copy + Default>(parts: &[F], count: usize) -> Result<Vec<Complex<F>>> {
    if parts.len() % 2 != 0 {
        return Err(Error::invalid_argument(format!(
            "TensorProto has {} complex parts, not (real, imaginary) pairs",
            parts.len()
        )));
    }
    let pairs = parts.chunks_exact(2).map(|c| Complex::new(c[0], c[1]));
    fill(
        pairs.collect(),
        count,
        Complex::new(F::default(), F::default()),
    )
}

/// The largest constant read, in bytes: protobuf's limit on a whole message.
const MAX_CONSTANT_BYTES: usize = 1 << 31;

/// A `TensorProto` as a tensor.
pub fn tensor_from_proto(p: &TensorProto) -> Result<Tensor> {
    let dtype = dtype_of(p.dtype)?;
    let shape = p
        .tensor_shape
        .as_ref()
        .map(shape_of)
        .unwrap_or_else(Shape::scalar)
        .to_known()
        .ok_or_else(|| Error::invalid_argument("A constant's TensorProto has an unknown shape"))?;
    // A constant beyond protobuf's 2 GiB message limit cannot be real; refusing it keeps a
    // hostile shape from sizing an allocation.
    let n = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n.saturating_mul(dtype.size_of().unwrap_or(1)) <= MAX_CONSTANT_BYTES)
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "A constant of shape {shape:?} is larger than the 2 GiB a GraphDef can hold"
            ))
        })?;
    let raw = &p.tensor_content[..];
    let ints = |p: &TensorProto| fill(p.int_val.clone(), n, 0);
    macro_rules! numeric {
        ($t:ty, $size:expr, $typed:expr) => {{
            let v: Vec<$t> = if raw.is_empty() {
                $typed
            } else {
                from_le(raw, n, $size, <$t as LeBytes>::get)?
            };
            Tensor::from_vec(&shape, v)
        }};
    }
    match dtype {
        DType::F32 => numeric!(f32, 4, fill(p.float_val.clone(), n, 0.0)?),
        DType::F64 => numeric!(f64, 8, fill(p.double_val.clone(), n, 0.0)?),
        DType::I64 => numeric!(i64, 8, fill(p.int64_val.clone(), n, 0)?),
        DType::I32 => numeric!(i32, 4, ints(p)?),
        DType::I16 => numeric!(i16, 2, ints(p)?.into_iter().map(|v| v as i16).collect()),
        DType::U16 => numeric!(u16, 2, ints(p)?.into_iter().map(|v| v as u16).collect()),
        DType::I8 => numeric!(i8, 1, ints(p)?.into_iter().map(|v| v as i8).collect()),
        DType::U8 => numeric!(u8, 1, ints(p)?.into_iter().map(|v| v as u8).collect()),
        DType::U32 => numeric!(u32, 4, fill(p.uint32_val.clone(), n, 0)?),
        DType::U64 => numeric!(u64, 8, fill(p.uint64_val.clone(), n, 0)?),
        DType::F16 => numeric!(f16, 2, {
            let bits = fill(p.half_val.clone(), n, 0)?;
            bits.into_iter().map(|b| f16::from_bits(b as u16)).collect()
        }),
        DType::BF16 => numeric!(bf16, 2, {
            let bits = fill(p.half_val.clone(), n, 0)?;
            bits.into_iter()
                .map(|b| bf16::from_bits(b as u16))
                .collect()
        }),
        DType::C64 => numeric!(Complex<f32>, 8, complex_vals(&p.scomplex_val, n)?),
        DType::C128 => numeric!(Complex<f64>, 16, complex_vals(&p.dcomplex_val, n)?),
        DType::Bool => {
            let v = if raw.is_empty() {
                fill(p.bool_val.clone(), n, false)?
            } else {
                from_le(raw, n, 1, |b| b[0] != 0)?
            };
            Tensor::from_vec(&shape, v)
        }
        DType::String => Tensor::from_vec(&shape, fill(p.string_val.clone(), n, Bytes::new())?),
        DType::Resource => Err(Error::unimplemented(
            "A resource constant cannot be imported",
        )),
    }
}

/// An `AttrValue` as the attribute of `kind` that weir's op declares.
fn attr_from_proto(v: &AttrValueProto, kind: AttrKind) -> Result<AttrValue> {
    let utf8 = |b: &Bytes| {
        String::from_utf8(b.to_vec())
            .map_err(|_| Error::invalid_argument("A string attribute is not UTF-8"))
    };
    Ok(match (&v.value, kind) {
        (Some(Value::I(i)), _) => AttrValue::Int(*i),
        (Some(Value::F(f)), _) => AttrValue::Float(*f),
        (Some(Value::B(b)), _) => AttrValue::Bool(*b),
        (Some(Value::S(s)), _) => AttrValue::Str(utf8(s)?),
        (Some(Value::Type(t)), _) => AttrValue::Type(dtype_of(*t)?),
        (Some(Value::Shape(s)), _) => AttrValue::Shape(shape_of(s)),
        (Some(Value::Tensor(t)), _) => AttrValue::Tensor(tensor_from_proto(t)?),
        (Some(Value::List(l)), AttrKind::Ints) => AttrValue::Ints(l.i.clone()),
        (Some(Value::List(l)), AttrKind::Floats) => AttrValue::Floats(l.f.clone()),
        (Some(Value::List(l)), AttrKind::Strs) => {
            AttrValue::Strs(l.s.iter().map(utf8).collect::<Result<_>>()?)
        }
        (Some(Value::List(l)), AttrKind::Types) => AttrValue::Types(
            l.r#type
                .iter()
                .map(|&t| dtype_of(t))
                .collect::<Result<_>>()?,
        ),
        (Some(Value::List(l)), AttrKind::Shapes) => {
            AttrValue::Shapes(l.shape.iter().map(shape_of).collect())
        }
        (value, kind) => {
            return Err(Error::invalid_argument(format!(
                "An attribute of kind {kind:?} cannot be read from {value:?}"
            )))
        }
    })
}

impl<'a> ImportGraphDef<'a> {
    /// Imports `def` under the name scope `import`, TensorFlow's default.
    pub fn new(def: &'a GraphDef) -> ImportGraphDef<'a> {
        ImportGraphDef {
            def,
            name: "import".to_string(),
            exact: false,
            input_map: HashMap::new(),
        }
    }

    /// The prefix of the imported names (`name=`); `""` keeps the names as they are, otherwise
    /// the prefix is made unique in the graph first (`import_1`, ...).
    pub fn name(mut self, name: &str) -> ImportGraphDef<'a> {
        self.name = name.to_string();
        self.exact = false;
        self
    }

    /// The prefix of the imported names, used as given: for a caller that has made it unique
    /// already (`import_meta_graph` names its collections' items with the same prefix).
    pub fn exact_name(mut self, name: &str) -> ImportGraphDef<'a> {
        self.name = name.to_string();
        self.exact = true;
        self
    }

    /// Uses `tensor` wherever the imported graph reads the output named `name` (`node` or
    /// `node:index`, as in `input_map={"x:0": t}`).
    pub fn input_map(mut self, name: &str, tensor: impl Into<Output>) -> ImportGraphDef<'a> {
        self.input_map.insert(canonical(name), tensor.into());
        self
    }

    /// Adds the nodes to `graph`, inputs before consumers, and returns them in the GraphDef's
    /// order. Every op type must be registered (weir's are, once `weir_ops::register_all_ops`
    /// has run, which building any op or session does). A TensorFlow 1.x variable read
    /// (`Identity` of a `VariableV2`) becomes weir's `ReadVariableOp`. Attributes that weir's op
    /// does not declare (`_output_shapes`, `_class`) are dropped. Errors name the node.
    pub fn import(&self, graph: &Graph) -> Result<Vec<Operation>> {
        // TensorFlow 2's If and function calls become TensorFlow 1's Switch/Merge first.
        let lowered = super::lower_functions::lower_functional_ops(self.def)?;
        let unref = without_ref_ops(&lowered);
        let def: &GraphDef = &unref;
        let by_name: HashMap<&str, &NodeDef> =
            def.node.iter().map(|n| (n.name.as_str(), n)).collect();
        let order = self.order(def, &by_name)?;
        let prefix = match self.name.as_str() {
            "" => String::new(),
            p if self.exact => format!("{}/", p.trim_end_matches('/')),
            p => format!("{}/", graph.unique_name(p)),
        };
        let mut made: HashMap<&str, Operation> = HashMap::new();
        for &i in &order {
            let n = &def.node[i];
            let op = self
                .import_node(graph, n, &by_name, &made, &prefix)
                .map_err(|e| match e.node() {
                    Some(_) => e,
                    None => e.with_node(&n.name, &n.op),
                })?;
            made.insert(n.name.as_str(), op);
        }
        for n in &def.node {
            for input in n.input.iter().filter(|i| is_back_edge(n, i, &by_name)) {
                let (src, i) = split_input(input);
                graph
                    .set_loop_back_edge(&made[n.name.as_str()], &made[src].output(i)?)
                    .map_err(|e| e.with_node(&n.name, &n.op))?;
            }
        }
        // The GraphDef's own nodes (a lowered If stands for itself), in its order.
        Ok(self
            .def
            .node
            .iter()
            .map(|n| made[n.name.as_str()].clone())
            .collect())
    }

    /// The nodes' indices with every node after its inputs; InvalidArgument on a cycle or an
    /// input that names no node.
    fn order(&self, def: &GraphDef, by_name: &HashMap<&str, &NodeDef>) -> Result<Vec<usize>> {
        let index: HashMap<&str, usize> = def
            .node
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), i))
            .collect();
        if index.len() != def.node.len() {
            return Err(Error::invalid_argument(
                "The GraphDef has duplicate node names",
            ));
        }
        let mut order = Vec::with_capacity(def.node.len());
        let (mut done, mut visiting) = (HashSet::new(), HashSet::new());
        for start in 0..def.node.len() {
            // Depth-first with an explicit stack: deep graphs must not overflow the thread's.
            let mut stack = vec![(start, false)];
            while let Some((i, expanded)) = stack.pop() {
                if done.contains(&i) {
                    continue;
                }
                let n = &def.node[i];
                if expanded {
                    visiting.remove(&i);
                    done.insert(i);
                    order.push(i);
                    continue;
                }
                if !visiting.insert(i) {
                    return Err(Error::invalid_argument(format!(
                        "The GraphDef has a cycle through node '{}'",
                        n.name
                    )));
                }
                stack.push((i, true));
                for input in &n.input {
                    if is_back_edge(n, input, by_name) {
                        continue;
                    }
                    let src = input.strip_prefix('^').unwrap_or(input);
                    if !input.starts_with('^') && self.input_map.contains_key(&canonical(src)) {
                        continue;
                    }
                    let (src, _) = split_input(src);
                    let &j = index.get(src).ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "Node '{}': Unknown input node '{input}'",
                            n.name
                        ))
                    })?;
                    if !done.contains(&j) {
                        if visiting.contains(&j) {
                            return Err(Error::invalid_argument(format!(
                                "The GraphDef has a cycle through node '{}'",
                                by_name[src].name
                            )));
                        }
                        stack.push((j, false));
                    }
                }
            }
        }
        Ok(order)
    }

    fn import_node(
        &self,
        graph: &Graph,
        n: &NodeDef,
        by_name: &HashMap<&str, &NodeDef>,
        made: &HashMap<&str, Operation>,
        prefix: &str,
    ) -> Result<Operation> {
        let mut op_type = n.op.as_str();
        // TensorFlow's parsers with key inputs become weir's, with the keys as attributes.
        let weir_form = super::import_parsing::weir_form(n, by_name)?;
        let mut inputs = Vec::new();
        let mut controls = Vec::new();
        for (k, input) in n.input.iter().enumerate() {
            // A loop's back edge is added once its NextIteration exists (`set_back_edges`).
            if is_back_edge(n, input, by_name) {
                continue;
            }
            if let Some(c) = input.strip_prefix('^') {
                controls.push(made[c].clone());
                continue;
            }
            if weir_form.as_ref().is_some_and(|f| !f.keep.contains(&k)) {
                continue;
            }
            if let Some(t) = self.input_map.get(&canonical(input)) {
                inputs.push(t.clone());
                continue;
            }
            let (src, i) = split_input(input);
            inputs.push(made[src].output(i)?);
        }
        let mut attrs: Vec<(&str, &AttrValueProto)> = match &weir_form {
            Some(f) => {
                op_type = f.op;
                f.attrs.iter().map(|(k, v)| (k.as_str(), v)).collect()
            }
            None => n.attr.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        };
        // TensorFlow 1.x reads a variable through an Identity of its ref output; weir's
        // variables hand out a resource, read by ReadVariableOp.
        let var_dtype;
        if op_type == "Identity" && inputs.len() == 1 {
            let (src, _) = split_input(&n.input[0]);
            if let Some(v) = by_name.get(src).filter(|v| v.op == "VariableV2") {
                op_type = "ReadVariableOp";
                var_dtype = v.attr.get("dtype").cloned().ok_or_else(|| {
                    Error::invalid_argument(format!("Variable '{src}' has no dtype"))
                })?;
                attrs = vec![("dtype", &var_dtype)];
            }
        }
        let def = registry::op_def(op_type)?;
        let inputs = read_ref_inputs(graph, n, &def, inputs, by_name, prefix)?;
        let forwards_handle = super::REF_FORWARDING.contains(&op_type)
            && inputs.first().is_some_and(|i| i.dtype() == DType::Resource);
        let inputs_len = inputs.len();
        let mut b = graph
            .new_operation(op_type)
            .name(format!("{prefix}{}/", n.name))
            .inputs(inputs);
        for c in &controls {
            b = b.control_input(c);
        }
        let loop_merge = n.input.iter().any(|i| is_back_edge(n, i, by_name));
        for (k, v) in attrs {
            if loop_merge && k == "N" {
                b = b.attr("N", AttrValue::Int(inputs_len as i64));
                continue;
            }
            if let Some(a) = def.attrs.iter().find(|a| a.name == k) {
                // A variable forwarded by a TensorFlow 1 Ref* op is weir's resource handle.
                if k == "T" && forwards_handle {
                    b = b.attr(k, AttrValue::Type(DType::Resource));
                    continue;
                }
                let value = attr_from_proto(v, a.kind)
                    .map_err(|e| e.with_prefix(&format!("Attribute '{k}': ")))?;
                b = b.attr(k, value);
            }
        }
        b.build()
    }
}

/// `inputs` with each TensorFlow 1.x variable (a `VariableV2` ref output) that feeds an input
/// declared as a value, not a resource, replaced by a read of it: TensorFlow dereferences such
/// a ref where it is used (a `Saver`'s `SaveV2` takes its variables so), while weir's variables
/// hand out a resource that only a read turns into the value.
fn read_ref_inputs(
    graph: &Graph,
    n: &NodeDef,
    def: &OpDef,
    mut inputs: Vec<Output>,
    by_name: &HashMap<&str, &NodeDef>,
    prefix: &str,
) -> Result<Vec<Output>> {
    // Forwarding ops pass a variable on as it is (TensorFlow's Ref* forms).
    if super::REF_FORWARDING.contains(&def.name.as_str()) {
        return Ok(inputs);
    }
    let data: Vec<&String> = n.input.iter().filter(|i| !i.starts_with('^')).collect();
    if inputs.len() != data.len() {
        // A parser's key inputs became attributes, or a back edge is wired later.
        return Ok(inputs);
    }
    let type_attr = |name: &str| match n.attr.get(name).and_then(|a| a.value.as_ref()) {
        Some(Value::Type(t)) => DType::from_proto_number(*t),
        _ => None,
    };
    // The dtype each flat input is declared with, where the declaration fixes one.
    let mut declared: Vec<Option<DType>> = Vec::with_capacity(inputs.len());
    for arg in &def.inputs {
        match &arg.ty {
            ArgType::Fixed(d) => declared.push(Some(*d)),
            ArgType::Attr(t) => declared.push(type_attr(t)),
            ArgType::Repeated { count, ty } => {
                let k = match n.attr.get(*count).and_then(|a| a.value.as_ref()) {
                    Some(Value::I(k)) => usize::try_from(*k).unwrap_or(0),
                    _ => return Ok(inputs),
                };
                declared.extend(std::iter::repeat_n(type_attr(ty), k));
            }
            ArgType::RepeatedFixed { count, dtype } => {
                let k = match n.attr.get(*count).and_then(|a| a.value.as_ref()) {
                    Some(Value::I(k)) => usize::try_from(*k).unwrap_or(0),
                    _ => return Ok(inputs),
                };
                declared.extend(std::iter::repeat_n(Some(*dtype), k));
            }
            ArgType::List(attr) => match n.attr.get(*attr).and_then(|a| a.value.as_ref()) {
                Some(Value::List(l)) => {
                    declared.extend(l.r#type.iter().map(|&t| DType::from_proto_number(t)))
                }
                _ => return Ok(inputs),
            },
        }
    }
    if declared.len() != inputs.len() {
        return Ok(inputs);
    }
    for (k, input) in inputs.iter_mut().enumerate() {
        let src = split_input(data[k]).0;
        let Some(var) = by_name.get(src).filter(|v| v.op == "VariableV2") else {
            continue;
        };
        if input.dtype() != DType::Resource || matches!(declared[k], None | Some(DType::Resource)) {
            continue;
        }
        let dtype = var
            .attr
            .get("dtype")
            .map(|a| attr_from_proto(a, AttrKind::Type))
            .transpose()?
            .ok_or_else(|| Error::invalid_argument(format!("Variable '{src}' has no dtype")))?;
        *input = graph
            .new_operation("ReadVariableOp")
            .name(format!("{prefix}{}/read_{k}", n.name))
            .input(input.clone())
            .attr("dtype", dtype)
            .build()?
            .output(0)?;
    }
    Ok(inputs)
}

/// TensorFlow 1's forwarding ops of variable refs (`RefSwitch`, `RefEnter`, ...), which a cond
/// or loop over a `VariableV2` builds, renamed to the ops weir forwards its variable handles
/// with (`import_node` gives them the resource type); and TensorFlow 1.0's `Variable`, whose
/// signature `VariableV2` has, renamed to it so its reads and assigns import as `VariableV2`'s.
fn without_ref_ops(def: &GraphDef) -> std::borrow::Cow<'_, GraphDef> {
    let base = |op: &str| {
        if op == "Variable" {
            return Some("VariableV2".to_string());
        }
        op.strip_prefix("Ref")
            .filter(|b| super::REF_FORWARDING.contains(b))
            .map(str::to_string)
    };
    if !def.node.iter().any(|n| base(&n.op).is_some()) {
        return std::borrow::Cow::Borrowed(def);
    }
    let mut out = def.clone();
    for n in &mut out.node {
        if let Some(b) = base(&n.op) {
            n.op = b;
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `input` of `n` is a while loop's back edge: a `Merge` taking a `NextIteration`, the
/// one cycle TensorFlow's graphs may have.
fn is_back_edge(n: &NodeDef, input: &str, by_name: &HashMap<&str, &NodeDef>) -> bool {
    n.op == "Merge"
        && !input.starts_with('^')
        && by_name
            .get(split_input(input).0)
            .is_some_and(|src| src.op == "NextIteration")
}
