//! Casts, `where` (Select/SelectV2), clip_by_value, add_n and range through a Session.

use weir_graph::{Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::*;
use weir_session::{RunArgs, Session};

fn eval(t: &Output) -> Tensor {
    Session::new(t.graph()).unwrap().eval(t).unwrap()
}

fn m<T: weir_graph::TensorType>(shape: &[usize], v: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, v).unwrap()
}

#[test]
fn casts() {
    let g = Graph::new();
    let f = constant(&g, [1.7f32, -1.7, 0.0, 255.9]).unwrap();
    let i = cast(&f, DType::I32).unwrap();
    assert_eq!(eval(&i).to_vec::<i32>().unwrap(), vec![1, -1, 0, 255]);
    assert_eq!(
        eval(&cast(&f, DType::U8).unwrap()).to_vec::<u8>().unwrap(),
        vec![1, 0, 0, 255]
    );
    assert_eq!(
        eval(&cast(&f, DType::Bool).unwrap())
            .to_vec::<bool>()
            .unwrap(),
        vec![true, true, false, true]
    );
    let b = constant(&g, [true, false]).unwrap();
    assert_eq!(
        eval(&cast(&b, DType::F64).unwrap())
            .to_vec::<f64>()
            .unwrap(),
        vec![1.0, 0.0]
    );
    assert_eq!(
        eval(&cast(&b, DType::I32).unwrap())
            .to_vec::<i32>()
            .unwrap(),
        vec![1, 0]
    );
    let w = constant(&g, [300i32, -1]).unwrap();
    assert_eq!(
        eval(&cast(&w, DType::U8).unwrap()).to_vec::<u8>().unwrap(),
        vec![44, 255]
    );
    assert_eq!(
        eval(&cast(&w, DType::I16).unwrap())
            .to_vec::<i16>()
            .unwrap(),
        vec![300, -1]
    );
    let big = constant(&g, [i64::MAX, i64::MIN]).unwrap();
    assert_eq!(
        eval(&cast(&big, DType::F32).unwrap())
            .to_vec::<f32>()
            .unwrap(),
        vec![i64::MAX as f32, i64::MIN as f32]
    );
    let inf = constant(&g, [f64::INFINITY, f64::NAN, 1e300]).unwrap();
    let c = eval(&cast(&inf, DType::F32).unwrap())
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(c[0], f32::INFINITY);
    assert!(c[1].is_nan());
    assert_eq!(c[2], f32::INFINITY);
    // Same dtype: no node, as in TensorFlow.
    assert_eq!(cast(&f, DType::F32).unwrap(), f);
    // Strings only cast to strings: Unimplemented at build time, naming the node.
    let e = cast(&w, DType::String).unwrap_err();
    assert_eq!(e.code(), Code::Unimplemented);
    assert_eq!(e.message(), "Cast int32 to string is not supported");
    assert_eq!(e.node().unwrap().op_type, "Cast");
    // Every numeric/bool pair converts.
    let all = [
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::Bool,
    ];
    let src = constant(&g, [0i8, 1, 3]).unwrap();
    for &a in &all {
        let x = cast(&src, a).unwrap();
        for &b in &all {
            let y = cast(&x, b).unwrap();
            let back = eval(&cast(&y, DType::I64).unwrap())
                .to_vec::<i64>()
                .unwrap();
            let want = if a == DType::Bool || b == DType::Bool {
                vec![0, 1, 1]
            } else {
                vec![0, 1, 3]
            };
            assert_eq!(back, want, "{a} -> {b}");
        }
    }
}

#[test]
fn select_tf1_semantics() {
    // Ported from where_op_test.py / cwise_ops_test.py SelectOpTest.
    let g = Graph::new();
    let t = constant(&g, m(&[3, 2], vec![1, 2, 3, 4, 5, 6])).unwrap();
    let e = constant(&g, m(&[3, 2], vec![-1, -2, -3, -4, -5, -6])).unwrap();
    // Rank-1 condition picks rows.
    let rows = select(constant(&g, [true, false, true]).unwrap(), &t, &e).unwrap();
    assert_eq!(rows.shape(), Shape::known(&[3, 2]));
    assert_eq!(
        eval(&rows).to_vec::<i32>().unwrap(),
        vec![1, 2, -3, -4, 5, 6]
    );
    // Same-shape condition picks elements.
    let c = constant(&g, m(&[3, 2], vec![true, false, false, true, true, false])).unwrap();
    assert_eq!(
        eval(&where_(&c, &t, &e).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, -2, -3, 4, 5, -6]
    );
    // Scalar condition picks a whole input.
    let s = select(constant(&g, false).unwrap(), &t, &e).unwrap();
    assert_eq!(
        eval(&s).to_vec::<i32>().unwrap(),
        vec![-1, -2, -3, -4, -5, -6]
    );
    // Mismatches: at build time when known, at run time otherwise.
    let bad = select(constant(&g, [true, false]).unwrap(), &t, &e).unwrap_err();
    assert!(
        bad.message()
            .contains("Number of batches of 'then' must match size of 'cond'"),
        "{bad}"
    );
    assert_eq!(bad.node().unwrap().op_type, "Select");
    let p = placeholder(&g, DType::Bool, Shape::unknown()).unwrap();
    let r = select(&p, &t, &e).unwrap();
    let err = Session::new(&g)
        .unwrap()
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec![true, false]))
                .fetch(&r),
        )
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Number of batches of 'then' must match size of 'cond', but saw: 3 vs. 2"
    );
    assert!(select(&c, &t, constant(&g, [1, 2]).unwrap()).is_err());
}

#[test]
fn select_v2_broadcasts() {
    let g = Graph::new();
    let c = constant(&g, m(&[2, 1], vec![true, false])).unwrap();
    let x = constant(&g, [1.0f32, 2.0, 3.0]).unwrap();
    let y = constant(&g, 0.0f32).unwrap();
    let r = select_v2(&c, &x, &y).unwrap();
    assert_eq!(r.shape(), Shape::known(&[2, 3]));
    assert_eq!(
        eval(&r).to_vec::<f32>().unwrap(),
        vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0]
    );
}

#[test]
fn clip_add_n_and_range() {
    let g = Graph::new();
    let x = constant(&g, [-1.0f32, 0.5, 9.0]).unwrap();
    let c = clip_by_value(&x, 0.0, 6.0).unwrap();
    assert!(c.name().starts_with("clip_by_value/"), "{}", c.name());
    assert_eq!(eval(&c).to_vec::<f32>().unwrap(), vec![0.0, 0.5, 6.0]);
    let lo = constant(&g, [0.0f32, 1.0, 2.0]).unwrap();
    assert_eq!(
        eval(&clip_by_value(&x, &lo, 8.0).unwrap())
            .to_vec::<f32>()
            .unwrap(),
        vec![0.0, 1.0, 8.0]
    );
    let wide = constant(&g, m(&[2, 3], vec![0.0f32; 6])).unwrap();
    assert!(clip_by_value(&x, &wide, 1.0).is_err());
    let n = clip_by_value(&constant(&g, [f32::NAN]).unwrap(), 0.0, 1.0).unwrap();
    assert!(eval(&n).to_vec::<f32>().unwrap()[0].is_nan());

    let a = constant(&g, [1, 2]).unwrap();
    let b = constant(&g, [10, 20]).unwrap();
    let s = add_n(&[a.clone(), b.clone(), a.clone()]).unwrap();
    assert_eq!(eval(&s).to_vec::<i32>().unwrap(), vec![12, 24]);
    assert_eq!(
        eval(&add_n(std::slice::from_ref(&a)).unwrap())
            .to_vec::<i32>()
            .unwrap(),
        vec![1, 2]
    );
    let e = add_n(&[a.clone(), constant(&g, [1, 2, 3]).unwrap()]).unwrap_err();
    assert_eq!(e.node().unwrap().op_type, "AddN");

    let r = range(&g, 3i32, 18, 3).unwrap();
    assert_eq!(r.shape(), Shape::known(&[5]));
    assert_eq!(eval(&r).to_vec::<i32>().unwrap(), vec![3, 6, 9, 12, 15]);
    let r = range(&g, 5i64, 0, -2).unwrap();
    assert_eq!(eval(&r).to_vec::<i64>().unwrap(), vec![5, 3, 1]);
    let r = range(&g, 0.0f32, 0.5, 0.1).unwrap();
    assert_eq!(eval(&r).shape(), &[5]);
    let e = range(&g, 0i32, 10, 0).unwrap_err();
    assert_eq!(e.message(), "Requires delta != 0: 0");
    let lim = placeholder(&g, DType::I32, Shape::scalar()).unwrap();
    let zero = constant(&g, 0i32).unwrap();
    let one = constant(&g, 1i32).unwrap();
    let dynr = range_from(&zero, &lim, &one).unwrap();
    assert_eq!(dynr.shape(), Shape::new(vec![None]));
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().feed(&lim, Tensor::from(4i32)).fetch(&dynr))
        .unwrap();
    assert_eq!(out[0].to_vec::<i32>().unwrap(), vec![0, 1, 2, 3]);
}
