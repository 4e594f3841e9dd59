//! The numerics under `Mfcc`: TensorFlow's `MfccMelFilterbank` (triangular mel bands over the
//! spectrogram's magnitudes) and `MfccDct` (an orthonormal-scaled DCT-II of the log band
//! energies), computed in f64 in TensorFlow's order of operations so results match bit for bit.

use std::f64::consts::PI;

use weir_graph::{Error, Result};

/// HTK's mel scale, as TensorFlow's `FreqToMel`.
fn freq_to_mel(freq: f64) -> f64 {
    1127.0 * (freq / 700.0).ln_1p()
}

/// A vector of `n` zeros, or ResourceExhausted when it cannot be allocated: the sizes come from
/// attrs and input shapes, and an absurd one must fail the run, not abort the process.
pub(crate) fn zeros(n: usize) -> Result<Vec<f64>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        Error::resource_exhausted(format!("OOM when allocating {n} doubles for Mfcc"))
    })?;
    v.resize(n, 0.0);
    Ok(v)
}

/// TensorFlow's `MfccMelFilterbank`: each FFT bin between the band edges feeds the falling side
/// of one mel triangle (`weights`) and the rising side of the next (`1 - weights`).
pub(crate) struct MelFilterbank {
    channels: usize,
    start: usize,
    /// Inclusive; `None` when the spectrum is too short to reach it (TensorFlow then refuses
    /// every frame, leaving the DCT nothing to transform).
    end: Option<usize>,
    /// Per bin: the channel whose falling side it feeds (-1: it feeds only channel 0's rising
    /// side; -2: outside the band edges, unused).
    band: Vec<i32>,
    weights: Vec<f64>,
}

impl MelFilterbank {
    /// Whether TensorFlow's `Initialize` accepts these parameters (it logs the reason and fails
    /// otherwise); checked before anything is allocated.
    pub(crate) fn valid(
        input_length: usize,
        sample_rate: f64,
        channels: i64,
        lower: f64,
        upper: f64,
    ) -> bool {
        // TensorFlow's tests (`lower < 0`, `upper <= lower`) let NaN limits through.
        let nan = lower.is_nan() || upper.is_nan();
        channels >= 1
            && channels < i64::from(i32::MAX)
            && sample_rate > 0.0
            && input_length >= 2
            && (lower >= 0.0 || lower.is_nan())
            && (upper > lower || nan)
    }

    /// Designs the bands for spectra of `input_length` bins of a signal sampled at
    /// `sample_rate`; the parameters must be [`valid`](Self::valid).
    pub(crate) fn new(
        input_length: usize,
        sample_rate: f64,
        channels: usize,
        lower: f64,
        upper: f64,
    ) -> Result<MelFilterbank> {
        let mut centers = zeros(channels + 1)?;
        let mel_low = freq_to_mel(lower);
        let mel_span = freq_to_mel(upper) - mel_low;
        let spacing = mel_span / (channels + 1) as f64;
        for (i, c) in centers.iter_mut().enumerate() {
            *c = mel_low + spacing * (i + 1) as f64;
        }
        // Bin 0 (DC) is always left out, as HTK does.
        let hz_per_bin = 0.5 * sample_rate / (input_length - 1) as f64;
        // Float-to-int casts saturate here where C++'s are undefined; either way an edge past
        // the spectrum makes every frame too short.
        let start = (1.5 + lower / hz_per_bin) as i32;
        let end = (upper / hz_per_bin) as i32;
        let in_use = |i: usize| i as i64 >= i64::from(start) && i as i64 <= i64::from(end);
        let mut band = Vec::new();
        band.try_reserve_exact(input_length)
            .map_err(|_| Error::resource_exhausted("OOM when allocating the Mfcc bands"))?;
        let mut channel = 0usize;
        for i in 0..input_length {
            let mel = freq_to_mel(i as f64 * hz_per_bin);
            if in_use(i) {
                while channel < channels && centers[channel] < mel {
                    channel += 1;
                }
                band.push(channel as i32 - 1);
            } else {
                band.push(-2);
            }
        }
        let mut weights = zeros(input_length)?;
        for (i, w) in weights.iter_mut().enumerate() {
            if !in_use(i) {
                continue;
            }
            let mel = freq_to_mel(i as f64 * hz_per_bin);
            *w = match usize::try_from(band[i]) {
                Ok(c) => (centers[c + 1] - mel) / (centers[c + 1] - centers[c]),
                Err(_) => (centers[0] - mel) / (centers[0] - mel_low),
            };
        }
        let end = usize::try_from(end).ok().filter(|&e| e < input_length);
        Ok(MelFilterbank {
            channels,
            start: start.max(0) as usize,
            end,
            band,
            weights,
        })
    }

    /// The mel energies of one squared-magnitude spectrum frame into `out` (`channels` long),
    /// summing the bins' magnitudes under the triangles. Returns false, leaving `out`
    /// untouched, when the frame is too short for the bands (TensorFlow's "Input too short").
    pub(crate) fn compute(&self, frame: &[f32], out: &mut [f64]) -> bool {
        let Some(end) = self.end else {
            return false;
        };
        out.fill(0.0);
        if self.start > end {
            return true;
        }
        let bins = self.start..=end;
        let used = frame[bins.clone()]
            .iter()
            .zip(&self.weights[bins.clone()])
            .zip(&self.band[bins]);
        for ((&power, &weight), &channel) in used {
            let magnitude = f64::from(power).sqrt();
            let weighted = magnitude * weight;
            if channel >= 0 {
                out[channel as usize] += weighted;
            }
            let next = (channel + 1) as usize;
            if next < self.channels {
                out[next] += magnitude - weighted;
            }
        }
        true
    }
}

/// TensorFlow's `MfccDct`: `coefficients` rows of `sqrt(2 / n) * cos(pi i (j + 0.5) / n)`.
pub(crate) struct Dct {
    input_length: usize,
    cosines: Vec<f64>,
}

impl Dct {
    /// Whether TensorFlow's `Initialize` accepts these sizes.
    pub(crate) fn valid(input_length: i64, coefficients: i64) -> bool {
        coefficients >= 1 && input_length >= 1 && coefficients <= input_length
    }

    /// The cosine table; the sizes must be [`valid`](Self::valid).
    pub(crate) fn new(input_length: usize, coefficients: usize) -> Result<Dct> {
        let size = input_length
            .checked_mul(coefficients)
            .ok_or_else(|| Error::resource_exhausted("OOM when allocating the Mfcc DCT"))?;
        let mut cosines = zeros(size)?;
        let norm = (2.0 / input_length as f64).sqrt();
        let arg = PI / input_length as f64;
        for (i, row) in cosines.chunks_exact_mut(input_length.max(1)).enumerate() {
            for (j, c) in row.iter_mut().enumerate() {
                *c = norm * (i as f64 * arg * (j as f64 + 0.5)).cos();
            }
        }
        Ok(Dct {
            input_length,
            cosines,
        })
    }

    /// The coefficients of `input` (at most `input_length` of it is used) into `out`.
    pub(crate) fn compute(&self, input: &[f64], out: &mut [f32]) {
        let n = input.len().min(self.input_length);
        for (o, row) in out
            .iter_mut()
            .zip(self.cosines.chunks_exact(self.input_length.max(1)))
        {
            let mut sum = 0.0f64;
            for (c, x) in row[..n].iter().zip(&input[..n]) {
                sum += c * x;
            }
            *o = sum as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dct_of_a_constant_is_its_scaled_sum_in_the_first_coefficient() {
        let dct = Dct::new(4, 3).unwrap();
        let mut out = [0.0f32; 3];
        dct.compute(&[1.0; 4], &mut out);
        // sqrt(2 / 4) * 4 = 2.828..., and the higher cosines sum to zero.
        assert!((out[0] - 8f32.sqrt()).abs() < 1e-6);
        assert!(out[1].abs() < 1e-6 && out[2].abs() < 1e-6);
        // An empty input (a refused frame) gives zeros.
        dct.compute(&[], &mut out);
        assert_eq!(out, [0.0; 3]);
    }

    #[test]
    fn each_used_bin_splits_its_magnitude_between_two_neighbouring_bands() {
        let fb = MelFilterbank::new(129, 16000.0, 10, 20.0, 4000.0).unwrap();
        let mut out = vec![0.0; 10];
        // All magnitudes 1: the bands' total is the number of bins in use, less the parts
        // that fall outside the first and last triangles.
        assert!(fb.compute(&[1.0; 129], &mut out));
        let total: f64 = out.iter().sum();
        let used = fb.end.unwrap() + 1 - fb.start;
        assert!(total > 0.0 && total <= used as f64);
        assert!(out.iter().all(|&v| v > 0.0));
        // Upper edge beyond Nyquist: every frame is refused.
        let fb = MelFilterbank::new(129, 16000.0, 10, 20.0, 9000.0).unwrap();
        assert!(!fb.compute(&[1.0; 129], &mut out));
    }

    #[test]
    fn validity_follows_tensorflows_initialize() {
        assert!(MelFilterbank::valid(129, 16000.0, 40, 20.0, 4000.0));
        assert!(!MelFilterbank::valid(1, 16000.0, 40, 20.0, 4000.0));
        assert!(!MelFilterbank::valid(129, 0.0, 40, 20.0, 4000.0));
        assert!(!MelFilterbank::valid(129, 16000.0, 0, 20.0, 4000.0));
        assert!(!MelFilterbank::valid(
            129,
            16000.0,
            i64::from(i32::MAX),
            20.0,
            4000.0
        ));
        assert!(!MelFilterbank::valid(129, 16000.0, 40, -1.0, 4000.0));
        assert!(Dct::valid(40, 13) && Dct::valid(13, 13));
        assert!(!Dct::valid(10, 11) && !Dct::valid(40, 0));
    }
}
