//! `ParseSingleExample`: the op TensorFlow 1.8 to 1.15's `tf.parse_single_example` wrote (so
//! TF1 GraphDefs and frozen graphs hold it), parsing one scalar serialized `tf.train.Example`
//! with its keys as attrs. The parsing is weir's `FastParseSingleExample`, shared with
//! `ParseExample`; the op checks its defaults and attrs with TensorFlow's messages.

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, FromAttr, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::example::{could_not_parse, parse_single_with, ExampleConfig};
use super::example_ops::dense_specs;
use super::features::FEATURE_TYPES;

/// `tf.raw_ops.ParseSingleExample(serialized, dense_defaults, num_sparse, sparse_keys,
/// dense_keys, sparse_types, dense_shapes)`: TensorFlow 1.x's `tf.parse_single_example` op.
/// `num_sparse` is the number of `sparse_keys`; a `dense_shapes` entry with an unknown first
/// dimension is a variable-length (`FixedLenSequenceFeature`) feature, whose default is its one
/// padding value.
///
/// ```
/// use weir_graph::{DType, Graph, Shape, Tensor};
/// use weir_ops::parsing::parse_single_example_v1;
/// let g = Graph::new();
/// let record = weir_ops::array::placeholder(&g, DType::String, Shape::scalar())?;
/// let label_default = weir_ops::array::constant(&g, Tensor::from(-1i64))?;
/// let out = parse_single_example_v1(
///     &record,
///     &[label_default],
///     &["tags"],
///     &["label"],
///     &[DType::String],
///     &[Shape::scalar()],
/// )?;
/// assert_eq!(out.dense_values[0].shape().to_string(), "[]");
/// assert_eq!(out.sparse_indices[0].shape().to_string(), "[?,1]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn parse_single_example_v1(
    serialized: impl Into<Output>,
    dense_defaults: &[Output],
    sparse_keys: &[&str],
    dense_keys: &[&str],
    sparse_types: &[DType],
    dense_shapes: &[Shape],
) -> Result<ParseSingleExampleOutputs> {
    ParseSingleExampleV1::new()
        .sparse_keys(sparse_keys)
        .dense_keys(dense_keys)
        .sparse_types(sparse_types)
        .dense_shapes(dense_shapes)
        .build(serialized, dense_defaults)
}

/// The attrs of a `ParseSingleExample` node ([`parse_single_example_v1`]), and its name.
#[derive(Clone, Debug, Default)]
pub struct ParseSingleExampleV1 {
    sparse_keys: Vec<String>,
    dense_keys: Vec<String>,
    sparse_types: Vec<DType>,
    dense_shapes: Vec<Shape>,
    name: Option<String>,
}

/// The outputs of `ParseSingleExample`, in TensorFlow's groups: per sparse key its int64
/// `[N, 1]` indices, `[N]` values and `[1]` dense shape, and per dense key its values.
#[derive(Clone, Debug)]
pub struct ParseSingleExampleOutputs {
    /// `sparse_indices`.
    pub sparse_indices: Vec<Output>,
    /// `sparse_values`.
    pub sparse_values: Vec<Output>,
    /// `sparse_shapes`.
    pub sparse_shapes: Vec<Output>,
    /// `dense_values`.
    pub dense_values: Vec<Output>,
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// TensorFlow's Python check of a list of dtypes against the op's allowed ones.
pub(super) fn check_feature_types(param: &str, types: &[DType]) -> Result<()> {
    match types.iter().find(|t| !FEATURE_TYPES.contains(t)) {
        Some(t) => Err(Error::invalid_argument(format!(
            "Value passed to parameter '{param}' has DataType {} not in list of allowed values: float32, int64, string",
            t.python_name()
        ))),
        None => Ok(()),
    }
}

impl ParseSingleExampleV1 {
    /// No features.
    pub fn new() -> ParseSingleExampleV1 {
        ParseSingleExampleV1::default()
    }

    /// `sparse_keys`: the keys of the variable-length features (`num_sparse` is their number).
    pub fn sparse_keys(mut self, keys: &[&str]) -> ParseSingleExampleV1 {
        self.sparse_keys = strings(keys);
        self
    }

    /// `dense_keys`: the keys of the dense features, one per dense default.
    pub fn dense_keys(mut self, keys: &[&str]) -> ParseSingleExampleV1 {
        self.dense_keys = strings(keys);
        self
    }

    /// `sparse_types`: the dtype of each sparse feature.
    pub fn sparse_types(mut self, types: &[DType]) -> ParseSingleExampleV1 {
        self.sparse_types = types.to_vec();
        self
    }

    /// `dense_shapes`: the shape of each dense feature.
    pub fn dense_shapes(mut self, shapes: &[Shape]) -> ParseSingleExampleV1 {
        self.dense_shapes = shapes.to_vec();
        self
    }

    /// The node's name (TensorFlow's default: `ParseSingleExample`).
    pub fn name(mut self, name: &str) -> ParseSingleExampleV1 {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node: `serialized` (a scalar string) parsed with `dense_defaults` (one per
    /// dense key; empty = required; their dtypes are `Tdense`).
    pub fn build(
        self,
        serialized: impl Into<Output>,
        dense_defaults: &[Output],
    ) -> Result<ParseSingleExampleOutputs> {
        let serialized = serialized.into();
        let tdense: Vec<DType> = dense_defaults.iter().map(Output::dtype).collect();
        check_feature_types("dense_defaults", &tdense)?;
        check_feature_types("sparse_types", &self.sparse_types)?;
        let op = crate::new_op(serialized.graph(), "ParseSingleExample")
            .maybe_name(self.name.as_deref())
            .input(&serialized)
            .inputs(dense_defaults.iter())
            .attr("num_sparse", self.sparse_keys.len())
            .attr("sparse_keys", self.sparse_keys.clone())
            .attr("dense_keys", self.dense_keys)
            .attr("sparse_types", self.sparse_types)
            .attr("Tdense", tdense)
            .attr("dense_shapes", self.dense_shapes)
            .build()?;
        let ns = self.sparse_keys.len();
        let outs = |from: usize, n: usize| -> Result<Vec<Output>> {
            (from..from + n).map(|i| op.output(i)).collect()
        };
        Ok(ParseSingleExampleOutputs {
            sparse_indices: outs(0, ns)?,
            sparse_values: outs(ns, ns)?,
            sparse_shapes: outs(2 * ns, ns)?,
            dense_values: outs(3 * ns, dense_defaults.len())?,
        })
    }
}

/// A node's attrs, checked as TensorFlow's `ParseSingleExampleAttrs` checks them.
struct Attrs {
    sparse_keys: Vec<String>,
    sparse_types: Vec<DType>,
    dense_keys: Vec<String>,
    tdense: Vec<DType>,
    dense_shapes: Vec<Shape>,
}

/// Attr `name` of `attrs` as `T`.
pub(super) fn attr<T: FromAttr>(attrs: &weir_graph::Attrs, name: &str) -> Result<T> {
    let v = attrs
        .get(name)
        .ok_or_else(|| Error::invalid_argument(format!("No attr named '{name}'")))?;
    T::from_attr(v)
        .ok_or_else(|| Error::invalid_argument(format!("Attr '{name}' has the wrong kind")))
}

/// The check of a `list(type)` attr TensorFlow's OpDef restricts to the feature types.
pub(super) fn check_allowed_types(attr: &str, types: &[DType]) -> Result<()> {
    match types.iter().find(|t| !FEATURE_TYPES.contains(t)) {
        Some(t) => Err(Error::invalid_argument(format!(
            "Value for attr '{attr}' of {t} is not in the list of allowed values: float, int64, string"
        ))),
        None => Ok(()),
    }
}

impl Attrs {
    fn read(attrs: &weir_graph::Attrs) -> Result<Attrs> {
        let a = Attrs {
            sparse_keys: attr(attrs, "sparse_keys")?,
            sparse_types: attr(attrs, "sparse_types")?,
            dense_keys: attr(attrs, "dense_keys")?,
            tdense: attr(attrs, "Tdense")?,
            dense_shapes: attr(attrs, "dense_shapes")?,
        };
        check_allowed_types("sparse_types", &a.sparse_types)?;
        check_allowed_types("Tdense", &a.tdense)?;
        let num_sparse: i64 = attr(attrs, "num_sparse")?;
        if usize::try_from(num_sparse).ok() != Some(a.sparse_keys.len())
            || a.sparse_keys.len() != a.sparse_types.len()
        {
            return Err(Error::invalid_argument(format!(
                "num_sparse ({num_sparse}) must match the size of sparse_keys ({}) and sparse_types ({})",
                a.sparse_keys.len(),
                a.sparse_types.len()
            )));
        }
        for (i, s) in a.dense_shapes.iter().enumerate() {
            let inner_known = s
                .dims()
                .is_some_and(|d| d.iter().skip(1).all(Option::is_some));
            if !inner_known {
                return Err(Error::invalid_argument(format!(
                    "dense_shapes[{i}] has unknown rank or unknown inner dimensions: {s}"
                )));
            }
        }
        if a.dense_keys.len() != a.tdense.len() {
            return Err(Error::invalid_argument(
                "len(dense_keys) != len(dense_types)",
            ));
        }
        if a.dense_keys.len() != a.dense_shapes.len() {
            return Err(Error::invalid_argument(
                "len(dense_keys) != len(dense_shapes)",
            ));
        }
        Ok(a)
    }

    /// Whether dense feature `d` has a variable-length (unknown) first dimension.
    fn variable_length(&self, d: usize) -> bool {
        self.dense_shapes[d]
            .dims()
            .is_some_and(|dims| dims.first().is_some_and(Option::is_none))
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let attrs = Attrs::read(ctx.attrs())?;
    ctx.with_rank(0, 0)?;
    let ns = attrs.sparse_keys.len();
    for i in 0..ns {
        ctx.set_output(i, Shape::new(vec![None, Some(1)]));
        ctx.set_output(ns + i, Shape::new(vec![None]));
        ctx.set_output(2 * ns + i, Shape::known(&[1]));
    }
    for (d, s) in attrs.dense_shapes.iter().enumerate() {
        ctx.set_output(3 * ns + d, s.clone());
    }
    Ok(())
}

struct ParseSingleExampleKernel {
    attrs: Attrs,
    cfg: ExampleConfig,
}

impl ParseSingleExampleKernel {
    /// TensorFlow's checks of the dense defaults against the attrs.
    fn check_defaults(&self, defaults: &[Tensor]) -> Result<()> {
        let a = &self.attrs;
        if defaults.len() != a.dense_keys.len() {
            return Err(Error::invalid_argument(format!(
                "Expected len(dense_defaults) == len(dense_keys) but got: {} vs. {}",
                defaults.len(),
                a.dense_keys.len()
            )));
        }
        for (d, t) in defaults.iter().enumerate() {
            let shape = &a.dense_shapes[d];
            if self.attrs.variable_length(d) {
                if t.num_elements() != 1 {
                    return Err(Error::invalid_argument(format!(
                        "dense_shape[{d}] is a variable length shape: {shape}, therefore def_value[{d}] must contain a single element (the padding element).  But its shape is: {}",
                        format_dims(t.shape())
                    )));
                }
            } else if t.num_elements() > 0 && !shape.is_compatible_with_dims(t.shape()) {
                return Err(Error::invalid_argument(format!(
                    "def_value[{d}].shape() == {} is not compatible with dense_shapes_[{d}] == {shape}",
                    format_dims(t.shape())
                )));
            }
            if t.dtype() != a.tdense[d] {
                return Err(Error::invalid_argument(format!(
                    "dense_defaults[{d}].dtype() == {} != dense_types_[{d}] == {}",
                    t.dtype(),
                    a.tdense[d]
                )));
            }
        }
        Ok(())
    }
}

impl Kernel for ParseSingleExampleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ser = ctx.input(0);
        if ser.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "Expected serialized to be a scalar, got shape: {}",
                format_dims(ser.shape())
            )));
        }
        let ser = ser.as_slice::<Bytes>()?[0].clone();
        let defaults = &ctx.inputs()[1..];
        self.check_defaults(defaults)?;
        let out = parse_single_with(&self.cfg, defaults, &[], &ser).map_err(|e| {
            // weir's parser escapes the bytes it could not parse; this op prints them as they
            // are.
            if e.message() == could_not_parse(&ser).message() {
                Error::invalid_argument(format!(
                    "Could not parse example input, value: '{}'",
                    String::from_utf8_lossy(&ser)
                ))
            } else {
                e
            }
        })?;
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

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let attrs = Attrs::read(node.attrs())?;
    let dense = dense_specs(attrs.dense_keys.clone(), &attrs.tdense, &attrs.dense_shapes)?;
    let sparse: Vec<(String, DType)> = attrs
        .sparse_keys
        .iter()
        .cloned()
        .zip(attrs.sparse_types.iter().copied())
        .collect();
    let mut keys: Vec<&str> = attrs
        .dense_keys
        .iter()
        .chain(&attrs.sparse_keys)
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let cfg = if keys.windows(2).any(|w| w[0] == w[1]) {
        // TensorFlow cannot index a config that names a key twice, and goes on with an empty
        // index: every feature is then missing.
        let mut cfg = ExampleConfig::new(Vec::new(), Vec::new())?;
        cfg.dense = dense;
        cfg.sparse = sparse;
        cfg
    } else {
        ExampleConfig::new(dense, sparse)?
    };
    Ok(Box::new(ParseSingleExampleKernel { attrs, cfg }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("ParseSingleExample")
            .input("serialized", ArgType::Fixed(DType::String))
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
            .int_attr_min("num_sparse", 0)
            .attr("sparse_keys", AttrKind::Strs, None)
            .attr("dense_keys", AttrKind::Strs, None)
            .attr("sparse_types", AttrKind::Types, None)
            .attr("Tdense", AttrKind::Types, None)
            .attr("dense_shapes", AttrKind::Shapes, None)
            .shape_fn(shape_fn),
    );
    register_kernel("ParseSingleExample", make);
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_graph::AttrValue;

    fn attrs(num_sparse: i64, sparse: &[&str], types: &[DType], shapes: &[Shape]) -> Result<Attrs> {
        let mut a = weir_graph::Attrs::new();
        a.insert("num_sparse".into(), AttrValue::Int(num_sparse));
        a.insert("sparse_keys".into(), AttrValue::Strs(strings(sparse)));
        a.insert("sparse_types".into(), AttrValue::Types(types.to_vec()));
        let keys: Vec<String> = (0..shapes.len()).map(|i| format!("d{i}")).collect();
        a.insert("dense_keys".into(), AttrValue::Strs(keys));
        a.insert(
            "Tdense".into(),
            AttrValue::Types(vec![DType::I64; shapes.len()]),
        );
        a.insert("dense_shapes".into(), AttrValue::Shapes(shapes.to_vec()));
        Attrs::read(&a)
    }

    #[test]
    fn attrs_are_checked_with_tensorflows_messages() {
        let vector = Shape::new(vec![None]);
        let a = attrs(1, &["s"], &[DType::F32], &[Shape::known(&[2]), vector]).unwrap();
        assert!(!a.variable_length(0) && a.variable_length(1));
        let e = attrs(2, &["s"], &[DType::F32], &[]).err().unwrap();
        assert_eq!(
            e.message(),
            "num_sparse (2) must match the size of sparse_keys (1) and sparse_types (1)"
        );
        let e = attrs(0, &[], &[], &[Shape::new(vec![Some(2), None])])
            .err()
            .unwrap();
        assert_eq!(
            e.message(),
            "dense_shapes[0] has unknown rank or unknown inner dimensions: [2,?]"
        );
        let e = attrs(1, &["s"], &[DType::I32], &[]).err().unwrap();
        assert_eq!(
            e.message(),
            "Value for attr 'sparse_types' of int32 is not in the list of allowed values: float, int64, string"
        );
    }
}
