//! Elementwise math through a Session: broadcasting, dtype rules, TensorFlow's integer
//! semantics, NaN, unary functions, comparisons and operators.

use weir_graph::{Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::*;
use weir_session::{RunArgs, Session};

fn eval(t: &Output) -> Tensor {
    Session::new(t.graph()).unwrap().eval(t).unwrap()
}

fn eval_err(t: &Output) -> weir_graph::Error {
    Session::new(t.graph()).unwrap().eval(t).unwrap_err()
}

fn m<T: weir_graph::TensorType>(shape: &[usize], v: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, v).unwrap()
}

#[test]
fn broadcasting_rank0_and_size1_dims() {
    let g = Graph::new();
    let x = constant(&g, m(&[2, 3], vec![1.0f32, 2., 3., 4., 5., 6.])).unwrap();
    let s = constant(&g, 10.0f32).unwrap();
    let col = constant(&g, m(&[2, 1], vec![100.0f32, 200.])).unwrap();
    let row3 = constant(&g, m(&[1, 1, 3], vec![1.0f32, 0., -1.])).unwrap();
    assert_eq!(
        eval(&add(&x, &s).unwrap()).to_vec::<f32>().unwrap(),
        vec![11., 12., 13., 14., 15., 16.]
    );
    assert_eq!(
        eval(&sub(&s, &x).unwrap()).to_vec::<f32>().unwrap(),
        vec![9., 8., 7., 6., 5., 4.]
    );
    assert_eq!(
        eval(&mul(&x, &col).unwrap()).to_vec::<f32>().unwrap(),
        vec![100., 200., 300., 800., 1000., 1200.]
    );
    let r = add(&x, &row3).unwrap();
    assert_eq!(r.shape(), Shape::known(&[1, 2, 3]));
    let t = eval(&r);
    assert_eq!(t.shape(), &[1, 2, 3]);
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![2., 2., 2., 5., 5., 5.]);
    // Outer product of a column and a row.
    let o = eval(&mul(&col, constant(&g, [1.0f32, 2.0]).unwrap()).unwrap());
    assert_eq!(o.shape(), &[2, 2]);
    assert_eq!(o.to_vec::<f32>().unwrap(), vec![100., 200., 200., 400.]);
}

#[test]
fn empty_tensors_broadcast() {
    let g = Graph::new();
    let e = constant(&g, m(&[0, 3], Vec::<i32>::new())).unwrap();
    let r = add(&e, constant(&g, [1, 2, 3]).unwrap()).unwrap();
    assert_eq!(r.shape(), Shape::known(&[0, 3]));
    assert_eq!(eval(&r).shape(), &[0, 3]);
    let r = maximum(&e, constant(&g, 1).unwrap()).unwrap();
    assert_eq!(eval(&r).shape(), &[0, 3]);
}

#[test]
fn static_shapes_keep_unknown_dims_and_reject_known_mismatch() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(3)])).unwrap();
    let b = constant(&g, [1.0f32, 2.0, 3.0]).unwrap();
    assert_eq!(
        add(&x, &b).unwrap().shape(),
        Shape::new(vec![None, Some(3)])
    );
    let u = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    assert_eq!(mul(&x, &u).unwrap().shape(), Shape::unknown());
    let c = constant(&g, [1.0f32, 2.0]).unwrap();
    let e = add(&x, &c).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .contains("Dimensions must be equal, but are 3 and 2"),
        "{e}"
    );
    let node = e.node().expect("the error names the node");
    assert_eq!(node.op_type, "AddV2");
    assert_eq!(node.name, "AddV2_1");
}

#[test]
fn runtime_shape_mismatch_names_the_node() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let y = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let z = sub(&x, &y).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&x, Tensor::from(vec![1.0f32, 2.0]))
                .feed(&y, Tensor::from(vec![1.0f32; 3]))
                .fetch(&z),
        )
        .unwrap_err();
    assert_eq!(e.message(), "Incompatible shapes: [2] vs. [3]");
    assert_eq!(e.node().unwrap().name, "Sub");
}

#[test]
fn dtype_errors_at_build_time() {
    let g = Graph::new();
    let f = constant(&g, 1.0f32).unwrap();
    let i = constant(&g, 1i32).unwrap();
    let e = add(&f, &i).unwrap_err();
    assert!(e.message().contains("does not match expected type"), "{e}");
    let e = sqrt(&i).unwrap_err();
    assert!(e.message().contains("not in list of allowed values"), "{e}");
    let e = realdiv(&i, &i).unwrap_err();
    assert!(e.message().contains("not in list of allowed values"), "{e}");
    let b = constant(&g, true).unwrap();
    assert!(add(&b, &b).is_err());
    assert!(logical_and(&f, &f).is_err());
    assert!(neg(constant(&g, 1u8).unwrap()).is_err());
}

#[test]
fn integer_overflow_wraps() {
    let g = Graph::new();
    let x = constant(&g, [i32::MAX, i32::MIN]).unwrap();
    let one = constant(&g, 1i32).unwrap();
    assert_eq!(
        eval(&add(&x, &one).unwrap()).to_vec::<i32>().unwrap(),
        vec![i32::MIN, i32::MIN + 1]
    );
    assert_eq!(
        eval(&sub(&x, &one).unwrap()).to_vec::<i32>().unwrap(),
        vec![i32::MAX - 1, i32::MAX]
    );
    let u = constant(&g, [250u8]).unwrap();
    assert_eq!(
        eval(&add(&u, constant(&g, 10u8).unwrap()).unwrap())
            .to_vec::<u8>()
            .unwrap(),
        vec![4]
    );
    assert_eq!(
        eval(&mul(&x, constant(&g, 2i32).unwrap()).unwrap())
            .to_vec::<i32>()
            .unwrap(),
        vec![-2, 0]
    );
    assert_eq!(
        eval(&neg(&x).unwrap()).to_vec::<i32>().unwrap(),
        vec![-i32::MAX, i32::MIN]
    );
    assert_eq!(
        eval(&abs(&x).unwrap()).to_vec::<i32>().unwrap(),
        vec![i32::MAX, i32::MIN]
    );
    assert_eq!(
        eval(&square(constant(&g, [65536i32]).unwrap()).unwrap())
            .to_vec::<i32>()
            .unwrap(),
        vec![0]
    );
}

#[test]
fn integer_division_by_zero_is_invalid_argument() {
    let g = Graph::new();
    let x = constant(&g, [1i32, 2]).unwrap();
    let y = constant(&g, [1i32, 0]).unwrap();
    for (out, op) in [
        (floordiv(&x, &y).unwrap(), "FloorDiv"),
        (floormod(&x, &y).unwrap(), "FloorMod"),
        (truncatediv(&x, &y).unwrap(), "TruncateDiv"),
        (truncatemod(&x, &y).unwrap(), "TruncateMod"),
        (div(&x, &y).unwrap(), "FloorDiv"),
    ] {
        let e = eval_err(&out);
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(e.message(), "Integer division by zero");
        assert_eq!(e.node().unwrap().op_type, op);
    }
    // Floats divide by zero into infinities and NaN.
    let f = eval(
        &realdiv(
            constant(&g, [1.0f64, 0.0]).unwrap(),
            constant(&g, 0.0f64).unwrap(),
        )
        .unwrap(),
    );
    let f = f.to_vec::<f64>().unwrap();
    assert_eq!(f[0], f64::INFINITY);
    assert!(f[1].is_nan());
}

#[test]
fn division_flavours_match_tensorflow() {
    // Ported from math_ops_test.py DivAndModTest: floor division and modulo signs.
    let g = Graph::new();
    let x = constant(&g, [5i32, -5, 5, -5, 7]).unwrap();
    let y = constant(&g, [3i32, 3, -3, -3, 7]).unwrap();
    assert_eq!(
        eval(&floordiv(&x, &y).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, -2, -2, 1, 1]
    );
    assert_eq!(
        eval(&floormod(&x, &y).unwrap()).to_vec::<i32>().unwrap(),
        vec![2, 1, -1, -2, 0]
    );
    assert_eq!(
        eval(&truncatediv(&x, &y).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, -1, -1, 1, 1]
    );
    assert_eq!(
        eval(&truncatemod(&x, &y).unwrap()).to_vec::<i32>().unwrap(),
        vec![2, -2, 2, -2, 0]
    );
    // TF1's tf.div floors integers; truediv makes int32 float64.
    assert_eq!(
        eval(&div(&x, &y).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, -2, -2, 1, 1]
    );
    let t = truediv(&x, &y).unwrap();
    assert_eq!(t.dtype(), DType::F64);
    let v = eval(&t).to_vec::<f64>().unwrap();
    assert!((v[0] - 5.0 / 3.0).abs() < 1e-12 && v[4] == 1.0);
    let b = truediv(constant(&g, [3u8]).unwrap(), constant(&g, [2u8]).unwrap()).unwrap();
    assert_eq!(b.dtype(), DType::F32);
    assert_eq!(eval(&b).to_vec::<f32>().unwrap(), vec![1.5]);
    // Float floor division and modulo.
    let fx = constant(&g, [5.5f32, -5.5]).unwrap();
    let fy = constant(&g, 2.0f32).unwrap();
    assert_eq!(
        eval(&floordiv(&fx, &fy).unwrap()).to_vec::<f32>().unwrap(),
        vec![2.0, -3.0]
    );
    assert_eq!(
        eval(&floormod(&fx, &fy).unwrap()).to_vec::<f32>().unwrap(),
        vec![1.5, 0.5]
    );
}

#[test]
fn pow_and_squared_difference() {
    let g = Graph::new();
    let x = constant(&g, [2i32, -3, 0]).unwrap();
    assert_eq!(
        eval(&pow(&x, constant(&g, 3i32).unwrap()).unwrap())
            .to_vec::<i32>()
            .unwrap(),
        vec![8, -27, 0]
    );
    let e = eval_err(&pow(&x, constant(&g, [1i32, -1, 2]).unwrap()).unwrap());
    assert_eq!(
        e.message(),
        "Integers to negative integer powers are not allowed"
    );
    let f = eval(
        &pow(
            constant(&g, [4.0f32, -8.0]).unwrap(),
            constant(&g, [0.5f32, 1.0 / 3.0]).unwrap(),
        )
        .unwrap(),
    );
    let f = f.to_vec::<f32>().unwrap();
    assert_eq!(f[0], 2.0);
    assert!(f[1].is_nan());
    let d = squared_difference(
        constant(&g, [1.0f32, 5.0]).unwrap(),
        constant(&g, 3.0f32).unwrap(),
    )
    .unwrap();
    assert_eq!(eval(&d).to_vec::<f32>().unwrap(), vec![4.0, 4.0]);
}

#[test]
fn nan_propagation() {
    let g = Graph::new();
    let x = constant(&g, [f32::NAN, 1.0, 2.0]).unwrap();
    let y = constant(&g, [0.0f32, f32::NAN, 1.0]).unwrap();
    let mx = eval(&maximum(&x, &y).unwrap()).to_vec::<f32>().unwrap();
    assert!(mx[0].is_nan() && mx[1].is_nan());
    assert_eq!(mx[2], 2.0);
    let mn = eval(&minimum(&x, &y).unwrap()).to_vec::<f32>().unwrap();
    assert!(mn[0].is_nan() && mn[1].is_nan());
    assert_eq!(mn[2], 1.0);
    let s = eval(&add(&x, &y).unwrap()).to_vec::<f32>().unwrap();
    assert!(s[0].is_nan() && s[1].is_nan());
    for (op, want) in [
        (equal(&x, &x).unwrap(), vec![false, true, true]),
        (not_equal(&x, &x).unwrap(), vec![true, false, false]),
        (less(&x, &y).unwrap(), vec![false, false, false]),
        (greater_equal(&x, &y).unwrap(), vec![false, false, true]),
    ] {
        assert_eq!(eval(&op).to_vec::<bool>().unwrap(), want);
    }
    let n = eval(&is_nan(&x).unwrap()).to_vec::<bool>().unwrap();
    assert_eq!(n, vec![true, false, false]);
    let r = eval(&sqrt(constant(&g, [-1.0f32]).unwrap()).unwrap())
        .to_vec::<f32>()
        .unwrap();
    assert!(r[0].is_nan());
}

#[test]
fn unary_functions() {
    let g = Graph::new();
    let x = constant(&g, [-2.5f32, -0.5, 0.5, 1.5, 2.5]).unwrap();
    assert_eq!(
        eval(&round(&x).unwrap()).to_vec::<f32>().unwrap(),
        vec![-2.0, -0.0, 0.0, 2.0, 2.0]
    );
    assert_eq!(
        eval(&floor(&x).unwrap()).to_vec::<f32>().unwrap(),
        vec![-3.0, -1.0, 0.0, 1.0, 2.0]
    );
    assert_eq!(
        eval(&ceil(&x).unwrap()).to_vec::<f32>().unwrap(),
        vec![-2.0, -0.0, 1.0, 2.0, 3.0]
    );
    assert_eq!(
        eval(&sign(&x).unwrap()).to_vec::<f32>().unwrap(),
        vec![-1.0, -1.0, 1.0, 1.0, 1.0]
    );
    assert_eq!(
        eval(&abs(&x).unwrap()).to_vec::<f32>().unwrap(),
        vec![2.5, 0.5, 0.5, 1.5, 2.5]
    );
    assert_eq!(
        eval(&sign(constant(&g, [-4i64, 0, 9]).unwrap()).unwrap())
            .to_vec::<i64>()
            .unwrap(),
        vec![-1, 0, 1]
    );
    let y = constant(&g, [0.0f64, 1.0]).unwrap();
    let close = |t: Output, want: Vec<f64>| {
        let got = eval(&t).to_vec::<f64>().unwrap();
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-12, "{got:?} vs {want:?}");
        }
    };
    close(exp(&y).unwrap(), vec![1.0, std::f64::consts::E]);
    close(log1p(&y).unwrap(), vec![0.0, 2f64.ln()]);
    close(sin(&y).unwrap(), vec![0.0, 1f64.sin()]);
    close(cos(&y).unwrap(), vec![1.0, 1f64.cos()]);
    close(tanh(&y).unwrap(), vec![0.0, 1f64.tanh()]);
    close(sigmoid(&y).unwrap(), vec![0.5, 1.0 / (1.0 + (-1f64).exp())]);
    close(
        rsqrt(constant(&g, [4.0f64, 0.25]).unwrap()).unwrap(),
        vec![0.5, 2.0],
    );
    close(
        reciprocal(constant(&g, [4.0f64]).unwrap()).unwrap(),
        vec![0.25],
    );
    close(square(constant(&g, [3.0f64]).unwrap()).unwrap(), vec![9.0]);
    let l = eval(&log(constant(&g, [0.0f32]).unwrap()).unwrap())
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(l, vec![f32::NEG_INFINITY]);
    let unknown = placeholder(&g, DType::F32, Shape::new(vec![None, Some(2)])).unwrap();
    assert_eq!(
        tanh(&unknown).unwrap().shape(),
        Shape::new(vec![None, Some(2)])
    );
}

#[test]
fn comparisons_and_logic() {
    let g = Graph::new();
    let x = constant(&g, m(&[2, 2], vec![1, 2, 3, 4])).unwrap();
    let t = constant(&g, [2, 3]).unwrap();
    assert_eq!(
        eval(&less(&x, &t).unwrap()).to_vec::<bool>().unwrap(),
        vec![true, true, false, false]
    );
    assert_eq!(
        eval(&less_equal(&x, &t).unwrap()).to_vec::<bool>().unwrap(),
        vec![true, true, false, false]
    );
    assert_eq!(
        eval(&greater(&x, &t).unwrap()).to_vec::<bool>().unwrap(),
        vec![false, false, true, true]
    );
    assert_eq!(
        eval(&equal(&x, &t).unwrap()).to_vec::<bool>().unwrap(),
        vec![false, false, false, false]
    );
    let s = constant(&g, Tensor::from(vec!["a", "b"])).unwrap();
    let e = eval(&equal(&s, constant(&g, "b").unwrap()).unwrap());
    assert_eq!(e.to_vec::<bool>().unwrap(), vec![false, true]);
    let p = constant(&g, [true, true, false, false]).unwrap();
    let q = constant(&g, [true, false, true, false]).unwrap();
    assert_eq!(
        eval(&logical_and(&p, &q).unwrap())
            .to_vec::<bool>()
            .unwrap(),
        vec![true, false, false, false]
    );
    assert_eq!(
        eval(&logical_or(&p, &q).unwrap()).to_vec::<bool>().unwrap(),
        vec![true, true, true, false]
    );
    assert_eq!(
        eval(&logical_not(&p).unwrap()).to_vec::<bool>().unwrap(),
        vec![false, false, true, true]
    );
    assert!(less(&s, &s).is_err());
}

#[test]
fn operators_build_tensorflow_ops() {
    let g = Graph::new();
    let x = constant(&g, [1.0f32, 2.0, 3.0]).unwrap();
    let y = ((&x * 2.0).unwrap() + 1.0).unwrap();
    assert_eq!(eval(&y).to_vec::<f32>().unwrap(), vec![3.0, 5.0, 7.0]);
    let z = (1.0 - &x).unwrap();
    assert_eq!(eval(&z).to_vec::<f32>().unwrap(), vec![0.0, -1.0, -2.0]);
    let n = (-&x).unwrap();
    assert_eq!(n.op().op_type(), "Neg");
    assert_eq!(eval(&n).to_vec::<f32>().unwrap(), vec![-1.0, -2.0, -3.0]);
    let q = (&x / &x).unwrap();
    assert_eq!(eval(&q).to_vec::<f32>().unwrap(), vec![1.0, 1.0, 1.0]);
    // Integers: `/` is true division (float64 for int32), `%` is floormod.
    let i = constant(&g, [7i32, -7]).unwrap();
    let d = (&i / 2).unwrap();
    assert_eq!(d.dtype(), DType::F64);
    assert_eq!(eval(&d).to_vec::<f64>().unwrap(), vec![3.5, -3.5]);
    assert_eq!(
        eval(&(&i % 3).unwrap()).to_vec::<i32>().unwrap(),
        vec![1, 2]
    );
    let b = constant(&g, [true, false]).unwrap();
    let c = constant(&g, [true, true]).unwrap();
    assert_eq!(
        eval(&(&b & &c).unwrap()).to_vec::<bool>().unwrap(),
        vec![true, false]
    );
    assert_eq!(
        eval(&(&b | &c).unwrap()).to_vec::<bool>().unwrap(),
        vec![true, true]
    );
    assert_eq!(
        eval(&(!&b).unwrap()).to_vec::<bool>().unwrap(),
        vec![false, true]
    );
    // A scalar that does not fit the dtype is an error, not a silent conversion.
    assert!((&i * 2.5).is_err());
}
