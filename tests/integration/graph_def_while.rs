//! `tf.while_loop` across GraphDefs: TensorFlow 1's loops (tests/data/tf_graphs/while_v1.pb,
//! written by make_graphs.py: a loop bounded by a placeholder, one reading values from outside,
//! nested loops, a cond in a loop, maximum_iterations and a dequeue per iteration) import and
//! run here with TensorFlow's values; weir's loops export with the back edge TensorFlow wires
//! and read back.

use std::path::PathBuf;

use serde_json::Value as Json;
use weir::graph::graph_def::proto::GraphDef;
use weir::graph::graph_def::Message;
use weir::prelude::*;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tf_graphs")
        .join(name)
}

/// TensorFlow's graph `pb` imported (after checking that its op types, listed under `key` in
/// expected.json, include `ops`), and the values TensorFlow gave under `key`.
fn tensorflow_graph(key: &str, pb: &str, ops: &[&str]) -> Result<(Json, Graph)> {
    let mut all: Json =
        serde_json::from_str(&std::fs::read_to_string(data("expected.json")).unwrap()).unwrap();
    let want = all[key].take();
    let held: Vec<&str> = want["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for op in ops {
        assert!(held.contains(op), "{op} not in {held:?}");
    }
    let gd = GraphDef::decode(&std::fs::read(data(pb)).unwrap()[..]).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&gd).name(""))?;
    Ok((want, g))
}

/// Runs the imported loops for each bound `n` TensorFlow ran them with, and compares every
/// named output with TensorFlow's.
fn check_bounds(want: &Json, g: &Graph, sess: &Session) -> Result<()> {
    let (n, x) = (g.tensor_by_name("n:0")?, g.tensor_by_name("x:0")?);
    let names = want["names"].as_object().unwrap();
    for (k, got) in want["got"].as_object().unwrap() {
        let mut args = RunArgs::new()
            .feed(&n, k.parse::<i32>().unwrap())
            .feed(&x, Tensor::from(f32s(&want["x"])));
        for name in names.values() {
            args = args.fetch(g.tensor_by_name(name.as_str().unwrap())?);
        }
        let r = sess.run(&args)?;
        for ((key, _), t) in names.iter().zip(&r) {
            assert_eq!(values(t)?, f32s(&got[key]), "{key} with n = {k}");
        }
    }
    Ok(())
}

fn f32s(v: &Json) -> Vec<f32> {
    match v {
        Json::Array(a) => a.iter().flat_map(f32s).collect(),
        x => vec![x.as_f64().unwrap() as f32],
    }
}

/// The value of `t` as f32s, whatever its numeric dtype.
fn values(t: &Tensor) -> Result<Vec<f32>> {
    Ok(match t.dtype() {
        DType::I32 => t.to_vec::<i32>()?.into_iter().map(|v| v as f32).collect(),
        _ => t.to_vec::<f32>()?,
    })
}

#[test]
fn tensorflows_v1_loops_import_and_run_as_in_tensorflow() -> Result<()> {
    let loop_ops = [
        "Enter",
        "Exit",
        "LoopCond",
        "NextIteration",
        "Merge",
        "Switch",
    ];
    let (want, g) = tensorflow_graph("while_v1", "while_v1.pb", &loop_ops)?;
    let sess = Session::new(&g)?;
    check_bounds(&want, &g, &sess)?;
    let n = g.tensor_by_name("n:0")?;
    // Each iteration of the loop dequeues one element.
    sess.run(&RunArgs::new().target(&g.operation_by_name("fill").unwrap()))?;
    let taken = g.tensor_by_name(want["taken"].as_str().unwrap())?;
    let takes: Vec<f32> = [2, 3]
        .iter()
        .map(|&k| sess.run(&RunArgs::new().feed(&n, k).fetch(&taken))?[0].to_scalar::<f32>())
        .collect::<Result<_>>()?;
    assert_eq!(takes, f32s(&want["takes"]));
    let size = g.tensor_by_name(want["size"].as_str().unwrap())?;
    assert_eq!(
        i64::from(sess.eval(&size)?.to_scalar::<i32>()?),
        want["left"].as_i64().unwrap()
    );
    Ok(())
}

#[test]
fn tensorflows_loops_export_again_as_tensorflow_wrote_them() -> Result<()> {
    let gd = GraphDef::decode(&std::fs::read(data("while_v1.pb")).unwrap()[..]).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&gd).name(""))?;
    let again = g.as_graph_def(false)?;
    let find = |d: &GraphDef, name: &str| d.node.iter().find(|n| n.name == name).cloned().unwrap();
    for name in ["squares/Merge", "squares/Merge_1", "outer/inner/Merge_1"] {
        let (a, b) = (find(&gd, name), find(&again, name));
        assert_eq!(a.input, b.input, "{name}");
        assert_eq!(a.attr["N"], b.attr["N"], "{name}");
    }
    Ok(())
}

#[test]
fn a_weir_loop_exports_with_its_back_edges_and_reimports() -> Result<()> {
    let g = Graph::new();
    let n = Placeholder::new(DType::I32)
        .shape(Shape::scalar())
        .name("n")
        .build(&g)?;
    let out = while_loop(
        |v| less(&v[0], &n),
        |v| {
            let inner = while_loop(
                |w| less(&w[0], &v[0]),
                |w| Ok(vec![add(&w[0], &constant(&g, 1i32)?)?, add(&w[1], &w[0])?]),
                &[constant(&g, 0i32)?, v[1].clone()],
            )?;
            Ok(vec![add(&v[0], &constant(&g, 1i32)?)?, inner[1].clone()])
        },
        &[constant(&g, 0i32)?, constant(&g, 0i32)?],
    )?;
    let gd = g.as_graph_def(false)?;
    let merge = gd.node.iter().find(|d| d.name == "while/Merge").unwrap();
    assert_eq!(merge.input, ["while/Enter", "while/NextIteration"]);
    let back = Graph::new();
    import_graph_def(&back, &ImportGraphDef::new(&gd).name(""))?;
    let sess = Session::new(&back)?;
    let fetched = back.tensor_by_name(&out[1].name())?;
    for (k, want) in [(0, 0), (3, 1), (6, 20)] {
        let r = sess.run(
            &RunArgs::new()
                .feed(back.tensor_by_name("n:0")?, k)
                .fetch(&fetched),
        )?;
        assert_eq!(r[0].to_scalar::<i32>()?, want, "n = {k}");
    }
    Ok(())
}

#[test]
fn tensorflow_2s_while_ops_lower_to_loops_and_run_as_in_tensorflow() -> Result<()> {
    let (want, g) = tensorflow_graph("while_v2", "while_v2.pb", &["While", "StatelessWhile"])?;
    let sess = Session::new(&g)?;
    sess.run_target(&g.operation_by_name(want["init"].as_str().unwrap()).unwrap())?;
    check_bounds(&want, &g, &sess)?;
    // The body assigned the variable once per iteration: 3 + 6 iterations of +2.
    let counter = g.tensor_by_name(want["counter"].as_str().unwrap())?;
    assert_eq!(
        sess.eval(&counter)?.to_scalar::<f32>()?,
        want["counter_after"].as_f64().unwrap() as f32
    );
    Ok(())
}

#[test]
fn tensorflows_dynamic_rnn_training_graph_trains_as_in_tensorflow() -> Result<()> {
    // TensorFlow's own loop gradient: stacks of forward values, a backward counter loop whose
    // exits read Identities of its Switches, ControlTrigger, ShapeN, ConcatOffset, TanhGrad.
    let (want, g) = tensorflow_graph(
        "rnn_train_v1",
        "rnn_train_v1.pb",
        &[
            "StackPushV2",
            "ControlTrigger",
            "TensorArrayScatterV3",
            "TanhGrad",
        ],
    )?;
    let sess = Session::new(&g)?;
    sess.run_target(&g.operation_by_name(want["init"].as_str().unwrap()).unwrap())?;
    let x = Tensor::from_vec(&[2, 4, 2], f32s(&want["x"]))?;
    let y = Tensor::from_vec(&[2, 3], f32s(&want["y"]))?;
    let loss = g.tensor_by_name(want["loss"].as_str().unwrap())?;
    let train = g
        .operation_by_name(want["train"].as_str().unwrap())
        .unwrap();
    let mut losses = Vec::new();
    for _ in 0..4 {
        let r = sess.run(
            &RunArgs::new()
                .feed(&g.tensor_by_name("x:0")?, x.clone())
                .feed(&g.tensor_by_name("y:0")?, y.clone())
                .fetch(&loss)
                .target(&train),
        )?;
        losses.push(r[0].to_scalar::<f32>()?);
    }
    let want_losses = f32s(&want["losses"]);
    for (a, b) in losses.iter().zip(&want_losses) {
        assert!(
            (a - b).abs() <= 1e-5 * b.abs().max(1.0),
            "{losses:?} vs {want_losses:?}"
        );
    }
    Ok(())
}
