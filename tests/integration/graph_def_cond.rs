//! `tf.cond` across GraphDefs: TensorFlow 1's Switch/Merge conditionals (tests/data/tf_graphs/
//! cond_v1.pb, written by make_graphs.py) import and run here with TensorFlow's values, its own
//! gradients through the cond included; weir's conds export as the same ops and read back.

use std::path::PathBuf;

use serde_json::Value as Json;
use weir::graph::graph_def::proto::{FunctionDef, GraphDef, NodeDef};
use weir::graph::graph_def::Message;
use weir::prelude::*;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tf_graphs")
        .join(name)
}

fn f32s(v: &Json) -> Vec<f32> {
    let mut out = Vec::new();
    match v {
        Json::Array(a) => a.iter().for_each(|x| out.extend(f32s(x))),
        x => out.push(x.as_f64().unwrap() as f32),
    }
    out
}

fn close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (a, b) in got.iter().zip(want) {
        assert!(
            (a - b).abs() <= 1e-5 * b.abs().max(1.0),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

/// The expected values of `key`, TensorFlow's GraphDef `pb` imported with the op types `ops`
/// among its nodes, and a session on it that has checked the model both files share: the
/// cond's value for each branch, and four training steps to TensorFlow's losses and weights
/// (`w_read` reads them).
fn branch_model_as_in_tensorflow(
    key: &str,
    pb: &str,
    ops: &[&str],
    w_read: &str,
) -> Result<(Json, Graph, Session)> {
    let mut all: Json =
        serde_json::from_str(&std::fs::read_to_string(data("expected.json")).unwrap()).unwrap();
    let want = all[key].take();
    let held: Vec<&str> = want["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(ops.iter().all(|o| held.contains(o)), "{held:?}");
    let gd = GraphDef::decode(&std::fs::read(data(pb)).unwrap()[..]).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&gd).name(""))?;
    let t = |name: &Json| g.tensor_by_name(name.as_str().unwrap()).unwrap();
    let op = |name: &Json| g.operation_by_name(name.as_str().unwrap()).unwrap();
    let (x, p) = (g.tensor_by_name("x:0")?, g.tensor_by_name("is_training:0")?);
    let xs = Tensor::from_vec(&[2, 3], f32s(&want["x"]))?;
    let sess = Session::new(&g)?;
    sess.run(&RunArgs::new().target(&op(&want["init"])))?;
    for b in [true, false] {
        let r = sess.run(
            &RunArgs::new()
                .feed(&x, xs.clone())
                .feed(&p, b)
                .fetch(t(&want["y"])),
        )?;
        let key = if b { "True" } else { "False" };
        close(&r[0].to_vec::<f32>()?, &f32s(&want["ys"][key]), key);
    }
    // TensorFlow's own gradients through the cond train w as there.
    for (b, loss) in want["flags"]
        .as_array()
        .unwrap()
        .iter()
        .zip(f32s(&want["losses"]))
    {
        let r = sess.run(
            &RunArgs::new()
                .feed(&x, xs.clone())
                .feed(&p, b.as_bool().unwrap())
                .fetch(t(&want["loss"]))
                .target(&op(&want["train"])),
        )?;
        close(&[r[0].to_scalar::<f32>()?], &[loss], "loss");
    }
    close(
        &sess.eval(g.tensor_by_name(w_read)?)?.to_vec::<f32>()?,
        &f32s(&want["w_after"]),
        "w",
    );
    Ok((want, g, sess))
}

#[test]
fn tensorflows_v1_cond_graph_runs_trains_and_dequeues_as_in_tensorflow() -> Result<()> {
    // TensorFlow 1's cond: Switch and Merge, and their gradients.
    let (want, g, sess) =
        branch_model_as_in_tensorflow("cond_v1", "cond_v1.pb", &["Switch", "Merge"], "w/read:0")?;
    let t = |name: &Json| g.tensor_by_name(name.as_str().unwrap()).unwrap();
    let op = |name: &Json| g.operation_by_name(name.as_str().unwrap()).unwrap();
    let p = g.tensor_by_name("is_training:0")?;
    // Each run dequeues from the taken branch's queue only.
    for fill in want["fill"].as_array().unwrap() {
        sess.run(&RunArgs::new().target(&op(fill)))?;
    }
    let taken: Vec<i64> = [true, false, true]
        .iter()
        .map(|&b| {
            let r = sess.run(&RunArgs::new().feed(&p, b).fetch(t(&want["next"])))?;
            Ok(i64::from(r[0].to_scalar::<i32>()?))
        })
        .collect::<Result<_>>()?;
    let want_taken: Vec<i64> = want["taken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(taken, want_taken);
    let sizes = want["sizes"].as_array().unwrap();
    let left = sess.run(&RunArgs::new().fetch(t(&sizes[0])).fetch(t(&sizes[1])))?;
    assert_eq!(
        [left[0].to_scalar::<i32>()?, left[1].to_scalar::<i32>()?],
        [
            want["left"][0].as_i64().unwrap() as i32,
            want["left"][1].as_i64().unwrap() as i32
        ]
    );
    Ok(())
}

#[test]
fn a_weir_cond_exports_as_switch_and_merge_and_reimports() -> Result<()> {
    let g = Graph::new();
    let p = Placeholder::new(DType::Bool)
        .shape(Shape::scalar())
        .name("p")
        .build(&g)?;
    let x = constant_named(&g, 3.0f32, "x")?;
    let y: Output = cond(&p, || x.clone() * 2.0f32, || constant(&g, 7.0f32)? + 1.0f32)?;
    let gd = g.as_graph_def(false)?;
    let types: Vec<&str> = gd.node.iter().map(|n| n.op.as_str()).collect();
    assert_eq!(types.iter().filter(|&&t| t == "Switch").count(), 2);
    assert_eq!(types.iter().filter(|&&t| t == "Merge").count(), 1);
    let back = Graph::new();
    import_graph_def(&back, &ImportGraphDef::new(&gd).name(""))?;
    let (p2, y2) = (back.tensor_by_name("p:0")?, back.tensor_by_name(&y.name())?);
    let sess = Session::new(&back)?;
    for (b, want) in [(true, 6.0f32), (false, 8.0)] {
        let r = sess.run(&RunArgs::new().feed(&p2, b).fetch(&y2))?;
        assert_eq!(r[0].to_scalar::<f32>()?, want);
    }
    Ok(())
}

#[test]
fn tensorflow_2s_functional_cond_flip_and_call_lower_to_switch_merge_and_run_as_there() -> Result<()>
{
    // The cond is an If, trained through TensorFlow's If of its branches' gradient functions.
    let (want, g, sess) = branch_model_as_in_tensorflow(
        "cond_v2",
        "cond_v2.pb",
        &["StatelessIf", "PartitionedCall"],
        "w/Read/ReadVariableOp:0",
    )?;
    let t = |name: &Json| g.tensor_by_name(name.as_str().unwrap()).unwrap();
    // The If's name is kept, by the node that forwards its merged outputs.
    assert_eq!(
        g.operation_by_name("branch").unwrap().op_type(),
        "IdentityN"
    );
    assert!(g.operation_by_name("branch/output_0").is_some());
    // The tf.function call, `x @ w * 2 + 1`: TensorFlow's values before training, and the same
    // function of the trained weights now.
    let (xv, w) = (f32s(&want["x"]), f32s(&want["w_after"]));
    let doubled: Vec<f32> = (0..4)
        .map(|k| {
            let (i, j) = (k / 2, k % 2);
            (0..3).map(|m| xv[i * 3 + m] * w[m * 2 + j]).sum::<f32>() * 2.0 + 1.0
        })
        .collect();
    let r = sess.run(
        &RunArgs::new()
            .feed(g.tensor_by_name("x:0")?, Tensor::from_vec(&[2, 3], xv)?)
            .fetch(t(&want["called"])),
    )?;
    close(&r[0].to_vec::<f32>()?, &doubled, "called");
    // random_flip_left_right, a StatelessIf on TensorFlow's seeded draw: the same flips.
    for (k, flip) in want["flips"].as_array().unwrap().iter().enumerate() {
        let r = sess.eval(t(&want["flipped"]))?;
        let first_column: Vec<f32> = r
            .to_vec::<f32>()?
            .iter()
            .step_by(3)
            .take(4)
            .copied()
            .collect();
        close(&first_column, &f32s(flip), &format!("flip {k}"));
    }
    Ok(())
}

/// One node of [`functional_graph`]: name, op, inputs and its function attribute.
type Spec<'a> = (&'a str, &'a str, &'a [&'a str], Option<(&'a str, &'a str)>);

/// A node of `spec`, with one float32 argument and result (`Tin`, `Tout`).
fn spec_node((name, op, input, f): Spec<'_>) -> NodeDef {
    use weir::graph::graph_def::proto::NameAttrList;
    use weir::graph::graph_def::proto::{attr_value_proto::Value, AttrValueProto, ListValue};
    let types = AttrValueProto {
        value: Some(Value::List(ListValue {
            r#type: vec![1],
            ..ListValue::default()
        })),
    };
    let mut attr = std::collections::BTreeMap::new();
    attr.insert("Tin".to_string(), types.clone());
    attr.insert("Tout".to_string(), types);
    if let Some((key, name)) = f {
        let func = Value::Func(NameAttrList {
            name: name.to_string(),
        });
        attr.insert(key.to_string(), AttrValueProto { value: Some(func) });
    }
    NodeDef {
        name: name.to_string(),
        op: op.to_string(),
        input: input.iter().map(|s| s.to_string()).collect(),
        device: String::new(),
        attr,
    }
}

/// A function `name(a) -> r` of `body`, returning `ret`.
fn unary_function(name: &str, body: Vec<NodeDef>, ret: &str) -> FunctionDef {
    use weir::graph::graph_def::proto::{FunctionArg, FunctionSignature};
    let arg = |n: &str| FunctionArg {
        name: n.into(),
        r#type: 1,
    };
    FunctionDef {
        signature: Some(FunctionSignature {
            name: name.to_string(),
            input_arg: vec![arg("a")],
            output_arg: vec![arg("r")],
        }),
        node_def: body,
        ret: [("r".to_string(), ret.to_string())].into(),
        control_ret: Default::default(),
    }
}

/// A GraphDef of `nodes` and the library `function`.
fn graph_with(nodes: Vec<NodeDef>, function: Vec<FunctionDef>) -> GraphDef {
    GraphDef {
        node: nodes,
        library: Some(weir::graph::graph_def::proto::FunctionDefLibrary { function }),
        versions: None,
    }
}

/// A GraphDef of `nodes` with the functions `recursive`, each calling itself.
fn functional_graph(nodes: &[Spec<'_>], recursive: &[&str]) -> GraphDef {
    let function = recursive
        .iter()
        .map(|&name| {
            let again = spec_node(("again", "PartitionedCall", &["a"], Some(("f", name))));
            unary_function(name, vec![again], "again:output:0")
        })
        .collect();
    graph_with(nodes.iter().map(|&n| spec_node(n)).collect(), function)
}

#[test]
fn functional_graphs_weir_cannot_lower_are_refused_naming_the_node() {
    let x = ("x", "Placeholder", &[][..], None);
    let import =
        |gd: &GraphDef| import_graph_def(&Graph::new(), &ImportGraphDef::new(gd)).unwrap_err();
    let err = import(&functional_graph(
        &[x, ("loop", "While", &["x"], None)],
        &[],
    ));
    // A While lowers like any loop once it has its functions (graph_def_while.rs); this one
    // has not even its types.
    assert_eq!(err.code(), weir::graph::Code::InvalidArgument);
    assert!(
        err.message()
            .contains("Node 'loop' (While) has no attribute 'T'"),
        "{err}"
    );
    let err = import(&functional_graph(
        &[
            x,
            ("call", "PartitionedCall", &["x"], Some(("f", "missing"))),
        ],
        &[],
    ));
    assert_eq!(err.code(), weir::graph::Code::NotFound);
    assert!(
        err.message()
            .contains("function 'missing' is not in the graph's library"),
        "{err}"
    );
    let err = import(&functional_graph(
        &[
            x,
            ("call", "PartitionedCall", &["x"], Some(("f", "forever"))),
        ],
        &["forever"],
    ));
    assert_eq!(err.code(), weir::graph::Code::InvalidArgument);
    assert!(
        err.message()
            .contains("Function 'forever' calls itself (through node 'again')"),
        "{err}"
    );
}

#[test]
fn mutated_functional_graph_defs_end_in_a_graph_or_an_error_never_a_panic() {
    // The lowering reads functions, their signatures, `node:arg:index` names and attributes
    // from untrusted bytes: every mutation must end in an imported graph or an error.
    let binary = std::fs::read(data("cond_v2.pb")).unwrap();
    let (imported, refused) = crate::graph_def_import::import_mutations(&binary, None);
    assert!(
        imported > 0 && refused > 0,
        "{imported} imported, {refused} refused"
    );
}

#[test]
fn functions_calling_functions_twice_per_level_are_refused_before_the_graph_explodes() {
    let call = |name: &str, k: usize, input: &str| {
        let f = format!("f{}", k + 1);
        spec_node((name, "PartitionedCall", &[input], Some(("f", f.as_str()))))
    };
    // f_k(a) = f_{k+1}(f_{k+1}(a)), 30 levels deep: 2^30 calls of the last one.
    let function = (0..30)
        .map(|k| {
            let body = vec![call("one", k, "a"), call("two", k, "one:output:0")];
            unary_function(&format!("f{k}"), body, "two:output:0")
        })
        .chain(std::iter::once(unary_function("f30", vec![], "a")))
        .collect();
    let x = spec_node(("x", "Placeholder", &[], None));
    let first = spec_node(("call", "PartitionedCall", &["x"], Some(("f", "f0"))));
    let def = graph_with(vec![x, first], function);
    let err = import_graph_def(&Graph::new(), &ImportGraphDef::new(&def)).unwrap_err();
    assert!(
        err.message().contains("makes more than 1048576 nodes"),
        "{err}"
    );
}

#[test]
fn tensorflow_1s_batch_norm_switched_by_is_training_runs_and_trains_as_there() -> Result<()> {
    // A v1 cond between FusedBatchNormV3 on the batch (training) and on the moving statistics
    // (evaluation), moving averages updated by assignments, and TensorFlow's own gradient
    // through the cond and FusedBatchNormGradV3. Within a few float32 ulps of TensorFlow: weir
    // sums the statistics in float64.
    let all: Json =
        serde_json::from_str(&std::fs::read_to_string(data("expected.json")).unwrap()).unwrap();
    let want = &all["batch_norm_cond"];
    let gd = GraphDef::decode(&std::fs::read(data("batch_norm_cond.pb")).unwrap()[..]).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&gd).name(""))?;
    let (x, t) = (g.tensor_by_name("x:0")?, g.tensor_by_name("training:0")?);
    let (y, loss) = (g.tensor_by_name("y:0")?, g.tensor_by_name("loss:0")?);
    let op = |n: &str| g.operation_by_name(n).unwrap();
    let xs = Tensor::from_vec(&[2, 2, 2, 3], f32s(&want["x"]))?;
    let sess = Session::new(&g)?;
    sess.run(&RunArgs::new().target(&op("init")))?;
    let run = |training: bool, fetch: &Output, target: Option<Operation>| -> Result<Tensor> {
        let mut args = RunArgs::new()
            .feed(&x, xs.clone())
            .feed(&t, training)
            .fetch(fetch);
        if let Some(op) = target {
            args = args.target(&op);
        }
        Ok(sess.run(&args)?.remove(0))
    };
    close(
        &run(true, &y, None)?.to_vec::<f32>()?,
        &f32s(&want["train_y"]),
        "train_y",
    );
    run(true, &loss, Some(op("update")))?;
    close(
        &run(false, &y, None)?.to_vec::<f32>()?,
        &f32s(&want["eval_y"]),
        "eval_y",
    );
    for (k, want_loss) in f32s(&want["losses"]).into_iter().enumerate() {
        let got = run(true, &loss, Some(op("train")))?.to_scalar::<f32>()?;
        close(&[got], &[want_loss], &format!("loss {k}"));
    }
    close(
        &run(false, &y, None)?.to_vec::<f32>()?,
        &f32s(&want["eval_after"]),
        "eval_after",
    );
    Ok(())
}
