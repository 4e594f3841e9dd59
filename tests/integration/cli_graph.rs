//! The `weir graph` command line on GraphDefs written by TensorFlow (tests/data/tf_graphs).

use std::path::PathBuf;
use std::process::{Command, Output};

use weir::graph::graph_def::proto::GraphDef;
use weir::graph::graph_def::{parse_text, Message};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tf_graphs")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn weir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weir"))
        .args(args)
        .output()
        .expect("run weir")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

#[test]
fn summarize_names_inputs_outputs_variables_and_importability() {
    for file in ["softmax_train.pb", "softmax_train.pbtxt"] {
        let o = weir(&["graph", "summarize", &data(file)]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        for line in [
            "38 nodes, GraphDef producer 2474\n",
            "2 inputs (placeholders):\n  x float32 [?,4]\n  y int32 [?]\n",
            "  loss (Mean)\n",
            "2 variables, 15 parameters\n",
            "       2 ApplyGradientDescent\n",
            "weir imports it: yes\n",
        ] {
            assert!(out.contains(line), "{file}: {line:?} not in\n{out}");
        }
    }
}

#[test]
fn summarize_says_why_a_graph_does_not_import() {
    let dir = std::env::temp_dir().join(format!("weir-cli-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.pbtxt");
    std::fs::write(&bad, "node { name: \"a\" op: \"NoSuchOp\" }").unwrap();
    let o = weir(&["graph", "summarize", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).ends_with("weir imports it: no\n"));
    assert!(text(&o.stderr).contains("NoSuchOp"), "{}", text(&o.stderr));
    // Not a GraphDef at all: DataLoss naming the file.
    let junk = dir.join("junk.pb");
    std::fs::write(&junk, b"\xff\xff\xff").unwrap();
    let o = weir(&["graph", "summarize", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("DataLoss") && err.contains("junk.pb"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn convert_goes_between_binary_and_text_without_changing_the_graph() {
    let dir = std::env::temp_dir().join(format!("weir-cli-graph-conv-{}", std::process::id()));
    let as_text = dir.join("g.pbtxt");
    let back = dir.join("g.pb");
    let o = weir(&[
        "graph",
        "convert",
        &data("softmax_train.pb"),
        as_text.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = weir(&[
        "graph",
        "convert",
        as_text.to_str().unwrap(),
        back.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let original = GraphDef::decode(&std::fs::read(data("softmax_train.pb")).unwrap()[..]).unwrap();
    let from_text = parse_text(&std::fs::read_to_string(&as_text).unwrap()).unwrap();
    let round = GraphDef::decode(&std::fs::read(&back).unwrap()[..]).unwrap();
    assert_eq!((from_text == original, round == original), (true, true));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tensorflow_2_graphs_with_functions_summarize_as_importable_but_do_not_convert() {
    let o = weir(&["graph", "summarize", &data("cond_v2.pb")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("       3 StatelessIf\n"), "{out}");
    assert!(out.ends_with("weir imports it: yes\n"), "{out}");
    // Converting would drop the functions the If ops call: refused, nothing written.
    let dir = std::env::temp_dir().join(format!("weir-cli-graph-fn-{}", std::process::id()));
    let out_file = dir.join("g.pbtxt");
    let o = weir(&[
        "graph",
        "convert",
        &data("cond_v2.pb"),
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("holds a function library"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out_file.exists());
}

#[test]
fn graph_commands_have_help() {
    for args in [
        &["graph", "--help"][..],
        &["graph", "summarize", "--help"],
        &["graph", "convert", "--help"],
    ] {
        let o = weir(args);
        assert!(o.status.success(), "{args:?}");
        assert!(text(&o.stdout).contains("Usage: weir graph"), "{args:?}");
    }
}
