//! Conditional accumulators against TensorFlow 2.21: every case of
//! tests/data/data_flow_accumulator/expected.json (made by make_data_flow_accumulator.py there).
//!
//! A scenario replays TensorFlow's steps (apply, take, count, set the global step) one run at a
//! time on one accumulator, fed through placeholders, and checks each step's outputs bit for
//! bit (float16, float32 and float64, MEAN and SUM) or its error's code and message. The other
//! cases check the missing kernels' errors, the errors and node names of graph building, a take
//! that blocks until another thread applied enough gradients, and a GraphDef TensorFlow wrote
//! (all three accumulator kinds) imported and run. The rest are weir's own: a blocked take
//! cancelled by closing the session, shared names, and ops built for another dtype or kind.

use std::time::{Duration, Instant};

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder, IndexArg};
use weir_ops::data_flow::{
    AccumulatorOptions, ConditionalAccumulator, ReductionType, ScalarArg,
    SparseConditionalAccumulator,
};
use weir_session::{RunArgs, Session};

use super::io_util::{expected_cases, LIMIT};

#[path = "data_flow_accumulator/steps.rs"]
mod steps;

use steps::{assert_error, assert_tensor, check_scenario, dtype_of, normalized_message, tensor};

fn cases_of(kinds: &[&str]) -> Vec<Value> {
    let picked: Vec<Value> = expected_cases("data_flow_accumulator")
        .into_iter()
        .filter(|c| kinds.contains(&c["kind"].as_str().unwrap()))
        .collect();
    assert!(!picked.is_empty(), "no {kinds:?} cases");
    picked
}

#[test]
fn dense_accumulators_match_tensorflow() {
    let cases = cases_of(&["dense", "dense_ref"]);
    assert!(cases.len() >= 30, "{} dense scenarios", cases.len());
    super::dtypes_util::check_each(&cases, check_scenario);
}

#[test]
fn sparse_accumulators_match_tensorflow() {
    let cases = cases_of(&["sparse"]);
    assert!(cases.len() >= 18, "{} sparse scenarios", cases.len());
    super::dtypes_util::check_each(&cases, check_scenario);
}

#[test]
fn dtypes_without_kernels_fail_as_in_tensorflow() {
    super::dtypes_util::check_each(&cases_of(&["no_kernel"]), |c| {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let dtype = dtype_of(&c["dtype"]);
        let opts = AccumulatorOptions::new()
            .shape(Shape::known(&[2]))
            .name("acc");
        let count = match c["accumulator"].as_str().unwrap() {
            "sparse" => SparseConditionalAccumulator::with_options(&g, dtype, opts)
                .unwrap()
                .num_accumulated(),
            kind => ConditionalAccumulator::with_options(
                &g,
                dtype,
                opts.ref_handle(kind == "dense_ref"),
            )
            .unwrap()
            .num_accumulated(),
        }
        .unwrap();
        let sess = Session::new(&g).unwrap();
        let e = sess
            .run(&RunArgs::new().fetch(&count).timeout(LIMIT))
            .unwrap_err();
        assert_error(name, &e, &c["error"]);
    });
}

/// Builds the graph of a `build` case as the script does.
fn build(name: &str, g: &Graph) -> Result<()> {
    let f32s = |v: &[f32]| constant(g, v.to_vec());
    match name {
        "node_names" => {
            let acc = ConditionalAccumulator::with_options(
                g,
                DType::F32,
                AccumulatorOptions::new().shape(Shape::known(&[2])),
            )?;
            acc.apply_grad(&f32s(&[1.0, 2.0])?)?;
            acc.apply_grad_with(&f32s(&[1.0, 2.0])?, 3, None)?;
            acc.take_grad(2)?;
            acc.num_accumulated()?;
            acc.set_global_step(4)?;
            let opts = AccumulatorOptions::new()
                .name("second")
                .reduction_type(ReductionType::Sum);
            let acc2 = ConditionalAccumulator::with_options(g, DType::F64, opts)?;
            acc2.num_accumulated()?;
            acc2.num_accumulated_with(Some("count"))?;
            acc2.take_grad_with(1, Some("taken"))?;
            let sp = SparseConditionalAccumulator::with_options(
                g,
                DType::F32,
                AccumulatorOptions::new().shape(Shape::known(&[3, 2])),
            )?;
            let idx = constant(g, vec![0i64, 2])?;
            let vals = constant(g, Tensor::from_vec(&[2, 2], vec![1f32, 2.0, 3.0, 4.0])?)?;
            sp.apply_grad(&idx, &vals)?;
            let shape = IndexArg::Tensor(constant(g, vec![3i64, 2])?);
            let step = constant(g, 2i64)?;
            sp.apply_grad_with(&idx, &vals, Some(shape), &step, None)?;
            sp.take_grad(1)?;
            sp.take_indexed_slices_grad(2)?;
            sp.num_accumulated()?;
            sp.set_global_step(ScalarArg::Tensor(constant(g, 7i64)?))?;
        }
        "static_shape_mismatch" => {
            let opts = AccumulatorOptions::new().shape(Shape::known(&[2, 2]));
            let acc = ConditionalAccumulator::with_options(g, DType::F32, opts)?;
            acc.apply_grad(&f32s(&[1.0, 2.0, 3.0])?)?;
        }
        "static_partial_shape_mismatch" => {
            let opts = AccumulatorOptions::new().shape(Shape::new(vec![None, Some(3)]));
            let acc = ConditionalAccumulator::with_options(g, DType::F32, opts)?;
            acc.apply_grad(&weir_ops::array::zeros(g, DType::F32, &[4, 2])?)?;
        }
        "gradient_dtype_mismatch" => {
            let opts = AccumulatorOptions::new().shape(Shape::known(&[1]));
            let acc = ConditionalAccumulator::with_options(g, DType::F32, opts)?;
            acc.apply_grad(&constant(g, vec![1.0f64])?)?;
        }
        "bad_reduction_type" => {
            weir_ops::register_all_ops();
            g.new_operation("ResourceConditionalAccumulator")
                .attr("dtype", DType::F32)
                .attr("shape", Shape::known(&[2]))
                .attr("reduction_type", "MAX")
                .build()?;
        }
        "local_step_not_scalar" => {
            let opts = AccumulatorOptions::new().shape(Shape::known(&[1]));
            let acc = ConditionalAccumulator::with_options(g, DType::F32, opts)?;
            let step = constant(g, vec![1i64, 2])?;
            acc.apply_grad_with(&f32s(&[1.0])?, &step, None)?;
        }
        "num_required_not_scalar" => {
            let opts = AccumulatorOptions::new().shape(Shape::known(&[1]));
            let acc = ConditionalAccumulator::with_options(g, DType::F32, opts)?;
            acc.take_grad(constant(g, vec![1i32, 2])?)?;
        }
        other => panic!("no build case {other}"),
    }
    Ok(())
}

#[test]
fn graph_building_matches_tensorflow() {
    super::dtypes_util::check_each(&cases_of(&["build"]), |c| {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        match (build(name, &g), c.get("build_error")) {
            (Ok(()), None) => {
                let got: Vec<Value> = g
                    .operations()
                    .iter()
                    .map(|op| {
                        let inputs: Vec<String> = op.inputs().iter().map(Output::name).collect();
                        serde_json::json!([op.name(), op.op_type(), inputs])
                    })
                    .collect();
                assert_eq!(&Value::from(got), &c["nodes"], "{name}");
            }
            (Err(e), Some(want)) => {
                // Python's ValueError is weir's InvalidArgument when the graph is built.
                assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
                assert_eq!(
                    normalized_message(e.message()),
                    normalized_message(want["message"].as_str().unwrap()),
                    "{name}"
                );
            }
            (Ok(()), Some(want)) => panic!("{name}: built, TensorFlow failed with {want}"),
            (Err(e), None) => panic!("{name}: {e}"),
        }
    });
}

#[test]
fn take_grad_blocks_until_another_thread_applied_enough() {
    let c = &cases_of(&["threaded"])[0];
    let g = Graph::new();
    let opts = AccumulatorOptions::new().shape(Shape::known(&[3]));
    let acc = ConditionalAccumulator::with_options(&g, DType::F32, opts).unwrap();
    let p = placeholder(&g, DType::F32, Shape::known(&[3])).unwrap();
    let apply = acc.apply_grad(&p).unwrap();
    let take = acc.take_grad(3).unwrap();
    let count = acc.num_accumulated().unwrap();
    let sess = Session::new(&g).unwrap();
    let grads: Vec<Tensor> = c["grads"].as_array().unwrap().iter().map(tensor).collect();
    let counts_want: Vec<i64> = c["counts_before_each"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        let (sess, take) = (&sess, &take);
        s.spawn(move || {
            let _ = tx.send(sess.run(&RunArgs::new().fetch(take).timeout(LIMIT)));
        });
        let mut counts = Vec::new();
        for gv in &grads {
            std::thread::sleep(Duration::from_millis(100));
            assert!(rx.try_recv().is_err(), "take_grad returned early");
            let n = sess
                .run(&RunArgs::new().fetch(&count).timeout(LIMIT))
                .unwrap();
            counts.push(i64::from(n[0].to_scalar::<i32>().unwrap()));
            let args = RunArgs::new()
                .target(&apply)
                .feed(&p, gv.clone())
                .timeout(LIMIT);
            sess.run(&args).unwrap();
        }
        assert_eq!(counts, counts_want);
        let got = rx
            .recv_timeout(LIMIT)
            .expect("take_grad never returned")
            .unwrap();
        assert_tensor("threaded take", &got[0], &c["value"]);
    });
    let n = sess
        .run(&RunArgs::new().fetch(&count).timeout(LIMIT))
        .unwrap();
    assert_eq!(
        i64::from(n[0].to_scalar::<i32>().unwrap()),
        c["count_after"].as_i64().unwrap()
    );
}

#[test]
fn closing_the_session_cancels_a_blocked_take() {
    let g = Graph::new();
    let acc = SparseConditionalAccumulator::new(&g, DType::F64).unwrap();
    let [indices, _, _] = acc.take_grad(2).unwrap();
    // The session is closed a while after the take starts; should the take not have started by
    // then (a loaded machine), it fails to run at all and the round is tried again, later.
    for round in 1..=5 {
        let sess = Session::new(&g).unwrap();
        let started = Instant::now();
        let got = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(100 * round));
                sess.close();
            });
            sess.run(&RunArgs::new().fetch(&indices).timeout(LIMIT))
        });
        let e = got.unwrap_err();
        if e.is_failed_precondition() {
            continue;
        }
        assert!(e.is_cancelled(), "{e}");
        assert_eq!(
            normalized_message(e.message()),
            "TakeGrad operation was cancelled"
        );
        assert!(started.elapsed() < LIMIT, "the take waited for its timeout");
        return;
    }
    panic!("the take never started before the session closed");
}

#[test]
fn a_shared_name_shares_one_accumulator_between_ops() {
    let g = Graph::new();
    let opts = AccumulatorOptions::new()
        .shape(Shape::known(&[2]))
        .shared_name("grads");
    let a = ConditionalAccumulator::with_options(&g, DType::F32, opts.clone()).unwrap();
    let b = ConditionalAccumulator::with_options(&g, DType::F32, opts.name("b")).unwrap();
    let private = ConditionalAccumulator::new(&g, DType::F32).unwrap();
    let apply = a.apply_grad(&constant(&g, [2.0f32, 4.0]).unwrap()).unwrap();
    let take = b.take_grad(1).unwrap();
    let counts = [
        a.num_accumulated().unwrap(),
        private.num_accumulated().unwrap(),
    ];
    let sess = Session::new(&g).unwrap();
    sess.run(&RunArgs::new().target(&apply).timeout(LIMIT))
        .unwrap();
    let n = sess
        .run(
            &RunArgs::new()
                .fetch(&counts[0])
                .fetch(&counts[1])
                .timeout(LIMIT),
        )
        .unwrap();
    assert_eq!(
        (
            n[0].to_scalar::<i32>().unwrap(),
            n[1].to_scalar::<i32>().unwrap()
        ),
        (1, 0)
    );
    let got = sess
        .run(&RunArgs::new().fetch(&take).timeout(LIMIT))
        .unwrap();
    assert_eq!(got[0].to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
}

#[test]
fn ops_built_for_another_dtype_or_kind_are_refused() {
    let g = Graph::new();
    let acc = ConditionalAccumulator::with_options(
        &g,
        DType::F32,
        AccumulatorOptions::new().shared_name("a"),
    )
    .unwrap();
    let sparse = SparseConditionalAccumulator::with_options(
        &g,
        DType::F32,
        AccumulatorOptions::new().shared_name("s"),
    )
    .unwrap();
    let wrong = weir_ops::data_flow::ConditionalAccumulator::with_options(
        &g,
        DType::F64,
        AccumulatorOptions::new().shared_name("a"),
    )
    .unwrap();
    let apply = wrong.apply_grad(&constant(&g, [1.0f64]).unwrap()).unwrap();
    let take = wrong.take_grad(1).unwrap();
    let on_sparse = g
        .new_operation("ResourceAccumulatorTakeGradient")
        .input(sparse.accumulator_ref())
        .input(constant(&g, 1i32).unwrap())
        .attr("dtype", DType::F32)
        .build()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run(&RunArgs::new().fetch(acc.accumulator_ref()).timeout(LIMIT))
        .unwrap();
    let e = sess
        .run(&RunArgs::new().target(&apply).timeout(LIMIT))
        .unwrap_err();
    assert_eq!(
        normalized_message(e.message()),
        "Signature mismatch, have: resource, int64, double-> expected: resource, int64, float->"
    );
    let e = sess
        .run(&RunArgs::new().fetch(&take).timeout(LIMIT))
        .unwrap_err();
    assert_eq!(
        normalized_message(e.message()),
        "Signature mismatch, have: resource, int32->double expected: resource, int32->float"
    );
    let e = sess
        .run(
            &RunArgs::new()
                .fetch(on_sparse.output(0).unwrap())
                .timeout(LIMIT),
        )
        .unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert!(e.message().contains("holds sparse gradients"), "{e}");
}

#[test]
fn tensorflows_graph_def_imports_and_runs_as_it_did_there() {
    use weir_graph::graph_def::{proto::GraphDef, ImportGraphDef, Message};
    let c = &cases_of(&["graph_def"])[0];
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/data_flow_accumulator/accumulator_graph.pb");
    let def = GraphDef::decode(&std::fs::read(path).unwrap()[..]).unwrap();
    let g = Graph::new();
    weir_ops::import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
    let sess = Session::new(&g).unwrap();
    for (i, r) in c["runs"].as_array().unwrap().iter().enumerate() {
        let names = |key: &str| -> Vec<String> {
            r.get(key).map_or(vec![], |v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect()
            })
        };
        let mut args = RunArgs::new().timeout(LIMIT);
        for f in names("fetches") {
            args = args.fetch_name(&f);
        }
        for t in names("targets") {
            args = args.target_name(&t);
        }
        let got = sess.run(&args).unwrap_or_else(|e| panic!("run {i}: {e}"));
        if let Some(want) = r.get("outputs") {
            for (k, (g, w)) in got.iter().zip(want.as_array().unwrap()).enumerate() {
                assert_tensor(&format!("run {i} output {k}"), g, w);
            }
        }
    }
}
