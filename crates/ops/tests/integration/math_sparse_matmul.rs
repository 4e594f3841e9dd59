//! `tf.matmul`'s sparse hints, adjoints and mixed bfloat16 operands, and the `SparseMatMul` op
//! they build, against TensorFlow 2.21 (tests/data/sparse_matmul, made by
//! make_sparse_matmul.py there): the nodes TensorFlow's Python adds (types and names, in
//! order), the values bit for bit (the inputs are small integers, so every order of summation
//! is exact), and the kernel's errors in TensorFlow's words.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::{cast, MatMul};
use weir_session::{RunArgs, Session};

use crate::binary_dtypes::data::{compare, tensor};

fn doc() -> &'static Value {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sparse_matmul/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })
}

fn dtype(name: &str) -> DType {
    match name {
        "float32" => DType::F32,
        "float64" => DType::F64,
        "bfloat16" => DType::BF16,
        "complex64" => DType::C64,
        other => panic!("unexpected dtype {other}"),
    }
}

/// The input as TensorFlow's script made it: a constant, cast unless it is complex.
fn operand(g: &Graph, v: &Value, dt: &str) -> Output {
    let c = constant(g, tensor(v)).unwrap();
    if dt == "complex64" {
        c
    } else {
        cast(c, dtype(dt)).unwrap()
    }
}

fn flag(c: &Value, k: &str) -> bool {
    c["args"][k].as_bool().unwrap_or(false)
}

#[test]
fn matmul_builds_and_computes_what_tensorflow_does() {
    let cases: Vec<&Value> = doc()["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("dtype_a").is_some())
        .collect();
    assert_eq!(cases.len(), 32);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let a = operand(&g, &c["a"], c["dtype_a"].as_str().unwrap());
        let b = operand(&g, &c["b"], c["dtype_b"].as_str().unwrap());
        let before = g.operations().len();
        let built = MatMul::new()
            .transpose_a(flag(c, "transpose_a"))
            .transpose_b(flag(c, "transpose_b"))
            .adjoint_a(flag(c, "adjoint_a"))
            .adjoint_b(flag(c, "adjoint_b"))
            .a_is_sparse(flag(c, "a_is_sparse"))
            .b_is_sparse(flag(c, "b_is_sparse"))
            .build(&a, &b);
        if let Some(msg) = c.get("build_error") {
            let e = built.unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument, "{name}");
            assert_eq!(e.message(), msg.as_str().unwrap(), "{name}");
            continue;
        }
        let out = built.unwrap();
        let nodes: Vec<(String, String)> = g.operations()[before..]
            .iter()
            .map(|o| (o.op_type().to_string(), o.name().to_string()))
            .collect();
        let want: Vec<(String, String)> = c["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| (n[0].as_str().unwrap().into(), n[1].as_str().unwrap().into()))
            .collect();
        assert_eq!(nodes, want, "{name}");
        let got = Session::new(&g)
            .unwrap()
            .run(&RunArgs::new().fetch(&out))
            .unwrap();
        compare(name, &got[0], &c["out"], 0.0);
    }
}

#[test]
fn sparse_matmul_kernel_matches_tensorflow_on_edges_and_errors() {
    let cases: Vec<&Value> = doc()["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("dtype_a").is_none())
        .collect();
    assert_eq!(cases.len(), 4);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let pa = placeholder(&g, DType::F32, weir_graph::Shape::unknown()).unwrap();
        let pb = placeholder(&g, DType::F32, weir_graph::Shape::unknown()).unwrap();
        let out = g
            .new_operation("SparseMatMul")
            .input(pa.clone())
            .input(pb.clone())
            .attr("a_is_sparse", flag(c, "a_is_sparse"))
            .attr("b_is_sparse", flag(c, "b_is_sparse"))
            .build()
            .unwrap()
            .output(0)
            .unwrap();
        let sess = Session::new(&g).unwrap();
        let r = sess.run(
            &RunArgs::new()
                .feed(&pa, tensor(&c["a"]))
                .feed(&pb, tensor(&c["b"]))
                .fetch(&out),
        );
        match c.get("error") {
            Some(_) => {
                let e = r.unwrap_err();
                assert_eq!(e.code(), Code::InvalidArgument, "{name}");
                assert!(
                    e.message().starts_with(c["message"].as_str().unwrap()),
                    "{name}: {e}"
                );
            }
            None => compare(name, &r.unwrap()[0], &c["out"], 0.0),
        }
    }
}

#[test]
fn sparse_matmul_refuses_other_types_when_added() {
    let g = Graph::new();
    let a = constant(&g, Tensor::from_vec(&[1, 1], vec![1.0f64]).unwrap()).unwrap();
    let e = g
        .new_operation("SparseMatMul")
        .input(a.clone())
        .input(a)
        .build()
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}
