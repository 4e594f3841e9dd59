//! Unit tests of the layers: sharing, scopes, refused options, error kinds, dynamic shapes.

use weir_graph::{graph_keys, Code, DType, Error, Graph, Output, Shape, Tensor};
use weir_ops::array::placeholder;
use weir_ops::init_ops::Initializer;
use weir_ops::math::Reduce;
use weir_ops::state::{global_variables, global_variables_initializer};
use weir_session::{RunArgs, Session};

use super::*;
use crate::gradients::gradients;
use crate::losses::get_regularization_losses;
use crate::regularizers::l2_regularizer;
use crate::VariableScope;

fn input(g: &Graph, dims: &[Option<usize>]) -> Output {
    placeholder(g, DType::F32, Shape::new(dims.to_vec())).unwrap()
}

fn var_names(g: &Graph) -> Vec<String> {
    global_variables(g)
        .unwrap()
        .iter()
        .map(|v| v.name())
        .collect()
}

fn run(g: &Graph, feeds: &[(&Output, Tensor)], fetch: &Output) -> Tensor {
    let sess = Session::new(g).unwrap();
    sess.run_target(&global_variables_initializer(g).unwrap())
        .unwrap();
    let mut args = RunArgs::new().fetch(fetch);
    for (o, t) in feeds {
        args = args.feed(*o, t.clone());
    }
    sess.run(&args).unwrap().remove(0)
}

fn assert_code(e: Error, code: Code, needle: &str) {
    assert_eq!(e.code(), code, "{}", e.message());
    assert!(e.message().contains(needle), "{}", e.message());
}

#[test]
fn a_layer_called_twice_shares_its_variables() {
    let g = Graph::new();
    let x = input(&g, &[None, Some(3)]);
    let layer = Dense::new(2).kernel_regularizer(l2_regularizer(0.5).unwrap());
    assert!(layer.kernel().is_none() && layer.layer_name().is_none());
    let a = layer.apply(&x).unwrap();
    let b = layer.apply(&x).unwrap();
    assert_eq!(a.name(), "dense/BiasAdd:0");
    assert_eq!(b.name(), "dense/BiasAdd_1:0");
    assert_eq!(var_names(&g), ["dense/kernel", "dense/bias"]);
    assert_eq!(layer.scope_name().as_deref(), Some("dense"));
    assert_eq!(layer.layer_name().as_deref(), Some("dense_1"));
    assert_eq!(layer.variables().len(), 2);
    assert_eq!(layer.bias().unwrap().name(), "dense/bias");
    // One penalty, made with the variable.
    assert_eq!(get_regularization_losses(&g, None).len(), 1);
}

#[test]
fn reused_layers_add_no_second_penalty() {
    let g = Graph::new();
    let x = input(&g, &[None, Some(3)]);
    let reg = l2_regularizer(0.5).unwrap();
    Dense::new(2)
        .name("fc")
        .kernel_regularizer(reg.clone())
        .apply(&x)
        .unwrap();
    Dense::new(2)
        .name("fc")
        .reuse(true)
        .kernel_regularizer(reg.clone())
        .apply(&x)
        .unwrap();
    Dense::new(2)
        .name("fc")
        .auto_reuse()
        .kernel_regularizer(reg)
        .apply(&x)
        .unwrap();
    assert_eq!(var_names(&g), ["fc/kernel", "fc/bias"]);
    assert_eq!(get_regularization_losses(&g, None).len(), 1);
}

#[test]
fn reentering_a_scope_without_reuse_collides_as_in_tensorflow() {
    let g = Graph::new();
    let x = input(&g, &[None, Some(3)]);
    for _ in 0..2 {
        let _s = VariableScope::new("m").enter(&g).unwrap();
        let r = dense(&x, 2);
        if var_names(&g).len() > 2 {
            panic!("a second set of variables: {:?}", var_names(&g));
        }
        if let Err(e) = r {
            assert_code(
                e,
                Code::InvalidArgument,
                "Variable m/dense/kernel already exists",
            );
        }
    }
}

#[test]
fn refused_options_are_unimplemented() {
    let g = Graph::new();
    let img = input(&g, &[None, Some(4), Some(4), Some(2)]);
    let e = Conv2D::new(2, 3)
        .data_format("channels_first")
        .apply(&img)
        .unwrap_err();
    assert_code(e, Code::Unimplemented, "channels_first");
    let e = MaxPooling2D::new(2, 2)
        .data_format("channels_first")
        .apply(&img)
        .unwrap_err();
    assert_code(e, Code::Unimplemented, "channels_first");
    let e = Conv2D::new(2, 3).dilation_rate(2).apply(&img).unwrap_err();
    assert_code(e, Code::Unimplemented, "dilation_rate=(2, 2)");
    let e = BatchNormalization::new()
        .axis(1)
        .apply(&img, true)
        .unwrap_err();
    assert_code(e, Code::Unimplemented, "NCHW");
    let e = BatchNormalization::new()
        .renorm(true)
        .apply(&img, true)
        .unwrap_err();
    assert_code(e, Code::Unimplemented, "renorm");
    let five = input(&g, &[Some(1), Some(2), Some(4), Some(4), Some(2)]);
    let e = conv2d(&five, 2, 3).unwrap_err();
    assert_code(e, Code::Unimplemented, "rank 5");
    let e = Conv2D::new(2, 3)
        .data_format("nhwc")
        .apply(&img)
        .unwrap_err();
    assert_code(e, Code::InvalidArgument, "must be one of");
    // Nothing was made by the refused calls.
    assert!(var_names(&g).is_empty());
}

#[test]
fn bad_inputs_are_invalid_arguments() {
    let g = Graph::new();
    let ints = placeholder(&g, DType::I32, Shape::known(&[2, 3])).unwrap();
    assert_code(
        dense(&ints, 2).unwrap_err(),
        Code::InvalidArgument,
        "dtype=int32",
    );
    let unknown = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let e = batch_normalization(&unknown, true).unwrap_err();
    assert_code(e, Code::InvalidArgument, "Input has undefined rank");
    let e = batch_normalization(input(&g, &[Some(2), None]), true).unwrap_err();
    assert_code(e, Code::InvalidArgument, "undefined `axis` dimension");
    let e = BatchNormalization::new()
        .axes(&[1, -1])
        .apply(input(&g, &[Some(2), Some(3)]), true);
    assert_code(
        e.unwrap_err(),
        Code::InvalidArgument,
        "Duplicate axis: (1, 1)",
    );
    let e = flatten(placeholder(&g, DType::F32, Shape::scalar()).unwrap()).unwrap_err();
    assert_code(
        e,
        Code::InvalidArgument,
        "expected min_ndim=1, found ndim=0",
    );
    let x = input(&g, &[Some(2), Some(3)]);
    let e = dropout(&x, 1.0, true).unwrap_err();
    assert_code(
        e,
        Code::InvalidArgument,
        "in the range [0, 1). Received: rate=1.0",
    );
    assert!(dropout(&x, 1.0, false).is_ok());
    let e = Dropout::new(0.5)
        .noise_shape(&[None])
        .apply(&x, true)
        .unwrap_err();
    assert_code(e, Code::InvalidArgument, "noise_shape");
}

#[test]
fn dynamic_shapes_flatten_and_multiply() {
    let g = Graph::new();
    let x = input(&g, &[None, Some(2), None]);
    let y = flatten(&x).unwrap();
    let v = Tensor::from_vec(&[3, 2, 4], (0..24).map(|i| i as f32).collect()).unwrap();
    assert_eq!(run(&g, &[(&x, v.clone())], &y).shape(), [3, 8]);
    let zin = input(&g, &[None, None, Some(4)]);
    let z = Dense::new(2)
        .kernel_initializer(Initializer::Ones)
        .apply(&zin)
        .unwrap();
    let out = run(&g, &[(&zin, v)], &z);
    assert_eq!(out.shape(), [3, 2, 2]);
    assert_eq!(out.to_vec::<f32>().unwrap()[..2], [6.0, 6.0]);
    let vec = flatten(input(&g, &[Some(5)])).unwrap();
    assert_eq!(vec.shape(), Shape::known(&[5, 1]));
}

#[test]
fn flatten_channels_first_moves_channels_last() {
    let g = Graph::new();
    let x = input(&g, &[Some(1), Some(2), Some(1), Some(2)]);
    let y = Flatten::new()
        .data_format("channels_first")
        .apply(&x)
        .unwrap();
    let v = Tensor::from_vec(&[1, 2, 1, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(
        run(&g, &[(&x, v)], &y).to_vec::<f32>().unwrap(),
        [1.0, 3.0, 2.0, 4.0]
    );
}

#[test]
fn dropout_seeds_advance_per_call_and_gradients_pass() {
    let g = Graph::new();
    let x = input(&g, &[Some(4), Some(50)]);
    let tr = placeholder(&g, DType::Bool, Shape::scalar()).unwrap();
    let layer = Dropout::new(0.5).seed(1);
    let a = layer.apply(&x, true).unwrap();
    let b = layer.apply(&x, true).unwrap();
    let c = Dropout::new(0.5).seed(1).apply(&x, true).unwrap();
    let d = layer.apply(&x, &tr).unwrap();
    let loss = Reduce::sum().build(&d).unwrap();
    let dx = gradients(&[loss], std::slice::from_ref(&x), None).unwrap()[0]
        .clone()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let ones = Tensor::from_vec(&[4, 50], vec![1.0f32; 200]).unwrap();
    let args = RunArgs::new().feed(&x, ones).feed(&tr, Tensor::from(false));
    let out = sess
        .run(&args.fetch(&a).fetch(&b).fetch(&c).fetch(&dx))
        .unwrap();
    let v: Vec<Vec<f32>> = out.iter().map(|t| t.to_vec::<f32>().unwrap()).collect();
    assert_ne!(v[0], v[1], "the second call draws with seed 2");
    assert_eq!(v[0], v[2], "the same seed draws the same mask");
    assert!(v[0].iter().all(|&e| e == 0.0 || e == 2.0));
    assert!(
        v[3].iter().all(|&e| e == 1.0),
        "inference passes gradients unchanged"
    );
}

#[test]
fn batch_norm_without_center_and_scale_and_several_axes() {
    let g = Graph::new();
    let img = input(&g, &[None, Some(2), Some(2), Some(3)]);
    let y = BatchNormalization::new()
        .center(false)
        .scale(false)
        .apply(&img, true)
        .unwrap();
    assert_eq!(y.name(), "batch_normalization/FusedBatchNormV3:0");
    assert_eq!(
        var_names(&g),
        [
            "batch_normalization/moving_mean",
            "batch_normalization/moving_variance"
        ]
    );
    let layer = BatchNormalization::new().axes(&[1, 3]).name("multi");
    let z = layer.apply(&img, false).unwrap();
    assert_eq!(layer.gamma().unwrap().shape(), Shape::known(&[1, 2, 1, 3]));
    assert!(layer.updates().is_empty(), "no updates in inference");
    let v = Tensor::from_vec(&[2, 2, 2, 3], (0..24).map(|i| i as f32).collect()).unwrap();
    let out = run(&g, &[(&img, v.clone())], &y).to_vec::<f32>().unwrap();
    let mean: f32 = out.iter().sum::<f32>() / out.len() as f32;
    assert!(mean.abs() < 1e-5);
    // Inference with the initial statistics (0, 1): x / sqrt(1 + 1e-3).
    let out = run(&g, &[(&img, v)], &z).to_vec::<f32>().unwrap();
    assert!((out[5] - 5.0 / 1.001f32.sqrt()).abs() < 1e-5);
    assert_eq!(g.get_collection(graph_keys::UPDATE_OPS).len(), 2);
}

#[test]
fn pooling_and_conv_options() {
    let g = Graph::new();
    let img = input(&g, &[None, Some(5), Some(5), Some(1)]);
    let p = AveragePooling2D::new([2, 3], (1, 2))
        .padding("SAME")
        .apply(&img)
        .unwrap();
    assert_eq!(p.shape().python_str(), "(None, 5, 3, 1)");
    let layer = Conv2D::new(4, 3)
        .strides(2)
        .use_bias(false)
        .trainable(false);
    let c = layer.apply(&img).unwrap();
    assert_eq!(c.shape().python_str(), "(None, 2, 2, 4)");
    assert!(layer.bias().is_none());
    assert_eq!(layer.kernel().unwrap().shape(), Shape::known(&[3, 3, 1, 4]));
    let e = MaxPooling2D::new(0, 1).apply(&img).unwrap_err();
    assert_code(e, Code::InvalidArgument, "`pool_size` argument");
    let e = Conv2D::new(2, 3).padding("causal").apply(&img).unwrap_err();
    assert_code(e, Code::InvalidArgument, "Causal padding");
    let e = Conv2D::new(2, 3).strides((0, 1)).apply(&img).unwrap_err();
    assert_code(
        e,
        Code::InvalidArgument,
        "cannot contains 0(s). Received: (0, 1)",
    );
}
