//! `ParseExampleV2` built by hand, as TensorFlow 2 writes it: keys as input tensors, read each
//! run. The graph TensorFlow itself wrote is run in the root package's graph_def_pipeline tests.

use bytes::Bytes;
use weir_graph::{AttrValue, Code, DType, Graph, Operation, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::io::example::Example;
use weir_session::{RunArgs, Session};

/// One dense int64 feature (default -1) keyed by `dense_key`, one sparse float feature keyed by
/// `sparse_key`, and ragged value types `ragged`.
fn parse_v2(
    g: &Graph,
    serialized: &Output,
    sparse_key: &Output,
    dense_key: &Output,
    ragged_keys: &Output,
    ragged: Vec<DType>,
) -> Result<Operation> {
    g.new_operation("ParseExampleV2")
        .input(serialized)
        .input(constant(g, Tensor::from(Vec::<Bytes>::new()))?)
        .input(sparse_key)
        .input(dense_key)
        .input(ragged_keys)
        .input(constant(g, -1i64)?)
        .attr("num_sparse", 1i64)
        .attr("sparse_types", AttrValue::Types(vec![DType::F32]))
        .attr("Tdense", AttrValue::Types(vec![DType::I64]))
        .attr("dense_shapes", AttrValue::Shapes(vec![Shape::scalar()]))
        .attr("ragged_value_types", AttrValue::Types(ragged))
        .attr("ragged_split_types", AttrValue::Types(vec![]))
        .build()
}

fn examples() -> Tensor {
    let a = Example::builder()
        .int64("a", [1])
        .int64("b", [2])
        .float("x", [0.5, 1.5])
        .build();
    let b = Example::builder().int64("b", [3]).float("y", [4.0]).build();
    Tensor::from(vec![a.to_bytes(), b.to_bytes()])
}

#[test]
fn the_keys_are_read_each_run() -> Result<()> {
    let g = Graph::new();
    let ser = placeholder(&g, DType::String, Shape::unknown())?;
    let sk = placeholder(&g, DType::String, Shape::known(&[1]))?;
    let dk = placeholder(&g, DType::String, Shape::known(&[1]))?;
    let none = constant(&g, Tensor::from(Vec::<Bytes>::new()))?;
    let op = parse_v2(&g, &ser, &sk, &dk, &none, vec![])?;
    let sess = Session::new(&g)?;
    let run = |s: &str, d: &str| {
        sess.run(
            &RunArgs::new()
                .feed(&ser, examples())
                .feed(&sk, Tensor::from(vec![s]))
                .feed(&dk, Tensor::from(vec![d]))
                .fetch(op.output(1).unwrap())
                .fetch(op.output(3).unwrap()),
        )
    };
    let out = run("x", "a")?;
    assert_eq!(out[0].to_vec::<f32>()?, [0.5, 1.5]);
    assert_eq!(out[1].to_vec::<i64>()?, [1, -1]);
    // Other keys, same op: the parse follows them.
    let out = run("y", "b")?;
    assert_eq!(out[0].to_vec::<f32>()?, [4.0]);
    assert_eq!(out[1].to_vec::<i64>()?, [2, 3]);
    Ok(())
}

#[test]
fn ragged_features_and_miscounted_keys_are_refused() -> Result<()> {
    let g = Graph::new();
    let ser = constant(&g, examples())?;
    let one = constant(&g, Tensor::from(vec!["a"]))?;
    let two = constant(&g, Tensor::from(vec!["a", "b"]))?;
    let none = constant(&g, Tensor::from(Vec::<Bytes>::new()))?;
    let ragged_key = parse_v2(&g, &ser, &one, &one, &one, vec![])?;
    let miscounted = parse_v2(&g, &ser, &one, &two, &none, vec![])?;
    let ragged_type = parse_v2(&g, &ser, &one, &one, &none, vec![DType::F32])?;
    let sess = Session::new(&g)?;
    let err = |op: &Operation| {
        sess.run(&RunArgs::new().fetch(op.output(3).unwrap()))
            .unwrap_err()
    };
    let e = err(&ragged_key);
    assert_eq!(e.code(), Code::Unimplemented, "{e}");
    assert!(e.to_string().contains("RaggedFeatures"), "{e}");
    let e = err(&miscounted);
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(e.to_string().contains("len(dense_keys)"), "{e}");
    assert_eq!(err(&ragged_type).code(), Code::Unimplemented);
    Ok(())
}
