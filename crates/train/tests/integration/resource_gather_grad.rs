//! Gradients through `ResourceGather` (`v.sparse_read`), `ResourceGatherNd` (`v.gather_nd`) and
//! `TensorScatterMax`/`Min` against TensorFlow 2.21's `tf.gradients` (tests/data/
//! resource_gather_grad, written by make_resource_gather_grad.py: TensorFlow's IndexedSlices
//! recorded dense, the form weir's gradient takes), training steps of GradientDescent and
//! Momentum on an embedding lookup of a resource variable, and weir's numeric gradient checker
//! on the scatters.

use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder, tensor_scatter_nd_max, tensor_scatter_nd_min};
use weir_ops::math::{self, Reduce};
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;
use weir_train::{GradientDescentOptimizer, MomentumOptimizer, Optimizer};

fn cases() -> &'static Vec<Value> {
    static CASES: OnceLock<Vec<Value>> = OnceLock::new();
    CASES.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/resource_gather_grad/expected.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        serde_json::from_str(&text).unwrap()
    })
}

/// A recorded tensor: float32/float64 as bit patterns, int32 as numbers.
fn tensor(spec: &Value) -> Tensor {
    let dims: Vec<usize> = spec["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = spec["values"].as_array().unwrap();
    let u = |x: &Value| x.as_u64().unwrap();
    match spec["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(
            &dims,
            vals.iter().map(|x| f32::from_bits(u(x) as u32)).collect(),
        ),
        "float64" => Tensor::from_vec(&dims, vals.iter().map(|x| f64::from_bits(u(x))).collect()),
        "int32" => Tensor::from_vec(
            &dims,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

/// Every element's bits, so values compare exactly.
fn bits(t: &Tensor) -> Vec<u64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|x| u64::from(x.to_bits()))
            .collect(),
        DType::F64 => t
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect(),
        d => panic!("dtype {d}"),
    }
}

fn assert_same(name: &str, got: &Tensor, want: &Value) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{name}");
    assert_eq!(got.shape(), want.shape(), "{name}");
    assert_eq!(bits(got), bits(&want), "{name}: {got:?} vs {want:?}");
}

fn run(g: &Graph, fetches: &[&Output]) -> Vec<Tensor> {
    let mut args = RunArgs::new();
    for f in fetches {
        args = args.fetch(*f);
    }
    let sess = Session::new(g).unwrap();
    sess.run_target(&global_variables_initializer(g).unwrap())
        .unwrap();
    sess.run(&args).unwrap()
}

/// The gradient of a sparse read with respect to the variable (its handle, as optimizers ask).
fn gather_grad(c: &Value) -> Tensor {
    let g = Graph::new();
    let v = Variable::new(constant(&g, tensor(&c["params"])).unwrap()).unwrap();
    let i = constant(&g, tensor(&c["indices"])).unwrap();
    let out = match c["kind"].as_str().unwrap() {
        "sparse_read" => v.sparse_read(i).unwrap(),
        _ => v.gather_nd(i).unwrap(),
    };
    let mut ys = vec![out];
    let mut gys = vec![constant(&g, tensor(&c["grad_ys"])).unwrap()];
    if c["mixed"].as_bool() == Some(true) {
        let three = constant(&g, Tensor::from(3.0f32)).unwrap();
        let r = v.read_value().unwrap();
        ys.push(math::mul(&r, &three).unwrap());
        gys.push(weir_ops::array::ones_like(&r).unwrap());
    }
    let d = gradients(&ys, &[v.handle().clone()], Some(&gys)).unwrap()[0]
        .clone()
        .expect("a gradient for the variable");
    run(&g, &[&d]).remove(0)
}

fn scatter_grads(c: &Value) -> Vec<Tensor> {
    let g = Graph::new();
    let x = constant(&g, tensor(&c["tensor"])).unwrap();
    let u = constant(&g, tensor(&c["updates"])).unwrap();
    let i = constant(&g, tensor(&c["indices"])).unwrap();
    let out = match c["op"].as_str().unwrap() {
        "max" => tensor_scatter_nd_max(&x, &i, &u).unwrap(),
        _ => tensor_scatter_nd_min(&x, &i, &u).unwrap(),
    };
    let gy = constant(&g, tensor(&c["grad_ys"])).unwrap();
    let d = gradients(&[out], &[x, u], Some(&[gy])).unwrap();
    let (dx, du) = (d[0].clone().unwrap(), d[1].clone().unwrap());
    run(&g, &[&dx, &du])
}

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for c in cases() {
        let name = c["name"].as_str().unwrap();
        match c["kind"].as_str().unwrap() {
            "sparse_read" | "gather_nd" => {
                assert_same(name, &gather_grad(c), &c["grads"]["params"]);
                n += 1;
            }
            "tensor_scatter" => {
                let got = scatter_grads(c);
                assert_same(
                    &format!("{name}: d/dtensor"),
                    &got[0],
                    &c["grads"]["tensor"],
                );
                assert_same(
                    &format!("{name}: d/dupdates"),
                    &got[1],
                    &c["grads"]["updates"],
                );
                n += 2;
            }
            _ => {}
        }
    }
    assert_eq!(n, 27);
}

/// The optimizer's training steps on `reduce_sum(v.sparse_read(ids) * weights)`. TensorFlow's
/// GradientDescent adds `-lr * g` for each gathered row in turn (`resource_scatter_add`) where
/// weir's subtracts `lr * sum(g)`; the recorded steps (repeated ids included) round alike.
fn train_steps(c: &Value) -> (Vec<Tensor>, Graph) {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, tensor(&c["init"])).unwrap())
        .name("emb")
        .build()
        .unwrap();
    let rows = v
        .sparse_read(constant(&g, tensor(&c["ids"])).unwrap())
        .unwrap();
    let w = constant(&g, tensor(&c["weights"])).unwrap();
    let loss = Reduce::sum().build(math::mul(&rows, &w).unwrap()).unwrap();
    // TensorFlow's Python makes a float32 tensor of the learning rate and momentum, then casts
    // it to the variable's dtype.
    let lr = c["learning_rate"].as_f64().unwrap() as f32;
    let train = match c["optimizer"].as_str().unwrap() {
        "gd" => GradientDescentOptimizer::new(lr).minimize(&loss, None, None),
        _ => MomentumOptimizer::new(lr, c["momentum"].as_f64().unwrap() as f32)
            .minimize(&loss, None, None),
    }
    .unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_target(&global_variables_initializer(&g).unwrap())
        .unwrap();
    let mut values = Vec::new();
    for _ in 0..c["steps"].as_array().unwrap().len() {
        sess.run_target(&train).unwrap();
        values.push(sess.eval(v.read_value().unwrap()).unwrap());
    }
    (values, g)
}

#[test]
fn optimizers_train_an_embedding_of_a_resource_variable_as_tensorflow() {
    let mut steps = 0;
    for c in cases().iter().filter(|c| c["kind"] == "optimizer") {
        let name = c["name"].as_str().unwrap();
        let (values, g) = train_steps(c);
        for (k, (got, want)) in values
            .iter()
            .zip(c["steps"].as_array().unwrap())
            .enumerate()
        {
            let label = format!("{name}: step {}", k + 1);
            assert_same(&label, got, want);
            steps += 1;
        }
        // Momentum applies the gathered rows sparsely, as TensorFlow's
        // `ResourceSparseApplyMomentum` does.
        if c["optimizer"] == "momentum" {
            let types: Vec<String> = g.operations().iter().map(|o| o.op_type()).collect();
            assert!(
                types.iter().any(|t| t.contains("SparseApplyMomentum")),
                "{name}: {types:?}"
            );
        }
    }
    assert_eq!(steps, 9);
}

#[test]
fn scatter_max_min_gradients_pass_the_numeric_check() {
    for max in [true, false] {
        let g = Graph::new();
        let x = placeholder(&g, DType::F64, [4, 2]).unwrap();
        let u = placeholder(&g, DType::F64, [2, 2]).unwrap();
        let i = constant(&g, Tensor::from_vec(&[2, 1], vec![3, 0]).unwrap()).unwrap();
        let y = if max {
            tensor_scatter_nd_max(&x, &i, &u).unwrap()
        } else {
            tensor_scatter_nd_min(&x, &i, &u).unwrap()
        };
        // No ties, and each update wins in one element and loses in the other.
        let xv = Tensor::from_vec(&[4, 2], vec![1.0, -1.0, 0.5, 2.0, 3.0, 0.0, -2.0, 4.0]).unwrap();
        let uv = Tensor::from_vec(&[2, 2], vec![1.5, 3.0, 0.25, -3.0]).unwrap();
        let e = gradient_error(&x, &xv, &y, &[(u.clone(), uv.clone())]).unwrap();
        assert!(e < 1e-6, "d/dx: {e}");
        let e = gradient_error(&u, &uv, &y, &[(x.clone(), xv.clone())]).unwrap();
        assert!(e < 1e-6, "d/du: {e}");
    }
}
