//! The CPU kernels of `MaxPool3DGrad`, `AvgPool3DGrad` and `MaxPool3DGradGrad`, step for step as
//! TensorFlow 2.21 computes them, so float results match bit for bit: the two gradients walk the
//! output positions column-major (width, then height, then depth), spread each gradient over
//! the broadcast window TensorFlow's `GetBroadcastSize` gives (quirk included) and add in that
//! order; `MaxPool3DGrad` routes a gradient to every window element within 1e-5 of the maximum.

use weir_graph::{format_dims, Error, Result, Tensor};

use super::conv3d_kernels::Cuboid;
use super::pool3d::{window, Pool3DKernel};
use super::NnFloat;

/// TensorFlow's `GetBroadcastSize` along `axis` of `g` (the 2-D pool's, quirk included): the
/// first input index and the number of inputs the gradient of output `index` is spread over.
fn broadcast_size(index: usize, g: &Cuboid, axis: usize) -> Result<(usize, usize)> {
    let (start, size) = super::avg_pool::broadcast_size(
        index as i64,
        g.dims[axis] as i64,
        g.k[axis] as i64,
        g.s[axis] as i64,
        g.pad[axis] as i64,
    )?;
    Ok((start.max(0) as usize, size.max(0) as usize))
}

fn shape_check(what: &str, want: &[usize], got: &[usize]) -> Result<()> {
    if want != got {
        return Err(Error::invalid_argument(format!(
            "Expected {what} shape to be {}, but got {}",
            format_dims(want),
            format_dims(got)
        )));
    }
    Ok(())
}

fn rank5(t: &Tensor, what: &str) -> Result<()> {
    if t.rank() != 5 {
        return Err(Error::invalid_argument(format!(
            "{what} must be 5-dimensional"
        )));
    }
    Ok(())
}

/// Visits the output positions (`[plane, row, col]` of `out`, in TensorFlow's loop order:
/// columns outermost) with the broadcast window of each: `f(position, starts, sizes)`.
fn broadcast_windows(
    g: &Cuboid,
    out: [usize; 3],
    mut f: impl FnMut([usize; 3], [usize; 3], [usize; 3]),
) -> Result<()> {
    for pc in 0..out[2] {
        let (c0, cs) = broadcast_size(pc, g, 2)?;
        for pr in 0..out[1] {
            let (r0, rs) = broadcast_size(pr, g, 1)?;
            for pp in 0..out[0] {
                let (p0, ps) = broadcast_size(pp, g, 0)?;
                f([pp, pr, pc], [p0, r0, c0], [ps, rs, cs]);
            }
        }
    }
    Ok(())
}

/// Calls `f(input offset)` for the start of each `c`-long run of image `b`'s box at `start`
/// of `size`, clipped to the input (TensorFlow's slices never leave it for valid sizes).
#[inline]
fn each_run(g: &Cuboid, b: usize, start: [usize; 3], size: [usize; 3], mut f: impl FnMut(usize)) {
    let end = [0, 1, 2].map(|i| (start[i] + size[i]).min(g.dims[i]));
    for z in start[0]..end[0] {
        for y in start[1]..end[1] {
            for x in start[2]..end[2] {
                f((((b * g.dims[0] + z) * g.dims[1] + y) * g.dims[2] + x) * g.c);
            }
        }
    }
}

/// `MaxPool3DGrad(orig_input, orig_output, grad)`.
pub(super) fn max_pool_grad<T: NnFloat>(
    k: &Pool3DKernel,
    x: &Tensor,
    y: &Tensor,
    dy: &Tensor,
) -> Result<Tensor> {
    rank5(x, "tensor_in")?;
    rank5(y, "tensor_out")?;
    rank5(dy, "out_backprop")?;
    let g = k.cuboid(x.shape())?;
    let out_dims = [g.n, g.out[0], g.out[1], g.out[2], g.c];
    shape_check("orig_output", &out_dims, y.shape())?;
    shape_check("grad", &out_dims, dy.shape())?;
    let (xs, ys, ds) = (x.as_slice::<T>()?, y.as_slice::<T>()?, dy.as_slice::<T>()?);
    let mut dx = vec![T::ZERO; xs.len()];
    let tol = T::from(1e-5f32).unwrap_or_else(T::nan);
    let c = g.c;
    broadcast_windows(&g, g.out, |o, start, size| {
        for b in 0..g.n {
            let at = (((b * g.out[0] + o[0]) * g.out[1] + o[1]) * g.out[2] + o[2]) * c;
            let (m, d) = (&ys[at..at + c], &ds[at..at + c]);
            each_run(&g, b, start, size, |i| {
                for ch in 0..c {
                    if (xs[i + ch] - m[ch]).abs() < tol {
                        dx[i + ch] = dx[i + ch] + d[ch];
                    }
                }
            });
        }
    })?;
    Tensor::from_vec(x.shape(), dx)
}

/// The input shape held by `AvgPool3DGrad`'s `orig_input_shape`.
fn shape_from(t: &Tensor) -> Result<Vec<usize>> {
    if t.rank() != 1 || t.num_elements() != 5 {
        return Err(Error::invalid_argument(
            "tensor_in must be 1-dimensional and 5 elements",
        ));
    }
    t.as_slice::<i32>()?
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .map_err(|_| Error::invalid_argument(format!("Dimension {d} must be >= 0")))
        })
        .collect()
}

/// `AvgPool3DGrad(orig_input_shape, grad)`.
pub(super) fn avg_pool_grad<T: NnFloat>(
    k: &Pool3DKernel,
    shape: &Tensor,
    dy: &Tensor,
) -> Result<Tensor> {
    let dims = shape_from(shape)?;
    rank5(dy, "out_backprop")?;
    let g = k.cuboid(&dims)?;
    let dd = dy.shape();
    for (i, what) in [(0, "first"), (4, "last")] {
        if dims[i] != dd[i] {
            return Err(Error::invalid_argument(format!(
                "Expected {what} dimension of tensor_in_shape and out_backprop to match, got {} and {}",
                dims[i], dd[i]
            )));
        }
    }
    let ds = dy.as_slice::<T>()?;
    let mut dx = vec![T::ZERO; dims.iter().product()];
    let c = g.c;
    let mut scaled = vec![T::ZERO; c];
    broadcast_windows(&g, [dd[1], dd[2], dd[3]], |o, start, size| {
        // TensorFlow multiplies by the float reciprocal of the broadcast size, in T.
        let size_f = (size[0] * size[1] * size[2]) as f32;
        let r = T::from(1.0f32 / size_f).unwrap_or_else(T::nan);
        for b in 0..g.n {
            let at = (((b * dd[1] + o[0]) * dd[2] + o[1]) * dd[3] + o[2]) * c;
            for (s, &d) in scaled.iter_mut().zip(&ds[at..at + c]) {
                *s = d * r;
            }
            each_run(&g, b, start, size, |i| {
                for (a, &s) in dx[i..i + c].iter_mut().zip(&scaled) {
                    *a = *a + s;
                }
            });
        }
    })?;
    Tensor::from_vec(&dims, dx)
}

/// `MaxPool3DGradGrad(orig_input, orig_output, grad)`.
pub(super) fn max_pool_grad_grad<T: NnFloat>(
    k: &Pool3DKernel,
    x: &Tensor,
    y: &Tensor,
    gx: &Tensor,
) -> Result<Tensor> {
    rank5(x, "tensor_in")?;
    rank5(y, "tensor_out")?;
    rank5(gx, "out_grad_backprop")?;
    let g = k.cuboid(x.shape())?;
    let out_dims = [g.n, g.out[0], g.out[1], g.out[2], g.c];
    shape_check("orig_output", &out_dims, y.shape())?;
    shape_check("grad", x.shape(), gx.shape())?;
    for (t, what) in [
        (x, "tensor_in"),
        (y, "tensor_out"),
        (gx, "out_grad_backprop"),
    ] {
        if t.num_elements() == 0 {
            return Err(Error::invalid_argument(format!(
                "received empty tensor {what}: {}",
                format_dims(t.shape())
            )));
        }
    }
    let (xs, ys, gs) = (x.as_slice::<T>()?, y.as_slice::<T>()?, gx.as_slice::<T>()?);
    let c = g.c;
    let mut out = vec![T::ZERO; ys.len()];
    for (q, o) in out.chunks_exact_mut(c).enumerate() {
        let (b, p) = (q / g.positions(), q % g.positions());
        let [zr, yr, wr] = window(&g, p);
        let m = &ys[q * c..][..c];
        for ch in 0..c {
            // The first window position (plane, row, column order) equal to the maximum.
            'search: for z in zr.clone() {
                for yy in yr.clone() {
                    for w in wr.clone() {
                        let i = (((b * g.dims[0] + z) * g.dims[1] + yy) * g.dims[2] + w) * c + ch;
                        if xs[i] == m[ch] {
                            o[ch] = gs[i];
                            break 'search;
                        }
                    }
                }
            }
        }
    }
    Tensor::from_vec(&out_dims, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::padding::Padding;

    #[test]
    fn broadcast_sizes_keep_tensorflows_quirk() {
        // Input 4, window 5, stride 1, SAME (pad 2): row 0's window covers -2..=2, three rows
        // inside, but TensorFlow spreads its gradient over four.
        let g = Cuboid::new(1, [4, 1, 1], 1, [5, 1, 1], [1; 3], Padding::Same).unwrap();
        let sizes: Vec<_> = (0..4).map(|i| broadcast_size(i, &g, 0).unwrap()).collect();
        assert_eq!(sizes, [(0, 4), (0, 4), (0, 4), (1, 3)]);
    }
}
