//! `scatter_nd` and the sorted segment reductions through a Session; every value and message is
//! what TensorFlow 2.21 gives for the same inputs.

use weir_graph::{Code, Graph, Output, Tensor, TensorType};
use weir_ops::array::{constant, scatter_nd};
use weir_ops::math;
use weir_session::Session;

fn m<T: TensorType>(shape: &[usize], v: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, v).unwrap()
}

fn run(t: &Output) -> weir_graph::Result<Tensor> {
    Session::new(t.graph())?.eval(t)
}

fn scatter(i: Tensor, u: Tensor, s: Tensor) -> weir_graph::Result<Tensor> {
    let g = Graph::new();
    let out = scatter_nd(constant(&g, i)?, constant(&g, u)?, constant(&g, s)?)?;
    run(&out)
}

fn err(r: weir_graph::Result<Tensor>) -> (Code, String) {
    let e = r.expect_err("expected an error");
    (e.code(), e.message().to_string())
}

#[test]
fn scatter_nd_sums_duplicates_and_slices() {
    let r = scatter(
        m(&[5, 1], vec![4, 3, 1, 7, 1]),
        Tensor::from(vec![9.0f32, 10.0, 11.0, 12.0, 13.0]),
        Tensor::from(vec![8]),
    )
    .unwrap();
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        vec![0.0, 24.0, 0.0, 10.0, 9.0, 0.0, 0.0, 12.0]
    );
    let r = scatter(
        m(&[3, 1], vec![0, 2, 0]),
        m(&[3, 3], vec![1, 2, 3, 4, 5, 6, 7, 8, 9]),
        Tensor::from(vec![4, 3]),
    )
    .unwrap();
    assert_eq!(r.shape(), &[4, 3]);
    assert_eq!(
        r.to_vec::<i32>().unwrap(),
        vec![8, 10, 12, 0, 0, 0, 4, 5, 6, 0, 0, 0]
    );
    let r = scatter(
        m(&[2, 2], vec![1i64, 0, 0, 1]),
        Tensor::from(vec![5.0f64, 6.0]),
        Tensor::from(vec![2i64, 2]),
    )
    .unwrap();
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![0.0, 6.0, 5.0, 0.0]);
    let r = scatter(
        m(&[2, 1], vec![0i64, 2]),
        m(&[2, 2, 2], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]),
        Tensor::from(vec![4i64, 2, 2]),
    )
    .unwrap();
    assert_eq!(
        r.to_vec::<f64>().unwrap(),
        vec![1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 5.0, 6.0, 7.0, 8.0, 0.0, 0.0, 0.0, 0.0]
    );
    let r = scatter(
        m(&[3, 1], vec![0, 0, 2]),
        Tensor::from(vec![1i64, 2, 3]),
        Tensor::from(vec![3]),
    )
    .unwrap();
    assert_eq!(r.to_vec::<i64>().unwrap(), vec![3, 0, 3]);
    let r = scatter(
        m(&[0, 1], Vec::<i32>::new()),
        m(&[0], Vec::<f32>::new()),
        Tensor::from(vec![3]),
    )
    .unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![0.0; 3]);
}

#[test]
fn scatter_nd_errors_are_tensorflows() {
    let f = |v: Vec<f32>| Tensor::from(v);
    let cases: Vec<(Tensor, Tensor, Tensor, Code, &str)> = vec![
        (m(&[2, 1], vec![1, 5]), f(vec![1.0, 2.0]), Tensor::from(vec![4]), Code::InvalidArgument,
         "indices[1] = [5] does not index into shape [4]"),
        (m(&[2, 1], vec![1, -1]), f(vec![1.0, 2.0]), Tensor::from(vec![4]), Code::InvalidArgument,
         "indices[1] = [-1] does not index into shape [4]"),
        (m(&[1, 2, 2], vec![0, 1, 2, 0]), m(&[1, 2], vec![1.0f32, 2.0]), Tensor::from(vec![2, 2]),
         Code::InvalidArgument, "indices[0,1] = [2, 0] does not index into shape [2,2]"),
        (m(&[2, 2], vec![0i64, 0, 3, 1]), m(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0]),
         Tensor::from(vec![2i64, 2, 2]), Code::InvalidArgument,
         "indices[1] = [3, 1] does not index into shape [2,2,2]"),
        (m(&[2, 1], vec![1, 2]), f(vec![1.0, 2.0, 3.0]), Tensor::from(vec![4]), Code::InvalidArgument,
         "Dimensions [0,1) of indices[shape=[2,1]] must match dimensions [0,1) of updates[shape=[3]]"),
        (m(&[2, 1], vec![1, 2]), m(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]), Tensor::from(vec![4, 3]),
         Code::InvalidArgument,
         "Dimensions [1,2) of input[shape=[4,3]] must match dimensions [1,2) of updates[shape=[2,2]]"),
        (m(&[1, 2], vec![1, 2]), f(vec![1.0]), Tensor::from(vec![4]), Code::InvalidArgument,
         "Dimensions [2,1) of input[shape=[4]] must match dimensions [1,1) of updates[shape=[1]]"),
        (m(&[1, 1], vec![1]), f(vec![1.0]), Tensor::from(vec![-4]), Code::InvalidArgument,
         "Dimension -4 must be >= 0"),
        (Tensor::from(1), Tensor::from(1.0f32), Tensor::from(vec![4]), Code::InvalidArgument,
         "Indices shape must have rank at least one. Found:[]"),
        (m(&[1, 1], vec![1]), Tensor::from(1.0f32), Tensor::from(vec![4]), Code::InvalidArgument,
         "Updates shape must have rank at least one. Found:[]"),
        (m(&[1, 1], vec![0]), f(vec![1.0]), Tensor::from(vec![0]), Code::InvalidArgument,
         "Indices and updates specified for empty output.  indices shape: [1,1]"),
        (m(&[2, 0], Vec::<i32>::new()), m(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]),
         Tensor::from(vec![2]), Code::InvalidArgument,
         "Indices and updates specified for empty output shape"),
        (m(&[1, 1], vec![1i64]), f(vec![1.0]), Tensor::from(vec![1i64 << 40, 1 << 40]),
         Code::InvalidArgument,
         "Shape [1099511627776,1099511627776] would have more than 2**63 - 1 elements"),
        (m(&[1, 1], vec![1i64]), f(vec![1.0]), Tensor::from(vec![1i64 << 40]),
         Code::ResourceExhausted,
         "OOM when allocating tensor with shape[1099511627776] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu"),
    ];
    for (i, u, s, code, msg) in cases {
        assert_eq!(err(scatter(i, u, s)), (code, msg.to_string()));
    }
}

fn seg(op: &str, data: Tensor, ids: Tensor) -> weir_graph::Result<Tensor> {
    let g = Graph::new();
    let (d, i) = (constant(&g, data)?, constant(&g, ids)?);
    let out = match op {
        "sum" => math::segment_sum(d, i)?,
        "mean" => math::segment_mean(d, i)?,
        "max" => math::segment_max(d, i)?,
        "min" => math::segment_min(d, i)?,
        _ => math::segment_prod(d, i)?,
    };
    run(&out)
}

#[test]
fn sorted_segments_match_tensorflow() {
    let basic = || {
        m(
            &[3, 4],
            vec![1.0f32, 2., 3., 4., 4., 3., 2., 1., 5., 6., 7., 8.],
        )
    };
    let gap = || Tensor::from(vec![1.0f32, 2., 3., 4., 5.]);
    let gap_ids = || Tensor::from(vec![0, 0, 2, 2, 4]);
    let gi = || Tensor::from(vec![1, 2, 3, -4, 5]);
    let gi_ids = || Tensor::from(vec![1i64, 1, 3, 3, 3]);
    let i64d = || Tensor::from(vec![1i64, 2, 3]);
    let i64_ids = || Tensor::from(vec![0i64, 1, 1]);
    type Case = (&'static str, Vec<f32>, Vec<f32>, Vec<i32>, Vec<i64>);
    let cases: [Case; 5] = [
        (
            "sum",
            vec![5., 5., 5., 5., 5., 6., 7., 8.],
            vec![3., 0., 7., 0., 5.],
            vec![0, 3, 0, 4],
            vec![1, 5],
        ),
        (
            "mean",
            vec![2.5, 2.5, 2.5, 2.5, 5., 6., 7., 8.],
            vec![1.5, 0., 3.5, 0., 5.],
            vec![0, 1, 0, 1],
            vec![1, 2],
        ),
        (
            "max",
            vec![4., 3., 3., 4., 5., 6., 7., 8.],
            vec![2., 0., 4., 0., 5.],
            vec![0, 2, 0, 5],
            vec![1, 3],
        ),
        (
            "min",
            vec![1., 2., 2., 1., 5., 6., 7., 8.],
            vec![1., 0., 3., 0., 5.],
            vec![0, 1, 0, -4],
            vec![1, 2],
        ),
        (
            "prod",
            vec![4., 6., 6., 4., 5., 6., 7., 8.],
            vec![2., 1., 12., 1., 5.],
            vec![1, 2, 1, -60],
            vec![1, 6],
        ),
    ];
    for (op, b, g, i, l) in cases {
        let r = seg(op, basic(), Tensor::from(vec![0, 0, 1])).unwrap();
        assert_eq!(
            (r.shape().to_vec(), r.to_vec::<f32>().unwrap()),
            (vec![2, 4], b),
            "{op}"
        );
        assert_eq!(
            seg(op, gap(), gap_ids()).unwrap().to_vec::<f32>().unwrap(),
            g,
            "{op}"
        );
        assert_eq!(
            seg(op, gi(), gi_ids()).unwrap().to_vec::<i32>().unwrap(),
            i,
            "{op}"
        );
        assert_eq!(
            seg(op, i64d(), i64_ids()).unwrap().to_vec::<i64>().unwrap(),
            l,
            "{op}"
        );
        let r = seg(
            op,
            m(&[0, 2], Vec::<f32>::new()),
            m(&[0], Vec::<i32>::new()),
        )
        .unwrap();
        assert_eq!(r.shape(), &[0, 2], "{op}");
    }
    let r = seg(
        "mean",
        Tensor::from(vec![1, 2, 4]),
        Tensor::from(vec![0, 0, 1]),
    )
    .unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![1, 4]);
    let r = seg(
        "max",
        Tensor::from(vec![-5.0f32, -3.0]),
        Tensor::from(vec![0, 0]),
    )
    .unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![-3.0]);
    let r = seg("max", Tensor::from(vec![7i64]), Tensor::from(vec![2])).unwrap();
    assert_eq!(r.to_vec::<i64>().unwrap(), vec![0, 0, 7]);
}

#[test]
fn sorted_segment_errors_are_tensorflows() {
    let f = || Tensor::from(vec![1.0f32, 2.0, 3.0]);
    for op in ["sum", "mean", "max", "min", "prod"] {
        let cases: Vec<(Tensor, Tensor, Code, &str)> = vec![
            (f(), Tensor::from(vec![0, 2, 1]), Code::InvalidArgument, "segment ids are not increasing"),
            (f(), Tensor::from(vec![1, 0, 1]), Code::InvalidArgument, "segment ids are not increasing"),
            (f(), Tensor::from(vec![-1, 0, 1]), Code::InvalidArgument,
             "Segment id -1 out of range [0, 2), possibly because 'segment_ids' input is not sorted."),
            (f(), Tensor::from(vec![0, 1]), Code::InvalidArgument,
             "segment_ids should be the same size as dimension 0 of input."),
            (m(&[2, 2], vec![1.0f32, 2., 3., 4.]), m(&[2, 2], vec![0, 1, 1, 1]), Code::InvalidArgument,
             "segment_ids should be a vector."),
            (Tensor::from(1.0f32), Tensor::from(vec![0]), Code::InvalidArgument,
             "input must be at least rank 1"),
            (Tensor::from(vec![1.0f32, 2.0]), Tensor::from(vec![0i64, 1 << 40]), Code::ResourceExhausted,
             "OOM when allocating tensor with shape[1099511627777] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu"),
        ];
        for (d, i, code, msg) in cases {
            assert_eq!(err(seg(op, d, i)), (code, msg.to_string()), "{op}");
        }
    }
}

#[test]
fn scatter_nd_sums_every_dtype_as_tensorflow_does() {
    // TensorFlow 2.21's tf.scatter_nd with all updates at index 0 of a [2] output gave
    // [b'ab', b''], [True, False], float16 [2048, 0] (2048 + 1 rounds back to 2048 after each
    // add) and complex64 [3+0j, 0].
    let g = Graph::new();
    let idx2 = constant(&g, Tensor::from_vec(&[2, 1], vec![0i32, 0]).unwrap()).unwrap();
    let idx3 = constant(&g, Tensor::from_vec(&[3, 1], vec![0i32, 0, 0]).unwrap()).unwrap();
    let shape = constant(&g, [2i32]).unwrap();
    let s = scatter_nd(&idx2, constant(&g, ["a", "b"]).unwrap(), &shape).unwrap();
    let b = scatter_nd(&idx2, constant(&g, [true, true]).unwrap(), &shape).unwrap();
    let h = [2048.0f32, 1.0, 1.0].map(weir_graph::f16::from_f32);
    let h = scatter_nd(
        &idx3,
        constant(&g, Tensor::from(h.to_vec())).unwrap(),
        &shape,
    )
    .unwrap();
    let c = [
        weir_graph::Complex::new(1.0f32, 1.0),
        weir_graph::Complex::new(2.0, -1.0),
    ];
    let c = scatter_nd(
        &idx2,
        constant(&g, Tensor::from(c.to_vec())).unwrap(),
        &shape,
    )
    .unwrap();
    let sess = Session::new(&g).unwrap();
    let s = sess.eval(&s).unwrap();
    let s: Vec<&[u8]> = s
        .as_slice::<weir_graph::Bytes>()
        .unwrap()
        .iter()
        .map(|b| &b[..])
        .collect();
    assert_eq!(s, vec![&b"ab"[..], &b""[..]]);
    assert_eq!(
        sess.eval(&b).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false]
    );
    let h: Vec<f32> = sess
        .eval(&h)
        .unwrap()
        .to_vec::<weir_graph::f16>()
        .unwrap()
        .iter()
        .map(|v| v.to_f32())
        .collect();
    assert_eq!(h, vec![2048.0, 0.0]);
    let c = sess
        .eval(&c)
        .unwrap()
        .to_vec::<weir_graph::Complex<f32>>()
        .unwrap();
    assert_eq!(
        c,
        vec![
            weir_graph::Complex::new(3.0, 0.0),
            weir_graph::Complex::new(0.0, 0.0)
        ]
    );
}
