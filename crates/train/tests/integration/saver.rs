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
    // A checkpoint is TensorFlow's two files and its meta graph; all of the oldest are deleted.
    let files = |p: &str| {
        [
            format!("{p}.index"),
            format!("{p}.data-00000-of-00001"),
            format!("{p}.meta"),
        ]
    };
    for f in files(&paths[0]) {
        assert!(!std::path::Path::new(&f).exists(), "oldest deleted: {f}");
    }
    for p in &paths[1..] {
        for f in files(p) {
            assert!(std::path::Path::new(&f).exists(), "{f}");
        }
        assert!(
            !std::path::Path::new(p).exists(),
            "nothing at the prefix itself"
        );
    }
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
    // No leftover temporary files: exactly the kept checkpoints and the state file.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "checkpoint",
            "m-20.data-00000-of-00001",
            "m-20.index",
            "m-20.meta",
            "m-30.data-00000-of-00001",
            "m-30.index",
            "m-30.meta"
        ]
    );
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
    let index = std::fs::read(format!("{path}.index")).unwrap();
    let data = std::fs::read(format!("{path}.data-00000-of-00001")).unwrap();
    // A copy of the checkpoint as `name`, with its index and data replaced.
    let copy = |name: &str, index: &[u8], data: &[u8]| {
        let p = dir.join(name).to_string_lossy().into_owned();
        std::fs::write(format!("{p}.index"), index).unwrap();
        std::fs::write(format!("{p}.data-00000-of-00001"), data).unwrap();
        p
    };
    let whole = copy("whole", &index, &data);
    saver.restore(&sess, &whole)?;

    // Truncated index or data file: DataLoss naming the file.
    let cut = copy("cut_index", &index[..index.len() - 5], &data);
    let e = saver.restore(&sess, &cut).unwrap_err();
    assert!(e.is_data_loss(), "{e}");
    assert!(e.message().contains(&format!("{cut}.index")), "{e}");
    let cut = copy("cut_data", &index, &data[..data.len() - 5]);
    let e = saver.restore(&sess, &cut).unwrap_err();
    assert!(e.is_data_loss(), "{e}");
    assert!(
        e.message().contains(&format!("{cut}.data-00000-of-00001")),
        "{e}"
    );
    // A flipped data byte: DataLoss naming the data file and the tensor's bytes.
    let mut b = data.clone();
    let n = b.len();
    b[n - 10] ^= 1;
    let flipped = copy("flipped", &index, &b);
    let e = saver.restore(&sess, &flipped).unwrap_err();
    assert!(e.is_data_loss(), "{e}");
    assert!(e.message().contains("Checksum does not match"), "{e}");
    assert!(
        e.message()
            .contains(&format!("{flipped}.data-00000-of-00001")),
        "{e}"
    );
    // A missing data file: NotFound naming it.
    std::fs::remove_file(format!("{whole}.data-00000-of-00001")).unwrap();
    let e = saver.restore(&sess, &whole).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert!(
        e.message()
            .contains(&format!("{whole}.data-00000-of-00001")),
        "{e}"
    );
    // Not a checkpoint at all (a file at the prefix without an index): DataLoss.
    let junk = dir.join("junk");
    std::fs::write(&junk, b"hello, world; not a checkpoint").unwrap();
    assert!(saver
        .restore(&sess, junk.to_str().unwrap())
        .unwrap_err()
        .is_data_loss());
    // No checkpoint there: TensorFlow's ValueError, InvalidArgument here.
    let nope = dir.join("nope").to_string_lossy().into_owned();
    let e = saver.restore(&sess, &nope).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert_eq!(
        e.message(),
        format!("The passed save_path is not a valid checkpoint: {nope}")
    );
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

/// A checkpoint file as weir wrote it before it wrote TensorFlow's format ("WEIRCKPT" v1, one
/// file at the prefix): header, then per tensor its name, dtype, shape and payload, each with a
/// CRC32C. Only float32 tensors here.
fn old_weir_checkpoint(entries: &[(&str, &[usize], &[f32])]) -> Vec<u8> {
    let mut out = b"WEIRCKPT".to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    for (name, shape, values) in entries {
        let start = out.len();
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&1u32.to_le_bytes()); // DT_FLOAT
        out.extend_from_slice(&(shape.len() as u32).to_le_bytes());
        for &d in *shape {
            out.extend_from_slice(&(d as u64).to_le_bytes());
        }
        out.extend_from_slice(&(values.len() as u64 * 4).to_le_bytes());
        for v in *values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let crc = crc32c(&out[start..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }
    out
}

/// CRC32C (Castagnoli), bit by bit: enough for the small test file above.
fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82f6_3b78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn checkpoints_of_earlier_weir_versions_still_restore() -> Result<()> {
    let dir = temp_dir("old-format");
    let w = [1.0f32, 2.0, 3.0, 4.0];
    std::fs::write(
        dir.join("model.ckpt-3"),
        old_weir_checkpoint(&[("v", &[], &[0.5]), ("w", &[2, 2], &w)]),
    )
    .unwrap();
    std::fs::write(
        dir.join("checkpoint"),
        "model_checkpoint_path: \"model.ckpt-3\"\nall_model_checkpoint_paths: \"model.ckpt-3\"\n",
    )
    .unwrap();
    let latest = latest_checkpoint(&dir)?.expect("the old checkpoint");
    let g = Graph::new();
    let wv = Variable::builder(constant(&g, Tensor::from_vec(&[2, 2], vec![0.0f32; 4])?)?)
        .name("w")
        .build()?;
    let vv = Variable::builder(constant(&g, 0.0f32)?).name("v").build()?;
    let saver = Saver::new(&g)?;
    let sess = Session::new(&g)?;
    saver.restore(&sess, &latest)?;
    assert_eq!(sess.eval(&wv)?.to_vec::<f32>()?, w);
    assert_eq!(sess.eval(&vv)?.to_scalar::<f32>()?, 0.5);
    // Saving again writes TensorFlow's format beside it, which then takes precedence.
    sess.run_target(&vv.assign(constant(&g, 9.0f32)?)?.op())?;
    saver.save(&sess, dir.join("model.ckpt").to_str().unwrap(), Some(3))?;
    assert!(dir.join("model.ckpt-3.index").exists());
    saver.restore(&sess, &latest)?;
    assert_eq!(sess.eval(&vv)?.to_scalar::<f32>()?, 9.0);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn a_sharded_saver_writes_the_same_checkpoint_through_a_merged_shard() -> Result<()> {
    let dir = temp_dir("sharded");
    let g = Graph::new();
    let m = build_model(&g)?;
    let sharded = Saver::sharded(&g)?;
    let plain = Saver::new(&g)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    sess.run_target(&m.train)?;
    let def = sharded.as_saver_def();
    assert!(def.sharded);
    assert_eq!(def.save_tensor_name, "save/Identity:0");
    assert_eq!(def.restore_op_name, "save/restore_all");
    let a = sharded.save(&sess, dir.join("sharded").to_str().unwrap(), Some(1))?;
    let b = plain.save(&sess, dir.join("plain").to_str().unwrap(), Some(1))?;
    // The shard went to sharded-1_temp/part-00000-of-00001 and was merged: nothing is left of it.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("sharded"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "sharded-1.data-00000-of-00001",
            "sharded-1.index",
            "sharded-1.meta"
        ]
    );
    for ext in [".index", ".data-00000-of-00001"] {
        assert!(
            std::fs::read(format!("{a}{ext}")).unwrap()
                == std::fs::read(format!("{b}{ext}")).unwrap(),
            "{ext} differs from the unsharded save's"
        );
    }
    // It restores through its restore_shard / restore_all ops.
    let sess2 = Session::new(&g)?;
    sharded.restore(&sess2, &a)?;
    assert_eq!(sess2.eval(&m.step)?.to_scalar::<i64>()?, 1);
    assert_eq!(sess2.eval(&m.b)?.to_vec::<f64>()?, vec![0.0]);
    assert_eq!(sess2.eval(&m.w)?.to_vec::<f32>()?, vec![0.5, 1.5, 2.5, 3.5]);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
