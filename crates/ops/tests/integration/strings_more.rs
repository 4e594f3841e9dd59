//! `ReduceJoin`, `StaticRegexReplace`/`RegexReplace`, `StringStrip`, `StringLower`,
//! `StringUpper`, string `Add`, `StringToHashBucketStrong` and RE2's syntax in
//! `StaticRegexFullMatch` against TensorFlow 2.21
//! (tests/data/strings_more/expected.json, written by make_strings.py there): values, static
//! shapes, and error codes and messages.
//!
//! Messages are compared whole, except three kinds whose wording is not TensorFlow's kernel's:
//! shape-function messages are compared before TensorFlow's " for '{{node ..." suffix (weir's
//! suffix names the op instead), pattern errors before the regex library's detail ("Invalid
//! pattern: P, error: "), and the checks that TensorFlow's Python layer makes before the op
//! exists (dtype and attr minimum) by code and the name they point at.

use serde_json::Value;
use weir_graph::{Bytes, Code, DType, Error, Graph, Output, Shape, Tensor};
use weir_ops::array::placeholder;
use weir_ops::math::add;
use weir_ops::string::{
    lower, reduce_join, reduce_join_tensor, regex_full_match, regex_replace, regex_replace_tensor,
    string_to_hash_bucket_strong, strip, upper,
};
use weir_session::{RunArgs, Session};

use crate::io_util::{
    bytes_of, check_all_cases, expect_same_outcome, fetch_and_feed, shape_of, source,
};

fn cases() -> Vec<Value> {
    crate::io_util::expected_cases("strings_more")
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Output, Error> {
    let x = source(g, c, "input", DType::String, feeds);
    let str_of = |k: &str| c[k].as_str().unwrap().to_string();
    let flag = |k: &str| c[k].as_bool().unwrap();
    match c["op"].as_str().unwrap() {
        "reduce_join" => {
            let (keep, sep) = (flag("keepdims"), str_of("separator"));
            if c.get("axis_shape").is_some()
                || c["axis"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(Value::is_array))
            {
                let axis = source(g, c, "axis", DType::I32, feeds);
                return reduce_join_tensor(&x, &axis, keep, &sep);
            }
            let axis: Option<Vec<i32>> = c["axis"]
                .as_array()
                .map(|a| a.iter().map(|v| v.as_i64().unwrap() as i32).collect());
            reduce_join(&x, axis.as_deref(), keep, &sep)
        }
        "regex_replace" => regex_replace(
            &x,
            &str_of("pattern"),
            &str_of("rewrite"),
            flag("replace_global"),
        ),
        "regex_replace_tensor" => {
            let p = source(g, c, "pattern", DType::String, feeds);
            let r = source(g, c, "rewrite", DType::String, feeds);
            regex_replace_tensor(&x, &p, &r, flag("replace_global"))
        }
        "regex_full_match" => regex_full_match(&x, &str_of("pattern")),
        "strip" => strip(&x),
        "lower" => lower(&x, &str_of("encoding")),
        "upper" => upper(&x, &str_of("encoding")),
        "add" => add(&x, source(g, c, "y", DType::String, feeds)),
        "add_v2" => {
            let y = source(g, c, "y", DType::String, feeds);
            g.new_operation("AddV2")
                .input(x)
                .input(y)
                .build()?
                .output(0)
        }
        "hash_strong" => {
            let key: Vec<i64> = c["key"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            if key.len() == 2 {
                string_to_hash_bucket_strong(
                    &x,
                    c["num_buckets"].as_i64().unwrap(),
                    [key[0], key[1]],
                )
            } else {
                // The builder takes exactly two; other lengths reach the kernel's check.
                g.new_operation("StringToHashBucketStrong")
                    .input(x)
                    .attr("num_buckets", c["num_buckets"].as_i64().unwrap())
                    .attr("key", key)
                    .build()?
                    .output(0)
            }
        }
        other => panic!("unknown op {other}"),
    }
}

/// Checks a weir error against TensorFlow's `want` ({code, message}), as the module doc says.
fn check_error(name: &str, got: &Error, want: &Value) {
    let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{name}: {got}");
    let want = want["message"].as_str().unwrap();
    let got = got.message();
    if want.starts_with("Invalid pattern: ") {
        let prefix = &want[..want.find(", error: ").unwrap() + ", error: ".len()];
        assert!(got.starts_with(prefix), "{name}: {got:?} vs {want:?}");
    } else if want.starts_with("Value passed to parameter") {
        assert!(
            got.contains("string") && got.contains("allowed values"),
            "{name}: {got:?}"
        );
    } else if want.starts_with("Attr '") {
        let attr = want.split('\'').nth(1).unwrap();
        assert!(got.contains(attr), "{name}: {got:?} vs {want:?}");
    } else {
        assert_eq!(got.split(" for '").next().unwrap(), want, "{name}");
    }
}

fn check_value(name: &str, got: &Tensor, want: &Value) {
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(got.shape(), &shape[..], "{name}: shape");
    let values = want["values"].as_array().unwrap();
    if got.dtype() == DType::String {
        let want: Vec<Bytes> = values.iter().map(bytes_of).collect();
        assert_eq!(got.as_slice::<Bytes>().unwrap(), &want[..], "{name}");
    } else if got.dtype() == DType::Bool {
        let want: Vec<bool> = values.iter().map(|v| v.as_bool().unwrap()).collect();
        assert_eq!(got.to_vec::<bool>().unwrap(), want, "{name}");
    } else {
        let want: Vec<i64> = values.iter().map(|v| v.as_i64().unwrap()).collect();
        assert_eq!(got.to_vec::<i64>().unwrap(), want, "{name}");
    }
}

/// Runs one case; returns whether it ended in an error (at build or run time).
fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = build(&g, c, &mut feeds);
    // weir checks a static pattern when building; TensorFlow when the kernel is made.
    let want = match &built {
        Err(_) => c.get("build_error").or_else(|| c.get("error")),
        Ok(_) => c.get("build_error"),
    };
    let Some(out) = expect_same_outcome(name, built, want, check_error) else {
        return true;
    };
    assert_eq!(
        out.shape(),
        shape_of(&c["static_shape"]),
        "{name}: static shape"
    );
    let ran = Session::new(&g)
        .unwrap()
        .run(&fetch_and_feed([&out], feeds));
    match expect_same_outcome(name, ran, c.get("error"), check_error) {
        Some(v) => {
            check_value(name, &v[0], &c["out"]);
            false
        }
        None => true,
    }
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = cases();
    assert!(cases.len() > 100);
    check_all_cases(&cases, run_case);
}

#[test]
fn every_op_family_is_covered() {
    let cases = cases();
    for op in [
        "reduce_join",
        "regex_replace",
        "regex_replace_tensor",
        "regex_full_match",
        "strip",
        "lower",
        "upper",
        "add",
        "add_v2",
        "hash_strong",
    ] {
        assert!(cases.iter().any(|c| c["op"] == op), "{op}");
    }
}

#[test]
fn reduce_join_axis_none_joins_row_major_for_unknown_rank() {
    let g = Graph::new();
    let p = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let all = reduce_join(&p, None, false, ",").unwrap();
    assert_eq!(all.shape(), Shape::unknown());
    let v = Tensor::from_strings(&["a", "b", "c", "d"])
        .reshape(&[2, 2])
        .unwrap();
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().feed(&p, v).fetch(&all))
        .unwrap();
    assert_eq!(out[0].to_strings().unwrap(), ["a,b,c,d"]);
    assert_eq!(out[0].shape(), &[] as &[usize]);
}
