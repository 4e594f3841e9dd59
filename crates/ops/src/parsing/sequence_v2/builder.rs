//! The builder of `ParseSequenceExampleV2` with the arguments of `tf.raw_ops`
//! (`gen_parsing_ops.parse_sequence_example_v2`), and its outputs.

use bytes::Bytes;
use weir_graph::{DType, Error, Output, Result, Shape, Tensor};

use super::super::single_example::check_feature_types;
use super::signature::V2Layout;

/// A vector input of [`ParseSequenceExampleV2`] (keys, debug names, the missing-assumed-empty
/// flags): a tensor of the graph, or values the builder adds as a constant, as TensorFlow's
/// Python converts a list.
#[derive(Clone, Debug)]
pub enum VectorInput {
    /// A tensor already in the graph.
    Output(Output),
    /// Values to add as a constant.
    Value(Tensor),
}

impl From<Output> for VectorInput {
    fn from(o: Output) -> VectorInput {
        VectorInput::Output(o)
    }
}
impl From<&Output> for VectorInput {
    fn from(o: &Output) -> VectorInput {
        VectorInput::Output(o.clone())
    }
}
impl From<Tensor> for VectorInput {
    fn from(t: Tensor) -> VectorInput {
        VectorInput::Value(t)
    }
}
impl From<&[&str]> for VectorInput {
    fn from(v: &[&str]) -> VectorInput {
        VectorInput::Value(Tensor::from(
            v.iter()
                .map(|s| Bytes::copy_from_slice(s.as_bytes()))
                .collect::<Vec<_>>(),
        ))
    }
}
impl<const N: usize> From<[&str; N]> for VectorInput {
    fn from(v: [&str; N]) -> VectorInput {
        VectorInput::from(&v[..])
    }
}
impl From<Vec<&str>> for VectorInput {
    fn from(v: Vec<&str>) -> VectorInput {
        VectorInput::from(&v[..])
    }
}
impl From<&[bool]> for VectorInput {
    fn from(v: &[bool]) -> VectorInput {
        VectorInput::Value(Tensor::from(v.to_vec()))
    }
}
impl<const N: usize> From<[bool; N]> for VectorInput {
    fn from(v: [bool; N]) -> VectorInput {
        VectorInput::Value(Tensor::from(v.to_vec()))
    }
}
impl From<Vec<bool>> for VectorInput {
    fn from(v: Vec<bool>) -> VectorInput {
        VectorInput::Value(Tensor::from(v))
    }
}

impl VectorInput {
    fn output(self, g: &weir_graph::Graph) -> Result<Output> {
        match self {
            VectorInput::Output(o) => Ok(o),
            VectorInput::Value(t) => crate::array::constant(g, t),
        }
    }
}

/// `tf.raw_ops.ParseSequenceExampleV2`: parses a scalar or a vector of serialized
/// `tf.train.SequenceExample`s into context features (sparse, dense, ragged) and feature lists
/// (sparse, dense with their lengths, ragged), the op TensorFlow 2's
/// `tf.io.parse_sequence_example` builds. Unset keys are empty, unset missing-assumed-empty
/// flags all false; the `N*` attrs are the lengths of the type lists.
///
/// ```
/// use weir_graph::{DType, Graph, Shape, Tensor};
/// use weir_ops::parsing::ParseSequenceExampleV2;
/// let g = Graph::new();
/// let records = weir_ops::array::placeholder(&g, DType::String, Shape::new(vec![Some(4)]))?;
/// let length_default = weir_ops::array::constant(&g, Tensor::from(0i64))?;
/// let out = ParseSequenceExampleV2::new()
///     .context_dense_keys(["length"])
///     .context_dense_defaults(&[length_default])
///     .context_dense_shapes(&[Shape::scalar()])
///     .feature_list_ragged_keys(["tokens"])
///     .feature_list_ragged_value_types(&[DType::I64])
///     .feature_list_ragged_split_types(&[DType::I32])
///     .build(&records)?;
/// assert_eq!(out.context_dense_values[0].shape().to_string(), "[4]");
/// assert_eq!(out.feature_list_ragged_outer_splits[0].shape().to_string(), "[5]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ParseSequenceExampleV2 {
    debug_name: Option<VectorInput>,
    context_sparse_keys: Option<VectorInput>,
    context_dense_keys: Option<VectorInput>,
    context_ragged_keys: Option<VectorInput>,
    feature_list_sparse_keys: Option<VectorInput>,
    feature_list_dense_keys: Option<VectorInput>,
    feature_list_ragged_keys: Option<VectorInput>,
    feature_list_dense_missing_assumed_empty: Option<VectorInput>,
    context_dense_defaults: Vec<Output>,
    context_sparse_types: Vec<DType>,
    context_ragged_value_types: Vec<DType>,
    context_ragged_split_types: Vec<DType>,
    context_dense_shapes: Vec<Shape>,
    feature_list_dense_types: Vec<DType>,
    feature_list_sparse_types: Vec<DType>,
    feature_list_ragged_value_types: Vec<DType>,
    feature_list_ragged_split_types: Vec<DType>,
    feature_list_dense_shapes: Vec<Shape>,
    name: Option<String>,
}

/// The outputs of `ParseSequenceExampleV2`, by TensorFlow's output names.
#[derive(Clone, Debug)]
pub struct ParseSequenceExampleV2Outputs {
    /// `context_sparse_indices`.
    pub context_sparse_indices: Vec<Output>,
    /// `context_sparse_values`.
    pub context_sparse_values: Vec<Output>,
    /// `context_sparse_shapes`.
    pub context_sparse_shapes: Vec<Output>,
    /// `context_dense_values`.
    pub context_dense_values: Vec<Output>,
    /// `context_ragged_values`.
    pub context_ragged_values: Vec<Output>,
    /// `context_ragged_row_splits`.
    pub context_ragged_row_splits: Vec<Output>,
    /// `feature_list_sparse_indices`.
    pub feature_list_sparse_indices: Vec<Output>,
    /// `feature_list_sparse_values`.
    pub feature_list_sparse_values: Vec<Output>,
    /// `feature_list_sparse_shapes`.
    pub feature_list_sparse_shapes: Vec<Output>,
    /// `feature_list_dense_values`.
    pub feature_list_dense_values: Vec<Output>,
    /// `feature_list_dense_lengths`.
    pub feature_list_dense_lengths: Vec<Output>,
    /// `feature_list_ragged_values`.
    pub feature_list_ragged_values: Vec<Output>,
    /// `feature_list_ragged_outer_splits`.
    pub feature_list_ragged_outer_splits: Vec<Output>,
    /// `feature_list_ragged_inner_splits`.
    pub feature_list_ragged_inner_splits: Vec<Output>,
}

impl ParseSequenceExampleV2Outputs {
    /// Every output in the op's order.
    pub fn all(&self) -> Vec<Output> {
        [
            &self.context_sparse_indices,
            &self.context_sparse_values,
            &self.context_sparse_shapes,
            &self.context_dense_values,
            &self.context_ragged_values,
            &self.context_ragged_row_splits,
            &self.feature_list_sparse_indices,
            &self.feature_list_sparse_values,
            &self.feature_list_sparse_shapes,
            &self.feature_list_dense_values,
            &self.feature_list_dense_lengths,
            &self.feature_list_ragged_values,
            &self.feature_list_ragged_outer_splits,
            &self.feature_list_ragged_inner_splits,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect()
    }
}

/// Setters named after the op's arguments: vector inputs, or lists of attr values.
macro_rules! setters {
    (inputs: $($(#[$doc:meta])* $field:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $field(mut self, v: impl Into<VectorInput>) -> ParseSequenceExampleV2 {
                self.$field = Some(v.into());
                self
            }
        )*
    };
    (lists: $($(#[$doc:meta])* $field:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $field(mut self, v: &[$ty]) -> ParseSequenceExampleV2 {
                self.$field = v.to_vec();
                self
            }
        )*
    };
}

impl ParseSequenceExampleV2 {
    /// No features, no debug names.
    pub fn new() -> ParseSequenceExampleV2 {
        ParseSequenceExampleV2::default()
    }

    setters! { inputs:
        /// `debug_name`: a name per example (or none) for error messages.
        debug_name;
        /// `context_sparse_keys`: the context `VarLenFeature`s.
        context_sparse_keys;
        /// `context_dense_keys`: the context `FixedLenFeature`s.
        context_dense_keys;
        /// `context_ragged_keys`: the context `RaggedFeature`s.
        context_ragged_keys;
        /// `feature_list_sparse_keys`: the sequence `VarLenFeature`s.
        feature_list_sparse_keys;
        /// `feature_list_dense_keys`: the `FixedLenSequenceFeature`s.
        feature_list_dense_keys;
        /// `feature_list_ragged_keys`: the sequence `RaggedFeature`s.
        feature_list_ragged_keys;
        /// `feature_list_dense_missing_assumed_empty`: per dense feature list, whether a
        /// missing one is empty rather than an error.
        feature_list_dense_missing_assumed_empty;
    }

    setters! { lists:
        /// `context_dense_defaults`: per context dense key, its default (empty = required).
        context_dense_defaults: Output;
        /// `context_sparse_types`.
        context_sparse_types: DType;
        /// `context_ragged_value_types`.
        context_ragged_value_types: DType;
        /// `context_ragged_split_types`: int32 or int64 per context ragged key.
        context_ragged_split_types: DType;
        /// `context_dense_shapes`.
        context_dense_shapes: Shape;
        /// `feature_list_dense_types`.
        feature_list_dense_types: DType;
        /// `feature_list_sparse_types`.
        feature_list_sparse_types: DType;
        /// `feature_list_ragged_value_types`.
        feature_list_ragged_value_types: DType;
        /// `feature_list_ragged_split_types`: int32 or int64 per feature-list ragged key.
        feature_list_ragged_split_types: DType;
        /// `feature_list_dense_shapes`: the shape of each row.
        feature_list_dense_shapes: Shape;
    }

    /// The node's name (TensorFlow's default: `ParseSequenceExampleV2`).
    pub fn name(mut self, name: &str) -> ParseSequenceExampleV2 {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node parsing `serialized` (a scalar or a vector of strings).
    pub fn build(self, serialized: impl Into<Output>) -> Result<ParseSequenceExampleV2Outputs> {
        let serialized = serialized.into();
        let g = serialized.graph().clone();
        let tdense: Vec<DType> = self
            .context_dense_defaults
            .iter()
            .map(Output::dtype)
            .collect();
        check_feature_types("context_dense_defaults", &tdense)?;
        for (param, types) in [
            ("context_sparse_types", &self.context_sparse_types),
            (
                "context_ragged_value_types",
                &self.context_ragged_value_types,
            ),
            ("feature_list_dense_types", &self.feature_list_dense_types),
            ("feature_list_sparse_types", &self.feature_list_sparse_types),
            (
                "feature_list_ragged_value_types",
                &self.feature_list_ragged_value_types,
            ),
        ] {
            check_feature_types(param, types)?;
        }
        for (param, types) in [
            (
                "context_ragged_split_types",
                &self.context_ragged_split_types,
            ),
            (
                "feature_list_ragged_split_types",
                &self.feature_list_ragged_split_types,
            ),
        ] {
            if let Some(t) = types.iter().find(|t| !matches!(t, DType::I32 | DType::I64)) {
                return Err(Error::invalid_argument(format!(
                    "Value passed to parameter '{param}' has DataType {} not in list of allowed values: int32, int64",
                    t.python_name()
                )));
            }
        }
        let empty = || VectorInput::Value(Tensor::from(Vec::<Bytes>::new()));
        let keys = |k: Option<VectorInput>| k.unwrap_or_else(empty).output(&g);
        let missing = self
            .feature_list_dense_missing_assumed_empty
            .unwrap_or_else(|| vec![false; self.feature_list_dense_types.len()].into())
            .output(&g)?;
        let op = crate::new_op(&g, "ParseSequenceExampleV2")
            .maybe_name(self.name.as_deref())
            .input(&serialized)
            .input(keys(self.debug_name)?)
            .input(keys(self.context_sparse_keys)?)
            .input(keys(self.context_dense_keys)?)
            .input(keys(self.context_ragged_keys)?)
            .input(keys(self.feature_list_sparse_keys)?)
            .input(keys(self.feature_list_dense_keys)?)
            .input(keys(self.feature_list_ragged_keys)?)
            .input(missing)
            .inputs(self.context_dense_defaults.iter())
            .attr("Ncontext_sparse", self.context_sparse_types.len())
            .attr("Tcontext_dense", tdense)
            .attr("context_sparse_types", self.context_sparse_types.clone())
            .attr(
                "context_ragged_value_types",
                self.context_ragged_value_types.clone(),
            )
            .attr(
                "context_ragged_split_types",
                self.context_ragged_split_types,
            )
            .attr("context_dense_shapes", self.context_dense_shapes)
            .attr("Nfeature_list_sparse", self.feature_list_sparse_types.len())
            .attr("Nfeature_list_dense", self.feature_list_dense_types.len())
            .attr(
                "feature_list_dense_types",
                self.feature_list_dense_types.clone(),
            )
            .attr(
                "feature_list_sparse_types",
                self.feature_list_sparse_types.clone(),
            )
            .attr(
                "feature_list_ragged_value_types",
                self.feature_list_ragged_value_types.clone(),
            )
            .attr(
                "feature_list_ragged_split_types",
                self.feature_list_ragged_split_types,
            )
            .attr("feature_list_dense_shapes", self.feature_list_dense_shapes)
            .build()?;
        let (a, b, r) = (
            self.context_sparse_types.len(),
            self.context_dense_defaults.len(),
            self.context_ragged_value_types.len(),
        );
        let (c, d, q) = (
            self.feature_list_sparse_types.len(),
            self.feature_list_dense_types.len(),
            self.feature_list_ragged_value_types.len(),
        );
        let l = V2Layout::new(a, b, r, c, d, q);
        let outs = |from: usize, n: usize| -> Result<Vec<Output>> {
            (from..from + n).map(|i| op.output(i)).collect()
        };
        Ok(ParseSequenceExampleV2Outputs {
            context_sparse_indices: outs(0, a)?,
            context_sparse_values: outs(a, a)?,
            context_sparse_shapes: outs(2 * a, a)?,
            context_dense_values: outs(l.context_dense, b)?,
            context_ragged_values: outs(l.context_ragged_values, r)?,
            context_ragged_row_splits: outs(l.context_ragged_splits, r)?,
            feature_list_sparse_indices: outs(l.feature_list_sparse, c)?,
            feature_list_sparse_values: outs(l.feature_list_sparse + c, c)?,
            feature_list_sparse_shapes: outs(l.feature_list_sparse + 2 * c, c)?,
            feature_list_dense_values: outs(l.feature_list_dense, d)?,
            feature_list_dense_lengths: outs(l.feature_list_lengths, d)?,
            feature_list_ragged_values: outs(l.feature_list_ragged_values, q)?,
            feature_list_ragged_outer_splits: outs(l.feature_list_ragged_outer, q)?,
            feature_list_ragged_inner_splits: outs(l.feature_list_ragged_inner, q)?,
        })
    }
}
