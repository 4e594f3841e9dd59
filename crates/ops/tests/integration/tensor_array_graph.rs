//! TensorArray in the graph: node names and attrs, the static shapes the Python layer gives
//! reads, stacks and concats, and arrays inside `while_loop`. Expected values are TensorFlow
//! 2.21's for the same graph (`tf.compat.v1.TensorArray`, control flow v1); `ta(**kw)` is
//! `tf.compat.v1.TensorArray(tf.float32, size=3, **kw)`.

use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, fill, placeholder, zeros};
use weir_ops::control_flow::{while_loop, WhileLoop};
use weir_ops::math::{add, cast, less, mul, reduce_sum, Axes};
use weir_ops::tensor_array::{TensorArray, TensorArrayBuilder};

use crate::ta_util::{expect_err, f32s, fetch, fetch_all};

fn builder() -> TensorArrayBuilder {
    TensorArray::new(DType::F32).size(3)
}

fn z(g: &Graph, dims: &[usize]) -> Result<Output> {
    zeros(g, DType::F32, dims)
}

fn unknown_first(rest: &[usize]) -> Shape {
    let mut d = vec![None];
    d.extend(rest.iter().map(|&x| Some(x)));
    Shape::new(d)
}

#[test]
fn nodes_names_and_attrs() -> Result<()> {
    // t = ta().write(0, [1.]); t.stack(); t.unstack([[1.], [2.], [3.]]); t.concat();
    // t.split([1., 2., 3.], [1, 1, 1]); t.scatter([0], [[1.]]); t.gather([0]); t.close()
    let g = Graph::new();
    let t = builder().build(&g)?;
    assert_eq!(t.handle().name(), "TensorArray:0");
    assert_eq!(t.flow().name(), "TensorArray:1");
    assert_eq!(t.handle().shape(), Shape::known(&[2]));
    assert_eq!(t.handle().dtype(), DType::Resource);
    assert_eq!(t.flow().shape(), Shape::scalar());
    let op = t.handle().op();
    assert!(op.attr::<bool>("identical_element_shapes")?);
    assert!(op.attr::<bool>("clear_after_read")?);
    assert!(!op.attr::<bool>("dynamic_size")?);
    assert_eq!(op.attr::<Shape>("element_shape")?, Shape::unknown());
    assert_eq!(op.attr::<String>("tensor_array_name")?, "");
    assert_eq!(op.attr::<DType>("dtype")?, DType::F32);
    let t = t.write(0, &constant(&g, vec![1.0f32])?)?;
    let stacked = t.stack()?;
    assert_eq!(
        stacked.op().attr::<Shape>("element_shape")?,
        Shape::known(&[1])
    );
    let col = constant(&g, Tensor::from_vec(&[3, 1], vec![1.0f32, 2.0, 3.0])?)?;
    t.unstack(&col)?;
    t.concat()?;
    t.split(&constant(&g, vec![1.0f32, 2.0, 3.0])?, [1, 1, 1])?;
    t.scatter(
        [0],
        &constant(&g, Tensor::from_vec(&[1, 1], vec![1.0f32])?)?,
    )?;
    t.gather([0])?;
    t.close()?;
    let _outer = g.name_scope("outer");
    TensorArray::new(DType::F32)
        .size(2)
        .name("myta")
        .build(&g)?;
    for (name, op) in [
        ("TensorArray/size", "Const"),
        ("TensorArray", "TensorArrayV3"),
        ("TensorArrayWrite/TensorArrayWriteV3/index", "Const"),
        ("TensorArrayWrite/TensorArrayWriteV3", "TensorArrayWriteV3"),
        ("TensorArrayStack/range/start", "Const"),
        ("TensorArrayStack/range/delta", "Const"),
        ("TensorArrayStack/range", "Range"),
        (
            "TensorArrayStack/TensorArrayGatherV3",
            "TensorArrayGatherV3",
        ),
        ("TensorArrayUnstack/range", "Range"),
        (
            "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3",
            "TensorArrayScatterV3",
        ),
        ("TensorArrayConcatV3", "TensorArrayConcatV3"),
        ("TensorArraySplit/TensorArraySplitV3", "TensorArraySplitV3"),
        ("TensorArrayScatter/TensorArrayScatterV3/indices", "Const"),
        (
            "TensorArrayScatter/TensorArrayScatterV3",
            "TensorArrayScatterV3",
        ),
        ("TensorArrayGatherV3/indices", "Const"),
        ("TensorArrayGatherV3", "TensorArrayGatherV3"),
        ("TensorArrayCloseV3", "TensorArrayCloseV3"),
        ("outer/myta/size", "Const"),
        ("outer/myta", "TensorArrayV3"),
    ] {
        let found = g.operation_by_name(name).map(|o| o.op_type());
        assert_eq!(found.as_deref(), Some(op), "{name}");
    }
    // size() of an array of fixed size is its size tensor; of a dynamic one, an op.
    let t = builder().build(&g)?;
    assert_eq!(t.size()?.op().op_type(), "Const");
    let t = builder().dynamic_size(true).build(&g)?;
    assert_eq!(t.size()?.op().op_type(), "TensorArraySizeV3");
    Ok(())
}

#[test]
fn static_shapes_of_reads_stacks_and_concats() -> Result<()> {
    let g = Graph::new();
    let two = constant(&g, vec![1.0f32, 2.0])?;
    let es2 = || Shape::new(vec![None, Some(2)]);
    for (case, shape, want) in [
        // ta().read(0).shape, and so on.
        (
            "read_unknown",
            builder().build(&g)?.read(0)?.shape(),
            Shape::unknown(),
        ),
        (
            "read_after_write",
            builder().build(&g)?.write(0, &two)?.read(0)?.shape(),
            Shape::known(&[2]),
        ),
        (
            "read_es",
            builder().element_shape(es2()).build(&g)?.read(0)?.shape(),
            es2(),
        ),
        (
            "read_es_after",
            builder()
                .element_shape(es2())
                .build(&g)?
                .write(0, &z(&g, &[3, 2])?)?
                .read(0)?
                .shape(),
            Shape::known(&[3, 2]),
        ),
        (
            "read_noinfer",
            builder()
                .infer_shape(false)
                .build(&g)?
                .write(0, &two)?
                .read(0)?
                .shape(),
            Shape::unknown(),
        ),
        (
            "read_noinfer_es",
            builder()
                .infer_shape(false)
                .element_shape(es2())
                .build(&g)?
                .write(0, &z(&g, &[3, 2])?)?
                .read(0)?
                .shape(),
            es2(),
        ),
        (
            "stack_unknown",
            builder().build(&g)?.stack()?.shape(),
            Shape::unknown(),
        ),
        (
            "stack_known",
            builder().build(&g)?.write(0, &two)?.stack()?.shape(),
            Shape::known(&[3, 2]),
        ),
        (
            "stack_dyn",
            builder()
                .dynamic_size(true)
                .build(&g)?
                .write(0, &two)?
                .stack()?
                .shape(),
            unknown_first(&[2]),
        ),
        (
            "stack_dynsize",
            TensorArray::new(DType::F32)
                .size(&placeholder(&g, DType::I32, Shape::scalar())?)
                .build(&g)?
                .write(0, &two)?
                .stack()?
                .shape(),
            unknown_first(&[2]),
        ),
        (
            "gather_unknown",
            builder().build(&g)?.gather([0, 0])?.shape(),
            Shape::unknown(),
        ),
        (
            "gather_ph",
            builder()
                .build(&g)?
                .write(0, &two)?
                .gather(&placeholder(&g, DType::I32, Shape::new(vec![None]))?)?
                .shape(),
            unknown_first(&[2]),
        ),
        (
            "concat_unknown",
            builder().build(&g)?.concat()?.shape(),
            Shape::unknown(),
        ),
        (
            "concat_known",
            builder()
                .build(&g)?
                .write(0, &z(&g, &[1, 2])?)?
                .concat()?
                .shape(),
            Shape::known(&[3, 2]),
        ),
        (
            "concat_noinfer",
            builder()
                .infer_shape(false)
                .element_shape(Shape::known(&[1, 2]))
                .build(&g)?
                .concat()?
                .shape(),
            unknown_first(&[2]),
        ),
        (
            "concat_dyn",
            builder()
                .dynamic_size(true)
                .build(&g)?
                .write(0, &z(&g, &[1, 2])?)?
                .concat()?
                .shape(),
            unknown_first(&[2]),
        ),
        (
            "unstack",
            builder()
                .build(&g)?
                .unstack(&z(&g, &[3, 4, 5])?)?
                .read(0)?
                .shape(),
            Shape::known(&[4, 5]),
        ),
        (
            "scatter",
            builder()
                .build(&g)?
                .scatter([0], &z(&g, &[1, 4])?)?
                .stack()?
                .shape(),
            Shape::known(&[3, 4]),
        ),
        (
            "split_concat",
            builder()
                .build(&g)?
                .split(&z(&g, &[6, 4])?, [2, 2, 2])?
                .concat()?
                .shape(),
            Shape::known(&[6, 4]),
        ),
        (
            "split_read",
            builder()
                .build(&g)?
                .split(&z(&g, &[6, 4])?, [2, 2, 2])?
                .read(0)?
                .shape(),
            Shape::known(&[2, 4]),
        ),
        (
            "noinfer_two_shapes",
            builder()
                .infer_shape(false)
                .build(&g)?
                .write(0, &z(&g, &[3])?)?
                .write(1, &z(&g, &[1])?)?
                .stack()?
                .shape(),
            Shape::unknown(),
        ),
    ] {
        assert_eq!(shape, want, "{case}");
    }
    // TensorFlow gives (?, 2) here: its shape function sees the (unknown) shape the handle was
    // made with. weir's uses the gather's element_shape attr and the indices, a more precise
    // shape of the same tensor.
    let s = builder().build(&g)?.write(0, &two)?.gather([0, 0])?.shape();
    assert_eq!(s, Shape::known(&[2, 2]));
    // ta().write(0, tf.zeros([4])).unstack(tf.zeros([3, 5]))
    expect_err(
        builder()
            .build(&g)?
            .write(0, &z(&g, &[4])?)?
            .unstack(&z(&g, &[3, 5])?),
        Code::InvalidArgument,
        "Inconsistent shapes: saw (5,) but expected (4,) ",
    );
    Ok(())
}

#[test]
fn a_dynamic_array_filled_by_a_while_loop() -> Result<()> {
    // ta = TensorArray(tf.float32, size=0, dynamic_size=True)
    // i, ta = while_loop(lambda i, ta: i < 5,
    //                    lambda i, ta: (i + 1, ta.write(i, tf.cast(i, tf.float32) * 2)), (0, ta))
    // [ta.stack(), ta.size()] -> [0, 2, 4, 6, 8], 5; ta.stack().shape == (?,)
    let g = Graph::new();
    let ta = TensorArray::new(DType::F32)
        .size(0)
        .dynamic_size(true)
        .build(&g)?;
    let out = while_loop(
        |v| less(&v[0], &constant(&g, 5i32)?),
        |v| {
            let x = mul(&cast(&v[0], DType::F32)?, &constant(&g, 2.0f32)?)?;
            let next = ta.with_flow(&v[1]).write(&v[0], &x)?;
            Ok(vec![add(&v[0], &constant(&g, 1i32)?)?, next.flow().clone()])
        },
        &[constant(&g, 0i32)?, ta.flow().clone()],
    )?;
    let ta = ta.with_flow(&out[1]);
    let s = ta.stack()?;
    assert_eq!(s.shape(), Shape::new(vec![None]));
    let r = fetch_all(&[s, ta.size()?])?;
    assert_eq!(f32s(&r[0]), [0.0, 2.0, 4.0, 6.0, 8.0]);
    assert_eq!(r[1].to_scalar::<i32>()?, 5);
    // The handle entered the loop as a constant Enter.
    let enter = g.operation_by_name("while/TensorArrayWrite/TensorArrayWriteV3/Enter");
    assert_eq!(enter.map(|o| o.op_type()).as_deref(), Some("Enter"));
    Ok(())
}

#[test]
fn the_element_shape_learned_in_the_body_reaches_the_array_outside() -> Result<()> {
    // ta = TensorArray(tf.float32, size=3)
    // _, ta = while_loop(lambda i, ta: i < 3,
    //     lambda i, ta: (i + 1, ta.write(i, tf.fill([2], tf.cast(i, tf.float32)))), (0, ta))
    // ta.stack(): shape (3, 2), [[0, 0], [1, 1], [2, 2]]
    let g = Graph::new();
    let ta = builder().build(&g)?;
    let out = while_loop(
        |v| less(&v[0], &constant(&g, 3i32)?),
        |v| {
            let x = fill([2], &cast(&v[0], DType::F32)?)?;
            let next = ta.with_flow(&v[1]).write(&v[0], &x)?;
            Ok(vec![add(&v[0], &constant(&g, 1i32)?)?, next.flow().clone()])
        },
        &[constant(&g, 0i32)?, ta.flow().clone()],
    )?;
    let s = ta.with_flow(&out[1]).stack()?;
    assert_eq!(s.shape(), Shape::known(&[3, 2]));
    assert_eq!(f32s(&fetch(&s)?), [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]);
    Ok(())
}

#[test]
fn errors_inside_a_loop_name_the_array() -> Result<()> {
    // while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(0, tf.cast(i, tf.float32))),
    //            (0, ta())) then ta.stack()
    let g = Graph::new();
    let ta = builder().build(&g)?;
    let out = WhileLoop::new().build(
        |v| less(&v[0], &constant(&g, 3i32)?),
        |v| {
            let next = ta.with_flow(&v[1]).write(0, &cast(&v[0], DType::F32)?)?;
            Ok(vec![add(&v[0], &constant(&g, 1i32)?)?, next.flow().clone()])
        },
        &[constant(&g, 0i32)?, ta.flow().clone()],
    )?;
    expect_err(
        fetch(&ta.with_flow(&out[1]).stack()?),
        Code::InvalidArgument,
        "TensorArray TensorArray_N: Could not write to TensorArray index 0 because it has already been written to.",
    );
    Ok(())
}

#[test]
fn arrays_read_in_a_loop_and_made_in_a_loop() -> Result<()> {
    // src = TensorArray(tf.float32, size=4).unstack([1., 2., 3., 4.])
    // while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a + src.read(i)), (0, 0.)) -> 10
    let g = Graph::new();
    let src = TensorArray::new(DType::F32)
        .size(4)
        .build(&g)?
        .unstack(&constant(&g, vec![1.0f32, 2.0, 3.0, 4.0])?)?;
    let out = while_loop(
        |v| less(&v[0], &constant(&g, 4i32)?),
        |v| {
            Ok(vec![
                add(&v[0], &constant(&g, 1i32)?)?,
                add(&v[1], &src.read(&v[0])?)?,
            ])
        },
        &[constant(&g, 0i32)?, constant(&g, 0.0f32)?],
    )?;
    assert_eq!(fetch(&out[1])?.to_scalar::<f32>()?, 10.0);

    // def body(i, acc):
    //     t = TensorArray(tf.float32, size=i + 1, clear_after_read=False)
    //     t = t.unstack(tf.range(tf.cast(i + 1, tf.float32)))
    //     return i + 1, acc + tf.reduce_sum(t.stack()) + t.read(i)
    // while_loop(lambda i, a: i < 4, body, (0, 0.)) -> 16 (a new array every iteration)
    let g = Graph::new();
    let out = while_loop(
        |v| less(&v[0], &constant(&g, 4i32)?),
        |v| {
            let n = add(&v[0], &constant(&g, 1i32)?)?;
            let t = TensorArray::new(DType::F32)
                .size(&n)
                .clear_after_read(false)
                .build(&g)?;
            let values = weir_ops::math::range_from(
                &constant(&g, 0.0f32)?,
                &cast(&n, DType::F32)?,
                &constant(&g, 1.0f32)?,
            )?;
            let t = t.unstack(&values)?;
            let total = reduce_sum(&t.stack()?, Axes::All)?;
            Ok(vec![n, add(&add(&v[1], &total)?, &t.read(&v[0])?)?])
        },
        &[constant(&g, 0i32)?, constant(&g, 0.0f32)?],
    )?;
    assert_eq!(fetch(&out[1])?.to_scalar::<f32>()?, 16.0);
    Ok(())
}
