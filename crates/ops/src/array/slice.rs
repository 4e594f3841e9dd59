//! `Slice` (`tf.slice(input, begin, size)`) and the strided copy it shares with
//! `StridedSlice` and `ReverseV2`.
//!
//! A slice that is one contiguous range of the input's buffer shares the buffer; otherwise the
//! copy moves whole contiguous runs: trailing dims taken in full merge into one block.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor, TensorType,
};

use super::shape_util::{const_i64s, to_i64s, IndexArg};

/// `tf.slice(input, begin, size)`: the block starting at `begin` with `size` elements per dim
/// (`-1` means "to the end").
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::array::{constant, slice};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[3, 4], vec![0i32; 12])?)?;
/// assert_eq!(slice(&x, [1, 0], [-1, 2])?.shape(), Shape::known(&[2, 2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn slice(
    input: impl Into<Output>,
    begin: impl Into<IndexArg>,
    size: impl Into<IndexArg>,
) -> Result<Output> {
    let x = input.into();
    let g = x.graph().clone();
    let b = begin.into().to_output(&g)?;
    let s = size.into().to_output(&g)?;
    crate::new_op(&g, "Slice")
        .input(x)
        .input(b)
        .input(s)
        .build()?
        .output(0)
}

/// A box of a row-major tensor: per dim the first index, the step (may be negative) and the
/// number of indices taken.
pub(crate) struct Window<'a> {
    pub shape: &'a [usize],
    pub begin: &'a [i64],
    pub stride: &'a [i64],
    pub count: &'a [usize],
}

impl Window<'_> {
    fn is_full(&self, j: usize) -> bool {
        self.begin[j] == 0 && self.stride[j] == 1 && self.count[j] == self.shape[j]
    }

    /// The flat range the window covers when it is contiguous in the input.
    fn contiguous(&self) -> Option<(usize, usize)> {
        let r = self.shape.len();
        // Dims after `j` are taken whole, dims before it contribute one index each.
        let j = (0..r).rev().find(|&j| !self.is_full(j)).unwrap_or(0);
        if r == 0 {
            return Some((0, 1));
        }
        if self.stride[j] != 1 || (0..j).any(|i| self.count[i] != 1) {
            return None;
        }
        let inner: usize = self.shape[j + 1..].iter().product();
        let mut start = 0usize;
        for i in 0..=j {
            start = start * self.shape[i] + self.begin[i] as usize;
        }
        Some((start * inner, self.count[j] * inner))
    }

    /// The elements of the window of `xs`, in row-major order of the window.
    pub fn copy<T: Clone>(&self, xs: &[T]) -> Vec<T> {
        let total: usize = self.count.iter().product();
        let mut out = Vec::with_capacity(total);
        if total == 0 {
            return out;
        }
        let r = self.shape.len();
        // Trailing dims taken whole form contiguous blocks of `block` elements.
        let mut k = r;
        while k > 0 && self.is_full(k - 1) {
            k -= 1;
        }
        let block: usize = self.shape[k..].iter().product();
        if k == 0 {
            out.extend_from_slice(&xs[..block]);
            return out;
        }
        let mut strides = vec![0usize; k];
        let mut s = block;
        for j in (0..k).rev() {
            strides[j] = s;
            s *= self.shape[j];
        }
        self.copy_dim(xs, 0, 0, k, block, &strides, &mut out);
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn copy_dim<T: Clone>(
        &self,
        xs: &[T],
        j: usize,
        base: usize,
        k: usize,
        block: usize,
        strides: &[usize],
        out: &mut Vec<T>,
    ) {
        let (b, st, n) = (self.begin[j], self.stride[j], self.count[j]);
        if j + 1 == k {
            if st == 1 {
                let start = base + b as usize * block;
                out.extend_from_slice(&xs[start..start + n * block]);
            } else {
                for i in 0..n as i64 {
                    let start = base + (b + i * st) as usize * block;
                    out.extend_from_slice(&xs[start..start + block]);
                }
            }
            return;
        }
        for i in 0..n as i64 {
            let off = base + (b + i * st) as usize * strides[j];
            self.copy_dim(xs, j + 1, off, k, block, strides, out);
        }
    }

    /// Writes `src` (the window's elements in row-major order of the window) into the window
    /// of `dst`: the inverse of [`Window::copy`], for `StridedSliceGrad` and the slice updates.
    pub fn write<T: Clone>(&self, dst: &mut [T], src: &[T]) {
        let total: usize = self.count.iter().product();
        if total == 0 {
            return;
        }
        let r = self.shape.len();
        let mut k = r;
        while k > 0 && self.is_full(k - 1) {
            k -= 1;
        }
        let block: usize = self.shape[k..].iter().product();
        if k == 0 {
            dst[..block].clone_from_slice(&src[..block]);
            return;
        }
        let mut strides = vec![0usize; k];
        let mut s = block;
        for j in (0..k).rev() {
            strides[j] = s;
            s *= self.shape[j];
        }
        let mut next = 0usize;
        self.write_dim(dst, src, &mut next, 0, 0, (k, block), &strides);
    }

    #[allow(clippy::too_many_arguments)]
    fn write_dim<T: Clone>(
        &self,
        dst: &mut [T],
        src: &[T],
        next: &mut usize,
        j: usize,
        base: usize,
        (k, block): (usize, usize),
        strides: &[usize],
    ) {
        let (b, st, n) = (self.begin[j], self.stride[j], self.count[j]);
        if j + 1 == k {
            if st == 1 {
                let start = base + b as usize * block;
                let len = n * block;
                dst[start..start + len].clone_from_slice(&src[*next..*next + len]);
                *next += len;
            } else {
                for i in 0..n as i64 {
                    let start = base + (b + i * st) as usize * block;
                    dst[start..start + block].clone_from_slice(&src[*next..*next + block]);
                    *next += block;
                }
            }
            return;
        }
        for i in 0..n as i64 {
            let off = base + (b + i * st) as usize * strides[j];
            self.write_dim(dst, src, next, j + 1, off, (k, block), strides);
        }
    }

    /// The window of `x` as a tensor of `out_shape` (the window's element count), sharing
    /// `x`'s buffer when the window is one contiguous range.
    pub fn apply(&self, x: &Tensor, out_shape: &[usize]) -> Result<Tensor> {
        let n: usize = self.count.iter().product();
        if n > 0 {
            if let Some((start, len)) = self.contiguous() {
                let total = x.num_elements();
                return x
                    .reshape(&[total])?
                    .slice_axis0(start, start + len)?
                    .reshape(out_shape);
            }
        }
        let dt = x.dtype();
        weir_graph::match_data_dtype!(dt, T => copy_tensor::<T>(self, x, out_shape),
            _ => Err(Error::invalid_argument(format!("Cannot slice {dt} tensors"))))
    }
}

fn copy_tensor<T: TensorType>(w: &Window<'_>, x: &Tensor, out_shape: &[usize]) -> Result<Tensor> {
    Tensor::from_vec(out_shape, w.copy(x.as_slice::<T>()?))
}

/// Checks `begin`/`size` against `shape` and resolves `-1` sizes (TensorFlow's messages).
fn slice_window(shape: &[usize], begin: &[i64], size: &[i64]) -> Result<Vec<usize>> {
    let r = shape.len();
    if begin.len() != r || size.len() != r {
        return Err(Error::invalid_argument(format!(
            "Expected begin and size arguments to be 1-D tensors of size {r}, but got shapes [{}] and [{}] instead.",
            begin.len(),
            size.len()
        )));
    }
    let mut out = Vec::with_capacity(r);
    for i in 0..r {
        let (b, d) = (begin[i], shape[i] as i64);
        let s = if size[i] == -1 { d - b } else { size[i] };
        if b < 0 || b > d {
            return Err(Error::invalid_argument(format!(
                "Expected begin[{i}] in [0, {d}], but got {b}"
            )));
        }
        if s < 0 || b + s > d {
            return Err(Error::invalid_argument(format!(
                "Expected size[{i}] in [0, {}], but got {s}",
                d - b
            )));
        }
        out.push(s as usize);
    }
    Ok(out)
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = ctx.input_shape(0).clone();
    let (begin, size) = (const_i64s(ctx, 1)?, const_i64s(ctx, 2)?);
    let rank = input
        .rank()
        .or(ctx.input_shape(1).dim(0))
        .or(ctx.input_shape(2).dim(0));
    let (Some(r), Some(begin), Some(size)) = (rank, begin, size) else {
        ctx.set_output(0, super::shape_util::unknown_dims(rank));
        return Ok(());
    };
    if begin.len() != r || size.len() != r {
        return Err(Error::invalid_argument(format!(
            "Expected begin and size arguments to be 1-D tensors of size {r}, but got shapes [{}] and [{}] instead.",
            begin.len(),
            size.len()
        )));
    }
    let mut out = Vec::with_capacity(r);
    for i in 0..r {
        let d = input.dim(i as isize);
        if let Some(d) = d {
            // Validate against the known dim exactly as the kernel will.
            let mut full = vec![0usize; r];
            full[i] = d;
            let (mut b, mut s) = (vec![0i64; r], vec![0i64; r]);
            b[i] = begin[i];
            s[i] = size[i];
            out.push(Some(slice_window(&full, &b, &s)?[i]));
        } else if size[i] >= 0 {
            out.push(Some(size[i] as usize));
        } else {
            out.push(None);
        }
    }
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

struct SliceKernel;

impl Kernel for SliceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (bt, st) = (ctx.input(1), ctx.input(2));
        if bt.rank() != 1 || st.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Expected begin and size arguments to be 1-D tensors of size {}, but got shapes {} and {} instead.",
                ctx.input(0).rank(),
                format_dims(bt.shape()),
                format_dims(st.shape())
            )));
        }
        let (begin, size) = (to_i64s(bt)?, to_i64s(st)?);
        let x = ctx.take_input(0);
        let count = slice_window(x.shape(), &begin, &size)?;
        let stride = vec![1i64; count.len()];
        let w = Window {
            shape: x.shape(),
            begin: &begin,
            stride: &stride,
            count: &count,
        };
        let out = w.apply(&x, &count)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("Slice")
            .input("input", ArgType::Attr("T"))
            .input("begin", ArgType::Attr("Index"))
            .input("size", ArgType::Attr("Index"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Index", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("Slice", |_| Ok(Box::new(SliceKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_copies_and_shares() {
        let x = Tensor::from_vec(&[3, 4], (0..12).collect::<Vec<i32>>()).unwrap();
        let w = Window {
            shape: &[3, 4],
            begin: &[1, 1],
            stride: &[1, 1],
            count: &[2, 2],
        };
        let t = w.apply(&x, &[2, 2]).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![5, 6, 9, 10]);
        // Rows 1..3 in full are one contiguous range: shared.
        let w = Window {
            shape: &[3, 4],
            begin: &[1, 0],
            stride: &[1, 1],
            count: &[2, 4],
        };
        let t = w.apply(&x, &[2, 4]).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), (4..12).collect::<Vec<_>>());
        assert_eq!(
            t.as_slice::<i32>().unwrap().as_ptr(),
            x.as_slice::<i32>().unwrap()[4..].as_ptr()
        );
        // Negative strides walk backwards.
        let w = Window {
            shape: &[3, 4],
            begin: &[2, 3],
            stride: &[-1, -2],
            count: &[3, 2],
        };
        assert_eq!(
            w.copy(x.as_slice::<i32>().unwrap()),
            vec![11, 9, 7, 5, 3, 1]
        );
    }

    #[test]
    fn slice_window_messages() {
        assert_eq!(
            slice_window(&[3, 4], &[1, 1], &[-1, 2]).unwrap(),
            vec![2, 2]
        );
        assert_eq!(
            slice_window(&[3], &[4], &[0]).unwrap_err().message(),
            "Expected begin[0] in [0, 3], but got 4"
        );
        assert_eq!(
            slice_window(&[3], &[1], &[3]).unwrap_err().message(),
            "Expected size[0] in [0, 2], but got 3"
        );
        assert!(slice_window(&[3], &[1, 1], &[1]).is_err());
        assert_eq!(
            slice_window(&[0, 2], &[0, 0], &[-1, -1]).unwrap(),
            vec![0, 2]
        );
    }
}
