//! `get_variable` and `variable_scope`: naming, reuse and its errors, collections, and the
//! initializers (seeded ones reproduce TensorFlow's numbers).

// Reference values are quoted with the digits TensorFlow printed.
#![allow(clippy::excessive_precision)]

use weir_graph::{graph_keys, DType, Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::state::{global_variables, global_variables_initializer, trainable_variables};
use weir_session::Session;
use weir_train::{
    get_variable, variable_scope, variable_scope_name, FanMode, GetVariable, Initializer,
    ScalingDistribution, VariableScope,
};

#[test]
fn scopes_name_variables_and_ops() -> Result<()> {
    let g = Graph::new();
    {
        let _a = variable_scope(&g, "layer1")?;
        let w = get_variable(&g, "w", &[3, 2])?;
        assert_eq!(w.name(), "layer1/w");
        assert_eq!(w.value().name(), "layer1/w/read:0");
        assert_eq!(variable_scope_name(&g), "layer1");
        {
            let _b = variable_scope(&g, "inner")?;
            assert_eq!(get_variable(&g, "b", &[2])?.name(), "layer1/inner/b");
        }
        // Ops built in the scope take its name scope.
        assert_eq!(constant(&g, 1.0f32)?.name(), "layer1/Const:0");
        // The initializer ops sit under the variable's name.
        assert!(g
            .operation_by_name("layer1/w/Initializer/random_uniform")
            .is_some());
    }
    assert_eq!(variable_scope_name(&g), "");
    // Re-entering a variable scope reuses its variable names but a fresh name scope.
    let _again = VariableScope::new("layer1").reuse(true).enter(&g)?;
    assert_eq!(constant(&g, 1.0f32)?.name(), "layer1_1/Const:0");
    let names: Vec<String> = trainable_variables(&g)?.iter().map(|v| v.name()).collect();
    assert_eq!(names, vec!["layer1/w", "layer1/inner/b"]);
    Ok(())
}

#[test]
fn reuse_rules_and_tensorflow_messages() -> Result<()> {
    let g = Graph::new();
    let w = {
        let _s = variable_scope(&g, "foo")?;
        get_variable(&g, "w", &[2])?
    };
    {
        let _s = variable_scope(&g, "foo")?;
        let e = get_variable(&g, "w", &[2]).unwrap_err();
        assert!(e.is_invalid_argument());
        assert_eq!(
            e.message(),
            "Variable foo/w already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
        );
    }
    {
        let _s = VariableScope::new("foo").reuse(true).enter(&g)?;
        let same = get_variable(&g, "w", &[2])?;
        assert_eq!(same.handle(), w.handle());
        let e = get_variable(&g, "v", &[2]).unwrap_err();
        assert_eq!(
            e.message(),
            "Variable foo/v does not exist, or was not created with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
        );
        let e = get_variable(&g, "w", &[3]).unwrap_err();
        assert_eq!(
            e.message(),
            "Trying to share variable foo/w, but specified shape (3,) and found shape (2,)."
        );
        let e = GetVariable::new("w")
            .dtype(DType::F64)
            .build(&g)
            .unwrap_err();
        assert_eq!(
            e.message(),
            "Trying to share variable foo/w, but specified dtype float64 and found dtype float32."
        );
        // reuse=False inside a reusing scope still reuses, as in TensorFlow.
        let _inner = VariableScope::new("bar").reuse(false).enter(&g)?;
        assert!(get_variable(&g, "z", &[1]).is_err());
    }
    {
        let _s = VariableScope::new("foo").auto_reuse().enter(&g)?;
        assert_eq!(get_variable(&g, "w", &[2])?.handle(), w.handle());
        assert_eq!(get_variable(&g, "fresh", &[1])?.name(), "foo/fresh");
    }
    let e = GetVariable::new("noshape").build(&g).unwrap_err();
    assert!(
        e.message()
            .starts_with("Shape of a new variable (noshape) must be fully defined"),
        "{e}"
    );
    Ok(())
}

#[test]
fn options_collections_and_trainable() -> Result<()> {
    let g = Graph::new();
    let a = GetVariable::new("counter")
        .shape(&[])
        .dtype(DType::I64)
        .trainable(false)
        .collections(&[graph_keys::LOCAL_VARIABLES])
        .build(&g)?;
    let b = GetVariable::new("bias")
        .shape(&[3])
        .initializer(Initializer::constant(0.5f32))
        .build(&g)?;
    let names = |v: Vec<weir_ops::state::Variable>| v.iter().map(|v| v.name()).collect::<Vec<_>>();
    assert_eq!(names(global_variables(&g)?), vec!["bias"]);
    assert_eq!(names(trainable_variables(&g)?), vec!["bias"]);
    assert_eq!(
        names(weir_ops::state::local_variables(&g)?),
        vec!["counter"]
    );
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    sess.run_target(&weir_ops::state::local_variables_initializer(&g)?)?;
    assert_eq!(sess.eval(&a)?.to_scalar::<i64>()?, 0);
    assert_eq!(sess.eval(&b)?.to_vec::<f32>()?, vec![0.5; 3]);
    Ok(())
}

#[test]
fn constant_zeros_ones_initializers() -> Result<()> {
    let g = Graph::new();
    let z = GetVariable::new("z")
        .shape(&[2])
        .initializer(Initializer::Zeros)
        .build(&g)?;
    let o = GetVariable::new("o")
        .shape(&[2])
        .dtype(DType::F64)
        .initializer(Initializer::Ones)
        .build(&g)?;
    let c = GetVariable::new("c")
        .shape(&[2, 2])
        .dtype(DType::I32)
        .initializer(Initializer::constant(vec![1.0f64, 2.0, 3.0, 4.0]))
        .build(&g)?;
    let bad = GetVariable::new("bad")
        .shape(&[3])
        .initializer(Initializer::constant(vec![1.0f32, 2.0]))
        .build(&g);
    assert!(bad.is_err());
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    assert_eq!(sess.eval(&z)?.to_vec::<f32>()?, vec![0.0, 0.0]);
    assert_eq!(sess.eval(&o)?.to_vec::<f64>()?, vec![1.0, 1.0]);
    assert_eq!(
        sess.eval(&c)?,
        Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4])?
    );
    Ok(())
}

fn close(got: &[f32], want: &[f32]) {
    for (a, b) in got.iter().zip(want) {
        assert!(
            (a - b).abs() <= 2e-7 * b.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn seeded_random_initializers_reproduce_tensorflow() -> Result<()> {
    // tf.compat.v1.set_random_seed(7); tf.random.uniform([3], -2.0, 3.0, seed=3) draws these
    // (printed by TensorFlow 2.21): random_uniform_initializer(-2, 3, seed=3) is that op.
    let g = Graph::new();
    g.set_random_seed(7);
    let u = GetVariable::new("u")
        .shape(&[3])
        .initializer(Initializer::random_uniform(-2.0, 3.0).seed(3))
        .build(&g)?;
    // tf.random.normal([3], 1.0, 2.0, seed=3) and truncated_normal likewise (no graph seed).
    let g2 = Graph::new();
    let n = GetVariable::new("n")
        .shape(&[3])
        .initializer(Initializer::random_normal(1.0, 2.0).seed(3))
        .build(&g2)?;
    let t = GetVariable::new("t")
        .shape(&[3])
        .initializer(Initializer::truncated_normal(1.0, 2.0).seed(3))
        .build(&g2)?;
    let s = Session::new(&g)?;
    s.run_target(&global_variables_initializer(&g)?)?;
    close(
        &s.eval(&u)?.to_vec::<f32>()?,
        &[
            0.005439281463623047,
            -0.11580538749694824,
            -0.4535360336303711,
        ],
    );
    let s2 = Session::new(&g2)?;
    s2.run_target(&global_variables_initializer(&g2)?)?;
    let want = [3.123324155807495f32, -0.7571566104888916, 1.22374427318573];
    close(&s2.eval(&n)?.to_vec::<f32>()?, &want);
    close(&s2.eval(&t)?.to_vec::<f32>()?, &want);
    // A second session replays the same draws; unseeded initializers differ between sessions.
    let s3 = Session::new(&g2)?;
    s3.run_target(&global_variables_initializer(&g2)?)?;
    assert_eq!(s3.eval(&n)?, s2.eval(&n)?);
    Ok(())
}

#[test]
fn variance_scaling_bounds_and_spread() -> Result<()> {
    let g = Graph::new();
    let w = get_variable(&g, "glorot", &[200, 100])?; // default: glorot_uniform
    let tn = GetVariable::new("he")
        .shape(&[5, 5, 16, 32])
        .initializer(
            Initializer::variance_scaling(
                2.0,
                FanMode::FanIn,
                ScalingDistribution::TruncatedNormal,
            )
            .seed(1),
        )
        .build(&g)?;
    let gn = GetVariable::new("gn")
        .shape(&[300, 300])
        .initializer(Initializer::glorot_normal())
        .build(&g)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let limit = (6.0f64 / 300.0).sqrt() as f32;
    let v = sess.eval(&w)?.to_vec::<f32>()?;
    assert!(v.iter().all(|x| x.abs() <= limit));
    let var = |v: &[f32]| v.iter().map(|&x| (x as f64).powi(2)).sum::<f64>() / v.len() as f64;
    // Uniform on [-l, l] has variance l^2 / 3 = 1 / fan_avg.
    assert!((var(&v) - 1.0 / 150.0).abs() < 0.1 / 150.0, "{}", var(&v));
    // Truncated normal, corrected: variance scale / fan_in = 2 / 400; bounded by 2 stddevs.
    let t = sess.eval(&tn)?.to_vec::<f32>()?;
    let stddev = (2.0f64 / 400.0).sqrt() / 0.879_625_661_034_239_8;
    assert!(t.iter().all(|x| (x.abs() as f64) < 2.0 * stddev + 1e-6));
    assert!(
        (var(&t) - 2.0 / 400.0).abs() < 0.1 * 2.0 / 400.0,
        "{}",
        var(&t)
    );
    let n = sess.eval(&gn)?.to_vec::<f32>()?;
    assert!((var(&n) - 1.0 / 300.0).abs() < 0.1 / 300.0, "{}", var(&n));
    Ok(())
}
