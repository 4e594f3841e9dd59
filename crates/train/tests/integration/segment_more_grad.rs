//! Gradients of `UnsortedSegmentMax/Min/Prod` against TensorFlow 2.21's `tf.gradients` (every
//! case of crates/ops/tests/data/segment_more/expected.json with a recorded gradient, within
//! 1e-6 relative: the float32 gradients divide and multiply a few values, in an order that may
//! differ from TensorFlow's by an ulp or two), and against weir's numeric gradient checker
//! (central differences: within 1e-6 for float64, 2e-2 for float32).

#[path = "../../../ops/tests/integration/segment_more/build.rs"]
mod build;

use build::{assert_tensor, build, cases, tensor};
use weir_graph::{DType, Graph, Tensor};
use weir_ops::array::constant;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grad").is_some()) {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let b = build(&g, case).unwrap_or_else(|e| panic!("{name}: {e}"));
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let d = gradients(
            std::slice::from_ref(&b.output),
            std::slice::from_ref(&b.data),
            Some(&[gy]),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .remove(0)
        .unwrap_or_else(|| panic!("{name}: no gradient"));
        let got = Session::new(&g)
            .unwrap()
            .run(&RunArgs::new().fetch(&d))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .remove(0);
        assert_tensor(name, &got, &case["grad"], 1e-6);
        n += 1;
    }
    assert_eq!(n, 16, "gradient cases");
}

/// Ties of a max or min: the function has a kink there, so central differences see one side
/// while TensorFlow (and weir) share the gradient among the tied inputs.
const TIES: &[&str] = &[
    "max_f32",
    "min_f32",
    "max_f64_neg_ids",
    "min_f64_neg_ids",
    "max_ties",
    "min_ties",
];

#[test]
fn gradients_match_central_differences() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grad").is_some()) {
        let name = case["name"].as_str().unwrap();
        if TIES.contains(&name) {
            continue;
        }
        let g = Graph::new();
        let b = build(&g, case).unwrap();
        let x = tensor(&case["data"]);
        let tol = if x.dtype() == DType::F64 { 1e-6 } else { 2e-2 };
        let err =
            gradient_error(&b.data, &x, &b.output, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(err < tol, "{name}: off by {err}");
        n += 1;
    }
    assert_eq!(n, 10, "numeric checks");
}

/// Distinct values (no ties), ids out of order with an empty segment, in float64.
#[test]
fn more_gradients_match_central_differences() {
    use weir_ops::array::placeholder_with_default;
    use weir_ops::math::{unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod};
    let x = Tensor::from_vec(
        &[5, 2],
        vec![0.3f64, -1.2, 2.5, 0.7, -0.4, 1.9, 1.1, -2.2, 0.9, 0.45],
    )
    .unwrap();
    let ops = [
        unsorted_segment_max,
        unsorted_segment_min,
        unsorted_segment_prod,
    ];
    for (k, f) in ops.into_iter().enumerate() {
        let g = Graph::new();
        let data = placeholder_with_default(
            constant(&g, x.clone()).unwrap(),
            weir_graph::Shape::known(&[5, 2]),
        )
        .unwrap();
        let ids = constant(&g, [2i64, 0, 2, 1, 0]).unwrap();
        let y = f(data.clone(), ids, constant(&g, 4i64).unwrap()).unwrap();
        let err = gradient_error(&data, &x, &y, &[]).unwrap();
        assert!(err < 1e-6, "op {k}: off by {err}");
    }
}

#[test]
fn gradient_uses_tensorflows_ops() {
    let case = cases().iter().find(|c| c["name"] == "prod_zeros").unwrap();
    let g = Graph::new();
    let b = build(&g, case).unwrap();
    gradients(&[b.output], &[b.data], None).unwrap();
    let count = |t: &str| g.with_nodes(|n| n.iter().filter(|n| n.op_type() == t).count());
    // The forward op and the product of the non-zero inputs; the zero counts.
    assert_eq!(count("UnsortedSegmentProd"), 2);
    assert_eq!(count("UnsortedSegmentSum"), 1);
}
