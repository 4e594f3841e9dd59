//! ApplyAdaMax, ApplyAdagradV2, SparseApplyAdagradV2, ApplyAddSign, ApplyPowerSign (each also
//! as its Resource* form), ResourceApplyAdamWithAmsgrad, ResourceApplyKerasMomentum and
//! ResourceSparseApplyKerasMomentum against TensorFlow 2.21: every case of
//! tests/data/training_apply_more_v2/expected.json (made by make_training_apply_more_v2.py
//! there). The ref-variable forms and the resource-only ops are built with weir's builders, the
//! Resource* twins of the others as raw nodes; the scalars, gradients and indices are fed
//! through placeholders of unknown shape (or are constants where a case says so).
//!
//! A value case runs the op several steps and compares its output and every variable after
//! each step bit for bit, for every type (complex Adagrad too: its elements in SIMD packets and
//! the lone ones divide differently, and both kinds are recorded). An error case must fail at the same stage (when the
//! node is added, or when it runs) with TensorFlow's kind and words (up to the node annotation
//! TensorFlow adds). weir's Resource* twins, added as raw nodes without a builder's checks,
//! refuse mismatched slot shapes when they run, with the words of TensorFlow's kernels.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{
    ArgType, AttrValue, DType, Error, Graph, Operation, Output, Result, Shape, Tensor,
};
use weir_ops::array::{constant, placeholder};
use weir_ops::state::{global_variables_initializer, Variable};
use weir_ops::training::{self as t, AdamScalars};
use weir_session::{RunArgs, Session};

use crate::binary_dtypes::data::{check, tensor};

fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/training_apply_more_v2/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

/// The graph of one case: its variables, the fed inputs (placeholder and value), the op and
/// its output.
struct Built {
    vars: Vec<Variable>,
    feeds: Vec<(String, Output)>,
    op: Operation,
    out: Option<Output>,
}

fn flag(case: &Value, name: &str) -> bool {
    case["attrs"][name].as_bool().unwrap_or(false)
}

/// Adds the case's op on `vars` and the inputs `ins` (in TensorFlow's order).
fn add_op(g: &Graph, case: &Value, vars: &[Variable], ins: &[(String, Output)]) -> Result<Built> {
    let op = case["op"].as_str().unwrap();
    let i = |n: &str| ins.iter().find(|(k, _)| k == n).unwrap().1.clone();
    let v = vars;
    let out = match op {
        "ApplyAdaMax" => Some(t::apply_ada_max(
            &v[0],
            &v[1],
            &v[2],
            i("beta1_power"),
            i("lr"),
            i("beta1"),
            i("beta2"),
            i("epsilon"),
            i("grad"),
        )?),
        "ApplyAdagradV2" => Some(t::apply_adagrad_v2(
            &v[0],
            &v[1],
            i("lr"),
            i("epsilon"),
            i("grad"),
            flag(case, "update_slots"),
        )?),
        "SparseApplyAdagradV2" => Some(t::sparse_apply_adagrad_v2(
            &v[0],
            &v[1],
            i("lr"),
            i("epsilon"),
            i("grad"),
            i("indices"),
            flag(case, "update_slots"),
        )?),
        "ApplyAddSign" => Some(t::apply_add_sign(
            &v[0],
            &v[1],
            i("lr"),
            i("alpha"),
            i("sign_decay"),
            i("beta"),
            i("grad"),
        )?),
        "ApplyPowerSign" => Some(t::apply_power_sign(
            &v[0],
            &v[1],
            i("lr"),
            i("logbase"),
            i("sign_decay"),
            i("beta"),
            i("grad"),
        )?),
        _ => None,
    };
    let op_node = match (&out, op) {
        (Some(o), _) => o.op(),
        (None, "ResourceApplyAdamWithAmsgrad") => {
            let s = AdamScalars {
                beta1_power: i("beta1_power"),
                beta2_power: i("beta2_power"),
                lr: i("lr"),
                beta1: i("beta1"),
                beta2: i("beta2"),
                epsilon: i("epsilon"),
            };
            t::resource_apply_adam_with_amsgrad(&v[0], &v[1], &v[2], &v[3], s, i("grad"))?
        }
        (None, "ResourceApplyKerasMomentum") => t::resource_apply_keras_momentum(
            &v[0],
            &v[1],
            i("lr"),
            i("grad"),
            i("momentum"),
            flag(case, "use_nesterov"),
        )?,
        (None, "ResourceSparseApplyKerasMomentum") => t::resource_sparse_apply_keras_momentum(
            &v[0],
            &v[1],
            i("lr"),
            i("grad"),
            i("indices"),
            i("momentum"),
            flag(case, "use_nesterov"),
        )?,
        // A Resource* twin of a ref-variable op: a raw node.
        (None, _) => {
            let mut b = g
                .new_operation(op)
                .inputs(vars.iter().map(|v| v.handle().clone()))
                .inputs(ins.iter().map(|(_, o)| o.clone()));
            for (k, val) in case["attrs"].as_object().unwrap() {
                b = b.attr(k, val.as_bool().unwrap());
            }
            b.build()?
        }
    };
    Ok(Built {
        vars: vars.to_vec(),
        feeds: Vec::new(),
        op: op_node,
        out,
    })
}

/// Builds the case: variables from their recorded values, the other inputs (as in `inputs`)
/// fed through placeholders of unknown shape, or constants for those named in `const`.
fn build(g: &Graph, case: &Value, inputs: &[Value]) -> Result<Built> {
    let mut vars = Vec::new();
    for v in case["vars"].as_array().unwrap() {
        let init = constant(g, tensor(&v[1]))?;
        vars.push(
            Variable::builder(init)
                .name(v[0].as_str().unwrap())
                .build()?,
        );
    }
    let consts: Vec<&str> = case
        .get("const")
        .and_then(Value::as_array)
        .map(|c| c.iter().map(|x| x.as_str().unwrap()).collect())
        .unwrap_or_default();
    let mut ins = Vec::new();
    let mut feeds = Vec::new();
    for x in inputs {
        let name = x[0].as_str().unwrap().to_string();
        let value = tensor(&x[1]);
        let o = if consts.contains(&name.as_str()) {
            constant(g, value)?
        } else {
            let p = placeholder(g, value.dtype(), Shape::unknown())?;
            feeds.push((name.clone(), p.clone()));
            p
        };
        ins.push((name, o));
    }
    let mut b = add_op(g, case, &vars, &ins)?;
    b.feeds = feeds;
    Ok(b)
}

fn feed_args(b: &Built, inputs: &[Value]) -> RunArgs {
    let mut args = RunArgs::new();
    for (name, p) in &b.feeds {
        let x = inputs.iter().find(|x| x[0].as_str() == Some(name)).unwrap();
        args = args.feed(p, tensor(&x[1]));
    }
    args
}

fn read_vars(sess: &Session, b: &Built) -> Result<Vec<Tensor>> {
    b.vars.iter().map(|v| sess.eval(v)).collect()
}

fn run_value_case(case: &Value) -> std::result::Result<(), String> {
    let name = case["name"].as_str().unwrap();
    let steps = case["steps"].as_array().unwrap();
    let g = Graph::new();
    let first = steps[0]["inputs"].as_array().unwrap();
    let b = build(&g, case, first).map_err(|e| format!("{name}: build: {e}"))?;
    let sess = Session::new(&g).map_err(|e| e.to_string())?;
    let init = global_variables_initializer(&g).map_err(|e| e.to_string())?;
    sess.run_target(&init).map_err(|e| e.to_string())?;
    for (k, step) in steps.iter().enumerate() {
        let inputs = step["inputs"].as_array().unwrap();
        let mut args = feed_args(&b, inputs);
        args = match &b.out {
            Some(o) => args.fetch(o),
            None => args.target(&b.op),
        };
        let got = sess
            .run(&args)
            .map_err(|e| format!("{name} step {k}: {e}"))?;
        if let Some(o) = got.first() {
            check(&format!("{name} step {k} out"), o, &step["out"], 0.0)?;
        }
        let vals = read_vars(&sess, &b).map_err(|e| e.to_string())?;
        for (i, (v, want)) in vals
            .iter()
            .zip(step["vars"].as_array().unwrap())
            .enumerate()
        {
            let vn = case["vars"][i][0].as_str().unwrap();
            check(&format!("{name} step {k} {vn}"), v, want, 0.0)?;
        }
    }
    Ok(())
}

/// The words TensorFlow's message and weir's share: shape functions' messages up to the node
/// annotation (`for '{{node ...`), a missing kernel's up to the node's attrs.
fn head(m: &str) -> &str {
    let m = m.split(" for '").next().unwrap_or(m);
    m.split(" with these attrs").next().unwrap_or(m)
}

fn same_kind(e: &Error, class: &str) -> bool {
    match class {
        "ValueError" | "InvalidArgumentError" => e.is_invalid_argument(),
        "NotFoundError" => e.is_not_found(),
        "FailedPreconditionError" => e.is_failed_precondition(),
        _ => false,
    }
}

fn run_error_case(case: &Value) -> std::result::Result<(), String> {
    let name = case["name"].as_str().unwrap();
    let op = case["op"].as_str().unwrap();
    let want = &case["error"];
    let stage = want["stage"].as_str().unwrap();
    let inputs = case["inputs"].as_array().unwrap();
    let g = Graph::new();
    // A raw Resource* twin has no builder to check the slots' static shapes; its kernel does.
    let raw_twin = op.starts_with("Resource")
        && !matches!(
            op,
            "ResourceApplyAdamWithAmsgrad"
                | "ResourceApplyKerasMomentum"
                | "ResourceSparseApplyKerasMomentum"
        );
    let slot_shapes = name.ends_with("/slot_shape") || name.ends_with("/slot_rank");
    let b = match build(&g, case, inputs) {
        Ok(b) => b,
        Err(e) if stage == "build" => {
            let class = want["class"].as_str().unwrap();
            let msg = want["message"].as_str().unwrap();
            return if same_kind(&e, class) && head(e.message()) == head(msg) {
                Ok(())
            } else {
                Err(format!(
                    "{name}: weir refused {e:?} where TensorFlow: {msg}"
                ))
            };
        }
        Err(e) => return Err(format!("{name}: build failed: {e}")),
    };
    if stage == "build" && !(raw_twin && slot_shapes) {
        return Err(format!("{name}: weir added the node TensorFlow refused"));
    }
    let sess = Session::new(&g).map_err(|e| e.to_string())?;
    let init = global_variables_initializer(&g).map_err(|e| e.to_string())?;
    let ran = sess.run_target(&init).and_then(|_| {
        let args = feed_args(&b, inputs).target(&b.op);
        sess.run(&args)
    });
    match (stage, ran) {
        ("ok", Ok(_)) => {
            let vals = read_vars(&sess, &b).map_err(|e| e.to_string())?;
            for (v, w) in vals.iter().zip(case["after"].as_array().unwrap()) {
                check(name, v, w, 0.0)?;
            }
            Ok(())
        }
        ("build", Err(e)) => {
            let m = e.message();
            if e.is_invalid_argument()
                && m.starts_with("var and ")
                && m.contains(" do not have the same shape")
            {
                Ok(())
            } else {
                Err(format!("{name}: the raw twin failed with {e:?}"))
            }
        }
        ("run", Err(e)) => {
            let class = want["class"].as_str().unwrap();
            let msg = want["message"].as_str().unwrap();
            if same_kind(&e, class) && head(e.message()) == head(msg) {
                Ok(())
            } else {
                Err(format!("{name}: weir {e:?}, TensorFlow {class}: {msg}"))
            }
        }
        (_, Ok(_)) => Err(format!("{name}: weir ran what TensorFlow refused")),
        (_, Err(e)) => Err(format!(
            "{name}: weir failed with {e:?} where TensorFlow ran"
        )),
    }
}

fn run_all(kind: &str, filter: impl Fn(&Value) -> bool) {
    let mut failures = Vec::new();
    let mut n = 0;
    for case in cases().iter().filter(|c| c["kind"] == kind && filter(c)) {
        n += 1;
        let r = match kind {
            "value" => run_value_case(case),
            _ => run_error_case(case),
        };
        if let Err(e) = r {
            failures.push(e);
        }
    }
    assert!(n > 0, "no {kind} cases");
    assert!(
        failures.is_empty(),
        "{} of {n} cases differ from TensorFlow:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn op_is(c: &Value, names: &[&str]) -> bool {
    let op = c["op"].as_str().unwrap();
    names
        .iter()
        .any(|n| op == *n || op == format!("Resource{n}"))
}

#[test]
fn adamax_and_amsgrad_match_tensorflow() {
    run_all("value", |c| {
        op_is(c, &["ApplyAdaMax", "ApplyAdamWithAmsgrad"])
    });
}

#[test]
fn add_sign_and_power_sign_match_tensorflow() {
    run_all("value", |c| op_is(c, &["ApplyAddSign", "ApplyPowerSign"]));
}

#[test]
fn adagrad_v2_matches_tensorflow() {
    run_all("value", |c| {
        op_is(c, &["ApplyAdagradV2", "SparseApplyAdagradV2"])
    });
}

#[test]
fn keras_momentum_matches_tensorflow() {
    run_all("value", |c| {
        op_is(c, &["ApplyKerasMomentum", "SparseApplyKerasMomentum"])
    });
}

#[test]
fn errors_match_tensorflow() {
    run_all("error", |_| true);
}

#[test]
fn op_defs_match_tensorflow() -> Result<()> {
    static E: OnceLock<Value> = OnceLock::new();
    let data = E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/training_apply_more_v2/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    });
    weir_ops::register_all_ops();
    let defs = data["op_defs"].as_object().unwrap();
    assert_eq!(defs.len(), 13);
    for (op, d) in defs {
        let def = weir_graph::registry::op_def(op)?;
        let pairs = |k: &str| -> Vec<(String, String)> {
            d[k].as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
                .collect()
        };
        let ty = |t: &ArgType| match t {
            ArgType::Fixed(DType::Resource) => "resource".to_string(),
            ArgType::Fixed(dt) => dt.python_name().to_string(),
            ArgType::Attr(a) => a.to_string(),
            other => format!("{other:?}"),
        };
        // weir takes every variable as a resource handle, where the ref ops take `Ref(T)`.
        let nvars = def
            .inputs
            .iter()
            .take_while(|a| matches!(a.ty, ArgType::Fixed(DType::Resource)))
            .count();
        let inputs: Vec<(String, String)> = def
            .inputs
            .iter()
            .enumerate()
            .map(|(k, a)| {
                let t = if k < nvars && !op.starts_with("Resource") {
                    "T".to_string()
                } else {
                    ty(&a.ty)
                };
                (a.name.to_string(), t)
            })
            .collect();
        assert_eq!(inputs, pairs("inputs"), "{op} inputs");
        let outputs: Vec<(String, String)> = def
            .outputs
            .iter()
            .map(|a| (a.name.to_string(), ty(&a.ty)))
            .collect();
        assert_eq!(outputs, pairs("outputs"), "{op} outputs");
        let attrs = d["attrs"].as_array().unwrap();
        assert_eq!(def.attrs.len(), attrs.len(), "{op} attrs");
        for (a, want) in def.attrs.iter().zip(attrs) {
            assert_eq!(a.name, want[0].as_str().unwrap(), "{op}");
            match want[2].as_bool() {
                Some(b) => assert_eq!(a.default, Some(AttrValue::Bool(b)), "{op} {}", a.name),
                None => assert!(a.default.is_none(), "{op} {}", a.name),
            }
            // weir has no quantized types; every other type TensorFlow allows, it allows.
            let allowed: Vec<String> = a
                .allowed
                .unwrap_or(&[])
                .iter()
                .map(|t| t.python_name().to_string())
                .collect();
            let tf: Vec<&str> = want[3]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .filter(|t| !t.starts_with("qint") && !t.starts_with("quint"))
                .collect();
            let mut sorted = allowed.clone();
            sorted.sort();
            assert_eq!(sorted, tf, "{op} {} allowed types", a.name);
        }
    }
    // A type TensorFlow's CPU has no kernel for: refused when the node runs.
    let g = Graph::new();
    let var = |n: &str| {
        Variable::builder(constant(&g, Tensor::from(vec![1i32, 2])).unwrap())
            .name(n)
            .build()
    };
    let (w, a) = (var("w")?, var("a")?);
    let c = || constant(&g, 1i32).unwrap();
    let step = t::apply_adagrad_v2(&w, &a, c(), c(), constant(&g, [1i32, 1])?, true)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let e = sess.eval(&step).unwrap_err();
    assert!(e.is_invalid_argument(), "{e:?}");
    assert!(
        e.message()
            .starts_with("No OpKernel was registered to support Op 'ApplyAdagradV2'"),
        "{e}"
    );
    Ok(())
}
