//! Gradients of the sparse arithmetic ops (`SparseTensorDenseMatMul`,
//! `SparseDenseCwise{Mul,Div,Add}`, `SparseTensorDenseAdd`, `SparseAdd`, `SparseReduceSum`)
//! against central differences (weir's numeric checker, float64, within 1e-6), for every
//! differentiable input: the sparse values and the dense operand; and against TensorFlow
//! 2.21's `tf.gradients` (bit for bit, except the matmul's value gradients, within 1e-12
//! relative: weir sums their dot products with `Mul` and `Sum` where TensorFlow uses a batched
//! matmul).

use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::sparse::{
    sparse_add, sparse_dense_cwise_add, sparse_dense_cwise_div, sparse_dense_cwise_mul,
    sparse_reduce_sum, sparse_tensor_dense_add, sparse_tensor_dense_matmul, SparseOutput,
};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

const TOL: f64 = 1e-6;

fn t(dims: &[usize], v: &[f64]) -> Tensor {
    Tensor::from_vec(dims, v.to_vec()).unwrap()
}

fn values(n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.5 + ((i * 37 + seed * 11) % 17) as f64 / 7.0)
        .collect()
}

/// A sparse tensor whose values are a fed placeholder (returned with its value).
fn sparse(
    g: &Graph,
    ix: &[i64],
    rank: usize,
    shape: &[i64],
    seed: usize,
) -> (SparseOutput, Output, Tensor) {
    let n = ix.len() / rank;
    let v = placeholder(g, DType::F64, Shape::known(&[n])).unwrap();
    let sp = SparseOutput::new(
        constant(g, Tensor::from_vec(&[n, rank], ix.to_vec()).unwrap()).unwrap(),
        v.clone(),
        constant(g, shape.to_vec()).unwrap(),
    )
    .unwrap();
    (sp, v, t(&[n], &values(n, seed)))
}

fn dense(g: &Graph, dims: &[usize], seed: usize) -> (Output, Tensor) {
    let n: usize = dims.iter().product();
    let p = placeholder(g, DType::F64, Shape::known(dims)).unwrap();
    (p, t(dims, &values(n, seed)))
}

/// Checks d y / d x numerically, feeding `others` too.
fn check(name: &str, x: &Output, xv: &Tensor, y: &Output, others: &[(Output, Tensor)]) {
    let err = gradient_error(x, xv, y, others).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(err < TOL, "{name}: off by {err}");
}

/// Checks the gradient of `y` with respect to both fed inputs.
fn check_both(name: &str, a: (&Output, &Tensor), b: (&Output, &Tensor), y: &Output) {
    check(
        &format!("{name} d/da"),
        a.0,
        a.1,
        y,
        &[(b.0.clone(), b.1.clone())],
    );
    check(
        &format!("{name} d/db"),
        b.0,
        b.1,
        y,
        &[(a.0.clone(), a.1.clone())],
    );
}

#[test]
fn sparse_dense_matmul_every_adjoint() {
    // a is 3x4 (4x3 when adjointed), with a repeated index.
    let ix = [0i64, 1, 2, 3, 1, 0, 0, 1, 2, 2];
    for (aa, ab) in [(false, false), (false, true), (true, false), (true, true)] {
        let g = Graph::new();
        let shape = if aa { [4i64, 3] } else { [3, 4] };
        let ix: Vec<i64> = if aa {
            ix.chunks(2).flat_map(|c| [c[1], c[0]]).collect()
        } else {
            ix.to_vec()
        };
        let (sp, v, vv) = sparse(&g, &ix, 2, &shape, 1);
        let (b, bv) = dense(&g, if ab { &[5, 4] } else { &[4, 5] }, 2);
        let y = sparse_tensor_dense_matmul(&sp, &b, aa, ab).unwrap();
        check_both(&format!("matmul {aa} {ab}"), (&v, &vv), (&b, &bv), &y);
    }
}

#[test]
fn sparse_dense_cwise_ops_with_broadcasting() {
    let ix = [0i64, 1, 1, 0, 1, 3, 2, 2, 2, 3];
    type Build = fn(&SparseOutput, Output) -> weir_graph::Result<SparseOutput>;
    let builders: [(&str, Build); 3] = [
        ("mul", |s, d| sparse_dense_cwise_mul(s, d)),
        ("div", |s, d| sparse_dense_cwise_div(s, d)),
        ("add", |s, d| sparse_dense_cwise_add(s, d)),
    ];
    for (kind, f) in builders {
        for dims in [&[3usize, 4][..], &[4], &[3, 1], &[1, 4]] {
            let g = Graph::new();
            let (sp, v, vv) = sparse(&g, &ix, 2, &[3, 4], 3);
            let (d, dv) = dense(&g, dims, 4);
            let y = f(&sp, d.clone()).unwrap().values;
            check_both(&format!("cwise {kind} {dims:?}"), (&v, &vv), (&d, &dv), &y);
        }
    }
}

#[test]
fn sparse_tensor_dense_add_with_repeated_indices() {
    let g = Graph::new();
    let (sp, v, vv) = sparse(&g, &[0, 1, 1, 2, 0, 1], 2, &[2, 3], 5);
    let (d, dv) = dense(&g, &[2, 3], 6);
    let y = sparse_tensor_dense_add(&sp, &d).unwrap();
    check_both("dense add", (&v, &vv), (&d, &dv), &y);
}

#[test]
fn sparse_add_both_operands() {
    let g = Graph::new();
    let (a, av, avv) = sparse(&g, &[0, 0, 0, 2, 1, 1, 2, 0], 2, &[3, 3], 7);
    let (b, bv, bvv) = sparse(&g, &[0, 2, 1, 0, 2, 0, 2, 2], 2, &[3, 3], 8);
    let thresh = constant(&g, 0.0f64).unwrap();
    let y = sparse_add(&a, &b, &thresh).unwrap().values;
    check_both("sparse add", (&av, &avv), (&bv, &bvv), &y);
    // A thresholded sum passes no gradient back to its operands.
    let g = Graph::new();
    let (a, av, _) = sparse(&g, &[0, 0, 1, 1], 2, &[2, 2], 0);
    let (b, bv, _) = sparse(&g, &[0, 0, 1, 0], 2, &[2, 2], 0);
    let y = sparse_add(&a, &b, constant(&g, 1.5f64).unwrap())
        .unwrap()
        .values;
    let grads = gradients(&[y], &[av.clone(), bv.clone()], None).unwrap();
    let sess = weir_session::Session::new(&g).unwrap();
    let out = sess
        .run(
            &weir_session::RunArgs::new()
                .feed(&av, t(&[2], &[1.0, 2.0]))
                .feed(&bv, t(&[2], &[-0.5, 4.0]))
                .fetch(grads[0].as_ref().unwrap())
                .fetch(grads[1].as_ref().unwrap()),
        )
        .unwrap();
    // Sum: [0,0] = 0.5 dropped, [1,0] = 4 kept, [1,1] = 2 kept.
    assert_eq!(out[0].to_vec::<f64>().unwrap(), [0.0, 1.0]);
    assert_eq!(out[1].to_vec::<f64>().unwrap(), [0.0, 1.0]);
}

#[test]
fn sparse_reduce_sum_over_axes() {
    let ix = [0i64, 1, 0, 1, 2, 0, 1, 1, 0, 1, 2, 3, 1, 0, 0];
    let cases: [(Option<&[i32]>, bool); 6] = [
        (Some(&[1]), false),
        (Some(&[0, 2]), true),
        (Some(&[-1]), false),
        (None, false),
        (None, true),
        (Some(&[]), false),
    ];
    for (axes, keep) in cases {
        let g = Graph::new();
        let (sp, v, vv) = sparse(&g, &ix, 3, &[2, 3, 4], 9);
        let y = sparse_reduce_sum(&sp, axes, keep).unwrap();
        check(&format!("reduce_sum {axes:?} {keep}"), &v, &vv, &y, &[]);
    }
}

// ---------------------------------------------------------------------------------------------
// Against TensorFlow 2.21's tf.gradients (crates/ops/tests/data/sparse_math/grads.json, written
// by make_sparse_math.py there).

fn grad_cases() -> Vec<serde_json::Value> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../ops/tests/data/sparse_math/grads.json");
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str::<serde_json::Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The tensor a spec ({dtype, dims, values}) describes (float64 as bit patterns).
fn spec_tensor(spec: &serde_json::Value) -> Tensor {
    let dims: Vec<usize> = spec["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let v = spec["values"].as_array().unwrap();
    match spec["dtype"].as_str().unwrap() {
        "float64" => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| f64::from_bits(x.as_u64().unwrap()))
                .collect(),
        ),
        "int64" => Tensor::from_vec(&dims, v.iter().map(|x| x.as_i64().unwrap()).collect()),
        "int32" => Tensor::from_vec(
            &dims,
            v.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

#[test]
fn gradients_match_tensorflow() {
    use weir_ops::sparse::sparse_reduce_sum as reduce_sum;
    let cases = grad_cases();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let mut feeds = Vec::new();
        let x: Vec<Output> = c["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let v = spec_tensor(s);
                let p = placeholder(&g, v.dtype(), Shape::known(v.shape())).unwrap();
                feeds.push((p.clone(), v));
                p
            })
            .collect();
        let sp =
            |k: usize| SparseOutput::new(x[k].clone(), x[k + 1].clone(), x[k + 2].clone()).unwrap();
        let attr = |k: &str| c["attrs"][k].as_bool().unwrap_or(false);
        let y = match c["op"].as_str().unwrap() {
            "matmul" => {
                sparse_tensor_dense_matmul(&sp(0), &x[3], attr("adjoint_a"), attr("adjoint_b"))
                    .unwrap()
            }
            "cwise_mul" => sparse_dense_cwise_mul(&sp(0), &x[3]).unwrap().values,
            "cwise_div" => sparse_dense_cwise_div(&sp(0), &x[3]).unwrap().values,
            "dense_add" => sparse_tensor_dense_add(&sp(0), &x[3]).unwrap(),
            "sparse_add" => sparse_add(&sp(0), &sp(3), &x[6]).unwrap().values,
            "reduce_sum" => {
                let axes: Vec<i32> = spec_tensor(&c["inputs"][3]).to_vec::<i32>().unwrap();
                reduce_sum(&sp(0), Some(&axes), attr("keep_dims")).unwrap()
            }
            other => panic!("{other}"),
        };
        let wrt: Vec<Output> = c["wrt"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| x[i.as_u64().unwrap() as usize].clone())
            .collect();
        let gy = constant(&g, spec_tensor(&c["grad_ys"])).unwrap();
        let grads = gradients(&[y], &wrt, Some(&[gy])).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = weir_session::RunArgs::new();
        for (p, v) in feeds {
            args = args.feed(&p, v);
        }
        for d in &grads {
            args = args.fetch(d.as_ref().unwrap_or_else(|| panic!("{name}: no gradient")));
        }
        let got = weir_session::Session::new(&g)
            .unwrap()
            .run(&args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, (got, want)) in got.iter().zip(c["grads"].as_array().unwrap()).enumerate() {
            let want = spec_tensor(want);
            assert_eq!(got.shape(), want.shape(), "{name}: shape of gradient {k}");
            let (a, b) = (got.to_vec::<f64>().unwrap(), want.to_vec::<f64>().unwrap());
            // The matmul's value gradients are dot products TensorFlow sums in a batched
            // matmul's order; everything else matches bit for bit.
            let tol = if name.starts_with("g_mm") { 1e-12 } else { 0.0 };
            for (x, y) in a.iter().zip(&b) {
                assert!(
                    (x - y).abs() <= tol * (1.0 + y.abs()),
                    "{name}: gradient {k}: {a:?} vs {b:?}"
                );
            }
        }
    }
}
