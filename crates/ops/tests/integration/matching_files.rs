//! `tf.io.matching_files` (op `MatchingFiles`) against what TensorFlow 2.21 returned over the
//! same folder tree (`tests/data/matching_files`, written by `make_matching_files.py` there):
//! wildcards, escapes, several levels, trailing slashes, lists of patterns, relative patterns
//! (spelled `./...` when their first level has a wildcard), and the rank errors.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::io::matching_files;
use weir_session::{RunArgs, Session};

use crate::io_util::{check_tf_error, TempDir};

/// Set in the child process that checks the relative patterns from inside the tree.
const CHILD_ROOT: &str = "WEIR_MATCHING_FILES_ROOT";

fn expected() -> Value {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/matching_files/expected.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap()
}

/// The folders and files TensorFlow matched against.
fn make_tree(want: &Value) -> TempDir {
    let dir = TempDir::new("matching-files");
    for d in want["dirs"].as_array().unwrap() {
        std::fs::create_dir_all(dir.0.join(d.as_str().unwrap())).unwrap();
    }
    for f in want["files"].as_array().unwrap() {
        let f = f.as_str().unwrap();
        std::fs::write(dir.0.join(f), f).unwrap();
    }
    dir
}

fn strings(v: &Value, root: &str) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().replace("{root}", root))
        .collect()
}

fn is_relative(case: &Value) -> bool {
    case["name"].as_str().unwrap().starts_with("relative")
}

/// Runs one case's pattern through the op; its sorted output with the root spelled `{root}`.
fn run_case(case: &Value, root: &str) -> Vec<String> {
    let name = case["name"].as_str().unwrap();
    let g = Graph::new();
    let pattern = match &case["pattern"] {
        Value::String(p) => Tensor::from(p.replace("{root}", root).as_str()),
        list => Tensor::from(strings(list, root)),
    };
    let files = matching_files(constant(&g, pattern).unwrap(), None).unwrap();
    assert_eq!(
        files.shape(),
        Shape::new(vec![None]),
        "{name}: static shape"
    );
    let got = Session::new(&g)
        .unwrap()
        .run(
            &RunArgs::new()
                .fetch(&files)
                .timeout(Duration::from_secs(60)),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(got[0].dtype(), DType::String, "{name}");
    got[0]
        .to_strings()
        .unwrap()
        .into_iter()
        .map(|f| f.replace(root, "{root}"))
        .collect()
}

fn check_cases(want: &Value, root: &str, relative: bool) -> usize {
    let mut n = 0;
    for case in want["cases"].as_array().unwrap() {
        if case.get("files").is_none() || is_relative(case) != relative {
            continue;
        }
        let got = run_case(case, root);
        let files: Vec<String> = strings(&case["files"], "{root}");
        assert_eq!(got, files, "{}", case["name"]);
        n += 1;
    }
    n
}

#[test]
fn absolute_patterns_match_tensorflow() {
    let want = expected();
    let dir = make_tree(&want);
    let root = dir.0.to_string_lossy().into_owned();
    assert_eq!(check_cases(&want, &root, false), 34);
}

/// Relative patterns resolve against the working directory, which a test may not change in a
/// process whose other tests run at the same time: this test runs itself again as a child
/// process started in the tree.
#[test]
fn relative_patterns_match_tensorflow() {
    let want = expected();
    if let Ok(root) = std::env::var(CHILD_ROOT) {
        assert_eq!(check_cases(&want, &root, true), 6);
        return;
    }
    let dir = make_tree(&want);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "matching_files::relative_patterns_match_tensorflow",
            "--exact",
            "--test-threads=1",
        ])
        .env(CHILD_ROOT, &dir.0)
        .current_dir(&dir.0)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn rank_errors_match_tensorflow() {
    let want = expected();
    let cases = want["cases"].as_array().unwrap();
    let build = cases.iter().find(|c| c["name"] == "rank2_build").unwrap();
    let g = Graph::new();
    let pattern = Tensor::from(vec!["/tmp/*".to_string()])
        .reshape(&[1, 1])
        .unwrap();
    let e = matching_files(constant(&g, pattern).unwrap(), None).unwrap_err();
    check_tf_error("rank2_build", &e, &build["build_error"]);

    let fed = cases.iter().find(|c| c["name"] == "rank2_fed").unwrap();
    let g = Graph::new();
    let p = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let files = matching_files(p.clone(), None).unwrap();
    let value = Tensor::from(vec!["/tmp/*".to_string()])
        .reshape(&[1, 1])
        .unwrap();
    let e = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().fetch(&files).feed(&p, value))
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    check_tf_error("rank2_fed", &e, &fed["error"]);
}
