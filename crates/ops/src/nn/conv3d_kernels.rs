//! The arithmetic of `Conv3D` and its backprops over NDHWC volumes: the cuboid window geometry
//! (shared with the 3-D pools), im2col/col2im over volumes, and one matrix product per block of
//! output positions, as TensorFlow's CPU kernels reduce the convolution to a contraction of
//! extracted patches with the filter.

use std::ops::Range;

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, LinalgScalar};
use weir_graph::{Error, HalfFloat, Result};

use super::padding::{conv_output_size, Padding};
use super::NnFloat;

/// The geometry of one windowed op over an NDHWC volume: input `[n, dims..., c]`, a window of
/// `k` moved by `s`, giving `out` positions per axis with `pad` elements of padding before.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cuboid {
    pub n: usize,
    pub dims: [usize; 3],
    pub c: usize,
    pub k: [usize; 3],
    pub s: [usize; 3],
    pub out: [usize; 3],
    pub pad: [usize; 3],
}

impl Cuboid {
    /// The geometry of a window `k` with strides `s` over `[n, dims..., c]` (TensorFlow's
    /// `Get3dOutputSize`: per axis `GetWindowedOutputSize`).
    pub(super) fn new(
        n: usize,
        dims: [usize; 3],
        c: usize,
        k: [usize; 3],
        s: [usize; 3],
        padding: Padding,
    ) -> Result<Cuboid> {
        let mut out = [0; 3];
        let mut pad = [0; 3];
        for i in 0..3 {
            (out[i], pad[i]) = conv_output_size(dims[i], k[i], s[i], padding)?;
        }
        Ok(Cuboid {
            n,
            dims,
            c,
            k,
            s,
            out,
            pad,
        })
    }

    /// The input index along `axis` of output position `o` and window offset `k`, if inside.
    #[inline]
    pub(super) fn at(&self, axis: usize, o: usize, k: usize) -> Option<usize> {
        (o * self.s[axis] + k)
            .checked_sub(self.pad[axis])
            .filter(|&i| i < self.dims[axis])
    }

    /// Output positions per image.
    pub(super) fn positions(&self) -> usize {
        self.out.iter().product()
    }

    /// Elements per input image.
    pub(super) fn image_len(&self) -> usize {
        self.dims.iter().product::<usize>() * self.c
    }

    /// Elements of one patch (a row of the patch matrix).
    fn patch_len(&self) -> usize {
        self.k.iter().product::<usize>() * self.c
    }

    /// The (plane, row, column) of flat output position `p`.
    #[inline]
    pub(super) fn split(&self, p: usize) -> [usize; 3] {
        [
            p / (self.out[1] * self.out[2]),
            p / self.out[2] % self.out[1],
            p % self.out[2],
        ]
    }
}

/// Patch rows per block: the patch buffer stays near 2^18 elements however large the volume.
const BLOCK_ELEMS: usize = 1 << 18;

fn blocks(g: &Cuboid) -> impl Iterator<Item = Range<usize>> {
    let rows = g.positions();
    let step = (BLOCK_ELEMS / g.patch_len().max(1)).max(1);
    (0..rows)
        .step_by(step)
        .map(move |r| r..(r + step).min(rows))
}

/// Visits the window offsets of output position `r` in patch order: `f(patch offset, image
/// offset)` for each `c`-long run, the image offset `None` where the window is in the padding.
#[inline]
fn walk(g: &Cuboid, r: usize, mut f: impl FnMut(usize, Option<usize>)) {
    let c = g.c;
    let [oz, oy, ox] = g.split(r);
    let mut at = 0;
    for kz in 0..g.k[0] {
        let iz = g.at(0, oz, kz);
        for ky in 0..g.k[1] {
            let iy = g.at(1, oy, ky);
            for kx in 0..g.k[2] {
                let src = match (iz, iy, g.at(2, ox, kx)) {
                    (Some(iz), Some(iy), Some(ix)) => {
                        Some(((iz * g.dims[1] + iy) * g.dims[2] + ix) * c)
                    }
                    _ => None,
                };
                f(at, src);
                at += c;
            }
        }
    }
}

/// Copies the receptive fields of output positions `rows` of image `x` into `patches`
/// (`[rows, kd * kh * kw * c]`), zeros where the window hangs over the padding.
fn im2col<T: NnFloat>(g: &Cuboid, x: &[T], rows: Range<usize>, patches: &mut [T]) {
    let (k, c) = (g.patch_len(), g.c);
    for (r, row) in rows.zip(patches.chunks_exact_mut(k)) {
        walk(g, r, |at, src| match src {
            Some(src) => row[at..at + c].copy_from_slice(&x[src..src + c]),
            None => row[at..at + c].fill(T::ZERO),
        });
    }
}

/// Adds each patch row of `dpatches` (output positions `rows`) back into the image gradient
/// `dx`: the adjoint of [`im2col`].
fn col2im<T: NnFloat>(g: &Cuboid, dpatches: &[T], rows: Range<usize>, dx: &mut [T]) {
    let (k, c) = (g.patch_len(), g.c);
    for (r, row) in rows.zip(dpatches.chunks_exact(k)) {
        walk(g, r, |at, dst| {
            if let Some(dst) = dst {
                for (a, &b) in dx[dst..dst + c].iter_mut().zip(&row[at..at + c]) {
                    *a = *a + b;
                }
            }
        });
    }
}

fn view<T>(s: &[T], r: usize, c: usize) -> Result<ArrayView2<'_, T>> {
    ArrayView2::from_shape((r, c), s).map_err(|e| Error::internal(e.to_string()))
}

fn view_mut<T>(s: &mut [T], r: usize, c: usize) -> Result<ArrayViewMut2<'_, T>> {
    ArrayViewMut2::from_shape((r, c), s).map_err(|e| Error::internal(e.to_string()))
}

/// `Conv3D` of `x` (`[n, d, h, w, c]`) with filter `f` (`[kd, kh, kw, c, out_c]`).
pub(super) fn forward<T: NnFloat + LinalgScalar>(
    g: &Cuboid,
    x: &[T],
    f: &[T],
    out_c: usize,
) -> Result<Vec<T>> {
    let (k, rows, img) = (g.patch_len(), g.positions(), g.image_len());
    let fv = view(f, k, out_c)?;
    let mut out = vec![T::ZERO; g.n * rows * out_c];
    let mut patches = Vec::new();
    for b in 0..g.n {
        let image = &x[b * img..][..img];
        for block in blocks(g) {
            let len = block.len();
            patches.resize(len * k, T::ZERO);
            let o = &mut out[(b * rows + block.start) * out_c..][..len * out_c];
            im2col(g, image, block, &mut patches);
            general_mat_mul(
                T::ONE,
                &view(&patches, len, k)?,
                &fv,
                T::ZERO,
                &mut view_mut(o, len, out_c)?,
            );
        }
    }
    Ok(out)
}

/// `Conv3D` for a half type `H` as TensorFlow's Eigen contraction computes it on the CPU: each
/// output starts at zero and takes the patch's terms in patch order, one fused step at a time
/// (`H(float(acc) + float(x) * float(w))`, Eigen's half `pmadd`), rounded to `H` after every
/// step. `x` and `f` hold the `H` inputs widened to f32; the result holds `H` values as f32.
pub(super) fn forward_half<H: HalfFloat>(
    g: &Cuboid,
    x: &[f32],
    f: &[f32],
    out_c: usize,
) -> Vec<f32> {
    let (k, rows, img) = (g.patch_len(), g.positions(), g.image_len());
    let mut out = vec![0.0f32; g.n * rows * out_c];
    let mut patches = Vec::new();
    for b in 0..g.n {
        let image = &x[b * img..][..img];
        for block in blocks(g) {
            patches.resize(block.len() * k, 0.0);
            let o = &mut out[(b * rows + block.start) * out_c..][..block.len() * out_c];
            im2col(g, image, block, &mut patches);
            for (acc, p) in o.chunks_exact_mut(out_c).zip(patches.chunks_exact(k)) {
                for (&pk, w) in p.iter().zip(f.chunks_exact(out_c)) {
                    for (a, &wk) in acc.iter_mut().zip(w) {
                        *a = H::from_f32(*a + pk * wk).to_f32();
                    }
                }
            }
        }
    }
    out
}

/// `Conv3DBackpropFilterV2` for a half type `H` as TensorFlow's CPU kernel computes it: each
/// filter gradient takes its terms over the output positions in order, one fused step at a time
/// (see [`forward_half`]). Inputs and result as there.
pub(super) fn backprop_filter_half<H: HalfFloat>(
    g: &Cuboid,
    x: &[f32],
    dy: &[f32],
    out_c: usize,
) -> Vec<f32> {
    let (k, rows, img) = (g.patch_len(), g.positions(), g.image_len());
    let mut df = vec![0.0f32; k * out_c];
    let mut patches = Vec::new();
    for b in 0..g.n {
        let image = &x[b * img..][..img];
        for block in blocks(g) {
            patches.resize(block.len() * k, 0.0);
            let d = &dy[(b * rows + block.start) * out_c..][..block.len() * out_c];
            im2col(g, image, block, &mut patches);
            for (p, dr) in patches.chunks_exact(k).zip(d.chunks_exact(out_c)) {
                for (&pk, acc) in p.iter().zip(df.chunks_exact_mut(out_c)) {
                    for (a, &dk) in acc.iter_mut().zip(dr) {
                        *a = H::from_f32(*a + pk * dk).to_f32();
                    }
                }
            }
        }
    }
    df
}

/// `Conv3DBackpropInputV2`: the gradient of [`forward`] with respect to its input, from the
/// output gradient `dy` (`[n, od, oh, ow, out_c]`).
pub(super) fn backprop_input<T: NnFloat + LinalgScalar>(
    g: &Cuboid,
    f: &[T],
    dy: &[T],
    out_c: usize,
) -> Result<Vec<T>> {
    let (k, rows, img) = (g.patch_len(), g.positions(), g.image_len());
    let ft = view(f, k, out_c)?.reversed_axes();
    let mut dx = vec![T::ZERO; g.n * img];
    let mut dpatches = Vec::new();
    for b in 0..g.n {
        for block in blocks(g) {
            let len = block.len();
            dpatches.resize(len * k, T::ZERO);
            let d = view(
                &dy[(b * rows + block.start) * out_c..][..len * out_c],
                len,
                out_c,
            )?;
            general_mat_mul(
                T::ONE,
                &d,
                &ft,
                T::ZERO,
                &mut view_mut(&mut dpatches, len, k)?,
            );
            col2im(g, &dpatches, block, &mut dx[b * img..][..img]);
        }
    }
    Ok(dx)
}

/// `Conv3DBackpropFilterV2`: the gradient of [`forward`] with respect to its filter.
pub(super) fn backprop_filter<T: NnFloat + LinalgScalar>(
    g: &Cuboid,
    x: &[T],
    dy: &[T],
    out_c: usize,
) -> Result<Vec<T>> {
    let (k, rows, img) = (g.patch_len(), g.positions(), g.image_len());
    let mut df = vec![T::ZERO; k * out_c];
    let mut patches = Vec::new();
    for b in 0..g.n {
        let image = &x[b * img..][..img];
        for block in blocks(g) {
            let len = block.len();
            patches.resize(len * k, T::ZERO);
            let d = view(
                &dy[(b * rows + block.start) * out_c..][..len * out_c],
                len,
                out_c,
            )?;
            im2col(g, image, block, &mut patches);
            let pt = view(&patches, len, k)?.reversed_axes();
            general_mat_mul(T::ONE, &pt, &d, T::ONE, &mut view_mut(&mut df, k, out_c)?);
        }
    }
    Ok(df)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direct convolution to check the patch matrices against.
    fn naive(g: &Cuboid, x: &[f64], f: &[f64], out_c: usize) -> Vec<f64> {
        let mut out = vec![0.0; g.n * g.positions() * out_c];
        for b in 0..g.n {
            for p in 0..g.positions() {
                let [oz, oy, ox] = g.split(p);
                for o in 0..out_c {
                    let mut s = 0.0;
                    for kz in 0..g.k[0] {
                        for ky in 0..g.k[1] {
                            for kx in 0..g.k[2] {
                                let (Some(iz), Some(iy), Some(ix)) =
                                    (g.at(0, oz, kz), g.at(1, oy, ky), g.at(2, ox, kx))
                                else {
                                    continue;
                                };
                                for c in 0..g.c {
                                    let xi = (((b * g.dims[0] + iz) * g.dims[1] + iy) * g.dims[2]
                                        + ix)
                                        * g.c
                                        + c;
                                    let fi =
                                        (((kz * g.k[1] + ky) * g.k[2] + kx) * g.c + c) * out_c + o;
                                    s += x[xi] * f[fi];
                                }
                            }
                        }
                    }
                    out[(b * g.positions() + p) * out_c + o] = s;
                }
            }
        }
        out
    }

    #[test]
    fn patches_match_direct_convolution_and_adjoints_agree() {
        let (dims, c, k, out_c) = ([3, 5, 4], 2, [2, 3, 2], 3);
        let x: Vec<f64> = (0..2 * 3 * 5 * 4 * 2)
            .map(|i| ((i * 7) % 11) as f64 - 5.0)
            .collect();
        let f: Vec<f64> = (0..2 * 3 * 2 * 2 * 3)
            .map(|i| ((i * 5) % 7) as f64 * 0.5 - 1.0)
            .collect();
        for (s, p) in [
            ([1, 1, 1], Padding::Same),
            ([2, 1, 3], Padding::Same),
            ([1, 2, 1], Padding::Valid),
            ([2, 2, 2], Padding::Valid),
        ] {
            let g = Cuboid::new(2, dims, c, k, s, p).unwrap();
            let got = forward(&g, &x, &f, out_c).unwrap();
            assert_eq!(got, naive(&g, &x, &f, out_c), "{s:?} {p:?}");
            // <conv(x, f), dy> = <x, dx(dy)> = <f, df(dy)>: the backprops are the adjoints.
            let dy: Vec<f64> = (0..got.len()).map(|i| ((i * 3) % 5) as f64 - 2.0).collect();
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
            let dx = backprop_input(&g, &f, &dy, out_c).unwrap();
            let df = backprop_filter(&g, &x, &dy, out_c).unwrap();
            assert_eq!(dot(&got, &dy), dot(&x, &dx));
            assert_eq!(dot(&got, &dy), dot(&f, &df));
        }
    }
}
