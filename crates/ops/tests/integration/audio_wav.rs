//! `DecodeWav` and `EncodeWav` (`tf.audio.decode_wav`, `tf.audio.encode_wav`) against
//! TensorFlow 2.21 (tests/data/audio_wav/expected.json, written by make_audio_wav.py there):
//! decoded float32 audio bit for bit, sample rates, encoded bytes byte for byte, static shapes,
//! and error codes and messages. Messages are compared before TensorFlow's
//! " for '{{node ...}}'" suffix (weir's suffix names the op instead).

use serde_json::Value;
use weir_graph::{Bytes, DType, Error, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::audio::{DecodeWav, EncodeWav};
use weir_session::{RunArgs, Session};

use crate::io_util::{b64, check_all_cases, expect_same_outcome, fetch_and_feed, shape_of, usizes};

fn cases() -> Vec<Value> {
    crate::io_util::expected_cases("audio_wav")
}

/// The tensor an input spec describes.
fn tensor_of(spec: &Value, dtype: DType) -> Tensor {
    let dims = usizes(&spec["dims"]);
    let values = spec["values"].as_array().unwrap();
    match dtype {
        DType::String => {
            let v: Vec<Bytes> = values
                .iter()
                .map(|s| Bytes::from(b64(s.as_str().unwrap())))
                .collect();
            Tensor::from_vec(&dims, v)
        }
        DType::F32 => Tensor::from_vec(
            &dims,
            values
                .iter()
                .map(|b| f32::from_bits(b.as_u64().unwrap() as u32))
                .collect(),
        ),
        DType::F64 => Tensor::from_vec(
            &dims,
            values
                .iter()
                .map(|s| s.as_str().unwrap().parse::<f64>().unwrap())
                .collect(),
        ),
        DType::I32 => Tensor::from_vec(
            &dims,
            values.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        DType::I64 => Tensor::from_vec(&dims, values.iter().map(|x| x.as_i64().unwrap()).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

/// An input: a constant, or a placeholder of its `shape` fed its value.
fn source(g: &Graph, spec: &Value, dtype: DType, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = tensor_of(spec, dtype);
    match spec.get("shape") {
        None => constant(g, value).unwrap(),
        Some(s) => {
            let p = placeholder(g, dtype, shape_of(s)).unwrap();
            feeds.push((p.clone(), value));
            p
        }
    }
}

fn dtype_named(spec: &Value) -> DType {
    match spec["dtype"].as_str().unwrap() {
        "float32" => DType::F32,
        "float64" => DType::F64,
        "int32" => DType::I32,
        "int64" => DType::I64,
        other => panic!("dtype {other}"),
    }
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    if c["op"] == "decode" {
        let contents = source(g, &c["contents"], DType::String, feeds);
        let mut op = DecodeWav::new();
        if let Some(n) = c.get("desired_channels") {
            op = op.desired_channels(n.as_i64().unwrap() as i32);
        }
        if let Some(n) = c.get("desired_samples") {
            op = op.desired_samples(n.as_i64().unwrap() as i32);
        }
        return op.build(contents).map(|(a, r)| vec![a, r]);
    }
    let audio = source(g, &c["audio"], dtype_named(&c["audio"]), feeds);
    let rate = source(g, &c["sample_rate"], dtype_named(&c["sample_rate"]), feeds);
    EncodeWav::new().build(audio, rate).map(|o| vec![o])
}

fn check_outputs(name: &str, c: &Value, got: &[Tensor]) {
    let want = &c["outputs"];
    if c["op"] == "decode" {
        assert_eq!(
            got[0].shape(),
            &usizes(&want["audio_shape"])[..],
            "{name}: shape"
        );
        let bits: Vec<u8> = got[0]
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            bits,
            b64(want["audio_bits"].as_str().unwrap()),
            "{name}: audio"
        );
        assert_eq!(
            i64::from(got[1].to_scalar::<i32>().unwrap()),
            want["sample_rate"].as_i64().unwrap(),
            "{name}: sample_rate"
        );
    } else {
        let bytes = got[0].to_scalar::<Bytes>().unwrap();
        assert_eq!(
            &bytes[..],
            &b64(want["contents"].as_str().unwrap())[..],
            "{name}: contents"
        );
    }
}

/// Runs one case; returns whether it ended in an error (at build or run time).
fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = build(&g, c, &mut feeds);
    let Some(outs) = expect_same_outcome(
        name,
        built,
        c.get("build_error"),
        crate::io_util::check_tf_error,
    ) else {
        return true;
    };
    let shapes = c["static_shapes"].as_array().unwrap();
    assert_eq!(outs.len(), shapes.len(), "{name}: outputs");
    for (o, s) in outs.iter().zip(shapes) {
        assert_eq!(o.shape(), shape_of(s), "{name}: static shape");
    }
    let ran = Session::new(&g).unwrap().run(&fetch_and_feed(&outs, feeds));
    match expect_same_outcome(name, ran, c.get("error"), crate::io_util::check_tf_error) {
        Some(v) => {
            check_outputs(name, c, &v);
            false
        }
        None => true,
    }
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = cases();
    assert!(cases.len() >= 90, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}

/// What TensorFlow encodes, weir decodes to the values TensorFlow decodes it to, and the
/// reverse: every encode case's bytes decode here as TensorFlow's encode of them reads back.
#[test]
fn tensorflow_encoded_files_round_trip() {
    for c in cases() {
        if c["op"] != "encode" || c.get("outputs").is_none() {
            continue;
        }
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let wav = b64(c["outputs"]["contents"].as_str().unwrap());
        let contents = constant(&g, Tensor::scalar(Bytes::from(wav))).unwrap();
        let (audio, _) = DecodeWav::new().build(&contents).unwrap();
        let rate = c["sample_rate"]["values"][0].as_i64().unwrap();
        let again = EncodeWav::new().build(&audio, rate).unwrap();
        let out = Session::new(&g).unwrap().run(&RunArgs::new().fetch(&again));
        if usizes(&c["audio"]["dims"])[1] > 32767 {
            // The header's bytes per frame (2 * channels) wrapped at 16 bits: TensorFlow writes
            // such a file but cannot read it back either.
            let e = out.unwrap_err();
            assert!(
                e.message().starts_with("Bad bytes per sample"),
                "{name}: {e}"
            );
            continue;
        }
        let out = out.unwrap();
        let bytes = out[0].to_scalar::<Bytes>().unwrap();
        assert_eq!(
            &bytes[..],
            &b64(c["outputs"]["contents"].as_str().unwrap())[..],
            "{name}"
        );
    }
}
