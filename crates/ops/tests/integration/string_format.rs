//! `tf.strings.format` (`StringFormat`) and `tf.print` (`PrintV2`) against TensorFlow 2.21
//! (tests/data/string_format): every dtype's printed form, numpy's layout with `...` for every
//! rank and summarize, the Python wrapper's and the op's errors, and the bytes `tf.print` wrote
//! to a `file://` stream with the graph it built.

use serde_json::Value;
use weir_graph::{Bytes, Graph, Output, Shape};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::logging::{OutputStream, PrintArg, PrintV2};
use weir_ops::string::StringFormat;
use weir_session::Session;

use crate::io_util::{check_tf_error, expected_cases, spec_tensor, TempDir};

fn cases() -> Vec<Value> {
    expected_cases("string_format")
}

fn bytes_of(v: &Value) -> Vec<u8> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect()
}

/// The `StringFormat` output of a format case, or the error building or running it gave.
fn format_case(c: &Value) -> weir_graph::Result<Vec<u8>> {
    let g = Graph::new();
    let inputs: Vec<Output> = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| constant(&g, spec_tensor(s)))
        .collect::<weir_graph::Result<_>>()?;
    let template = c["template"].as_str().unwrap();
    let placeholder = c["placeholder"].as_str().unwrap();
    let summarize = c["summarize"].as_i64().unwrap();
    let out = if c["python"].as_bool().unwrap() {
        StringFormat::new()
            .placeholder(placeholder)
            .summarize(summarize)
            .build(&g, template, &inputs)?
    } else {
        // The raw op, so that its shape function's check is the one that speaks.
        g.new_operation("StringFormat")
            .inputs(inputs)
            .attr("template", template)
            .attr("placeholder", placeholder)
            .attr("summarize", summarize)
            .build()?
            .output(0)?
    };
    assert_eq!(out.shape(), Shape::scalar());
    let t = Session::new(&g)?.eval(&out)?;
    Ok(t.as_slice::<Bytes>()?[0].to_vec())
}

#[test]
fn string_format_matches_tensorflow() {
    let mut n = 0;
    for c in cases().iter().filter(|c| c["kind"] == "format") {
        let name = c["name"].as_str().unwrap();
        match (format_case(c), c.get("error")) {
            (Ok(got), None) => assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&bytes_of(&c["output"])),
                "{name}"
            ),
            (Err(e), Some(want)) => check_tf_error(name, &e, want),
            (got, _) => panic!("{name}: {got:?}"),
        }
        n += 1;
    }
    assert!(n >= 100, "only {n} cases");
}

#[test]
fn print_v2_writes_what_tensorflow_writes() {
    let dir = TempDir::new("print_v2");
    let mut n = 0;
    for c in cases().iter().filter(|c| c["kind"] == "print") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let args: Vec<PrintArg> = c["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| match a.get("text") {
                Some(t) => PrintArg::from(t.as_str().unwrap()),
                None => constant(&g, spec_tensor(&a["tensor"])).unwrap().into(),
            })
            .collect();
        let path = dir.path(&format!("case{n}.txt"));
        let mut p = PrintV2::new().output_stream(OutputStream::File(path.clone()));
        let o = &c["options"];
        if let Some(s) = o["sep"].as_str() {
            p = p.sep(s);
        }
        if let Some(s) = o["end"].as_str() {
            p = p.end(s);
        }
        if let Some(s) = o["summarize"].as_i64() {
            p = p.summarize(s);
        }
        if let Some(s) = o["name"].as_str() {
            p = p.name(s);
        }
        let op = p.build(&g, &args).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(op.name(), c["print_node"].as_str().unwrap(), "{name}");
        let formats: Vec<(String, String, String)> = g
            .operations()
            .into_iter()
            .filter(|o| o.op_type() == "StringFormat")
            .map(|o| {
                (
                    o.name(),
                    o.attr::<String>("template").unwrap(),
                    o.attr::<String>("placeholder").unwrap(),
                )
            })
            .collect();
        let want: Vec<(String, String, String)> = c["format_nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let s = |k: &str| f[k].as_str().unwrap().to_string();
                (s("name"), s("template"), s("placeholder"))
            })
            .collect();
        assert_eq!(formats, want, "{name}");
        let sess = Session::new(&g).unwrap();
        sess.run_target(&op).unwrap();
        sess.run_target(&op).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(written, c["written"].as_str().unwrap(), "{name}");
        n += 1;
    }
    assert_eq!(n, 12);
}

#[test]
fn print_v2_op_errors_match_tensorflow() {
    for c in cases().iter().filter(|c| c["kind"] == "print_op") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let input = constant(&g, spec_tensor(&c["input"])).unwrap();
        let input = placeholder_with_default(input, Shape::unknown()).unwrap();
        let got = g
            .new_operation("PrintV2")
            .input(input)
            .attr("output_stream", c["stream"].as_str().unwrap())
            .build()
            .and_then(|op| Session::new(&g)?.run_target(&op));
        check_tf_error(name, &got.unwrap_err(), &c["error"]);
    }
}

#[test]
fn print_v2_refuses_a_static_vector_when_the_graph_is_built() {
    let g = Graph::new();
    let v = constant(&g, ["a", "b"]).unwrap();
    let e = g.new_operation("PrintV2").input(v).build().unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert!(
        e.message()
            .contains("input must be a scalar, but has rank: 1"),
        "{e}"
    );
}
