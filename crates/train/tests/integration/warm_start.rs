//! `warm_start` against TensorFlow 2.21 (tests/data/warm_start/expected.json, written by
//! make_warm_start.py there): which variables start from the checkpoint, previous names, and
//! the errors.

use std::path::Path;

use serde_json::{json, Value};
use weir_graph::{Code, Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::Session;
use weir_train::{Saver, VarsToWarmStart, WarmStart};

/// The checkpoint make_warm_start.py writes, written by weir.
fn checkpoint(dir: &Path) -> Result<String> {
    let g = Graph::new();
    let var = |v: Tensor, name: &str, trainable: bool| -> Result<Variable> {
        Variable::builder(constant(&g, v)?)
            .name(name)
            .trainable(trainable)
            .build()
    };
    var(Tensor::from(vec![1.0f32, 2.0]), "dense/kernel", true)?;
    var(Tensor::scalar(3.0f32), "dense/bias", true)?;
    var(Tensor::scalar(4.0f32), "old_emb", true)?;
    var(Tensor::scalar(9.0f32), "counter", false)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let prefix = dir.join("m").to_string_lossy().into_owned();
    Saver::new(&g)?.save(&sess, &prefix, None)?;
    Ok(prefix)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn warm_start_initializes_what_tensorflows_does() -> Result<()> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/warm_start/expected.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("weir-warm-start-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = checkpoint(&dir)?;
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let kernel = c["kernel_size"].as_u64().unwrap_or(2) as usize;
        let var = |v: Tensor, n: &str, trainable: bool| -> Result<Variable> {
            Variable::builder(constant(&g, v)?)
                .name(n)
                .trainable(trainable)
                .build()
        };
        let vars = [
            var(Tensor::from(vec![0.0f32; kernel]), "dense/kernel", true)?,
            var(Tensor::scalar(0.0f32), "dense/bias", true)?,
            var(Tensor::scalar(0.0f32), "new_emb", true)?,
            var(Tensor::scalar(0.0f32), "counter", false)?,
        ];
        let args = &c["args"];
        let chosen = match &args["vars_to_warm_start"] {
            Value::String(s) => VarsToWarmStart::Regex(s.clone()),
            list => VarsToWarmStart::Regexes(strings(list)),
        };
        let mut ws = WarmStart::new(&prefix).vars_to_warm_start(chosen);
        if let Some(map) = args["var_name_to_prev_var_name"].as_object() {
            for (cur, prev) in map {
                ws = ws.var_name_to_prev_var_name(cur, prev.as_str().unwrap());
            }
        }
        match ws.apply(&g) {
            Err(e) => {
                let want = c["message"].as_str().unwrap().replace("PREFIX", &prefix);
                assert_eq!(c["error"], "ValueError", "{name}: {e}");
                assert_eq!(e.code(), Code::InvalidArgument, "{name}");
                // TensorFlow prints the checkpoint's shapes as a Python dict; compare up to it.
                let head = want.split(" checkpoint {").next().unwrap();
                assert!(e.message().starts_with(head), "{name}: {e} vs {want}");
            }
            Ok(_) => {
                assert!(c.get("error").is_none(), "{name}: weir succeeded");
                let sess = Session::new(&g)?;
                sess.run_target(&global_variables_initializer(&g)?)?;
                let mut got = serde_json::Map::new();
                for v in &vars {
                    let t = sess.eval(v.value())?;
                    let value = match t.shape() {
                        [] => json!(t.to_scalar::<f32>()?),
                        _ => json!(t.to_vec::<f32>()?),
                    };
                    got.insert(v.name(), value);
                }
                assert_eq!(Value::Object(got), c["values"], "{name}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
