//! Op signatures and static shape inference: TensorFlow's `OpDef` and `InferenceContext`.

use crate::attr::{get_attr, AttrValue, Attrs, FromAttr};
use crate::{DType, Error, Result, Shape, Tensor};

/// How an input or output argument gets its dtype and count.
#[derive(Clone, Debug)]
pub enum ArgType {
    /// One tensor of a fixed dtype.
    Fixed(DType),
    /// One tensor whose dtype is the type attr named here (`T`).
    Attr(&'static str),
    /// `count` tensors (an int attr) all of the type attr `ty`: `values: N * T`.
    Repeated {
        /// The int attr holding the count.
        count: &'static str,
        /// The type attr of every element.
        ty: &'static str,
    },
    /// `count` tensors of a fixed dtype: `N * int64`.
    RepeatedFixed {
        /// The int attr holding the count.
        count: &'static str,
        /// The dtype of every element.
        dtype: DType,
    },
    /// Tensors whose dtypes are the list(type) attr named here: `components: Tcomponents`.
    List(&'static str),
}

/// One input or output argument of an op.
#[derive(Clone, Debug)]
pub struct ArgDef {
    /// The argument's name in TensorFlow's OpDef.
    pub name: &'static str,
    /// Its dtype and count.
    pub ty: ArgType,
}

/// The kind of an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// `int`.
    Int,
    /// `list(int)`.
    Ints,
    /// `float`.
    Float,
    /// `list(float)`.
    Floats,
    /// `bool`.
    Bool,
    /// `string`.
    Str,
    /// `list(string)`.
    Strs,
    /// `type`.
    Type,
    /// `list(type)`.
    Types,
    /// `shape`.
    Shape,
    /// `list(shape)`.
    Shapes,
    /// `tensor`.
    Tensor,
}

impl AttrKind {
    fn matches(self, v: &AttrValue) -> bool {
        matches!(
            (self, v),
            (AttrKind::Int, AttrValue::Int(_))
                | (AttrKind::Ints, AttrValue::Ints(_))
                | (AttrKind::Float, AttrValue::Float(_))
                | (AttrKind::Floats, AttrValue::Floats(_))
                | (AttrKind::Bool, AttrValue::Bool(_))
                | (AttrKind::Str, AttrValue::Str(_))
                | (AttrKind::Strs, AttrValue::Strs(_))
                | (AttrKind::Type, AttrValue::Type(_))
                | (AttrKind::Types, AttrValue::Types(_))
                | (AttrKind::Shape, AttrValue::Shape(_))
                | (AttrKind::Shapes, AttrValue::Shapes(_))
                | (AttrKind::Tensor, AttrValue::Tensor(_))
        )
    }
}

/// One attribute of an op: its kind, default and constraints.
#[derive(Clone, Debug)]
pub struct AttrDef {
    /// The attribute's name.
    pub name: &'static str,
    /// Its kind.
    pub kind: AttrKind,
    /// The value used when a node does not set it; `None` makes it required.
    pub default: Option<AttrValue>,
    /// For type attrs: the dtypes allowed.
    pub allowed: Option<&'static [DType]>,
    /// For int attrs: the minimum value.
    pub min: Option<i64>,
}

/// Computes the static output shapes of a node from its inputs and attrs.
pub type ShapeFn = fn(&mut InferenceContext<'_>) -> Result<()>;

/// The signature of an op type: TensorFlow's `OpDef` with its registered shape function.
#[derive(Clone, Debug)]
pub struct OpDef {
    /// The op type name (`MatMul`, `QueueDequeueV2`).
    pub name: String,
    /// Input arguments, in order.
    pub inputs: Vec<ArgDef>,
    /// Output arguments, in order.
    pub outputs: Vec<ArgDef>,
    /// Attributes.
    pub attrs: Vec<AttrDef>,
    /// Whether the op has state or side effects (never deduplicated or constant-folded).
    pub is_stateful: bool,
    /// The shape function; without one every output shape is unknown.
    pub shape_fn: Option<ShapeFn>,
}

impl OpDef {
    /// An op type with no arguments or attributes yet.
    pub fn new(name: &str) -> OpDef {
        OpDef {
            name: name.to_string(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            attrs: Vec::new(),
            is_stateful: false,
            shape_fn: None,
        }
    }

    /// Adds an input argument.
    pub fn input(mut self, name: &'static str, ty: ArgType) -> OpDef {
        self.inputs.push(ArgDef { name, ty });
        self
    }

    /// Adds an output argument.
    pub fn output(mut self, name: &'static str, ty: ArgType) -> OpDef {
        self.outputs.push(ArgDef { name, ty });
        self
    }

    /// Adds a type attribute limited to `allowed` dtypes.
    pub fn type_attr(mut self, name: &'static str, allowed: &'static [DType]) -> OpDef {
        self.attrs.push(AttrDef {
            name,
            kind: AttrKind::Type,
            default: None,
            allowed: Some(allowed),
            min: None,
        });
        self
    }

    /// Adds an attribute of `kind` with an optional default.
    pub fn attr(mut self, name: &'static str, kind: AttrKind, default: Option<AttrValue>) -> OpDef {
        self.attrs.push(AttrDef {
            name,
            kind,
            default,
            allowed: None,
            min: None,
        });
        self
    }

    /// Adds an int attribute with a minimum value (`N: int >= 1`).
    pub fn int_attr_min(mut self, name: &'static str, min: i64) -> OpDef {
        self.attrs.push(AttrDef {
            name,
            kind: AttrKind::Int,
            default: None,
            allowed: None,
            min: Some(min),
        });
        self
    }

    /// Adds the `container` and `shared_name` string attrs (both empty by default) of an op
    /// that makes or reaches a session resource by name.
    pub fn resource_name_attrs(self) -> OpDef {
        let empty = || Some(AttrValue::Str(String::new()));
        self.attr("container", AttrKind::Str, empty())
            .attr("shared_name", AttrKind::Str, empty())
    }

    /// Marks the op stateful.
    pub fn stateful(mut self) -> OpDef {
        self.is_stateful = true;
        self
    }

    /// Sets the shape function.
    pub fn shape_fn(mut self, f: ShapeFn) -> OpDef {
        self.shape_fn = Some(f);
        self
    }

    fn attr_def(&self, name: &str) -> Option<&AttrDef> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// The output shapes of a node of this op with these inputs and attrs, by the op's shape
    /// function (all unknown when it has none). Graph building runs it once per node; a
    /// session runs it again when fed values make the input shapes more specific.
    pub fn infer_output_shapes(
        &self,
        input_dtypes: Vec<DType>,
        input_shapes: Vec<Shape>,
        input_consts: Vec<Option<Tensor>>,
        attrs: &Attrs,
        output_dtypes: &[DType],
    ) -> Result<Vec<Shape>> {
        self.infer_with_partial_shapes(
            input_dtypes,
            input_shapes,
            input_consts,
            Vec::new(),
            attrs,
            output_dtypes,
        )
    }

    /// [`infer_output_shapes`](Self::infer_output_shapes) with the partial shapes the inputs
    /// describe as shape tensors, as graph building knows them.
    pub(crate) fn infer_with_partial_shapes(
        &self,
        input_dtypes: Vec<DType>,
        input_shapes: Vec<Shape>,
        input_consts: Vec<Option<Tensor>>,
        input_partial_shapes: Vec<Option<Shape>>,
        attrs: &Attrs,
        output_dtypes: &[DType],
    ) -> Result<Vec<Shape>> {
        let Some(f) = self.shape_fn else {
            return Ok(vec![Shape::unknown(); output_dtypes.len()]);
        };
        let mut ctx = InferenceContext::new(
            &self.name,
            input_dtypes,
            input_shapes,
            input_consts,
            attrs,
            output_dtypes,
        );
        ctx.input_partial_shapes = input_partial_shapes;
        f(&mut ctx)?;
        Ok(ctx.into_output_shapes())
    }

    /// Checks `input_types` against the signature, infers type and count attrs that the node did
    /// not set, fills defaults, and returns the output dtypes.
    pub fn resolve(&self, input_types: &[DType], attrs: &mut Attrs) -> Result<Vec<DType>> {
        let mut pos = 0usize;
        let variadic = self
            .inputs
            .iter()
            .filter(|a| !matches!(a.ty, ArgType::Fixed(_) | ArgType::Attr(_)))
            .count();
        let fixed_count = self.inputs.len() - variadic;
        for arg in &self.inputs {
            let take = |n: usize, pos: usize| -> Result<&[DType]> {
                input_types.get(pos..pos + n).ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "Op {} expects more inputs than the {} given (argument '{}')",
                        self.name,
                        input_types.len(),
                        arg.name
                    ))
                })
            };
            // A lone variadic argument may take its count from the number of inputs.
            let infer_count = |attrs: &Attrs, count: &str| -> usize {
                match attrs.get(count) {
                    Some(AttrValue::Int(n)) => *n as usize,
                    _ if variadic == 1 => input_types.len().saturating_sub(fixed_count),
                    _ => 0,
                }
            };
            match &arg.ty {
                ArgType::Fixed(dt) => {
                    let got = take(1, pos)?[0];
                    if got != *dt {
                        return Err(self.type_error(arg.name, *dt, got));
                    }
                    pos += 1;
                }
                ArgType::Attr(t) => {
                    let got = take(1, pos)?[0];
                    self.bind_type(attrs, t, got, arg.name)?;
                    pos += 1;
                }
                ArgType::Repeated { count, ty } => {
                    let n = infer_count(attrs, count);
                    attrs.insert(count.to_string(), AttrValue::Int(n as i64));
                    for &got in take(n, pos)? {
                        self.bind_type(attrs, ty, got, arg.name)?;
                    }
                    pos += n;
                }
                ArgType::RepeatedFixed { count, dtype } => {
                    let n = infer_count(attrs, count);
                    attrs.insert(count.to_string(), AttrValue::Int(n as i64));
                    for &got in take(n, pos)? {
                        if got != *dtype {
                            return Err(self.type_error(arg.name, *dtype, got));
                        }
                    }
                    pos += n;
                }
                ArgType::List(tl) => {
                    let types: Vec<DType> = match attrs.get(*tl) {
                        Some(AttrValue::Types(ts)) => ts.clone(),
                        _ => {
                            let n = if variadic == 1 {
                                input_types.len().saturating_sub(fixed_count)
                            } else {
                                0
                            };
                            take(n, pos)?.to_vec()
                        }
                    };
                    let got = take(types.len(), pos)?;
                    for (want, &have) in types.iter().zip(got) {
                        if *want != have {
                            return Err(self.type_error(arg.name, *want, have));
                        }
                    }
                    pos += types.len();
                    attrs.insert(tl.to_string(), AttrValue::Types(types));
                }
            }
        }
        if pos != input_types.len() {
            return Err(Error::invalid_argument(format!(
                "Op {} takes {} inputs but {} were given",
                self.name,
                pos,
                input_types.len()
            )));
        }
        for def in &self.attrs {
            match attrs.get(def.name) {
                None => match &def.default {
                    Some(d) => {
                        attrs.insert(def.name.to_string(), d.clone());
                    }
                    None => {
                        return Err(Error::invalid_argument(format!(
                            "Op {} is missing its required attr '{}'",
                            self.name, def.name
                        )))
                    }
                },
                Some(v) => {
                    if !def.kind.matches(v) {
                        return Err(Error::invalid_argument(format!(
                            "Attr '{}' of op {} must be of kind {:?}, got {v:?}",
                            def.name, self.name, def.kind
                        )));
                    }
                    if let (Some(min), AttrValue::Int(n)) = (def.min, v) {
                        if *n < min {
                            return Err(Error::invalid_argument(format!(
                                "Attr '{}' of op {} must be >= {min}, got {n}",
                                def.name, self.name
                            )));
                        }
                    }
                }
            }
            if let (Some(allowed), Some(AttrValue::Type(t))) = (def.allowed, attrs.get(def.name)) {
                if !allowed.contains(t) {
                    let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
                    return Err(Error::invalid_argument(format!(
                        "Value for attr '{}' of {} is not in the list of allowed values: {}",
                        def.name,
                        t,
                        names.join(", ")
                    )));
                }
            }
        }
        let mut out = Vec::new();
        for arg in &self.outputs {
            match &arg.ty {
                ArgType::Fixed(dt) => out.push(*dt),
                ArgType::Attr(t) => out.push(get_attr::<DType>(attrs, t)?),
                ArgType::Repeated { count, ty } => {
                    let n = get_attr::<i64>(attrs, count)?;
                    let t = get_attr::<DType>(attrs, ty)?;
                    out.extend(std::iter::repeat_n(t, n.max(0) as usize));
                }
                ArgType::RepeatedFixed { count, dtype } => {
                    let n = get_attr::<i64>(attrs, count)?;
                    out.extend(std::iter::repeat_n(*dtype, n.max(0) as usize));
                }
                ArgType::List(tl) => out.extend(get_attr::<Vec<DType>>(attrs, tl)?),
            }
        }
        Ok(out)
    }

    fn bind_type(&self, attrs: &mut Attrs, attr: &str, got: DType, arg: &str) -> Result<()> {
        match attrs.get(attr) {
            Some(AttrValue::Type(want)) if *want != got => Err(self.type_error(arg, *want, got)),
            Some(AttrValue::Type(_)) => Ok(()),
            _ => {
                if let Some(allowed) = self.attr_def(attr).and_then(|d| d.allowed) {
                    if !allowed.contains(&got) {
                        let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
                        return Err(Error::invalid_argument(format!(
                            "Value passed to parameter '{arg}' has DataType {got} not in list of allowed values: {}",
                            names.join(", ")
                        )));
                    }
                }
                attrs.insert(attr.to_string(), AttrValue::Type(got));
                Ok(())
            }
        }
    }

    /// TensorFlow's Python words it, with Python's dtype names (`float32`, not `float`).
    fn type_error(&self, arg: &str, want: DType, got: DType) -> Error {
        Error::invalid_argument(format!(
            "Input '{arg}' of '{}' Op has type {} that does not match expected type of {}.",
            self.name,
            got.python_name(),
            want.python_name()
        ))
    }
}

/// What a shape function sees of a node being added: TensorFlow's `InferenceContext`.
pub struct InferenceContext<'a> {
    /// The op type.
    pub op_type: &'a str,
    input_dtypes: Vec<DType>,
    input_shapes: Vec<Shape>,
    input_consts: Vec<Option<Tensor>>,
    /// The shapes shape-tensor inputs describe in part (empty when not computed).
    input_partial_shapes: Vec<Option<Shape>>,
    attrs: &'a Attrs,
    output_dtypes: &'a [DType],
    output_shapes: Vec<Shape>,
}

impl<'a> InferenceContext<'a> {
    /// A context over the given inputs; every output shape starts unknown.
    pub fn new(
        op_type: &'a str,
        input_dtypes: Vec<DType>,
        input_shapes: Vec<Shape>,
        input_consts: Vec<Option<Tensor>>,
        attrs: &'a Attrs,
        output_dtypes: &'a [DType],
    ) -> InferenceContext<'a> {
        InferenceContext {
            op_type,
            input_dtypes,
            input_shapes,
            input_consts,
            input_partial_shapes: Vec::new(),
            attrs,
            output_dtypes,
            output_shapes: vec![Shape::unknown(); output_dtypes.len()],
        }
    }

    /// The shape input `i` describes as a shape tensor when parts of it are known at build
    /// time (TensorFlow's `MakeShapeFromShapeTensor`): a constant, `tf.shape(x)`, a stack of
    /// scalars some of which are constants, a concat of such vectors. `None` when nothing is.
    pub fn input_partial_shape(&self, i: usize) -> Option<&Shape> {
        self.input_partial_shapes.get(i).and_then(Option::as_ref)
    }

    /// The number of inputs.
    pub fn num_inputs(&self) -> usize {
        self.input_shapes.len()
    }

    /// The number of outputs.
    pub fn num_outputs(&self) -> usize {
        self.output_dtypes.len()
    }

    /// The static shape of input `i`.
    pub fn input_shape(&self, i: usize) -> &Shape {
        &self.input_shapes[i]
    }

    /// The dtype of input `i`.
    pub fn input_dtype(&self, i: usize) -> DType {
        self.input_dtypes[i]
    }

    /// The dtype of output `i`.
    pub fn output_dtype(&self, i: usize) -> DType {
        self.output_dtypes[i]
    }

    /// The value of input `i` when it is a constant known at build time (TensorFlow's
    /// `input_tensor`), used e.g. by Reshape to know its target shape.
    pub fn input_const(&self, i: usize) -> Option<&Tensor> {
        self.input_consts.get(i).and_then(Option::as_ref)
    }

    /// Attribute `name` as `T`.
    pub fn attr<T: FromAttr>(&self, name: &str) -> Result<T> {
        get_attr(self.attrs, name)
    }

    /// All attributes.
    pub fn attrs(&self) -> &Attrs {
        self.attrs
    }

    /// Sets the static shape of output `i`.
    pub fn set_output(&mut self, i: usize, shape: Shape) {
        self.output_shapes[i] = shape;
    }

    /// Requires input `i` to have `rank` (when its rank is known).
    pub fn with_rank(&self, i: usize, rank: usize) -> Result<Shape> {
        let s = &self.input_shapes[i];
        match s.rank() {
            Some(r) if r != rank => Err(Error::invalid_argument(format!(
                "Shape must be rank {rank} but is rank {r} for '{}' (input {i} has shape {s})",
                self.op_type
            ))),
            Some(_) => Ok(s.clone()),
            None => Ok(Shape::unknown_of_rank(rank)),
        }
    }

    /// The inferred output shapes.
    pub fn into_output_shapes(self) -> Vec<Shape> {
        self.output_shapes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add_def() -> OpDef {
        OpDef::new("Add")
            .input("x", ArgType::Attr("T"))
            .input("y", ArgType::Attr("T"))
            .output("z", ArgType::Attr("T"))
            .type_attr("T", DType::REAL_NUMBER)
    }

    #[test]
    fn infers_type_attr_and_checks_consistency() {
        let mut attrs = Attrs::new();
        let out = add_def()
            .resolve(&[DType::F32, DType::F32], &mut attrs)
            .unwrap();
        assert_eq!(out, vec![DType::F32]);
        assert_eq!(attrs["T"], AttrValue::Type(DType::F32));
        let e = add_def()
            .resolve(&[DType::F32, DType::I32], &mut Attrs::new())
            .unwrap_err();
        assert!(e.message().contains("does not match expected type"), "{e}");
        let e = add_def()
            .resolve(&[DType::Bool, DType::Bool], &mut Attrs::new())
            .unwrap_err();
        assert!(e.message().contains("not in list of allowed values"), "{e}");
        let e = add_def()
            .resolve(&[DType::F32], &mut Attrs::new())
            .unwrap_err();
        assert!(e.is_invalid_argument());
    }

    #[test]
    fn variadic_counts_and_lists() {
        let def = OpDef::new("Pack")
            .input(
                "values",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .int_attr_min("N", 1);
        let mut attrs = Attrs::new();
        def.resolve(&[DType::I64; 3], &mut attrs).unwrap();
        assert_eq!(attrs["N"], AttrValue::Int(3));
        assert!(def.resolve(&[], &mut Attrs::new()).is_err());

        let def = OpDef::new("Enq")
            .input("handle", ArgType::Fixed(DType::Resource))
            .input("components", ArgType::List("Tcomponents"))
            .attr("Tcomponents", AttrKind::Types, None);
        let mut attrs = Attrs::new();
        def.resolve(&[DType::Resource, DType::I32, DType::String], &mut attrs)
            .unwrap();
        assert_eq!(
            attrs["Tcomponents"],
            AttrValue::Types(vec![DType::I32, DType::String])
        );
    }

    #[test]
    fn defaults_fill_and_required_attrs_are_checked() {
        let def = OpDef::new("P")
            .output("o", ArgType::Attr("dtype"))
            .attr("dtype", AttrKind::Type, None)
            .attr(
                "shape",
                AttrKind::Shape,
                Some(AttrValue::Shape(Shape::unknown())),
            );
        assert!(def.resolve(&[], &mut Attrs::new()).is_err());
        let mut attrs = Attrs::new();
        attrs.insert("dtype".into(), AttrValue::Type(DType::F32));
        assert_eq!(def.resolve(&[], &mut attrs).unwrap(), vec![DType::F32]);
        assert!(attrs.contains_key("shape"));
    }
}
