//! Every case of `decode_raw_cases.json` (written by TensorFlow 2.21) through weir's
//! `DecodeRaw` / `DecodePaddedRaw`, compared value for value.

use crate::parsing_support;

use parsing_support::*;
use serde_json::Value;
use weir_graph::{DType, Graph, Tensor};
use weir_ops::array::constant;
use weir_ops::parsing::DecodeRaw;
use weir_session::Session;

fn leaf(v: &Value) -> Vec<u8> {
    b64(v.as_str().unwrap())
}

/// Compares a float16 output with the fixture's shape and `bits` (`"0x3c00"`, ...).
fn assert_f16_bits(got: &Tensor, want: &Value, name: &str) {
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(got.dtype(), DType::F16, "{name}: dtype");
    assert_eq!(got.shape(), &shape[..], "{name}: shape");
    let got: Vec<u16> = got
        .as_slice::<weir_graph::f16>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    let want: Vec<u16> = want["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| u16::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap())
        .collect();
    assert_eq!(got, want, "{name}: float16 bits");
}

#[test]
fn every_decode_raw_case_matches_tensorflow() {
    let fixture = load("decode_raw_cases.json");
    let mut ran = 0;
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let out_type = case["out_type"].as_str().unwrap();
        let dtype = DType::from_name(out_type).unwrap();
        let g = Graph::new();
        let input: Tensor = nested_strings(&case["input_b64"], &leaf);
        let input = constant(&g, input).unwrap();
        let mut op = DecodeRaw::new(dtype).little_endian(case["little_endian"].as_bool().unwrap());
        if let Some(n) = case["fixed_length"].as_i64() {
            op = op.fixed_length(n as i32);
        }
        let built = op.build(&input);
        let want_err = case.get("error");
        let out = match built {
            Err(e) => {
                let want = want_err.unwrap_or_else(|| panic!("{name}: unexpected build error {e}"));
                assert!(
                    is_build_error(want),
                    "{name}: TF raised at run time, weir at build: {e}"
                );
                assert_eq!(
                    e.code(),
                    code_of(want["error_class"].as_str().unwrap()),
                    "{name}"
                );
                assert!(
                    want["message"].as_str().unwrap().starts_with(e.message()),
                    "{name}: {} vs {}",
                    e.message(),
                    want["message"]
                );
                ran += 1;
                continue;
            }
            Ok(o) => o,
        };
        let res = Session::new(&g).unwrap().eval(&out);
        match (res, want_err) {
            (Ok(t), None) if dtype == DType::F16 => assert_f16_bits(&t, &case["output"], name),
            (Ok(t), None) => assert_tensor_eq(&t, &tensor(&case["output"]), name),
            (Err(e), Some(want)) => assert_error_eq(&e, want, name),
            (r, w) => panic!("{name}: got {r:?}, fixture {w:?}"),
        }
        ran += 1;
    }
    assert!(ran >= 14, "only {ran} cases ran");
}
