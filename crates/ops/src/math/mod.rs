//! Math ops (TensorFlow's `math_ops`): elementwise arithmetic, comparisons and logic with numpy
//! broadcasting, unary functions, casts, `where`, reductions, scans, matrix products, `add_n`
//! and `range`.
//!
//! Kernels dispatch on the dtype once per call and then run tight loops over contiguous slices;
//! broadcasting never materializes the smaller operand, and elementwise kernels write into an
//! input's buffer when the session hands them the only reference to it.

mod argmax;
mod arith_ext;
mod bcast;
mod binary;
mod binary_complex;
mod binary_more;
pub(crate) mod cast;
mod clip;
mod clip_by_value_op;
mod compare;
mod confusion_matrix;
mod cumulative_logsumexp;
pub(crate) mod eigen_exp;
mod euclidean_norm;
mod incomplete;
mod matmul;
mod matmul_narrow;
mod matmul_sparse;
mod matmul_wide;
mod misc;
mod reduce;
mod reduce_eigen;
mod reduce_engine;
mod scan;
mod segment;
mod segment_composites;
mod select;
mod sparse_count;
mod sparse_matmul;
pub(crate) mod sparse_segment;
mod sparse_segment_builder;
mod special;
mod tensordot;
mod unary;
mod unary_more;
pub(crate) mod unsorted_segment;

pub use argmax::{arg_max, arg_max_typed, arg_min, arg_min_typed};
pub use bcast::broadcast_shapes;
pub(crate) use bcast::{broadcast_shape_fn, broadcast_update, unary_map, unary_update};
pub(crate) use binary::accumulate;
pub(crate) use binary::Arith;
pub use binary::{
    add, div, div_no_nan, divide, floordiv, floormod, maximum, minimum, mul, pow, realdiv,
    squared_difference, sub, truediv, truncatediv, truncatemod,
};
pub use binary_more::{
    approximate_equal, atan2, c_mod, mul_no_nan, nextafter, xdivy, xlog1py, xlogy,
    ApproximateEqual, APPROXIMATE_EQUAL_TOLERANCE,
};
pub use cast::cast;
pub use clip::{clip_by_average_norm, clip_by_global_norm, clip_by_norm, global_norm};
pub use clip_by_value_op::clip_by_value_op;
pub use compare::{
    equal, greater, greater_equal, less, less_equal, logical_and, logical_not, logical_or,
    not_equal,
};
pub use confusion_matrix::{confusion_matrix, ConfusionMatrix};
pub(crate) use incomplete::lgamma_f64;
pub use incomplete::{betainc, igamma, igamma_grad_a, igammac};
pub use matmul::{matmul, MatMul};
pub use misc::{add_n, clip_by_value, range, range_from, Operand};
pub use reduce::{
    reduce_all, reduce_any, reduce_euclidean_norm, reduce_max, reduce_mean, reduce_min,
    reduce_prod, reduce_sum, Axes, Reduce,
};
pub(crate) use reduce_eigen::{
    lane_sum_bf16, lane_sum_complex, lane_sum_f16, lane_sum_f32, lane_sum_f64,
};
pub use scan::{cumprod, cumsum, cumulative_logsumexp, Scan};
pub use segment::{
    segment_max, segment_mean, segment_min, segment_prod, segment_sum, unsorted_segment_sum,
};
pub use segment_composites::{unsorted_segment_mean, unsorted_segment_sqrt_n};
pub use select::{select, select_v2, where_};
pub use sparse_count::{
    dense_count_sparse_output, ragged_bincount_op, ragged_count_sparse_output, sparse_bincount_op,
    sparse_count_sparse_output, CountAttrs, MathBincount, SparseBincount,
};
pub use sparse_segment::{
    sparse_segment_mean, sparse_segment_mean_grad, sparse_segment_sqrt_n,
    sparse_segment_sqrt_n_grad, sparse_segment_sum, sparse_segment_sum_grad,
};
pub use sparse_segment_builder::SparseSegment;
pub use special::special_more;
pub use special::{
    bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, digamma, erf, erfc, erfinv, lgamma, ndtri,
    polygamma, zeta,
};
pub use tensordot::{tensordot, TensordotAxes};
pub use unary::{
    abs, ceil, cos, exp, floor, is_finite, is_inf, is_nan, log, log1p, neg, reciprocal, round,
    rsqrt, sigmoid, sign, sin, sqrt, square, tanh,
};
pub use unary_more::{acos, acosh, asin, asinh, atan, atanh, cosh, expm1, inv, rint, sinh, tan};
pub use unsorted_segment::{unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod};

/// Method-call forms of the math builders, for `x.matmul(&w)?`-style code.
pub trait MathExt {
    /// `tf.matmul(self, b)`.
    fn matmul(&self, b: impl Into<weir_graph::Output>) -> weir_graph::Result<weir_graph::Output>;
    /// `tf.cast(self, dtype)`.
    fn cast(&self, dtype: weir_graph::DType) -> weir_graph::Result<weir_graph::Output>;
    /// `tf.reduce_sum(self, axis)`.
    fn reduce_sum(&self, axis: impl Into<Axes>) -> weir_graph::Result<weir_graph::Output>;
    /// `tf.reduce_mean(self, axis)`.
    fn reduce_mean(&self, axis: impl Into<Axes>) -> weir_graph::Result<weir_graph::Output>;
}

impl MathExt for weir_graph::Output {
    fn matmul(&self, b: impl Into<weir_graph::Output>) -> weir_graph::Result<weir_graph::Output> {
        matmul(self, b)
    }

    fn cast(&self, dtype: weir_graph::DType) -> weir_graph::Result<weir_graph::Output> {
        cast(self, dtype)
    }

    fn reduce_sum(&self, axis: impl Into<Axes>) -> weir_graph::Result<weir_graph::Output> {
        reduce_sum(self, axis)
    }

    fn reduce_mean(&self, axis: impl Into<Axes>) -> weir_graph::Result<weir_graph::Output> {
        reduce_mean(self, axis)
    }
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    argmax::register();
    binary::register();
    binary_more::register();
    cast::register();
    clip_by_value_op::register();
    cumulative_logsumexp::register();
    euclidean_norm::register();
    compare::register();
    incomplete::register();
    matmul::register();
    sparse_count::register();
    sparse_matmul::register();
    misc::register();
    reduce::register();
    scan::register();
    segment::register();
    sparse_segment::register();
    select::register();
    special::register();
    unary::register();
    unary_more::register();
    unsorted_segment::register();
}
