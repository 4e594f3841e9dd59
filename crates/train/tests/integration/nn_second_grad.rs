//! Second-order gradients of the nn ops against TensorFlow 2.21
//! (tests/data/nn_second_grad/expected.json, made by make_nn_second_grad.py there): the
//! gradients of the backward ops themselves (`ReluGrad`, `SigmoidGrad`, `BiasAddGrad`,
//! `MaxPoolGrad`, `MaxPoolGradGrad`, `FusedBatchNormGrad*`, ...) with a fixed `grad_ys`,
//! `tf.gradients` of `tf.gradients` through the forward ops, `tf.hessians` of a small MLP, and
//! `MaxPoolGradGrad`'s errors; plus weir's numeric checker on every first-order backward op.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{bf16, f16, AttrValue, Code, DType, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::{matmul, Reduce};
use weir_ops::nn::{self, Padding};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn cases() -> &'static [Value] {
    static CASES: OnceLock<Value> = OnceLock::new();
    CASES.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/nn_second_grad/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

fn of_kind(kind: &str) -> impl Iterator<Item = &'static Value> + '_ {
    cases().iter().filter(move |c| c["kind"] == kind)
}

/// A recorded tensor (float16/bfloat16 as bit patterns).
fn tensor(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let f = |x: &Value| x.as_f64().unwrap();
    let bits = |x: &Value| x.as_u64().unwrap() as u16;
    match dt {
        DType::F32 => Tensor::from_vec(&shape, vals.iter().map(|x| f(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(f).collect()),
        DType::F16 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f16::from_bits(bits(x))).collect(),
        ),
        DType::BF16 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| bf16::from_bits(bits(x))).collect(),
        ),
        DType::I32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

fn numbers(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::F64 => t.to_vec::<f64>().unwrap(),
        DType::F16 => t
            .to_vec::<f16>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::BF16 => t
            .to_vec::<bf16>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::I32 => t
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        dt => panic!("unexpected dtype {dt}"),
    }
}

/// Compares with TensorFlow's value, elementwise within `ulps` units of the dtype's epsilon
/// scaled by the largest magnitude in the expected tensor (integers exactly).
fn assert_close(what: &str, got: &Tensor, want: &Value, ulps: f64) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let eps = match want.dtype() {
        DType::F64 => f64::EPSILON,
        DType::F32 => f64::from(f32::EPSILON),
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        _ => 0.0,
    };
    let (g, w) = (numbers(got), numbers(&want));
    let scale = w.iter().fold(1e-30f64, |m, v| m.max(v.abs()));
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!(
            (a - b).abs() <= ulps * eps * scale,
            "{what}[{i}]: weir {a}, TensorFlow {b} (weir {g:?}, TensorFlow {w:?})"
        );
    }
}

fn attrs(c: &Value) -> Vec<(String, AttrValue)> {
    c["attrs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, a)| {
            let v = &a["value"];
            let value = match a["type"].as_str().unwrap() {
                "bool" => AttrValue::Bool(v.as_bool().unwrap()),
                "str" => AttrValue::Str(v.as_str().unwrap().into()),
                "float" => AttrValue::Float(v.as_f64().unwrap() as f32),
                _ => AttrValue::Ints(
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_i64().unwrap())
                        .collect(),
                ),
            };
            (k.clone(), value)
        })
        .collect()
}

/// The case's raw op on `inputs`; its first `n` outputs.
fn raw_op(g: &Graph, c: &Value, inputs: &[Output], n: usize) -> Result<Vec<Output>> {
    weir_ops::register_all_ops();
    let mut b = g.new_operation(c["op"].as_str().unwrap());
    for i in inputs {
        b = b.input(i.clone());
    }
    for (k, v) in attrs(c) {
        b = b.attr(&k, v);
    }
    let node = b.build()?;
    (0..n).map(|i| node.output(i)).collect()
}

fn constants(g: &Graph, c: &Value) -> Vec<Output> {
    c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| constant(g, tensor(&p[1])).unwrap())
        .collect()
}

/// How far weir may be from TensorFlow, in units of the dtype's epsilon times the expected
/// tensor's largest magnitude. The second-order graphs are TensorFlow's ops in TensorFlow's
/// order, but the first-order kernels they call again (`TanhGrad`, `RsqrtGrad`,
/// `ReciprocalGrad`, ... and the forward `Elu`, `Sigmoid`) round their formulas differently from
/// Eigen's vectorized expressions by up to 2 ulp: "raw" cases get 2. Through the forward ops
/// ("chain"), weir's first-order gradients of `Sigmoid`, `Tanh`, `Sqrt` and `Rsqrt` are
/// `Mul`/`Sub` graphs where TensorFlow's are one fused `SigmoidGrad`/... kernel, a few more
/// roundings: 8 (measured: 2.1). Batch norm's sums over the batch (`Mean`, `Sum` and their
/// gradients) add in a different order from Eigen's tree reductions: 8 (measured: under 1).
fn tolerance(name: &str) -> f64 {
    if name.contains("batch_norm") || name.starts_with("chain") {
        8.0
    } else {
        2.0
    }
}

/// TensorFlow cases weir cannot build yet: its `FusedBatchNormGradV2`/`V3` kernels take float32
/// only, where TensorFlow's also take float16 and bfloat16 (so the half path of
/// `_BatchNormGrad`, computed in float32 and cast back, is not exercised here).
fn weir_lacks(name: &str) -> bool {
    name.starts_with("fused_batch_norm_grad") && (name.contains("float16"))
}

/// Cases whose backward op weir builds but cannot run: its `FusedBatchNormGradV3` kernel takes
/// channels-last data only. The second-order gradients do not run that kernel (TensorFlow's
/// `_BatchNormGrad` recomputes it from ordinary ops), so they are still checked.
fn kernel_lacks(name: &str) -> bool {
    name.ends_with("_nchw") || name.ends_with("_ncdhw")
}

/// Runs `check` on every case of `kind`, collecting failures rather than stopping at the
/// first; the number of cases.
fn each_case(kind: &str, check: fn(&Value)) -> usize {
    let mut failures = Vec::new();
    let mut n = 0;
    for c in of_kind(kind) {
        if let Err(e) = std::panic::catch_unwind(|| check(c)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{}: {msg}", c["name"]));
        }
        n += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {n} fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    n
}

#[test]
fn backward_op_gradients_match_tensorflow() {
    let n = each_case("raw", check_raw);
    let skipped = of_kind("raw")
        .filter(|c| weir_lacks(c["name"].as_str().unwrap()))
        .count();
    assert_eq!(skipped, 6);
    assert!(n - skipped >= 70, "only {} cases", n - skipped);
}

fn check_raw(c: &Value) {
    let name = c["name"].as_str().unwrap();
    if !weir_lacks(name) {
        let g = Graph::new();
        let inputs = constants(&g, c);
        let n_out = c["outputs"].as_array().unwrap().len();
        let outs = raw_op(&g, c, &inputs, n_out).unwrap_or_else(|e| panic!("{name}: {e}"));
        let gys: Vec<Output> = c["grad_ys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| constant(&g, tensor(v)).unwrap())
            .collect();
        let grads = gradients(&outs, &inputs, Some(&gys)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = c["grads"].as_array().unwrap();
        for (k, (o, w)) in outs
            .iter()
            .zip(c["outputs"].as_array().unwrap())
            .enumerate()
        {
            let dims = tensor(w).shape().to_vec();
            assert_eq!(o.shape().to_known(), Some(dims), "{name}: static shape {k}");
        }
        let mut args = RunArgs::new();
        let n_out = if kernel_lacks(name) { 0 } else { n_out };
        for o in &outs[..n_out] {
            args = args.fetch(o);
        }
        for (i, (got, w)) in grads.iter().zip(want).enumerate() {
            assert_eq!(got.is_some(), !w.is_null(), "{name}: gradient {i} present");
            if let Some(d) = got {
                args = args.fetch(d);
                // The same backward op as TensorFlow's (TensorFlow folds zeros_like of a
                // static shape into a Const, weir keeps ZerosLike; FusedBatchNormGrad's come
                // out of a differentiated graph and are sums of its parts).
                let tf_type = c["grad_types"][i].as_str().unwrap();
                if tf_type != "Const" && !name.starts_with("fused") {
                    assert_eq!(d.op().op_type(), tf_type, "{name}: op of gradient {i}");
                }
            }
        }
        let got = Session::new(&g)
            .unwrap()
            .run(&args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let tol = tolerance(name);
        for (k, (v, w)) in got[..n_out]
            .iter()
            .zip(c["outputs"].as_array().unwrap())
            .enumerate()
        {
            assert_close(&format!("{name}: output {k}"), v, w, tol);
        }
        let present = want.iter().filter(|w| !w.is_null());
        for (k, (v, w)) in got[n_out..].iter().zip(present).enumerate() {
            assert_close(&format!("{name}: gradient {k}"), v, w, tol);
        }
    }
}

/// The case's forward function.
fn forward(c: &Value, t: &BTreeMap<String, Output>) -> Result<Output> {
    let x = || t["x"].clone();
    let a = &c["attrs"];
    let unary = |op: &str| -> Result<Output> {
        weir_ops::register_all_ops();
        x().graph().new_operation(op).input(x()).build()?.output(0)
    };
    let four = |k: &str| -> [i64; 4] {
        let v: Vec<i64> = a[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        v.try_into().unwrap()
    };
    Ok(match c["fn"].as_str().unwrap() {
        "relu" => nn::relu(x())?,
        "relu6" => nn::relu6(x())?,
        "elu" => nn::elu(x())?,
        "leaky_relu" => nn::leaky_relu_with_alpha(x(), a["alpha"].as_f64().unwrap() as f32)?,
        "sigmoid" => nn::sigmoid(x())?,
        "tanh" => nn::tanh(x())?,
        "sqrt" => unary("Sqrt")?,
        "rsqrt" => unary("Rsqrt")?,
        "reciprocal" => unary("Reciprocal")?,
        "bias_add" => nn::bias_add(x(), t["b"].clone())?,
        "max_pool" => nn::max_pool(x(), four("ksize"), four("strides"), Padding::Valid)?,
        "fused_batch_norm" => {
            nn::fused_batch_norm(
                x(),
                t["scale"].clone(),
                t["offset"].clone(),
                t.get("mean").cloned(),
                t.get("variance").cloned(),
                a["epsilon"].as_f64().unwrap() as f32,
                a["is_training"].as_bool().unwrap(),
            )?
            .0
        }
        other => panic!("unknown fn {other}"),
    })
}

#[test]
fn gradients_of_gradients_match_tensorflow() {
    let n = each_case("chain", check_chain);
    assert!(n >= 24, "only {n} cases");
}

fn check_chain(c: &Value) {
    {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let mut t = BTreeMap::new();
        for p in c["inputs"].as_array().unwrap() {
            t.insert(
                p[0].as_str().unwrap().to_string(),
                constant(&g, tensor(&p[1])).unwrap(),
            );
        }
        let wrt: Vec<&str> = c["wrt"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let y = forward(c, &t).unwrap_or_else(|e| panic!("{name}: {e}"));
        let gy1 = constant(&g, tensor(&c["gy1"])).unwrap();
        let xs: Vec<Output> = wrt.iter().map(|k| t[*k].clone()).collect();
        let g1: Vec<Output> = gradients(
            std::slice::from_ref(&y),
            &xs,
            Some(std::slice::from_ref(&gy1)),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .into_iter()
        .map(|d| d.unwrap_or_else(|| panic!("{name}: no first gradient")))
        .collect();
        let gy2: Vec<Output> = c["gy2"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| constant(&g, tensor(v)).unwrap())
            .collect();
        let mut xs2 = xs.clone();
        xs2.push(gy1);
        let g2 = gradients(&g1, &xs2, Some(&gy2)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = RunArgs::new().fetch(&y);
        for d in &g1 {
            args = args.fetch(d);
        }
        let mut names = wrt.clone();
        names.push("gy1");
        let mut want = Vec::new();
        for (k, d) in names.iter().zip(&g2) {
            let w = &c["grads2"][*k];
            // None exactly where TensorFlow's is None (nothing depends on the input: bias_add's
            // first gradients do not depend on x or b, nor batch norm's on offset).
            assert_eq!(d.is_some(), !w.is_null(), "{name}: second gradient for {k}");
            if let Some(d) = d {
                args = args.fetch(d);
                want.push((k.to_string(), w));
            }
        }
        let got = Session::new(&g)
            .unwrap()
            .run(&args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let tol = tolerance(name);
        assert_close(&format!("{name}: y"), &got[0], &c["y"], tol);
        for (i, w) in c["g1"].as_array().unwrap().iter().enumerate() {
            assert_close(&format!("{name}: first gradient {i}"), &got[1 + i], w, tol);
        }
        for ((k, w), v) in want.iter().zip(&got[1 + g1.len()..]) {
            assert_close(&format!("{name}: d2/d{k}"), v, w, tol);
        }
    }
}

/// `tf.hessians` of an MLP's loss (MatMul, BiasAdd, Relu, MatMul, Tanh or Sigmoid, Square,
/// Sum), one Hessian row at a time: the gradient of `sum(e_i * dloss/dw)` is row i.
#[test]
fn mlp_hessians_match_tensorflow() {
    let mut n = 0;
    for c in of_kind("hessian") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let mut t = BTreeMap::new();
        for p in c["inputs"].as_array().unwrap() {
            t.insert(
                p[0].as_str().unwrap().to_string(),
                constant(&g, tensor(&p[1])).unwrap(),
            );
        }
        let h = nn::relu(
            nn::bias_add(
                matmul(t["x"].clone(), t["w1"].clone()).unwrap(),
                t["b1"].clone(),
            )
            .unwrap(),
        )
        .unwrap();
        let out = matmul(h, t["w2"].clone()).unwrap();
        let out = match c["act"].as_str().unwrap() {
            "tanh" => nn::tanh(out),
            _ => nn::sigmoid(out),
        }
        .unwrap();
        let sq = weir_ops::math::square(out).unwrap();
        let loss = Reduce::sum().build(sq).unwrap();
        let sess = Session::new(&g).unwrap();
        assert_close(
            &format!("{name}: loss"),
            &sess.eval(&loss).unwrap(),
            &c["loss"],
            4.0,
        );
        for k in ["w1", "b1"] {
            let w = &t[k];
            let dw = gradients(std::slice::from_ref(&loss), std::slice::from_ref(w), None).unwrap()
                [0]
            .clone()
            .unwrap();
            let dims = w.shape().to_known().unwrap();
            let size: usize = dims.iter().product();
            let dt = w.dtype();
            let mut rows = RunArgs::new();
            for i in 0..size {
                let mut e = vec![0.0f64; size];
                e[i] = 1.0;
                let e = match dt {
                    DType::F32 => Tensor::from_vec(&dims, e.iter().map(|&v| v as f32).collect()),
                    _ => Tensor::from_vec(&dims, e),
                }
                .unwrap();
                let e = constant(&g, e).unwrap();
                let row = gradients(
                    std::slice::from_ref(&dw),
                    std::slice::from_ref(w),
                    Some(&[e]),
                )
                .unwrap_or_else(|e| panic!("{name}: {e}"))[0]
                    .clone()
                    .unwrap_or_else(|| panic!("{name}: no second gradient"));
                rows = rows.fetch(&row);
            }
            let got = Session::new(&g).unwrap().run(&rows).unwrap();
            let parts: Vec<Tensor> = got.iter().map(|r| r.reshape(&[1, size]).unwrap()).collect();
            let flat: Vec<f64> = parts.iter().flat_map(numbers).collect();
            let mut hdims = dims.clone();
            hdims.extend(&dims);
            let hess = match dt {
                DType::F32 => Tensor::from_vec(&hdims, flat.iter().map(|&v| v as f32).collect()),
                _ => Tensor::from_vec(&hdims, flat),
            }
            .unwrap();
            // Sums over the batch through MatMul's gradients (TensorFlow's order only up to
            // Eigen's blocking), and weir's Mul/Sub first-order gradients of Tanh and Sigmoid
            // where TensorFlow has one fused kernel: several roundings (measured: under 8).
            assert_close(
                &format!("{name}: hessian in {k}"),
                &hess,
                &c["hessians"][k],
                16.0,
            );
            n += 1;
        }
    }
    assert_eq!(n, 8);
}

#[test]
fn max_pool_grad_grad_errors_match_tensorflow() {
    let mut n = 0;
    for c in of_kind("error") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let inputs = constants(&g, c);
        let err = match raw_op(&g, c, &inputs, 1) {
            Err(e) => e,
            Ok(out) => Session::new(&g)
                .unwrap()
                .eval(&out[0])
                .expect_err(&format!("{name}: no error")),
        };
        let want = &c["error"];
        let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
        assert_eq!(err.code(), code, "{name}: {err}");
        let msg = err.message().split(" for '").next().unwrap();
        assert_eq!(msg, want["message"].as_str().unwrap(), "{name}");
        n += 1;
    }
    assert_eq!(n, 7);
}

/// The case's backward op with input `at` a placeholder (fed `value`), the rest constants; in
/// training, FusedBatchNormGrad's statistics come from a forward batch norm of that `x`, so
/// that the op is the function of `x` whose derivative TensorFlow's `_BatchNormGrad` builds.
fn with_placeholder(g: &Graph, c: &Value, at: usize) -> (Output, Tensor, Vec<Output>) {
    let specs = c["inputs"].as_array().unwrap();
    let value = tensor(&specs[at][1]);
    let shape = weir_graph::Shape::known(value.shape());
    let p = placeholder(g, value.dtype(), shape).unwrap();
    let mut inputs: Vec<Output> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i == at {
                p.clone()
            } else {
                constant(g, tensor(&s[1])).unwrap()
            }
        })
        .collect();
    let op = c["op"].as_str().unwrap();
    let training = c["attrs"]["is_training"]["value"].as_bool() == Some(true);
    if op.starts_with("FusedBatchNormGrad") && training {
        let forward = op.replace("Grad", "");
        let channels = specs[2][1]["shape"][0].as_u64().unwrap() as usize;
        let zeros = |n: usize| constant(g, Tensor::from_vec(&[n], vec![0f32; n]).unwrap()).unwrap();
        let eps = c["attrs"]["epsilon"]["value"].as_f64().unwrap() as f32;
        let fwd = g
            .new_operation(&forward)
            .input(inputs[1].clone())
            .input(inputs[2].clone())
            .input(zeros(channels))
            .input(zeros(0))
            .input(zeros(0))
            .attr("epsilon", eps)
            .attr("is_training", true)
            .attr(
                "data_format",
                c["attrs"]["data_format"]["value"]
                    .as_str()
                    .unwrap_or("NHWC"),
            )
            .build()
            .unwrap();
        for (k, slot) in inputs.iter_mut().enumerate().skip(3) {
            *slot = fwd.output(k).unwrap();
        }
    }
    let n_out = c["outputs"].as_array().unwrap().len();
    (p, value, raw_op(g, c, &inputs, n_out).unwrap())
}

/// The symbolic second-order gradients against central differences of the first-order
/// backward ops (float64 within 1e-6; the float32-only FusedBatchNormGrad within 2e-2, the
/// numeric checker's float32 step being 1e-3). Max pooling's backward ops are checked in
/// `grad` only: they are discontinuous in the pool's input and output (a probe breaks the
/// equality with the window maximum), and TensorFlow's gradient there is zeros.
#[test]
fn second_order_gradients_match_central_differences() {
    let mut n = 0;
    for c in of_kind("raw") {
        let name = c["name"].as_str().unwrap();
        let fbn = name.starts_with("fused_batch_norm");
        if kernel_lacks(name) || !(name.ends_with("float64") || (fbn && name.contains("float32"))) {
            continue;
        }
        let pool = name.starts_with("max_pool");
        for (at, w) in c["grads"].as_array().unwrap().iter().enumerate() {
            if w.is_null() || (pool && at != 2) {
                continue;
            }
            for k in 0..c["outputs"].as_array().unwrap().len() {
                let g = Graph::new();
                let (p, value, outs) = with_placeholder(&g, c, at);
                let err = gradient_error(&p, &value, &outs[k], &[])
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let tol = if fbn { 2e-2 } else { 1e-6 };
                assert!(
                    err < tol,
                    "{name}: d(output {k})/d(input {at}) is off by {err}"
                );
                n += 1;
            }
        }
    }
    assert!(n >= 40, "only {n} checks");
}
