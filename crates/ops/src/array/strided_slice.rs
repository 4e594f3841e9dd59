//! `StridedSlice`: numpy-style basic indexing (`x[1:, ::2, tf.newaxis, ..., 3]`) with
//! TensorFlow's masks. [`super::slice_items`] spells Python's index syntax in Rust.
//!
//! The sparse spec (one entry per index item) is expanded to one entry per input dim and
//! checked the way TensorFlow's `ValidateStridedSliceOp` does, so the same `begin`, `end`,
//! `strides` and masks give the same result and the same errors.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpBuilder,
    OpContext, OpDef, Output, Result, Shape,
};

use super::shape_util::{const_i64s, index_const, to_i64s};
use super::slice::Window;

/// The masks of `tf.strided_slice(input, begin, end, strides, begin_mask=0, end_mask=0,
/// ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)`. Bit `i` refers to index item `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StridedSlice {
    begin_mask: i64,
    end_mask: i64,
    ellipsis_mask: i64,
    new_axis_mask: i64,
    shrink_axis_mask: i64,
}

impl StridedSlice {
    /// No masks.
    pub fn new() -> StridedSlice {
        StridedSlice::default()
    }

    /// Items whose `begin` is ignored (start from the beginning, or the end for negative strides).
    pub fn begin_mask(mut self, m: i64) -> StridedSlice {
        self.begin_mask = m;
        self
    }

    /// Items whose `end` is ignored (go to the end, or the beginning for negative strides).
    pub fn end_mask(mut self, m: i64) -> StridedSlice {
        self.end_mask = m;
        self
    }

    /// The item that is `...` (at most one bit).
    pub fn ellipsis_mask(mut self, m: i64) -> StridedSlice {
        self.ellipsis_mask = m;
        self
    }

    /// Items that insert a new dim of size 1 (`tf.newaxis`).
    pub fn new_axis_mask(mut self, m: i64) -> StridedSlice {
        self.new_axis_mask = m;
        self
    }

    /// Items that index a single element, removing their dim.
    pub fn shrink_axis_mask(mut self, m: i64) -> StridedSlice {
        self.shrink_axis_mask = m;
        self
    }

    /// Adds the node; `begin`, `end` and `strides` become int32 constants.
    pub fn build(
        self,
        input: impl Into<Output>,
        begin: &[i64],
        end: &[i64],
        strides: &[i64],
    ) -> Result<Output> {
        let x = input.into();
        let g = x.graph().clone();
        let (b, e, s) = (
            index_const(&g, begin)?,
            index_const(&g, end)?,
            index_const(&g, strides)?,
        );
        self.build_from(x, b, e, s)
    }

    /// Adds the node with `begin`, `end` and `strides` computed by the graph.
    pub fn build_from(
        self,
        input: Output,
        begin: Output,
        end: Output,
        strides: Output,
    ) -> Result<Output> {
        let g = crate::util::same_graph(&[&input, &begin, &end, &strides])?.clone();
        let b = crate::new_op(&g, "StridedSlice")
            .input(input)
            .input(begin)
            .input(end)
            .input(strides);
        self.set_masks(b).build()?.output(0)
    }

    /// Sets the five mask attrs on a strided-slice op being built.
    pub(crate) fn set_masks(self, b: OpBuilder) -> OpBuilder {
        b.attr("begin_mask", self.begin_mask)
            .attr("end_mask", self.end_mask)
            .attr("ellipsis_mask", self.ellipsis_mask)
            .attr("new_axis_mask", self.new_axis_mask)
            .attr("shrink_axis_mask", self.shrink_axis_mask)
    }
}

/// `tf.strided_slice(input, begin, end, strides)` without masks.
pub fn strided_slice(
    input: impl Into<Output>,
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
) -> Result<Output> {
    StridedSlice::new().build(input, begin, end, strides)
}

/// The dense form of a strided slice over one input shape.
pub(super) struct Dense {
    pub(super) begin: Vec<i64>,
    pub(super) strides: Vec<i64>,
    /// The size taken along each input dim (unknown where the input dim is).
    pub(super) processing: Vec<Option<usize>>,
    /// The output shape: processing sizes minus shrunk dims, plus new axes.
    pub(super) final_shape: Vec<Option<usize>>,
}

#[derive(Clone, Copy)]
enum Gather {
    Dim(usize),
    NewAxis,
    Shrink,
}

fn bit(mask: i64, i: usize) -> bool {
    i < 63 && mask & (1i64 << i) != 0
}

/// TensorFlow's `ValidateStridedSliceOp` over a partially known input shape.
pub(super) fn validate(
    dims: &[Option<usize>],
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    m: &StridedSlice,
) -> Result<Dense> {
    let n = strides.len();
    if begin.len() != n || end.len() != n || n >= 32 {
        return Err(Error::invalid_argument(format!(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [{}], [{}], and [{n}] instead.",
            begin.len(),
            end.len()
        )));
    }
    if m.ellipsis_mask & (m.ellipsis_mask - 1) != 0 {
        return Err(Error::invalid_argument(
            "Multiple ellipses in slice spec not allowed",
        ));
    }
    // Sparse spec: an implicit trailing ellipsis when there is none.
    let mut ellipsis = m.ellipsis_mask;
    let mut sparse_dims = n;
    let mut seen = false;
    let mut new_after_ellipsis = 0i64;
    for i in 0..n {
        if seen && bit(m.new_axis_mask, i) {
            new_after_ellipsis += 1;
        }
        if bit(ellipsis, i) {
            seen = true;
        }
    }
    if !seen {
        ellipsis |= 1i64 << n;
        sparse_dims += 1;
    }
    // Dense spec: one entry per input dim.
    let rank = dims.len();
    let (mut db, mut de, mut ds) = (vec![0i64; rank], vec![0i64; rank], vec![1i64; rank]);
    let (mut bmask, mut emask, mut shrink) =
        (vec![false; rank], vec![false; rank], vec![false; rank]);
    let mut gather = Vec::new();
    let mut full = 0usize;
    for i in 0..sparse_dims {
        if bit(ellipsis, i) {
            let next = (rank as i64 - (sparse_dims - i) as i64 + 1 + new_after_ellipsis)
                .clamp(0, rank as i64) as usize;
            while full < next {
                bmask[full] = true;
                emask[full] = true;
                gather.push(Gather::Dim(full));
                full += 1;
            }
        } else if bit(m.new_axis_mask, i) {
            gather.push(Gather::NewAxis);
        } else {
            if full == rank {
                return Err(Error::invalid_argument(format!(
                    "Index out of range using input dim {full}; input has only {rank} dims"
                )));
            }
            db[full] = begin[i];
            de[full] = end[i];
            ds[full] = strides[i];
            bmask[full] = bit(m.begin_mask, i);
            emask[full] = bit(m.end_mask, i);
            if bit(m.shrink_axis_mask, i) {
                shrink[full] = true;
                gather.push(Gather::Shrink);
            } else {
                gather.push(Gather::Dim(full));
            }
            full += 1;
        }
    }
    // Canonical bounds and sizes per input dim.
    let mut processing = Vec::with_capacity(rank);
    for i in 0..rank {
        let stride = ds[i];
        if stride == 0 {
            return Err(Error::invalid_argument(format!(
                "strides[{i}] must be non-zero"
            )));
        }
        let Some(dim) = dims[i] else {
            processing.push(if shrink[i] { Some(1) } else { None });
            continue;
        };
        let dim = dim as i64;
        let (lo, hi) = if stride > 0 { (0, dim) } else { (-1, dim - 1) };
        let canonical = |x: i64, masked: bool, is_end: bool| -> i64 {
            if masked {
                // A masked begin starts at the walk's first element, a masked end ends past its last.
                match (stride > 0, is_end) {
                    (true, false) | (false, true) => lo,
                    _ => hi,
                }
            } else {
                let fwd = if x < 0 { dim + x } else { x };
                fwd.clamp(lo, hi)
            }
        };
        if shrink[i] && stride <= 0 {
            return Err(Error::invalid_argument(
                "only stride 1 allowed on non-range indexing.",
            ));
        }
        let (b, e) = if shrink[i] {
            let fwd = if db[i] < 0 { dim + db[i] } else { db[i] };
            if fwd < 0 || fwd >= dim {
                return Err(Error::invalid_argument(format!(
                    "slice index {fwd} of dimension {i} out of bounds."
                )));
            }
            (fwd, fwd + 1)
        } else {
            (
                canonical(db[i], bmask[i], false),
                canonical(de[i], emask[i], true),
            )
        };
        db[i] = b;
        let interval = e - b;
        let size = if interval == 0 || (interval < 0) != (stride < 0) {
            0
        } else {
            interval / stride + i64::from(interval % stride != 0)
        };
        processing.push(Some(size as usize));
    }
    let final_shape = gather
        .iter()
        .filter_map(|g| match *g {
            Gather::Dim(j) => Some(processing[j]),
            Gather::NewAxis => Some(Some(1)),
            Gather::Shrink => None,
        })
        .collect();
    Ok(Dense {
        begin: db,
        strides: ds,
        processing,
        final_shape,
    })
}

/// Adds the five mask attrs of the strided-slice ops, with TensorFlow's default 0.
pub(crate) fn with_mask_attrs(mut def: OpDef) -> OpDef {
    for m in [
        "begin_mask",
        "end_mask",
        "ellipsis_mask",
        "new_axis_mask",
        "shrink_axis_mask",
    ] {
        def = def.attr(m, AttrKind::Int, Some(AttrValue::Int(0)));
    }
    def
}

/// The masks from a node's (or an inference context's) attrs.
pub(crate) fn masks_of(attrs: impl Fn(&str) -> Result<i64>) -> Result<StridedSlice> {
    Ok(StridedSlice {
        begin_mask: attrs("begin_mask")?,
        end_mask: attrs("end_mask")?,
        ellipsis_mask: attrs("ellipsis_mask")?,
        new_axis_mask: attrs("new_axis_mask")?,
        shrink_axis_mask: attrs("shrink_axis_mask")?,
    })
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let m = masks_of(|n| ctx.attr(n))?;
    let input = ctx.input_shape(0).clone();
    let (b, e, s) = (
        const_i64s(ctx, 1)?,
        const_i64s(ctx, 2)?,
        const_i64s(ctx, 3)?,
    );
    let out = match (input.dims(), b, e, s) {
        (Some(dims), Some(b), Some(e), Some(s)) => {
            Shape::new(validate(dims, &b, &e, &s, &m)?.final_shape)
        }
        _ => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

struct StridedSliceKernel(StridedSlice);

impl Kernel for StridedSliceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (b, e, s) = (
            to_i64s(ctx.input(1))?,
            to_i64s(ctx.input(2))?,
            to_i64s(ctx.input(3))?,
        );
        for (t, _) in [
            (ctx.input(1), "begin"),
            (ctx.input(2), "end"),
            (ctx.input(3), "strides"),
        ] {
            if t.rank() != 1 {
                return Err(Error::invalid_argument(format!(
                    "Expected begin, end, and strides to be 1D equal size tensors, but got shapes {}, {}, and {} instead.",
                    weir_graph::format_dims(ctx.input(1).shape()),
                    weir_graph::format_dims(ctx.input(2).shape()),
                    weir_graph::format_dims(ctx.input(3).shape())
                )));
            }
        }
        let x = ctx.take_input(0);
        let dims: Vec<Option<usize>> = x.shape().iter().map(|&d| Some(d)).collect();
        let dense = validate(&dims, &b, &e, &s, &self.0)?;
        let count: Vec<usize> = dense.processing.iter().map(|d| d.unwrap_or(0)).collect();
        let out_shape: Vec<usize> = dense.final_shape.iter().map(|d| d.unwrap_or(0)).collect();
        let w = Window {
            shape: x.shape(),
            begin: &dense.begin,
            stride: &dense.strides,
            count: &count,
        };
        let out = w.apply(&x, &out_shape)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(StridedSliceKernel(masks_of(|n| node.attr(n))?)))
}

pub(super) fn register() {
    let def = OpDef::new("StridedSlice")
        .input("input", ArgType::Attr("T"))
        .input("begin", ArgType::Attr("Index"))
        .input("end", ArgType::Attr("Index"))
        .input("strides", ArgType::Attr("Index"))
        .output("output", ArgType::Attr("T"))
        .type_attr("T", DType::ALL_DATA)
        .type_attr("Index", &[DType::I32, DType::I64]);
    register_op(with_mask_attrs(def).shape_fn(shape_fn));
    register_kernel("StridedSlice", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(
        dims: &[usize],
        b: &[i64],
        e: &[i64],
        s: &[i64],
        m: StridedSlice,
    ) -> Result<Vec<usize>> {
        let d: Vec<Option<usize>> = dims.iter().map(|&x| Some(x)).collect();
        Ok(validate(&d, b, e, s, &m)?
            .final_shape
            .into_iter()
            .map(|x| x.unwrap())
            .collect())
    }

    #[test]
    fn python_examples() {
        // x[1:, ::2, tf.newaxis] on [4, 6]
        let m = StridedSlice::new()
            .begin_mask(0b010)
            .end_mask(0b011)
            .new_axis_mask(0b100);
        assert_eq!(
            shape(&[4, 6], &[1, 0, 0], &[0, 0, 0], &[1, 2, 1], m).unwrap(),
            vec![3, 3, 1]
        );
        // x[-1] on [4, 6]
        let m = StridedSlice::new().shrink_axis_mask(1);
        assert_eq!(shape(&[4, 6], &[-1], &[0], &[1], m).unwrap(), vec![6]);
        // x[..., 0] on [2, 3, 4]
        let m = StridedSlice::new().ellipsis_mask(1).shrink_axis_mask(2);
        assert_eq!(
            shape(&[2, 3, 4], &[0, 0], &[0, 1], &[1, 1], m).unwrap(),
            vec![2, 3]
        );
        // x[::-1] on [5]
        let m = StridedSlice::new().begin_mask(1).end_mask(1);
        let d = validate(&[Some(5)], &[0], &[0], &[-1], &m).unwrap();
        assert_eq!((d.begin[0], d.processing[0]), (4, Some(5)));
        // x[10:20] clamps to empty, x[3:1] is empty
        assert_eq!(
            shape(&[5], &[10], &[20], &[1], StridedSlice::new()).unwrap(),
            vec![0]
        );
        assert_eq!(
            shape(&[5], &[3], &[1], &[1], StridedSlice::new()).unwrap(),
            vec![0]
        );
        // x[1:-1:2] on [6]: 1, 3
        assert_eq!(
            shape(&[6], &[1], &[-1], &[2], StridedSlice::new()).unwrap(),
            vec![2]
        );
    }

    #[test]
    fn errors_match_tensorflow() {
        let m = StridedSlice::new().shrink_axis_mask(1);
        assert_eq!(
            shape(&[3], &[5], &[6], &[1], m).unwrap_err().message(),
            "slice index 5 of dimension 0 out of bounds."
        );
        assert_eq!(
            shape(&[3], &[0], &[1], &[0], StridedSlice::new())
                .unwrap_err()
                .message(),
            "strides[0] must be non-zero"
        );
        let m = StridedSlice::new().ellipsis_mask(3);
        assert_eq!(
            shape(&[3], &[0, 0], &[0, 0], &[1, 1], m)
                .unwrap_err()
                .message(),
            "Multiple ellipses in slice spec not allowed"
        );
        assert_eq!(
            shape(&[3], &[0, 0], &[1, 1], &[1, 1], StridedSlice::new())
                .unwrap_err()
                .message(),
            "Index out of range using input dim 1; input has only 1 dims"
        );
    }

    #[test]
    fn unknown_dims_stay_unknown() {
        let m = StridedSlice::new()
            .begin_mask(1)
            .end_mask(1)
            .shrink_axis_mask(2);
        let d = validate(&[None, Some(4)], &[0, 1], &[0, 2], &[1, 1], &m).unwrap();
        assert_eq!(d.final_shape, vec![None]);
    }
}
