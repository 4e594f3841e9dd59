//! `tf.signal.linear_to_mel_weight_matrix`: the `[num_spectrogram_bins, num_mel_bins]` matrix
//! of triangular HTK mel filters, computed in the graph as TensorFlow's `mel_ops.py` does.

use weir_graph::{scalar_of, DType, Error, Output, Result, Tensor};

use crate::array::{constant, expand_dims, lin_space, reshape, slice};
use crate::math::{add, log, maximum, minimum, mul, realdiv, sub};

use super::frame::frame;

const MEL_BREAK_FREQUENCY_HERTZ: f64 = 700.0;
const MEL_HIGH_FREQUENCY_Q: f64 = 1127.0;

/// The options of `tf.signal.linear_to_mel_weight_matrix(num_mel_bins=20,
/// num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
/// dtype=tf.float32)`.
#[derive(Clone, Debug)]
pub struct LinearToMelWeightMatrix {
    num_mel_bins: usize,
    num_spectrogram_bins: usize,
    sample_rate: f64,
    lower_edge_hertz: f64,
    upper_edge_hertz: f64,
    dtype: DType,
}

impl Default for LinearToMelWeightMatrix {
    fn default() -> Self {
        LinearToMelWeightMatrix::new()
    }
}

impl LinearToMelWeightMatrix {
    /// TensorFlow's defaults.
    pub fn new() -> LinearToMelWeightMatrix {
        LinearToMelWeightMatrix {
            num_mel_bins: 20,
            num_spectrogram_bins: 129,
            sample_rate: 8000.0,
            lower_edge_hertz: 125.0,
            upper_edge_hertz: 3800.0,
            dtype: DType::F32,
        }
    }

    /// The number of mel bands (columns).
    pub fn num_mel_bins(mut self, n: usize) -> Self {
        self.num_mel_bins = n;
        self
    }

    /// The number of spectrogram bins (rows): `fft_length / 2 + 1`.
    pub fn num_spectrogram_bins(mut self, n: usize) -> Self {
        self.num_spectrogram_bins = n;
        self
    }

    /// The samples per second of the signal.
    pub fn sample_rate(mut self, hz: f64) -> Self {
        self.sample_rate = hz;
        self
    }

    /// The lowest frequency of the lowest band.
    pub fn lower_edge_hertz(mut self, hz: f64) -> Self {
        self.lower_edge_hertz = hz;
        self
    }

    /// The highest frequency of the highest band.
    pub fn upper_edge_hertz(mut self, hz: f64) -> Self {
        self.upper_edge_hertz = hz;
        self
    }

    /// The float dtype of the matrix.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// TensorFlow's `_validate_arguments` (its ValueErrors).
    fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::invalid_argument(m));
        if self.num_mel_bins == 0 {
            return bad("num_mel_bins must be positive. Got: 0".into());
        }
        if self.lower_edge_hertz < 0.0 {
            return bad(format!(
                "lower_edge_hertz must be non-negative. Got: {:?}",
                self.lower_edge_hertz
            ));
        }
        if self.lower_edge_hertz >= self.upper_edge_hertz {
            return bad(format!(
                "lower_edge_hertz {:?} >= upper_edge_hertz {:?}",
                self.lower_edge_hertz, self.upper_edge_hertz
            ));
        }
        if self.sample_rate <= 0.0 {
            return bad(format!(
                "sample_rate must be positive. Got: {}",
                self.sample_rate
            ));
        }
        if self.upper_edge_hertz > self.sample_rate / 2.0 {
            return bad(format!(
                "upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). Got {} for sample_rate: {}",
                self.upper_edge_hertz, self.sample_rate
            ));
        }
        if !matches!(self.dtype, DType::F32 | DType::F64) {
            return bad(format!(
                "dtype must be a floating point type. Got: {}",
                self.dtype.python_name()
            ));
        }
        Ok(())
    }

    /// Adds the nodes under the name scope `linear_to_mel_weight_matrix`; the matrix is the
    /// scope's own node (a `Pad` re-adding the zeroed DC row).
    pub fn build(self, g: &weir_graph::Graph) -> Result<Output> {
        self.validate()?;
        let dt = self.dtype;
        let scope = g.name_scope("linear_to_mel_weight_matrix");
        let c = |v: f64| constant(g, scalar_of(dt, v).expect("a float dtype"));
        let hertz_to_mel = |hz: &Output| -> Result<Output> {
            let ratio = realdiv(hz, c(MEL_BREAK_FREQUENCY_HERTZ)?)?;
            mul(c(MEL_HIGH_FREQUENCY_Q)?, log(add(c(1.0)?, &ratio)?)?)
        };
        let sample_rate = c(self.sample_rate)?;
        let lower = c(self.lower_edge_hertz)?;
        let upper = c(self.upper_edge_hertz)?;
        let zero = c(0.0)?;
        let nyquist = realdiv(&sample_rate, c(2.0)?)?;
        let bins = self.num_spectrogram_bins;
        let linear = lin_space(&zero, &nyquist, constant(g, bins as i32)?)?;
        // HTK excludes the spectrogram's DC bin.
        let linear = slice(&linear, vec![1i64], vec![bins as i64 - 1])?;
        let bins_mel = expand_dims(hertz_to_mel(&linear)?, 1)?;
        let n = self.num_mel_bins;
        let edges = lin_space(
            hertz_to_mel(&lower)?,
            hertz_to_mel(&upper)?,
            constant(g, (n + 2) as i32)?,
        )?;
        let edges = frame(&edges, 3, 1)?;
        let column = |k: i64| -> Result<Output> {
            reshape(
                slice(&edges, vec![0i64, k], vec![-1i64, 1])?,
                vec![1i64, n as i64],
            )
        };
        let (lo, center, hi) = (column(0)?, column(1)?, column(2)?);
        let lower_slopes = realdiv(sub(&bins_mel, &lo)?, sub(&center, &lo)?)?;
        let upper_slopes = realdiv(sub(&hi, &bins_mel)?, sub(&hi, &center)?)?;
        let weights = maximum(&zero, minimum(&lower_slopes, &upper_slopes)?)?;
        let paddings = constant(g, Tensor::from_vec(&[2, 2], vec![1i32, 0, 0, 0])?)?;
        crate::new_op(g, "Pad")
            .input(&weights)
            .input(&paddings)
            .name(scope.prefix().to_string())
            .build()?
            .output(0)
    }
}

/// `tf.signal.linear_to_mel_weight_matrix()` with TensorFlow's defaults (20 mel bins over 129
/// spectrogram bins at 8 kHz, 125 Hz to 3.8 kHz, float32).
pub fn linear_to_mel_weight_matrix(g: &weir_graph::Graph) -> Result<Output> {
    LinearToMelWeightMatrix::new().build(g)
}
