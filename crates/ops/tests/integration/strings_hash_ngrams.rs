//! `StringNGrams` (`tf.strings.ngrams` on dense and ragged data, and the raw op), `Fingerprint`
//! (`tf.fingerprint`) and `StringToHashBucket` (`tf.compat.v1.string_to_hash_bucket`) against
//! TensorFlow 2.21: every case of tests/data/strings_hash_ngrams/expected.json (written by
//! make_strings_hash_ngrams.py there), with values byte for byte, static shapes, and error
//! codes and messages (up to weir's " for '<node>'" suffix). Errors TensorFlow's Python layer
//! or shape functions raise at graph construction must come from weir's builders.

use serde_json::Value;
use weir_graph::{Error, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::string::{fingerprint, fingerprint_tensor, string_to_hash_bucket, NGrams};

use crate::io_util::{
    check_all_cases, check_spec_outputs, check_tf_error, expected_cases, run_built_case, shape_of,
    spec_tensor,
};

fn cases() -> Vec<Value> {
    expected_cases("strings_hash_ngrams")
}

/// Input `key` of case `c`: a constant, or a placeholder of the recorded static shape fed the
/// value.
fn input(g: &Graph, c: &Value, key: &str, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let t = spec_tensor(&c["inputs"][key]);
    match c.get("placeholders").and_then(|p| p.get(key)) {
        None => constant(g, t).unwrap(),
        Some(s) => {
            let p = placeholder(g, t.dtype(), shape_of(s)).unwrap();
            feeds.push((p.clone(), t));
            p
        }
    }
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// The `tf.strings.ngrams` arguments of a case, as an [`NGrams`] builder.
fn ngrams_args(a: &Value) -> NGrams {
    let mut b = match &a["width"] {
        w @ Value::Array(_) => NGrams::widths(&ints(w)),
        w => NGrams::new(w.as_i64().unwrap()),
    };
    if let Some(s) = a.get("separator") {
        b = b.separator(s.as_str().unwrap());
    }
    match a.get("pad_values") {
        Some(Value::String(p)) => b = b.pad_value(p),
        Some(Value::Array(p)) => b = b.pad_values(p[0].as_str().unwrap(), p[1].as_str().unwrap()),
        _ => {}
    }
    if let Some(w) = a.get("padding_width") {
        b = b.padding_width(w.as_i64().unwrap());
    }
    if let Some(p) = a.get("preserve") {
        b = b.preserve_short_sequences(p.as_bool().unwrap());
    }
    b
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    weir_ops::register_all_ops();
    let data = input(g, c, "data", feeds);
    match c["op"].as_str().unwrap() {
        "ngrams" => Ok(vec![ngrams_args(&c["args"]).build(&data)?]),
        "ngrams_ragged" => {
            let splits = input(g, c, "splits", feeds);
            let (values, splits) = ngrams_args(&c["args"]).build_ragged(&data, &splits)?;
            Ok(vec![values, splits])
        }
        "string_ngrams" => {
            let splits = input(g, c, "splits", feeds);
            let a = &c["attrs"];
            let s = |k: &str| a[k].as_str().unwrap().to_string();
            let op = g
                .new_operation("StringNGrams")
                .input(data)
                .input(splits)
                .attr("separator", s("separator"))
                .attr("ngram_widths", ints(&a["ngram_widths"]))
                .attr("left_pad", s("left_pad"))
                .attr("right_pad", s("right_pad"))
                .attr("pad_width", a["pad_width"].as_i64().unwrap())
                .attr(
                    "preserve_short_sequences",
                    a["preserve_short_sequences"].as_bool().unwrap(),
                )
                .build()?;
            Ok(vec![op.output(0)?, op.output(1)?])
        }
        "fingerprint" => Ok(vec![if c["inputs"].get("method").is_some() {
            let method = input(g, c, "method", feeds);
            fingerprint_tensor(&data, &method)?
        } else {
            fingerprint(&data, c["method"].as_str().unwrap_or("farmhash64"))?
        }]),
        "hash_bucket" => Ok(vec![string_to_hash_bucket(
            &data,
            c["num_buckets"].as_i64().unwrap(),
        )?]),
        other => panic!("unknown op {other}"),
    }
}

/// TensorFlow's messages, except the attr-minimum check, which TensorFlow's Python op
/// wrapper words: weir's OpDef check must name the attr and its minimum.
fn check_error(name: &str, got: &Error, want: &Value) {
    let msg = want["message"].as_str().unwrap();
    if msg.starts_with("Attr '") {
        assert!(got.is_invalid_argument(), "{name}: {got}");
        assert!(
            got.message().contains("num_buckets") && got.message().contains('1'),
            "{name}: {got}"
        );
        return;
    }
    check_tf_error(name, got, want);
}

fn run_case(c: &Value) -> bool {
    run_built_case(
        c,
        c.get("build_error"),
        |g, feeds| build(g, c, feeds),
        check_error,
        |name, got| check_spec_outputs(name, c, got),
    )
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = cases();
    assert!(cases.len() >= 390, "{} cases", cases.len());
    for op in [
        "ngrams",
        "ngrams_ragged",
        "string_ngrams",
        "fingerprint",
        "hash_bucket",
    ] {
        let n = cases.iter().filter(|c| c["op"] == op).count();
        assert!(n >= 8, "{op}: {n} cases");
    }
    check_all_cases(&cases, run_case);
}

#[test]
fn legacy_hash_matches_tensorflow_on_many_strings() {
    // The full 64-bit hashes, checked through buckets of 2**63 - 1 in the recorded case.
    let cases = cases();
    let c = cases
        .iter()
        .find(|c| c["name"] == "hash_many_max")
        .expect("case");
    let strings = spec_tensor(&c["inputs"]["data"]);
    let want = spec_tensor(&c["outputs"][0]);
    let want = want.as_slice::<i64>().unwrap();
    let strings = strings.as_slice::<weir_graph::Bytes>().unwrap();
    assert!(strings.len() > 60);
    for (s, &w) in strings.iter().zip(want) {
        assert_eq!(
            weir_ops::string::hash64(s) % (i64::MAX as u64),
            w as u64,
            "{s:?}"
        );
    }
}
