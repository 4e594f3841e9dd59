//! Shape-changing, joining, splitting, tiling, padding and filling ops through a Session.

use weir_graph::{Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::*;
use weir_session::{RunArgs, Session};

fn eval(t: &Output) -> Tensor {
    Session::new(t.graph()).unwrap().eval(t).unwrap()
}

fn m<T: weir_graph::TensorType>(shape: &[usize], v: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, v).unwrap()
}

fn iota(g: &Graph, shape: &[usize]) -> Output {
    let n: usize = shape.iter().product();
    constant(g, m(shape, (0..n as i32).collect())).unwrap()
}

#[test]
fn reshape_infers_one_dim_and_shares_data() {
    let g = Graph::new();
    let x = iota(&g, &[2, 3]);
    let r = reshape(&x, [3, -1]).unwrap();
    assert_eq!(r.shape(), Shape::known(&[3, 2]));
    assert_eq!(eval(&r).shape(), &[3, 2]);
    let e = reshape(&x, [4, -1]).unwrap_err();
    assert!(
        e.message()
            .starts_with("Cannot reshape a tensor with 6 elements to shape [4,?] (4 elements)"),
        "{e}"
    );
    assert_eq!(e.node().unwrap().op_type, "Reshape");
    assert!(reshape(&x, [-1, -1]).is_err());
    // Unknown input dims keep the -1 unknown; the run resolves it.
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, Some(4)])).unwrap();
    let rp = reshape(&p, [-1, 2]).unwrap();
    assert_eq!(rp.shape(), Shape::new(vec![None, Some(2)]));
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(
            &RunArgs::new()
                .feed(&p, m(&[3, 4], vec![0.0f32; 12]))
                .fetch(&rp),
        )
        .unwrap();
    assert_eq!(out[0].shape(), &[6, 2]);
    let bad = reshape(&p, [5, -1]).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, m(&[3, 4], vec![0.0f32; 12]))
                .fetch(&bad),
        )
        .unwrap_err();
    assert_eq!(e.message(), "Input to reshape is a tensor with 12 values, but the requested shape requires a multiple of 5");
    // Empty tensors and a shape computed in the graph.
    let z = constant(&g, m(&[0, 4], Vec::<f32>::new())).unwrap();
    assert_eq!(eval(&reshape(&z, [-1, 2]).unwrap()).shape(), &[0, 2]);
    let dyn_shape = shape(&x).unwrap();
    let back = reshape(reshape(&x, [6]).unwrap(), &dyn_shape).unwrap();
    // `tf.shape(x)` of a static [2, 3] is known at build time, as in TensorFlow.
    assert_eq!(back.shape(), Shape::known(&[2, 3]));
    assert_eq!(eval(&back).shape(), &[2, 3]);
}

#[test]
fn expand_squeeze_shape_size_rank() {
    let g = Graph::new();
    let x = iota(&g, &[2, 3]);
    assert_eq!(
        expand_dims(&x, 0).unwrap().shape(),
        Shape::known(&[1, 2, 3])
    );
    assert_eq!(
        expand_dims(&x, -1).unwrap().shape(),
        Shape::known(&[2, 3, 1])
    );
    assert_eq!(eval(&expand_dims(&x, 1).unwrap()).shape(), &[2, 1, 3]);
    let e = expand_dims(&x, 3).unwrap_err();
    assert_eq!(
        e.message(),
        "Tried to expand dim index 3 for tensor with 2 dimensions."
    );
    let y = iota(&g, &[1, 2, 1, 3, 1]);
    assert_eq!(squeeze(&y, &[]).unwrap().shape(), Shape::known(&[2, 3]));
    assert_eq!(
        squeeze(&y, &[0, -1]).unwrap().shape(),
        Shape::known(&[2, 1, 3])
    );
    assert_eq!(eval(&squeeze(&y, &[2]).unwrap()).shape(), &[1, 2, 3, 1]);
    let e = squeeze(&y, &[1]).unwrap_err();
    assert_eq!(
        e.message(),
        "Can not squeeze dim[1], expected a dimension of 1, got 2"
    );
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, Some(1)])).unwrap();
    assert_eq!(squeeze(&p, &[]).unwrap().shape(), Shape::unknown());
    assert_eq!(squeeze(&p, &[1]).unwrap().shape(), Shape::new(vec![None]));
    let sq = squeeze(&p, &[]).unwrap();
    let err = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().feed(&p, m(&[1, 1], vec![5.0f32])).fetch(&sq))
        .unwrap();
    assert_eq!(err[0].shape(), &[] as &[usize]);
    assert_eq!(
        eval(&shape(&x).unwrap()).to_vec::<i32>().unwrap(),
        vec![2, 3]
    );
    assert_eq!(
        eval(&shape_typed(&x, DType::I64).unwrap())
            .to_vec::<i64>()
            .unwrap(),
        vec![2, 3]
    );
    assert_eq!(shape(&x).unwrap().shape(), Shape::known(&[2]));
    assert_eq!(eval(&size(&x).unwrap()).to_vec::<i32>().unwrap(), vec![6]);
    assert_eq!(eval(&rank(&x).unwrap()).to_vec::<i32>().unwrap(), vec![2]);
    assert_eq!(shape(&p).unwrap().shape(), Shape::known(&[2]));
}

#[test]
fn stack_and_unstack() {
    let g = Graph::new();
    let a = constant(&g, [1, 2, 3]).unwrap();
    let b = constant(&g, [4, 5, 6]).unwrap();
    let s0 = stack(&[a.clone(), b.clone()], 0).unwrap();
    assert_eq!(s0.shape(), Shape::known(&[2, 3]));
    assert_eq!(eval(&s0).to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 5, 6]);
    let s1 = stack(&[a.clone(), b.clone()], -1).unwrap();
    assert_eq!(s1.shape(), Shape::known(&[3, 2]));
    assert_eq!(eval(&s1).to_vec::<i32>().unwrap(), vec![1, 4, 2, 5, 3, 6]);
    let e = stack(&[a.clone(), constant(&g, [1, 2]).unwrap()], 0).unwrap_err();
    assert!(
        e.message().starts_with("Shapes of all inputs must match"),
        "{e}"
    );
    assert_eq!(
        stack(std::slice::from_ref(&a), 2).unwrap_err().message(),
        "axis = 2 not in [-2, 2)"
    );
    let sc = stack(
        &[constant(&g, 1.0f32).unwrap(), constant(&g, 2.0f32).unwrap()],
        0,
    )
    .unwrap();
    assert_eq!(eval(&sc).to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
    let parts = unstack(&s1, None, 1).unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(eval(&parts[1]).to_vec::<i32>().unwrap(), vec![4, 5, 6]);
    let rows = unstack(&s1, None, 0).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(eval(&rows[2]).to_vec::<i32>().unwrap(), vec![3, 6]);
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, Some(2)])).unwrap();
    assert!(unstack(&p, None, 0).is_err());
    assert_eq!(unstack(&p, None, 1).unwrap().len(), 2);
    let strings = stack(&[constant(&g, "a").unwrap(), constant(&g, "b").unwrap()], 0).unwrap();
    assert_eq!(eval(&strings).to_strings().unwrap(), vec!["a", "b"]);
}

#[test]
fn concat_along_axes() {
    let g = Graph::new();
    let a = iota(&g, &[2, 2]);
    let b = constant(&g, m(&[2, 1], vec![10, 11])).unwrap();
    let c = concat(&[a.clone(), b.clone()], 1).unwrap();
    assert_eq!(c.shape(), Shape::known(&[2, 3]));
    assert_eq!(eval(&c).to_vec::<i32>().unwrap(), vec![0, 1, 10, 2, 3, 11]);
    let r = concat(&[a.clone(), a.clone()], -2).unwrap();
    assert_eq!(
        eval(&r).to_vec::<i32>().unwrap(),
        vec![0, 1, 2, 3, 0, 1, 2, 3]
    );
    let e = concat(&[a.clone(), b.clone()], 0).unwrap_err();
    assert_eq!(e.message(), "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,2] vs. shape[1] = [2,1]");
    let e = concat(&[a.clone(), constant(&g, [1, 2]).unwrap()], 0).unwrap_err();
    assert!(
        e.message()
            .starts_with("ConcatOp : Ranks of all input tensors should match"),
        "{e}"
    );
    let e = concat(&[a.clone(), a.clone()], 2).unwrap_err();
    assert_eq!(
        e.message(),
        "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2"
    );
    assert_eq!(
        concat(std::slice::from_ref(&a), 0).unwrap().op().op_type(),
        "Identity"
    );
    let p = placeholder(&g, DType::I32, Shape::new(vec![None, Some(2)])).unwrap();
    let pc = concat(&[a.clone(), p.clone()], 0).unwrap();
    assert_eq!(pc.shape(), Shape::new(vec![None, Some(2)]));
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().feed(&p, m(&[1, 2], vec![7, 8])).fetch(&pc))
        .unwrap();
    assert_eq!(out[0].to_vec::<i32>().unwrap(), vec![0, 1, 2, 3, 7, 8]);
    let e0 = constant(&g, m(&[0, 2], Vec::<i32>::new())).unwrap();
    assert_eq!(eval(&concat(&[e0, a], 0).unwrap()).shape(), &[2, 2]);
}

#[test]
fn split_even_and_by_sizes() {
    let g = Graph::new();
    let x = iota(&g, &[2, 6]);
    let parts = split(&x, 3, 1).unwrap();
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[0].shape(), Shape::known(&[2, 2]));
    assert_eq!(eval(&parts[1]).to_vec::<i32>().unwrap(), vec![2, 3, 8, 9]);
    let rows = split(&x, 2, 0).unwrap();
    assert_eq!(
        eval(&rows[1]).to_vec::<i32>().unwrap(),
        (6..12).collect::<Vec<_>>()
    );
    let e = split(&x, 4, 1).unwrap_err();
    assert!(e.message().contains("evenly divisible by 4"), "{e}");
    let v = split_v(&x, [1, -1, 2], -1).unwrap();
    assert_eq!(v[1].shape(), Shape::known(&[2, 3]));
    assert_eq!(eval(&v[0]).to_vec::<i32>().unwrap(), vec![0, 6]);
    assert_eq!(eval(&v[1]).to_vec::<i32>().unwrap(), vec![1, 2, 3, 7, 8, 9]);
    assert_eq!(eval(&v[2]).to_vec::<i32>().unwrap(), vec![4, 5, 10, 11]);
    assert!(split_v(&x, [1, 2], 1).is_err());
    let p = placeholder(&g, DType::I32, Shape::unknown()).unwrap();
    let sp = split(&p, 2, 0).unwrap();
    let err = Session::new(&g)
        .unwrap()
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec![1, 2, 3]))
                .fetch(&sp[0]),
        )
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Number of ways to split should evenly divide the split dimension, but got split_dim 0 (size = 3) and num_split 2"
    );
}

#[test]
fn tile_and_pad() {
    // Ported from shape_ops_test.py TileTest and pad_op_test.py.
    let g = Graph::new();
    let x = constant(&g, m(&[2, 2], vec![1, 2, 3, 4])).unwrap();
    let t = tile(&x, [1, 2]).unwrap();
    assert_eq!(t.shape(), Shape::known(&[2, 4]));
    assert_eq!(
        eval(&t).to_vec::<i32>().unwrap(),
        vec![1, 2, 1, 2, 3, 4, 3, 4]
    );
    let t0 = tile(&x, [0, 3]).unwrap();
    assert_eq!(eval(&t0).shape(), &[0, 6]);
    let e = tile(&x, [2]).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected multiples argument to be a vector of length 2 but got length 1"
    );
    let s = tile(constant(&g, Tensor::from(vec!["a", "b"])).unwrap(), [2]).unwrap();
    assert_eq!(eval(&s).to_strings().unwrap(), vec!["a", "b", "a", "b"]);

    let p = pad(&x, &[[1, 0], [0, 2]]).unwrap();
    assert_eq!(p.shape(), Shape::known(&[3, 4]));
    assert_eq!(
        eval(&p).to_vec::<i32>().unwrap(),
        vec![0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0]
    );
    let pv = Pad::new()
        .constant_values(9.0)
        .build(&x, &[[0, 0], [1, 1]])
        .unwrap();
    assert_eq!(pv.op().op_type(), "PadV2");
    assert_eq!(
        eval(&pv).to_vec::<i32>().unwrap(),
        vec![9, 1, 2, 9, 9, 3, 4, 9]
    );
    let r = Pad::new()
        .mode(PadMode::Reflect)
        .build(&x, &[[1, 1], [1, 1]])
        .unwrap();
    assert_eq!(
        eval(&r).to_vec::<i32>().unwrap(),
        vec![4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1]
    );
    let sy = Pad::new()
        .mode(PadMode::Symmetric)
        .build(&x, &[[0, 0], [2, 0]])
        .unwrap();
    assert_eq!(
        eval(&sy).to_vec::<i32>().unwrap(),
        vec![2, 1, 1, 2, 4, 3, 3, 4]
    );
    let e = Pad::new()
        .mode(PadMode::Reflect)
        .build(&x, &[[2, 0], [0, 0]])
        .unwrap_err();
    assert_eq!(
        e.message(),
        "paddings must be less than the dimension size: 2, 0 not less than 2"
    );
    assert_eq!(
        pad(&x, &[[-1, 0], [0, 0]]).unwrap_err().message(),
        "Paddings must be non-negative: -1 0"
    );
    assert!(pad(&x, &[[1, 1]]).is_err());
    let sp = pad(constant(&g, Tensor::from(vec!["x"])).unwrap(), &[[1, 1]]).unwrap();
    assert_eq!(eval(&sp).to_strings().unwrap(), vec!["", "x", ""]);
}

#[test]
fn transpose_and_reverse() {
    let g = Graph::new();
    let x = iota(&g, &[2, 3, 4]);
    let t = transpose(&x, [2, 0, 1]).unwrap();
    assert_eq!(t.shape(), Shape::known(&[4, 2, 3]));
    let v = eval(&t).to_vec::<i32>().unwrap();
    // out[k, i, j] = x[i, j, k] = 12 i + 4 j + k
    for k in 0..4 {
        for i in 0..2 {
            for j in 0..3 {
                assert_eq!(v[k * 6 + i * 3 + j], (12 * i + 4 * j + k) as i32);
            }
        }
    }
    let d = transpose_default(iota(&g, &[2, 3])).unwrap();
    assert_eq!(eval(&d).to_vec::<i32>().unwrap(), vec![0, 3, 1, 4, 2, 5]);
    let e = transpose(&x, [0, 1]).unwrap_err();
    assert_eq!(
        e.message(),
        "transpose expects a vector of size 3. But input(1) is a vector of size 2"
    );
    assert_eq!(
        transpose(&x, [0, 0, 1]).unwrap_err().message(),
        "2 is missing from {0,0,1}."
    );
    let u = placeholder(&g, DType::I32, Shape::unknown()).unwrap();
    let tu = transpose_default(&u).unwrap();
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().feed(&u, m(&[1, 2], vec![1, 2])).fetch(&tu))
        .unwrap();
    assert_eq!(out[0].shape(), &[2, 1]);

    let r = reverse(iota(&g, &[2, 3]), [1]).unwrap();
    assert_eq!(eval(&r).to_vec::<i32>().unwrap(), vec![2, 1, 0, 5, 4, 3]);
    let r = reverse(iota(&g, &[2, 3]), [0, -1]).unwrap();
    assert_eq!(eval(&r).to_vec::<i32>().unwrap(), vec![5, 4, 3, 2, 1, 0]);
    assert_eq!(
        reverse(&x, [0, 0]).unwrap_err().message(),
        "axis 0 specified more than once."
    );
    assert_eq!(
        reverse(&x, [3]).unwrap_err().message(),
        "'axis'[0] = 3 is out of valid range [0, 3)"
    );
}

#[test]
fn fill_zeros_ones_and_likes() {
    let g = Graph::new();
    let f = fill([2, 2], &constant(&g, 7i64).unwrap()).unwrap();
    assert_eq!(f.shape(), Shape::known(&[2, 2]));
    assert_eq!(eval(&f).to_vec::<i64>().unwrap(), vec![7; 4]);
    assert!(fill([2, -1], &constant(&g, 7i64).unwrap()).is_err());
    assert!(fill([2], &constant(&g, [1, 2]).unwrap()).is_err());
    let z = zeros(&g, DType::F32, &[2, 3]).unwrap();
    assert_eq!(eval(&z).to_vec::<f32>().unwrap(), vec![0.0; 6]);
    assert_eq!(
        eval(&ones(&g, DType::U8, &[3]).unwrap())
            .to_vec::<u8>()
            .unwrap(),
        vec![1; 3]
    );
    assert_eq!(
        eval(&ones(&g, DType::Bool, &[1]).unwrap())
            .to_vec::<bool>()
            .unwrap(),
        vec![true]
    );
    assert_eq!(
        eval(&zeros(&g, DType::String, &[1]).unwrap())
            .to_strings()
            .unwrap(),
        vec![""]
    );
    let p = placeholder(&g, DType::F64, Shape::new(vec![None])).unwrap();
    let zl = zeros_like(&p).unwrap();
    let ol = ones_like(&p).unwrap();
    assert_eq!(zl.shape(), Shape::new(vec![None]));
    let out = Session::new(&g)
        .unwrap()
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec![5.0f64, 6.0]))
                .fetch(&zl)
                .fetch(&ol),
        )
        .unwrap();
    assert_eq!(out[0].to_vec::<f64>().unwrap(), vec![0.0, 0.0]);
    assert_eq!(out[1].to_vec::<f64>().unwrap(), vec![1.0, 1.0]);
    let dims = placeholder(&g, DType::I32, Shape::known(&[2])).unwrap();
    let fd = fill(&dims, &constant(&g, 1.5f32).unwrap()).unwrap();
    assert_eq!(fd.shape(), Shape::unknown_of_rank(2));
    let err = Session::new(&g)
        .unwrap()
        .run(
            &RunArgs::new()
                .feed(&dims, Tensor::from(vec![2, -1]))
                .fetch(&fd),
        )
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
}

#[test]
fn one_hot_encodings() {
    // Ported from one_hot_op_test.py.
    let g = Graph::new();
    let i = constant(&g, [0i64, 2, -1, 1]).unwrap();
    let oh = one_hot(&i, 3).unwrap();
    assert_eq!(oh.shape(), Shape::known(&[4, 3]));
    assert_eq!(oh.dtype(), DType::F32);
    assert_eq!(
        eval(&oh).to_vec::<f32>().unwrap(),
        vec![1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.]
    );
    let ax0 = OneHot::new(3)
        .axis(0)
        .on_value(5.0)
        .off_value(-1.0)
        .dtype(DType::I32)
        .build(&i)
        .unwrap();
    assert_eq!(ax0.shape(), Shape::known(&[3, 4]));
    assert_eq!(
        eval(&ax0).to_vec::<i32>().unwrap(),
        vec![5, -1, -1, -1, -1, -1, -1, 5, -1, 5, -1, -1]
    );
    let b = OneHot::new(2)
        .dtype(DType::Bool)
        .build(constant(&g, [1u8]).unwrap())
        .unwrap();
    assert_eq!(eval(&b).to_vec::<bool>().unwrap(), vec![false, true]);
    assert!(one_hot(&i, -1).is_err());
    let e = OneHot::new(3).axis(5).build(&i).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected axis to be -1 or between [0, 2).  But received: 5"
    );
}

/// Shape tensors known in part at build time give static shapes, as TensorFlow 2.21's
/// `MakeShapeFromShapeTensor` does (each case checked on `tf.compat.v1`): a stack of a
/// dynamic dim and a constant, a concat of `shape(x)[:1]` and a constant, a cast of a stack.
#[test]
fn partly_known_shape_tensors_give_static_shapes() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(28), Some(28)])).unwrap();
    let y = placeholder(&g, DType::F32, Shape::known(&[32, 28, 28])).unwrap();
    let n = placeholder(&g, DType::I32, Shape::scalar()).unwrap();
    let c = |v: i32| constant(&g, v).unwrap();
    let dim0 = |t: &Output| {
        StridedSlice::new()
            .shrink_axis_mask(1)
            .build(shape(t).unwrap(), &[0], &[1], &[1])
            .unwrap()
    };
    let s = |d: &[Option<usize>]| Shape::new(d.to_vec());
    // tf.reshape(x, [tf.shape(x)[0], 784]) -> (None, 784)
    let r = reshape(&x, stack(&[dim0(&x), c(784)], 0).unwrap()).unwrap();
    assert_eq!(r.shape(), s(&[None, Some(784)]));
    // tf.reshape(y, [tf.shape(y)[0] + 0, 784]) -> (32, 784): the unknown dim from the size.
    let r = reshape(&y, stack(&[add_i32(&dim0(&y), &c(0)), c(784)], 0).unwrap()).unwrap();
    assert_eq!(r.shape(), s(&[Some(32), Some(784)]));
    // tf.fill(tf.stack([n, 1]), 0.0) -> (None, 1)
    let f = fill(
        stack(&[n.clone(), c(1)], 0).unwrap(),
        &constant(&g, 0.0f32).unwrap(),
    )
    .unwrap();
    assert_eq!(f.shape(), s(&[None, Some(1)]));
    // tf.reshape(x, tf.concat([tf.shape(x)[:1], [784]], 0)) -> (None, 784)
    let head = strided_slice(shape(&x).unwrap(), &[0], &[1], &[1]).unwrap();
    let target = concat(&[head, constant(&g, [784i32]).unwrap()], 0).unwrap();
    assert_eq!(reshape(&x, target).unwrap().shape(), s(&[None, Some(784)]));
    // Two unknown dims (a -1 among them) stay unknown: (None, None), for y too.
    for t in [&x, &y] {
        let r = reshape(t, stack(&[n.clone(), c(-1)], 0).unwrap()).unwrap();
        assert_eq!(r.shape(), s(&[None, None]));
    }
    // tf.reshape(x, tf.cast(tf.stack([n, 784]), tf.int64)) -> (None, 784)
    let cast64 = weir_ops::math::cast(stack(&[n.clone(), c(784)], 0).unwrap(), DType::I64).unwrap();
    assert_eq!(reshape(&x, cast64).unwrap().shape(), s(&[None, Some(784)]));
    // Elements and slices of tf.shape(x) whose dims are static, and products of them:
    let shape_x = shape(&x).unwrap();
    let at = |i: i64| {
        StridedSlice::new()
            .shrink_axis_mask(1)
            .build(&shape_x, &[i], &[i + 1], &[1])
            .unwrap()
    };
    let zero = constant(&g, 0.0f32).unwrap();
    // tf.reshape(x, [tf.shape(x)[0], tf.shape(x)[1], 28]) -> (None, 28, 28)
    let r = reshape(&x, stack(&[at(0), at(1), c(28)], 0).unwrap()).unwrap();
    assert_eq!(r.shape(), s(&[None, Some(28), Some(28)]));
    // tf.reshape(x, tf.concat([tf.shape(x)[:-1], [28]], 0)) -> (None, 28, 28)
    let init = StridedSlice::new()
        .build(&shape_x, &[0], &[-1], &[1])
        .unwrap();
    let target = concat(&[init, constant(&g, [28i32]).unwrap()], 0).unwrap();
    assert_eq!(
        reshape(&x, target).unwrap().shape(),
        s(&[None, Some(28), Some(28)])
    );
    // tf.fill(tf.shape(x)[1:], 0.0) -> (28, 28); tf.fill(tf.shape(x)[:2], 0.0) -> (None, 28)
    let tail = StridedSlice::new()
        .end_mask(1)
        .build(&shape_x, &[1], &[0], &[1])
        .unwrap();
    assert_eq!(fill(tail, &zero).unwrap().shape(), s(&[Some(28), Some(28)]));
    let head2 = StridedSlice::new()
        .begin_mask(1)
        .build(&shape_x, &[0], &[2], &[1])
        .unwrap();
    assert_eq!(fill(head2, &zero).unwrap().shape(), s(&[None, Some(28)]));
    // tf.reshape(x, [-1, tf.shape(x)[1] * tf.shape(x)[2]]) -> (None, 784)
    let area = weir_ops::math::mul(at(1), at(2)).unwrap();
    let r = reshape(&x, stack(&[c(-1), area], 0).unwrap()).unwrap();
    assert_eq!(r.shape(), s(&[None, Some(784)]));
    // tf.reshape(x, [tf.shape(x)[-1], -1]) -> (28, None)
    let r = reshape(&x, stack(&[at(-1), c(-1)], 0).unwrap()).unwrap();
    assert_eq!(r.shape(), s(&[Some(28), None]));
    // 25,088 elements do not split into rows of 100: TensorFlow's ValueError at build time.
    let e = reshape(&y, stack(&[n.clone(), c(100)], 0).unwrap()).unwrap_err();
    assert!(
        e.message()
            .starts_with("Dimension size must be evenly divisible by 100 but is 25088"),
        "{e}"
    );
}

fn add_i32(a: &Output, b: &Output) -> Output {
    weir_ops::math::add(a, b).unwrap()
}

/// The other ops that take a shape tensor read its known parts too, as in TensorFlow 2.21
/// (each checked on `tf.compat.v1`): random ops, BroadcastTo and Tile's multiples.
#[test]
fn shape_taking_ops_read_partly_known_shapes() {
    let g = Graph::new();
    let n = placeholder(&g, DType::I32, Shape::scalar()).unwrap();
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(3)])).unwrap();
    let c = |v: i32| constant(&g, v).unwrap();
    let pair = |v: i32| stack(&[n.clone(), c(v)], 0).unwrap();
    let s = |d: &[Option<usize>]| Shape::new(d.to_vec());
    // tf.random.normal / uniform / truncated_normal(tf.stack([n, 100])) -> (None, 100)
    let z = weir_ops::random::random_normal(&g, pair(100)).unwrap();
    assert_eq!(z.shape(), s(&[None, Some(100)]));
    let u = weir_ops::random::random_uniform(&g, pair(100)).unwrap();
    assert_eq!(u.shape(), s(&[None, Some(100)]));
    let t = weir_ops::random::truncated_normal(&g, pair(100)).unwrap();
    assert_eq!(t.shape(), s(&[None, Some(100)]));
    // tf.broadcast_to([1., 2., 3.], tf.stack([n, 3])) -> (None, 3)
    let b = broadcast_to(constant(&g, [1.0f32, 2.0, 3.0]).unwrap(), pair(3)).unwrap();
    assert_eq!(b.shape(), s(&[None, Some(3)]));
    // tf.tile(x, tf.stack([n, 2])) of a [None, 3] x -> (None, 6)
    assert_eq!(tile(&x, pair(2)).unwrap().shape(), s(&[None, Some(6)]));
}
