//! Shared helpers of the parsing tests: reading the TensorFlow fixtures (JSON tensors, errors)
//! and comparing weir's tensors with them value for value.

use std::path::PathBuf;

use base64::Engine;
use serde_json::Value;
use weir_graph::{Bytes, Code, DType, Error, SparseTensor, Tensor};

/// `../shared/fixtures` beside the repository; found by walking up from this crate, so a git
/// worktree nested deeper than the main checkout finds it too.
pub fn fixtures_dir() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/fixtures"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("no shared/fixtures above {}", here.display()))
}

pub fn load(rel: &str) -> Value {
    let p = fixtures_dir().join(rel);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

pub fn b64(s: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

pub fn hex_u64(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// A (possibly nested) JSON list of strings as a string tensor, each leaf through `leaf`.
pub fn nested_strings(v: &Value, leaf: &dyn Fn(&Value) -> Vec<u8>) -> Tensor {
    fn walk(
        v: &Value,
        leaf: &dyn Fn(&Value) -> Vec<u8>,
        shape: &mut Vec<usize>,
        depth: usize,
        out: &mut Vec<Bytes>,
    ) {
        match v {
            Value::Array(items) => {
                if shape.len() <= depth {
                    shape.push(items.len());
                }
                for it in items {
                    walk(it, leaf, shape, depth + 1, out);
                }
            }
            other => out.push(Bytes::from(leaf(other))),
        }
    }
    let mut shape = Vec::new();
    let mut out = Vec::new();
    walk(v, leaf, &mut shape, 0, &mut out);
    Tensor::from_vec(&shape, out).unwrap()
}

/// A fixture tensor (`{"dtype", "shape", "values", ...}`) as a weir tensor.
pub fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let dtype = v["dtype"].as_str().unwrap();
    match dtype {
        "string" => {
            let vals: Vec<Bytes> = v["values_b64"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| Bytes::from(b64(s.as_str().unwrap())))
                .collect();
            Tensor::from_vec(&shape, vals).unwrap()
        }
        "float32" => {
            let vals: Vec<f32> = v["bits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| f32::from_bits(hex_u64(b.as_str().unwrap()) as u32))
                .collect();
            Tensor::from_vec(&shape, vals).unwrap()
        }
        "float64" => {
            let vals: Vec<f64> = v["bits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| f64::from_bits(hex_u64(b.as_str().unwrap())))
                .collect();
            Tensor::from_vec(&shape, vals).unwrap()
        }
        "int64" => Tensor::from_vec(&shape, ints(v).iter().map(|&x| x as i64).collect()).unwrap(),
        "int32" => Tensor::from_vec(&shape, ints(v).iter().map(|&x| x as i32).collect()).unwrap(),
        "int16" => Tensor::from_vec(&shape, ints(v).iter().map(|&x| x as i16).collect()).unwrap(),
        "int8" => Tensor::from_vec(&shape, ints(v).iter().map(|&x| x as i8).collect()).unwrap(),
        "uint8" => Tensor::from_vec(&shape, ints(v).iter().map(|&x| x as u8).collect()).unwrap(),
        "uint16" => Tensor::from_vec(&shape, ints(v).iter().map(|&x| x as u16).collect()).unwrap(),
        "bool" => Tensor::from_vec(
            &shape,
            v["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_bool().unwrap())
                .collect(),
        )
        .unwrap(),
        other => panic!("fixture dtype {other} has no weir dtype"),
    }
}

fn ints(v: &Value) -> Vec<i128> {
    v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            x.as_i64()
                .map(i128::from)
                .or_else(|| x.as_u64().map(i128::from))
                .unwrap()
        })
        .collect()
}

/// Bitwise equality (so NaN payloads and -0.0 count) of dtype, shape and values.
pub fn assert_tensor_eq(got: &Tensor, want: &Tensor, what: &str) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    match got.dtype() {
        DType::F32 => {
            let g: Vec<u32> = got
                .as_slice::<f32>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            let w: Vec<u32> = want
                .as_slice::<f32>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert_eq!(g, w, "{what}: float bits");
        }
        DType::F64 => {
            let g: Vec<u64> = got
                .as_slice::<f64>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            let w: Vec<u64> = want
                .as_slice::<f64>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert_eq!(g, w, "{what}: double bits");
        }
        _ => assert!(got == want, "{what}: values\n got {got:?}\nwant {want:?}"),
    }
}

/// Compares a sparse result with a fixture `{"sparse": true, "indices", "values", "dense_shape"}`.
pub fn assert_sparse_eq(got: &SparseTensor, want: &Value, what: &str) {
    assert_eq!(
        want["sparse"],
        Value::Bool(true),
        "{what}: fixture is not sparse"
    );
    assert_tensor_eq(
        &got.indices,
        &tensor(&want["indices"]),
        &format!("{what}.indices"),
    );
    assert_tensor_eq(
        &got.values,
        &tensor(&want["values"]),
        &format!("{what}.values"),
    );
    assert_tensor_eq(
        &got.dense_shape,
        &tensor(&want["dense_shape"]),
        &format!("{what}.dense_shape"),
    );
}

/// The weir code of a fixture error class.
pub fn code_of(class: &str) -> Code {
    match class {
        "InvalidArgumentError" => Code::InvalidArgument,
        "OutOfRangeError" => Code::OutOfRange,
        "DataLossError" => Code::DataLoss,
        "NotFoundError" => Code::NotFound,
        "InternalError" => Code::Internal,
        // Python's ValueError / TypeError at graph construction are builder errors.
        "ValueError" | "TypeError" => Code::InvalidArgument,
        other => panic!("unexpected fixture error class {other}"),
    }
}

/// Checks `e` against a fixture error: same kind and the same message.
pub fn assert_error_eq(e: &Error, want: &Value, what: &str) {
    let class = want["error_class"].as_str().unwrap();
    // TensorFlow's message quoting raw non-UTF-8 bytes broke Python's decoding of it; the
    // underlying error is InvalidArgument (see the fixture's note).
    let code = if class == "UnicodeDecodeError" {
        Code::InvalidArgument
    } else {
        code_of(class)
    };
    assert_eq!(e.code(), code, "{what}: error kind of {e}");
    assert_eq!(
        e.message(),
        want["message"].as_str().unwrap(),
        "{what}: error message"
    );
}

/// Whether a fixture error arose while building the graph (a builder error in weir).
pub fn is_build_error(want: &Value) -> bool {
    want["stage"] == "graph_construction"
}

/// The values of one `tf.train.Feature`, for the tiny test encoder below.
#[derive(Clone, Debug, PartialEq)]
pub enum FeatureValue {
    /// A `Feature` with no kind set.
    None,
    Bytes(Vec<Vec<u8>>),
    Float(Vec<f32>),
    Int64(Vec<i64>),
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn delimited(field: u8, body: &[u8], out: &mut Vec<u8>) {
    out.push((field << 3) | 2);
    varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// A serialized `Feature`; numbers packed (as TensorFlow writes them) or not.
pub fn encode_feature(f: &FeatureValue, packed: bool) -> Vec<u8> {
    let mut list = Vec::new();
    let field = match f {
        FeatureValue::None => return Vec::new(),
        FeatureValue::Bytes(v) => {
            for b in v {
                delimited(1, b, &mut list);
            }
            1
        }
        FeatureValue::Float(v) => {
            if packed {
                let body: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                if !v.is_empty() {
                    delimited(1, &body, &mut list);
                }
            } else {
                for x in v {
                    list.push(0x0d);
                    list.extend_from_slice(&x.to_le_bytes());
                }
            }
            2
        }
        FeatureValue::Int64(v) => {
            if packed {
                let mut body = Vec::new();
                for &x in v {
                    varint(x as u64, &mut body);
                }
                if !v.is_empty() {
                    delimited(1, &body, &mut list);
                }
            } else {
                for &x in v {
                    list.push(0x08);
                    varint(x as u64, &mut list);
                }
            }
            3
        }
    };
    let mut out = Vec::new();
    delimited(field, &list, &mut out);
    out
}

/// A serialized `Example` with `features` in the given order.
pub fn encode_example(features: &[(String, FeatureValue)], packed: bool) -> Vec<u8> {
    let mut map = Vec::new();
    for (k, f) in features {
        let mut entry = Vec::new();
        delimited(1, k.as_bytes(), &mut entry);
        delimited(2, &encode_feature(f, packed), &mut entry);
        delimited(1, &entry, &mut map);
    }
    let mut out = Vec::new();
    if !features.is_empty() {
        delimited(1, &map, &mut out);
    }
    out
}

/// A serialized `SequenceExample`: context features and feature lists.
pub fn encode_sequence_example(
    context: &[(String, FeatureValue)],
    lists: &[(String, Vec<FeatureValue>)],
) -> Vec<u8> {
    let ex = encode_example(context, true);
    let mut out = Vec::new();
    if !ex.is_empty() {
        // An Example's field 1 is its Features; a SequenceExample's field 1 is its context
        // Features: the same bytes.
        out.extend_from_slice(&ex);
    }
    let mut fl = Vec::new();
    for (k, steps) in lists {
        let mut list = Vec::new();
        for s in steps {
            delimited(1, &encode_feature(s, true), &mut list);
        }
        let mut entry = Vec::new();
        delimited(1, k.as_bytes(), &mut entry);
        delimited(2, &list, &mut entry);
        delimited(1, &entry, &mut fl);
    }
    if !lists.is_empty() {
        delimited(2, &fl, &mut out);
    }
    out
}
