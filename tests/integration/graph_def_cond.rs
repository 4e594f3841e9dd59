//! `tf.cond` across GraphDefs: TensorFlow 1's Switch/Merge conditionals (tests/data/tf_graphs/
//! cond_v1.pb, written by make_graphs.py) import and run here with TensorFlow's values, its own
//! gradients through the cond included; weir's conds export as the same ops and read back.

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

#[test]
fn tensorflows_v1_cond_graph_runs_trains_and_dequeues_as_in_tensorflow() -> Result<()> {
    let all: Json =
        serde_json::from_str(&std::fs::read_to_string(data("expected.json")).unwrap()).unwrap();
    let want = &all["cond_v1"];
    let ops: Vec<&str> = want["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(ops.contains(&"Switch") && ops.contains(&"Merge"), "{ops:?}");
    let gd = GraphDef::decode(&std::fs::read(data("cond_v1.pb")).unwrap()[..]).unwrap();
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
    // TensorFlow's gradients through the cond (its Switch and Merge gradients) train w as there.
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
        &sess.eval(g.tensor_by_name("w/read:0")?)?.to_vec::<f32>()?,
        &f32s(&want["w_after"]),
        "w",
    );
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
