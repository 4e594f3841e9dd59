//! tf.contrib.opt's AdaMaxOptimizer, AddSignOptimizer and PowerSignOptimizer and the sign decay
//! functions (get_linear_decay_fn, get_cosine_decay_fn, get_restart_decay_fn) against
//! tests/data/optimizers_contrib/expected.json, a numpy transcription of TensorFlow 1.15's
//! Python and kernels (tf.contrib is not in TensorFlow 2.21; the kernels themselves are checked
//! bit for bit against TensorFlow 2.21 in weir-ops' training_apply_more_v2.rs): the variable and
//! every slot after each of several steps of dense gradients (apply_gradients) and of gathered
//! gradients with a repeated row (minimize, through TensorFlow's sparse paths), within 4 float32
//! ulps (numpy's exp, pow and cos are not Eigen's); the slots' names; the decay schedules; and
//! the errors of a decay function without a global step.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Graph, Output, Result, Tensor};
use weir_ops::array::{constant, gather};
use weir_ops::math::{mul, Reduce};
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::Session;
use weir_train::optimizers::sign_decay::{self, SignDecayFn};
use weir_train::optimizers::{AdaMaxOptimizer, AddSignOptimizer, PowerSignOptimizer};
use weir_train::{get_or_create_global_step, Optimizer};

use crate::util::flat;

fn data() -> &'static Value {
    static DATA: OnceLock<Value> = OnceLock::new();
    DATA.get_or_init(|| {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/optimizers_contrib/expected.json");
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    })
}

/// A recorded float32 matrix.
fn input(name: &str) -> Tensor {
    let v = &data()["inputs"][name];
    let rows = v.as_array().unwrap().len();
    let vals: Vec<f32> = flat(v).into_iter().map(|x| x as f32).collect();
    Tensor::from_vec(&[rows, vals.len() / rows], vals).unwrap()
}

fn decay_fn(d: &Value) -> SignDecayFn {
    let steps = d["decay_steps"].as_i64().unwrap();
    let periods = d.get("num_periods").and_then(Value::as_f64);
    let zero_after = d.get("zero_after").and_then(Value::as_f64);
    match d["kind"].as_str().unwrap() {
        "linear" => sign_decay::get_linear_decay_fn(steps),
        "cosine" => sign_decay::get_cosine_decay_fn(steps, periods, zero_after),
        _ => sign_decay::get_restart_decay_fn(steps, periods, zero_after),
    }
}

fn make_opt(case: &Value) -> Box<dyn Optimizer> {
    let c = &case["config"];
    let f = |k: &str| c.get(k).and_then(Value::as_f64);
    let lr = f("lr").unwrap();
    match case["optimizer"].as_str().unwrap() {
        "AdaMax" => {
            let mut o = AdaMaxOptimizer::new(lr);
            if let Some(b) = f("beta1") {
                o = o.beta1(b);
            }
            if let Some(b) = f("beta2") {
                o = o.beta2(b);
            }
            if let Some(e) = f("epsilon") {
                o = o.epsilon(e);
            }
            Box::new(o)
        }
        "AddSign" => {
            let mut o = AddSignOptimizer::new(lr);
            if let Some(a) = f("alpha") {
                o = o.alpha(a);
            }
            if let Some(b) = f("beta") {
                o = o.beta(b);
            }
            if case.get("decay").is_some() {
                o = o.sign_decay_fn(decay_fn(&case["decay"]));
            }
            Box::new(o)
        }
        _ => {
            let mut o = PowerSignOptimizer::new(lr);
            if let Some(b) = f("base") {
                o = o.base(b);
            }
            if let Some(b) = f("beta") {
                o = o.beta(b);
            }
            if case.get("decay").is_some() {
                o = o.sign_decay_fn(decay_fn(&case["decay"]));
            }
            Box::new(o)
        }
    }
}

/// Within 4 float32 ulps of the larger of `want` and 1.
fn close(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(a, b)| (a - b).abs() <= 4.0 * f64::from(f32::EPSILON) * b.abs().max(1.0))
}

fn values(sess: &Session, x: impl Into<Output>) -> Result<Vec<f64>> {
    let t = sess.eval(x)?;
    Ok(t.to_vec::<f32>()?.into_iter().map(f64::from).collect())
}

fn run_case(case: &Value, sparse: bool) -> Result<()> {
    let kind = case["optimizer"].as_str().unwrap();
    let g = Graph::new();
    let w0 = input(if sparse { "ws" } else { "w" });
    let w = Variable::builder(constant(&g, w0)?).name("w").build()?;
    let step = get_or_create_global_step(&g)?;
    let mut opt = make_opt(case);
    let train = if sparse {
        let idx: Vec<i32> = flat(&data()["inputs"]["idx"])
            .into_iter()
            .map(|x| x as i32)
            .collect();
        let rows = gather(&w, constant(&g, Tensor::from(idx))?, 0)?;
        let loss = Reduce::sum().build(mul(rows, constant(&g, input("c"))?)?)?;
        opt.minimize(&loss, None, Some(&step))?
    } else {
        let grad = constant(&g, input("g"))?;
        opt.apply_gradients(&[(Some(grad), w.clone())], Some(&step), None)?
    };
    // The sparse cases must take TensorFlow's `_apply_sparse` (scatter ops), not the dense one.
    let scatter = g
        .operations()
        .iter()
        .any(|o| o.op_type().starts_with("Scatter"));
    assert_eq!(scatter, sparse, "{kind} {}", case["config"]);
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    for (t, want) in case["steps"].as_array().unwrap().iter().enumerate() {
        sess.run_target(&train)?;
        for (key, expected) in want.as_object().unwrap() {
            let got = match key.as_str() {
                "w" => values(&sess, &w)?,
                "beta1_power" | "beta2_power" => {
                    let v = opt.base().get_non_slot(&g, key).unwrap();
                    values(&sess, &v)?
                }
                slot => values(&sess, opt.get_slot(&w, slot).unwrap())?,
            };
            let want = flat(expected);
            assert!(
                close(&got, &want),
                "{kind} {} sparse={sparse} step {t} {key}: weir {got:?}, expected {want:?}",
                case["config"]
            );
        }
    }
    Ok(())
}

#[test]
fn dense_steps_match_tensorflow() -> Result<()> {
    for case in data()["cases"]["dense"].as_array().unwrap() {
        run_case(case, false)?;
    }
    Ok(())
}

#[test]
fn gathered_gradients_take_tensorflows_sparse_paths() -> Result<()> {
    for case in data()["cases"]["sparse"].as_array().unwrap() {
        run_case(case, true)?;
    }
    Ok(())
}

#[test]
fn slots_are_named_as_in_tensorflow() -> Result<()> {
    let g = Graph::new();
    let w = Variable::builder(constant(&g, [1.0f32, 2.0])?)
        .name("w")
        .build()?;
    let step = get_or_create_global_step(&g)?;
    let grad = || Some(constant(&g, [0.5f32, -0.5]).unwrap());
    let slots = &data()["slots"];
    let mut opts: Vec<(&str, Box<dyn Optimizer>)> = vec![
        ("AdaMax", Box::new(AdaMaxOptimizer::new(0.001))),
        ("AddSign", Box::new(AddSignOptimizer::new(0.1))),
        ("PowerSign", Box::new(PowerSignOptimizer::new(0.1))),
    ];
    for (kind, opt) in opts.iter_mut() {
        let train = opt.apply_gradients(&[(grad(), w.clone())], Some(&step), None)?;
        for (slot, name) in slots[*kind].as_object().unwrap() {
            let v = opt.get_slot(&w, slot).unwrap();
            assert_eq!(v.name(), name.as_str().unwrap(), "{kind} {slot}");
        }
        // With a global step the training op is its increment, named after the optimizer.
        assert_eq!(train.name(), opt.get_name(), "{kind}");
    }
    let names: Vec<String> = weir_ops::state::global_variables(&g)?
        .iter()
        .map(|v| v.name())
        .collect();
    for n in ["beta1_power", "beta2_power", "w/AdaMax", "w/AdaMax_1"] {
        assert!(names.iter().any(|x| x == n), "{n} in {names:?}");
    }
    // Slots are not trained.
    let trainable: Vec<String> = weir_ops::state::trainable_variables(&g)?
        .iter()
        .map(|v| v.name())
        .collect();
    assert_eq!(trainable, ["w"]);
    Ok(())
}

#[test]
fn sign_decay_schedules_match_tensorflow() -> Result<()> {
    for d in data()["decays"].as_array().unwrap() {
        let g = Graph::new();
        let step = get_or_create_global_step(&g)?;
        let decay = decay_fn(&d["decay"])(Some(&step))?;
        let sess = Session::new(&g)?;
        for (s, want) in d["values"].as_array().unwrap().iter().enumerate() {
            sess.run_target(&step.assign(constant(&g, s as i64)?)?.op())?;
            let got = values(&sess, &decay)?;
            assert!(
                close(&got, &[want.as_f64().unwrap()]),
                "{} at step {s}: weir {got:?}, expected {want}",
                d["decay"]
            );
        }
    }
    Ok(())
}

#[test]
fn decay_functions_need_a_global_step() -> Result<()> {
    let g = Graph::new();
    let w = Variable::builder(constant(&g, [1.0f32])?)
        .name("w")
        .build()?;
    let gv = [(Some(constant(&g, [0.5f32])?), w)];
    let cases: Vec<(Box<dyn Optimizer>, &str)> = vec![
        (
            Box::new(AddSignOptimizer::new(0.1).sign_decay_fn(sign_decay::get_linear_decay_fn(5))),
            "global_step is required for linear_decay.",
        ),
        (
            Box::new(
                PowerSignOptimizer::new(0.1)
                    .sign_decay_fn(sign_decay::get_cosine_decay_fn(5, None, None)),
            ),
            "global_step is required for cosine_decay.",
        ),
        (
            Box::new(
                PowerSignOptimizer::new(0.1)
                    .sign_decay_fn(sign_decay::get_restart_decay_fn(5, None, None)),
            ),
            "global_step is required for cosine_decay.",
        ),
    ];
    for (mut opt, msg) in cases {
        let e = opt.apply_gradients(&gv, None, None).unwrap_err();
        assert!(e.is_invalid_argument(), "{e:?}");
        assert_eq!(e.message(), msg);
    }
    // TensorFlow multiplies the int64 step by `num_periods` for `zero_after`: a fraction is a
    // TypeError there.
    let step = get_or_create_global_step(&g)?;
    let f = sign_decay::get_restart_decay_fn(8, Some(1.5), Some(1.0));
    let e = f(Some(&step)).unwrap_err();
    assert!(e.is_invalid_argument(), "{e:?}");
    assert_eq!(e.message(), "Expected int64, but got 1.5 of type 'float'.");
    // Without a decay function no global step is needed, and sign_decay is 1.
    let mut opt = AddSignOptimizer::new(0.1);
    opt.apply_gradients(&gv, None, None)?;
    Ok(())
}
