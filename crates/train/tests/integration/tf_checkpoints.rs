//! Checkpoints written by TensorFlow 2.21 (tests/data/tf_checkpoints, made by
//! make_checkpoints.py there): weir finds them through the `checkpoint` state file, restores
//! every dtype into variables of the same names, and writes the same variables back as the
//! very same bytes. Damaged copies fail with DataLoss, never a panic.

use std::path::{Path, PathBuf};

use serde_json::Value;
use weir_graph::{Bytes, DType, Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::Session;
use weir_train::{get_checkpoint_state, latest_checkpoint, Saver};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tf_checkpoints")
}

fn expected() -> Value {
    let text = std::fs::read_to_string(data_dir().join("expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-tfckpt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn dtype_of(name: &str) -> DType {
    match name {
        "float32" => DType::F32,
        "float64" => DType::F64,
        "int8" => DType::I8,
        "int16" => DType::I16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "bool" => DType::Bool,
        "string" => DType::String,
        other => panic!("dtype {other} in expected.json"),
    }
}

/// The tensor a variable of expected.json holds.
fn expected_tensor(spec: &Value) -> (DType, Tensor) {
    let dtype = dtype_of(spec["dtype"].as_str().unwrap());
    let shape: Vec<usize> = spec["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let n: usize = shape.iter().product();
    let values = &spec["values"];
    let floats: Vec<f64> = match values {
        // value[i] = (i % modulus) * scale + offset, computed in doubles as numpy does.
        Value::Object(p) => {
            let m = p["modulus"].as_u64().unwrap() as usize;
            let (scale, offset) = (p["scale"].as_f64().unwrap(), p["offset"].as_f64().unwrap());
            (0..n).map(|i| (i % m) as f64 * scale + offset).collect()
        }
        Value::Array(v) => v.iter().filter_map(Value::as_f64).collect(),
        _ => panic!("values of {spec}"),
    };
    let list = values.as_array();
    let ints = || -> Vec<i64> { list.unwrap().iter().map(|v| v.as_i64().unwrap()).collect() };
    let t = match dtype {
        DType::F32 => Tensor::from_vec(&shape, floats.iter().map(|&v| v as f32).collect()),
        DType::F64 => Tensor::from_vec(&shape, floats),
        DType::I64 => Tensor::from_vec(&shape, ints()),
        DType::I32 => Tensor::from_vec(&shape, ints().iter().map(|&v| v as i32).collect()),
        DType::I16 => Tensor::from_vec(&shape, ints().iter().map(|&v| v as i16).collect()),
        DType::I8 => Tensor::from_vec(&shape, ints().iter().map(|&v| v as i8).collect()),
        DType::U8 => Tensor::from_vec(&shape, ints().iter().map(|&v| v as u8).collect()),
        DType::U16 => Tensor::from_vec(&shape, ints().iter().map(|&v| v as u16).collect()),
        DType::Bool => Tensor::from_vec(
            &shape,
            list.unwrap().iter().map(|v| v.as_bool().unwrap()).collect(),
        ),
        DType::String => Tensor::from_vec(
            &shape,
            list.unwrap()
                .iter()
                .map(|v| Bytes::from(v.as_str().unwrap().to_string()))
                .collect::<Vec<Bytes>>(),
        ),
        other => panic!("no {other} tensors in the checkpoint fixtures"),
    };
    (dtype, t.unwrap())
}

/// Every (name, tensor) of one checkpoint of expected.json, sorted by name.
fn checkpoint_values(ckpt: &str) -> Vec<(String, Tensor)> {
    let exp = expected();
    let vars = exp["checkpoints"][ckpt].as_object().unwrap();
    let mut out: Vec<(String, Tensor)> = vars
        .iter()
        .map(|(name, spec)| (name.clone(), expected_tensor(spec).1))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn long_name_values() -> Vec<(String, Tensor)> {
    let exp = expected();
    let spec = &exp["long_names"];
    let pad = spec["prefix"].as_str().unwrap();
    let scale = spec["value_scale"].as_f64().unwrap();
    (0..spec["count"].as_u64().unwrap())
        .map(|i| {
            (
                format!("long_{i:02}/{pad}"),
                Tensor::from((i as f64 * scale) as f32),
            )
        })
        .collect()
}

/// A graph with a variable per (name, value): initialized to `value`, or to zeros of its dtype
/// and shape when `zeros`.
fn model(values: &[(String, Tensor)], zeros: bool) -> Result<(Graph, Vec<Variable>)> {
    let g = Graph::new();
    let mut vars = Vec::new();
    for (name, t) in values {
        let init = if zeros {
            Tensor::zeros(t.dtype(), t.shape())?
        } else {
            t.clone()
        };
        vars.push(Variable::builder(constant(&g, init)?).name(name).build()?);
    }
    Ok((g, vars))
}

fn restore_and_check(prefix: &str, values: &[(String, Tensor)]) -> Result<()> {
    let (g, vars) = model(values, true)?;
    let sess = Session::new(&g)?;
    Saver::new(&g)?.restore(&sess, prefix)?;
    for ((name, want), v) in values.iter().zip(&vars) {
        assert_eq!(v.name(), *name);
        assert_eq!(&sess.eval(v)?, want, "{name} from {prefix}");
    }
    Ok(())
}

#[test]
fn the_state_file_tensorflow_wrote_finds_its_newest_checkpoint() -> Result<()> {
    let dir = data_dir();
    let state = get_checkpoint_state(&dir)?.expect("a state file");
    let at = |n: &str| dir.join(n).to_string_lossy().into_owned();
    assert_eq!(state.model_checkpoint_path, at("model.ckpt-7"));
    assert_eq!(
        state.all_model_checkpoint_paths,
        [at("model.ckpt-5"), at("model.ckpt-7")]
    );
    assert_eq!(latest_checkpoint(&dir)?, Some(at("model.ckpt-7")));
    // TensorFlow 2's CheckpointManager also records timestamps.
    let tf2 = dir.join("tf2");
    let state = get_checkpoint_state(&tf2)?.expect("a TF2 state file");
    assert_eq!(state.all_model_checkpoint_timestamps.len(), 2);
    assert!(state.last_preserved_timestamp > 1.5e9);
    assert_eq!(
        latest_checkpoint(&tf2)?,
        Some(tf2.join("ckpt-2").to_string_lossy().into_owned())
    );
    Ok(())
}

#[test]
fn every_dtype_restores_from_tensorflows_checkpoints() -> Result<()> {
    for ckpt in ["model.ckpt-5", "model.ckpt-7"] {
        let values = checkpoint_values(ckpt);
        assert!(values.len() > 16, "more entries than a restart interval");
        let prefix = data_dir().join(ckpt).to_string_lossy().into_owned();
        restore_and_check(&prefix, &values)?;
        let listed = weir_ops::training::list_checkpoint(&prefix)?;
        let want: Vec<(String, DType, Vec<usize>)> = values
            .iter()
            .map(|(n, t)| (n.clone(), t.dtype(), t.shape().to_vec()))
            .collect();
        assert_eq!(listed, want);
    }
    Ok(())
}

fn varint(b: &[u8], i: &mut usize) -> u64 {
    let mut v = 0;
    for shift in (0..64).step_by(7) {
        let c = b[*i];
        *i += 1;
        v |= u64::from(c & 0x7f) << shift;
        if c < 0x80 {
            break;
        }
    }
    v
}

/// How many data blocks a table has: the entries of its index block, found through the
/// footer (read here independently of weir's reader).
fn index_data_blocks(table: &[u8]) -> usize {
    let footer = &table[table.len() - 48..];
    let mut i = 0;
    let _metaindex = (varint(footer, &mut i), varint(footer, &mut i));
    let (offset, size) = (
        varint(footer, &mut i) as usize,
        varint(footer, &mut i) as usize,
    );
    let block = &table[offset..offset + size];
    let restarts = u32::from_le_bytes(block[size - 4..].try_into().unwrap()) as usize;
    let end = size - 4 - 4 * restarts;
    let (mut pos, mut n) = (0, 0);
    while pos < end {
        let _shared = varint(block, &mut pos);
        let key_len = varint(block, &mut pos) as usize;
        let value_len = varint(block, &mut pos) as usize;
        pos += key_len + value_len;
        n += 1;
    }
    n
}

#[test]
fn an_index_of_several_blocks_restores() -> Result<()> {
    let prefix = data_dir().join("long_names/model.ckpt");
    let index = std::fs::read(format!("{}.index", prefix.display())).unwrap();
    assert_eq!(
        index_data_blocks(&index),
        2,
        "TensorFlow cut its 256 KiB block"
    );
    let small = std::fs::read(data_dir().join("model.ckpt-7.index")).unwrap();
    assert_eq!(index_data_blocks(&small), 1);
    restore_and_check(prefix.to_str().unwrap(), &long_name_values())
}

#[test]
fn a_sharded_save_merged_by_tensorflow_restores() -> Result<()> {
    // Saver(sharded=True), as MonitoredTrainingSession's default saver: written per device
    // and merged by MergeV2Checkpoints.
    let dir = data_dir().join("sharded");
    let latest = latest_checkpoint(&dir)?.expect("a sharded checkpoint");
    assert_eq!(latest, dir.join("model.ckpt").to_string_lossy());
    restore_and_check(&latest, &checkpoint_values("sharded/model.ckpt"))
}

#[test]
fn a_tensorflow_2_object_checkpoint_restores_by_name() -> Result<()> {
    let prefix = data_dir().join("tf2/ckpt-2").to_string_lossy().into_owned();
    let values = checkpoint_values("tf2/ckpt-2");
    let g = Graph::new();
    let v = Variable::builder(constant(&g, Tensor::from(vec![0.0f32; 3]))?)
        .name("v")
        .build()?;
    let step = Variable::builder(constant(&g, 0i64)?)
        .name("step")
        .build()?;
    let saver = Saver::for_named_variables(&[
        ("v/.ATTRIBUTES/VARIABLE_VALUE".to_string(), v.clone()),
        ("step/.ATTRIBUTES/VARIABLE_VALUE".to_string(), step.clone()),
    ])?;
    let sess = Session::new(&g)?;
    saver.restore(&sess, &prefix)?;
    let want = |name: &str| values.iter().find(|e| e.0 == name).unwrap().1.clone();
    assert_eq!(sess.eval(&v)?, want("v/.ATTRIBUTES/VARIABLE_VALUE"));
    assert_eq!(sess.eval(&step)?, want("step/.ATTRIBUTES/VARIABLE_VALUE"));
    // The object graph TensorFlow 2 saves beside the variables is an ordinary string entry.
    let listed = weir_ops::training::list_checkpoint(&prefix)?;
    assert!(listed
        .iter()
        .any(|e| e.0 == "_CHECKPOINTABLE_OBJECT_GRAPH" && e.1 == DType::String));
    Ok(())
}

/// Saves `values` with weir's Saver and compares both files with TensorFlow's at `tf_prefix`.
fn assert_same_bytes(tag: &str, values: &[(String, Tensor)], tf_prefix: &Path) -> Result<()> {
    let dir = temp_dir(tag);
    // Declared in reverse order: the Saver orders by name, as TensorFlow's does.
    let reversed: Vec<(String, Tensor)> = values.iter().rev().cloned().collect();
    let (g, _) = model(&reversed, false)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let path = Saver::new(&g)?.save(&sess, dir.join("model.ckpt").to_str().unwrap(), None)?;
    for suffix in [".index", ".data-00000-of-00001"] {
        let ours = std::fs::read(format!("{path}{suffix}")).unwrap();
        let theirs = std::fs::read(format!("{}{suffix}", tf_prefix.display())).unwrap();
        assert!(
            ours == theirs,
            "{tag}{suffix}: weir's {} bytes differ from TensorFlow's {}",
            ours.len(),
            theirs.len()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn weir_writes_the_same_bytes_as_tensorflow() -> Result<()> {
    assert_same_bytes(
        "model",
        &checkpoint_values("model.ckpt-7"),
        &data_dir().join("model.ckpt-7"),
    )?;
    assert_same_bytes(
        "long",
        &long_name_values(),
        &data_dir().join("long_names/model.ckpt"),
    )
}

#[test]
fn damaged_copies_of_tensorflows_files_are_data_loss() -> Result<()> {
    let dir = temp_dir("damage");
    let values = checkpoint_values("model.ckpt-7");
    let (g, _) = model(&values, true)?;
    let saver = Saver::new(&g)?;
    let sess = Session::new(&g)?;
    let src = data_dir().join("model.ckpt-7");
    let prefix = dir.join("model.ckpt-7").to_string_lossy().into_owned();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for suffix in [".index", ".data-00000-of-00001"] {
        let good = std::fs::read(format!("{}{suffix}", src.display())).unwrap();
        let other = if suffix == ".index" {
            ".data-00000-of-00001"
        } else {
            ".index"
        };
        std::fs::copy(
            format!("{}{other}", src.display()),
            format!("{prefix}{other}"),
        )
        .unwrap();
        let file = format!("{prefix}{suffix}");
        for round in 0..60 {
            let mut b = good.clone();
            let what = if round % 3 == 0 {
                let cut = next(b.len());
                b.truncate(cut);
                format!("cut at {cut}")
            } else {
                let i = next(b.len());
                b[i] ^= 1 << next(8);
                format!("flip at {i}")
            };
            std::fs::write(&file, &b).unwrap();
            let e = saver.restore(&sess, &prefix).unwrap_err();
            assert!(e.is_data_loss(), "{suffix} {what}: {e}");
            assert!(e.message().contains(&file), "{suffix} {what}: {e}");
        }
        std::fs::write(&file, &good).unwrap();
        saver.restore(&sess, &prefix)?;
    }
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
