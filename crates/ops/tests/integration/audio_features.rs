//! `AudioSpectrogram` and `Mfcc` (TF1's `contrib_audio.audio_spectrogram` / `contrib_audio.mfcc`)
//! against TensorFlow 2.21: every case of tests/data/audio_features/expected.json (written by
//! make_audio_features.py there) — spectrograms of sines, chirps, noise, silence and impulses
//! under many window/stride combinations, mono to three channels, magnitude and squared; MFCCs
//! of recorded spectrograms with default and non-default attrs; the two chained; and a WAV file
//! written by TensorFlow's `encode_wav` decoded by weir's `DecodeWav` and run through both —
//! with static shapes, and errors with TensorFlow's code and message (before its " for
//! '{{node ...}}'" suffix).
//!
//! Tolerances. weir transforms each frame with rustfft, TensorFlow with Ooura's fft4g, both in
//! f64, then both round the squared magnitude to f32 (and take its f32 square root for
//! magnitudes). The two f64 FFTs each err by at most about `eps64 * log2(n) * sqrt(n) * max|X|`
//! per bin (below 1e-13 of the frame's largest bin for n <= 2048), so a spectrogram value may
//! differ from TensorFlow's by one f32 ulp of rounding plus 1e-12 of its frame's largest value.
//! Mfcc from the same f32 spectrogram is computed in f64 in TensorFlow's order with the same
//! libm functions (`log1p`, `log`, `cos`, `sqrt`), and must match bit for bit. Mfcc fed by
//! weir's own spectrogram inherits the spectrogram's differences: each coefficient is
//! `sqrt(2 / 40) * sum_j cos(..) * ln(E_j)` and an f32-ulp-level relative change of every band
//! energy `E_j` moves it by at most about `0.23 * 40 * 2^-23` (1.1e-6), so coefficients are
//! compared within two f32 ulps plus 2e-6.

use serde_json::Value;
use weir_graph::{Bytes, DType, Error, Graph, Output, Tensor};
use weir_ops::array::placeholder;
use weir_ops::audio::{AudioSpectrogram, DecodeWav, Mfcc};
use weir_session::{RunArgs, Session};

use crate::io_util::{check_all_cases, check_tf_error, run_built_case, shape_of, spec_tensor};

fn cases() -> Vec<Value> {
    crate::io_util::expected_cases("audio_features")
}

/// An input: a constant, or a placeholder of its `shape` fed its value.
fn source(g: &Graph, spec: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = spec_tensor(spec);
    match spec.get("shape") {
        None => weir_ops::array::constant(g, value).unwrap(),
        Some(s) => {
            let p = placeholder(g, value.dtype(), shape_of(s)).unwrap();
            feeds.push((p.clone(), value));
            p
        }
    }
}

fn int(c: &Value, key: &str) -> i64 {
    c[key].as_i64().unwrap()
}

/// The case's Mfcc options.
fn mfcc_op(attrs: &Value) -> Mfcc {
    let mut m = Mfcc::new();
    if let Some(v) = attrs.get("upper_frequency_limit") {
        m = m.upper_frequency_limit(v.as_f64().unwrap() as f32);
    }
    if let Some(v) = attrs.get("lower_frequency_limit") {
        m = m.lower_frequency_limit(v.as_f64().unwrap() as f32);
    }
    if let Some(v) = attrs.get("filterbank_channel_count") {
        m = m.filterbank_channel_count(v.as_i64().unwrap());
    }
    if let Some(v) = attrs.get("dct_coefficient_count") {
        m = m.dct_coefficient_count(v.as_i64().unwrap());
    }
    m
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    let spectrogram = |input: &Output, squared: bool| {
        AudioSpectrogram::new(int(c, "window_size"), int(c, "stride"))
            .magnitude_squared(squared)
            .build(input)
    };
    match c["op"].as_str().unwrap() {
        "spectrogram" => {
            let x = source(g, &c["input"], feeds);
            let squared = c.get("magnitude_squared").is_some_and(|v| v == true);
            if c.get("magnitude_squared").is_some() {
                Ok(vec![spectrogram(&x, squared)?])
            } else {
                // TensorFlow's default, through the plain function.
                Ok(vec![weir_ops::audio::audio_spectrogram(
                    &x,
                    int(c, "window_size"),
                    int(c, "stride"),
                )?])
            }
        }
        "mfcc" => {
            let s = source(g, &c["spectrogram"], feeds);
            let rate = &c["sample_rate"];
            let op = mfcc_op(&c["attrs"]);
            if rate.get("shape").is_none()
                && rate["dims"].as_array().unwrap().is_empty()
                && rate["dtype"] == "int32"
            {
                // A number, converted by the builder as Python's wrapper converts it.
                op.build(&s, rate["values"][0].as_i64().unwrap())
            } else {
                op.build(&s, source(g, rate, feeds))
            }
            .map(|o| vec![o])
        }
        "pipeline" => {
            let x = source(g, &c["input"], feeds);
            let s = spectrogram(&x, true)?;
            let m = mfcc_op(&c["attrs"]).build(&s, int(c, "sample_rate"))?;
            Ok(vec![s, m])
        }
        "wav" => {
            let contents = source(g, &c["contents"], feeds);
            let (audio, rate) = DecodeWav::new()
                .desired_channels(int(c, "desired_channels") as i32)
                .build(&contents)?;
            let s = spectrogram(&audio, true)?;
            let m = mfcc_op(&c["attrs"]).build(&s, &rate)?;
            Ok(vec![audio, rate, s, m])
        }
        other => panic!("op {other}"),
    }
}

/// One f32 ulp at `x`'s magnitude (the subnormal spacing below the normal range).
fn ulp(x: f32) -> f64 {
    let x = x.abs().max(f32::MIN_POSITIVE);
    let e = ((x.to_bits() >> 23) & 0xff) as i32 - 127;
    2f64.powi(e - 23)
}

/// Compares a spectrogram: within one f32 ulp plus 1e-12 of the largest value of its frame.
fn check_spectrogram(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let bins = *want.shape().last().unwrap();
    let (g, w) = (
        got.as_slice::<f32>().unwrap(),
        want.as_slice::<f32>().unwrap(),
    );
    for (k, (gr, wr)) in g
        .chunks_exact(bins.max(1))
        .zip(w.chunks_exact(bins.max(1)))
        .enumerate()
    {
        let scale = wr.iter().fold(0f32, |m, &v| m.max(v.abs())) as f64;
        for (i, (&a, &b)) in gr.iter().zip(wr).enumerate() {
            if b.is_nan() {
                assert!(
                    a.is_nan(),
                    "{what}: frame {k} bin {i}: weir {a}, TensorFlow NaN"
                );
                continue;
            }
            let tol = ulp(b) + 1e-12 * scale;
            assert!(
                (f64::from(a) - f64::from(b)).abs() <= tol,
                "{what}: frame {k} bin {i}: weir {a:e}, TensorFlow {b:e}"
            );
        }
    }
}

/// Compares MFCCs computed from weir's own spectrogram: two f32 ulps plus 2e-6.
fn check_mfcc_close(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (
        got.as_slice::<f32>().unwrap(),
        want.as_slice::<f32>().unwrap(),
    );
    for (i, (&a, &b)) in g.iter().zip(w).enumerate() {
        let tol = 2.0 * ulp(b) + 2e-6;
        assert!(
            (f64::from(a) - f64::from(b)).abs() <= tol,
            "{what}: value {i}: weir {a}, TensorFlow {b}"
        );
    }
}

/// Bit for bit (NaNs by bits too).
fn check_exact(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    match want.dtype() {
        DType::F32 => {
            let bits = |t: &Tensor| -> Vec<u32> {
                t.as_slice::<f32>()
                    .unwrap()
                    .iter()
                    .map(|v| v.to_bits())
                    .collect()
            };
            assert_eq!(bits(got), bits(want), "{what}");
        }
        DType::I32 => assert_eq!(
            got.as_slice::<i32>().unwrap(),
            want.as_slice::<i32>().unwrap(),
            "{what}"
        ),
        other => panic!("{what}: dtype {other}"),
    }
}

fn check_outputs(name: &str, c: &Value, got: &[Tensor]) {
    let want: Vec<Tensor> = c["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(spec_tensor)
        .collect();
    assert_eq!(got.len(), want.len(), "{name}: outputs");
    match c["op"].as_str().unwrap() {
        "spectrogram" => check_spectrogram(name, &got[0], &want[0]),
        "mfcc" => check_exact(name, &got[0], &want[0]),
        "pipeline" => {
            check_spectrogram(&format!("{name} spectrogram"), &got[0], &want[0]);
            check_mfcc_close(&format!("{name} mfcc"), &got[1], &want[1]);
        }
        _ => {
            check_exact(&format!("{name} audio"), &got[0], &want[0]);
            check_exact(&format!("{name} rate"), &got[1], &want[1]);
            check_spectrogram(&format!("{name} spectrogram"), &got[2], &want[2]);
            check_mfcc_close(&format!("{name} mfcc"), &got[3], &want[3]);
        }
    }
}

fn run_case(c: &Value) -> bool {
    run_built_case(
        c,
        c.get("build_error"),
        |g, feeds| build(g, c, feeds),
        check_tf_error,
        |name, got| check_outputs(name, c, got),
    )
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = cases();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}

/// Every family of case is there, so a regenerated expected.json that lost one is noticed.
#[test]
fn the_recorded_cases_cover_every_op_and_error_path() {
    let cases = cases();
    for op in ["spectrogram", "mfcc", "pipeline", "wav"] {
        let n = cases.iter().filter(|c| c["op"] == op).count();
        assert!(n >= 3, "{n} {op} cases");
    }
    let errors = |op: &str, key: &str| {
        cases
            .iter()
            .filter(|c| c["op"] == op && c.get(key).is_some())
            .count()
    };
    assert!(errors("spectrogram", "build_error") >= 5);
    assert!(errors("spectrogram", "error") >= 3);
    assert!(errors("mfcc", "build_error") >= 2);
    assert!(errors("mfcc", "error") >= 10);
}

/// The speech-commands front end end to end on a file weir writes itself: `EncodeWav` (whose
/// bytes match TensorFlow's, tests/integration/audio_wav.rs), `DecodeWav`, the squared
/// spectrogram and the MFCCs reproduce what TensorFlow computed from TensorFlow's own file.
#[test]
fn a_wav_file_written_by_weir_gives_tensorflows_features() {
    for c in cases().iter().filter(|c| c["op"] == "wav") {
        let name = c["name"].as_str().unwrap();
        let want: Vec<Tensor> = c["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(spec_tensor)
            .collect();
        let g = Graph::new();
        let audio = weir_ops::array::constant(&g, want[0].clone()).unwrap();
        let rate = want[1].to_scalar::<i32>().unwrap();
        let wav = weir_ops::audio::encode_wav(&audio, rate).unwrap();
        let (decoded, rate) = weir_ops::audio::decode_wav(&wav).unwrap();
        let s = AudioSpectrogram::new(int(c, "window_size"), int(c, "stride"))
            .magnitude_squared(true)
            .build(&decoded)
            .unwrap();
        let m = mfcc_op(&c["attrs"]).build(&s, &rate).unwrap();
        let out = Session::new(&g)
            .unwrap()
            .run(&RunArgs::new().fetch(&wav).fetch(&s).fetch(&m))
            .unwrap();
        // The file weir wrote is the one TensorFlow wrote when it kept every channel.
        if int(c, "desired_channels") == -1 {
            let file = spec_tensor(&c["contents"]);
            assert_eq!(
                out[0].to_scalar::<Bytes>().unwrap(),
                file.to_scalar::<Bytes>().unwrap(),
                "{name}: file"
            );
        }
        check_spectrogram(&format!("{name} spectrogram"), &out[1], &want[2]);
        check_mfcc_close(&format!("{name} mfcc"), &out[2], &want[3]);
    }
}

/// Runs of one kernel reuse its FFT plan, and a spectrogram of a pure tone peaks at its bin.
#[test]
fn a_sine_peaks_at_its_frequency_bin_on_every_run() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, weir_graph::Shape::new(vec![None, Some(1)])).unwrap();
    let s = weir_ops::audio::audio_spectrogram(&x, 256, 128).unwrap();
    let sess = Session::new(&g).unwrap();
    for (k, n) in [(16usize, 1024usize), (40, 512), (100, 256)] {
        // Exactly k cycles per 256-sample window.
        let sine: Vec<f32> = (0..n)
            .map(|i| (2.0 * std::f64::consts::PI * (k * i) as f64 / 256.0).sin() as f32)
            .collect();
        let out = sess
            .run(
                &RunArgs::new()
                    .feed(&x, Tensor::from_vec(&[n, 1], sine).unwrap())
                    .fetch(&s),
            )
            .unwrap();
        let v = out[0].as_slice::<f32>().unwrap();
        assert_eq!(out[0].shape(), &[1, 1 + (n - 256) / 128, 129]);
        for frame in v.chunks_exact(129) {
            let peak = (0..129)
                .max_by(|&a, &b| frame[a].total_cmp(&frame[b]))
                .unwrap();
            assert_eq!(peak, k);
            // The periodic Hann window halves a bin-centred tone's amplitude: n/2 * 1/2.
            assert!((frame[k] - 64.0).abs() < 1e-3, "{}", frame[k]);
        }
    }
}
