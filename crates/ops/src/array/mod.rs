//! Array ops (TensorFlow's `array_ops`): constants, placeholders and identity; reshaping,
//! slicing (including Python-style indexing with [`s!`](crate::s)), joining and splitting,
//! gathering, transposing, tiling, padding, filling, one-hot, masks and `unique`.
//!
//! Ops that only change a shape share the input's buffer; copies move contiguous runs.

mod bincount;
mod binning;
mod bitcast;
mod check_numerics;
mod constant;
mod ensure_shape;
mod fill;
mod gather;
mod grad_support;
mod identity;
mod inplace;
mod interleave_u8;
mod legacy;
mod lin_space;
mod mask;
mod meshgrid;
mod mirror_pad_grad;
mod nth_element;
mod placeholder;
mod reshape;
mod reverse_sequence;
mod roll;
pub(crate) mod scatter_apply;
mod scatter_nd;
mod search_sorted;
mod shape_n;
pub(crate) mod shape_util;
mod slice;
pub(crate) mod slice_items;
mod space_batch;
mod space_depth;
mod split;
pub(crate) mod stack;
pub(crate) mod strided_slice;
pub(crate) mod strided_slice_write;
pub(crate) mod tensor_scatter;
pub(crate) mod tensor_scatter_min_max;
mod tile_pad;
pub(crate) mod transpose;
mod unique_key;
mod unique_v2;
mod unique_with_counts;
mod unravel_setdiff;

pub use bincount::{bincount, Bincount};
pub use binning::{bucketize, histogram_fixed_width, HistogramFixedWidth};
pub use bitcast::{bitcast, broadcast_dynamic_shape};
pub use check_numerics::check_numerics;
pub use constant::{constant, constant_named};
pub use ensure_shape::{empty, ensure_shape, guarantee_const};
pub use fill::{fill, one_hot, ones, ones_like, zeros, zeros_like, OneHot};
pub(crate) use gather::{coords, index_row_offsets};
pub use gather::{gather, gather_batched, gather_nd};
pub use grad_support::{broadcast_to, invert_permutation, stop_gradient};
pub use identity::{identity, identity_n, identity_named};
pub use inplace::{
    deep_copy, inplace_add, inplace_sub, inplace_update, parallel_concat, parallel_stack,
    parallel_stack_named, Inplace, InplaceOp,
};
pub use legacy::{batch_matmul_v1, concat_v1, reverse_v1, top_k_v1};
pub use lin_space::lin_space;
pub use mask::{boolean_mask, sequence_mask, unique, unique_typed, where_indices, SequenceMask};
pub use meshgrid::{meshgrid, Indexing};
pub use mirror_pad_grad::mirror_pad_grad;
pub use nth_element::nth_element;
pub use placeholder::{placeholder, placeholder_not_fed, placeholder_with_default, Placeholder};
pub use reshape::{expand_dims, rank, reshape, shape, shape_typed, size, squeeze};
pub use reverse_sequence::reverse_sequence;
pub use roll::roll;
pub(crate) use scatter_nd::alloc_filled;
pub use scatter_nd::scatter_nd;
pub use search_sorted::searchsorted;
pub use shape_util::IndexArg;
pub use slice::slice;
pub use slice_items::{stepped, strided_slice_items, ArrayExt, SliceItem, ELLIPSIS, NEW_AXIS};
pub use space_batch::{batch_to_space, batch_to_space_nd, space_to_batch, space_to_batch_nd};
pub use space_depth::{depth_to_space, space_to_depth};
pub use split::{split, split_v};
pub use stack::{concat, stack, unstack};
pub use strided_slice::{strided_slice, StridedSlice};
pub use tensor_scatter::{tensor_scatter_nd_add, tensor_scatter_nd_sub, tensor_scatter_nd_update};
pub use tensor_scatter_min_max::{tensor_scatter_nd_max, tensor_scatter_nd_min};
pub use tile_pad::{pad, tile, Pad, PadMode};
pub use transpose::{reverse, transpose, transpose_default};
pub use unique_v2::{unique_v2, unique_with_counts_v2};
pub use unique_with_counts::{unique_with_counts, unique_with_counts_typed};
pub use unravel_setdiff::{setdiff1d, unravel_index};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    bincount::register();
    binning::register();
    bitcast::register();
    check_numerics::register();
    constant::register();
    ensure_shape::register();
    fill::register();
    gather::register();
    grad_support::register();
    identity::register();
    inplace::register();
    legacy::register();
    lin_space::register();
    mask::register();
    mirror_pad_grad::register();
    nth_element::register();
    placeholder::register();
    reshape::register();
    reverse_sequence::register();
    roll::register();
    scatter_nd::register();
    search_sorted::register();
    shape_n::register();
    slice::register();
    space_depth::register();
    space_batch::register();
    split::register();
    stack::register();
    strided_slice::register();
    strided_slice_write::register();
    tensor_scatter::register();
    tensor_scatter_min_max::register();
    tile_pad::register();
    transpose::register();
    unique_with_counts::register();
    unique_v2::register();
    unravel_setdiff::register();
}
