//! `tf.signal.dct`, `tf.signal.idct` and `tf.signal.mfccs_from_log_mel_spectrograms`: DCTs of
//! types I-IV through zero-padded real FFTs, composed from weir ops as TensorFlow's
//! `dct_ops.py` and `mfcc_ops.py` compose them (so results round as TensorFlow's do).

use std::f64::consts::PI;

use weir_graph::{Complex, DType, Error, Output, Result, Tensor};

use crate::array::IndexArg;
use crate::array::{concat, constant, expand_dims, pad, StridedSlice};
use crate::complex::{complex, real};
use crate::math::{cast, exp, mul, neg, range_from, realdiv, rsqrt, sqrt};
use crate::spectral::{irfft, rfft};

/// A scalar constant of a float or complex dtype (TensorFlow's Python-float operands).
fn scalar(g: &weir_graph::Graph, dtype: DType, v: f64) -> Result<Output> {
    let t = match dtype {
        DType::F32 => Tensor::scalar(v as f32),
        DType::F64 => Tensor::scalar(v),
        DType::C64 => Tensor::scalar(Complex::new(v as f32, 0.0)),
        DType::C128 => Tensor::scalar(Complex::new(v, 0.0)),
        other => {
            return Err(Error::invalid_argument(format!(
                "dct needs float32 or float64 input, got {}",
                other.python_name()
            )))
        }
    };
    constant(g, t)
}

/// `x[..., begin:end:stride]`, with `None` for an omitted bound.
fn last_axis_slice(
    x: &Output,
    begin: Option<i64>,
    end: Option<i64>,
    stride: i64,
) -> Result<Output> {
    let mut s = StridedSlice::new().ellipsis_mask(1);
    if begin.is_none() {
        s = s.begin_mask(2);
    }
    if end.is_none() {
        s = s.end_mask(2);
    }
    s.build(
        x,
        &[0, begin.unwrap_or(0)],
        &[0, end.unwrap_or(0)],
        &[1, stride],
    )
}

/// The options of `tf.signal.dct(input, type=2, n=None, axis=-1, norm=None)`.
#[derive(Clone, Debug)]
pub struct Dct {
    dct_type: i64,
    n: Option<i64>,
    axis: i64,
    norm: Option<String>,
}

impl Default for Dct {
    fn default() -> Dct {
        Dct {
            dct_type: 2,
            n: None,
            axis: -1,
            norm: None,
        }
    }
}

/// `tf.signal.dct(input)`: the unnormalized type-II DCT of the innermost dim of a float32 or
/// float64 tensor.
pub fn dct(input: impl Into<Output>) -> Result<Output> {
    Dct::new().build(input)
}

/// `tf.signal.idct(input)`: the inverse of [`dct`] up to a factor `2 * n` (a type-III DCT).
pub fn idct(input: impl Into<Output>) -> Result<Output> {
    Dct::new().build_inverse(input)
}

impl Dct {
    /// TensorFlow's defaults: type 2, no `n`, axis -1, no normalization.
    pub fn new() -> Dct {
        Dct::default()
    }

    /// The DCT type, 1 to 4.
    pub fn dct_type(mut self, t: i64) -> Dct {
        self.dct_type = t;
        self
    }

    /// The transform length: the innermost dim is cropped or zero-padded to it.
    pub fn n(mut self, n: i64) -> Dct {
        self.n = Some(n);
        self
    }

    /// The axis; TensorFlow only implements -1.
    pub fn axis(mut self, axis: i64) -> Dct {
        self.axis = axis;
        self
    }

    /// The normalization: `"ortho"` for the orthonormal DCT.
    pub fn norm(mut self, norm: impl Into<String>) -> Dct {
        self.norm = Some(norm.into());
        self
    }

    /// TensorFlow's `_validate_dct_arguments`, with its error kinds and messages.
    fn validate(&self, x: &Output) -> Result<bool> {
        if self.axis != -1 {
            return Err(Error::unimplemented(format!(
                "axis must be -1. Got: {}",
                self.axis
            )));
        }
        if matches!(self.n, Some(n) if n < 1) {
            return Err(Error::invalid_argument(
                "n should be a positive integer or None".to_string(),
            ));
        }
        if !(1..=4).contains(&self.dct_type) {
            return Err(Error::invalid_argument(
                "Types I, II, III and IV (I)DCT are supported.".to_string(),
            ));
        }
        let ortho = self.norm.as_deref() == Some("ortho");
        if self.dct_type == 1 {
            if ortho {
                return Err(Error::invalid_argument(
                    "Normalization is not supported for the Type-I DCT.".to_string(),
                ));
            }
            if matches!(last_dim(x), Some(d) if d < 2) {
                return Err(Error::invalid_argument(
                    "Type-I DCT requires the dimension to be greater than one.".to_string(),
                ));
            }
        }
        if let Some(other) = self.norm.as_deref().filter(|s| *s != "ortho") {
            return Err(Error::invalid_argument(format!(
                "Unknown normalization. Expected None or 'ortho', got: {other}"
            )));
        }
        Ok(ortho)
    }

    /// Adds the DCT under the name scope `dct`.
    pub fn build(self, input: impl Into<Output>) -> Result<Output> {
        let x = input.into();
        let ortho = self.validate(&x)?;
        dct_internal(&x, self.dct_type, self.n, ortho)
    }

    /// Adds `tf.signal.idct`: the DCT of the complementary type (III for II, II for III; I
    /// and IV are their own inverses up to scale), under the name scope `dct`.
    pub fn build_inverse(self, input: impl Into<Output>) -> Result<Output> {
        let x = input.into();
        let ortho = self.validate(&x)?;
        let inverse = match self.dct_type {
            2 => 3,
            3 => 2,
            t => t,
        };
        dct_internal(&x, inverse, self.n, ortho)
    }
}

fn last_dim(x: &Output) -> Option<usize> {
    x.shape().dims().and_then(|d| d.last().copied().flatten())
}

/// `[n1, n2, n2, ...]` of length `len` (TensorFlow's pad of `expand_dims(n1, 0)` with `n2`).
fn edge_weights(n1: &Output, n2: &Output, len: usize) -> Result<Output> {
    let g = n1.graph().clone();
    let p = constant(&g, Tensor::from_vec(&[1, 2], vec![0i32, len as i32 - 1])?)?;
    crate::new_op(&g, "PadV2")
        .input(expand_dims(n1, 0)?)
        .input(p)
        .input(n2.clone())
        .build()?
        .output(0)
}

/// `2 * exp(i * sign * range(n) * pi / 2 / n)`, TensorFlow's twiddle factors.
fn twiddles(zero: &Output, n_float: &Output, sign: f64) -> Result<Output> {
    let g = zero.graph().clone();
    let dt = zero.dtype();
    let start = scalar(&g, dt, 0.0)?;
    let delta = scalar(&g, dt, 1.0)?;
    let mut phase = range_from(&start, n_float, &delta)?;
    if sign < 0.0 {
        phase = neg(&phase)?;
    }
    let phase = mul(&phase, &scalar(&g, dt, PI)?)?;
    let phase = mul(&phase, &scalar(&g, dt, 0.5)?)?;
    let phase = realdiv(&phase, n_float)?;
    let e = exp(&complex(zero, &phase)?)?;
    let cdt = e.dtype();
    mul(&scalar(&g, cdt, 2.0)?, &e)
}

/// TensorFlow's `_dct_internal` for a validated type and a static innermost dim.
fn dct_internal(x: &Output, dct_type: i64, n: Option<i64>, ortho: bool) -> Result<Output> {
    let g = x.graph().clone();
    let _scope = g.name_scope("dct");
    let dt = x.dtype();
    let zero = scalar(&g, dt, 0.0)?;
    let seq_len = last_dim(x).ok_or_else(|| {
        Error::unimplemented("weir's dct needs an input of known innermost dim".to_string())
    })? as i64;
    let mut input = x.clone();
    if let Some(n) = n {
        input = if n <= seq_len {
            last_axis_slice(&input, Some(0), Some(n), 1)?
        } else {
            let rank = input.shape().rank().unwrap_or(1);
            let mut p = vec![[0i64, 0]; rank];
            p[rank - 1][1] = n - seq_len;
            pad(&input, &p)?
        };
    }
    let axis_dim = n.unwrap_or(seq_len);
    let axis_dim_float = scalar(&g, dt, axis_dim as f64)?;
    match dct_type {
        1 => {
            let mirrored = last_axis_slice(&input, Some(-2), Some(0), -1)?;
            let ext = concat(&[input, mirrored], -1)?;
            real(&rfft(&ext, None)?)
        }
        2 => {
            let scale = twiddles(&zero, &axis_dim_float, -1.0)?;
            let f = rfft(&input, Some(IndexArg::List(vec![2 * axis_dim])))?;
            let f = last_axis_slice(&f, None, Some(axis_dim), 1)?;
            let mut out = real(&mul(&f, &scale)?)?;
            if ortho {
                let n1 = mul(&scalar(&g, dt, 0.5)?, &rsqrt(&axis_dim_float)?)?;
                let n2 = mul(&n1, &scalar(&g, dt, 2f64.sqrt())?)?;
                out = mul(&out, &edge_weights(&n1, &n2, axis_dim as usize)?)?;
            }
            Ok(out)
        }
        3 => {
            if ortho {
                let n1 = sqrt(&axis_dim_float)?;
                let n2 = mul(&n1, &scalar(&g, dt, 0.5f64.sqrt())?)?;
                input = mul(&input, &edge_weights(&n1, &n2, axis_dim as usize)?)?;
            } else {
                input = mul(&input, &axis_dim_float)?;
            }
            let scale = twiddles(&zero, &axis_dim_float, 1.0)?;
            let c = mul(&scale, &complex(&input, &zero)?)?;
            let f = irfft(&c, Some(IndexArg::List(vec![2 * axis_dim])))?;
            last_axis_slice(&f, None, Some(axis_dim), 1)
        }
        _ => {
            let dct2 = dct_internal(&input, 2, Some(2 * axis_dim), false)?;
            let mut out = last_axis_slice(&dct2, Some(1), None, 2)?;
            if ortho {
                let s = mul(&scalar(&g, dt, 0.5f64.sqrt())?, &rsqrt(&axis_dim_float)?)?;
                out = mul(&out, &s)?;
            }
            Ok(out)
        }
    }
}

/// `tf.signal.mfccs_from_log_mel_spectrograms(log_mel_spectrograms)`: the type-II DCT of the
/// innermost dim scaled by `1 / sqrt(2 * num_mel_bins)` (HTK's scaling, which differs from the
/// orthonormal DCT in the 0th coefficient).
pub fn mfccs_from_log_mel_spectrograms(log_mel_spectrograms: impl Into<Output>) -> Result<Output> {
    let x = log_mel_spectrograms.into();
    let g = x.graph().clone();
    let _scope = g.name_scope("mfccs_from_log_mel_spectrograms");
    let bins = last_dim(&x).ok_or_else(|| {
        Error::unimplemented(
            "weir's mfccs_from_log_mel_spectrograms needs a known innermost dim".to_string(),
        )
    })?;
    if bins == 0 {
        return Err(Error::invalid_argument(format!(
            "num_mel_bins must be positive. Got: {}",
            x.shape()
        )));
    }
    let dct2 = dct(&x)?;
    let bins_c = constant(&g, Tensor::scalar(bins as i32))?;
    let n = mul(
        &cast(&bins_c, dct2.dtype())?,
        &scalar(&g, dct2.dtype(), 2.0)?,
    )?;
    mul(&dct2, &rsqrt(&n)?)
}
