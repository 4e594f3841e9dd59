//! The signature of `ParseSequenceExampleV2`: its OpDef (TensorFlow's, argument for argument),
//! the checks TensorFlow's `ParseSequenceExampleAttrs` makes of its attrs, where each group of
//! outputs starts, and the shape function.

use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, OpDef, Result, Shape,
};

use super::super::single_example::{attr, check_allowed_types};

/// A node's attrs: the dtypes and shapes of each feature group.
#[derive(Clone, Debug)]
pub(super) struct V2Attrs {
    pub(super) context_sparse_types: Vec<DType>,
    pub(super) context_dense_types: Vec<DType>,
    pub(super) context_dense_shapes: Vec<Shape>,
    pub(super) context_ragged_value_types: Vec<DType>,
    pub(super) context_ragged_split_types: Vec<DType>,
    pub(super) feature_list_sparse_types: Vec<DType>,
    pub(super) feature_list_dense_types: Vec<DType>,
    pub(super) feature_list_dense_shapes: Vec<Shape>,
    pub(super) feature_list_ragged_value_types: Vec<DType>,
    pub(super) feature_list_ragged_split_types: Vec<DType>,
}

fn count_error(what: &str, n: i64, lists: &[(&str, usize)]) -> Error {
    let sizes: Vec<String> = lists.iter().map(|(l, k)| format!("{l} ({k})")).collect();
    Error::invalid_argument(format!(
        "num_{what} ({n}) must match the size of {}",
        sizes.join(" and ")
    ))
}

impl V2Attrs {
    /// Reads and checks the attrs as TensorFlow's `ParseSequenceExampleAttrs` (version 2).
    pub(super) fn read(attrs: &weir_graph::Attrs) -> Result<V2Attrs> {
        let a = V2Attrs {
            context_sparse_types: attr(attrs, "context_sparse_types")?,
            context_dense_types: attr(attrs, "Tcontext_dense")?,
            context_dense_shapes: attr(attrs, "context_dense_shapes")?,
            context_ragged_value_types: attr(attrs, "context_ragged_value_types")?,
            context_ragged_split_types: attr(attrs, "context_ragged_split_types")?,
            feature_list_sparse_types: attr(attrs, "feature_list_sparse_types")?,
            feature_list_dense_types: attr(attrs, "feature_list_dense_types")?,
            feature_list_dense_shapes: attr(attrs, "feature_list_dense_shapes")?,
            feature_list_ragged_value_types: attr(attrs, "feature_list_ragged_value_types")?,
            feature_list_ragged_split_types: attr(attrs, "feature_list_ragged_split_types")?,
        };
        for (name, types) in [
            ("context_sparse_types", &a.context_sparse_types),
            ("Tcontext_dense", &a.context_dense_types),
            ("context_ragged_value_types", &a.context_ragged_value_types),
            ("feature_list_sparse_types", &a.feature_list_sparse_types),
            ("feature_list_dense_types", &a.feature_list_dense_types),
            (
                "feature_list_ragged_value_types",
                &a.feature_list_ragged_value_types,
            ),
        ] {
            check_allowed_types(name, types)?;
        }
        for (name, types) in [
            ("context_ragged_split_types", &a.context_ragged_split_types),
            (
                "feature_list_ragged_split_types",
                &a.feature_list_ragged_split_types,
            ),
        ] {
            if let Some(t) = types.iter().find(|t| !matches!(t, DType::I32 | DType::I64)) {
                return Err(Error::invalid_argument(format!(
                    "Value for attr '{name}' of {t} is not in the list of allowed values: int32, int64"
                )));
            }
        }
        let n_context_sparse: i64 = attr(attrs, "Ncontext_sparse")?;
        if usize::try_from(n_context_sparse).ok() != Some(a.context_sparse_types.len()) {
            let l = [("context_sparse_types", a.context_sparse_types.len())];
            return Err(count_error("context_sparse", n_context_sparse, &l));
        }
        let n_context_dense = a.context_dense_types.len();
        if n_context_dense != a.context_dense_shapes.len() {
            let l = [
                ("context_dense_types", n_context_dense),
                ("context_dense_shapes", a.context_dense_shapes.len()),
            ];
            return Err(count_error("context_dense", n_context_dense as i64, &l));
        }
        let n_fl_sparse: i64 = attr(attrs, "Nfeature_list_sparse")?;
        if usize::try_from(n_fl_sparse).ok() != Some(a.feature_list_sparse_types.len()) {
            let l = [(
                "feature_list_sparse_types",
                a.feature_list_sparse_types.len(),
            )];
            return Err(count_error("feature_list_sparse", n_fl_sparse, &l));
        }
        let n_fl_dense: i64 = attr(attrs, "Nfeature_list_dense")?;
        if usize::try_from(n_fl_dense).ok() != Some(a.feature_list_dense_types.len())
            || a.feature_list_dense_types.len() != a.feature_list_dense_shapes.len()
        {
            let l = [
                ("feature_list_dense_types", a.feature_list_dense_types.len()),
                (
                    "feature_list_dense_shapes",
                    a.feature_list_dense_shapes.len(),
                ),
            ];
            return Err(count_error("feature_list_dense", n_fl_dense, &l));
        }
        for (what, values, splits) in [
            (
                "context_ragged",
                &a.context_ragged_value_types,
                &a.context_ragged_split_types,
            ),
            (
                "feature_list_ragged",
                &a.feature_list_ragged_value_types,
                &a.feature_list_ragged_split_types,
            ),
        ] {
            if values.len() != splits.len() {
                let l = [
                    (format!("{what}_value_types"), values.len()),
                    (format!("{what}_split_types"), splits.len()),
                ];
                let l: Vec<(&str, usize)> = l.iter().map(|(s, n)| (s.as_str(), *n)).collect();
                return Err(count_error(what, values.len() as i64, &l));
            }
        }
        Ok(a)
    }
}

/// Where each group of outputs starts, in TensorFlow's order.
#[derive(Clone, Copy, Debug)]
pub(super) struct V2Layout {
    pub(super) context_dense: usize,
    pub(super) context_ragged_values: usize,
    pub(super) context_ragged_splits: usize,
    pub(super) feature_list_sparse: usize,
    pub(super) feature_list_dense: usize,
    pub(super) feature_list_lengths: usize,
    pub(super) feature_list_ragged_values: usize,
    pub(super) feature_list_ragged_outer: usize,
    pub(super) feature_list_ragged_inner: usize,
}

impl V2Layout {
    /// The layout of `a` context sparse, `b` dense and `r` ragged features, and `c` feature
    /// list sparse, `d` dense and `q` ragged ones.
    pub(super) fn new(a: usize, b: usize, r: usize, c: usize, d: usize, q: usize) -> V2Layout {
        let context_dense = 3 * a;
        let context_ragged_values = context_dense + b;
        let context_ragged_splits = context_ragged_values + r;
        let feature_list_sparse = context_ragged_splits + r;
        let feature_list_dense = feature_list_sparse + 3 * c;
        let feature_list_lengths = feature_list_dense + d;
        let feature_list_ragged_values = feature_list_lengths + d;
        let feature_list_ragged_outer = feature_list_ragged_values + q;
        V2Layout {
            context_dense,
            context_ragged_values,
            context_ragged_splits,
            feature_list_sparse,
            feature_list_dense,
            feature_list_lengths,
            feature_list_ragged_values,
            feature_list_ragged_outer,
            feature_list_ragged_inner: feature_list_ragged_outer + q,
        }
    }

    pub(super) fn of(a: &V2Attrs) -> V2Layout {
        V2Layout::new(
            a.context_sparse_types.len(),
            a.context_dense_types.len(),
            a.context_ragged_value_types.len(),
            a.feature_list_sparse_types.len(),
            a.feature_list_dense_types.len(),
            a.feature_list_ragged_value_types.len(),
        )
    }
}

/// Requires input `i` to have rank at most 1.
fn at_most_vector(ctx: &InferenceContext<'_>, i: usize) -> Result<()> {
    match ctx.input_shape(i).rank() {
        Some(r) if r > 1 => Err(Error::invalid_argument(format!(
            "Shape must be at most rank 1 but is rank {r}"
        ))),
        _ => Ok(()),
    }
}

/// TensorFlow's shape function: a vector `serialized` of `B` examples puts `B` in front of the
/// dense outputs and makes splits over the examples `[B + 1]`.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = V2Attrs::read(ctx.attrs())?;
    at_most_vector(ctx, 0)?;
    at_most_vector(ctx, 1)?;
    let input = ctx.input_shape(0).clone();
    let l = V2Layout::of(&a);
    let splits = match input.dims() {
        Some([n]) => Shape::new(vec![n.map(|n| n + 1)]),
        _ => Shape::new(vec![None]),
    };
    let vector = Shape::new(vec![None]);
    let sparse = |ctx: &mut InferenceContext<'_>, base: usize, n: usize, delta: usize| {
        let rank = input.rank().map(|r| r + delta);
        for i in 0..n {
            ctx.set_output(base + i, Shape::new(vec![None, rank]));
            ctx.set_output(base + n + i, Shape::new(vec![None]));
            ctx.set_output(base + 2 * n + i, Shape::new(vec![rank]));
        }
    };
    sparse(ctx, 0, a.context_sparse_types.len(), 1);
    for (i, s) in a.context_dense_shapes.iter().enumerate() {
        ctx.set_output(l.context_dense + i, input.concatenate(s));
    }
    for i in 0..a.context_ragged_value_types.len() {
        ctx.set_output(l.context_ragged_values + i, vector.clone());
        ctx.set_output(l.context_ragged_splits + i, splits.clone());
    }
    sparse(
        ctx,
        l.feature_list_sparse,
        a.feature_list_sparse_types.len(),
        2,
    );
    let rows = input.concatenate(&vector);
    for (i, s) in a.feature_list_dense_shapes.iter().enumerate() {
        ctx.set_output(l.feature_list_dense + i, rows.concatenate(s));
        ctx.set_output(l.feature_list_lengths + i, input.clone());
    }
    for i in 0..a.feature_list_ragged_value_types.len() {
        ctx.set_output(l.feature_list_ragged_values + i, vector.clone());
        ctx.set_output(l.feature_list_ragged_outer + i, splits.clone());
        ctx.set_output(l.feature_list_ragged_inner + i, vector.clone());
    }
    Ok(())
}

/// TensorFlow's OpDef of `ParseSequenceExampleV2`.
pub(super) fn op_def() -> OpDef {
    let strings = || ArgType::Fixed(DType::String);
    let i64s = |count| ArgType::RepeatedFixed {
        count,
        dtype: DType::I64,
    };
    let types = || Some(AttrValue::Types(Vec::new()));
    OpDef::new("ParseSequenceExampleV2")
        .input("serialized", strings())
        .input("debug_name", strings())
        .input("context_sparse_keys", strings())
        .input("context_dense_keys", strings())
        .input("context_ragged_keys", strings())
        .input("feature_list_sparse_keys", strings())
        .input("feature_list_dense_keys", strings())
        .input("feature_list_ragged_keys", strings())
        .input(
            "feature_list_dense_missing_assumed_empty",
            ArgType::Fixed(DType::Bool),
        )
        .input("context_dense_defaults", ArgType::List("Tcontext_dense"))
        .output("context_sparse_indices", i64s("Ncontext_sparse"))
        .output(
            "context_sparse_values",
            ArgType::List("context_sparse_types"),
        )
        .output("context_sparse_shapes", i64s("Ncontext_sparse"))
        .output("context_dense_values", ArgType::List("Tcontext_dense"))
        .output(
            "context_ragged_values",
            ArgType::List("context_ragged_value_types"),
        )
        .output(
            "context_ragged_row_splits",
            ArgType::List("context_ragged_split_types"),
        )
        .output("feature_list_sparse_indices", i64s("Nfeature_list_sparse"))
        .output(
            "feature_list_sparse_values",
            ArgType::List("feature_list_sparse_types"),
        )
        .output("feature_list_sparse_shapes", i64s("Nfeature_list_sparse"))
        .output(
            "feature_list_dense_values",
            ArgType::List("feature_list_dense_types"),
        )
        .output("feature_list_dense_lengths", i64s("Nfeature_list_dense"))
        .output(
            "feature_list_ragged_values",
            ArgType::List("feature_list_ragged_value_types"),
        )
        .output(
            "feature_list_ragged_outer_splits",
            ArgType::List("feature_list_ragged_split_types"),
        )
        .output(
            "feature_list_ragged_inner_splits",
            ArgType::List("feature_list_ragged_split_types"),
        )
        .attr("Ncontext_sparse", AttrKind::Int, Some(AttrValue::Int(0)))
        .attr("Tcontext_dense", AttrKind::Types, types())
        .attr("context_sparse_types", AttrKind::Types, types())
        .attr("context_ragged_value_types", AttrKind::Types, types())
        .attr("context_ragged_split_types", AttrKind::Types, types())
        .attr(
            "context_dense_shapes",
            AttrKind::Shapes,
            Some(AttrValue::Shapes(Vec::new())),
        )
        .attr(
            "Nfeature_list_sparse",
            AttrKind::Int,
            Some(AttrValue::Int(0)),
        )
        .attr(
            "Nfeature_list_dense",
            AttrKind::Int,
            Some(AttrValue::Int(0)),
        )
        .attr("feature_list_dense_types", AttrKind::Types, types())
        .attr("feature_list_sparse_types", AttrKind::Types, types())
        .attr("feature_list_ragged_value_types", AttrKind::Types, types())
        .attr("feature_list_ragged_split_types", AttrKind::Types, types())
        .attr(
            "feature_list_dense_shapes",
            AttrKind::Shapes,
            Some(AttrValue::Shapes(Vec::new())),
        )
        .shape_fn(shape_fn)
}
