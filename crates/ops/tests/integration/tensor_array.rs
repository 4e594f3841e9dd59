//! TensorArray (the V3 ops and the Python-style `TensorArray`): values and run-time errors.
//! Every expected value and message is what TensorFlow 2.21 gave for the same graph, built with
//! `tf.compat.v1.TensorArray` under `tf.compat.v1.disable_v2_behavior()`; the Python is quoted
//! above each case (`ta(**kw)` is `tf.compat.v1.TensorArray(tf.float32, size=3, **kw)`, `phd`
//! is `tf.compat.v1.placeholder_with_default`). Messages naming an array have its counter
//! replaced by `N` (TensorFlow numbers arrays process-wide: `TensorArray_12`).

use weir_graph::{Code, DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::tensor_array::{TensorArray, TensorArrayBuilder};
use weir_session::{RunArgs, Session};

use crate::ta_util::{expect_err, f32s, fetch, fetch_all};

fn ta(g: &Graph) -> Result<TensorArray> {
    builder().build(g)
}

fn builder() -> TensorArrayBuilder {
    TensorArray::new(DType::F32).size(3)
}

fn c(g: &Graph, v: &[f32]) -> Result<weir_graph::Output> {
    constant(g, v.to_vec())
}

const UNWRITTEN: &str = ".  Furthermore, the element shape is not fully defined: <unknown>.  It is possible you are working with a resizeable TensorArray and stop_gradients is not allowing the gradients to be written.  If you set the full element_shape property on the forward TensorArray, the proper all-zeros tensor will be returned instead of incurring this error.";

#[test]
fn reading_an_unwritten_index_of_unknown_shape_fails() -> Result<()> {
    // ta().read(1)
    let g = Graph::new();
    let r = ta(&g)?.read(1)?;
    expect_err(
        fetch(&r),
        Code::InvalidArgument,
        &format!("TensorArray TensorArray_N: Could not read from TensorArray index 1{UNWRITTEN}"),
    );
    Ok(())
}

#[test]
fn clear_after_read_allows_one_read() -> Result<()> {
    // t = ta().write(0, 1.0); [t.read(0), t.read(0)]
    let g = Graph::new();
    let t = ta(&g)?.write(0, &constant(&g, 1.0f32)?)?;
    expect_err(
        fetch_all(&[t.read(0)?, t.read(0)?]),
        Code::InvalidArgument,
        "TensorArray TensorArray_N: Could not read index 0 twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?).",
    );
    // ta(clear_after_read=False): [1.0, 1.0]
    let g = Graph::new();
    let t = builder()
        .clear_after_read(false)
        .build(&g)?
        .write(0, &constant(&g, 1.0f32)?)?;
    let r = fetch_all(&[t.read(0)?, t.read(0)?])?;
    assert_eq!((f32s(&r[0]), f32s(&r[1])), (vec![1.0], vec![1.0]));
    Ok(())
}

#[test]
fn an_index_is_written_once_and_not_after_a_read() -> Result<()> {
    // ta().write(0,1.0).write(0,2.0).read(0)
    let g = Graph::new();
    let one = constant(&g, 1.0f32)?;
    let r = ta(&g)?.write(0, &one)?.write(0, &one)?.read(0)?;
    expect_err(
        fetch(&r),
        Code::InvalidArgument,
        "TensorArray TensorArray_N: Could not write to TensorArray index 0 because it has already been written to.",
    );
    // t = ta(element_shape=[]); t.write(0, t.read(0) + 1): the read gave zeros first.
    let g = Graph::new();
    let t = builder().element_shape(Shape::scalar()).build(&g)?;
    let x = weir_ops::math::add(&t.read(0)?, &constant(&g, 1.0f32)?)?;
    let w = t.write(0, &x)?;
    expect_err(
        fetch(w.flow()),
        Code::InvalidArgument,
        "TensorArray TensorArray_N: Could not write to TensorArray index 0 because it has already been read.",
    );
    Ok(())
}

#[test]
fn indices_out_of_range() -> Result<()> {
    let g = Graph::new();
    let one = constant(&g, 1.0f32)?;
    // ta().write(3, 1.0); ta().write(-1, 1.0)
    for (i, msg) in [
        (3, "TensorArray TensorArray_N: Tried to write to index 3 but array is not resizeable and size is: 3"),
        (-1, "TensorArray TensorArray_N: Tried to write to index -1 but array is not resizeable and size is: 3"),
    ] {
        expect_err(fetch(ta(&g)?.write(i, &one)?.flow()), Code::InvalidArgument, msg);
    }
    // ta().write(0, 1.0).read(5); .read(-1)
    for (i, msg) in [
        (5, "Tried to read from index 5 but array size is: 3"),
        (-1, "Tried to read from index -1 but array size is: 3"),
    ] {
        let r = ta(&g)?.write(0, &one)?.read(i)?;
        expect_err(fetch(&r), Code::InvalidArgument, msg);
    }
    // ta().write(0, [1., 2.]).gather([4])
    let r = ta(&g)?.write(0, &c(&g, &[1.0, 2.0])?)?.gather([4])?;
    expect_err(
        fetch(&r),
        Code::InvalidArgument,
        "Tried to read from index 4 but array size is: 3",
    );
    Ok(())
}

#[test]
fn dynamic_size_grows_on_write_and_scatter() -> Result<()> {
    // t = ta(dynamic_size=True).write(5, 1.0).write(0, 2.0); [t.stack(), t.size()]
    let g = Graph::new();
    let t = builder()
        .dynamic_size(true)
        .build(&g)?
        .write(5, &constant(&g, 1.0f32)?)?
        .write(0, &constant(&g, 2.0f32)?)?;
    let r = fetch_all(&[t.stack()?, t.size()?])?;
    assert_eq!(f32s(&r[0]), [2.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    assert_eq!(r[1].to_scalar::<i32>()?, 6);
    // ta(dynamic_size=True).write(7, 1.0).size() == 8; ta(dynamic_size=True).size() == 3
    let t = builder().dynamic_size(true).build(&g)?;
    assert_eq!(fetch(&t.size()?)?.to_scalar::<i32>()?, 3);
    let t = t.write(7, &constant(&g, 1.0f32)?)?;
    assert_eq!(fetch(&t.size()?)?.to_scalar::<i32>()?, 8);
    // t = ta(dynamic_size=True).scatter([4, 0], [1., 2.]); [t.size(), t.stack()]
    let t = builder()
        .dynamic_size(true)
        .build(&g)?
        .scatter([4, 0], &c(&g, &[1.0, 2.0])?)?;
    let r = fetch_all(&[t.size()?, t.stack()?])?;
    assert_eq!(r[0].to_scalar::<i32>()?, 5);
    assert_eq!(f32s(&r[1]), [2.0, 0.0, 0.0, 0.0, 1.0]);
    Ok(())
}

#[test]
fn dtypes_and_shapes_of_writes_are_checked() -> Result<()> {
    let g = Graph::new();
    // ta().write(0, tf.constant(1, tf.int32)): Python only logs; the kernel refuses it.
    let w = ta(&g)?.write(0, &constant(&g, 1i32)?)?;
    expect_err(
        fetch(w.flow()),
        Code::InvalidArgument,
        "TensorArray dtype is float but Op is trying to write dtype int32.",
    );
    // ta().write(0, [1., 2.]).write(1, [1.]): at build time.
    let t = ta(&g)?.write(0, &c(&g, &[1.0, 2.0])?)?;
    expect_err(
        t.write(1, &c(&g, &[1.0])?),
        Code::InvalidArgument,
        "Inconsistent shapes: saw (1,) but expected (2,) ",
    );
    // ta(element_shape=[2], infer_shape=False).write(0, [1., 2., 3.])
    expect_err(
        builder()
            .element_shape(Shape::known(&[2]))
            .infer_shape(false)
            .build(&g)?
            .write(0, &c(&g, &[1.0, 2.0, 3.0])?),
        Code::InvalidArgument,
        "Inconsistent shapes: saw (3,) but expected (2,) ",
    );
    // ta().write(0, phd([1., 2.], [None])).write(1, phd([1.], [None])): at run time.
    let a = placeholder_with_default(c(&g, &[1.0, 2.0])?, Shape::new(vec![None]))?;
    let b = placeholder_with_default(c(&g, &[1.0])?, Shape::new(vec![None]))?;
    let w = ta(&g)?.write(0, &a)?.write(1, &b)?;
    expect_err(
        fetch(w.flow()),
        Code::InvalidArgument,
        "TensorArray TensorArray_N: Could not write to TensorArray index 1 because the value shape is [1] which is incompatible with the TensorArray's inferred element shape: [2] (consider setting infer_shape=False).",
    );
    // ta(element_shape=[2]).write(0, phd([1.], [None]))
    let w = builder()
        .element_shape(Shape::known(&[2]))
        .build(&g)?
        .write(0, &b)?;
    expect_err(
        fetch(w.flow()),
        Code::InvalidArgument,
        "TensorArray TensorArray_N: Could not write to TensorArray index 0 because the value shape is [1] which is incompatible with the TensorArray's inferred element shape: [2] (consider setting infer_shape=False).",
    );
    Ok(())
}

#[test]
fn stack_and_gather() -> Result<()> {
    let g = Graph::new();
    // v1.TensorArray(tf.float32, size=0).stack() (also with dynamic_size=True)
    let msg = "TensorArray has size zero, but element shape <unknown> is not fully defined. Currently only static shapes are supported when packing zero-size TensorArrays.";
    for dynamic in [false, true] {
        let t = TensorArray::new(DType::F32)
            .size(0)
            .dynamic_size(dynamic)
            .build(&g)?;
        expect_err(fetch(&t.stack()?), Code::Unimplemented, msg);
    }
    // size=0, element_shape=[2, 3]: shape (0, 2, 3)
    let t = TensorArray::new(DType::F32)
        .size(0)
        .element_shape(Shape::known(&[2, 3]))
        .build(&g)?;
    assert_eq!(fetch(&t.stack()?)?.shape(), [0, 2, 3]);
    // ta().write(0, 1.0).stack(): [1, 0, 0] (the element shape () was learned)
    let s = ta(&g)?.write(0, &constant(&g, 1.0f32)?)?.stack()?;
    assert_eq!(f32s(&fetch(&s)?), [1.0, 0.0, 0.0]);
    // ta().write(0, [1., 2.]).gather([]) -> shape (0, 2)
    let t = ta(&g)?.write(0, &c(&g, &[1.0, 2.0])?)?;
    assert_eq!(fetch(&t.gather(Vec::<i32>::new())?)?.shape(), [0, 2]);
    // ta(infer_shape=False).gather([])
    let t = builder().infer_shape(false).build(&g)?;
    expect_err(
        fetch(&t.gather(Vec::<i32>::new())?),
        Code::Unimplemented,
        msg,
    );
    // ta(clear_after_read=False) written [1,2],[3,4],[5,6]; gather([2, 0, 2])
    let t = builder()
        .clear_after_read(false)
        .build(&g)?
        .write(0, &c(&g, &[1.0, 2.0])?)?
        .write(1, &c(&g, &[3.0, 4.0])?)?
        .write(2, &c(&g, &[5.0, 6.0])?)?;
    let r = fetch(&t.gather([2, 0, 2])?)?;
    assert_eq!(r.shape(), [3, 2]);
    assert_eq!(f32s(&r), [5.0, 6.0, 1.0, 2.0, 5.0, 6.0]);
    // ta().write(0, [1., 2.]).gather([0, 1]): the unwritten index reads as zeros.
    let t = ta(&g)?.write(0, &c(&g, &[1.0, 2.0])?)?;
    assert_eq!(f32s(&fetch(&t.gather([0, 1])?)?), [1.0, 2.0, 0.0, 0.0]);
    // ta(infer_shape=False).write(0, [1., 2.]).write(1, [3.]).gather([0, 1])
    let t = builder()
        .infer_shape(false)
        .build(&g)?
        .write(0, &c(&g, &[1.0, 2.0])?)?
        .write(1, &c(&g, &[3.0])?)?;
    expect_err(
        fetch(&t.gather([0, 1])?),
        Code::InvalidArgument,
        "TensorArray has inconsistent shapes.  Index 0 has shape: [2] but index 1 has shape: [1]",
    );
    // ta(infer_shape=False) with [1., 2.] and [1.] written at 0 and 1: stack reads index 2.
    let t = builder()
        .infer_shape(false)
        .build(&g)?
        .write(0, &c(&g, &[1.0, 2.0])?)?
        .write(1, &c(&g, &[1.0])?)?;
    expect_err(
        fetch(&t.stack()?),
        Code::InvalidArgument,
        &format!("TensorArray TensorArray_N: Could not read from TensorArray index 2{UNWRITTEN}"),
    );
    Ok(())
}

#[test]
fn concat() -> Result<()> {
    let g = Graph::new();
    let m = |v: &[f32], rows: usize| {
        constant(
            &g,
            Tensor::from_vec(&[rows, v.len() / rows], v.to_vec()).unwrap(),
        )
    };
    let two = || {
        TensorArray::new(DType::F32)
            .size(2)
            .infer_shape(false)
            .build(&g)
    };
    // [[1, 2]] and [[3, 4], [5, 6]]
    let t = two()?
        .write(0, &m(&[1.0, 2.0], 1)?)?
        .write(1, &m(&[3.0, 4.0, 5.0, 6.0], 2)?)?;
    let r = fetch(&t.concat()?)?;
    assert_eq!(r.shape(), [3, 2]);
    assert_eq!(f32s(&r), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // Scalars
    let t = two()?
        .write(0, &constant(&g, 1.0f32)?)?
        .write(1, &constant(&g, 2.0f32)?)?;
    expect_err(
        fetch(&t.concat()?),
        Code::InvalidArgument,
        "Concat saw a scalar shape at index 0 but requires at least vectors.  Did you mean to call pack?",
    );
    // size=0, unknown shape; size=0, element_shape=[None, 3] -> (0, 3)
    let t = TensorArray::new(DType::F32).size(0).build(&g)?;
    expect_err(
        fetch(&t.concat()?),
        Code::Unimplemented,
        "TensorArray has size zero, but element_shape_except0 <unknown> is not fully defined. Currently only static shapes are supported when concatenating zero-size TensorArrays.",
    );
    let t = TensorArray::new(DType::F32)
        .size(0)
        .element_shape(Shape::new(vec![None, Some(3)]))
        .build(&g)?;
    assert_eq!(fetch(&t.concat()?)?.shape(), [0, 3]);
    // [[1, 2]] and [[3, 4, 5]]
    let t = two()?
        .write(0, &m(&[1.0, 2.0], 1)?)?
        .write(1, &m(&[3.0, 4.0, 5.0], 1)?)?;
    expect_err(
        fetch(&t.concat()?),
        Code::InvalidArgument,
        "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: [2] but index 1 has (excepting dimension 0) shape: [3]",
    );
    // Index 1 unwritten: unknown shape fails, element_shape=[1, 2] reads zeros.
    let t = two()?.write(0, &m(&[1.0, 2.0], 1)?)?;
    expect_err(
        fetch(&t.concat()?),
        Code::InvalidArgument,
        &format!("TensorArray TensorArray_N: Could not read from TensorArray index 1{UNWRITTEN}"),
    );
    let t = TensorArray::new(DType::F32)
        .size(2)
        .element_shape(Shape::known(&[1, 2]))
        .build(&g)?
        .write(0, &m(&[1.0, 2.0], 1)?)?;
    assert_eq!(f32s(&fetch(&t.concat()?)?), [1.0, 2.0, 0.0, 0.0]);
    Ok(())
}

#[test]
fn split() -> Result<()> {
    let g = Graph::new();
    let v = constant(
        &g,
        Tensor::from_vec(&[3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?,
    )?;
    let noinfer = |n: i32| {
        TensorArray::new(DType::F32)
            .size(n)
            .infer_shape(false)
            .build(&g)
    };
    // split(v, [1, 0, 2]): reads [[1, 2]], [] of shape (0, 2), [[3, 4], [5, 6]]; size 3
    let t = noinfer(3)?.split(&v, [1, 0, 2])?;
    let r = fetch_all(&[t.read(0)?, t.read(1)?, t.read(2)?, t.size()?])?;
    assert_eq!((r[0].shape(), f32s(&r[0])), (&[1, 2][..], vec![1.0, 2.0]));
    assert_eq!(r[1].shape(), [0, 2]);
    assert_eq!(f32s(&r[2]), [3.0, 4.0, 5.0, 6.0]);
    assert_eq!(r[3].to_scalar::<i32>()?, 3);
    // With infer_shape (the default), pieces of different lengths fail at run time.
    let t = ta(&g)?.split(&v, [1, 0, 2])?;
    expect_err(
        fetch(&t.concat()?),
        Code::InvalidArgument,
        "TensorArray TensorArray_N: Could not write to TensorArray index 1 because the value shape is [0,2] which is incompatible with the TensorArray's inferred element shape: [1,2] (consider setting infer_shape=False).",
    );
    // Equal lengths teach the element shape at build time: (1, 2).
    let t = ta(&g)?.split(&v, [1, 1, 1])?;
    assert_eq!(t.element_shape(), Shape::known(&[1, 2]));
    for (t, msg) in [
        (
            noinfer(3)?.split(&v, [1, 1, 2])?,
            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 4 and value's shape is: [3,2]",
        ),
        (
            noinfer(2)?.split(&c(&g, &[1.0, 2.0, 3.0])?, [1, 1, 1])?,
            "TensorArray's size is not equal to the size of lengths (2 vs. 3), and the TensorArray is not marked as dynamically resizeable",
        ),
        (
            noinfer(2)?.split(&constant(&g, 1.0f32)?, [1])?,
            "Expected value to be at least a vector, but received shape: []",
        ),
        (
            noinfer(2)?
                .split(&c(&g, &[1.0, 2.0, 3.0])?, [1, 2])?
                .split(&c(&g, &[1.0, 2.0, 3.0])?, [1, 2])?,
            "TensorArray TensorArray_N: Could not write to TensorArray index 0 because it has already been written to.",
        ),
    ] {
        expect_err(fetch(t.flow()), Code::InvalidArgument, msg);
    }
    // v1.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
    //   .split([1., 2., 3.], [1, 2]): size 2, concat [1, 2, 3]
    let t = TensorArray::new(DType::F32)
        .size(0)
        .dynamic_size(true)
        .infer_shape(false)
        .build(&g)?
        .split(&c(&g, &[1.0, 2.0, 3.0])?, [1, 2])?;
    let r = fetch_all(&[t.size()?, t.concat()?])?;
    assert_eq!(r[0].to_scalar::<i32>()?, 2);
    assert_eq!(f32s(&r[1]), [1.0, 2.0, 3.0]);
    // Lengths of rank 2 are refused when building.
    let lengths = constant(&g, Tensor::from_vec(&[1, 2], vec![1i64, 2])?)?;
    let e = noinfer(2)?
        .split(&c(&g, &[1.0, 2.0, 3.0])?, &lengths)
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    // TensorFlow aborts the process on a negative length; weir refuses it.
    let t = noinfer(2)?.split(&c(&g, &[1.0, 2.0, 3.0])?, [-1, 4])?;
    assert_eq!(fetch(t.flow()).unwrap_err().code(), Code::InvalidArgument);
    Ok(())
}

#[test]
fn scatter_and_unstack() -> Result<()> {
    let g = Graph::new();
    let rows = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?)?;
    // ta(clear_after_read=False).scatter([2, 0], [[1, 2], [3, 4]]).stack()
    let t = builder()
        .clear_after_read(false)
        .build(&g)?
        .scatter([2, 0], &rows)?;
    assert_eq!(f32s(&fetch(&t.stack()?)?), [3.0, 4.0, 0.0, 0.0, 1.0, 2.0]);
    for (indices, msg) in [
        (vec![3, 0], "Max scatter index must be < array size (3 vs. 3)"),
        (
            vec![-1, 0],
            "TensorArray TensorArray_N: Tried to write to index -1 but array is not resizeable and size is: 3",
        ),
        (
            vec![0, 0],
            "TensorArray TensorArray_N: Could not write to TensorArray index 0 because it has already been written to.",
        ),
    ] {
        let t = ta(&g)?.scatter(indices, &rows)?;
        expect_err(fetch(t.flow()), Code::InvalidArgument, msg);
    }
    // ta().scatter(phd([0, 1, 2], [None]), [[1, 2], [3, 4]])
    let idx = placeholder_with_default(constant(&g, vec![0i32, 1, 2])?, Shape::new(vec![None]))?;
    expect_err(
        fetch(ta(&g)?.scatter(&idx, &rows)?.flow()),
        Code::InvalidArgument,
        "Expected len(indices) == values.shape[0], but saw: 3 vs. 2",
    );
    // ... with [0, 1, 2] known: refused when building.
    assert_eq!(
        ta(&g)?.scatter([0, 1, 2], &rows).unwrap_err().code(),
        Code::InvalidArgument
    );
    // ta().scatter(phd([0], [None]), phd(1.0, None))
    let idx = placeholder_with_default(constant(&g, vec![0i32])?, Shape::new(vec![None]))?;
    let scalar = placeholder_with_default(constant(&g, 1.0f32)?, Shape::unknown())?;
    expect_err(
        fetch(ta(&g)?.scatter(&idx, &scalar)?.flow()),
        Code::InvalidArgument,
        "Input value for unpack must be at least a vector but received shape: []",
    );
    // ta().unstack([1., 2., 3.]).stack(); 4 values; 2 values (zeros; unknown shape fails)
    let s = ta(&g)?.unstack(&c(&g, &[1.0, 2.0, 3.0])?)?.stack()?;
    assert_eq!(f32s(&fetch(&s)?), [1.0, 2.0, 3.0]);
    let t = ta(&g)?.unstack(&c(&g, &[1.0, 2.0, 3.0, 4.0])?)?;
    expect_err(
        fetch(t.flow()),
        Code::InvalidArgument,
        "Max scatter index must be < array size (3 vs. 3)",
    );
    let s = ta(&g)?.unstack(&c(&g, &[1.0, 2.0])?)?.stack()?;
    assert_eq!(f32s(&fetch(&s)?), [1.0, 2.0, 0.0]);
    let s = builder()
        .infer_shape(false)
        .build(&g)?
        .unstack(&c(&g, &[1.0, 2.0])?)?
        .stack()?;
    expect_err(
        fetch(&s),
        Code::InvalidArgument,
        &format!("TensorArray TensorArray_N: Could not read from TensorArray index 2{UNWRITTEN}"),
    );
    Ok(())
}

#[test]
fn size_close_and_bad_sizes() -> Result<()> {
    let g = Graph::new();
    assert_eq!(fetch(&ta(&g)?.size()?)?.to_scalar::<i32>()?, 3);
    // t = ...; c = t.close(); with tf.control_dependencies([c]): t.read(0) / write / size / stack
    let closed = "TensorArray TensorArray_N has already been closed.";
    let one = constant(&g, 1.0f32)?;
    let t = ta(&g)?.write(0, &one)?;
    let close = t.close()?;
    let read = {
        let _deps = g.control_dependencies(&[close])?;
        t.read(0)?
    };
    expect_err(fetch(&read), Code::InvalidArgument, closed);
    let t = ta(&g)?;
    let close = t.close()?;
    let write = {
        let _deps = g.control_dependencies(&[close])?;
        t.write(0, &one)?
    };
    expect_err(fetch(write.flow()), Code::InvalidArgument, closed);
    let t = builder().dynamic_size(true).build(&g)?;
    let close = t.close()?;
    let size = {
        let _deps = g.control_dependencies(&[close])?;
        t.size()?
    };
    expect_err(fetch(&size), Code::InvalidArgument, closed);
    let t = builder()
        .element_shape(Shape::scalar())
        .build(&g)?
        .write(0, &one)?;
    let close = t.close()?;
    let stack = {
        let _deps = g.control_dependencies(&[close])?;
        t.stack()?
    };
    expect_err(fetch(&stack), Code::InvalidArgument, closed);
    // TensorArray(size=phd(-1, [])): "Size should be >= 0."
    let n = placeholder_with_default(constant(&g, -1i32)?, Shape::scalar())?;
    let t = TensorArray::new(DType::F32).size(&n).build(&g)?;
    expect_err(
        fetch(t.flow()),
        Code::InvalidArgument,
        "Size should be >= 0.",
    );
    // size=phd([1], [None]) and write(phd([1], [None]), ...) are refused when building.
    let v = placeholder_with_default(constant(&g, vec![1i32])?, Shape::new(vec![None]))?;
    assert!(TensorArray::new(DType::F32).size(&v).build(&g).is_err());
    assert!(ta(&g)?.write(&v, &one).is_err());
    // No size at all.
    expect_err(
        TensorArray::new(DType::F32).build(&g),
        Code::InvalidArgument,
        "Argument `size` must be provided if handle is not provided.",
    );
    Ok(())
}

#[test]
fn a_read_of_another_dtype_is_refused() -> Result<()> {
    // tf.raw_ops.TensorArrayReadV3(handle=ta.handle, index=0, flow_in=ta.flow, dtype=tf.int32)
    let g = Graph::new();
    let t = ta(&g)?;
    let index = constant(&g, 0i32)?;
    let read = g
        .new_operation("TensorArrayReadV3")
        .input(t.handle())
        .input(&index)
        .input(t.flow())
        .attr("dtype", DType::I32)
        .build()?
        .output(0)?;
    expect_err(
        fetch(&read),
        Code::InvalidArgument,
        "TensorArray dtype is float but Op requested dtype int32.",
    );
    Ok(())
}

#[test]
fn every_run_makes_a_new_array() -> Result<()> {
    // A second run of the same graph writes into a fresh array, as TensorFlow makes one per step.
    let g = Graph::new();
    let x = weir_ops::array::placeholder(&g, DType::F32, Shape::known(&[2]))?;
    let s = ta(&g)?.unstack(&x)?.stack()?;
    let sess = Session::new(&g)?;
    for v in [[1.0f32, 2.0], [3.0, 4.0]] {
        let r = sess.run(&RunArgs::new().feed(&x, Tensor::from(v.to_vec())).fetch(&s))?;
        assert_eq!(f32s(&r[0]), [v[0], v[1], 0.0]);
    }
    Ok(())
}
