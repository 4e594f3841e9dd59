//! Shared helpers of the dtypes_* tests: the cases of tests/data/dtypes/expected.json (made by
//! make_dtypes.py there with TensorFlow 2.21), whose tensors are `{dtype, shape, hex}` specs
//! holding every element's little-endian bytes, so values compare bit for bit.

use serde_json::Value;
use weir_graph::{DType, Error, LeBytes, Tensor};

use super::io_util::{element_bytes, expected_cases, usizes};

/// The cases of tests/data/dtypes/expected.json whose `op` is `op`.
pub fn cases(op: &str) -> Vec<Value> {
    let all = expected_cases("dtypes");
    let picked: Vec<Value> = all.into_iter().filter(|c| c["op"] == op).collect();
    assert!(!picked.is_empty(), "no {op} cases");
    picked
}

/// Bytes of a hex string.
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The dtype a case names with TensorFlow's name (`"float16"`, `"complex64"`, ...).
pub fn dtype_named(v: &Value) -> DType {
    DType::from_name(v.as_str().unwrap()).unwrap()
}

/// The tensor a `{dtype, shape, hex}` spec describes.
pub fn spec_tensor(spec: &Value) -> Tensor {
    fn build<T: LeBytes>(shape: &[usize], bytes: &[u8]) -> Tensor {
        let data = bytes.chunks_exact(T::SIZE).map(T::get).collect();
        Tensor::from_vec(shape, data).unwrap()
    }
    let shape = usizes(&spec["shape"]);
    let bytes = unhex(spec["hex"].as_str().unwrap());
    let dtype = dtype_named(&spec["dtype"]);
    weir_graph::match_le_dtype!(dtype, T => build::<T>(&shape, &bytes),
        _ => panic!("no spec for {dtype}"))
}

/// Asserts `got` has the dtype, shape and element bytes of spec `want`.
pub fn assert_spec(name: &str, got: &Tensor, want: &Value) {
    let w = spec_tensor(want);
    assert_eq!(got.dtype(), w.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), w.shape(), "{name}: shape");
    let (g, w) = (element_bytes(got), element_bytes(&w));
    if g != w {
        let bad: Vec<_> = g
            .iter()
            .zip(&w)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(8)
            .collect();
        panic!("{name}: elements (index, (weir, tf)) differ: {bad:?}");
    }
}

/// Compares a case's outputs (or its recorded `error`) with weir's result.
pub fn check_outcome(name: &str, c: &Value, got: Result<Vec<Tensor>, Error>) {
    match (got, c.get("error")) {
        (Ok(outs), None) => {
            let want = c["outputs"].as_array().unwrap();
            assert_eq!(outs.len(), want.len(), "{name}: outputs");
            for (k, (g, w)) in outs.iter().zip(want).enumerate() {
                assert_spec(&format!("{name} output {k}"), g, w);
            }
        }
        (Err(e), Some(want)) => check_error(name, &e, want),
        (Ok(v), Some(want)) => panic!("{name}: got {v:?}, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

/// A kernel error's message made comparable: without weir's " for '<node>'" suffix and
/// surrounding whitespace, and with the attrs of a "No OpKernel was registered" message sorted
/// (TensorFlow lists them in hash-map order, which varies from run to run).
pub fn normalized_message(msg: &str) -> String {
    let msg = msg.split(" for '").next().unwrap().trim();
    let key = "with these attrs: [";
    let Some(start) = msg.find(key).map(|i| i + key.len()) else {
        return msg.to_string();
    };
    let end = start + msg[start..].find(']').unwrap();
    let mut attrs: Vec<&str> = msg[start..end].split(", ").collect();
    attrs.sort_unstable();
    format!("{}{}{}", &msg[..start], attrs.join(", "), &msg[end..])
}

/// Compares an error with a recorded `{"code", "message"}`.
pub fn check_error(name: &str, got: &Error, want: &Value) {
    let code = weir_graph::Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{name}: {got}");
    assert_eq!(
        normalized_message(got.message()),
        normalized_message(want["message"].as_str().unwrap()),
        "{name}"
    );
}

/// Runs `check` on every case, then reports all that panicked together.
pub fn check_each(cases: &[Value], check: impl Fn(&Value)) {
    let failed: Vec<String> = cases
        .iter()
        .filter(|c| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(c))).is_err())
        .map(|c| c["name"].as_str().unwrap_or("?").to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases differ from TensorFlow: {failed:?}",
        failed.len(),
        cases.len()
    );
}
