//! The kernels of `DepthwiseConv2dNative` and its backprops over NHWC slices: each walks the
//! output positions in memory order and, per window tap inside the image, combines one
//! contiguous channel row of the input with one contiguous row of the filter, so nothing is
//! allocated but the result.

use weir_graph::{format_dims, Error, Result};

use super::padding::{windowed_output_size, WindowPadding};
use super::NnFloat;

/// The checked attributes of a depthwise node.
#[derive(Clone, Copy, Debug)]
pub(super) struct Attrs {
    pub(super) strides: (usize, usize),
    pub(super) dilations: (usize, usize),
    pub(super) padding: WindowPadding,
}

/// The geometry of one depthwise convolution.
#[derive(Clone, Copy, Debug)]
pub(super) struct Geom {
    pub(super) n: usize,
    pub(super) h: usize,
    pub(super) w: usize,
    pub(super) c: usize,
    pub(super) mult: usize,
    pub(super) kh: usize,
    pub(super) kw: usize,
    pub(super) a: Attrs,
    pub(super) oh: usize,
    pub(super) ow: usize,
    pub(super) pad_top: usize,
    pub(super) pad_left: usize,
}

impl Geom {
    /// The geometry of input dims `x` and filter dims `f`, with TensorFlow's kernel checks.
    pub(super) fn new(a: Attrs, x: &[usize], f: &[usize], op: &str) -> Result<Geom> {
        if x.len() != 4 {
            return Err(Error::invalid_argument(format!(
                "{op}: input must be 4-dimensional{}",
                format_dims(x)
            )));
        }
        if f.len() != 4 {
            return Err(Error::invalid_argument(format!(
                "{op}: filter must be 4-dimensional: {}",
                format_dims(f)
            )));
        }
        if x[3] != f[2] {
            return Err(Error::invalid_argument(format!(
                "{op}: input and filter must have the same depth: {} vs {}",
                x[3], f[2]
            )));
        }
        let eff = |k: usize, d: usize| k.saturating_sub(1) * d + 1;
        let (oh, pad_top) =
            windowed_output_size(x[1], eff(f[0], a.dilations.0), a.strides.0, a.padding, 0)?;
        let (ow, pad_left) =
            windowed_output_size(x[2], eff(f[1], a.dilations.1), a.strides.1, a.padding, 1)?;
        Ok(Geom {
            n: x[0],
            h: x[1],
            w: x[2],
            c: x[3],
            mult: f[3],
            kh: f[0],
            kw: f[1],
            a,
            oh,
            ow,
            pad_top,
            pad_left,
        })
    }

    pub(super) fn out_depth(&self) -> usize {
        self.c * self.mult
    }

    pub(super) fn out_dims(&self) -> [usize; 4] {
        [self.n, self.oh, self.ow, self.out_depth()]
    }

    #[inline]
    pub(super) fn in_row(&self, o: usize, k: usize) -> Option<usize> {
        (o * self.a.strides.0 + k * self.a.dilations.0)
            .checked_sub(self.pad_top)
            .filter(|&i| i < self.h)
    }

    #[inline]
    pub(super) fn in_col(&self, o: usize, k: usize) -> Option<usize> {
        (o * self.a.strides.1 + k * self.a.dilations.1)
            .checked_sub(self.pad_left)
            .filter(|&i| i < self.w)
    }

    /// Calls `f(out_offset, in_offset, filter_offset)` for every output position and every
    /// window tap inside the image, in memory order of the output.
    fn for_each_tap(&self, mut f: impl FnMut(usize, usize, usize)) {
        let oc = self.out_depth();
        for b in 0..self.n {
            for oy in 0..self.oh {
                for ox in 0..self.ow {
                    let o = ((b * self.oh + oy) * self.ow + ox) * oc;
                    for ky in 0..self.kh {
                        let Some(iy) = self.in_row(oy, ky) else {
                            continue;
                        };
                        for kx in 0..self.kw {
                            let Some(ix) = self.in_col(ox, kx) else {
                                continue;
                            };
                            let i = ((b * self.h + iy) * self.w + ix) * self.c;
                            f(o, i, (ky * self.kw + kx) * oc);
                        }
                    }
                }
            }
        }
    }
}

pub(super) fn forward<T: NnFloat>(g: &Geom, x: &[T], f: &[T]) -> Vec<T> {
    let (c, m, oc) = (g.c, g.mult, g.out_depth());
    let mut out = vec![T::ZERO; g.n * g.oh * g.ow * oc];
    if oc == 0 {
        return out;
    }
    g.for_each_tap(|o, i, k| {
        let (dst, xs, fs) = (&mut out[o..][..oc], &x[i..][..c], &f[k..][..oc]);
        if m == 1 {
            for ((d, &xv), &fv) in dst.iter_mut().zip(xs).zip(fs) {
                *d = *d + xv * fv;
            }
        } else {
            for ((d, fw), &xv) in dst.chunks_exact_mut(m).zip(fs.chunks_exact(m)).zip(xs) {
                for (dv, &fv) in d.iter_mut().zip(fw) {
                    *dv = *dv + xv * fv;
                }
            }
        }
    });
    out
}

pub(super) fn backprop_input<T: NnFloat>(g: &Geom, f: &[T], dy: &[T]) -> Vec<T> {
    let (c, m, oc) = (g.c, g.mult, g.out_depth());
    let mut dx = vec![T::ZERO; g.n * g.h * g.w * c];
    if oc == 0 {
        return dx;
    }
    g.for_each_tap(|o, i, k| {
        let (dst, ds, fs) = (&mut dx[i..][..c], &dy[o..][..oc], &f[k..][..oc]);
        if m == 1 {
            for ((d, &dv), &fv) in dst.iter_mut().zip(ds).zip(fs) {
                *d = *d + dv * fv;
            }
        } else {
            for ((d, dw), fw) in dst
                .iter_mut()
                .zip(ds.chunks_exact(m))
                .zip(fs.chunks_exact(m))
            {
                *d = dw.iter().zip(fw).fold(*d, |acc, (&a, &b)| acc + a * b);
            }
        }
    });
    dx
}

pub(super) fn backprop_filter<T: NnFloat>(g: &Geom, x: &[T], dy: &[T]) -> Vec<T> {
    let (c, m, oc) = (g.c, g.mult, g.out_depth());
    let mut df = vec![T::ZERO; g.kh * g.kw * oc];
    if oc == 0 {
        return df;
    }
    g.for_each_tap(|o, i, k| {
        let (dst, ds, xs) = (&mut df[k..][..oc], &dy[o..][..oc], &x[i..][..c]);
        if m == 1 {
            for ((d, &dv), &xv) in dst.iter_mut().zip(ds).zip(xs) {
                *d = *d + dv * xv;
            }
        } else {
            for ((d, dw), &xv) in dst.chunks_exact_mut(m).zip(ds.chunks_exact(m)).zip(xs) {
                for (dv, &gv) in d.iter_mut().zip(dw) {
                    *dv = *dv + gv * xv;
                }
            }
        }
    });
    df
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::Padding;

    fn attrs(s: (usize, usize), d: (usize, usize), p: Padding) -> Attrs {
        Attrs {
            strides: s,
            dilations: d,
            padding: p.into(),
        }
    }

    /// The definition, one output element at a time.
    fn naive(x: &[f64], xd: [usize; 4], f: &[f64], fd: [usize; 4], a: Attrs) -> Vec<f64> {
        let g = Geom::new(a, &xd, &fd, "test").unwrap();
        let oc = g.out_depth();
        let mut out = vec![0.0; g.n * g.oh * g.ow * oc];
        for b in 0..g.n {
            for oy in 0..g.oh {
                for ox in 0..g.ow {
                    for c in 0..g.c {
                        for m in 0..g.mult {
                            let mut s = 0.0;
                            for ky in 0..g.kh {
                                for kx in 0..g.kw {
                                    let (Some(iy), Some(ix)) = (g.in_row(oy, ky), g.in_col(ox, kx))
                                    else {
                                        continue;
                                    };
                                    s += x[((b * g.h + iy) * g.w + ix) * g.c + c]
                                        * f[((ky * g.kw + kx) * g.c + c) * g.mult + m];
                                }
                            }
                            out[((b * g.oh + oy) * g.ow + ox) * oc + c * g.mult + m] = s;
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn kernels_match_the_definition_and_are_adjoint() {
        let xd = [2, 6, 5, 3];
        let x: Vec<f64> = (0..180).map(|i| ((i * 7) % 13) as f64 - 6.0).collect();
        for (fd, s, d, p) in [
            ([3, 3, 3, 1], (1, 1), (1, 1), Padding::Same),
            ([3, 2, 3, 2], (2, 1), (1, 1), Padding::Same),
            ([2, 3, 3, 2], (1, 2), (1, 1), Padding::Valid),
            ([3, 3, 3, 2], (1, 1), (2, 2), Padding::Same),
            ([2, 2, 3, 3], (1, 1), (2, 1), Padding::Valid),
        ] {
            let n: usize = fd.iter().product();
            let f: Vec<f64> = (0..n).map(|i| ((i * 5) % 7) as f64 * 0.5 - 1.0).collect();
            let a = attrs(s, d, p);
            let g = Geom::new(a, &xd, &fd, "test").unwrap();
            let y = forward::<f64>(&g, &x, &f);
            assert_eq!(y, naive(&x, xd, &f, fd, a), "{fd:?} {s:?} {d:?} {p:?}");
            // <conv(x, f), dy> = <x, dx(dy)> = <f, df(dy)>.
            let dy: Vec<f64> = (0..y.len()).map(|i| ((i * 3) % 5) as f64 - 2.0).collect();
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
            let lhs = dot(&y, &dy);
            assert_eq!(lhs, dot(&x, &backprop_input::<f64>(&g, &f, &dy)));
            assert_eq!(lhs, dot(&f, &backprop_filter::<f64>(&g, &x, &dy)));
        }
    }
}
