//! Python's index syntax in Rust: [`SliceItem`]s, written with the [`s!`](crate::s) macro,
//! lowered to one `StridedSlice` the way TensorFlow's `_slice_helper` lowers `x[...]`.

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use weir_graph::{Error, Output, Result};

use super::strided_slice::StridedSlice;

/// One item of a Python index expression: `3`, `1:`, `::2`, `tf.newaxis` or `...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceItem {
    /// A single index (removes the dim); negative counts from the end.
    Index(i64),
    /// `begin:end:step`, where a missing bound means "from the start/to the end".
    Range {
        /// The first index, if given.
        begin: Option<i64>,
        /// One past the last index, if given.
        end: Option<i64>,
        /// The step (non-zero; negative walks backwards).
        step: i64,
    },
    /// `tf.newaxis`: a new dim of size 1.
    NewAxis,
    /// `...`: as many full dims as needed.
    Ellipsis,
}

/// `tf.newaxis`, for [`s!`](crate::s).
pub const NEW_AXIS: SliceItem = SliceItem::NewAxis;
/// Python's `...`, for [`s!`](crate::s).
pub const ELLIPSIS: SliceItem = SliceItem::Ellipsis;

macro_rules! items_from_ints {
    ($($t:ty),*) => {$(
        impl From<$t> for SliceItem {
            fn from(i: $t) -> SliceItem { SliceItem::Index(i as i64) }
        }
        impl From<Range<$t>> for SliceItem {
            fn from(r: Range<$t>) -> SliceItem {
                SliceItem::Range { begin: Some(r.start as i64), end: Some(r.end as i64), step: 1 }
            }
        }
        impl From<RangeFrom<$t>> for SliceItem {
            fn from(r: RangeFrom<$t>) -> SliceItem {
                SliceItem::Range { begin: Some(r.start as i64), end: None, step: 1 }
            }
        }
        impl From<RangeTo<$t>> for SliceItem {
            fn from(r: RangeTo<$t>) -> SliceItem {
                SliceItem::Range { begin: None, end: Some(r.end as i64), step: 1 }
            }
        }
        impl From<RangeInclusive<$t>> for SliceItem {
            fn from(r: RangeInclusive<$t>) -> SliceItem {
                let end = *r.end() as i64;
                SliceItem::Range { begin: Some(*r.start() as i64), end: inclusive_end(end), step: 1 }
            }
        }
        impl From<RangeToInclusive<$t>> for SliceItem {
            fn from(r: RangeToInclusive<$t>) -> SliceItem {
                SliceItem::Range { begin: None, end: inclusive_end(r.end as i64), step: 1 }
            }
        }
    )*};
}
items_from_ints!(i32, i64, isize, usize);

/// `..=-1` reaches the last element: no end bound rather than the empty `..0`.
fn inclusive_end(end: i64) -> Option<i64> {
    if end == -1 {
        None
    } else {
        Some(end + 1)
    }
}

impl From<RangeFull> for SliceItem {
    fn from(_: RangeFull) -> SliceItem {
        SliceItem::Range {
            begin: None,
            end: None,
            step: 1,
        }
    }
}

/// A range item with a step: `stepped(.., 2)` is Python's `::2` (what `s![..;2]` expands to).
pub fn stepped(range: impl Into<SliceItem>, step: i64) -> SliceItem {
    match range.into() {
        SliceItem::Range { begin, end, .. } => SliceItem::Range { begin, end, step },
        // A step on a single index is Python's `x[i::step]`.
        SliceItem::Index(i) => SliceItem::Range {
            begin: Some(i),
            end: None,
            step,
        },
        other => other,
    }
}

/// Python's index expression as a list of [`SliceItem`]s: `s![1.., ..;2, NEW_AXIS]` is
/// `x[1:, ::2, tf.newaxis]`; `a..b;k` is `a:b:k`, a plain integer indexes one element.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// use weir_ops::array::{constant, ArrayExt, NEW_AXIS};
/// use weir_ops::s;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[4, 6], vec![0f32; 24])?)?;
/// let y = x.at(s![1.., ..;2, NEW_AXIS])?;
/// assert_eq!(y.shape(), Shape::known(&[3, 3, 1]));
/// assert_eq!(x.at(s![-1])?.shape(), Shape::known(&[6]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[macro_export]
macro_rules! s {
    (@items [$($acc:expr,)*]) => { ::std::vec![$($acc),*] };
    (@items [$($acc:expr,)*] $r:expr ; $st:expr) => {
        $crate::s!(@items [$($acc,)* $crate::array::stepped($r, $st),])
    };
    (@items [$($acc:expr,)*] $r:expr ; $st:expr, $($rest:tt)*) => {
        $crate::s!(@items [$($acc,)* $crate::array::stepped($r, $st),] $($rest)*)
    };
    (@items [$($acc:expr,)*] $r:expr) => {
        $crate::s!(@items [$($acc,)* $crate::array::SliceItem::from($r),])
    };
    (@items [$($acc:expr,)*] $r:expr, $($rest:tt)*) => {
        $crate::s!(@items [$($acc,)* $crate::array::SliceItem::from($r),] $($rest)*)
    };
    ($($t:tt)*) => { $crate::s!(@items [] $($t)*) };
}

/// `input[items]` as Python lowers it (`_slice_helper`): one `StridedSlice` with the masks the
/// items imply.
pub fn strided_slice_items(input: impl Into<Output>, items: &[SliceItem]) -> Result<Output> {
    let (masks, begin, end, strides) = lower_items(items)?;
    masks.build(input, &begin, &end, &strides)
}

/// The masks and the `begin`, `end` and `strides` vectors of a lowered index expression.
pub(crate) type LoweredItems = (StridedSlice, Vec<i64>, Vec<i64>, Vec<i64>);

/// The masks and the `begin`, `end` and `strides` vectors that `items` lower to.
pub(crate) fn lower_items(items: &[SliceItem]) -> Result<LoweredItems> {
    let (mut begin, mut end, mut strides) = (Vec::new(), Vec::new(), Vec::new());
    let (mut begin_mask, mut end_mask, mut ellipsis_mask, mut new_axis_mask, mut shrink_axis_mask) =
        (0i64, 0i64, 0i64, 0i64, 0i64);
    if items.len() >= 32 {
        return Err(Error::invalid_argument(
            "A slice spec supports at most 31 items",
        ));
    }
    for (i, item) in items.iter().enumerate() {
        let bit = 1i64 << i;
        match *item {
            SliceItem::Index(v) => {
                begin.push(v);
                end.push(v.wrapping_add(1));
                strides.push(1);
                shrink_axis_mask |= bit;
            }
            SliceItem::Range {
                begin: b,
                end: e,
                step,
            } => {
                if step == 0 {
                    return Err(Error::invalid_argument("slice step cannot be zero"));
                }
                begin.push(b.unwrap_or(0));
                end.push(e.unwrap_or(0));
                strides.push(step);
                if b.is_none() {
                    begin_mask |= bit;
                }
                if e.is_none() {
                    end_mask |= bit;
                }
            }
            SliceItem::NewAxis | SliceItem::Ellipsis => {
                begin.push(0);
                end.push(0);
                strides.push(1);
                if *item == SliceItem::NewAxis {
                    new_axis_mask |= bit;
                } else {
                    ellipsis_mask |= bit;
                }
            }
        }
    }
    let masks = StridedSlice::new()
        .begin_mask(begin_mask)
        .end_mask(end_mask)
        .ellipsis_mask(ellipsis_mask)
        .new_axis_mask(new_axis_mask)
        .shrink_axis_mask(shrink_axis_mask);
    Ok((masks, begin, end, strides))
}

/// Method-call forms of the array builders.
pub trait ArrayExt {
    /// `self[items]`, Python's indexing: see [`s!`](crate::s).
    fn at(&self, items: Vec<SliceItem>) -> Result<Output>;
}

impl ArrayExt for Output {
    fn at(&self, items: Vec<SliceItem>) -> Result<Output> {
        strided_slice_items(self, &items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_and_macro() {
        let items = crate::s![1.., ..;2, NEW_AXIS, -1, ELLIPSIS, ..=-1, 2..4;-1];
        assert_eq!(items.len(), 7);
        assert_eq!(
            items[0],
            SliceItem::Range {
                begin: Some(1),
                end: None,
                step: 1
            }
        );
        assert_eq!(
            items[1],
            SliceItem::Range {
                begin: None,
                end: None,
                step: 2
            }
        );
        assert_eq!(items[3], SliceItem::Index(-1));
        assert_eq!(
            items[5],
            SliceItem::Range {
                begin: None,
                end: None,
                step: 1
            }
        );
        assert_eq!(
            items[6],
            SliceItem::Range {
                begin: Some(2),
                end: Some(4),
                step: -1
            }
        );
    }
}
