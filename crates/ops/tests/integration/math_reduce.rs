//! Reductions, argmax, scans and matrix products through a Session.

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

/// [2, 3, 4] holding 0..24.
fn cube(g: &Graph) -> Output {
    constant(g, m(&[2, 3, 4], (0..24).map(|v| v as f32).collect())).unwrap()
}

#[test]
fn reduce_sum_every_axis_combination() {
    let g = Graph::new();
    let x = cube(&g);
    let all = reduce_sum(&x, Axes::All).unwrap();
    assert_eq!(all.shape(), Shape::scalar());
    assert_eq!(eval(&all).to_vec::<f32>().unwrap(), vec![276.0]);
    let a0 = reduce_sum(&x, 0).unwrap();
    assert_eq!(a0.shape(), Shape::known(&[3, 4]));
    assert_eq!(
        eval(&a0).to_vec::<f32>().unwrap(),
        (0..12).map(|i| (2 * i + 12) as f32).collect::<Vec<_>>()
    );
    let a2 = reduce_sum(&x, -1).unwrap();
    assert_eq!(
        eval(&a2).to_vec::<f32>().unwrap(),
        vec![6., 22., 38., 54., 70., 86.]
    );
    let a02 = Reduce::sum()
        .axis([0, -1])
        .keep_dims(true)
        .build(&x)
        .unwrap();
    assert_eq!(a02.shape(), Shape::known(&[1, 3, 1]));
    let t = eval(&a02);
    assert_eq!(t.shape(), &[1, 3, 1]);
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![60., 92., 124.]);
    let a1 = reduce_sum(&x, 1).unwrap();
    assert_eq!(
        eval(&a1).to_vec::<f32>().unwrap(),
        vec![12., 15., 18., 21., 48., 51., 54., 57.]
    );
    // No axes: nothing is reduced.
    let none = reduce_sum(&x, Vec::<i64>::new()).unwrap();
    assert_eq!(none.shape(), Shape::known(&[2, 3, 4]));
    assert_eq!(
        eval(&none).to_vec::<f32>().unwrap(),
        (0..24).map(|v| v as f32).collect::<Vec<_>>()
    );
}

#[test]
fn other_reductions() {
    let g = Graph::new();
    let x = constant(&g, m(&[2, 3], vec![3i32, -1, 4, 1, -5, 9])).unwrap();
    assert_eq!(
        eval(&reduce_max(&x, 1).unwrap()).to_vec::<i32>().unwrap(),
        vec![4, 9]
    );
    assert_eq!(
        eval(&reduce_min(&x, 0).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, -5, 4]
    );
    assert_eq!(
        eval(&reduce_prod(&x, Axes::All).unwrap())
            .to_vec::<i32>()
            .unwrap(),
        vec![540]
    );
    // Integer means truncate toward zero.
    assert_eq!(
        eval(&reduce_mean(&x, 1).unwrap()).to_vec::<i32>().unwrap(),
        vec![2, 1]
    );
    assert_eq!(
        eval(&reduce_mean(constant(&g, [-7i32, 2]).unwrap(), 0).unwrap())
            .to_vec::<i32>()
            .unwrap(),
        vec![-2]
    );
    let f = constant(&g, m(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0])).unwrap();
    assert_eq!(
        eval(&reduce_mean(&f, 0).unwrap()).to_vec::<f64>().unwrap(),
        vec![2.0, 3.0]
    );
    let b = constant(&g, m(&[2, 3], vec![true, false, true, false, false, false])).unwrap();
    assert_eq!(
        eval(&reduce_any(&b, 1).unwrap()).to_vec::<bool>().unwrap(),
        vec![true, false]
    );
    assert_eq!(
        eval(&reduce_all(&b, 0).unwrap()).to_vec::<bool>().unwrap(),
        vec![false, false, false]
    );
    assert_eq!(
        eval(&reduce_all(constant(&g, [true, true]).unwrap(), Axes::All).unwrap())
            .to_vec::<bool>()
            .unwrap(),
        vec![true]
    );
    // Sums of integers wrap.
    let w = constant(&g, [i32::MAX, 1]).unwrap();
    assert_eq!(
        eval(&reduce_sum(&w, 0).unwrap()).to_vec::<i32>().unwrap(),
        vec![i32::MIN]
    );
    assert!(reduce_any(&x, 0).is_err());
}

#[test]
fn empty_reductions_give_identities() {
    let g = Graph::new();
    let e = constant(&g, m(&[0, 3], Vec::<f32>::new())).unwrap();
    assert_eq!(
        eval(&reduce_sum(&e, 0).unwrap()).to_vec::<f32>().unwrap(),
        vec![0.0; 3]
    );
    assert_eq!(
        eval(&reduce_prod(&e, 0).unwrap()).to_vec::<f32>().unwrap(),
        vec![1.0; 3]
    );
    assert_eq!(
        eval(&reduce_max(&e, 0).unwrap()).to_vec::<f32>().unwrap(),
        vec![f32::NEG_INFINITY; 3]
    );
    assert_eq!(
        eval(&reduce_min(&e, 0).unwrap()).to_vec::<f32>().unwrap(),
        vec![f32::INFINITY; 3]
    );
    assert!(eval(&reduce_mean(&e, 0).unwrap())
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .all(|v| v.is_nan()));
    let r = reduce_sum(&e, 1).unwrap();
    assert_eq!(eval(&r).shape(), &[0]);
    let eb = constant(&g, m(&[0], Vec::<bool>::new())).unwrap();
    assert_eq!(
        eval(&reduce_all(&eb, 0).unwrap()).to_vec::<bool>().unwrap(),
        vec![true]
    );
    assert_eq!(
        eval(&reduce_any(&eb, 0).unwrap()).to_vec::<bool>().unwrap(),
        vec![false]
    );
    let ei = constant(&g, m(&[0], Vec::<i64>::new())).unwrap();
    assert_eq!(
        eval(&reduce_max(&ei, 0).unwrap()).to_vec::<i64>().unwrap(),
        vec![i64::MIN]
    );
    assert_eq!(
        eval(&reduce_mean(&ei, 0).unwrap()).to_vec::<i64>().unwrap(),
        vec![0]
    );
}

#[test]
fn nan_propagates_through_reductions() {
    let g = Graph::new();
    let x = constant(&g, m(&[2, 2], vec![1.0f32, f32::NAN, 3.0, 4.0])).unwrap();
    let mx = eval(&reduce_max(&x, 1).unwrap()).to_vec::<f32>().unwrap();
    assert!(mx[0].is_nan());
    assert_eq!(mx[1], 4.0);
    let mn = eval(&reduce_min(&x, 0).unwrap()).to_vec::<f32>().unwrap();
    assert_eq!(mn[0], 1.0);
    assert!(mn[1].is_nan());
    assert!(eval(&reduce_sum(&x, Axes::All).unwrap())
        .to_vec::<f32>()
        .unwrap()[0]
        .is_nan());
}

#[test]
fn reduction_shapes_and_errors() {
    let g = Graph::new();
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, Some(3)])).unwrap();
    assert_eq!(reduce_sum(&p, 1).unwrap().shape(), Shape::new(vec![None]));
    assert_eq!(
        Reduce::max()
            .axis(0)
            .keep_dims(true)
            .build(&p)
            .unwrap()
            .shape(),
        Shape::new(vec![Some(1), Some(3)])
    );
    // TensorFlow 2.21's ValueError from its shape function.
    let e = reduce_sum(&p, 2).unwrap_err();
    assert_eq!(
        e.message(),
        "Invalid reduction dimension 2 for input with 2 dimensions."
    );
    assert_eq!(e.node().unwrap().op_type, "Sum");
    // A repeated axis builds (static shape [?], as TensorFlow's) and fails in the kernel.
    let dup = reduce_sum(&p, [1, -1]).unwrap();
    assert_eq!(dup.shape(), Shape::new(vec![None]));
    let x = Tensor::from_vec(&[2, 3], vec![1.0f32; 6]).unwrap();
    let e = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().fetch(&dup).feed(&p, x))
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Invalid reduction arguments: Axes contains duplicate dimension: 1"
    );
    // Axes fed at run time: rank known only with keep_dims.
    let ax = placeholder(&g, DType::I32, Shape::unknown()).unwrap();
    let r = reduce_sum(&p, &ax).unwrap();
    assert_eq!(r.shape(), Shape::unknown());
    let rk = Reduce::sum().axis(&ax).keep_dims(true).build(&p).unwrap();
    assert_eq!(rk.shape(), Shape::unknown_of_rank(2));
    let sess = Session::new(&g).unwrap();
    let x = m(&[2, 3], vec![1.0f32, 2., 3., 4., 5., 6.]);
    let out = sess
        .run(
            &RunArgs::new()
                .feed(&p, x.clone())
                .feed(&ax, Tensor::from(vec![-1i32]))
                .fetch(&r)
                .fetch(&rk),
        )
        .unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![6., 15.]);
    assert_eq!(out[1].shape(), &[2, 1]);
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, x)
                .feed(&ax, Tensor::from(vec![5i32]))
                .fetch(&r),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(e.node().unwrap().op_type, "Sum");
    // All axes of a tensor of unknown rank: computed in the graph from its rank.
    let u = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let s = reduce_sum(&u, Axes::All).unwrap();
    let out = sess
        .run(
            &RunArgs::new()
                .feed(&u, m(&[2, 2], vec![1i64, 2, 3, 4]))
                .fetch(&s),
        )
        .unwrap();
    assert_eq!(out[0].shape(), &[] as &[usize]);
    assert_eq!(out[0].to_vec::<i64>().unwrap(), vec![10]);
    // Method form.
    assert_eq!(
        eval(&constant(&g, [1.0f32, 3.0]).unwrap().reduce_mean(0).unwrap())
            .to_vec::<f32>()
            .unwrap(),
        vec![2.0]
    );
}

#[test]
fn argmax_and_argmin() {
    let g = Graph::new();
    let x = constant(&g, m(&[2, 3], vec![1.0f32, 9.0, 9.0, 7.0, -2.0, 7.0])).unwrap();
    let a = arg_max(&x, 1).unwrap();
    assert_eq!(a.dtype(), DType::I64);
    assert_eq!(a.shape(), Shape::known(&[2]));
    assert_eq!(eval(&a).to_vec::<i64>().unwrap(), vec![1, 0]);
    assert_eq!(
        eval(&arg_min(&x, 0).unwrap()).to_vec::<i64>().unwrap(),
        vec![0, 1, 1]
    );
    let a32 = arg_max_typed(&x, -2, DType::I32).unwrap();
    assert_eq!(eval(&a32).to_vec::<i32>().unwrap(), vec![1, 0, 0]);
    let e = arg_max(&x, 2).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected dimension in the range [-2, 2), but got 2"
    );
    let empty = constant(&g, m(&[2, 0], Vec::<f32>::new())).unwrap();
    let err = Session::new(&g)
        .unwrap()
        .eval(arg_max(&empty, 1).unwrap())
        .unwrap_err();
    assert_eq!(err.message(), "Reduction axis 1 is empty in shape [2,0]");
    assert!(arg_max_typed(&x, 0, DType::F32).is_err());
}

#[test]
fn cumulative_sums_and_products() {
    // Ported from scan_ops_test.py: exclusive/reverse along each axis.
    let g = Graph::new();
    let x = constant(&g, m(&[2, 3], vec![1, 2, 3, 4, 5, 6])).unwrap();
    assert_eq!(
        eval(&cumsum(&x, 1).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, 3, 6, 4, 9, 15]
    );
    assert_eq!(
        eval(&cumsum(&x, 0).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, 2, 3, 5, 7, 9]
    );
    let ex = Scan::sum().axis(-1).exclusive(true).build(&x).unwrap();
    assert_eq!(eval(&ex).to_vec::<i32>().unwrap(), vec![0, 1, 3, 0, 4, 9]);
    let rev = Scan::sum().axis(1).reverse(true).build(&x).unwrap();
    assert_eq!(
        eval(&rev).to_vec::<i32>().unwrap(),
        vec![6, 5, 3, 15, 11, 6]
    );
    let both = Scan::sum()
        .axis(0)
        .exclusive(true)
        .reverse(true)
        .build(&x)
        .unwrap();
    assert_eq!(eval(&both).to_vec::<i32>().unwrap(), vec![4, 5, 6, 0, 0, 0]);
    assert_eq!(
        eval(&cumprod(&x, 1).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, 2, 6, 4, 20, 120]
    );
    let e = cumsum(&x, 2).unwrap_err();
    assert_eq!(
        e.message(),
        "ScanOp: Expected scan axis in the range [-2, 2), but got 2"
    );
    let empty = constant(&g, m(&[0, 2], Vec::<f32>::new())).unwrap();
    assert_eq!(eval(&cumsum(&empty, 0).unwrap()).shape(), &[0, 2]);
}

#[test]
fn matmul_transposes() {
    let g = Graph::new();
    let a = constant(&g, m(&[2, 3], vec![1.0f32, 2., 3., 4., 5., 6.])).unwrap();
    let b = constant(&g, m(&[3, 2], vec![7.0f32, 8., 9., 10., 11., 12.])).unwrap();
    let c = matmul(&a, &b).unwrap();
    assert_eq!(c.shape(), Shape::known(&[2, 2]));
    assert_eq!(
        eval(&c).to_vec::<f32>().unwrap(),
        vec![58., 64., 139., 154.]
    );
    let at = MatMul::new()
        .transpose_a(true)
        .transpose_b(true)
        .build(&b, &a)
        .unwrap();
    assert_eq!(at.shape(), Shape::known(&[2, 2]));
    assert_eq!(
        eval(&at).to_vec::<f32>().unwrap(),
        vec![58., 139., 64., 154.]
    );
    let e = matmul(&a, &a).unwrap_err();
    assert!(
        e.message()
            .contains("Dimensions must be equal, but are 3 and 2"),
        "{e}"
    );
    assert_eq!(e.node().unwrap().op_type, "MatMul");
    let ai = constant(&g, m(&[1, 2], vec![i64::MAX, 2])).unwrap();
    let bi = constant(&g, m(&[2, 1], vec![2i64, 3])).unwrap();
    assert_eq!(
        eval(&matmul(&ai, &bi).unwrap()).to_vec::<i64>().unwrap(),
        vec![4]
    );
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(3)])).unwrap();
    assert_eq!(
        x.matmul(&b).unwrap().shape(),
        Shape::new(vec![None, Some(2)])
    );
    let empty = constant(&g, m(&[0, 3], Vec::<f32>::new())).unwrap();
    assert_eq!(eval(&matmul(&empty, &b).unwrap()).shape(), &[0, 2]);
}

#[test]
fn batched_matmul_broadcasts_batch_dims() {
    let g = Graph::new();
    let a = constant(&g, m(&[2, 2, 3], (1..=12).map(|v| v as f64).collect())).unwrap();
    let b = constant(&g, m(&[1, 3, 1], vec![1.0f64, 0.0, -1.0])).unwrap();
    let c = matmul(&a, &b).unwrap();
    assert_eq!(c.op().op_type(), "BatchMatMulV2");
    assert_eq!(c.shape(), Shape::known(&[2, 2, 1]));
    assert_eq!(
        eval(&c).to_vec::<f64>().unwrap(),
        vec![-2.0, -2.0, -2.0, -2.0]
    );
    // adj_y over a rank-2 operand that broadcasts over the batch.
    let w = constant(&g, m(&[1, 3], vec![1.0f64, 1.0, 1.0])).unwrap();
    let d = MatMul::new().transpose_b(true).build(&a, &w).unwrap();
    assert_eq!(d.shape(), Shape::known(&[2, 2, 1]));
    assert_eq!(
        eval(&d).to_vec::<f64>().unwrap(),
        vec![6.0, 15.0, 24.0, 33.0]
    );
    let bad = constant(&g, m(&[3, 3, 2], vec![0.0f64; 18])).unwrap();
    let e = matmul(&a, &bad).unwrap_err();
    assert!(e.message().contains("Dimensions must be equal"), "{e}");
    let p = placeholder(&g, DType::F64, Shape::new(vec![None, Some(2), Some(3)])).unwrap();
    assert_eq!(
        matmul(&p, &b).unwrap().shape(),
        Shape::new(vec![None, Some(2), Some(1)])
    );
    let u = placeholder(&g, DType::F64, Shape::unknown()).unwrap();
    let cu = matmul(&u, &b).unwrap();
    let fed = m(&[2, 3], vec![1.0f64, 2., 3., 4., 5., 6.]);
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().feed(&u, fed).fetch(&cu))
        .unwrap();
    assert_eq!(out[0].shape(), &[1, 2, 1]);
    assert_eq!(out[0].to_vec::<f64>().unwrap(), vec![-2.0, -2.0]);
    // Both of unknown rank and fed matrices: a matrix product, with the batched wording of a
    // size mismatch.
    let v = placeholder(&g, DType::F64, Shape::unknown()).unwrap();
    let uv = matmul(&u, &v).unwrap();
    assert_eq!(uv.op().op_type(), "BatchMatMulV2");
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(
            &RunArgs::new()
                .feed(&u, m(&[2, 3], vec![1.0f64, 2., 3., 4., 5., 6.]))
                .feed(&v, m(&[3, 1], vec![1.0f64, 0.0, -1.0]))
                .fetch(&uv),
        )
        .unwrap();
    assert_eq!(out[0].shape(), &[2, 1]);
    assert_eq!(out[0].to_vec::<f64>().unwrap(), vec![-2.0, -2.0]);
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&u, m(&[2, 3], vec![0.0f64; 6]))
                .feed(&v, m(&[2, 3], vec![0.0f64; 6]))
                .fetch(&uv),
        )
        .unwrap_err();
    assert!(
        e.message()
            .contains("Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]"),
        "{e}"
    );
}
