//! Conds over TensorFlow 1 reference variables: TensorFlow passes a `VariableV2` into a branch
//! through `RefSwitch` (tests/data/tf_graphs/ref_cond_v1.pb, made by make_ref_cond.py there), as
//! a `tf.layers` batch normalization with a training tensor does for its moving averages. Such
//! graphs import and run here with TensorFlow's values, and weir's own conds over variables
//! export in that form (checked by hand: TensorFlow imports and serves them), and read back.

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
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

/// Runs TensorFlow's sequence of `training` feeds on `g` (imported or built) and checks each
/// run's output and variables against TensorFlow's.
fn check_runs(g: &Graph) -> Result<()> {
    let want: Json =
        serde_json::from_str(&std::fs::read_to_string(data("ref_cond_v1.json")).unwrap()).unwrap();
    let t = |n: &str| g.tensor_by_name(n).unwrap();
    let sess = Session::new(g)?;
    sess.run_target(&g.operation_by_name("init").unwrap())?;
    for run in want["runs"].as_array().unwrap() {
        let out = sess.run(
            &RunArgs::new()
                .feed(t("training:0"), run["training"].as_bool().unwrap())
                .fetch(t("out:0")),
        )?;
        assert_eq!(out[0].to_vec::<f32>()?, f32s(&run["out"]), "{run}");
        let vars = sess.run(
            &RunArgs::new()
                .fetch(t("avg/read:0"))
                .fetch(t("count/read:0")),
        )?;
        assert_eq!(vars[0].to_vec::<f32>()?, f32s(&run["avg"]), "{run}");
        assert_eq!(
            i64::from(vars[1].to_scalar::<i32>()?),
            run["count"].as_i64().unwrap()
        );
    }
    Ok(())
}

#[test]
fn tensorflows_refswitch_conds_import_and_assign_as_in_tensorflow() -> Result<()> {
    let gd = GraphDef::decode(&std::fs::read(data("ref_cond_v1.pb")).unwrap()[..]).unwrap();
    assert!(gd.node.iter().any(|n| n.op == "RefSwitch"));
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&gd).name(""))?;
    check_runs(&g)
}

#[test]
fn weirs_conds_over_variables_export_as_refswitch_and_read_back() -> Result<()> {
    let g = Graph::new();
    let training = g
        .new_operation("PlaceholderWithDefault")
        .name("training")
        .input(constant(&g, false)?)
        .attr("dtype", DType::Bool)
        .attr("shape", Shape::scalar())
        .build()?
        .output(0)?;
    let avg = Variable::builder(constant(&g, [1.0f32, 2.0])?)
        .name("avg")
        .build()?;
    let count = Variable::builder(constant(&g, 0i32)?)
        .name("count")
        .build()?;
    let x = constant_named(&g, [3.0f32, 5.0], "x")?;
    let out = cond(
        &training,
        || {
            let a = avg.assign_sub(mul(sub(&avg, &x)?, constant(&g, 0.5f32)?)?)?;
            let c = count.assign_add(constant(&g, 1i32)?)?;
            let _d = g.control_dependencies(&[c.op()])?;
            Ok(vec![identity(&a)?])
        },
        || Ok(vec![identity(&avg)?]),
    )?;
    weir::ops::array::identity_named(&out[0], "out")?;
    weir::ops::state::variables_initializer(&g, &[avg.clone(), count.clone()], "init")?;
    check_runs(&g)?;
    let def = g.as_graph_def(true)?;
    let switches: Vec<_> = def.node.iter().filter(|n| n.op == "RefSwitch").collect();
    assert!(!switches.is_empty(), "the variables go through RefSwitch");
    // Typed as the variable (float, int32), not as weir's resource handle.
    let t = |n: &weir::graph::graph_def::proto::NodeDef| n.attr["T"].value.clone();
    use weir::graph::graph_def::proto::attr_value_proto::Value;
    assert!(switches
        .iter()
        .all(|n| matches!(t(n), Some(Value::Type(1)) | Some(Value::Type(3)))));
    let back = Graph::new();
    import_graph_def(&back, &ImportGraphDef::new(&def).name(""))?;
    check_runs(&back)
}
