//! Gradients of the new scatter, linear-algebra, einsum and array ops against TensorFlow 2.21's
//! `tf.gradients` (every case of crates/ops/tests/data/more_ops/expected.json with recorded
//! gradients, within 1e-5 relative), and against weir's numeric gradient checker (central
//! differences: within 1e-6 for the float64 cases, 2e-2 for the float32 ones).

#[path = "../../../ops/tests/integration/more_ops/build.rs"]
mod build;

use build::{assert_tensor, build, cases, tensor};
use serde_json::Value;
use weir_graph::{DType, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn grad_names(case: &Value) -> Vec<String> {
    case["grads"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        let names = grad_names(case);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let g = Graph::new();
        let built = build(&g, case, &refs).unwrap_or_else(|e| panic!("{name}: {e}"));
        let xs: Vec<Output> = names.iter().map(|k| built.inputs[k].clone()).collect();
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let grads = gradients(&built.outputs[..1], &xs, Some(&[gy]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let sess = Session::new(&g).unwrap();
        let mut args = RunArgs::new();
        for (k, d) in names.iter().zip(&grads) {
            let d = d
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no gradient for {k}"));
            args = args.fetch(d);
        }
        let got = sess.run(&args).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, v) in names.iter().zip(&got) {
            assert_tensor(&format!("{name}: d/d{k}"), v, &case["grads"][k], 1e-5);
        }
        n += 1;
    }
    assert!(n >= 40, "only {n} gradient cases");
}

/// Where central differences and TensorFlow's gradient legitimately differ: repeated
/// coordinates of a scatter update (all of them get the gradient, only the last counts), and
/// Cholesky, which reads one triangle but has a symmetric gradient (checked below through a
/// symmetric input instead).
const NOT_NUMERIC: &[&str] = &["tensor_scatter_nd_update_repeated"];

#[test]
fn float64_gradients_match_central_differences() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        if NOT_NUMERIC.contains(&name) || case["fn"] == "cholesky" {
            continue;
        }
        for k in grad_names(case) {
            let v = tensor(&case["inputs"][&k]);
            if v.dtype() != DType::F64 {
                continue;
            }
            let g = Graph::new();
            let built = build(&g, case, &[k.as_str()]).unwrap();
            let err = gradient_error(&built.inputs[&k], &v, &built.outputs[0], &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(err < 1e-6, "{name}: d/d{k} is off by {err}");
            n += 1;
        }
    }
    assert!(n >= 15, "only {n} numeric checks");
}

#[test]
fn float32_gradients_match_central_differences_roughly() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        if NOT_NUMERIC.contains(&name) || case["fn"] == "cholesky" {
            continue;
        }
        for k in grad_names(case) {
            let v = tensor(&case["inputs"][&k]);
            if v.dtype() != DType::F32 {
                continue;
            }
            let g = Graph::new();
            let built = build(&g, case, &[k.as_str()]).unwrap();
            let err = gradient_error(&built.inputs[&k], &v, &built.outputs[0], &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            // Central differences in float32 with a step of 1e-3.
            assert!(err < 2e-2, "{name}: d/d{k} is off by {err}");
            n += 1;
        }
    }
    assert!(n >= 30, "only {n} numeric checks");
}

#[test]
fn cholesky_gradient_of_a_symmetric_input_matches_central_differences() {
    use weir_ops::array::transpose_default;
    use weir_ops::math::{add, mul};
    let g = Graph::new();
    let a = Tensor::from_vec(
        &[3, 3],
        vec![4.0f64, 2.0, 0.4, 2.0, 5.0, 1.0, 0.4, 1.0, 3.0],
    )
    .unwrap();
    let x = weir_ops::array::placeholder_with_default(
        constant(&g, a.clone()).unwrap(),
        weir_graph::Shape::known(&[3, 3]),
    )
    .unwrap();
    let sym = mul(
        add(&x, transpose_default(&x).unwrap()).unwrap(),
        constant(&g, 0.5f64).unwrap(),
    )
    .unwrap();
    let l = weir_ops::linalg::cholesky(&sym).unwrap();
    let err = gradient_error(&x, &a, &l, &[]).unwrap();
    assert!(err < 1e-6, "off by {err}");
}

#[test]
fn variable_scatters_pass_no_gradient() {
    use weir_ops::state::{scatter_add, Variable};
    let g = Graph::new();
    let v = Variable::new(constant(&g, [1.0f32, 2.0]).unwrap()).unwrap();
    let u = constant(&g, [3.0f32]).unwrap();
    let y = scatter_add(&v, constant(&g, [0]).unwrap(), &u).unwrap();
    let d = gradients(&[y], &[u], None).unwrap();
    assert!(d[0].is_none());
}

#[test]
fn three_operand_einsum_gradients_chain_pairwise() {
    let case = cases()
        .iter()
        .find(|c| c["name"] == "einsum_bilinear")
        .unwrap();
    assert_eq!(grad_names(case).len(), 3);
    let g = Graph::new();
    let built = build(&g, case, &["x", "y", "z"]).unwrap();
    let ops: Vec<String> = g.with_nodes(|n| {
        n.iter()
            .filter(|n| n.op_type() == "Einsum")
            .map(|n| n.attr::<String>("equation").unwrap())
            .collect()
    });
    assert_eq!(ops, vec!["bn,anm->bam", "bam,bm->ba"]);
    assert_eq!(built.outputs[0].shape(), weir_graph::Shape::known(&[2, 4]));
}
