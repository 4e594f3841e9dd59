//! Unit tests of the losses: TensorFlow's errors (kind and message), the run-time weights
//! check, dtypes, scopes and collections. Values are checked against TensorFlow in
//! tests/integration/losses.rs.

use weir_graph::{Code, DType, Graph, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_session::{RunArgs, Session};

use super::*;

fn t(shape: &[usize], v: &[f32]) -> Tensor {
    Tensor::from_vec(shape, v.to_vec()).unwrap()
}

#[test]
fn reductions_parse_as_tensorflow_names_them() {
    for r in Reduction::all() {
        assert_eq!(r.as_str().parse::<Reduction>().unwrap(), r);
    }
    assert_eq!(Reduction::default(), Reduction::SUM_OVER_NONZERO_WEIGHTS);
    let e = "bad".parse::<Reduction>().unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e
        .message()
        .starts_with("Invalid Reduction Key bad. Key should be one of ('none', "));
}

#[test]
fn incompatible_shapes_are_invalid_argument() {
    let g = Graph::new();
    let l = constant(&g, t(&[2, 2], &[1., 2., 3., 4.])).unwrap();
    let p = constant(&g, [1.0f32, 2.0]).unwrap();
    for e in [
        absolute_difference(&l, &p).unwrap_err(),
        mean_squared_error(&l, &p).unwrap_err(),
        log_loss(&l, &p).unwrap_err(),
        huber_loss(&l, &p).unwrap_err(),
        mean_pairwise_squared_error(&l, &p).unwrap_err(),
        cosine_distance(&l, &p, 1).unwrap_err(),
    ] {
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(e.message(), "Shapes (2,) and (2, 2) are incompatible");
    }
    let e = hinge_loss(&l, &p).unwrap_err();
    assert_eq!(e.message(), "Shapes (2,) and (2, 2) are incompatible");
    let e = softmax_cross_entropy(&p, &l).unwrap_err();
    assert_eq!(e.message(), "Shapes (2, 2) and (2,) are incompatible");
    let e = sigmoid_cross_entropy(&p, &l).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let labels = constant(&g, Tensor::from_vec(&[1, 2], vec![1i32, 0]).unwrap()).unwrap();
    let e = sparse_softmax_cross_entropy(&labels, &l).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("`labels.shape.rank` must equal"));
    assert!(get_losses(&g, None, "losses").is_empty());
}

#[test]
fn weights_that_do_not_broadcast_are_refused_when_built() {
    let g = Graph::new();
    let l = constant(&g, t(&[2, 3], &[0.; 6])).unwrap();
    let w = constant(&g, [1.0f32, 2.0]).unwrap();
    let e = AbsoluteDifference::new(&l, &l)
        .weights(&w)
        .build()
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with(
        "weights can not be broadcast to values. values.rank=2. weights.rank=1. values.shape=(2, 3). weights.shape=(2,). Received weights=Tensor(\"Const_1:0\""
    ));
    let w = constant(&g, t(&[2, 2], &[1.; 4])).unwrap();
    let e = compute_weighted_loss(&l, &w, None, None, Reduction::Sum).unwrap_err();
    assert!(e.message().starts_with(
        "weights can not be broadcast to values. Mismatch at dim 1. values.shape=[2 3], weights.shape=[2 2]."
    ));
}

#[test]
fn weights_of_unknown_shape_are_checked_when_run() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let w = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let loss = AbsoluteDifference::new(&x, constant(&g, 0.0f32).unwrap())
        .weights(&w)
        .build()
        .unwrap();
    let s = Session::new(&g).unwrap();
    let run = |wv: Tensor| {
        s.run(
            &RunArgs::new()
                .feed(&x, t(&[2, 3], &[1., -2., 3., 4., 5., -6.]))
                .feed(&w, wv)
                .fetch(&loss),
        )
    };
    let e = run(Tensor::from(vec![1.0f32, 2.0, 3.0])).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .contains("assertion failed: [weights can not be broadcast to values.]"),
        "{e}"
    );
    let e = run(t(&[2, 2], &[1.; 4])).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    // Rows weighted 1 and 0: (1 + 2 + 3) / 3 present elements.
    let v = run(t(&[2, 1], &[1., 0.])).unwrap()[0]
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(v, vec![2.0]);
    let v = run(Tensor::scalar(2.0f32)).unwrap()[0]
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(v, vec![7.0]);
}

#[test]
fn no_present_weight_gives_zero_and_dtype_is_kept() {
    let g = Graph::new();
    let l = constant(&g, Tensor::from(vec![1.0f64, 2.0])).unwrap();
    let s = Session::new(&g).unwrap();
    for r in [
        Reduction::Mean,
        Reduction::SumOverBatchSize,
        Reduction::SumByNonzeroWeights,
    ] {
        let loss = compute_weighted_loss(&l, 0.0, None, None, r).unwrap();
        assert_eq!(loss.dtype(), DType::F64);
        assert_eq!(s.eval(&loss).unwrap().to_vec::<f64>().unwrap(), vec![0.0]);
    }
    let empty = constant(&g, Tensor::from(Vec::<f32>::new())).unwrap();
    let loss = compute_weighted_loss(&empty, 1.0, None, None, Reduction::Mean).unwrap();
    assert_eq!(s.eval(&loss).unwrap().to_vec::<f32>().unwrap(), vec![0.0]);
}

#[test]
fn scopes_and_collections() {
    let g = Graph::new();
    let l = constant(&g, [1.0f32, 2.0]).unwrap();
    let p = constant(&g, [1.5f32, 2.0]).unwrap();
    let a = MeanSquaredError::new(&l, &p).scope("mine").build().unwrap();
    assert_eq!(a.name(), "mine/value:0");
    let b = MeanSquaredError::new(&l, &p).scope("mine").build().unwrap();
    assert_eq!(b.name(), "mine_1/value:0");
    let c = HuberLoss::new(&l, &p)
        .loss_collection(Some("other"))
        .build()
        .unwrap();
    let d = LogLoss::new(&l, &p).loss_collection(None).build().unwrap();
    let names = |v: Vec<Output>| v.iter().map(Output::name).collect::<Vec<_>>();
    assert_eq!(
        names(get_losses(&g, None, "losses")),
        ["mine/value:0", "mine_1/value:0"]
    );
    assert_eq!(
        names(get_losses(&g, Some("mine_1"), "losses")),
        ["mine_1/value:0"]
    );
    assert_eq!(names(get_losses(&g, None, "other")), [c.name()]);
    assert!(!names(get_losses(&g, None, "losses")).contains(&d.name()));
    let total = get_total_loss(&g, false).unwrap();
    assert_eq!(total.op().op_type(), "AddN");
    let g2 = Graph::new();
    let e = get_total_loss(&g2, true).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape."
    );
    let zero = get_regularization_loss(&g2, None).unwrap();
    assert_eq!(zero.op().op_type(), "Const");
}

#[test]
fn inputs_from_two_graphs_are_refused() {
    let (g1, g2) = (Graph::new(), Graph::new());
    let a = constant(&g1, [1.0f32]).unwrap();
    let b = constant(&g2, [1.0f32]).unwrap();
    let e = absolute_difference(&a, &b).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}
