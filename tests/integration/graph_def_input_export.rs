//! weir's input-pipeline ops exported for TensorFlow. The private ops of the input producers
//! (`_AssertNonEmpty`, `_RangeTo`, `_Dim0`, `_GatherRow`) and the one-kernel
//! image ops (`PerImageStandardization`, `ConvertImageDtype`) are written as the ops
//! TensorFlow's Python builds in their place, and the exported graph, imported back, produces
//! what the original does. (TensorFlow 2.21 ran the same exports by hand: see the commits.)

use std::time::Duration;

use weir::graph::graph_def::proto::GraphDef;
use weir::prelude::*;
use weir::Code;

const WAIT: Duration = Duration::from_secs(20);

/// string_input_producer over `names` (in order, one epoch) and slice_input_producer over a
/// range of ints (in order, one epoch); returns the two dequeued values.
fn producers(g: &Graph, names: &Output) -> Result<(Output, Output)> {
    let files = StringInputProducer::new(names)
        .shuffle(false)
        .num_epochs(1)
        .build()?;
    let file = files.dequeue()?[0].clone();
    // Rows of a statically unknown count, so the producer takes it from the shape at run time.
    let rows = placeholder_with_default(
        constant(g, Tensor::from_vec(&[3, 2], vec![1i64, 2, 3, 4, 5, 6])?)?,
        Shape::new(vec![None, Some(2)]),
    )?;
    let row = SliceInputProducer::new(&[rows])
        .shuffle(false)
        .num_epochs(1)
        .build()?;
    Ok((file, row[0].clone()))
}

/// The variables' initializers of `g`: its `Assign` ops (an imported graph has no variable
/// collections, as in TensorFlow, where they live in the MetaGraph).
fn initializers(g: &Graph) -> Vec<Operation> {
    g.operations()
        .into_iter()
        .filter(|op| op.op_type() == "Assign")
        .collect()
}

/// Runs the initializers and the runners of `g`, then fetches `out` until OutOfRange.
fn drain(g: &Graph, out: &Output) -> Result<Vec<Tensor>> {
    let sess = Session::new(g)?;
    for op in initializers(g) {
        sess.run(&RunArgs::new().target(&op))?;
    }
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess.handle(), &coord)?;
    let mut got = Vec::new();
    loop {
        match sess.run(&RunArgs::new().fetch(out).timeout(WAIT)) {
            Ok(mut v) => got.push(v.remove(0)),
            Err(e) if e.code() == Code::OutOfRange => break,
            Err(e) => panic!("{e}"),
        }
    }
    coord.request_stop(None)?;
    coord.join(&threads, Duration::from_secs(10))?;
    Ok(got)
}

#[test]
fn input_producers_export_without_private_ops_and_reimport_to_the_same_values() -> Result<()> {
    let g = Graph::new();
    let names = constant(&g, Tensor::from(vec!["a", "b", "c"]))?;
    let (file, row) = producers(&g, &names)?;
    let def: GraphDef = g.as_graph_def(false)?;
    let private: Vec<&str> = def
        .node
        .iter()
        .filter(|n| n.op.starts_with('_'))
        .map(|n| n.op.as_str())
        .collect();
    assert!(private.is_empty(), "private ops exported: {private:?}");
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    for want in ["Assert", "Size", "Greater", "Range", "GatherV2", "Shape"] {
        assert!(ops.contains(&want), "no {want} in {ops:?}");
    }

    // The original's values, then the re-imported graph's.
    let files = drain(&g, &file)?;
    let rows = drain(&g, &row)?;
    let g2 = Graph::new();
    import_graph_def(&g2, &ImportGraphDef::new(&def).name(""))?;
    let same = |out: &Output| g2.tensor_by_name(&out.name()).unwrap();
    // The queue runners are not in a GraphDef: made again for the imported queues.
    for qr in weir::train::queue_runners(&g, None) {
        let queue = Queue::from_operation(&g2.operation_by_name(&qr.name()).unwrap())?;
        let enqueues: Vec<Operation> = qr
            .enqueue_ops()
            .iter()
            .map(|op| g2.operation_by_name(&op.name()).unwrap())
            .collect();
        weir::train::add_queue_runner(&QueueRunner::new(&queue, &enqueues)?, None);
    }
    assert_eq!(drain(&g2, &same(&file))?, files);
    assert_eq!(drain(&g2, &same(&row))?, rows);
    assert_eq!(files.len(), 3);
    assert_eq!(rows.len(), 3);

    // The exported check keeps TensorFlow's message for an empty list.
    let g4 = Graph::new();
    let empty = constant_named(&g4, Tensor::from(Vec::<Bytes>::new()), "empty")?;
    import_graph_def(
        &g4,
        &ImportGraphDef::new(&def)
            .name("")
            .input_map(&names.name(), &empty),
    )?;
    let sess = Session::new(&g4)?;
    let enqueue = g4
        .operation_by_name("input_producer/input_producer_EnqueueMany")
        .unwrap();
    for op in initializers(&g4) {
        sess.run(&RunArgs::new().target(&op))?;
    }
    let e = sess
        .run(&RunArgs::new().target(&enqueue).timeout(WAIT))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("assertion failed: [string_input_producer requires a non-null input tensor]"),
        "{e}"
    );
    Ok(())
}

#[test]
fn per_image_standardization_exports_as_tensorflows_ops_with_the_same_values() -> Result<()> {
    let g = Graph::new();
    let images = Placeholder::new(DType::U8)
        .shape(Shape::new(vec![None, Some(4), Some(4), Some(3)]))
        .name("images")
        .build(&g)?;
    let out = per_image_standardization(&images)?;
    let def = g.as_graph_def(false)?;
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    assert!(!ops.contains(&"PerImageStandardization"), "{ops:?}");
    for tf in [
        "Mean",
        "Square",
        "Sqrt",
        "Rsqrt",
        "Maximum",
        "RealDiv",
        "StridedSlice",
    ] {
        assert!(ops.contains(&tf), "no {tf} in {ops:?}");
    }
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    // Two varied images and a uniform one (whose deviation is the rsqrt(N) floor).
    let mut pixels: Vec<u8> = (0..2 * 48).map(|i| ((i * 37) % 251) as u8).collect();
    pixels.extend([9u8; 48]);
    let batch = Tensor::from_vec(&[3, 4, 4, 3], pixels)?;
    let run = |gr: &Graph| -> Result<Vec<f32>> {
        let s = Session::new(gr)?;
        s.run(
            &RunArgs::new()
                .feed(gr.tensor_by_name("images:0")?, batch.clone())
                .fetch(gr.tensor_by_name(&out.name())?),
        )?[0]
            .to_vec::<f32>()
    };
    let (want, got) = (run(&g)?, run(&h)?);
    assert_eq!(want.len(), got.len());
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert!((w - g).abs() <= 1e-5 * w.abs().max(1.0), "{i}: {w} vs {g}");
    }
    assert!(got[96..].iter().all(|&v| v == 0.0));
    Ok(())
}

/// The images each `convert_image_dtype` case of the test below converts, one per source type.
fn images_of(d: DType) -> Result<Tensor> {
    let t = match d {
        DType::U8 => Tensor::from(vec![0u8, 1, 127, 128, 200, 255]),
        DType::I8 => Tensor::from(vec![-128i8, -5, 0, 1, 64, 127]),
        DType::U16 => Tensor::from(vec![0u16, 1, 255, 256, 40000, 65535]),
        DType::I32 => Tensor::from(vec![-7i32, 0, 1, 1 << 20, 1 << 30, i32::MAX]),
        DType::I64 => Tensor::from(vec![-1i64, 0, 1 << 40, 1 << 56, 1 << 62, i64::MAX]),
        DType::F32 => Tensor::from(vec![-0.25f32, 0.0, 0.1, 0.5, 0.999, 1.5]),
        _ => Tensor::from(vec![-0.25f64, 0.0, 0.1, 0.5, 0.999, 1.5]),
    };
    Ok(t)
}

#[test]
fn convert_image_dtype_exports_as_tensorflows_ops_with_the_same_values() -> Result<()> {
    let cases = [
        (DType::U8, DType::F32, false),
        (DType::U16, DType::F64, false),
        (DType::F32, DType::U8, true),
        (DType::F64, DType::I16, true),
        (DType::F32, DType::F64, false),
        (DType::I32, DType::U8, true),
        (DType::I64, DType::U8, false),
        (DType::U8, DType::I32, false),
        (DType::I8, DType::U16, true),
        (DType::U8, DType::U16, false),
    ];
    let g = Graph::new();
    let mut outs = Vec::new();
    for (k, &(from, to, saturate)) in cases.iter().enumerate() {
        let image = Placeholder::new(from)
            .name(&format!("image{k}"))
            .build(&g)?;
        let out = weir::ops::image::ConvertImageDtype::new(to)
            .saturate(saturate)
            .build(&image)?;
        outs.push((image, out));
    }
    let def = g.as_graph_def(false)?;
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    assert!(!ops.contains(&"ConvertImageDtype"), "{ops:?}");
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let (a, b) = (Session::new(&g)?, Session::new(&h)?);
    for ((image, out), (from, to, saturate)) in outs.iter().zip(cases) {
        let run = |s: &Session, gr: &Graph| -> Result<Tensor> {
            Ok(s.run(
                &RunArgs::new()
                    .feed(gr.tensor_by_name(&image.name())?, images_of(from)?)
                    .fetch(gr.tensor_by_name(&out.name())?),
            )?
            .remove(0))
        };
        let (want, got) = (run(&a, &g)?, run(&b, &h)?);
        assert_eq!(got.dtype(), to);
        assert_eq!(want, got, "{from} -> {to}, saturate {saturate}");
    }
    Ok(())
}

#[test]
fn random_crop_exports_as_tensorflows_ops_drawing_the_same_windows() -> Result<()> {
    let g = Graph::new();
    let image = Placeholder::new(DType::U8)
        .shape(Shape::new(vec![None, None, Some(3)]))
        .name("image")
        .build(&g)?;
    let patch = weir::ops::random::RandomCrop::new(&[3, 4, 3])
        .seed(5)
        .build(&image)?;
    let def = g.as_graph_def(false)?;
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    assert!(!ops.contains(&"RandomCropAnyRank"), "{ops:?}");
    for tf in ["Assert", "RandomUniformInt", "FloorMod", "Slice"] {
        assert!(ops.contains(&tf), "no {tf} in {ops:?}");
    }
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let pixels: Vec<u8> = (0..8 * 9 * 3).map(|i| (i % 256) as u8).collect();
    let image_t = Tensor::from_vec(&[8, 9, 3], pixels)?;
    let (a, b) = (Session::new(&g)?, Session::new(&h)?);
    let crop = |s: &Session, gr: &Graph, t: &Tensor| -> Result<Tensor> {
        Ok(s.run(
            &RunArgs::new()
                .feed(gr.tensor_by_name("image:0")?, t.clone())
                .fetch(gr.tensor_by_name(&patch.name())?),
        )?
        .remove(0))
    };
    // The same generator, seeds and draws: the same windows, run after run.
    let mut windows = Vec::new();
    for _ in 0..4 {
        let (want, got) = (crop(&a, &g, &image_t)?, crop(&b, &h, &image_t)?);
        assert_eq!(want, got);
        windows.push(want);
    }
    assert!(
        windows.windows(2).any(|w| w[0] != w[1]),
        "the windows never moved"
    );
    // Too small an image: TensorFlow's assertion, from the exported Assert.
    let small = Tensor::from_vec(&[2, 9, 3], vec![0u8; 54])?;
    let e = crop(&b, &h, &small).unwrap_err();
    assert!(
        e.to_string()
            .contains("assertion failed: [Need value.shape >= size, got ] [2 9 3] [3 4 3]"),
        "{e}"
    );
    Ok(())
}

#[test]
fn random_flips_export_as_tensorflows_ops_flipping_the_same_images() -> Result<()> {
    let g = Graph::new();
    let one = Placeholder::new(DType::U8)
        .shape(Shape::new(vec![None, None, Some(2)]))
        .name("one")
        .build(&g)?;
    let batch = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(2), Some(3), Some(1)]))
        .name("batch")
        .build(&g)?;
    let outs = [
        random_flip_left_right(&one, Some(3))?,
        random_flip_up_down(&one, Some(4))?,
        random_flip_left_right(&batch, Some(5))?,
        random_flip_up_down(&batch, Some(6))?,
    ];
    let def = g.as_graph_def(false)?;
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    for weir_only in ["RandomFlipLeftRight", "RandomFlipUpDown"] {
        assert!(!ops.contains(&weir_only), "{ops:?}");
    }
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let one_t = Tensor::from_vec(&[2, 3, 2], (0..12u8).collect())?;
    let batch_t = Tensor::from_vec(&[6, 2, 3, 1], (0..36).map(|v| v as f32).collect())?;
    let (a, b) = (Session::new(&g)?, Session::new(&h)?);
    let run = |s: &Session, gr: &Graph| -> Result<Vec<Tensor>> {
        let mut args = RunArgs::new()
            .feed(gr.tensor_by_name("one:0")?, one_t.clone())
            .feed(gr.tensor_by_name("batch:0")?, batch_t.clone());
        for o in &outs {
            args = args.fetch(gr.tensor_by_name(&o.name())?);
        }
        s.run(&args)
    };
    let mut seen = Vec::new();
    for _ in 0..10 {
        let (want, got) = (run(&a, &g)?, run(&b, &h)?);
        assert_eq!(want, got);
        seen.push(want);
    }
    // Over ten runs (with these seeds) the draws move: each single image was both flipped and
    // kept, and each batch came out differently.
    for k in 0..outs.len() {
        if k < 2 {
            assert!(seen.iter().any(|r| r[k] != one_t), "op {k} never flipped");
            assert!(seen.iter().any(|r| r[k] == one_t), "op {k} always flipped");
        } else {
            assert!(
                seen.iter().any(|r| r[k] != seen[0][k]),
                "op {k} never changed"
            );
        }
    }
    Ok(())
}

#[test]
fn variable_checks_export_as_tensorflows_ops() -> Result<()> {
    let g = Graph::new();
    let w = Variable::builder(constant(&g, vec![1.0f32, 2.0])?)
        .name("w")
        .build()?;
    let step = Variable::builder(constant(&g, 0i64)?)
        .name("step")
        .build()?;
    let ready = report_uninitialized_variables(&g, None)?;
    let w_ready = w.is_initialized()?;
    let def = g.as_graph_def(false)?;
    assert!(
        def.node
            .iter()
            .all(|n| n.op != "ReportUninitializedVariables"),
        "weir's op exported"
    );
    // TensorFlow's IsVariableInitialized names the variable's dtype.
    for n in def.node.iter().filter(|n| n.op == "IsVariableInitialized") {
        assert!(n.attr.contains_key("dtype"), "{} has no dtype", n.name);
    }
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let s = Session::new(&h)?;
    let names = |s: &Session| -> Result<Vec<String>> {
        s.eval(h.tensor_by_name(&ready.name())?)?.to_strings()
    };
    assert_eq!(names(&s)?, ["w", "step"]);
    assert!(!s
        .eval(h.tensor_by_name(&w_ready.name())?)?
        .to_scalar::<bool>()?);
    s.run(&RunArgs::new().target(&h.operation_by_name(&w.initializer().name()).unwrap()))?;
    assert_eq!(names(&s)?, ["step"]);
    assert!(s
        .eval(h.tensor_by_name(&w_ready.name())?)?
        .to_scalar::<bool>()?);
    s.run(&RunArgs::new().target(&h.operation_by_name(&step.initializer().name()).unwrap()))?;
    assert!(names(&s)?.is_empty());
    Ok(())
}

#[test]
fn parse_example_exports_as_tensorflow_2s_parse_example_v2() -> Result<()> {
    let g = Graph::new();
    let many = Placeholder::new(DType::String)
        .shape(Shape::new(vec![None]))
        .name("many")
        .build(&g)?;
    let one = Placeholder::new(DType::String)
        .shape(Shape::scalar())
        .name("one")
        .build(&g)?;
    let features = Features::new()
        .add(
            "label",
            FixedLenFeature::new(&[], DType::I64).default(Tensor::from(-1i64)),
        )
        .add("weights", VarLenFeature::new(DType::F32))
        .add("pixels", FixedLenFeature::new(&[2], DType::F32));
    let batch = parse_example(&many, &features)?;
    let single = parse_single_example(&one, &features)?;
    let def = g.as_graph_def(false)?;
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    assert!(!ops.contains(&"ParseExample"), "{ops:?}");
    assert!(ops.contains(&"ParseExampleV2"), "{ops:?}");
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let ex = |label: Option<i64>, w: Vec<f32>| {
        let mut b = Example::builder().float("pixels", [0.5, w.len() as f32]);
        if let Some(l) = label {
            b = b.int64("label", [l]);
        }
        b.float("weights", w).build().to_bytes()
    };
    let records = Tensor::from(vec![ex(Some(3), vec![1.0, 2.0]), ex(None, vec![])]);
    let record = Tensor::from(ex(Some(7), vec![4.5]));
    let fetch_all = |gr: &Graph| -> Result<Vec<Tensor>> {
        let t = |o: &Output| gr.tensor_by_name(&o.name()).unwrap();
        let (bw, sw) = (batch.sparse("weights")?, single.sparse("weights")?);
        let fetches = [
            t(&batch.dense("label")?),
            t(&batch.dense("pixels")?),
            t(&bw.indices),
            t(&bw.values),
            t(&bw.dense_shape),
            t(&single.dense("label")?),
            t(&sw.values),
            t(&sw.dense_shape),
        ];
        let mut args = RunArgs::new()
            .feed(gr.tensor_by_name("many:0")?, records.clone())
            .feed(gr.tensor_by_name("one:0")?, record.clone());
        for f in &fetches {
            args = args.fetch(f);
        }
        Session::new(gr)?.run(&args)
    };
    let (want, got) = (fetch_all(&g)?, fetch_all(&h)?);
    assert_eq!(want, got);
    assert_eq!(got[0].to_vec::<i64>()?, [3, -1]);
    assert_eq!(got[5].to_scalar::<i64>()?, 7);
    Ok(())
}

#[test]
fn parse_single_sequence_example_exports_with_tensorflows_key_inputs_and_reimports() -> Result<()> {
    let g = Graph::new();
    let one = Placeholder::new(DType::String)
        .shape(Shape::scalar())
        .name("one")
        .build(&g)?;
    let (ctx, seq) = weir::ops::parsing::parse_single_sequence_example(
        &one,
        &Features::new()
            .add("len", FixedLenFeature::new(&[], DType::I64))
            .add("tags", VarLenFeature::new(DType::String))
            .add(
                "w",
                FixedLenFeature::new(&[], DType::F32).default(Tensor::from(0.5f32)),
            ),
        &Features::new()
            .add("vecs", FixedLenSequenceFeature::new(&[2], DType::F32))
            .add("tokens", VarLenFeature::new(DType::I64)),
    )?;
    let def = g.as_graph_def(false)?;
    let node = def
        .node
        .iter()
        .find(|n| n.op == "ParseSingleSequenceExample")
        .unwrap();
    // TensorFlow's form: the keys are inputs, one scalar constant each.
    assert!(node.attr.contains_key("Ncontext_dense"));
    assert!(!node.attr.contains_key("context_dense_keys"));
    assert_eq!(node.input.len(), 1 + 1 + 5 + 2 + 1);
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let ex = SequenceExample::builder()
        .context_int64("len", [3])
        .context_bytes("tags", "a")
        .feature_list(
            "vecs",
            [Feature::float([1.0, 2.0]), Feature::float([3.0, 4.0])],
        )
        .feature_list(
            "tokens",
            [
                Feature::int64([5, 6]),
                Feature::int64([]),
                Feature::int64([7]),
            ],
        )
        .build()
        .to_bytes();
    let run = |gr: &Graph| -> Result<Vec<Tensor>> {
        let t = |o: &Output| gr.tensor_by_name(&o.name()).unwrap();
        let (tags, tokens) = (ctx.sparse("tags")?, seq.sparse("tokens")?);
        let mut args = RunArgs::new().feed(gr.tensor_by_name("one:0")?, Tensor::from(ex.clone()));
        for o in [
            ctx.dense("len")?,
            ctx.dense("w")?,
            tags.values,
            seq.dense("vecs")?,
            tokens.indices,
            tokens.values,
            tokens.dense_shape,
        ] {
            args = args.fetch(t(&o));
        }
        Session::new(gr)?.run(&args)
    };
    let (want, got) = (run(&g)?, run(&h)?);
    assert_eq!(want, got);
    assert_eq!(got[5].to_vec::<i64>()?, [5, 6, 7]);
    Ok(())
}

#[test]
fn keep_input_exports_as_dynamic_partitions_keeping_the_same_rows() -> Result<()> {
    use weir::ops::data_flow::input_ops::keep_input_rows;
    let g = Graph::new();
    let flag = Placeholder::new(DType::Bool)
        .shape(Shape::scalar())
        .name("flag")
        .build(&g)?;
    let mask = Placeholder::new(DType::Bool)
        .shape(Shape::new(vec![None]))
        .name("mask")
        .build(&g)?;
    let rows = constant(&g, Tensor::from_vec(&[3, 2], vec![1i32, 2, 3, 4, 5, 6])?)?;
    let word = constant(&g, "w")?;
    let outs: Vec<Output> = [
        keep_input_rows(&flag, &[word.clone(), rows.clone()], true, None)?,
        keep_input_rows(&flag, std::slice::from_ref(&rows), false, None)?,
        keep_input_rows(&mask, std::slice::from_ref(&rows), false, None)?,
    ]
    .concat();
    let def = g.as_graph_def(false)?;
    assert!(def.node.iter().all(|n| n.op != "_KeepInputRows"));
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let (a, b) = (Session::new(&g)?, Session::new(&h)?);
    for keep in [true, false] {
        for m in [vec![true, false, true], vec![false; 3]] {
            let run = |s: &Session, gr: &Graph| -> Result<Vec<Tensor>> {
                let mut args = RunArgs::new()
                    .feed(gr.tensor_by_name("flag:0")?, Tensor::from(keep))
                    .feed(gr.tensor_by_name("mask:0")?, Tensor::from(m.clone()));
                for o in &outs {
                    args = args.fetch(gr.tensor_by_name(&o.name())?);
                }
                s.run(&args)
            };
            let (want, got) = (run(&a, &g)?, run(&b, &h)?);
            assert_eq!(want, got, "keep {keep}, mask {m:?}");
            assert_eq!(got[0].shape(), if keep { &[1][..] } else { &[0][..] });
            assert_eq!(
                got[1].shape(),
                if keep { &[1, 3, 2][..] } else { &[0, 3, 2][..] }
            );
        }
    }
    Ok(())
}

#[test]
fn sparse_features_export_as_tensorflows_sparse_merge() -> Result<()> {
    let g = Graph::new();
    let many = Placeholder::new(DType::String)
        .shape(Shape::new(vec![None]))
        .name("many")
        .build(&g)?;
    let features = Features::new()
        .add("sp", SparseFeature::new("ix", "val", DType::F32, 10))
        .add(
            "grid",
            SparseFeature::new_nd(&["r", "c"], "gv", DType::I64, &[3, 4]).already_sorted(true),
        );
    let parsed = parse_example(&many, &features)?;
    let def = g.as_graph_def(false)?;
    let ops: Vec<&str> = def.node.iter().map(|n| n.op.as_str()).collect();
    assert!(!ops.contains(&"SparseFeatureMerge"), "{ops:?}");
    assert!(ops.contains(&"SparseReorder"), "{ops:?}");
    let h = Graph::new();
    import_graph_def(&h, &ImportGraphDef::new(&def).name(""))?;
    let ex = |ix: Vec<i64>, val: Vec<f32>, rc: (Vec<i64>, Vec<i64>), gv: Vec<i64>| {
        Example::builder()
            .int64("ix", ix)
            .float("val", val)
            .int64("r", rc.0)
            .int64("c", rc.1)
            .int64("gv", gv)
            .build()
            .to_bytes()
    };
    let records = Tensor::from(vec![
        ex(
            vec![7, 2],
            vec![0.5, 1.5],
            (vec![0, 2], vec![1, 3]),
            vec![5, 6],
        ),
        ex(vec![], vec![], (vec![1], vec![0]), vec![9]),
        ex(vec![4], vec![2.5], (vec![], vec![]), vec![]),
    ]);
    let run = |gr: &Graph| -> Result<Vec<Tensor>> {
        let mut args = RunArgs::new().feed(gr.tensor_by_name("many:0")?, records.clone());
        for name in ["sp", "grid"] {
            let sp = parsed.sparse(name)?;
            for o in [&sp.indices, &sp.values, &sp.dense_shape] {
                args = args.fetch(gr.tensor_by_name(&o.name())?);
            }
        }
        Session::new(gr)?.run(&args)
    };
    let (want, got) = (run(&g)?, run(&h)?);
    assert_eq!(want, got);
    // The 1-D feature's entries sorted by id within each example.
    assert_eq!(got[0].to_vec::<i64>()?, [0, 2, 0, 7, 2, 4]);
    assert_eq!(got[1].to_vec::<f32>()?, [1.5, 0.5, 2.5]);
    assert_eq!(got[2].to_vec::<i64>()?, [3, 10]);
    assert_eq!(got[5].to_vec::<i64>()?, [3, 3, 4]);
    Ok(())
}
