//! `map_fn`, `scan`, `foldl` and `foldr`: values, static shapes and errors, each compared with
//! what TensorFlow 2.21 gave for the same call (`tf.compat.v1.map_fn`, `tf.compat.v1.scan`,
//! `tf.compat.v1.foldl`, `tf.compat.v1.foldr` under `disable_v2_behavior()`; the Python is
//! quoted above each case, `c` is `tf.constant`, `phd` is `placeholder_with_default`).

use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{concat, constant, placeholder, placeholder_with_default, zeros};
use weir_ops::control_flow::{foldl, foldr, map_fn, scan, Foldl, MapFn, ScanFn};
use weir_ops::math::{add, cast, mul, range_from, reduce_sum, sub, Axes};

use crate::ta_util::{expect_err, f32s, fetch, fetch_all};

fn c(g: &Graph, v: &[f32]) -> Result<Output> {
    constant(g, v.to_vec())
}

fn ci(g: &Graph, v: &[i32]) -> Result<Output> {
    constant(g, v.to_vec())
}

fn i32s(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}

fn dynamic(x: &Output) -> Result<Output> {
    let mut dims = x.shape().dims().unwrap().to_vec();
    dims[0] = None;
    placeholder_with_default(x, Shape::new(dims))
}

const STRUCTURE: &str = "The two structures don't have the same nested structure.";

#[test]
fn map_fn_values() -> Result<()> {
    let g = Graph::new();
    // map_fn(lambda x: x * x, c([1., 2., 3.])) -> [1, 4, 9]
    let r = map_fn(
        |v| Ok(vec![mul(&v[0], &v[0])?]),
        &[c(&g, &[1.0, 2.0, 3.0])?],
    )?;
    assert_eq!(f32s(&fetch(&r[0])?), [1.0, 4.0, 9.0]);
    // map_fn(lambda xy: (xy[0] + xy[1], xy[0] * xy[1]), (c([1., 2.]), c([3., 4.])))
    let r = map_fn(
        |v| Ok(vec![add(&v[0], &v[1])?, mul(&v[0], &v[1])?]),
        &[c(&g, &[1.0, 2.0])?, c(&g, &[3.0, 4.0])?],
    )?;
    let r = fetch_all(&r)?;
    assert_eq!((f32s(&r[0]), f32s(&r[1])), (vec![4.0, 6.0], vec![3.0, 8.0]));
    // map_fn(lambda x: tf.cast(x, tf.int32) * 2, c([1.5, 2.5]), dtype=tf.int32) -> [2, 4]
    let double = |v: &[Output]| Ok(vec![mul(&cast(&v[0], DType::I32)?, &constant(&g, 2i32)?)?]);
    let r = MapFn::new()
        .dtype(&[DType::I32])
        .build(double, &[c(&g, &[1.5, 2.5])?])?;
    assert_eq!(i32s(&fetch(&r[0])?), [2, 4]);
    // ... without dtype: the int32 write into the float array fails at run time.
    let r = map_fn(double, &[c(&g, &[1.5, 2.5])?])?;
    expect_err(
        fetch(&r[0]),
        Code::InvalidArgument,
        "TensorArray dtype is float but Op is trying to write dtype int32.",
    );
    // map_fn(lambda x: tf.reduce_sum(x), c([[1., 2.], [3., 4.]])) -> [3, 7], shape (2,)
    let m = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?)?;
    let r = map_fn(
        |v| Ok(vec![reduce_sum(&v[0], Axes::All)?]),
        std::slice::from_ref(&m),
    )?;
    assert_eq!(r[0].shape(), Shape::known(&[2]));
    assert_eq!(f32s(&fetch(&r[0])?), [3.0, 7.0]);
    // map_fn(lambda row: map_fn(lambda x: x * 2, row), m) -> [[2, 4], [6, 8]]
    let two = constant(&g, 2.0f32)?;
    let r = map_fn(
        |rows| map_fn(|v| Ok(vec![mul(&v[0], &two)?]), &[rows[0].clone()]),
        &[m],
    )?;
    assert_eq!(f32s(&fetch(&r[0])?), [2.0, 4.0, 6.0, 8.0]);
    // k = c(3.); map_fn(lambda x: x * k, c([1., 2.])) -> [3, 6]
    let k = constant(&g, 3.0f32)?;
    let r = map_fn(|v| Ok(vec![mul(&v[0], &k)?]), &[c(&g, &[1.0, 2.0])?])?;
    assert_eq!(f32s(&fetch(&r[0])?), [3.0, 6.0]);
    Ok(())
}

#[test]
fn map_fn_shapes_and_empty_elems() -> Result<()> {
    let g = Graph::new();
    let twice = |v: &[Output]| Ok(vec![mul(&v[0], &constant(v[0].graph(), 2.0f32)?)?]);
    // map_fn(lambda x: x * 2, v1.placeholder(tf.float32, [None, 3])).shape -> (?, 3)
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(3)]))?;
    assert_eq!(
        map_fn(twice, &[x])?[0].shape(),
        Shape::new(vec![None, Some(3)])
    );
    // map_fn(lambda x: x * 2, tf.zeros([0, 2])) -> shape (0, 2); the same with
    // fn_output_signature=tf.TensorSpec([2], tf.float32), and with phd(..., [None, 2]).
    let empty = zeros(&g, DType::F32, &[0, 2])?;
    for r in [
        map_fn(twice, std::slice::from_ref(&empty))?,
        MapFn::new()
            .fn_output_signature(&[(DType::F32, Shape::known(&[2]))])
            .build(twice, std::slice::from_ref(&empty))?,
        map_fn(twice, &[dynamic(&empty)?])?,
    ] {
        assert_eq!(fetch(&r[0])?.shape(), [0, 2]);
    }
    // Node names as TensorFlow gives them.
    for name in [
        "map/TensorArray",
        "map/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3",
        "map/TensorArray_1",
        "map/while/TensorArrayReadV3",
        "map/while/TensorArrayReadV3/Enter",
        "map/while/TensorArrayWrite/TensorArrayWriteV3",
        "map/while/TensorArrayWrite/TensorArrayWriteV3/Enter",
        "map/TensorArrayStack/TensorArrayGatherV3",
    ] {
        assert!(g.operation_by_name(name).is_some(), "{name}");
    }
    Ok(())
}

#[test]
fn map_fn_errors() -> Result<()> {
    let g = Graph::new();
    let id = |v: &[Output]| Ok(v.to_vec());
    // map_fn(lambda x: x, c(1.))
    expect_err(
        map_fn(id, &[constant(&g, 1.0f32)?]),
        Code::InvalidArgument,
        "Elements in elems must be 1+ dimensional Tensors, not scalars",
    );
    // map_fn(lambda xy: xy[0], (c([1., 2.]), c([3., 4., 5.])))
    expect_err(
        map_fn(id, &[c(&g, &[1.0, 2.0])?, c(&g, &[3.0, 4.0, 5.0])?]),
        Code::InvalidArgument,
        "Dimensions 2 and 3 are not compatible",
    );
    // map_fn(lambda x: (x, x), c([1., 2.]))
    let e = map_fn(
        |v| Ok(vec![v[0].clone(), v[0].clone()]),
        &[c(&g, &[1.0, 2.0])?],
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with(STRUCTURE), "{e}");
    // No elems at all.
    assert_eq!(map_fn(id, &[]).unwrap_err().code(), Code::InvalidArgument);
    // map_fn(lambda xy: (xy[0] + xy[1], xy[1]), (c([1., 2.]), phd([3., 4., 5.], [None])))
    let pair = |v: &[Output]| Ok(vec![add(&v[0], &v[1])?, v[1].clone()]);
    let r = map_fn(
        pair,
        &[c(&g, &[1.0, 2.0])?, dynamic(&c(&g, &[3.0, 4.0, 5.0])?)?],
    )?;
    expect_err(
        fetch(&r[0]),
        Code::InvalidArgument,
        "Max scatter index must be < array size (2 vs. 2)",
    );
    // ... (c([1., 2., 3.]), phd([3., 4.], [None])): the missing element reads as 0.
    let r = map_fn(
        pair,
        &[c(&g, &[1.0, 2.0, 3.0])?, dynamic(&c(&g, &[3.0, 4.0])?)?],
    )?;
    let r = fetch_all(&r)?;
    assert_eq!(f32s(&r[0]), [4.0, 6.0, 3.0]);
    assert_eq!(f32s(&r[1]), [3.0, 4.0, 0.0]);
    // map_fn(lambda x: tf.range(tf.cast(x, tf.int32)), c([1., 2.]), dtype=tf.int32), alone in
    // its graph
    let g = Graph::new();
    let ranges = |v: &[Output]| {
        let n = cast(&v[0], DType::I32)?;
        let g = n.graph().clone();
        Ok(vec![range_from(
            &constant(&g, 0i32)?,
            &n,
            &constant(&g, 1i32)?,
        )?])
    };
    let r = MapFn::new()
        .dtype(&[DType::I32])
        .build(ranges, &[c(&g, &[1.0, 2.0])?])?;
    expect_err(
        fetch(&r[0]),
        Code::InvalidArgument,
        "TensorArray map/TensorArray_N: Could not write to TensorArray index 1 because the value shape is [2] which is incompatible with the TensorArray's inferred element shape: [1] (consider setting infer_shape=False).",
    );
    // ... infer_shape=False
    let r = MapFn::new()
        .dtype(&[DType::I32])
        .infer_shape(false)
        .build(ranges, &[c(&g, &[1.0, 2.0])?])?;
    expect_err(
        fetch(&r[0]),
        Code::InvalidArgument,
        "TensorArray has inconsistent shapes.  Index 0 has shape: [1] but index 1 has shape: [2]",
    );
    Ok(())
}

#[test]
fn scan_values() -> Result<()> {
    let g = Graph::new();
    let x = c(&g, &[1.0, 2.0, 3.0, 4.0])?;
    let plus = |a: &[Output], x: &[Output]| Ok(vec![add(&a[0], &x[0])?]);
    let times = |a: &[Output], x: &[Output]| Ok(vec![mul(&a[0], &x[0])?]);
    let init = [constant(&g, 2.0f32)?];
    for (r, want) in [
        // scan(lambda a, x: a + x, x); ... reverse=True
        (
            scan(plus, std::slice::from_ref(&x), None)?,
            [1.0, 3.0, 6.0, 10.0],
        ),
        (
            ScanFn::new()
                .reverse(true)
                .build(plus, std::slice::from_ref(&x))?,
            [10.0, 9.0, 7.0, 4.0],
        ),
        // scan(lambda a, x: a * x, x, initializer=c(2.)); ... reverse=True
        (
            scan(times, std::slice::from_ref(&x), Some(&init))?,
            [2.0, 4.0, 12.0, 48.0],
        ),
        (
            ScanFn::new()
                .initializer(&init)
                .reverse(true)
                .build(times, std::slice::from_ref(&x))?,
            [48.0, 48.0, 24.0, 8.0],
        ),
    ] {
        assert_eq!(f32s(&fetch(&r[0])?), want);
    }
    // scan(lambda a, x: (a[0] + x[0], a[1] * x[1]), (c([1., 2., 3.]), c([2, 3, 4])))
    let r = scan(
        |a, x| Ok(vec![add(&a[0], &x[0])?, mul(&a[1], &x[1])?]),
        &[c(&g, &[1.0, 2.0, 3.0])?, ci(&g, &[2, 3, 4])?],
        None,
    )?;
    let r = fetch_all(&r)?;
    assert_eq!(
        (f32s(&r[0]), i32s(&r[1])),
        (vec![1.0, 3.0, 6.0], vec![2, 6, 24])
    );
    // scan(lambda a, x: (a[0] + x, a[1] + 1), c([1., 2., 3.]), initializer=(c(0.), c(10)))
    let init = [constant(&g, 0.0f32)?, constant(&g, 10i32)?];
    let r = scan(
        |a, x| Ok(vec![add(&a[0], &x[0])?, add(&a[1], &constant(&g, 1i32)?)?]),
        &[c(&g, &[1.0, 2.0, 3.0])?],
        Some(&init),
    )?;
    let r = fetch_all(&r)?;
    assert_eq!(
        (f32s(&r[0]), i32s(&r[1])),
        (vec![1.0, 3.0, 6.0], vec![11, 12, 13])
    );
    // scan(lambda a, _: (a[1], a[0] + a[1]), c([0, 0, 0, 0, 0]), initializer=(c(0), c(1)))
    let init = [constant(&g, 0i32)?, constant(&g, 1i32)?];
    let r = scan(
        |a, _| Ok(vec![a[1].clone(), add(&a[0], &a[1])?]),
        &[ci(&g, &[0; 5])?],
        Some(&init),
    )?;
    let r = fetch_all(&r)?;
    assert_eq!(
        (i32s(&r[0]), i32s(&r[1])),
        (vec![1, 1, 2, 3, 5], vec![1, 2, 3, 5, 8])
    );
    // scan(lambda a, x: a + x, c([[1., 2.], [3., 4.], [5., 6.]]))
    let m = constant(
        &g,
        Tensor::from_vec(&[3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?,
    )?;
    let r = scan(plus, &[m], None)?;
    assert_eq!(r[0].shape(), Shape::known(&[3, 2]));
    assert_eq!(f32s(&fetch(&r[0])?), [1.0, 2.0, 4.0, 6.0, 9.0, 12.0]);
    // Static shapes: placeholder [None, 2] -> (?, 2); infer_shape=False -> unknown
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, Some(2)]))?;
    assert_eq!(
        scan(plus, std::slice::from_ref(&p), None)?[0].shape(),
        Shape::new(vec![None, Some(2)])
    );
    let r = ScanFn::new().infer_shape(false).build(plus, &[p])?;
    assert_eq!(r[0].shape(), Shape::unknown());
    Ok(())
}

#[test]
fn lengths_known_only_at_run_time() -> Result<()> {
    // The same calls on phd(c([1., 2., 3., 4.]), [None]): map_fn(x * x), scan(a + x,
    // reverse=True), scan(a * x, initializer=c(2.), reverse=True), foldr(a - x)
    let g = Graph::new();
    let x = dynamic(&c(&g, &[1.0, 2.0, 3.0, 4.0])?)?;
    let sq = map_fn(|v| Ok(vec![mul(&v[0], &v[0])?]), std::slice::from_ref(&x))?;
    assert_eq!(sq[0].shape(), Shape::new(vec![None]));
    let plus = |a: &[Output], x: &[Output]| Ok(vec![add(&a[0], &x[0])?]);
    let times = |a: &[Output], x: &[Output]| Ok(vec![mul(&a[0], &x[0])?]);
    let rev = ScanFn::new()
        .reverse(true)
        .build(plus, std::slice::from_ref(&x))?;
    let rev_init = ScanFn::new()
        .reverse(true)
        .initializer(&[constant(&g, 2.0f32)?])
        .build(times, std::slice::from_ref(&x))?;
    let fr = foldr(
        |a, x| Ok(vec![sub(&a[0], &x[0])?]),
        std::slice::from_ref(&x),
        None,
    )?;
    let v = fetch_all(&[
        sq[0].clone(),
        rev[0].clone(),
        rev_init[0].clone(),
        fr[0].clone(),
    ])?;
    assert_eq!(f32s(&v[0]), [1.0, 4.0, 9.0, 16.0]);
    assert_eq!(f32s(&v[1]), [10.0, 9.0, 7.0, 4.0]);
    assert_eq!(f32s(&v[2]), [48.0, 48.0, 24.0, 8.0]);
    assert_eq!(f32s(&v[3]), [-2.0]);
    Ok(())
}

#[test]
fn scan_errors_and_empty_elems() -> Result<()> {
    let g = Graph::new();
    let plus = |a: &[Output], x: &[Output]| Ok(vec![add(&a[0], &x[0])?]);
    let empty = zeros(&g, DType::F32, &[0])?;
    // scan(lambda a, x: a + x, tf.zeros([0])); reverse=True; phd(tf.zeros([0]), [None])
    for (r, msg) in [
        (
            scan(plus, std::slice::from_ref(&empty), None)?,
            "Tried to read from index 0 but array size is: 0",
        ),
        (
            ScanFn::new()
                .reverse(true)
                .build(plus, std::slice::from_ref(&empty))?,
            "Tried to read from index -1 but array size is: 0",
        ),
        (
            scan(plus, &[dynamic(&empty)?], None)?,
            "Tried to read from index 0 but array size is: 0",
        ),
    ] {
        expect_err(fetch(&r[0]), Code::InvalidArgument, msg);
    }
    // scan(lambda a, x: a + x, tf.zeros([0]), initializer=c(1.)) -> []
    let r = scan(plus, &[empty], Some(&[constant(&g, 1.0f32)?]))?;
    assert_eq!(fetch(&r[0])?.shape(), [0]);
    // scan(lambda a, x: (a[0] + x[0], a[1]), (c([1., 2.]), c([3., 4., 5.])))
    expect_err(
        scan(
            |a, x| Ok(vec![add(&a[0], &x[0])?, a[1].clone()]),
            &[c(&g, &[1.0, 2.0])?, c(&g, &[3.0, 4.0, 5.0])?],
            None,
        ),
        Code::InvalidArgument,
        "Dimensions 2 and 3 are not compatible",
    );
    // scan(lambda a, x: (a, a), c([1., 2.]))
    let e = scan(
        |a, _| Ok(vec![a[0].clone(), a[0].clone()]),
        &[c(&g, &[1.0, 2.0])?],
        None,
    )
    .unwrap_err();
    assert!(e.message().starts_with(STRUCTURE), "{e}");
    // scan(lambda a, x: a + x, c(1.)): TensorFlow raises an IndexError.
    expect_err(
        scan(plus, &[constant(&g, 1.0f32)?], None),
        Code::InvalidArgument,
        "Elements in elems must be 1+ dimensional Tensors, not scalars",
    );
    Ok(())
}

#[test]
fn folds() -> Result<()> {
    let g = Graph::new();
    let x = c(&g, &[1.0, 2.0, 3.0, 4.0])?;
    let plus = |a: &[Output], x: &[Output]| Ok(vec![add(&a[0], &x[0])?]);
    let minus = |a: &[Output], x: &[Output]| Ok(vec![sub(&a[0], &x[0])?]);
    // foldl(a + x) = 10; foldl(a - x) = -8; foldr(a - x) = -2
    for (r, want) in [
        (foldl(plus, std::slice::from_ref(&x), None)?, 10.0),
        (foldl(minus, std::slice::from_ref(&x), None)?, -8.0),
        (foldr(minus, std::slice::from_ref(&x), None)?, -2.0),
    ] {
        assert_eq!(fetch(&r[0])?.to_scalar::<f32>()?, want);
    }
    // foldl / foldr(lambda a, x: a * 10 + x, c([1, 2, 3]), initializer=c(5)): 5123, 5321
    let digits = |a: &[Output], x: &[Output]| {
        Ok(vec![add(
            &mul(&a[0], &constant(a[0].graph(), 10i32)?)?,
            &x[0],
        )?])
    };
    let e = ci(&g, &[1, 2, 3])?;
    let init = [constant(&g, 5i32)?];
    let l = foldl(digits, std::slice::from_ref(&e), Some(&init))?;
    let r = foldr(digits, std::slice::from_ref(&e), Some(&init))?;
    let v = fetch_all(&[l[0].clone(), r[0].clone()])?;
    assert_eq!(
        (v[0].to_scalar::<i32>()?, v[1].to_scalar::<i32>()?),
        (5123, 5321)
    );
    // foldl(lambda a, x: a + x[0] * x[1], (c([1., 2.]), c([3., 4.])), initializer=c(0.)) -> 11
    let r = foldl(
        |a, x| Ok(vec![add(&a[0], &mul(&x[0], &x[1])?)?]),
        &[c(&g, &[1.0, 2.0])?, c(&g, &[3.0, 4.0])?],
        Some(&[constant(&g, 0.0f32)?]),
    )?;
    assert_eq!(fetch(&r[0])?.to_scalar::<f32>()?, 11.0);
    // foldl(lambda a, x: (a[0] + x[0], a[1] * x[1]), (c([1., 2., 3.]), c([3., 4., 5.])))
    // -> (6, 60); foldr(lambda a, x: (a[0] - x[0], a[1] * x[1]), ...) -> (0, 60)
    let pair = [c(&g, &[1.0, 2.0, 3.0])?, c(&g, &[3.0, 4.0, 5.0])?];
    let l = foldl(
        |a, x| Ok(vec![add(&a[0], &x[0])?, mul(&a[1], &x[1])?]),
        &pair,
        None,
    )?;
    let r = foldr(
        |a, x| Ok(vec![sub(&a[0], &x[0])?, mul(&a[1], &x[1])?]),
        &pair,
        None,
    )?;
    let v = fetch_all(&[l[0].clone(), l[1].clone(), r[0].clone(), r[1].clone()])?;
    let v: Vec<f32> = v.iter().map(|t| t.to_scalar::<f32>().unwrap()).collect();
    assert_eq!(v, [6.0, 60.0, 0.0, 60.0]);
    // foldl(lambda a, x: (a[0] + x, a[1] - x), c([1., 2., 3.]), initializer=(c(0.), c(100.)))
    let r = Foldl::new()
        .initializer(&[constant(&g, 0.0f32)?, constant(&g, 100.0f32)?])
        .parallel_iterations(1)
        .build(
            |a, x| Ok(vec![add(&a[0], &x[0])?, sub(&a[1], &x[0])?]),
            &[c(&g, &[1.0, 2.0, 3.0])?],
        )?;
    let v = fetch_all(&r)?;
    assert_eq!(f32s(&v[0]), [6.0]);
    assert_eq!(f32s(&v[1]), [94.0]);
    // foldl(lambda a, x: a + x, c([[1., 2.], [3., 4.]])) -> [4, 6]
    let m = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?)?;
    let r = foldl(plus, &[m], None)?;
    assert_eq!(r[0].shape(), Shape::known(&[2]));
    assert_eq!(f32s(&fetch(&r[0])?), [4.0, 6.0]);
    Ok(())
}

#[test]
fn fold_errors_and_empty_elems() -> Result<()> {
    let g = Graph::new();
    let plus = |a: &[Output], x: &[Output]| Ok(vec![add(&a[0], &x[0])?]);
    let empty = zeros(&g, DType::F32, &[0])?;
    let seven = [constant(&g, 7.0f32)?];
    for elems in [empty.clone(), dynamic(&empty)?] {
        // foldl / foldr(lambda a, x: a + x, tf.zeros([0])) and with phd(..., [None])
        let l = foldl(plus, std::slice::from_ref(&elems), None)?;
        expect_err(
            fetch(&l[0]),
            Code::InvalidArgument,
            "Tried to read from index 0 but array size is: 0",
        );
        let r = foldr(plus, std::slice::from_ref(&elems), None)?;
        expect_err(
            fetch(&r[0]),
            Code::InvalidArgument,
            "Tried to read from index -1 but array size is: 0",
        );
        // ... initializer=c(7.) -> 7
        let l = foldl(plus, std::slice::from_ref(&elems), Some(&seven))?;
        let r = foldr(plus, std::slice::from_ref(&elems), Some(&seven))?;
        let v = fetch_all(&[l[0].clone(), r[0].clone()])?;
        assert_eq!((f32s(&v[0]), f32s(&v[1])), (vec![7.0], vec![7.0]));
    }
    // foldl(lambda a, x: (a[0] + x[0], a[1] + x[1]), (c([1., 2.]), c([3., 4., 5.])))
    let both = |a: &[Output], x: &[Output]| Ok(vec![add(&a[0], &x[0])?, add(&a[1], &x[1])?]);
    let r = foldl(both, &[c(&g, &[1.0, 2.0])?, c(&g, &[3.0, 4.0, 5.0])?], None)?;
    expect_err(
        fetch(&r[0]),
        Code::InvalidArgument,
        "Max scatter index must be < array size (2 vs. 2)",
    );
    // (c([1., 2., 3.]), c([3., 4.])): foldl does not compare the lengths -> (6, 7)
    let r = foldl(both, &[c(&g, &[1.0, 2.0, 3.0])?, c(&g, &[3.0, 4.0])?], None)?;
    let v = fetch_all(&r)?;
    assert_eq!((f32s(&v[0]), f32s(&v[1])), (vec![6.0], vec![7.0]));
    // foldl(lambda a, x: a + x, c(1.)): an IndexError in TensorFlow.
    expect_err(
        foldl(plus, &[constant(&g, 1.0f32)?], None),
        Code::InvalidArgument,
        "Elements in elems must be 1+ dimensional Tensors, not scalars",
    );
    // foldl(lambda a, x: tf.concat([a, [x]], 0), c([1., 2.]), initializer=c([0.]))
    let init = [c(&g, &[0.0])?];
    let e = foldl(
        |a, x| {
            let x1 = weir_ops::array::expand_dims(&x[0], 0)?;
            Ok(vec![concat(&[a[0].clone(), x1], 0)?])
        },
        &[c(&g, &[1.0, 2.0])?],
        Some(&init),
    )
    .unwrap_err();
    assert!(
        e.message().contains("enters the loop with shape (1,), but has shape (2,) after one iteration. To allow the shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to specify a less-specific shape."),
        "{e}"
    );
    // The structures of the accumulators and of fn's result must match.
    let e = foldl(
        |a, _| Ok(vec![a[0].clone(), a[0].clone()]),
        &[c(&g, &[1.0, 2.0])?],
        None,
    )
    .unwrap_err();
    assert!(e.message().starts_with(STRUCTURE), "{e}");
    Ok(())
}
