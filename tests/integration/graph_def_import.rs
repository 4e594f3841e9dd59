//! `tf.import_graph_def`: GraphDefs written by the real TensorFlow (tests/data/tf_graphs, made by
//! its make_graphs.py) imported and run here, compared with the values TensorFlow computed.

use std::path::PathBuf;

use serde_json::Value as Json;
use weir::graph::graph_def::proto::GraphDef;
use weir::graph::graph_def::{parse_text, to_text, Message};
use weir::prelude::*;
use weir::Code;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tf_graphs")
        .join(name)
}

fn graph_def(name: &str) -> GraphDef {
    GraphDef::decode(&std::fs::read(data(name)).unwrap()[..]).unwrap()
}

fn expected() -> Json {
    serde_json::from_str(&std::fs::read_to_string(data("expected.json")).unwrap()).unwrap()
}

fn f32s(v: &Json) -> Vec<f32> {
    let mut out = Vec::new();
    match v {
        Json::Array(a) => a.iter().for_each(|x| out.extend(f32s(x))),
        x => out.push(x.as_f64().unwrap() as f32),
    }
    out
}

#[test]
fn constants_in_every_layout_tensorflow_writes_read_back_exactly() -> Result<()> {
    let g = Graph::new();
    let ops = import_graph_def(
        &g,
        &ImportGraphDef::new(&graph_def("constants.pb")).name(""),
    )?;
    assert_eq!(ops.len(), 8);
    let sess = Session::new(&g)?;
    let want = &expected()["constants"];
    let get = |name: &str| {
        sess.eval(g.tensor_by_name(&format!("{name}:0")).unwrap())
            .unwrap()
    };
    assert_eq!(get("f_scalar").to_scalar::<f32>()?, 2.5);
    let m = get("f_matrix");
    assert_eq!(
        (m.shape(), m.to_vec::<f32>()?),
        (&[1usize, 3][..], f32s(&want["f_matrix"]))
    );
    // One value written for six elements: repeated, as TensorFlow reads it.
    let filled = get("i64_filled");
    assert_eq!(
        (filled.shape(), filled.to_vec::<i64>()?),
        (&[2usize, 3][..], vec![7i64; 6])
    );
    assert_eq!(get("i32").to_vec::<i32>()?, [1, -2, 3]);
    assert_eq!(get("u8").to_vec::<u8>()?, [200, 3]);
    assert_eq!(get("bools").to_vec::<bool>()?, [true, false, true]);
    assert_eq!(get("f64").to_scalar::<f64>()?, 3.0);
    let strings: Vec<Vec<u8>> = get("strings")
        .as_slice::<Bytes>()?
        .iter()
        .map(|b| b.to_vec())
        .collect();
    // expected.json holds the bytes as latin-1 characters.
    let want_strings: Vec<Vec<u8>> = want["strings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().chars().map(|c| c as u8).collect())
        .collect();
    assert_eq!(strings, want_strings);
    Ok(())
}

#[test]
fn a_tensorflow_training_graph_with_ref_variables_trains_to_tensorflows_losses() -> Result<()> {
    let want = &expected()["softmax_train"];
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&graph_def("softmax_train.pb")))?;
    let t = |name: &str| g.tensor_by_name(&format!("import/{name}")).unwrap();
    let op = |name: &str| g.operation_by_name(&format!("import/{name}")).unwrap();
    // TensorFlow's variable read, an Identity of the ref, is weir's ReadVariableOp here.
    assert_eq!(op("w/read").op_type(), "ReadVariableOp");
    let sess = Session::new(&g)?;
    sess.run(&RunArgs::new().target(&op("init")))?;
    let xs = Tensor::from_vec(&[2, 4], f32s(&want["x"]))?;
    let ys = Tensor::from(
        want["y"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap() as i32)
            .collect::<Vec<_>>(),
    );
    let args = RunArgs::new()
        .feed(t("x:0"), xs)
        .feed(t("y:0"), ys)
        .fetch(t("loss:0"))
        .target(&op("train"));
    for (step, w) in f32s(&want["losses"]).into_iter().enumerate() {
        let got = sess.run(&args)?[0].to_scalar::<f32>()?;
        assert!(
            (got - w).abs() <= 1e-6 * w.abs().max(1.0),
            "step {step}: {got} vs {w}"
        );
    }
    let w_after = sess.eval(t("w/read:0"))?.to_vec::<f32>()?;
    for (a, b) in w_after.iter().zip(f32s(&want["w_after"])) {
        assert!((a - b).abs() <= 1e-6, "{w_after:?}");
    }
    Ok(())
}

#[test]
fn input_map_replaces_an_imported_input_and_a_second_import_gets_its_own_prefix() -> Result<()> {
    let want = &expected()["softmax_train"];
    let g = Graph::new();
    let xs = constant(&g, Tensor::from_vec(&[2, 4], f32s(&want["x"]))?)?;
    let def = graph_def("softmax_train.pb");
    import_graph_def(&g, &ImportGraphDef::new(&def))?;
    import_graph_def(&g, &ImportGraphDef::new(&def).input_map("x", &xs))?;
    let op = |name: &str| g.operation_by_name(name).unwrap();
    let sess = Session::new(&g)?;
    sess.run(&RunArgs::new().target(&op("import_1/init")))?;
    let ys = Tensor::from(vec![2i32, 0]);
    let loss = g.tensor_by_name("import_1/loss:0")?;
    let y = g.tensor_by_name("import_1/y:0")?;
    let got = sess.run(&RunArgs::new().feed(&y, ys).fetch(&loss))?[0].to_scalar::<f32>()?;
    let first = f32s(&want["losses"])[0];
    assert!((got - first).abs() <= 1e-6, "{got} vs {first}");
    Ok(())
}

#[test]
fn a_weir_graph_round_trips_through_its_graph_def() -> Result<()> {
    let g = Graph::new();
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(2)]))
        .name("x")
        .build(&g)?;
    let w = Variable::builder(constant(
        &g,
        Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?,
    )?)
    .name("w")
    .build()?;
    let y = reduce_sum(&x.matmul(w.value())?, [1])?;
    let def = g.as_graph_def(true)?;
    // The read is exported as TensorFlow 1.x writes it.
    let read = def
        .node
        .iter()
        .find(|n| n.name == w.value().op().name())
        .unwrap();
    assert_eq!(read.op, "Identity");
    // TensorFlow checks _output_shapes on import: its VariableV2 outputs a ref of the
    // variable's shape, where weir's outputs a scalar handle.
    let var = def.node.iter().find(|n| n.name == "w").unwrap();
    let Some(weir::graph::graph_def::proto::attr_value_proto::Value::List(l)) =
        &var.attr["_output_shapes"].value
    else {
        panic!("{var:?}");
    };
    let dims: Vec<i64> = l.shape[0].dim.iter().map(|d| d.size).collect();
    assert_eq!(dims, [2, 2]);

    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let sess = Session::new(&h)?;
    sess.run(&RunArgs::new().target(&h.operation_by_name(&w.initializer().name()).unwrap()))?;
    let xs = Tensor::from_vec(&[1, 2], vec![1.0f32, 1.0])?;
    let got = sess.run(
        &RunArgs::new()
            .feed(h.tensor_by_name("x:0")?, xs)
            .fetch(h.tensor_by_name(&y.name())?),
    )?;
    assert_eq!(got[0].to_vec::<f32>()?, [10.0]);
    Ok(())
}

#[test]
fn bad_graph_defs_are_refused_naming_the_node() {
    let g = Graph::new();
    let mut def = graph_def("constants.pb");
    def.node[0].op = "NoSuchOp".to_string();
    let err = import_graph_def(&g, &ImportGraphDef::new(&def)).unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "{err}");
    assert!(
        err.to_string().contains("NoSuchOp") && err.to_string().contains("f_scalar"),
        "{err}"
    );

    let mut def = graph_def("softmax_train.pb");
    let n = def.node.iter().position(|n| n.name == "logits").unwrap();
    def.node[n].input[0] = "nowhere:0".to_string();
    let err = import_graph_def(&g, &ImportGraphDef::new(&def)).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err}");
    assert!(err.to_string().contains("nowhere"), "{err}");

    // A cycle: the product reads the sum that reads it.
    let mut def = graph_def("softmax_train.pb");
    let mm = def.node.iter().position(|n| n.name == "MatMul").unwrap();
    def.node[mm].input[0] = "logits".to_string();
    let err = import_graph_def(&g, &ImportGraphDef::new(&def)).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err}");
    assert!(err.to_string().contains("cycle"), "{err}");
}

#[test]
fn tensorflows_text_graph_def_reads_as_its_binary_one() {
    let text = std::fs::read_to_string(data("softmax_train.pbtxt")).unwrap();
    let parsed = parse_text(&text).unwrap();
    assert_eq!(parsed, graph_def("softmax_train.pb"));
    // And weir's own text reads back to the same message.
    assert_eq!(parse_text(&to_text(&parsed)).unwrap(), parsed);
}

#[test]
fn text_graph_defs_that_are_not_refuse_with_line_and_column() {
    for (text, words) in [
        (
            "node { name: \"a\" colour: 3 }",
            "line 1 column 26: NodeDef has no field named \"colour\"",
        ),
        (
            "node {\n  name: \"a\n}",
            "line 2 column 9: newline in a string",
        ),
        (
            "node { name: \"a\\q\" }",
            "line 1 column 14: unknown escape \\q",
        ),
        ("node { name: \"a\" ", "missing '}'"),
        (
            "node { attr { key: \"T\" value { type: DT_NOPE } } }",
            "unknown DataType DT_NOPE",
        ),
        ("versions { producer: x1 }", "expects an integer"),
        (&"a { ".repeat(100_000), "nested deeper than 100"),
    ] {
        let err = parse_text(text).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{text}: {err}");
        assert!(err.message().contains(words), "{text}: {err}");
    }
}

/// Bytes of `base` with a few replaced, inserted or removed, from a small LCG.
fn mutate(base: &[u8], seed: u64) -> Vec<u8> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |n: usize| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 33) as usize) % n.max(1)
    };
    let mut v = base.to_vec();
    for _ in 0..1 + next(4) {
        let at = next(v.len());
        match next(3) {
            0 => v[at] = next(256) as u8,
            1 => v.insert(at, next(256) as u8),
            _ => {
                v.remove(at);
            }
        }
    }
    v
}

/// Imports 1,500 mutations of `binary` (and of `text`, a text GraphDef, when given): how many
/// imported and how many were refused. A panic fails the calling test.
pub(crate) fn import_mutations(binary: &[u8], text: Option<&[u8]>) -> (usize, usize) {
    let (mut imported, mut refused) = (0, 0);
    for seed in 0..1500u64 {
        let defs = [
            GraphDef::decode(&mutate(binary, seed)[..]).ok(),
            text.and_then(|t| String::from_utf8(mutate(t, seed)).ok())
                .and_then(|t| parse_text(&t).ok()),
        ];
        for def in defs.into_iter().flatten() {
            match import_graph_def(&Graph::new(), &ImportGraphDef::new(&def)) {
                Ok(_) => imported += 1,
                Err(_) => refused += 1,
            }
        }
    }
    (imported, refused)
}

#[test]
fn mutated_graph_defs_end_in_a_graph_or_an_error_never_a_panic() {
    let binary = std::fs::read(data("softmax_train.pb")).unwrap();
    let text = std::fs::read(data("softmax_train.pbtxt")).unwrap();
    let (imported, refused) = import_mutations(&binary, Some(&text));
    // Both outcomes happen: the mutations reach the importer, not only the decoders.
    assert!(
        imported > 0 && refused > 0,
        "{imported} imported, {refused} refused"
    );
}

#[test]
fn a_constant_claiming_a_huge_shape_is_refused_not_allocated() {
    let mut def = graph_def("constants.pb");
    let n = def
        .node
        .iter_mut()
        .find(|n| n.name == "i64_filled")
        .unwrap();
    let Some(weir::graph::graph_def::proto::attr_value_proto::Value::Tensor(t)) =
        &mut n.attr.get_mut("value").unwrap().value
    else {
        panic!("no tensor");
    };
    t.tensor_shape.as_mut().unwrap().dim[0].size = 1 << 40;
    let err = import_graph_def(&Graph::new(), &ImportGraphDef::new(&def)).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err}");
    assert!(err.to_string().contains("i64_filled"), "{err}");
}

/// A softmax classifier as weir users build it: get_variable's default (glorot uniform)
/// initializer, a reduce_mean loss and GradientDescent, whose gradient uses ReducedShape.
fn weir_softmax(g: &Graph) -> Result<(Output, Operation, Operation, Variable)> {
    g.set_random_seed(42);
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(4)]))
        .name("x")
        .build(g)?;
    let y = Placeholder::new(DType::I32)
        .shape(Shape::new(vec![None]))
        .name("y")
        .build(g)?;
    let w = get_variable(g, "w", &[4, 3])?;
    let logits = x.matmul(w.value())?;
    let xent = weir::ops::nn::sparse_softmax_cross_entropy_with_logits(&y, &logits)?;
    let loss = reduce_mean(&xent, [0])?;
    let train = GradientDescentOptimizer::new(0.5).minimize(&loss, None, None)?;
    let init = global_variables_initializer(g)?;
    Ok((loss, train, init, w))
}

#[test]
fn weirs_composite_ops_export_as_tensorflows_ops_and_compute_the_same() -> Result<()> {
    let g = Graph::new();
    let (loss, train, init, w) = weir_softmax(&g)?;
    let def = g.as_graph_def(true)?;
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    for weir_only in ["ReducedShape", "RandomInitializer", "ReadVariableOp"] {
        assert!(!ops.contains(&weir_only), "{weir_only} exported: {ops:?}");
    }
    for tf in ["DynamicStitch", "FloorMod", "RandomUniform"] {
        assert!(ops.contains(&tf), "{tf} missing: {ops:?}");
    }

    // The TensorFlow form, imported back, draws the same initial weights (same seeds, same
    // generator) and trains to the same losses.
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let xs = Tensor::from_vec(&[2, 4], vec![1.0f32, 2.0, 3.0, 4.0, -1.0, 0.5, 0.0, 2.0])?;
    let ys = Tensor::from(vec![2i32, 0]);
    let (a, b) = (Session::new(&g)?, Session::new(&h)?);
    a.run(&RunArgs::new().target(&init))?;
    b.run(&RunArgs::new().target(&h.operation_by_name(&init.name()).unwrap()))?;
    let w_b = h.tensor_by_name(&w.value().name())?;
    assert_eq!(
        a.eval(w.value())?.to_vec::<f32>()?,
        b.eval(&w_b)?.to_vec::<f32>()?
    );
    let step = |s: &Session, gr: &Graph| -> Result<f32> {
        let r = s.run(
            &RunArgs::new()
                .feed(gr.tensor_by_name("x:0")?, xs.clone())
                .feed(gr.tensor_by_name("y:0")?, ys.clone())
                .fetch(gr.tensor_by_name(&loss.name())?)
                .target(&gr.operation_by_name(&train.name()).unwrap()),
        )?;
        r[0].to_scalar::<f32>()
    };
    for _ in 0..3 {
        assert_eq!(step(&a, &g)?, step(&b, &h)?);
    }
    Ok(())
}

#[test]
fn decay_schedules_dropout_and_sigmoid_losses_export_as_tensorflow_ops_with_the_same_values(
) -> Result<()> {
    let g = Graph::new();
    let step = Placeholder::new(DType::I64)
        .shape(Shape::scalar())
        .name("step")
        .build(&g)?;
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![Some(3), Some(4)]))
        .name("x")
        .build(&g)?;
    let z = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![Some(3), Some(4)]))
        .name("z")
        .build(&g)?;
    let smooth = exponential_decay(0.1, &step, 10.0, 0.5, false)?;
    let stairs = exponential_decay(0.1, &step, 10.0, 0.5, true)?;
    let pieces = piecewise_constant(&step, vec![5i64, 20], vec![1.0f32, 0.5, 0.1])?;
    let kept = weir::ops::nn::Dropout::new()
        .seed(7)
        .build(&x, constant(&g, 0.6f32)?)?;
    let xent = weir::ops::nn::sigmoid_cross_entropy_with_logits(&z, &kept)?;
    let loss = reduce_sum(&xent, [0, 1])?;
    let grad = gradients(std::slice::from_ref(&loss), std::slice::from_ref(&x), None)?
        .remove(0)
        .unwrap();
    let fetched = [&smooth, &stairs, &pieces, &kept, &loss, &grad];

    let def = g.as_graph_def(true)?;
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    for weir_only in [
        "ExponentialDecay",
        "PiecewiseConstant",
        "Dropout",
        "DropoutGrad",
        "SigmoidCrossEntropyWithLogits",
        "SigmoidCrossEntropyWithLogitsGrad",
    ] {
        assert!(!ops.contains(&weir_only), "{weir_only} exported: {ops:?}");
    }
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let (a, b) = (Session::new(&g)?, Session::new(&h)?);
    let xs = Tensor::from_vec(&[3, 4], (0..12).map(|i| i as f32 * 0.37 - 2.0).collect())?;
    let zs = Tensor::from_vec(&[3, 4], (0..12).map(|i| (i % 2) as f32).collect())?;
    for s in [0i64, 5, 6, 15, 20, 21, 35] {
        let run = |sess: &Session, gr: &Graph| -> Result<Vec<Tensor>> {
            let mut args = RunArgs::new()
                .feed(gr.tensor_by_name("step:0")?, Tensor::scalar(s))
                .feed(gr.tensor_by_name("x:0")?, xs.clone())
                .feed(gr.tensor_by_name("z:0")?, zs.clone());
            for t in fetched {
                args = args.fetch(gr.tensor_by_name(&t.name())?);
            }
            sess.run(&args)
        };
        let (want, got) = (run(&a, &g)?, run(&b, &h)?);
        for (i, (w, o)) in want.iter().zip(&got).enumerate() {
            let (w, o) = (w.to_vec::<f32>()?, o.to_vec::<f32>()?);
            assert_eq!(w.len(), o.len());
            for (p, q) in w.iter().zip(&o) {
                assert!(
                    (p - q).abs() <= 1e-6 * p.abs().max(1.0),
                    "step {s}, fetch {i}: {w:?} vs {o:?}"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn tensorflow_2s_resource_variable_graph_trains_to_tensorflows_losses() -> Result<()> {
    let want = &expected()["resource_adam"];
    let def = graph_def("resource_adam.pb");
    // What TensorFlow 2's tf.compat.v1 writes for a variable and Adam.
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    for op in [
        "VarHandleOp",
        "AssignVariableOp",
        "ResourceApplyAdam",
        "VarIsInitializedOp",
    ] {
        assert!(ops.contains(&op), "{op} not in {ops:?}");
    }
    let read_w = def
        .node
        .iter()
        .find(|n| n.op == "ReadVariableOp" && n.input.first().map(String::as_str) == Some("w"))
        .expect("a read of w")
        .name
        .clone();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&def).name(""))?;
    let sess = Session::new(&g)?;
    let op = |name: &str| g.operation_by_name(name).unwrap();
    sess.run(&RunArgs::new().target(&op("init")))?;
    let xs = Tensor::from_vec(&[2, 4], f32s(&want["x"]))?;
    let ys = Tensor::from(vec![2i32, 0]);
    let args = RunArgs::new()
        .feed(g.tensor_by_name("x:0")?, xs)
        .feed(g.tensor_by_name("y:0")?, ys)
        .fetch(g.tensor_by_name("loss:0")?)
        .target(&op("train"));
    for (step, w) in f32s(&want["losses"]).into_iter().enumerate() {
        let got = sess.run(&args)?[0].to_scalar::<f32>()?;
        assert!(
            (got - w).abs() <= 1e-6 * w.abs().max(1.0),
            "step {step}: {got} vs {w}"
        );
    }
    let w_after = sess
        .eval(g.tensor_by_name(&format!("{read_w}:0"))?)?
        .to_vec::<f32>()?;
    for (a, b) in w_after.iter().zip(f32s(&want["w_after"])) {
        assert!((a - b).abs() <= 1e-5, "{w_after:?}");
    }
    Ok(())
}
