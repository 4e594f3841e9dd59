//! `TopKV2` against TensorFlow 2.21 (`tf.compat.v1` graph and Session, CPU): every expected
//! value, index, shape and message below is what TensorFlow returned for the same input.

use weir_graph::{DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::{top_k, top_k_v2};
use weir_session::{RunArgs, Session};

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

/// `(values, indices)` of `top_k(x, k, sorted)` for a constant `x`.
fn run(x: Tensor, k: i32, sorted: bool) -> Result<(Tensor, Tensor)> {
    let g = Graph::new();
    let (v, i) = top_k(constant(&g, x)?, k, sorted)?;
    let mut out = Session::new(&g)?.run(&RunArgs::new().fetch(&v).fetch(&i))?;
    let i = out.remove(1);
    Ok((out.remove(0), i))
}

fn f32s(shape: &[usize], v: Vec<f32>) -> Tensor {
    Tensor::from_vec(shape, v).unwrap()
}

/// Checks float values (NaN equal to NaN), indices and the output shape.
fn check_f32(x: Tensor, k: i32, sorted: bool, values: &[f32], indices: &[i32]) -> Result<()> {
    let shape_in = x.shape().to_vec();
    let (v, i) = run(x, k, sorted)?;
    let got = v.to_vec::<f32>()?;
    let same = got.len() == values.len()
        && got
            .iter()
            .zip(values)
            .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
    assert!(
        same,
        "k={k} sorted={sorted}: values {got:?}, want {values:?}"
    );
    assert_eq!(i.to_vec::<i32>()?, indices, "k={k} sorted={sorted}");
    let mut want_shape = shape_in;
    if let Some(last) = want_shape.last_mut() {
        *last = k as usize;
    }
    assert_eq!(v.shape(), want_shape.as_slice());
    assert_eq!(i.shape(), want_shape.as_slice());
    Ok(())
}

fn ties() -> Tensor {
    f32s(&[2, 5], vec![1., 3., 2., 3., 0., 5., 4., 5., 4., 5.])
}

#[test]
fn ties_keep_the_lower_index_first() -> Result<()> {
    check_f32(
        ties(),
        3,
        true,
        &[3., 3., 2., 5., 5., 5.],
        &[1, 3, 2, 0, 2, 4],
    )?;
    check_f32(
        ties(),
        5,
        true,
        &[3., 3., 2., 1., 0., 5., 5., 5., 4., 4.],
        &[1, 3, 2, 0, 4, 0, 2, 4, 1, 3],
    )?;
    check_f32(ties(), 1, true, &[3., 5.], &[1, 0])?;
    check_f32(ties(), 0, true, &[], &[])
}

#[test]
fn unsorted_output_is_tensorflows_heap_order() -> Result<()> {
    check_f32(
        ties(),
        3,
        false,
        &[2., 3., 3., 5., 5., 5.],
        &[2, 3, 1, 4, 0, 2],
    )?;
    let row = || f32s(&[7], vec![5., 1., 9., 3., 7., 2., 8.]);
    check_f32(row(), 4, false, &[5., 7., 9., 8.], &[0, 4, 2, 6])?;
    check_f32(
        row(),
        6,
        false,
        &[2., 3., 8., 5., 7., 9.],
        &[5, 3, 6, 0, 4, 2],
    )?;
    // k = 1 and k = the row length ignore `sorted`.
    check_f32(row(), 1, false, &[9.], &[2])?;
    check_f32(
        row(),
        7,
        false,
        &[9., 8., 7., 5., 3., 2., 1.],
        &[2, 6, 4, 0, 3, 5, 1],
    )?;
    let ints = Tensor::from_vec(&[2, 4], vec![3i32, -1, 7, 7, 0, 0, -5, 2])?;
    let (v, i) = run(ints, 3, false)?;
    assert_eq!(v.to_vec::<i32>()?, [3, 7, 7, 0, 2, 0]);
    assert_eq!(i.to_vec::<i32>()?, [0, 3, 2, 1, 3, 0]);
    let bytes = Tensor::from(vec![200u8, 3, 255, 7, 0, 255]);
    let (v, i) = run(bytes, 4, false)?;
    assert_eq!(v.to_vec::<u8>()?, [7, 200, 255, 255]);
    assert_eq!(i.to_vec::<i32>()?, [3, 0, 2, 5]);
    Ok(())
}

#[test]
fn nan_lands_where_tensorflow_puts_it() -> Result<()> {
    let mid = || f32s(&[5], vec![1., NAN, 2., 3., 0.]);
    // k = 1 is Eigen's max, which drops this NaN.
    check_f32(mid(), 1, true, &[3.], &[3])?;
    // The heap takes NaN as tied with everything, so its lower index wins.
    check_f32(mid(), 2, true, &[NAN, 3.], &[1, 3])?;
    check_f32(mid(), 4, true, &[NAN, 3., 2., 1.], &[1, 3, 2, 0])?;
    check_f32(mid(), 3, false, &[2., 3., NAN], &[2, 3, 1])?;
    // k = row length is std::sort with a NaN in it.
    check_f32(mid(), 5, true, &[3., 2., 1., NAN, 0.], &[3, 2, 0, 1, 4])?;
    check_f32(
        f32s(&[5], vec![NAN, 1., 2., 3., 0.]),
        5,
        true,
        &[NAN, 3., 2., 1., 0.],
        &[0, 3, 2, 1, 4],
    )?;
    // A NaN last in a row shorter than a packet is Eigen's max: no column equals it, column 0.
    check_f32(f32s(&[5], vec![1., 2., 3., 0., NAN]), 1, true, &[1.], &[0])?;
    // In a whole 8-float packet the max drops it.
    let packet = f32s(&[8], vec![1., 2., 3., 4., 5., 6., 7., NAN]);
    check_f32(packet, 1, true, &[7.], &[6])?;
    let mut floor = vec![-INF; 9];
    floor[0] = NAN;
    check_f32(f32s(&[9], floor), 1, true, &[-INF], &[1])?;

    // A 40-long row (introsort and a deeper heap) with four NaNs.
    let mut row: Vec<f32> = (0..40).map(|i| ((i * 17) % 13) as f32).collect();
    for p in [3, 11, 22, 39] {
        row[p] = NAN;
    }
    let long = || f32s(&[40], row.clone());
    check_f32(
        long(),
        40,
        true,
        &[
            12., 12., 11., 11., 11., 10., 10., 9., 9., 9., 8., 8., 8., 7., 7., 7., 6., 6., 6., 5.,
            5., 4., NAN, 4., 1., NAN, 4., 3., 3., 2., 0., 0., NAN, 3., 2., 2., 1., 1., NAN, 0.,
        ],
        &[
            16, 29, 6, 19, 32, 9, 35, 12, 25, 38, 2, 15, 28, 5, 18, 31, 8, 21, 34, 24, 37, 27, 39,
            1, 23, 22, 14, 17, 30, 20, 13, 26, 11, 4, 7, 33, 10, 36, 3, 0,
        ],
    )?;
    check_f32(
        long(),
        7,
        false,
        &[11., 11., 11., NAN, 4., 12., 12.],
        &[32, 6, 19, 3, 1, 16, 29],
    )?;
    check_f32(
        long(),
        7,
        true,
        &[NAN, 12., 12., 4., 11., 11., 11.],
        &[3, 16, 29, 1, 6, 19, 32],
    )?;
    let (_, i) = run(long(), 39, false)?;
    assert_eq!(
        i.to_vec::<i32>()?,
        [
            26, 0, 13, 36, 22, 23, 30, 33, 17, 20, 10, 24, 5, 27, 14, 31, 7, 8, 37, 9, 4, 21, 1,
            11, 2, 25, 12, 6, 28, 29, 19, 15, 32, 16, 34, 35, 3, 18, 38
        ]
    );
    Ok(())
}

#[test]
fn three_d_integer_and_double_inputs() -> Result<()> {
    let x3: Vec<f32> = (0..16).map(|i| ((i * 7) % 11) as f32).collect();
    check_f32(
        f32s(&[2, 2, 4], x3),
        2,
        true,
        &[10., 7., 9., 6., 8., 4., 10., 7.],
        &[3, 1, 2, 0, 1, 2, 2, 0],
    )?;
    let ints = Tensor::from_vec(&[2, 4], vec![3i32, -1, 7, 7, 0, 0, -5, 2])?;
    let (v, i) = run(ints, 2, true)?;
    assert_eq!((v.dtype(), v.shape()), (DType::I32, &[2usize, 2][..]));
    assert_eq!(v.to_vec::<i32>()?, [7, 7, 2, 0]);
    assert_eq!(i.to_vec::<i32>()?, [2, 3, 3, 0]);
    let (v, i) = run(Tensor::from(vec![1.5f64, -2.25, 9.0, 0.5]), 3, true)?;
    assert_eq!(v.to_vec::<f64>()?, [9.0, 1.5, 0.5]);
    assert_eq!(i.to_vec::<i32>()?, [2, 0, 3]);
    Ok(())
}

#[test]
fn static_shapes_replace_the_last_dimension_by_k() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, None, Some(7)]))?;
    let (v, i) = top_k(&x, 3, true)?;
    assert_eq!(v.shape(), Shape::new(vec![None, None, Some(3)]));
    assert_eq!(i.shape(), Shape::new(vec![None, None, Some(3)]));
    assert_eq!((v.dtype(), i.dtype()), (DType::F32, DType::I32));
    let k = placeholder(&g, DType::I32, Shape::scalar())?;
    let (v, _) = top_k_v2(&x, &k, true)?;
    assert_eq!(v.shape(), Shape::unknown_of_rank(3));
    let free = placeholder(&g, DType::F32, Shape::unknown())?;
    assert_eq!(top_k(&free, 3, true)?.0.shape(), Shape::unknown());
    // An unknown last dimension cannot be checked against k.
    let x2 = placeholder(&g, DType::F32, Shape::new(vec![Some(2), None]))?;
    assert_eq!(top_k(&x2, 3, true)?.1.shape(), Shape::known(&[2, 3]));
    Ok(())
}

#[test]
fn build_time_errors_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    let x = constant(&g, [1.0f32, 2.0, 3.0])?;
    let msg = |r: Result<_>| r.map(|_: (_, _)| ()).unwrap_err().message().to_string();
    assert_eq!(
        msg(top_k(&x, 4, true)),
        "input must have last dimension >= k = 4 but is 3 for 'TopKV2' with input shapes: [3], [] \
         and with computed input tensors: input[1] = <4>."
    );
    assert_eq!(
        msg(top_k(&x, -1, true)),
        "Dimension size, given by scalar input 1, must be non-negative but is -1 for 'TopKV2' \
         with input shapes: [3], [] and with computed input tensors: input[1] = <-1>."
    );
    assert_eq!(
        msg(top_k(constant(&g, 1.0f32)?, 1, true)),
        "Shape must be at least rank 1 but is rank 0 for 'TopKV2' with input shapes: [], []."
    );
    let row = constant(&g, Tensor::from_vec(&[1, 3], vec![1.0f32, 2.0, 3.0])?)?;
    assert_eq!(
        msg(top_k_v2(&row, constant(&g, [1i32, 2])?, true)),
        "Input must be scalar but has rank 1 for 'TopKV2' with input shapes: [1,3], [2] and \
         with computed input tensors: input[1] = <1 2>."
    );
    // TensorFlow's Python refuses bool before building (a TypeError); weir when building.
    let e = top_k(constant(&g, [true])?, 1, true).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    Ok(())
}

#[test]
fn run_time_errors_and_empty_inputs_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::unknown())?;
    let k = placeholder(&g, DType::I32, Shape::unknown())?;
    let (v, i) = top_k_v2(&x, &k, true)?;
    let sess = Session::new(&g)?;
    let go = |xv: Tensor, kv: Tensor| {
        sess.run(&RunArgs::new().feed(&x, xv).feed(&k, kv).fetch(&v).fetch(&i))
    };
    let err = |xv: Tensor, kv: Tensor| {
        let e = go(xv, kv).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        e.message().to_string()
    };
    let row = || Tensor::from(vec![1.0f32, 2.0, 3.0]);
    assert_eq!(err(row(), Tensor::from(-1i32)), "Need k >= 0, got -1");
    assert_eq!(
        err(Tensor::from(1.0f32), Tensor::from(1i32)),
        "input must be >= 1-D, got shape []"
    );
    assert_eq!(
        err(Tensor::from(1.0f32), Tensor::from(0i32)),
        "input must be >= 1-D, got shape []"
    );
    assert_eq!(
        err(row(), Tensor::from(4i32)),
        "input must have at least k columns. Had 3, needed 4"
    );
    assert_eq!(
        err(f32s(&[1, 3], vec![1.0, 2.0, 3.0]), Tensor::from(vec![1i32])),
        "k must be scalar, got shape [1]"
    );
    assert_eq!(
        err(f32s(&[2, 0], vec![]), Tensor::from(1i32)),
        "input must have at least k columns. Had 0, needed 1"
    );
    for (shape, kv, want) in [
        (vec![0, 3], 2, vec![0, 2]),
        (vec![2, 0], 0, vec![2, 0]),
        (vec![0], 0, vec![0]),
    ] {
        let out = go(f32s(&shape, vec![]), Tensor::from(kv))?;
        assert_eq!(out[0].shape(), want.as_slice());
        assert_eq!(out[1].shape(), want.as_slice());
    }
    Ok(())
}
