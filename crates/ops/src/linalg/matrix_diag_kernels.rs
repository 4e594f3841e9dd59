//! The kernels of `MatrixDiagV3`, `MatrixDiagPartV3` and `MatrixSetDiagV3`: the geometry of a
//! band of diagonals in a batch of matrices, TensorFlow's checks on it, and the copies between
//! matrices and packed diagonals.

use weir_graph::{format_dims, Error, Kernel, Node, OpContext, Result, Tensor, TensorType};

use super::matrix_diag::Align;
use crate::array::shape_util::to_i64s;

/// The geometry of one diagonal: its length and the offset of its content in its packed row.
fn diag_len_and_offset(
    d: i64,
    max_len: i64,
    rows: i64,
    cols: i64,
    (left_super, left_sub): (bool, bool),
) -> (i64, i64) {
    let len = (rows + d.min(0)).min(cols - d.max(0));
    let left = (d >= 0 && left_super) || (d <= 0 && left_sub);
    (len, if left { 0 } else { max_len - len })
}

/// `k` as (lower, upper), with TensorFlow's checks on its shape.
fn diag_index(t: &Tensor) -> Result<(i64, i64)> {
    if t.rank() > 1 {
        return Err(Error::invalid_argument(format!(
            "diag_index must be a scalar or vector, received shape: {}",
            format_dims(t.shape())
        )));
    }
    let v = to_i64s(t)?;
    match v.len() {
        0 => Err(Error::invalid_argument(
            "Expected diag_index to have at least 1 element",
        )),
        1 | 2 => Ok((v[0], v[v.len() - 1])),
        n => Err(Error::invalid_argument(format!(
            "diag_index must have only one or two elements, received {n} elements."
        ))),
    }
}

fn check_bounds(lo: i64, hi: i64, rows: i64, cols: i64, period: &str) -> Result<()> {
    for (name, v, p) in [("lower", lo, period), ("upper", hi, "")] {
        if !((-rows < v && v < cols) || v == 0) {
            return Err(Error::invalid_argument(format!(
                "{name}_diag_index is out of bound: {v}{p} It must be between {} and {cols}",
                -rows
            )));
        }
    }
    if lo > hi {
        return Err(Error::invalid_argument(format!(
            "lower_diag_index must not be larger than upper_diag_index: {lo} > {hi}"
        )));
    }
    Ok(())
}

fn scalar_i64(t: &Tensor, what: &str) -> Result<i64> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!("{what} must be a scalar")));
    }
    Ok(to_i64s(t)?[0])
}

#[derive(Debug)]
struct Geometry {
    lo: i64,
    hi: i64,
    rows: i64,
    cols: i64,
    max_len: i64,
    align: (bool, bool),
}

impl Geometry {
    fn num_diags(&self) -> i64 {
        self.hi - self.lo + 1
    }

    /// Calls `f(matrix offset, diagonal offset)` for every element of the band in one matrix,
    /// and `pad(diagonal offset)` for every padding slot of the packed diagonals.
    fn walk(&self, mut f: impl FnMut(usize, usize), mut pad: impl FnMut(usize)) {
        for m in 0..self.num_diags() {
            let d = self.hi - m;
            let (len, off) = diag_len_and_offset(d, self.max_len, self.rows, self.cols, self.align);
            let (y0, x0) = ((-d).max(0), d.max(0));
            for n in 0..self.max_len {
                let slot = (m * self.max_len + n) as usize;
                if n < off || n >= off + len {
                    pad(slot);
                } else {
                    let i = n - off;
                    f(((y0 + i) * self.cols + x0 + i) as usize, slot);
                }
            }
        }
    }
}

fn diag_kernel<T: TensorType>(
    d: &Tensor,
    geo: &Geometry,
    pad: T,
    out_shape: &[usize],
) -> Result<Tensor> {
    let src = d.as_slice::<T>()?;
    let (mat, packed) = (
        (geo.rows * geo.cols) as usize,
        (geo.num_diags() * geo.max_len) as usize,
    );
    let n = super::batch::checked_len(out_shape)?;
    let batches = n / mat.max(1);
    let mut out = crate::array::alloc_filled(out_shape, n, pad, d.dtype())?;
    for b in 0..batches {
        let (o, s) = (
            &mut out[b * mat..(b + 1) * mat],
            &src[b * packed..(b + 1) * packed],
        );
        geo.walk(|mi, di| o[mi] = s[di].clone(), |_| ());
    }
    Tensor::from_vec(out_shape, out)
}

pub(super) struct DiagKernel {
    pub(super) align: (bool, bool),
}

impl Kernel for DiagKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = ctx.input(0);
        let (lo, hi) = diag_index(ctx.input(1))?;
        let mut rows = scalar_i64(ctx.input(2), "num_rows")?;
        let mut cols = scalar_i64(ctx.input(3), "num_cols")?;
        if ctx.input(4).rank() != 0 {
            return Err(Error::invalid_argument("padding_value must be a scalar"));
        }
        let ds = d.shape();
        if ds.is_empty() {
            return Err(Error::invalid_argument(format!(
                "diagonal must be at least 1-dim, received shape: {}",
                format_dims(ds)
            )));
        }
        if lo > hi {
            return Err(Error::invalid_argument(format!(
                "lower_diag_index must not be larger than upper_diag_index: {lo} > {hi}"
            )));
        }
        let r = ds.len();
        if lo != hi && (r < 2 || ds[r - 2] as i64 != hi - lo + 1) {
            return Err(Error::invalid_argument(
                "The number of diagonals provided in the input does not match the \
                 lower_diag_index and upper_diag_index range.",
            ));
        }
        let max_len = ds[r - 1] as i64;
        let (min_rows, min_cols) = (max_len - hi.min(0), max_len + lo.max(0));
        if rows != -1 && rows < min_rows {
            return Err(Error::invalid_argument("The number of rows is too small."));
        }
        if cols != -1 && cols < min_cols {
            return Err(Error::invalid_argument(
                "The number of columns is too small.",
            ));
        }
        match (rows, cols) {
            (-1, -1) => {
                rows = min_rows.max(min_cols);
                cols = rows;
            }
            (-1, _) => rows = min_rows,
            (_, -1) => cols = min_cols,
            _ => {}
        }
        if rows != min_rows && cols != min_cols {
            return Err(Error::invalid_argument(
                "The number of rows or columns is not consistent with the specified d_lower, \
                 d_upper, and diagonal.",
            ));
        }
        let keep = if lo == hi { r - 1 } else { r - 2 };
        let mut shape = ds[..keep].to_vec();
        shape.extend([rows as usize, cols as usize]);
        let geo = Geometry {
            lo,
            hi,
            rows,
            cols,
            max_len,
            align: self.align,
        };
        let dt = d.dtype();
        let out = weir_graph::match_data_dtype!(dt,
            T => diag_kernel::<T>(d, &geo, ctx.input(4).to_scalar::<T>()?, &shape)?,
            _ => return Err(Error::invalid_argument(format!("MatrixDiag does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn input_geometry(x: &[usize], k: &Tensor, align: (bool, bool), period: &str) -> Result<Geometry> {
    let (lo, hi) = diag_index(k)?;
    if x.len() < 2 {
        return Err(Error::invalid_argument(format!(
            "input must be at least 2-dim, received shape: {}",
            format_dims(x)
        )));
    }
    let (rows, cols) = (x[x.len() - 2] as i64, x[x.len() - 1] as i64);
    check_bounds(lo, hi, rows, cols, period)?;
    let max_len = (rows + hi.min(0)).min(cols - lo.max(0)).max(0);
    Ok(Geometry {
        lo,
        hi,
        rows,
        cols,
        max_len,
        align,
    })
}

fn part_kernel<T: TensorType>(x: &Tensor, geo: &Geometry, pad: T) -> Result<Tensor> {
    let src = x.as_slice::<T>()?;
    let xs = x.shape();
    let mat = (geo.rows * geo.cols) as usize;
    let batches = super::batch::checked_len(&xs[..xs.len() - 2])?;
    let mut shape = xs[..xs.len() - 2].to_vec();
    if geo.num_diags() > 1 {
        shape.push(geo.num_diags() as usize);
    }
    shape.push(geo.max_len as usize);
    let packed = (geo.num_diags() * geo.max_len) as usize;
    let n = super::batch::checked_len(&shape)?;
    let mut out = crate::array::alloc_filled(&shape, n, pad, x.dtype())?;
    for b in 0..batches {
        let (o, s) = (
            &mut out[b * packed..(b + 1) * packed],
            &src[b * mat..(b + 1) * mat],
        );
        geo.walk(|mi, di| o[di] = s[mi].clone(), |_| ());
    }
    Tensor::from_vec(&shape, out)
}

pub(super) struct DiagPartKernel {
    pub(super) align: (bool, bool),
}

impl Kernel for DiagPartKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if ctx.input(2).num_elements() != 1 {
            return Err(Error::invalid_argument("Padding must be scalar."));
        }
        let x = ctx.input(0);
        let geo = input_geometry(x.shape(), ctx.input(1), self.align, ".")?;
        let dt = x.dtype();
        let out = weir_graph::match_data_dtype!(dt,
            T => part_kernel::<T>(x, &geo, ctx.input(2).to_scalar::<T>()?)?,
            _ => return Err(Error::invalid_argument(format!("MatrixDiagPart does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn set_kernel<T: TensorType>(out: &mut Tensor, d: &Tensor, geo: &Geometry) -> Result<()> {
    let src = d.as_slice::<T>()?;
    let mat = (geo.rows * geo.cols) as usize;
    let packed = (geo.num_diags() * geo.max_len) as usize;
    let o = out.as_slice_mut::<T>()?;
    for b in 0..o.len() / mat.max(1) {
        let (o, s) = (
            &mut o[b * mat..(b + 1) * mat],
            &src[b * packed..(b + 1) * packed],
        );
        geo.walk(|mi, di| o[mi] = s[di].clone(), |_| ());
    }
    Ok(())
}

pub(super) struct SetDiagKernel {
    pub(super) align: (bool, bool),
}

impl Kernel for SetDiagKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (xs, ds) = (ctx.input(0).shape().to_vec(), ctx.input(1).shape().to_vec());
        let (lo, hi) = diag_index(ctx.input(2))?;
        if xs.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "input must be at least 2-dim, received shape: {}",
                format_dims(&xs)
            )));
        }
        if ds.is_empty() {
            return Err(Error::invalid_argument(format!(
                "diagonal must be at least 1-dim, received shape: {}",
                format_dims(&ds)
            )));
        }
        let geo = input_geometry(&xs, ctx.input(2), self.align, "")?;
        let n = geo.num_diags();
        if lo != hi && ds.get(xs.len() - 2).is_none_or(|&d| d as i64 != n) {
            return Err(Error::invalid_argument(
                "The number of diagonals provided in `diag` is not consistent with \
                 `lower_diag_index` and `upper_diag_index`",
            ));
        }
        let mut want = xs[..xs.len() - 2].to_vec();
        if n > 1 {
            want.push(n as usize);
        }
        want.push(geo.max_len as usize);
        if want != ds {
            return Err(Error::invalid_argument(format!(
                "Either first dimensions of diagonal don't match input.shape[:-2], or \
                 diagonal.shape[:-1] is not equal to the longests diagonal in range \
                 [lower_diag_index:upper_diag_index].\nInput shape: {}\nDiagonal shape: {}\n\
                 Expected diagonal shape: {}",
                format_dims(&xs),
                format_dims(&ds),
                format_dims(&want)
            )));
        }
        let d = ctx.input(1).clone();
        let mut out = ctx.take_input(0);
        let dt = out.dtype();
        weir_graph::match_data_dtype!(dt,
            T => set_kernel::<T>(&mut out, &d, &geo)?,
            _ => return Err(Error::invalid_argument(format!("MatrixSetDiag does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn align_of(node: &Node) -> Result<(bool, bool)> {
    Align::parse(&node.attr::<String>("align")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_moves_short_diagonals() {
        // A 3x4 matrix, diagonal 2 has length 2; right-aligned it starts at slot 1 of 3.
        assert_eq!(diag_len_and_offset(2, 3, 3, 4, (false, true)), (2, 1));
        assert_eq!(diag_len_and_offset(2, 3, 3, 4, (true, false)), (2, 0));
        assert_eq!(diag_len_and_offset(-1, 3, 3, 4, (false, true)), (2, 0));
        assert_eq!(diag_len_and_offset(-1, 3, 3, 4, (true, false)), (2, 1));
    }

    #[test]
    fn index_checks_use_tensorflows_messages() {
        let e = input_geometry(&[3], &Tensor::scalar(0i32), (false, true), ".").unwrap_err();
        assert_eq!(
            e.message(),
            "input must be at least 2-dim, received shape: [3]"
        );
        let e = input_geometry(&[3, 3], &Tensor::scalar(4i32), (false, true), ".").unwrap_err();
        assert_eq!(
            e.message(),
            "lower_diag_index is out of bound: 4. It must be between -3 and 3"
        );
        let e =
            input_geometry(&[3, 3], &Tensor::from(vec![1i32, 0]), (false, true), ".").unwrap_err();
        assert_eq!(
            e.message(),
            "lower_diag_index must not be larger than upper_diag_index: 1 > 0"
        );
        let e = diag_index(&Tensor::from(vec![1i32, 2, 3])).unwrap_err();
        assert!(e.is_invalid_argument());
        assert_eq!(
            e.message(),
            "diag_index must have only one or two elements, received 3 elements."
        );
    }
}
