//! The raw `Apply*` / `SparseApply*` kernels of Adadelta, FTRL, proximal Adagrad, proximal
//! gradient descent and AdagradDA against TensorFlow 2.21's errors on bad input
//! (tests/data/optimizers_more/expected.json, written by make_optimizers_more.py): bad gradient
//! shapes, indices out of range or of the wrong rank, gradients whose rows do not match, scalar
//! variables, and each scalar input replaced by a vector, a negative and a zero; the build-time
//! refusal of slots whose shape differs from the variable's; and the ops' signatures.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Code, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::state::{global_variables_initializer, Variable};
use weir_ops::training as t;
use weir_session::Session;

use crate::util::f32_bits;

fn data() -> &'static Value {
    static DATA: OnceLock<Value> = OnceLock::new();
    DATA.get_or_init(|| {
        let p =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/optimizers_more/expected.json");
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    })
}

fn input(name: &str, shape: &[usize]) -> Tensor {
    Tensor::from_vec(shape, f32_bits(&data()["inputs"][name])).unwrap()
}

fn var(g: &Graph, t: Tensor, name: &str) -> Result<Variable> {
    Variable::builder(constant(g, t)?).name(name).build()
}

fn filled(shape: &[usize], x: f32) -> Tensor {
    Tensor::from_vec(shape, vec![x; shape.iter().product()]).unwrap()
}

/// `tf.placeholder_with_default(value, shape=None)`: a value whose static shape is unknown, so
/// that the kernels' own checks run.
fn p(g: &Graph, t: Tensor) -> Result<Output> {
    placeholder_with_default(constant(g, t)?, Shape::unknown())
}

/// Builds the op `op` (TensorFlow's name, without `Resource`) on the variables `vars` (the
/// variable, then its slots) through weir's builder, taking the other inputs by their
/// TensorFlow names from `inp`.
fn raw(op: &str, vars: &[Variable], inp: &HashMap<&str, Output>) -> Result<Output> {
    let i = |n: &str| inp[n].clone();
    let ftrl = |v2: bool| t::FtrlScalars {
        lr: i("lr"),
        l1: i("l1"),
        l2: i("l2"),
        l2_shrinkage: if v2 { Some(i("l2_shrinkage")) } else { None },
        lr_power: i("lr_power"),
    };
    let v = |k: usize| &vars[k];
    match op {
        "ApplyAdadelta" => {
            t::apply_adadelta(v(0), v(1), v(2), i("lr"), i("rho"), i("epsilon"), i("grad"))
        }
        "SparseApplyAdadelta" => t::sparse_apply_adadelta(
            v(0),
            v(1),
            v(2),
            i("lr"),
            i("rho"),
            i("epsilon"),
            i("grad"),
            i("indices"),
        ),
        "ApplyFtrl" | "ApplyFtrlV2" => {
            t::apply_ftrl(v(0), v(1), v(2), i("grad"), ftrl(op.ends_with("V2")), false)
        }
        "SparseApplyFtrl" | "SparseApplyFtrlV2" => t::sparse_apply_ftrl(
            v(0),
            v(1),
            v(2),
            i("grad"),
            i("indices"),
            ftrl(op.ends_with("V2")),
            false,
        ),
        "ApplyProximalAdagrad" => {
            t::apply_proximal_adagrad(v(0), v(1), i("lr"), i("l1"), i("l2"), i("grad"))
        }
        "SparseApplyProximalAdagrad" => t::sparse_apply_proximal_adagrad(
            v(0),
            v(1),
            i("lr"),
            i("l1"),
            i("l2"),
            i("grad"),
            i("indices"),
        ),
        "ApplyProximalGradientDescent" => {
            t::apply_proximal_gradient_descent(v(0), i("alpha"), i("l1"), i("l2"), i("delta"))
        }
        "SparseApplyProximalGradientDescent" => t::sparse_apply_proximal_gradient_descent(
            v(0),
            i("alpha"),
            i("l1"),
            i("l2"),
            i("grad"),
            i("indices"),
        ),
        "ApplyAdagradDA" => t::apply_adagrad_da(
            v(0),
            v(1),
            v(2),
            i("grad"),
            i("lr"),
            i("l1"),
            i("l2"),
            i("global_step"),
        ),
        "SparseApplyAdagradDA" => t::sparse_apply_adagrad_da(
            v(0),
            v(1),
            v(2),
            i("grad"),
            i("indices"),
            i("lr"),
            i("l1"),
            i("l2"),
            i("global_step"),
        ),
        other => panic!("no builder for {other}"),
    }
}

/// Runs the graph's initializers and then `op`; the error, if any.
fn run(g: &Graph, op: &Output) -> Option<weir_graph::Error> {
    let sess = Session::new(g).unwrap();
    sess.run_target(&global_variables_initializer(g).unwrap())
        .unwrap();
    sess.eval(op).err()
}

/// Checks a build or run of one case against TensorFlow's recorded `want` (`null`: no error).
fn check(label: &str, g: &Graph, built: Result<Output>, want: &Value, build_time: bool) {
    let err = match built {
        Err(e) => {
            assert!(build_time, "{label}: weir refused at build time: {e}");
            Some(e)
        }
        Ok(op) => {
            assert!(!build_time, "{label}: weir built what TensorFlow refused");
            run(g, &op)
        }
    };
    match (err, want.as_str()) {
        (None, None) => {}
        (Some(e), Some(w)) => {
            assert_eq!(e.message(), w, "{label}");
            assert_eq!(e.code(), Code::InvalidArgument, "{label}");
        }
        (e, w) => panic!("{label}: weir {e:?}, TensorFlow {w:?}"),
    }
}

/// The default scalar inputs of the raw kernels.
fn scalar_default(name: &str) -> f64 {
    match name {
        "lr" | "alpha" => 0.1,
        "rho" => 0.9,
        "epsilon" => 1e-6,
        "lr_power" => -0.5,
        "global_step" => 1.0,
        _ => 0.0,
    }
}

fn scalar_tensor(name: &str, values: &[f64]) -> Tensor {
    let shape: &[usize] = if values.len() == 1 {
        &[]
    } else {
        &[values.len()]
    };
    if name == "global_step" {
        Tensor::from_vec(shape, values.iter().map(|&x| x as i64).collect()).unwrap()
    } else {
        Tensor::from_vec(shape, values.iter().map(|&x| x as f32).collect()).unwrap()
    }
}

/// The kernels and their case-specific inputs as make_optimizers_more.py's `kernel_errors`
/// builds them.
const KINDS: &[(&str, usize)] = &[
    ("Adadelta", 2),
    ("Ftrl", 2),
    ("FtrlV2", 2),
    ("ProximalAdagrad", 1),
    ("ProximalGradientDescent", 0),
    ("AdagradDA", 2),
];

fn kernel_case(kind: &str, nslots: usize, case: &str) -> (Graph, Result<Output>) {
    let g = Graph::new();
    let built = (|| {
        let s = |x: f32| constant(&g, Tensor::from(x));
        let w = var(&g, input("w2", &[4, 3]), "w")?;
        let z2 = filled(&[4, 3], 0.5);
        let mut vars = vec![w];
        let scalar_var = case == "sparse_scalar_var";
        if scalar_var {
            vars = vec![var(&g, Tensor::from(1.0f32), "w")?];
        }
        for k in 0..nslots {
            let value = if scalar_var {
                Tensor::from(0.5f32)
            } else if case.ends_with("slot_shape") && k == nslots - 1 {
                filled(&[4, 2], 1.0)
            } else {
                z2.clone()
            };
            vars.push(var(&g, value, &format!("s{k}"))?);
        }
        let rows = filled(&[2, 3], 1.0);
        let ids = |v: Vec<i32>, shape: &[usize]| p(&g, Tensor::from_vec(shape, v).unwrap());
        let (grad, indices) = match case {
            "dense_grad_shape" => (p(&g, filled(&[4, 2], 1.0))?, None),
            "dense_slot_shape" => (p(&g, input("g2", &[4, 3]))?, None),
            "sparse_slot_shape" | "sparse_scalar_var" => {
                (p(&g, rows)?, Some(ids(vec![0, 1], &[2])?))
            }
            "sparse_index_out_of_range" => (p(&g, rows)?, Some(ids(vec![1, 4], &[2])?)),
            "sparse_negative_index" => (p(&g, rows)?, Some(ids(vec![-1, 0], &[2])?)),
            "sparse_indices_rank" => (p(&g, rows)?, Some(ids(vec![0, 1], &[1, 2])?)),
            "sparse_grad_rows" => (p(&g, rows)?, Some(ids(vec![0, 1, 2], &[3])?)),
            "sparse_grad_inner" => (p(&g, filled(&[2, 2], 1.0))?, Some(ids(vec![0, 1], &[2])?)),
            "lr_not_scalar" => (p(&g, input("g2", &[4, 3]))?, None),
            other => panic!("unknown case {other}"),
        };
        let mut inp: HashMap<&str, Output> = HashMap::new();
        for (n, x) in [
            ("lr", 0.1f32),
            ("alpha", 0.1),
            ("rho", 0.9),
            ("epsilon", 1e-6),
            ("l1", 0.0),
            ("l2", 0.0),
            ("l2_shrinkage", 0.1),
            ("lr_power", -0.5),
        ] {
            inp.insert(n, s(x)?);
        }
        inp.insert("global_step", constant(&g, Tensor::from(1i64))?);
        let base = kind.trim_end_matches("V2");
        let mut op = match (base, &indices) {
            ("ProximalGradientDescent", None) => {
                inp.insert("delta", grad.clone());
                format!("Apply{base}")
            }
            (_, None) => format!("Apply{base}"),
            (_, Some(_)) => format!("SparseApply{base}"),
        };
        if kind.ends_with("V2") {
            op.push_str("V2");
        }
        inp.insert("grad", grad);
        if let Some(ix) = indices {
            inp.insert("indices", ix);
        }
        if case == "lr_not_scalar" {
            // The vector goes where make_optimizers_more.py puts it.
            let (name, bad) = match kind {
                "FtrlV2" => ("l2_shrinkage", scalar_tensor("l2_shrinkage", &[0.1, 0.1])),
                "ProximalGradientDescent" => ("l1", scalar_tensor("l1", &[0.0, 0.0])),
                "AdagradDA" => ("global_step", scalar_tensor("global_step", &[1.0, 2.0])),
                _ => ("lr", scalar_tensor("lr", &[0.1, 0.2])),
            };
            inp.insert(name, p(&g, bad)?);
        }
        raw(&op, &vars, &inp)
    })();
    (g, built)
}

#[test]
fn kernel_errors_match_tensorflow() {
    let cases = data()["kernel_errors"].as_array().unwrap();
    let mut seen = 0;
    for (kind, nslots) in KINDS {
        for e in cases {
            let name = e["case"].as_str().unwrap();
            let Some(case) = name.strip_prefix(&format!("{kind}/")) else {
                continue;
            };
            let (g, built) = kernel_case(kind, *nslots, case);
            let build_time = e.get("type").and_then(Value::as_str) == Some("ValueError");
            check(name, &g, built, &e["error"], build_time);
            seen += 1;
        }
    }
    assert_eq!(seen, cases.len());
    assert_eq!(seen, 58);
}

/// The inputs of `op`, in order, from weir's registered OpDef.
fn input_names(op: &str) -> Vec<&'static str> {
    weir_graph::registry::op_def(op)
        .unwrap()
        .inputs
        .iter()
        .map(|a| a.name)
        .collect()
}

#[test]
fn scalar_input_errors_match_tensorflow() {
    weir_ops::register_all_ops();
    let cases = data()["scalar_errors"].as_array().unwrap();
    assert_eq!(cases.len(), 132);
    for e in cases {
        let op = e["op"].as_str().unwrap();
        let bad_input = e["input"].as_str().unwrap();
        let bad = &e["bad"];
        let label = format!("{op} {bad_input}={bad}");
        let sparse = op.starts_with("Sparse");
        let g = Graph::new();
        let built = (|| {
            let names = input_names(op);
            let mut vars = Vec::new();
            let mut inp: HashMap<&str, Output> = HashMap::new();
            for (k, n) in names.iter().enumerate() {
                let scalar = matches!(
                    *n,
                    "lr" | "alpha"
                        | "rho"
                        | "epsilon"
                        | "l1"
                        | "l2"
                        | "l2_shrinkage"
                        | "lr_power"
                        | "global_step"
                );
                match *n {
                    "var" => vars.push(var(&g, input("w2", &[4, 3]), "w")?),
                    "grad" | "delta" if sparse => {
                        let c2 = f32_bits(&data()["inputs"]["c2"]);
                        let rows = Tensor::from_vec(&[2, 3], c2[..6].to_vec())?;
                        inp.insert(n, constant(&g, rows)?);
                    }
                    "grad" | "delta" => {
                        inp.insert(n, constant(&g, input("g2", &[4, 3]))?);
                    }
                    "indices" => {
                        inp.insert(n, constant(&g, Tensor::from(vec![2i32, 0]))?);
                    }
                    _ if scalar => {
                        let d = scalar_default(n);
                        let values = if *n != bad_input {
                            vec![d]
                        } else if bad.as_str() == Some("vector") {
                            vec![d, d]
                        } else {
                            vec![bad.as_f64().unwrap()]
                        };
                        inp.insert(n, p(&g, scalar_tensor(n, &values))?);
                    }
                    _ => {
                        assert!(k < 3, "{label}: unexpected input {n}");
                        vars.push(var(&g, filled(&[4, 3], 0.5), n)?);
                    }
                }
            }
            raw(op, &vars, &inp)
        })();
        check(&label, &g, built, &e["error"], false);
    }
}

#[test]
fn slots_of_another_shape_are_refused_when_built() -> Result<()> {
    let g = Graph::new();
    let w = var(&g, input("w2", &[4, 3]), "w")?;
    let good = var(&g, filled(&[4, 3], 0.5), "good")?;
    let bad = var(&g, filled(&[4, 2], 1.0), "bad")?;
    let rank = var(&g, filled(&[12], 1.0), "rank")?;
    let s = |x: f32| constant(&g, Tensor::from(x));
    let grad = constant(&g, input("g2", &[4, 3]))?;
    let want =
        "Dimension 1 in both shapes must be equal, but are 3 and 2. Shapes are [4,3] and [4,2].";
    let e = t::apply_proximal_adagrad(&w, &bad, s(0.1)?, s(0.0)?, s(0.0)?, &grad).unwrap_err();
    assert_eq!(e.message(), want);
    let e = t::apply_adadelta(&w, &good, &bad, s(1.0)?, s(0.9)?, s(1e-6)?, &grad).unwrap_err();
    assert_eq!(e.message(), want);
    let e = t::apply_proximal_adagrad(&w, &rank, s(0.1)?, s(0.0)?, s(0.0)?, &grad).unwrap_err();
    assert_eq!(e.message(), "Shapes must be equal rank, but are 2 and 1");
    // A dense gradient of another static shape is refused as well.
    let g43 = constant(&g, filled(&[4, 2], 1.0))?;
    let e = t::apply_proximal_gradient_descent(&w, s(0.1)?, s(0.0)?, s(0.0)?, &g43).unwrap_err();
    assert_eq!(e.message(), want);
    // Slots of the right shape build.
    t::apply_proximal_adagrad(&w, &good, s(0.1)?, s(0.0)?, s(0.0)?, &grad)?;
    Ok(())
}

fn type_name(t: &weir_graph::ArgType) -> String {
    match t {
        weir_graph::ArgType::Fixed(d) => d.name().to_string(),
        weir_graph::ArgType::Attr(a) => a.to_string(),
        other => format!("{other:?}"),
    }
}

/// Compares TensorFlow's recorded signatures with weir's registered OpDefs: input and output
/// names and types, attr names, kinds and defaults. The one deliberate difference: the
/// variable inputs of the non-`Resource` ops are TensorFlow's `Ref(T)`, and weir's variables
/// are resource handles (DESIGN.md), so there they are `resource`.
pub fn compare_op_defs(defs: &Value) {
    weir_ops::register_all_ops();
    for (name, d) in defs.as_object().unwrap() {
        let def = weir_graph::registry::op_def(name).unwrap();
        let strs = |k: &str| -> Vec<String> {
            d[k].as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect()
        };
        let inputs: Vec<String> = def.inputs.iter().map(|a| a.name.to_string()).collect();
        assert_eq!(inputs, strs("inputs"), "{name} inputs");
        let outputs: Vec<String> = def.outputs.iter().map(|a| a.name.to_string()).collect();
        assert_eq!(outputs, strs("outputs"), "{name} outputs");
        let nvars = d["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .take_while(|n| !matches!(n.as_str(), Some("lr" | "grad" | "alpha")))
            .count();
        for (k, (a, want)) in def.inputs.iter().zip(strs("input_types")).enumerate() {
            let got = type_name(&a.ty);
            if k < nvars && !name.starts_with("Resource") {
                assert_eq!(
                    (got.as_str(), want.as_str()),
                    ("resource", "T"),
                    "{name} {k}"
                );
            } else {
                assert_eq!(got, want, "{name} input {}", a.name);
            }
        }
        let out_types: Vec<String> = def.outputs.iter().map(|a| type_name(&a.ty)).collect();
        assert_eq!(out_types, strs("output_types"), "{name} output types");
        let attrs: Vec<String> = def.attrs.iter().map(|a| a.name.to_string()).collect();
        assert_eq!(attrs, strs("attrs"), "{name} attrs");
        for (a, (kind, default)) in def.attrs.iter().zip(
            strs("attr_types")
                .into_iter()
                .zip(d["attr_defaults"].as_array().unwrap()),
        ) {
            let got_kind = match a.kind {
                weir_graph::AttrKind::Bool => "bool",
                weir_graph::AttrKind::Type => "type",
                _ => "other",
            };
            assert_eq!(got_kind, kind, "{name} attr {}", a.name);
            let got_default = match &a.default {
                None => Value::Null,
                Some(weir_graph::AttrValue::Bool(b)) => Value::Bool(*b),
                Some(other) => panic!("{name} attr {}: default {other:?}", a.name),
            };
            assert_eq!(&got_default, default, "{name} attr {} default", a.name);
            if let (Some(allowed), Some(tf)) = (a.allowed, d.get("allowed_dtypes")) {
                let k = def.attrs.iter().position(|x| x.name == a.name).unwrap();
                let tf: Vec<&str> = tf[k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect();
                for dt in allowed {
                    // Python's names of TensorFlow's DT_FLOAT and DT_DOUBLE.
                    let py = match dt.name() {
                        "float" => "float32",
                        "double" => "float64",
                        "half" => "float16",
                        other => other,
                    };
                    assert!(tf.contains(&py), "{name} {}: {dt}", a.name);
                }
            }
        }
    }
}

#[test]
fn op_defs_match_tensorflow() {
    let defs = &data()["op_defs"];
    assert_eq!(defs.as_object().unwrap().len(), 24);
    compare_op_defs(defs);
}
