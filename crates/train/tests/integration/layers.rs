//! `weir_train::layers` against TensorFlow 2.21's `tf.compat.v1.layers` (tests/data/layers,
//! made by make_layers.py there): each case builds TensorFlow's model with weir's layers from
//! the same inputs and initial values and compares outputs, variable names, shapes and
//! trainability, gradients, losses and variables after GradientDescent/Adam steps, batch-norm
//! moving statistics, dropout, regularization losses, layer names and error messages, within
//! 1e-5 relative. A checkpoint TensorFlow saved from its trained batch-norm model restores
//! into weir's.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::Tensor;
use weir_graph::{graph_keys, CollectionItem, DType, Graph, Operation, Output, Result, Shape};
use weir_ops::array::placeholder;
use weir_ops::init_ops::Initializer;
use weir_ops::math::{mul, square, sub, Reduce};
use weir_ops::nn::relu;
use weir_ops::state::{global_variables, global_variables_initializer, trainable_variables};
use weir_session::{RunArgs, Session};
use weir_train::gradients::gradients;
use weir_train::layers::{self, BatchNormalization, Conv2D, Dense, Dropout, MaxPooling2D};
use weir_train::losses::{get_regularization_loss, get_regularization_losses};
use weir_train::{
    l1_l2_regularizer, l1_regularizer, l2_regularizer, AdamOptimizer, GetVariable,
    GradientDescentOptimizer, Optimizer, Saver, VariableScope,
};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/layers")
}

fn expected(case: &str) -> &'static Value {
    static DATA: OnceLock<Value> = OnceLock::new();
    let all = DATA.get_or_init(|| {
        let text = std::fs::read_to_string(data_dir().join("expected.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    });
    &all[case]
}

/// A `{"shape", "values"}` entry as a float32 tensor.
fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = serde_json::from_value(v["shape"].clone()).unwrap();
    let values: Vec<f32> = serde_json::from_value(v["values"].clone()).unwrap();
    Tensor::from_vec(&shape, values).unwrap()
}

fn init(v: &Value) -> Initializer {
    Initializer::Constant(tensor(v))
}

/// Asserts `actual` equals `expected` within 1e-5 relative (1e-6 absolute near zero).
fn close(actual: &Tensor, expected: &Value, what: &str) {
    let want = tensor(expected);
    assert_eq!(actual.shape(), want.shape(), "{what}: shape");
    let (a, e) = (
        actual.to_vec::<f32>().unwrap(),
        want.to_vec::<f32>().unwrap(),
    );
    for (i, (x, y)) in a.iter().zip(&e).enumerate() {
        let tol = 1e-5 * y.abs().max(0.1);
        assert!(
            (x - y).abs() <= tol,
            "{what}[{i}]: weir {x}, TensorFlow {y}"
        );
    }
}

fn close_scalar(actual: f32, expected: &Value, what: &str) {
    let y = expected.as_f64().unwrap() as f32;
    assert!(
        (actual - y).abs() <= 1e-5 * y.abs().max(0.1),
        "{what}: weir {actual}, TensorFlow {y}"
    );
}

fn f32_input(g: &Graph, like: &Value, batch_unknown: bool) -> Output {
    let shape: Vec<usize> = serde_json::from_value(like["shape"].clone()).unwrap();
    let dims: Vec<Option<usize>> = shape
        .iter()
        .enumerate()
        .map(|(i, &d)| (i > 0 || !batch_unknown).then_some(d))
        .collect();
    placeholder(g, DType::F32, Shape::new(dims)).unwrap()
}

/// The variables' names, shapes and trainability, as `var_info()` in make_layers.py.
fn check_vars(g: &Graph, want: &Value) {
    let trainable: Vec<String> = trainable_variables(g)
        .unwrap()
        .iter()
        .map(|v| v.name())
        .collect();
    let got: Vec<Value> = global_variables(g)
        .unwrap()
        .iter()
        .map(|v| {
            let shape: Vec<Option<usize>> = v.shape().dims().unwrap().to_vec();
            serde_json::json!({"name": v.name(), "shape": shape,
                               "trainable": trainable.contains(&v.name())})
        })
        .collect();
    assert_eq!(&Value::Array(got), want);
}

/// Every variable's value against `final` in expected.json.
fn check_final(sess: &Session, g: &Graph, want: &Value, what: &str) -> Result<()> {
    let vars = global_variables(g)?;
    assert_eq!(
        vars.len(),
        want.as_object().unwrap().len(),
        "{what}: variable count"
    );
    for v in vars {
        close(
            &sess.eval(&v)?,
            &want[v.name()],
            &format!("{what}: {}", v.name()),
        );
    }
    Ok(())
}

fn variable_values(g: &Graph) -> Result<Vec<Output>> {
    Ok(global_variables(g)?.iter().map(Output::from).collect())
}

fn update_ops(g: &Graph) -> Vec<Operation> {
    g.get_collection(graph_keys::UPDATE_OPS)
        .into_iter()
        .filter_map(|i| match i {
            CollectionItem::Operation(o) => Some(o),
            _ => None,
        })
        .collect()
}

fn fetch_all(args: RunArgs, outs: &[Output]) -> RunArgs {
    outs.iter().fold(args, |a, o| a.fetch(o))
}

fn mse(y: &Output, t: &Output) -> Result<Output> {
    Reduce::mean().build(square(sub(y, t)?)?)
}

fn grads(loss: &Output, xs: &[Output]) -> Result<Vec<Output>> {
    Ok(gradients(std::slice::from_ref(loss), xs, None)?
        .into_iter()
        .map(|g| g.expect("a gradient"))
        .collect())
}

/// Runs `train` once per expected loss, comparing the loss after each step.
fn check_steps(
    sess: &Session,
    feed: &RunArgs,
    train: &Operation,
    loss: &Output,
    want: &Value,
) -> Result<()> {
    for (i, want) in want.as_array().unwrap().iter().enumerate() {
        sess.run(&feed.clone().target(train))?;
        let got = sess.run(&feed.clone().fetch(loss))?[0].to_scalar()?;
        close_scalar(got, want, &format!("loss after step {}", i + 1));
    }
    Ok(())
}

/// Each variable's gradient against `want[name]`.
fn check_grads(g: &Graph, got: &[Tensor], want: &Value) -> Result<()> {
    for (v, gv) in global_variables(g)?.iter().zip(got) {
        close(gv, &want[v.name()], &format!("gradient of {}", v.name()));
    }
    Ok(())
}

/// A session with the variables initialized.
fn initialized(g: &Graph) -> Result<Session> {
    let sess = Session::new(g)?;
    sess.run_target(&global_variables_initializer(g)?)?;
    Ok(sess)
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

#[test]
fn dense_layers_train_as_tensorflows() -> Result<()> {
    let e = expected("dense");
    let g = Graph::new();
    let (x, t) = (f32_input(&g, &e["x"], true), f32_input(&g, &e["t"], true));
    let h = Dense::new(4)
        .activation(|x| relu(x))
        .kernel_initializer(init(&e["init"]["k1"]))
        .bias_initializer(init(&e["init"]["b1"]))
        .apply(&x)?;
    let y = Dense::new(2)
        .kernel_initializer(init(&e["init"]["k2"]))
        .apply(&h)?;
    assert_eq!(h.name(), e["names"]["h"].as_str().unwrap());
    assert_eq!(y.name(), e["names"]["y"].as_str().unwrap());
    check_vars(&g, &e["vars"]);
    let loss = mse(&y, &t)?;
    let mut xs = variable_values(&g)?;
    xs.push(x.clone());
    let gs = grads(&loss, &xs)?;
    let train = GradientDescentOptimizer::new(0.1).minimize(&loss, None, None)?;
    let sess = initialized(&g)?;
    let feed = RunArgs::new()
        .feed(&x, tensor(&e["x"]))
        .feed(&t, tensor(&e["t"]));
    let out = sess.run(&fetch_all(feed.clone().fetch(&y).fetch(&loss), &gs))?;
    close(&out[0], &e["y"], "y");
    close_scalar(out[1].to_scalar()?, &e["loss"], "loss");
    check_grads(&g, &out[2..], &e["grads"])?;
    close(out.last().unwrap(), &e["grad_x"], "gradient of x");
    check_steps(&sess, &feed, &train, &loss, &e["losses"])?;
    check_final(&sess, &g, &e["final"], "dense")
}

#[test]
fn dense_multiplies_the_last_axis_of_higher_ranks() -> Result<()> {
    let e = expected("dense_rank3");
    let g = Graph::new();
    let x = f32_input(&g, &e["x"], true);
    let y = Dense::new(2)
        .kernel_initializer(init(&e["k"]))
        .bias_initializer(init(&e["b"]))
        .apply(&x)?;
    assert_eq!(e["shape"], "(?, 3, 2)");
    assert_eq!(y.shape().python_str(), "(None, 3, 2)");
    let loss = Reduce::sum().build(mul(&y, &y)?)?;
    let gs = grads(&loss, &[variable_values(&g)?[0].clone(), x.clone()])?;
    let sess = initialized(&g)?;
    let feed = RunArgs::new().feed(&x, tensor(&e["x"])).fetch(&y);
    let out = sess.run(&fetch_all(feed, &gs))?;
    close(&out[0], &e["y"], "y");
    close(&out[1], &e["grad_kernel"], "gradient of the kernel");
    close(&out[2], &e["grad_x"], "gradient of x");
    Ok(())
}

#[test]
fn regularizers_add_tensorflows_losses() -> Result<()> {
    let e = expected("regularized");
    let g = Graph::new();
    let (x, t) = (f32_input(&g, &e["x"], true), f32_input(&g, &e["t"], true));
    let h = Dense::new(4)
        .kernel_initializer(init(&e["init"]["k1"]))
        .bias_initializer(init(&e["init"]["b1"]))
        .kernel_regularizer(l2_regularizer(0.1)?)
        .bias_regularizer(l1_regularizer(0.2)?)
        .activity_regularizer(l2_regularizer(0.05)?)
        .apply(&x)?;
    let y = Dense::new(2)
        .kernel_initializer(init(&e["init"]["k2"]))
        .kernel_regularizer(l1_l2_regularizer(0.01, 0.02)?)
        .apply(&h)?;
    GetVariable::new("w_extra")
        .shape(&[3])
        .initializer(init(&e["init"]["w"]))
        .regularizer(l2_regularizer(0.3)?)
        .build(&g)?;
    let regs = get_regularization_losses(&g, None);
    let names: Vec<String> = regs.iter().map(Output::name).collect();
    assert_eq!(names, strs(&e["reg_names"]));
    let total = get_regularization_loss(&g, None)?;
    assert_eq!(total.name(), e["total_name"].as_str().unwrap());
    let loss = weir_ops::math::add(mse(&y, &t)?, &total)?;
    let train = AdamOptimizer::new(0.01).minimize(&loss, None, None)?;
    let sess = initialized(&g)?;
    let feed = RunArgs::new()
        .feed(&x, tensor(&e["x"]))
        .feed(&t, tensor(&e["t"]));
    let out = sess.run(&fetch_all(feed.clone(), &regs).fetch(&total).fetch(&loss))?;
    for (i, want) in e["reg_values"].as_array().unwrap().iter().enumerate() {
        close_scalar(out[i].to_scalar()?, want, &names[i]);
    }
    close_scalar(
        out[regs.len()].to_scalar()?,
        &e["total"],
        "total regularization loss",
    );
    close_scalar(out[regs.len() + 1].to_scalar()?, &e["loss"], "loss");
    check_steps(&sess, &feed, &train, &loss, &e["losses"])?;
    let trainable: Vec<String> = trainable_variables(&g)?.iter().map(|v| v.name()).collect();
    assert_eq!(trainable, strs(&e["trainable"]));
    check_final(&sess, &g, &e["final"], "regularized")
}

#[test]
fn convolution_and_pooling_train_as_tensorflows() -> Result<()> {
    let e = expected("conv");
    let g = Graph::new();
    let (x, t) = (f32_input(&g, &e["x"], true), f32_input(&g, &e["t"], true));
    let h = Conv2D::new(3, 3)
        .padding("same")
        .activation(|x| relu(x))
        .kernel_initializer(init(&e["init"]["k1"]))
        .bias_initializer(init(&e["init"]["b1"]))
        .apply(&x)?;
    let h = layers::max_pooling2d(&h, 2, 2)?;
    let h = Conv2D::new(2, [2, 2])
        .strides((2, 2))
        .kernel_initializer(init(&e["init"]["k2"]))
        .apply(&h)?;
    let h = layers::AveragePooling2D::new(2, 1)
        .padding("same")
        .apply(&h)?;
    let h = layers::flatten(&h)?;
    let y = Dense::new(3)
        .kernel_initializer(init(&e["init"]["k3"]))
        .apply(&h)?;
    check_vars(&g, &e["vars"]);
    let loss = mse(&y, &t)?;
    let gs = grads(&loss, &variable_values(&g)?)?;
    let train = GradientDescentOptimizer::new(0.05).minimize(&loss, None, None)?;
    let sess = initialized(&g)?;
    let feed = RunArgs::new()
        .feed(&x, tensor(&e["x"]))
        .feed(&t, tensor(&e["t"]));
    let out = sess.run(&fetch_all(feed.clone().fetch(&y).fetch(&loss), &gs))?;
    close(&out[0], &e["y"], "y");
    close_scalar(out[1].to_scalar()?, &e["loss"], "loss");
    check_grads(&g, &out[2..], &e["grads"])?;
    check_steps(&sess, &feed, &train, &loss, &e["losses"])?;
    check_final(&sess, &g, &e["final"], "conv")
}

/// make_layers.py's `bn_training_case`: a batch-norm layer with a training placeholder,
/// trained by GradientDescent with its update ops as control dependencies.
fn batch_norm_training(case: &str, fused: Option<bool>, momentum: f64, epsilon: f64) -> Result<()> {
    let e = expected(case);
    let g = Graph::new();
    let x = f32_input(&g, &e["probe"], true);
    let tr = placeholder(&g, DType::Bool, Shape::scalar())?;
    let mut layer = BatchNormalization::new()
        .momentum(momentum)
        .epsilon(epsilon)
        .gamma_initializer(init(&e["gamma"]))
        .beta_initializer(init(&e["beta"]));
    if let Some(f) = fused {
        layer = layer.fused(f);
    }
    let y = layer.apply(&x, &tr)?;
    let loss = Reduce::sum().build(mul(&y, weir_ops::array::constant(&g, tensor(&e["w"]))?)?)?;
    check_vars(&g, &e["vars"]);
    let vars = variable_values(&g)?;
    let gs = grads(&loss, &[vars[0].clone(), vars[1].clone(), x.clone()])?;
    let updates = update_ops(&g);
    let names: Vec<String> = updates.iter().map(Operation::name).collect();
    assert_eq!(Value::from(names), e["update_ops"], "{case}: update ops");
    let train = {
        let _deps = g.control_dependencies(&updates)?;
        GradientDescentOptimizer::new(0.1).minimize(&loss, None, None)?
    };
    let sess = initialized(&g)?;
    let batches = e["batches"].as_array().unwrap();
    let feed = |b: &Value, training: bool| {
        RunArgs::new()
            .feed(&x, tensor(b))
            .feed(&tr, Tensor::from(training))
    };
    let first = feed(&batches[0], true).fetch(&y).fetch(&loss);
    let out = sess.run(&fetch_all(first, &gs))?;
    close_scalar(out[1].to_scalar()?, &e["loss"], &format!("{case}: loss"));
    for (i, key) in [
        (0, "y_train"),
        (2, "grad_gamma"),
        (3, "grad_beta"),
        (4, "grad_x"),
    ] {
        close(&out[i], &e[key], &format!("{case}: {key}"));
    }
    for (b, want) in batches.iter().zip(e["losses"].as_array().unwrap()) {
        let lv = sess.run(&feed(b, true).fetch(&loss).target(&train))?[0].to_scalar()?;
        close_scalar(lv, want, &format!("{case}: training loss"));
    }
    check_final(&sess, &g, &e["final"], case)?;
    let inference = &sess.run(&feed(&e["probe"], false).fetch(&y))?[0];
    close(inference, &e["y_inference"], &format!("{case}: inference"));
    if case == "bn_fused_tensor" {
        // TensorFlow's checkpoint of its trained model restores into weir's.
        let fresh = Session::new(&g)?;
        let prefix = data_dir().join("ckpt/model.ckpt");
        Saver::new(&g)?.restore(&fresh, prefix.to_str().unwrap())?;
        check_final(&fresh, &g, &e["final"], "restored")?;
        let restored = fresh.run(&feed(&e["probe"], false).fetch(&y))?;
        close(&restored[0], &e["y_inference"], "restored: y in inference");
    }
    Ok(())
}

#[test]
fn batch_norm_fused_with_a_training_tensor() -> Result<()> {
    batch_norm_training("bn_fused_tensor", None, 0.9, 1e-3)
}

#[test]
fn batch_norm_composed_with_a_training_tensor() -> Result<()> {
    batch_norm_training("bn_plain_tensor", None, 0.99, 0.01)
}

#[test]
fn batch_norm_not_fused_on_request() -> Result<()> {
    batch_norm_training("bn_fused_false", Some(false), 0.9, 1e-3)
}

/// make_layers.py's `case_bn_bool`: training and inference layers sharing variables.
fn batch_norm_bool(case: &str, axis: i64, center: bool) -> Result<()> {
    let e = expected(case);
    let g = Graph::new();
    let x = f32_input(&g, &e["probe"], false);
    let layer = |training: bool, reuse: bool| {
        BatchNormalization::new()
            .axis(axis)
            .center(center)
            .name("bn")
            .reuse(reuse)
            .apply(&x, training)
    };
    let y_train = layer(true, false)?;
    let y_inf = layer(false, true)?;
    check_vars(&g, &e["vars"]);
    let updates = update_ops(&g);
    let names: Vec<String> = updates.iter().map(Operation::name).collect();
    assert_eq!(Value::from(names), e["update_ops"], "{case}: update ops");
    let sess = initialized(&g)?;
    let batches = e["batches"].as_array().unwrap();
    for (b, want) in batches.iter().zip(e["y_train"].as_array().unwrap()) {
        let mut args = RunArgs::new().feed(&x, tensor(b)).fetch(&y_train);
        for u in &updates {
            args = args.target(u);
        }
        close(&sess.run(&args)?[0], want, &format!("{case}: training"));
    }
    check_final(&sess, &g, &e["final"], case)?;
    let out = &sess.run(&RunArgs::new().feed(&x, tensor(&e["probe"])).fetch(&y_inf))?[0];
    close(out, &e["y_inference"], &format!("{case}: inference"));
    Ok(())
}

#[test]
fn batch_norm_with_python_bools_shares_variables() -> Result<()> {
    batch_norm_bool("bn_bool_fused", -1, true)?;
    batch_norm_bool("bn_bool_axis1", 1, false)
}

#[test]
fn dropout_is_identity_in_inference_and_tensorflows_in_training() -> Result<()> {
    let e = expected("dropout");
    let g = Graph::new();
    g.set_random_seed(7);
    let x = f32_input(&g, &e["x"], false);
    let tr = placeholder(&g, DType::Bool, Shape::scalar())?;
    let off = layers::dropout(&x, 0.5, false)?;
    let fed = layers::dropout(&x, 0.5, &tr)?;
    let zero = layers::dropout(&x, 0.0, true)?;
    let seeded = Dropout::new(0.4).seed(3).apply(&x, true)?;
    let noise = Dropout::new(0.5)
        .noise_shape(&[None, Some(1)])
        .seed(4)
        .apply(&x, true)?;
    let names: Vec<String> = [&off, &fed, &zero].iter().map(|o| o.name()).collect();
    assert_eq!(names, strs(&e["names"])[..3]);
    let sess = Session::new(&g)?;
    let args = RunArgs::new()
        .feed(&x, tensor(&e["x"]))
        .feed(&tr, Tensor::from(false));
    let out = sess.run(
        &args
            .fetch(&off)
            .fetch(&fed)
            .fetch(&zero)
            .fetch(&seeded)
            .fetch(&noise),
    )?;
    for (i, key) in ["off", "fed_false", "rate0", "seeded", "noise_shape"]
        .iter()
        .enumerate()
    {
        close(&out[i], &e[*key], key);
    }
    Ok(())
}

#[test]
fn layer_and_variable_names_are_tensorflows() -> Result<()> {
    let e = expected("names");
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(3)]))?;
    let img = placeholder(
        &g,
        DType::F32,
        Shape::new(vec![None, Some(4), Some(4), Some(1)]),
    )?;
    let mut outs = vec![
        layers::dense(&x, 2)?,
        layers::dense(&x, 2)?,
        Dense::new(2).name("fc").apply(&x)?,
        Dense::new(2).name("fc").reuse(true).apply(&x)?,
    ];
    for reuse in [false, true] {
        let _s = VariableScope::new("model").reuse(reuse).enter(&g)?;
        outs.push(layers::dense(&x, 2)?);
        outs.push(layers::dense(&x, 2)?);
    }
    {
        let _ns = g.name_scope("ns");
        outs.push(layers::dense(&x, 2)?);
    }
    let layer = Dense::new(2);
    outs.push(layer.apply(&x)?);
    outs.push(layer.apply(&x)?);
    outs.push(layers::conv2d(&img, 2, 3)?);
    outs.push(layers::batch_normalization(&img, true)?);
    outs.push(Dense::new(2).trainable(false).apply(&x)?);
    outs.push(Dense::new(2).use_bias(false).apply(&x)?);
    {
        let _s = VariableScope::new("outer").auto_reuse().enter(&g)?;
        outs.push(Dense::new(2).name("shared").apply(&x)?);
        outs.push(Dense::new(2).name("shared").apply(&x)?);
    }
    {
        let _s = VariableScope::new("blk").enter(&g)?;
        {
            let _ns = g.name_scope("inner");
            outs.push(layers::dense(&x, 2)?);
        }
        outs.push(layers::dense(&x, 2)?);
    }
    outs.push(MaxPooling2D::new(2, 2).apply(&img)?);
    outs.push(layers::flatten(&img)?);
    check_vars(&g, &e["vars"]);
    let names: Vec<String> = update_ops(&g).iter().map(Operation::name).collect();
    assert_eq!(Value::from(names), e["update_ops"]);
    let want = e["outputs"].as_array().unwrap();
    assert_eq!(outs.len() + 1, want.len());
    for (i, out) in outs.iter().enumerate() {
        assert_eq!(out.name(), want[i].as_str().unwrap(), "output {i}");
    }
    // TensorFlow's dropout is a SelectV2 in the scope `dropout/dropout`; weir's is one fused
    // `Dropout` op named `dropout/dropout`.
    let dropped = layers::dropout(&x, 0.5, true)?;
    assert_eq!(dropped.name(), "dropout/dropout:0");
    assert_eq!(want[outs.len()], "dropout/dropout/SelectV2:0");
    Ok(())
}

/// Builds `build` on a float32 placeholder of `dims` in a fresh graph: TensorFlow's error.
fn check_error(name: &str, dims: &[Option<usize>], build: impl FnOnce(Output) -> Result<Output>) {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::new(dims.to_vec())).unwrap();
    let err = build(x).expect_err(name);
    let want = expected("errors")[name].as_str().unwrap();
    let want = want.strip_suffix(" Originally defined at:").unwrap_or(want);
    assert_eq!(err.code(), weir_graph::Code::InvalidArgument, "{name}");
    assert_eq!(err.message(), want, "{name}");
}

#[test]
fn errors_are_tensorflows() {
    assert_eq!(expected("errors").as_object().unwrap().len(), 13);
    let img = [Some(1), Some(3), Some(3), Some(1)];
    let rank3 = [Some(2), Some(3), Some(3)];
    check_error("dense_rank1", &[Some(3)], |x| layers::dense(x, 2));
    check_error("dense_unknown_depth", &[None, None], |x| {
        layers::dense(x, 2)
    });
    check_error("conv_rank3", &rank3, |x| layers::conv2d(x, 2, 3));
    check_error("pool_rank3", &rank3, |x| layers::max_pooling2d(x, 2, 2));
    check_error("conv_filters0", &img, |x| layers::conv2d(x, 0, 3));
    check_error("conv_kernel0", &img, |x| layers::conv2d(x, 2, (0, 3)));
    check_error("conv_padding", &img, |x| {
        Conv2D::new(2, 3).padding("full").apply(x)
    });
    check_error("conv_strides_dilation", &img, |x| {
        Conv2D::new(2, 3).strides(2).dilation_rate(2).apply(x)
    });
    let channels = [Some(1), Some(3), Some(3), None];
    check_error("conv_channels", &channels, |x| layers::conv2d(x, 2, 3));
    check_error("dropout_rate", &[Some(2)], |x| {
        layers::dropout(x, 1.5, false)
    });
    check_error("bn_axis", &[Some(2), Some(3)], |x| {
        BatchNormalization::new().axis(5).apply(x, false)
    });
    check_error("reuse_exists", &[Some(1), Some(2)], |x| {
        Dense::new(2).name("same").apply(&x)?;
        Dense::new(2).name("same").apply(&x)
    });
    check_error("reuse_missing", &[Some(1), Some(2)], |x| {
        Dense::new(2).name("nope").reuse(true).apply(x)
    });
}
