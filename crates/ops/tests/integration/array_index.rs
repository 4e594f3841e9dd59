//! Indexing ops through a Session: slice, strided_slice (Python indexing via `s!`), gather,
//! gather_nd, boolean_mask, unique, where, sequence_mask, identity_n.

use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::*;
use weir_ops::s;
use weir_session::{RunArgs, Session};

fn eval(t: &Output) -> Tensor {
    Session::new(t.graph()).unwrap().eval(t).unwrap()
}

fn m<T: weir_graph::TensorType>(shape: &[usize], v: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, v).unwrap()
}

/// x[i, j, k] = 100 i + 10 j + k, shape [3, 4, 5].
fn checker(g: &Graph) -> Output {
    let mut v = Vec::new();
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                v.push(100 * i + 10 * j + k);
            }
        }
    }
    constant(g, m(&[3, 4, 5], v)).unwrap()
}

fn vals(t: &Output) -> (Vec<usize>, Vec<i32>) {
    let r = eval(t);
    (r.shape().to_vec(), r.to_vec::<i32>().unwrap())
}

#[test]
fn python_indexing() {
    // Ported from strided_slice_op_test.py (StridedSliceTest), on a checker tensor.
    let g = Graph::new();
    let x = checker(&g);
    let y = x.at(s![1]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[4, 5]));
    assert_eq!(vals(&y).1[..6], [100, 101, 102, 103, 104, 110]);

    let y = x.at(s![-1, ..;2, 1..4]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 3]));
    assert_eq!(vals(&y), (vec![2, 3], vec![201, 202, 203, 221, 222, 223]));

    let y = x.at(s![ELLIPSIS, 2]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[3, 4]));
    assert_eq!(
        vals(&y).1,
        (0..3)
            .flat_map(|i| (0..4).map(move |j| 100 * i + 10 * j + 2))
            .collect::<Vec<_>>()
    );

    let y = x.at(s![NEW_AXIS, 1, ELLIPSIS]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[1, 4, 5]));
    assert_eq!(vals(&y).0, vec![1, 4, 5]);

    let y = x.at(s![..;-1, -1, ..;-2]).unwrap();
    assert_eq!(
        vals(&y),
        (vec![3, 3], vec![234, 232, 230, 134, 132, 130, 34, 32, 30])
    );

    let y = x.at(s![1..1]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[0, 4, 5]));
    assert_eq!(vals(&y).0, vec![0, 4, 5]);
    assert_eq!(x.at(s![5..]).unwrap().shape(), Shape::known(&[0, 4, 5]));
    assert_eq!(x.at(s![-10..2]).unwrap().shape(), Shape::known(&[2, 4, 5]));
    assert_eq!(
        x.at(s![ELLIPSIS, NEW_AXIS]).unwrap().shape(),
        Shape::known(&[3, 4, 5, 1])
    );
    let y = x.at(s![1..=2, 3, ..=-1]).unwrap();
    assert_eq!(
        vals(&y),
        (
            vec![2, 5],
            vec![130, 131, 132, 133, 134, 230, 231, 232, 233, 234]
        )
    );
    // Rows 1..3 in full are contiguous (shared), the rest are copies: same values either way.
    let y = x.at(s![1..3, ..]).unwrap();
    assert_eq!(vals(&y).1[0], 100);
    assert_eq!(vals(&y).1.len(), 40);
}

#[test]
fn strided_slice_errors_name_the_node() {
    let g = Graph::new();
    let x = checker(&g);
    let e = x.at(s![3]).unwrap_err();
    assert_eq!(e.message(), "slice index 3 of dimension 0 out of bounds.");
    assert_eq!(e.node().unwrap().op_type, "StridedSlice");
    let e = x.at(s![1, 2, 3, 4]).unwrap_err();
    assert_eq!(
        e.message(),
        "Index out of range using input dim 3; input has only 3 dims"
    );
    let e = strided_slice(&x, &[0], &[1], &[0]).unwrap_err();
    assert_eq!(e.message(), "strides[0] must be non-zero");
    let e = StridedSlice::new()
        .ellipsis_mask(3)
        .build(&x, &[0, 0], &[0, 0], &[1, 1])
        .unwrap_err();
    assert_eq!(e.message(), "Multiple ellipses in slice spec not allowed");
    assert!(x.at(s![..;0]).is_err());
}

#[test]
fn strided_slice_masks_and_unknown_dims() {
    let g = Graph::new();
    let x = checker(&g);
    // x[:, 1:3] via explicit masks.
    let y = StridedSlice::new()
        .begin_mask(1)
        .end_mask(1)
        .build(&x, &[0, 1], &[0, 3], &[1, 1])
        .unwrap();
    assert_eq!(y.shape(), Shape::known(&[3, 2, 5]));
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, Some(5)])).unwrap();
    let a = p.at(s![.., 1..3]).unwrap();
    assert_eq!(a.shape(), Shape::new(vec![None, Some(2)]));
    let b = p.at(s![0]).unwrap();
    assert_eq!(b.shape(), Shape::known(&[5]));
    let c = p.at(s![1..]).unwrap();
    assert_eq!(c.shape(), Shape::new(vec![None, Some(5)]));
    let sess = Session::new(&g).unwrap();
    let fed = m(&[2, 5], (0..10).map(|v| v as f32).collect());
    let out = sess
        .run(
            &RunArgs::new()
                .feed(&p, fed.clone())
                .fetch(&a)
                .fetch(&b)
                .fetch(&c),
        )
        .unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![1., 2., 6., 7.]);
    assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![0., 1., 2., 3., 4.]);
    assert_eq!(out[2].shape(), &[1, 5]);
    let d = p.at(s![2]).unwrap();
    let e = sess
        .run(&RunArgs::new().feed(&p, fed).fetch(&d))
        .unwrap_err();
    assert_eq!(e.message(), "slice index 2 of dimension 0 out of bounds.");
}

#[test]
fn slice_op() {
    let g = Graph::new();
    let x = checker(&g);
    let y = slice(&x, [1, 0, 2], [2, -1, 2]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 4, 2]));
    let (shape, v) = vals(&y);
    assert_eq!(shape, vec![2, 4, 2]);
    assert_eq!(&v[..4], &[102, 103, 112, 113]);
    assert_eq!(v[15], 233);
    let e = slice(&x, [0, 0, 4], [1, 1, 2]).unwrap_err();
    assert_eq!(e.message(), "Expected size[2] in [0, 1], but got 2");
    let e = slice(&x, [4, 0, 0], [0, 1, 1]).unwrap_err();
    assert_eq!(e.message(), "Expected begin[0] in [0, 3], but got 4");
    assert!(slice(&x, [0, 0], [1, 1]).is_err());
    let p = placeholder(&g, DType::I32, Shape::new(vec![None, Some(5)])).unwrap();
    assert_eq!(
        slice(&p, [0, 1], [-1, 3]).unwrap().shape(),
        Shape::new(vec![None, Some(3)])
    );
    assert_eq!(
        slice(&p, [0, 1], [2, -1]).unwrap().shape(),
        Shape::known(&[2, 4])
    );
}

#[test]
fn gather_along_axes() {
    // Ported from gather_op_test.py.
    let g = Graph::new();
    let p = constant(&g, m(&[3, 2], vec![1, 2, 3, 4, 5, 6])).unwrap();
    let idx = constant(&g, m(&[2, 2], vec![2i64, 0, 1, 1])).unwrap();
    let r = gather(&p, &idx, 0).unwrap();
    assert_eq!(r.shape(), Shape::known(&[2, 2, 2]));
    assert_eq!(
        eval(&r).to_vec::<i32>().unwrap(),
        vec![5, 6, 1, 2, 3, 4, 3, 4]
    );
    let c = gather(&p, constant(&g, [1]).unwrap(), -1).unwrap();
    assert_eq!(c.shape(), Shape::known(&[3, 1]));
    assert_eq!(eval(&c).to_vec::<i32>().unwrap(), vec![2, 4, 6]);
    let sc = gather(&p, constant(&g, 1).unwrap(), 0).unwrap();
    assert_eq!(sc.shape(), Shape::known(&[2]));
    let bad = gather(&p, constant(&g, m(&[2, 1], vec![0, 3])).unwrap(), 0).unwrap();
    let e = Session::new(&g).unwrap().eval(&bad).unwrap_err();
    assert_eq!(e.message(), "indices[1,0] = 3 is not in [0, 3)");
    assert_eq!(e.node().unwrap().op_type, "GatherV2");
    assert_eq!(
        gather(&p, &idx, 2).unwrap_err().message(),
        "Expected axis in the range [-2, 2), but got 2"
    );
    // batch_dims = 1: each row picks from its own params row.
    let b = gather_batched(&p, constant(&g, m(&[3, 1], vec![1, 0, 1])).unwrap(), 1, 1).unwrap();
    assert_eq!(b.shape(), Shape::known(&[3, 1]));
    assert_eq!(eval(&b).to_vec::<i32>().unwrap(), vec![2, 3, 6]);
    let s = constant(&g, Tensor::from(vec!["a", "b", "c"])).unwrap();
    assert_eq!(
        eval(&gather(&s, constant(&g, [2, 2, 0]).unwrap(), 0).unwrap())
            .to_strings()
            .unwrap(),
        vec!["c", "c", "a"]
    );
    let empty = gather(
        &p,
        constant(&g, Tensor::from(Vec::<i32>::new())).unwrap(),
        0,
    )
    .unwrap();
    assert_eq!(eval(&empty).shape(), &[0, 2]);
}

#[test]
fn gather_nd_coordinates() {
    let g = Graph::new();
    let p = constant(&g, m(&[2, 2], vec![1, 2, 3, 4])).unwrap();
    let a = gather_nd(&p, constant(&g, m(&[2, 2], vec![0, 0, 1, 1])).unwrap()).unwrap();
    assert_eq!(a.shape(), Shape::known(&[2]));
    assert_eq!(eval(&a).to_vec::<i32>().unwrap(), vec![1, 4]);
    let rows = gather_nd(&p, constant(&g, m(&[1, 1], vec![1i64])).unwrap()).unwrap();
    assert_eq!(rows.shape(), Shape::known(&[1, 2]));
    assert_eq!(eval(&rows).to_vec::<i32>().unwrap(), vec![3, 4]);
    let bad = gather_nd(&p, constant(&g, m(&[2, 2], vec![0, 0, 2, 0])).unwrap()).unwrap();
    let e = Session::new(&g).unwrap().eval(&bad).unwrap_err();
    assert_eq!(
        e.message(),
        "indices[1] = [2, 0] does not index into param shape [2,2]"
    );
    assert!(gather_nd(&p, constant(&g, m(&[1, 3], vec![0, 0, 0])).unwrap()).is_err());
}

#[test]
fn boolean_masks() {
    // Ported from array_ops_test.py BooleanMaskTest.
    let g = Graph::new();
    let x = constant(&g, m(&[3, 2], vec![1, 2, 3, 4, 5, 6])).unwrap();
    let r = boolean_mask(&x, &constant(&g, [true, false, true]).unwrap(), 0).unwrap();
    assert_eq!(r.shape(), Shape::new(vec![None, Some(2)]));
    assert_eq!(eval(&r).to_vec::<i32>().unwrap(), vec![1, 2, 5, 6]);
    let m2 = constant(&g, m(&[3, 2], vec![true, false, false, true, true, true])).unwrap();
    let r = boolean_mask(&x, &m2, 0).unwrap();
    assert_eq!(r.shape(), Shape::new(vec![None]));
    assert_eq!(eval(&r).to_vec::<i32>().unwrap(), vec![1, 4, 5, 6]);
    let r = boolean_mask(&x, &constant(&g, [false, true]).unwrap(), 1).unwrap();
    assert_eq!(r.shape(), Shape::new(vec![Some(3), None]));
    assert_eq!(eval(&r).to_vec::<i32>().unwrap(), vec![2, 4, 6]);
    assert_eq!(
        boolean_mask(&x, &constant(&g, true).unwrap(), 0)
            .unwrap_err()
            .message(),
        "mask cannot be scalar."
    );
    assert!(boolean_mask(&x, &constant(&g, [true, false]).unwrap(), 0).is_err());
    // A 2-D mask over dims of unknown size goes through the shape computed at run time.
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, None, Some(2)])).unwrap();
    let pm = placeholder(&g, DType::Bool, Shape::new(vec![None, None])).unwrap();
    let r = boolean_mask(&p, &pm, 0).unwrap();
    let out = Session::new(&g)
        .unwrap()
        .run(
            &RunArgs::new()
                .feed(&p, m(&[2, 2, 2], (0..8).map(|v| v as f32).collect()))
                .feed(&pm, m(&[2, 2], vec![false, true, true, false]))
                .fetch(&r),
        )
        .unwrap();
    assert_eq!(out[0].shape(), &[2, 2]);
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![2., 3., 4., 5.]);
    let unknown = placeholder(&g, DType::Bool, Shape::unknown()).unwrap();
    assert!(boolean_mask(&x, &unknown, 0).is_err());
}

#[test]
fn unique_where_and_sequence_mask() {
    let g = Graph::new();
    let (y, idx) = unique(constant(&g, [1, 1, 2, 4, 4, 4, 7, 8, 8]).unwrap()).unwrap();
    assert_eq!(y.shape(), Shape::new(vec![None]));
    assert_eq!(idx.shape(), Shape::known(&[9]));
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().fetch(&y).fetch(&idx))
        .unwrap();
    assert_eq!(out[0].to_vec::<i32>().unwrap(), vec![1, 2, 4, 7, 8]);
    assert_eq!(
        out[1].to_vec::<i32>().unwrap(),
        vec![0, 0, 1, 2, 2, 2, 3, 4, 4]
    );
    let (ys, is) = unique_typed(
        constant(&g, Tensor::from(vec!["b", "a", "b"])).unwrap(),
        DType::I64,
    )
    .unwrap();
    assert_eq!(eval(&ys).to_strings().unwrap(), vec!["b", "a"]);
    assert_eq!(eval(&is).to_vec::<i64>().unwrap(), vec![0, 1, 0]);
    assert!(unique(constant(&g, m(&[1, 1], vec![1])).unwrap()).is_err());

    let w =
        where_indices(constant(&g, m(&[2, 2], vec![true, false, false, true])).unwrap()).unwrap();
    assert_eq!(w.shape(), Shape::new(vec![None, Some(2)]));
    let t = eval(&w);
    assert_eq!(t.shape(), &[2, 2]);
    assert_eq!(t.to_vec::<i64>().unwrap(), vec![0, 0, 1, 1]);
    let wn = where_indices(constant(&g, [0.0f32, 3.0, 0.0, -1.0]).unwrap()).unwrap();
    assert_eq!(eval(&wn).to_vec::<i64>().unwrap(), vec![1, 3]);

    let lengths = constant(&g, [1, 3, 2]).unwrap();
    let sm = sequence_mask(&lengths, Some(5)).unwrap();
    assert_eq!(sm.dtype(), DType::Bool);
    let t = eval(&sm);
    assert_eq!(t.shape(), &[3, 5]);
    assert_eq!(
        t.to_vec::<bool>().unwrap(),
        [
            [true, false, false, false, false],
            [true, true, true, false, false],
            [true, true, false, false, false]
        ]
        .concat()
    );
    let auto = sequence_mask(&lengths, None).unwrap();
    assert_eq!(eval(&auto).shape(), &[3, 3]);
    let f = SequenceMask::new()
        .maxlen(2)
        .dtype(DType::F32)
        .build(constant(&g, m(&[2, 1], vec![1i64, 2])).unwrap())
        .unwrap();
    let t = eval(&f);
    assert_eq!(t.shape(), &[2, 1, 2]);
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 0.0, 1.0, 1.0]);
}

#[test]
fn identity_n_forwards_each_tensor() {
    let g = Graph::new();
    let a = constant(&g, 1i32).unwrap();
    let b = constant(&g, "x").unwrap();
    let outs = identity_n(&[a, b]).unwrap();
    assert_eq!(outs.len(), 2);
    assert_eq!(outs[1].dtype(), DType::String);
    let r = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().fetch(&outs[0]).fetch(&outs[1]))
        .unwrap();
    assert_eq!(r[0].to_vec::<i32>().unwrap(), vec![1]);
    assert_eq!(r[1].to_strings().unwrap(), vec!["x"]);
}

#[test]
fn indices_may_be_usize_variables() {
    let g = Graph::new();
    let x = checker(&g);
    let (lo, hi) = (1usize, 3usize);
    let y = x.at(s![lo..hi, 2usize]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 5]));
    assert_eq!(vals(&y).1[..2], [120, 121]);
}
