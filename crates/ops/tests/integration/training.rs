//! The training kernels on their own: outputs, dtypes, in-place updates, TensorFlow's errors,
//! and the SaveV2/RestoreV2 ops.

use weir_graph::{DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::state::{global_variables_initializer, Variable};
use weir_ops::training::{self, AdamScalars};
use weir_session::{RunArgs, Session};

#[test]
fn apply_ops_output_the_new_value_in_f64() -> Result<()> {
    let g = Graph::new();
    let w = Variable::builder(constant(&g, [1.0f64, 2.0])?)
        .name("w")
        .build()?;
    let acc = Variable::builder(constant(&g, [0.0f64, 0.0])?)
        .name("acc")
        .build()?;
    let grad = constant(&g, [0.5f64, -1.0])?;
    let sgd = training::apply_gradient_descent(&w, constant(&g, 0.1f64)?, &grad)?;
    assert_eq!(sgd.shape(), Shape::known(&[2]));
    let mom = training::apply_momentum(
        &w,
        &acc,
        constant(&g, 0.1f64)?,
        &grad,
        constant(&g, 0.9f64)?,
        true,
    )?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    assert_eq!(
        sess.eval(&sgd)?.to_vec::<f64>()?,
        vec![1.0 - 0.05, 2.0 + 0.1]
    );
    assert_eq!(sess.eval(&w)?.to_vec::<f64>()?, vec![0.95, 2.1]);
    // Nesterov: accum = g; var -= g * lr + accum * momentum * lr.
    let out = sess.eval(&mom)?.to_vec::<f64>()?;
    assert!((out[0] - (0.95 - (0.5 * 0.1 + 0.5 * 0.9 * 0.1))).abs() < 1e-15);
    assert_eq!(sess.eval(&acc)?.to_vec::<f64>()?, vec![0.5, -1.0]);
    Ok(())
}

#[test]
fn adam_and_centered_rmsprop_kernels() -> Result<()> {
    let g = Graph::new();
    let var = |name: &str, v: f32| {
        Variable::builder(constant(&g, [v]).unwrap())
            .name(name)
            .build()
    };
    let (w, m, v) = (var("w", 1.0)?, var("m", 0.0)?, var("v", 0.0)?);
    let c = |x: f32| constant(&g, x).unwrap();
    let s = AdamScalars {
        beta1_power: c(0.9),
        beta2_power: c(0.999),
        lr: c(0.01),
        beta1: c(0.9),
        beta2: c(0.999),
        epsilon: c(1e-8),
    };
    let adam = training::apply_adam(&w, &m, &v, s, constant(&g, [2.0f32])?, false)?;
    let (x, mg, ms, mo) = (
        var("x", 1.0)?,
        var("mg", 0.0)?,
        var("ms", 1.0)?,
        var("mo", 0.0)?,
    );
    let crms = training::apply_centered_rms_prop(
        &x,
        &mg,
        &ms,
        &mo,
        c(0.01),
        c(0.9),
        c(0.5),
        c(1e-10),
        constant(&g, [2.0f32])?,
    )?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let got = sess.eval(&adam)?.to_scalar::<f32>()?;
    let alpha = 0.01f32 * (1.0f32 - 0.999).sqrt() / (1.0 - 0.9);
    let (m1, v1) = (0.2f32, 0.004f32);
    let want = 1.0 - m1 * alpha / (v1.sqrt() + 1e-8);
    assert!((got - want).abs() < 1e-6, "{got} {want}");
    let got = sess.eval(&crms)?.to_scalar::<f32>()?;
    let (ms1, mg1) = (1.0f32 + (4.0 - 1.0) * 0.1, 0.2f32);
    let want = 1.0 - 2.0 * 0.01 / (ms1 - mg1 * mg1 + 1e-10).sqrt();
    assert!((got - want).abs() < 1e-6, "{got} {want}");
    Ok(())
}

#[test]
fn tensorflow_errors() -> Result<()> {
    let g = Graph::new();
    let w = Variable::builder(constant(&g, [1.0f32, 2.0])?)
        .name("w")
        .build()?;
    let acc = Variable::builder(constant(&g, [0.1f32, 0.1])?)
        .name("acc")
        .build()?;
    let grad = placeholder(&g, DType::F32, Shape::unknown())?;
    let lr = placeholder(&g, DType::F32, Shape::unknown())?;
    let step = training::apply_gradient_descent(&w, &lr, &grad)?;
    let ada = training::apply_adagrad(&w, &acc, &lr, &grad)?;
    let twice = training::apply_adagrad(&w, &w, &lr, &grad)?;
    let sess = Session::new(&g)?;
    let run = |op: &weir_graph::Output, lrv: Tensor, gv: Tensor| {
        sess.run(&RunArgs::new().feed(&lr, lrv).feed(&grad, gv).fetch(op))
    };
    let e = run(&step, Tensor::from(0.1f32), Tensor::from(vec![1.0f32, 1.0])).unwrap_err();
    assert!(e.is_failed_precondition());
    assert_eq!(e.message(), "Attempting to use uninitialized value w");
    sess.run_target(&global_variables_initializer(&g)?)?;
    let e = run(&step, Tensor::from(0.1f32), Tensor::from(vec![1.0f32; 3])).unwrap_err();
    assert_eq!(
        e.message(),
        "var and delta do not have the same shape[2] [3]"
    );
    let e = run(&ada, Tensor::from(0.1f32), Tensor::from(vec![1.0f32; 3])).unwrap_err();
    assert_eq!(
        e.message(),
        "var and grad do not have the same shape[2] [3]"
    );
    let e = run(
        &step,
        Tensor::from(vec![0.1f32, 0.2]),
        Tensor::from(vec![1.0f32; 2]),
    )
    .unwrap_err();
    assert_eq!(e.message(), "alpha is not a scalar: [2]");
    let e = run(&twice, Tensor::from(0.1f32), Tensor::from(vec![1.0f32; 2])).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    // A failed update leaves the variable as it was.
    assert_eq!(sess.eval(&w)?.to_vec::<f32>()?, vec![1.0, 2.0]);
    // Concurrent steps from many threads all land (each update holds the variable's lock).
    let one = constant(&g, [1.0f32, 1.0])?;
    let inc = training::apply_gradient_descent(&w, constant(&g, -1.0f32)?, &one)?;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..100 {
                    sess.run(&RunArgs::new().fetch(&inc)).unwrap();
                }
            });
        }
    });
    assert_eq!(sess.eval(&w)?.to_vec::<f32>()?, vec![401.0, 402.0]);
    Ok(())
}

#[test]
fn save_and_restore_ops_round_trip_strings_and_numbers() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("weir-ops-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("raw").to_string_lossy().into_owned();
    let g = Graph::new();
    let prefix = constant(&g, path.as_str())?;
    let names = constant(&g, Tensor::from(vec!["s", "n"]))?;
    let slices = constant(&g, Tensor::from(vec!["", ""]))?;
    let s = constant(&g, Tensor::from(vec!["hello", "", "wörld"]))?;
    let n = constant(&g, Tensor::from_vec(&[2, 1], vec![-3i64, 1 << 40])?)?;
    let save = training::save_v2(&prefix, &names, &slices, &[s, n], "save")?;
    let back = training::restore_v2(
        &prefix,
        &names,
        &slices,
        &[DType::String, DType::I64],
        "restore",
    )?;
    let sess = Session::new(&g)?;
    sess.run_target(&save)?;
    let out = sess.run(&RunArgs::new().fetch(&back[0]).fetch(&back[1]))?;
    assert_eq!(out[0].to_strings()?, vec!["hello", "", "wörld"]);
    assert_eq!(out[1], Tensor::from_vec(&[2, 1], vec![-3i64, 1 << 40])?);
    let listed = training::list_checkpoint(&path)?;
    assert_eq!(
        listed.iter().map(|e| e.0.as_str()).collect::<Vec<_>>(),
        vec!["n", "s"]
    );
    // Slices are not supported, and say so.
    let sliced = constant(&g, Tensor::from(vec!["2 0,1", ""]))?;
    let bad = training::save_v2(
        &prefix,
        &names,
        &sliced,
        &[constant(&g, 1.0f32)?, constant(&g, 2.0f32)?],
        "bad",
    )?;
    assert!(sess.run_target(&bad).unwrap_err().is_unimplemented());
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
