//! `Dataset.list_files` against what TensorFlow 2.21 returned (`tests/data/tfdata_list_files`,
//! written by `make_list_files.py` there): sorted and seeded orders, and the no-match error.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Bytes, Code, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_ops::data::Dataset;
use weir_session::{RunArgs, Session};

use crate::io_util::{run, TempDir};

fn expected() -> Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tfdata_list_files/expected.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap()
}

fn pattern(g: &Graph, dir: &str, case: &Value) -> Output {
    let p = &case["patterns"];
    match p.as_str() {
        Some(one) => constant(g, format!("{dir}/{one}").as_str()).unwrap(),
        None => {
            let all: Vec<String> = p
                .as_array()
                .unwrap()
                .iter()
                .map(|x| format!("{dir}/{}", x.as_str().unwrap()))
                .collect();
            constant(g, Tensor::from(all)).unwrap()
        }
    }
}

#[test]
fn orders_and_errors_match_tensorflow() {
    let want = expected();
    let dir = TempDir::new("list-files");
    for f in want["files"].as_array().unwrap() {
        let f = f.as_str().unwrap();
        dir.file(f, f.as_bytes());
    }
    let dir_s = dir.0.to_string_lossy().into_owned();
    let cases = want["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 11);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        if let Some(s) = case["graph_seed"].as_i64() {
            g.set_random_seed(s);
        }
        let mut ds = Dataset::list_files(
            &pattern(&g, &dir_s, case),
            case["shuffle"].as_bool(),
            case["seed"].as_i64(),
        )
        .unwrap();
        if let Some(n) = case["repeat"].as_i64() {
            ds = ds.repeat(Some(n)).unwrap();
        }
        let it = ds.make_initializable_iterator().unwrap();
        let next = it.get_next().unwrap();
        let sess = Session::new(&g).unwrap();
        let init = sess.run(&RunArgs::new().target(&it.initializer().unwrap()));
        if let Value::Object(e) = &case["error"] {
            let err = init.expect_err(name);
            assert_eq!(e["kind"], "InvalidArgumentError", "{name}");
            assert_eq!(err.code(), Code::InvalidArgument, "{name}");
            let message = e["message"].as_str().unwrap().replace("{dir}", &dir_s);
            assert_eq!(err.message(), message, "{name}");
            continue;
        }
        init.unwrap();
        let mut got = vec![];
        loop {
            match run(&sess, &[&next[0]]) {
                Ok(t) => {
                    let path = t[0].to_scalar::<Bytes>().unwrap();
                    let path = String::from_utf8(path.to_vec()).unwrap();
                    let base = path.rsplit('/').next().unwrap().to_string();
                    assert_eq!(path, format!("{dir_s}/{base}"), "{name}");
                    got.push(base);
                }
                Err(e) if e.code() == Code::OutOfRange => break,
                Err(e) => panic!("{name}: {e}"),
            }
            assert!(got.len() <= 100, "{name}: too many");
        }
        let values: Vec<&str> = case["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(got, values, "{name}");
    }
}

/// Without any seed the order is random, but every file comes once per epoch.
#[test]
fn unseeded_shuffle_is_a_permutation() {
    let dir = TempDir::new("list-files-unseeded");
    for i in 0..20 {
        dir.file(&format!("f{i:02}.rec"), b"x");
    }
    let g = Graph::new();
    let p = constant(&g, format!("{}/*.rec", dir.0.display()).as_str()).unwrap();
    let ds = Dataset::list_files(&p, None, None).unwrap();
    assert_eq!(ds.handle().op().op_type(), "ShuffleDataset");
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let mut got: Vec<String> = (0..20)
        .map(|_| {
            let t = run(&sess, &[&next[0]]).unwrap();
            String::from_utf8(t[0].to_scalar::<Bytes>().unwrap().to_vec()).unwrap()
        })
        .collect();
    assert_eq!(
        run(&sess, &[&next[0]]).unwrap_err().code(),
        Code::OutOfRange
    );
    got.sort();
    let want: Vec<String> = (0..20)
        .map(|i| format!("{}/f{i:02}.rec", dir.0.display()))
        .collect();
    assert_eq!(got, want);
}

/// A one-shot iterator reports the no-match error too (TensorFlow's is silently empty).
#[test]
fn a_one_shot_iterator_reports_no_match() {
    let dir = TempDir::new("list-files-none");
    let g = Graph::new();
    let p = constant(&g, format!("{}/*.rec", dir.0.display()).as_str()).unwrap();
    let ds = Dataset::list_files(&p, Some(false), None).unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let e = run(&sess, &[&next[0]]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        format!(
            "assertion failed: [No files matched pattern: {}/*.rec]",
            dir.0.display()
        )
    );
}

/// A pattern that is not a string is refused while building.
#[test]
fn a_non_string_pattern_is_refused() {
    let g = Graph::new();
    let e = Dataset::list_files(&constant(&g, 3i32).unwrap(), None, None).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}
