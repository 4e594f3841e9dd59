//! Unit tests of the metrics: TensorFlow's errors (kind and message), the run-time checks,
//! names, and resetting. Values are checked against TensorFlow in
//! tests/integration/metrics.rs.

use weir_graph::{Code, DType, Graph, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::state::local_variables_initializer;
use weir_session::{RunArgs, Session};

use super::*;

#[test]
fn incompatible_labels_and_predictions_are_invalid_argument() {
    let g = Graph::new();
    let l = constant(&g, [1i64, 0, 1]).unwrap();
    let p = constant(&g, [1i64, 1]).unwrap();
    for e in [
        accuracy(&l, &p).unwrap_err(),
        precision(&l, &p).unwrap_err(),
        true_positives(&l, &p).unwrap_err(),
        mean_iou(&l, &p, 3).unwrap_err(),
        mean_per_class_accuracy(&l, &p, 3).unwrap_err(),
    ] {
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(e.message(), "Shapes (2,) and (3,) are incompatible");
    }
}

#[test]
fn weights_of_the_wrong_rank_are_refused() {
    let g = Graph::new();
    let l = constant(&g, [1i64, 0, 1]).unwrap();
    let p = constant(&g, [1i64, 1, 0]).unwrap();
    let w = constant(&g, Tensor::from_vec(&[1, 1, 1], vec![1.0f32]).unwrap()).unwrap();
    let e = TruePositives::new(&l, &p).weights(&w).build().unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        "Tensor Const_2:0 must have rank in (0, 1).  Received rank 3, shape (1, 1, 1)"
    );
    // Weights of rank one more than the predictions are squeezed, which a dim of 3 refuses.
    let w = constant(&g, Tensor::from_vec(&[1, 3], vec![1.0f32; 3]).unwrap()).unwrap();
    let e = TruePositives::new(&l, &p).weights(&w).build().unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    // mean_iou's weights go to the confusion matrix, which wants the predictions' shape.
    let e = MeanIou::new(&l, &p, 3).weights(1.0).build().unwrap_err();
    assert_eq!(e.message(), "Shapes (3,) and () are incompatible");
}

#[test]
fn auc_options_and_their_errors() {
    let e = "XX".parse::<Curve>().unwrap_err();
    assert_eq!(
        e.message(),
        "Curve must be either ROC or PR. Curve XX is unknown."
    );
    let e = "simpson".parse::<SummationMethod>().unwrap_err();
    assert!(e.message().starts_with("Invalid summation_method: simpson"));
    assert_eq!(SummationMethod::Majoring.to_string(), "majoring");
    let g = Graph::new();
    let l = constant(&g, [1i64, 0]).unwrap();
    let p = constant(&g, [0.5f32, 0.2]).unwrap();
    let e = Auc::new(&l, &p).num_thresholds(1).build().unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[test]
fn run_time_checks_fail_the_update() {
    let g = Graph::new();
    let l = placeholder(&g, DType::I64, Shape::known(&[3])).unwrap();
    let p = placeholder(&g, DType::F32, Shape::known(&[3])).unwrap();
    let (_, auc_update) = auc(&l, &p).unwrap();
    let c = placeholder(&g, DType::I32, Shape::known(&[3])).unwrap();
    let (_, iou_update) = mean_iou(&l, &c, 3).unwrap();
    let s = Session::new(&g).unwrap();
    s.run_target(&local_variables_initializer(&g).unwrap())
        .unwrap();
    let e = s
        .run(
            &RunArgs::new()
                .feed(&l, Tensor::from(vec![1i64, 0, 1]))
                .feed(&p, Tensor::from(vec![0.1f32, 1.5, 0.3]))
                .fetch(&auc_update),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains(
            "[predictions must be in [0, 1]] [Condition x <= y did not hold element-wise:]"
        ),
        "{e}"
    );
    let e = s
        .run(
            &RunArgs::new()
                .feed(&l, Tensor::from(vec![1i64, 0, 1]))
                .feed(&c, Tensor::from(vec![1i32, 1, 5]))
                .fetch(&iou_update),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("[`predictions` out of bound]"), "{e}");
}

#[test]
fn names_are_unique_and_the_initializer_resets() {
    let g = Graph::new();
    let l = constant(&g, [1i64, 0, 1, 1]).unwrap();
    let p = constant(&g, [1i64, 1, 1, 0]).unwrap();
    let (v1, u1) = Accuracy::new(&l, &p).name("acc").build().unwrap();
    let (v2, _) = Accuracy::new(&l, &p).name("acc").build().unwrap();
    assert_eq!(v1.name(), "acc/value:0");
    assert_eq!(v2.name(), "acc_1/value:0");
    let (r, ru) = recall(&l, &p).unwrap();
    assert_eq!(r.name(), "recall/value:0");
    let s = Session::new(&g).unwrap();
    let init = local_variables_initializer(&g).unwrap();
    s.run_target(&init).unwrap();
    assert_eq!(s.eval(&v1).unwrap().to_vec::<f32>().unwrap(), vec![0.0]);
    assert_eq!(s.eval(&r).unwrap().to_vec::<f32>().unwrap(), vec![0.0]);
    for _ in 0..2 {
        assert_eq!(s.eval(&u1).unwrap().to_vec::<f32>().unwrap(), vec![0.5]);
    }
    let rv = s.eval(&ru).unwrap().to_vec::<f32>().unwrap()[0];
    assert!((rv - 2.0 / 3.0).abs() < 1e-6);
    s.run_target(&init).unwrap();
    assert_eq!(s.eval(&v1).unwrap().to_vec::<f32>().unwrap(), vec![0.0]);
    assert_eq!(s.eval(&r).unwrap().to_vec::<f32>().unwrap(), vec![0.0]);
}
