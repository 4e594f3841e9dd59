//! `tf.switch_case` as TensorFlow 2 writes it: `Case` and `StatelessCase` ops on branch
//! functions (tests/data/tf_graphs/case_v2.pb, written by make_case.py) import, lowered to
//! Switch/Merge chains, and give TensorFlow's values: each branch, an index out of range taking
//! the last one, side effects of the taken branch only, and TensorFlow's own Case gradient
//! training a variable.

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
fn tensorflows_switch_case_graph_runs_and_trains_as_in_tensorflow() -> Result<()> {
    let want: Json =
        serde_json::from_str(&std::fs::read_to_string(data("case_v2.json")).unwrap()).unwrap();
    let ops: Vec<&str> = want["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        ops.contains(&"Case") && ops.contains(&"StatelessCase"),
        "{ops:?}"
    );
    let gd = GraphDef::decode(&std::fs::read(data("case_v2.pb")).unwrap()[..]).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&gd).name(""))?;
    let t = |name: &str| g.tensor_by_name(name).unwrap();
    let op = |name: &Json| g.operation_by_name(name.as_str().unwrap()).unwrap();
    let (x, i) = (t("x:0"), t("i:0"));
    let xs = Tensor::from_vec(&[2, 2], f32s(&want["x"]))?;
    let sess = Session::new(&g)?;
    sess.run(&RunArgs::new().target(&op(&want["init"])))?;
    for k in want["idxs"].as_array().unwrap() {
        let k = k.as_i64().unwrap() as i32;
        let r = sess.run(
            &RunArgs::new()
                .feed(&x, xs.clone())
                .feed(&i, k)
                .fetch(t("y:0"))
                .fetch(t("a:0"))
                .fetch(t("b:0")),
        )?;
        let key = k.to_string();
        close(&r[0].to_vec::<f32>()?, &f32s(&want["ys"][&key]), &key);
        close(&r[1].to_vec::<f32>()?, &f32s(&want["pairs"][&key][0]), &key);
        assert_eq!(
            i64::from(r[2].to_scalar::<i32>()?),
            want["pairs"][&key][1].as_i64().unwrap(),
            "{key}"
        );
    }
    // Only the taken branch bumps the counter: +1 or +100, the last branch for 7.
    let bumps: Vec<i64> = want["bump_idxs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let r = sess.run(
                &RunArgs::new()
                    .feed(&i, k.as_i64().unwrap() as i32)
                    .fetch(t("bumped:0")),
            )?;
            Ok(i64::from(r[0].to_scalar::<i32>()?))
        })
        .collect::<Result<_>>()?;
    let want_bumps: Vec<i64> = want["bumps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(bumps, want_bumps);
    // TensorFlow's own gradient through the Case (a Case on the branches' gradient functions).
    for (k, loss) in want["flags"]
        .as_array()
        .unwrap()
        .iter()
        .zip(f32s(&want["losses"]))
    {
        let r = sess.run(
            &RunArgs::new()
                .feed(&x, xs.clone())
                .feed(&i, k.as_i64().unwrap() as i32)
                .fetch(t(want["loss"].as_str().unwrap()))
                .target(&op(&want["train"])),
        )?;
        close(&[r[0].to_scalar::<f32>()?], &[loss], "loss");
    }
    close(
        &sess
            .eval(t(want["w_read"].as_str().unwrap()))?
            .to_vec::<f32>()?,
        &f32s(&want["w_after"]),
        "w",
    );
    Ok(())
}

#[test]
fn mutated_case_graph_defs_end_in_a_graph_or_an_error_never_a_panic() {
    // The Case lowering reads its branch list, index and signatures from untrusted bytes.
    let binary = std::fs::read(data("case_v2.pb")).unwrap();
    let (imported, refused) = crate::graph_def_import::import_mutations(&binary, None);
    assert!(
        imported > 0 && refused > 0,
        "{imported} imported, {refused} refused"
    );
}
