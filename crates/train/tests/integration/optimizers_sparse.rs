//! Momentum (and Nesterov), RMSProp (plain, with momentum, centered), Adagrad and Adam on a
//! gathered (embedding) gradient against TensorFlow 2.21 (tests/data/optimizers_sparse, written
//! by make_optimizers_sparse.py). TensorFlow applies such a gradient (IndexedSlices) with
//! `SparseApplyMomentum`, `SparseApplyRMSProp`, `SparseApplyCenteredRMSProp` and
//! `SparseApplyAdagrad`, which leave the rows that were not gathered alone (their momentum and
//! mean squares do not decay), and Adam decays `m` and `v` on every row but scatters the
//! gradient into the gathered rows only; weir does the same. Checked bit for bit after each step:
//! the gathered variable, a second variable with a dense gradient in the same step, and every
//! slot of both; slot and variable names; the sparse kernels' errors on bad input and their
//! signatures.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, gather, placeholder, placeholder_with_default};
use weir_ops::math::{self, Reduce};
use weir_ops::state::{global_variables, global_variables_initializer, Variable};
use weir_session::{RunArgs, Session};
use weir_train::{
    get_or_create_global_step, AdagradOptimizer, AdamOptimizer, MomentumOptimizer, Optimizer,
    RMSPropOptimizer,
};

use crate::util::f32_bits;

fn data() -> &'static Value {
    static DATA: OnceLock<Value> = OnceLock::new();
    DATA.get_or_init(|| {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/optimizers_sparse/expected.json");
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    })
}

fn input(name: &str, shape: &[usize]) -> Tensor {
    Tensor::from_vec(shape, f32_bits(&data()["inputs"][name])).unwrap()
}

fn make_opt(kind: &str, c: &Value) -> Box<dyn Optimizer> {
    let f = |k: &str| c.get(k).and_then(Value::as_f64);
    let b = |k: &str| c.get(k).and_then(Value::as_bool).unwrap_or(false);
    let lr = f("learning_rate").unwrap();
    match kind {
        "Momentum" => Box::new(
            MomentumOptimizer::new(lr, f("momentum").unwrap()).use_nesterov(b("use_nesterov")),
        ),
        "RMSProp" => {
            let mut o = RMSPropOptimizer::new(lr).centered(b("centered"));
            if let Some(v) = f("decay") {
                o = o.decay(v);
            }
            if let Some(v) = f("momentum") {
                o = o.momentum(v);
            }
            if let Some(v) = f("epsilon") {
                o = o.epsilon(v);
            }
            Box::new(o)
        }
        "Adagrad" => {
            let mut o = AdagradOptimizer::new(lr);
            if let Some(v) = f("initial_accumulator_value") {
                o = o.initial_accumulator_value(v);
            }
            Box::new(o)
        }
        "Adam" => {
            let mut o = AdamOptimizer::new(lr);
            if let Some(v) = f("beta1") {
                o = o.beta1(v);
            }
            if let Some(v) = f("beta2") {
                o = o.beta2(v);
            }
            if let Some(v) = f("epsilon") {
                o = o.epsilon(v);
            }
            Box::new(o)
        }
        other => panic!("unknown optimizer {other}"),
    }
}

fn check(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert_eq!(a.to_bits(), b.to_bits(), "{what}[{i}]: {got:?} vs {want:?}");
    }
}

fn run_case(case: &Value) -> Result<()> {
    let kind = case["optimizer"].as_str().unwrap();
    let mode = case["mode"].as_str().unwrap();
    let c = &case["config"];
    let label = format!("{kind} {c} {mode}");
    let two = mode.ends_with('2');
    let (shape, cshape, suffix): (&[usize], &[usize], &str) = if two {
        (&[4, 3], &[3, 3], "2")
    } else {
        (&[5], &[3], "1")
    };
    let g = Graph::new();
    let w = Variable::builder(constant(&g, input(&format!("w{suffix}"), shape))?)
        .name("w")
        .build()?;
    let u = Variable::builder(constant(&g, input("u", &[2]))?)
        .name("u")
        .build()?;
    let step = get_or_create_global_step(&g)?;
    let mut opt = make_opt(kind, c);
    let idx_steps: Vec<Vec<i32>> =
        serde_json::from_value(data()["inputs"]["idx_steps"].clone()).unwrap();
    let idx = placeholder(&g, DType::I32, [3])?;
    let coef = constant(&g, input(&format!("c{suffix}"), cshape))?;
    let rows = gather(w.value(), &idx, 0)?;
    let loss = Reduce::sum().build(math::mul(rows, coef)?)?;
    let mut gv = opt.compute_gradients(&loss, Some(std::slice::from_ref(&w)))?;
    gv.push((Some(constant(&g, input("gu", &[2]))?), u.clone()));
    let train = opt.apply_gradients(&gv, Some(&step), None)?;
    assert_eq!(train.name(), case["train_op"].as_str().unwrap(), "{label}");
    let slot_names: Vec<String> = serde_json::from_value(case["slot_names"].clone()).unwrap();
    let mut vars = vec![("w".to_string(), w.clone()), ("u".to_string(), u.clone())];
    for s in &slot_names {
        for (n, v) in [("w", &w), ("u", &u)] {
            let slot = opt
                .get_slot(v, s)
                .unwrap_or_else(|| panic!("{label}: slot {s}"));
            vars.push((format!("{n}/{s}"), slot));
        }
    }
    for (k, v) in &vars {
        assert_eq!(
            v.name(),
            case["slot_variables"][k].as_str().unwrap(),
            "{label}"
        );
    }
    let names: Vec<String> = global_variables(&g)?.iter().map(|v| v.name()).collect();
    let want_names: Vec<String> = serde_json::from_value(case["global_variables"].clone()).unwrap();
    assert_eq!(names, want_names, "{label}");
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    for (k, v) in &vars {
        let got = sess.eval(v)?.to_vec::<f32>()?;
        check(
            &format!("{label} initial {k}"),
            &got,
            &f32_bits(&case["initial"][k]),
        );
    }
    for (n, want) in case["steps"].as_array().unwrap().iter().enumerate() {
        let feed = Tensor::from(idx_steps[n].clone());
        sess.run(&RunArgs::new().feed(&idx, feed).target(&train))?;
        for (k, v) in &vars {
            let got = sess.eval(v)?.to_vec::<f32>()?;
            check(&format!("{label} step {n} {k}"), &got, &f32_bits(&want[k]));
        }
    }
    let steps = sess.eval(&step)?.to_scalar::<i64>()?;
    assert_eq!(steps, case["global_step"].as_i64().unwrap(), "{label}");
    Ok(())
}

#[test]
fn gathered_gradients_update_like_tensorflow_bit_for_bit() -> Result<()> {
    let cases = data()["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 20);
    for case in cases {
        run_case(case)?;
    }
    Ok(())
}

#[test]
fn rows_not_gathered_keep_their_momentum() -> Result<()> {
    // The behaviour the sparse kernels exist for: a row gathered in the first step and left out
    // of the second keeps its momentum and its value through the second step (a dense update
    // would decay the momentum to 0.9 and move the row by 0.09).
    let g = Graph::new();
    let w = Variable::builder(constant(&g, input("w2", &[4, 3]))?)
        .name("w")
        .build()?;
    let mut opt = MomentumOptimizer::new(0.1, 0.9);
    let idx = placeholder(&g, DType::I32, [1])?;
    let loss = Reduce::sum().build(gather(w.value(), &idx, 0)?)?;
    let train = opt.minimize(&loss, None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let mom = opt.get_slot(&w, "momentum").unwrap();
    let step = |row: i32| {
        sess.run(
            &RunArgs::new()
                .feed(&idx, Tensor::from(vec![row]))
                .target(&train),
        )
    };
    step(0)?;
    let after_first = sess.eval(&w)?.to_vec::<f32>()?;
    step(1)?;
    let got = sess.eval(&w)?.to_vec::<f32>()?;
    let m = sess.eval(&mom)?.to_vec::<f32>()?;
    assert_eq!(&got[0..3], &after_first[0..3]);
    assert_eq!(&m[0..3], &[1.0f32; 3]);
    assert_eq!(&m[3..6], &[1.0f32; 3]);
    assert_eq!(&m[6..12], &[0.0f32; 6]);
    Ok(())
}

#[test]
fn sparse_op_defs_match_tensorflow() {
    let defs = &data()["op_defs"];
    assert_eq!(defs.as_object().unwrap().len(), 8);
    crate::optimizers_kernel_errors::compare_op_defs(defs);
}

/// Builds the sparse kernel `op` through weir's builder: `vars` are the variable and its slots,
/// `s` the scalars by TensorFlow's names.
fn sparse_op(
    op: &str,
    vars: &[Variable],
    s: &dyn Fn(&str) -> Output,
    grad: Output,
    indices: Output,
) -> Result<Output> {
    use weir_ops::training as t;
    let v = |k: usize| &vars[k];
    match op {
        "SparseApplyMomentum" => {
            t::sparse_apply_momentum(v(0), v(1), s("lr"), grad, indices, s("momentum"), false)
        }
        "SparseApplyRMSProp" => t::sparse_apply_rms_prop(
            v(0),
            v(1),
            v(2),
            s("lr"),
            s("rho"),
            s("momentum"),
            s("epsilon"),
            grad,
            indices,
        ),
        "SparseApplyCenteredRMSProp" => t::sparse_apply_centered_rms_prop(
            v(0),
            v(1),
            v(2),
            v(3),
            s("lr"),
            s("rho"),
            s("momentum"),
            s("epsilon"),
            grad,
            indices,
        ),
        "SparseApplyAdagrad" => t::sparse_apply_adagrad(v(0), v(1), s("lr"), grad, indices, true),
        other => panic!("no builder for {other}"),
    }
}

#[test]
fn sparse_kernel_errors_match_tensorflow() -> Result<()> {
    let cases = data()["kernel_errors"].as_array().unwrap();
    assert_eq!(cases.len(), 43);
    for e in cases {
        let op = e["op"].as_str().unwrap();
        let case = e["case"].as_str().unwrap();
        let label = format!("{op} {case}");
        let g = Graph::new();
        let nvars = match op {
            "SparseApplyRMSProp" => 3,
            "SparseApplyCenteredRMSProp" => 4,
            _ => 2,
        };
        let p = |t: Tensor| placeholder_with_default(constant(&g, t)?, Shape::unknown());
        let ones = |shape: &[usize]| {
            Tensor::from_vec(shape, vec![1.0f32; shape.iter().product()]).unwrap()
        };
        let mut vars = Vec::new();
        for k in 0..nvars {
            let value = if case == "scalar_var" {
                Tensor::from(1.0f32)
            } else if case == "slot_shape" && k == nvars - 1 {
                ones(&[4, 2])
            } else if k == 0 {
                input("w2", &[4, 3])
            } else {
                Tensor::from_vec(&[4, 3], vec![0.5f32; 12])?
            };
            vars.push(
                Variable::builder(constant(&g, value)?)
                    .name(&format!("v{k}"))
                    .build()?,
            );
        }
        let (grad, indices): (Tensor, Tensor) = match case {
            "index_out_of_range" => (ones(&[2, 3]), Tensor::from(vec![1i32, 4])),
            "negative_index" => (ones(&[2, 3]), Tensor::from(vec![-1i32, 0])),
            "indices_rank" => (ones(&[2, 3]), Tensor::from_vec(&[1, 2], vec![0i32, 1])?),
            "grad_rows" => (ones(&[2, 3]), Tensor::from(vec![0i32, 1, 2])),
            "grad_inner" => (ones(&[2, 2]), Tensor::from(vec![0i32, 1])),
            _ => (ones(&[2, 3]), Tensor::from(vec![0i32, 1])),
        };
        let vector = case.strip_suffix("_not_scalar");
        let scalars: Vec<(&str, Output)> = [
            ("lr", 0.1f32),
            ("momentum", 0.9),
            ("rho", 0.9),
            ("epsilon", 1e-6),
        ]
        .into_iter()
        .map(|(n, x)| {
            let t = if Some(n) == vector {
                Tensor::from(vec![x, x])
            } else {
                Tensor::from(x)
            };
            Ok((n, p(t)?))
        })
        .collect::<Result<_>>()?;
        let s = |n: &str| scalars.iter().find(|(m, _)| *m == n).unwrap().1.clone();
        let built = sparse_op(op, &vars, &s, p(grad)?, p(indices)?);
        let err = match (built, e["build"].as_bool().unwrap()) {
            (Err(err), true) => Some(err),
            (Ok(out), false) => {
                let sess = Session::new(&g)?;
                sess.run_target(&global_variables_initializer(&g)?)?;
                sess.eval(&out).err()
            }
            (built, _) => panic!("{label}: built {:?}, TensorFlow {e}", built.map(|_| ())),
        };
        match (err, e["error"].as_str()) {
            (None, None) => {}
            (Some(err), Some(want)) => {
                assert_eq!(err.message(), want, "{label}");
                assert_eq!(err.code(), Code::InvalidArgument, "{label}");
            }
            (err, want) => panic!("{label}: weir {err:?}, TensorFlow {want:?}"),
        }
    }
    Ok(())
}
