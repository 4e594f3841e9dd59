//! A V2 checkpoint written by TensorFlow 2.21's `tf.train.Saver` (tests/data/dtypes_checkpoint,
//! made by make_dtypes_checkpoint.py there) holding variables of uint32, uint64, float16,
//! bfloat16, complex64 and complex128, scalar and not: weir restores each bit for bit, and its
//! Saver writes the same variables as the very same index and data bytes (so TensorFlow reads
//! what weir writes).

use std::path::{Path, PathBuf};

use serde_json::Value;
use weir_graph::{DType, Graph, LeBytes, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::Session;
use weir_train::Saver;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dtypes_checkpoint")
}

/// The variables of expected.json, by name (sorted, as the JSON object keeps them).
fn expected() -> Vec<(String, Tensor)> {
    let text = std::fs::read_to_string(data_dir().join("expected.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v.as_object()
        .unwrap()
        .iter()
        .map(|(name, spec)| (name.clone(), spec_tensor(spec)))
        .collect()
}

/// The tensor a `{dtype, shape, hex}` spec holds (little-endian element bytes).
fn spec_tensor(spec: &Value) -> Tensor {
    fn build<T: LeBytes>(shape: &[usize], bytes: &[u8]) -> Tensor {
        Tensor::from_vec(shape, bytes.chunks_exact(T::SIZE).map(T::get).collect()).unwrap()
    }
    let shape: Vec<usize> = spec["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let hex = spec["hex"].as_str().unwrap();
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let dtype = DType::from_name(spec["dtype"].as_str().unwrap()).unwrap();
    weir_graph::match_le_dtype!(dtype, T => build::<T>(&shape, &bytes), _ => panic!("{dtype}"))
}

/// Every element's little-endian bytes, so NaNs compare by their bits.
fn bits(t: &Tensor) -> Vec<u8> {
    fn le<T: LeBytes>(t: &Tensor) -> Vec<u8> {
        let mut out = Vec::new();
        for &x in t.as_slice::<T>().unwrap() {
            x.put(&mut out);
        }
        out
    }
    weir_graph::match_le_dtype!(t.dtype(), T => le::<T>(t), _ => panic!("{}", t.dtype()))
}

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

#[test]
fn every_new_dtype_restores_from_tensorflows_checkpoint() -> Result<()> {
    let values = expected();
    assert_eq!(values.len(), 12);
    let (g, vars) = model(&values, true)?;
    let sess = Session::new(&g)?;
    let prefix = data_dir().join("model.ckpt");
    Saver::new(&g)?.restore(&sess, prefix.to_str().unwrap())?;
    for ((name, want), v) in values.iter().zip(&vars) {
        let got = sess.eval(v)?;
        assert_eq!(got.dtype(), want.dtype(), "{name}");
        assert_eq!(got.shape(), want.shape(), "{name}");
        assert_eq!(bits(&got), bits(want), "{name}");
    }
    Ok(())
}

#[test]
fn weir_writes_tensorflows_bytes_for_every_new_dtype() -> Result<()> {
    let values = expected();
    let dir = std::env::temp_dir().join(format!("weir-dtypes-ckpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Declared in reverse order: the Saver orders by name, as TensorFlow's does.
    let reversed: Vec<(String, Tensor)> = values.iter().rev().cloned().collect();
    let (g, _) = model(&reversed, false)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let path = Saver::new(&g)?.save(&sess, dir.join("model.ckpt").to_str().unwrap(), None)?;
    for suffix in [".index", ".data-00000-of-00001"] {
        let ours = std::fs::read(format!("{path}{suffix}")).unwrap();
        let theirs = std::fs::read(data_dir().join(format!("model.ckpt{suffix}"))).unwrap();
        assert!(
            ours == theirs,
            "{suffix}: weir's {} bytes differ from TensorFlow's {}",
            ours.len(),
            theirs.len()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
