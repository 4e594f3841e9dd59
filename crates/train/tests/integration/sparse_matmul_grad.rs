//! Gradients of `SparseMatMul` against TensorFlow 2.21's `tf.gradients` (the `grads` cases of
//! crates/ops/tests/data/sparse_matmul/expected.json): every transpose pair, float32 and
//! bfloat16 left operands, and an incoming gradient made by `ReluGrad`, which TensorFlow's
//! `_SparseMatMulGrad` treats as sparse (so both backward products become `SparseMatMul`s).
//! Inputs are small integers: the values match bit for bit.

use crate::tf_tensors::{compare, tensor};
use serde_json::Value;
use weir_graph::{DType, Graph};
use weir_ops::array::constant;
use weir_ops::math::{cast, mul, reduce_sum};
use weir_ops::nn::relu;
use weir_session::{RunArgs, Session};
use weir_train::gradients::gradients;

fn cases() -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ops/tests/data/sparse_matmul/expected.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["grads"].as_array().unwrap().clone()
}

#[test]
fn sparse_matmul_gradients_match_tensorflow() {
    let cases = cases();
    assert_eq!(cases.len(), 16);
    for c in &cases {
        let (ta, tb) = (
            c["transpose_a"].as_bool().unwrap(),
            c["transpose_b"].as_bool().unwrap(),
        );
        let relu_in = c["relu"].as_bool().unwrap();
        let name = format!("ta={ta} tb={tb} {} relu={relu_in}", c["dtype_a"]);
        let dt = |k: &str| match c[k].as_str().unwrap() {
            "bfloat16" => DType::BF16,
            _ => DType::F32,
        };
        let g = Graph::new();
        let x = cast(constant(&g, tensor(&c["a"])).unwrap(), dt("dtype_a")).unwrap();
        let y = cast(constant(&g, tensor(&c["b"])).unwrap(), dt("dtype_b")).unwrap();
        let p = g
            .new_operation("SparseMatMul")
            .input(x.clone())
            .input(y.clone())
            .attr("transpose_a", ta)
            .attr("transpose_b", tb)
            .attr("a_is_sparse", true)
            .build()
            .unwrap()
            .output(0)
            .unwrap();
        let p = if relu_in { relu(&p).unwrap() } else { p };
        let w = constant(&g, tensor(&c["w"])).unwrap();
        let loss = reduce_sum(mul(&p, &w).unwrap(), weir_ops::math::Axes::All).unwrap();
        let before: Vec<String> = g
            .operations()
            .iter()
            .map(|o| o.name().to_string())
            .collect();
        let grads = gradients(&[loss], &[x.clone(), y.clone()], None).unwrap();
        let added: Vec<String> = g
            .operations()
            .iter()
            .filter(|o| !before.contains(&o.name().to_string()))
            .map(|o| o.op_type().to_string())
            .collect();
        let count = |t: &str| added.iter().filter(|a| *a == t).count() as u64;
        assert_eq!(
            count("SparseMatMul"),
            c["sparse_matmuls"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(count("MatMul"), c["matmuls"].as_u64().unwrap(), "{name}");
        let mut args = RunArgs::new();
        for d in &grads {
            args = args.fetch(d.as_ref().unwrap());
        }
        let out = Session::new(&g).unwrap().run(&args).unwrap();
        compare(&format!("{name} grad_a"), &out[0], &c["grad_a"], 0.0);
        compare(&format!("{name} grad_b"), &out[1], &c["grad_b"], 0.0);
    }
}
