//! Checkpoints: the train/eval pattern across graphs and sessions, max_to_keep and the state
//! file, latest_checkpoint, and the typed errors for damaged or mismatched checkpoints.

use std::path::PathBuf;

use weir_graph::{Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::Session;
use weir_train::{
    get_checkpoint_state, get_or_create_global_step, latest_checkpoint, GradientDescentOptimizer,
    Optimizer, Saver,
};

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-saver-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The model both programs build: two variables, the global step, and a training op.
struct Model {
    w: Variable,
    b: Variable,
    step: Variable,
    train: weir_graph::Operation,
}

fn build_model(g: &Graph) -> Result<Model> {
    let w = Variable::builder(constant(
        g,
        Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?,
    )?)
    .name("w")
    .build()?;
    let b = Variable::builder(constant(g, [0.0f64])?)
        .name("b")
        .build()?;
    let step = get_or_create_global_step(g)?;
    let gw = constant(g, Tensor::from_vec(&[2, 2], vec![1.0f32; 4])?)?;
    let train = GradientDescentOptimizer::new(0.5).apply_gradients(
        &[(Some(gw), w.clone())],
        Some(&step),
        None,
    )?;
    Ok(Model { w, b, step, train })
}

#[test]
fn train_saves_and_a_separate_graph_restores() -> Result<()> {
    let dir = temp_dir("pattern");
    let prefix = dir.join("model.ckpt");
    let saved = {
        let g = Graph::new();
        let m = build_model(&g)?;
        let saver = Saver::new(&g)?;
        let sess = Session::new(&g)?;
        sess.run_target(&global_variables_initializer(&g)?)?;
        for _ in 0..3 {
            sess.run_target(&m.train)?;
        }
        sess.run_target(&m.b.assign(constant(&g, [7.25f64])?)?.op())?;
        let step = sess.eval(&m.step)?.to_scalar::<i64>()?;
        let path = saver.save(&sess, prefix.to_str().unwrap(), Some(step))?;
        assert_eq!(path, format!("{}-3", prefix.display()));
        (sess.eval(&m.w)?, path)
    };

    let g = Graph::new();
    let m = build_model(&g)?;
    let sess = Session::new(&g)?;
    let latest = latest_checkpoint(&dir)?.expect("a checkpoint");
    assert_eq!(latest, saved.1);
    Saver::new(&g)?.restore(&sess, &latest)?;
    assert_eq!(sess.eval(&m.w)?, saved.0);
    assert_eq!(sess.eval(&m.w)?.to_vec::<f32>()?, vec![-0.5, 0.5, 1.5, 2.5]);
    assert_eq!(sess.eval(&m.b)?.to_vec::<f64>()?, vec![7.25]);
    assert_eq!(sess.eval(&m.step)?.to_scalar::<i64>()?, 3);
    // Training continues from the restored values.
    sess.run_target(&m.train)?;
    assert_eq!(sess.eval(&m.step)?.to_scalar::<i64>()?, 4);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn max_to_keep_deletes_the_oldest_and_state_lists_the_kept() -> Result<()> {
    let dir = temp_dir("keep");
    let g = Graph::new();
    let m = build_model(&g)?;
    let saver = Saver::new(&g)?.max_to_keep(2);
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let prefix = dir.join("m");
    let mut paths = Vec::new();
    for step in [10, 20, 30] {
        sess.run_target(&m.train)?;
        paths.push(saver.save(&sess, prefix.to_str().unwrap(), Some(step))?);
    }
    assert!(!std::path::Path::new(&paths[0]).exists(), "oldest deleted");
    assert!(std::path::Path::new(&paths[1]).exists());
    assert!(std::path::Path::new(&paths[2]).exists());
    assert_eq!(saver.last_checkpoints(), paths[1..].to_vec());
    let text = std::fs::read_to_string(dir.join("checkpoint")).unwrap();
    assert_eq!(
        text,
        "model_checkpoint_path: \"m-30\"\nall_model_checkpoint_paths: \"m-20\"\nall_model_checkpoint_paths: \"m-30\"\n"
    );
    let state = get_checkpoint_state(&dir)?.unwrap();
    assert_eq!(state.model_checkpoint_path, paths[2]);
    assert_eq!(state.all_model_checkpoint_paths, paths[1..].to_vec());
    // Saving under the same step again does not duplicate it.
    saver.save(&sess, prefix.to_str().unwrap(), Some(30))?;
    assert_eq!(saver.last_checkpoints(), paths[1..].to_vec());
    // No leftover temporary files.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("tmp")), "{names:?}");
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn latest_checkpoint_is_none_without_state_or_file() -> Result<()> {
    let dir = temp_dir("none");
    assert_eq!(latest_checkpoint(&dir)?, None);
    std::fs::write(
        dir.join("checkpoint"),
        "model_checkpoint_path: \"gone-1\"\n",
    )
    .unwrap();
    assert_eq!(latest_checkpoint(&dir)?, None);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn damaged_missing_and_mismatched_checkpoints_have_typed_errors() -> Result<()> {
    let dir = temp_dir("errors");
    let g = Graph::new();
    let m = build_model(&g)?;
    let saver = Saver::new(&g)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let path = saver.save(&sess, dir.join("c").to_str().unwrap(), None)?;
    let bytes = std::fs::read(&path).unwrap();

    // Truncated: DataLoss naming the file.
    let cut = dir.join("cut");
    std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
    let e = saver.restore(&sess, cut.to_str().unwrap()).unwrap_err();
    assert!(e.is_data_loss(), "{e}");
    assert!(e.message().contains(cut.to_str().unwrap()), "{e}");
    // A flipped payload byte: DataLoss.
    let flipped = dir.join("flipped");
    let mut b = bytes.clone();
    let n = b.len();
    b[n - 10] ^= 1;
    std::fs::write(&flipped, &b).unwrap();
    assert!(saver
        .restore(&sess, flipped.to_str().unwrap())
        .unwrap_err()
        .is_data_loss());
    // Not a checkpoint at all.
    let junk = dir.join("junk");
    std::fs::write(&junk, b"hello, world; not a checkpoint").unwrap();
    assert!(saver
        .restore(&sess, junk.to_str().unwrap())
        .unwrap_err()
        .is_data_loss());
    // Missing file: NotFound.
    let e = saver
        .restore(&sess, dir.join("nope").to_str().unwrap())
        .unwrap_err();
    assert!(e.is_not_found(), "{e}");
    // Parent directory missing: NotFound, nothing written.
    let e = saver
        .save(&sess, dir.join("no/such/dir/m").to_str().unwrap(), None)
        .unwrap_err();
    assert!(e.message().contains("doesn't exist, can't save"), "{e}");

    // A variable missing from the checkpoint: NotFound naming it.
    let g2 = Graph::new();
    build_model(&g2)?;
    Variable::builder(constant(&g2, 1.0f32)?)
        .name("extra")
        .build()?;
    let s2 = Session::new(&g2)?;
    let e = Saver::new(&g2)?.restore(&s2, &path).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert_eq!(e.message(), "Key extra not found in checkpoint");

    // A variable of another shape: InvalidArgument from the assign.
    let g3 = Graph::new();
    Variable::builder(constant(&g3, [1.0f32, 2.0, 3.0])?)
        .name("w")
        .build()?;
    let s3 = Session::new(&g3)?;
    let e = Saver::new(&g3)?.restore(&s3, &path).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert_eq!(
        e.message(),
        "Assign requires shapes of both tensors to match. lhs shape= [3] rhs shape= [2,2]"
    );
    // Another dtype: InvalidArgument.
    let g4 = Graph::new();
    Variable::builder(constant(&g4, [1i32])?)
        .name("b")
        .build()?;
    let s4 = Session::new(&g4)?;
    let e = Saver::new(&g4)?.restore(&s4, &path).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert!(
        e.message()
            .contains("expected dtype int32 does not equal original dtype double"),
        "{e}"
    );
    drop(m);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn saver_for_a_subset_and_duplicate_names() -> Result<()> {
    let dir = temp_dir("subset");
    let g = Graph::new();
    let m = build_model(&g)?;
    let saver = Saver::for_variables(std::slice::from_ref(&m.w))?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let path = saver.save(&sess, dir.join("w-only").to_str().unwrap(), None)?;
    let listed = weir_ops::training::list_checkpoint(&path)?;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].0, "w");
    assert_eq!(listed[0].2, vec![2, 2]);
    let e = Saver::for_variables(&[m.w.clone(), m.w.clone()])
        .err()
        .unwrap();
    assert_eq!(e.message(), "At least two variables have the same name: w");
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
