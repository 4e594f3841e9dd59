//! `weir graph summarize|convert`: look inside GraphDef files and change their format.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::ExitCode;

use weir::graph::graph_def::proto::attr_value_proto::Value;
use weir::graph::graph_def::proto::{AttrValueProto, GraphDef, NodeDef};
use weir::graph::graph_def::{parse_text, write_graph, ImportGraphDef, Message};
use weir::ops::import_graph_def;
use weir::{DType, Error, Graph};

/// Whether `path` names a text GraphDef: `.pbtxt` or `.txt`, as TensorFlow's tools decide.
fn is_text(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("pbtxt" | "txt")
    )
}

/// Reads a GraphDef, text or binary by the extension.
pub fn read(path: &Path) -> Result<GraphDef, Error> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::from(e).with_prefix(&format!("{}: ", path.display())))?;
    let fail = |e: Error| e.with_prefix(&format!("{}: ", path.display()));
    if is_text(path) {
        let text = String::from_utf8(bytes)
            .map_err(|_| fail(Error::invalid_argument("a text GraphDef must be UTF-8")))?;
        parse_text(&text).map_err(fail)
    } else {
        GraphDef::decode(&bytes[..]).map_err(|e| {
            fail(Error::data_loss(format!(
                "not a binary GraphDef ({e}); a text one should end in .pbtxt"
            )))
        })
    }
}

fn dtype_name(v: Option<&AttrValueProto>) -> String {
    match v.and_then(|v| v.value.as_ref()) {
        Some(Value::Type(t)) => DType::from_proto_number(*t)
            .map_or_else(|| format!("DataType {t}"), |d| d.python_name().to_string()),
        _ => "?".to_string(),
    }
}

fn shape_text(v: Option<&AttrValueProto>) -> String {
    match v.and_then(|v| v.value.as_ref()) {
        Some(Value::Shape(s)) if s.unknown_rank => "<unknown>".to_string(),
        Some(Value::Shape(s)) => {
            let dims: Vec<String> = s
                .dim
                .iter()
                .map(|d| {
                    if d.size < 0 {
                        "?".into()
                    } else {
                        d.size.to_string()
                    }
                })
                .collect();
            format!("[{}]", dims.join(","))
        }
        _ => "<unknown>".to_string(),
    }
}

/// The number of elements of a known shape attribute, if it has one.
fn elements(v: Option<&AttrValueProto>) -> Option<i64> {
    match v.and_then(|v| v.value.as_ref()) {
        Some(Value::Shape(s)) if !s.unknown_rank => s.dim.iter().try_fold(1i64, |acc, d| {
            (d.size >= 0).then(|| acc.saturating_mul(d.size))
        }),
        Some(Value::Tensor(t)) => t.tensor_shape.as_ref().and_then(|s| {
            s.dim.iter().try_fold(1i64, |acc, d| {
                (d.size >= 0).then(|| acc.saturating_mul(d.size))
            })
        }),
        _ => None,
    }
}

/// The input node of an input name (`^node`, `node:1`).
fn source(input: &str) -> &str {
    let name = input.strip_prefix('^').unwrap_or(input);
    match name.rsplit_once(':') {
        Some((n, i)) if i.parse::<usize>().is_ok() => n,
        _ => name,
    }
}

fn summary(def: &GraphDef) -> Vec<String> {
    let mut lines = vec![format!(
        "{} nodes, GraphDef producer {}",
        def.node.len(),
        def.versions.as_ref().map_or(0, |v| v.producer)
    )];
    let placeholders: Vec<&NodeDef> = def
        .node
        .iter()
        .filter(|n| n.op.starts_with("Placeholder"))
        .collect();
    lines.push(format!("{} inputs (placeholders):", placeholders.len()));
    for p in placeholders {
        lines.push(format!(
            "  {} {} {}",
            p.name,
            dtype_name(p.attr.get("dtype")),
            shape_text(p.attr.get("shape"))
        ));
    }
    let consumed: HashSet<&str> = def
        .node
        .iter()
        .flat_map(|n| n.input.iter().map(|i| source(i)))
        .collect();
    let outputs: Vec<&NodeDef> = def
        .node
        .iter()
        .filter(|n| !consumed.contains(n.name.as_str()) && n.op != "NoOp")
        .collect();
    lines.push(format!("{} outputs (read by no node):", outputs.len()));
    for o in outputs {
        lines.push(format!("  {} ({})", o.name, o.op));
    }
    let vars: Vec<&NodeDef> = def
        .node
        .iter()
        .filter(|n| matches!(n.op.as_str(), "VariableV2" | "VarHandleOp" | "Variable"))
        .collect();
    let params: i64 = vars
        .iter()
        .filter_map(|v| elements(v.attr.get("shape")))
        .sum();
    lines.push(format!("{} variables, {params} parameters", vars.len()));
    let consts: i64 = def
        .node
        .iter()
        .filter(|n| n.op == "Const")
        .filter_map(|n| elements(n.attr.get("value")))
        .sum();
    lines.push(format!("{consts} constant elements"));
    let mut ops: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &def.node {
        *ops.entry(n.op.as_str()).or_default() += 1;
    }
    let mut ops: Vec<(&str, usize)> = ops.into_iter().collect();
    ops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    lines.push(format!("{} op types:", ops.len()));
    for (op, n) in ops {
        lines.push(format!("  {n:>6} {op}"));
    }
    lines
}

/// Prints a summary of `file` (TensorFlow's summarize_graph: inputs, outputs, variables, op
/// counts) and whether weir can import it; exit status 1 when it cannot.
pub fn summarize(file: &Path) -> Result<ExitCode, Error> {
    let def = read(file)?;
    for line in summary(&def) {
        println!("{line}");
    }
    match import_graph_def(&Graph::new(), &ImportGraphDef::new(&def).name("")) {
        Ok(_) => {
            println!("weir imports it: yes");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("weir imports it: no");
            eprintln!("weir: {}: {e}", file.display());
            Ok(ExitCode::FAILURE)
        }
    }
}

/// Writes `input`'s GraphDef to `output`, text or binary by `output`'s extension.
pub fn convert(input: &Path, output: &Path) -> Result<ExitCode, Error> {
    let def = read(input)?;
    // weir reads a library's functions only as far as importing needs: converting would drop
    // the rest of them (their attributes, argument attributes) and write a different graph.
    if def.library.as_ref().is_some_and(|l| !l.function.is_empty()) {
        return Err(Error::unimplemented(format!(
            "{}: the graph holds a function library (TensorFlow 2's If, While and tf.function \
             bodies), which `weir graph convert` does not carry; weir imports the graph, but a \
             converted copy would lose its functions",
            input.display()
        )));
    }
    let dir = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = output
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::invalid_argument(format!("{}: not a file name", output.display())))?;
    write_graph(&def, dir, name, is_text(output))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_name_inputs_outputs_variables_and_ops() {
        let text = r#"
            node { name: "x" op: "Placeholder"
                   attr { key: "dtype" value { type: DT_FLOAT } }
                   attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
            node { name: "w" op: "VariableV2"
                   attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } } }
            node { name: "w/read" op: "Identity" input: "w" }
            node { name: "y" op: "MatMul" input: "x" input: "w/read" }
            node { name: "init" op: "NoOp" input: "^w" }
            versions { producer: 2474 }"#;
        let lines = summary(&parse_text(text).unwrap());
        assert_eq!(lines[0], "5 nodes, GraphDef producer 2474");
        assert_eq!(
            lines[1..3],
            ["1 inputs (placeholders):", "  x float32 [?,3]"]
        );
        assert_eq!(
            lines[3..5],
            ["1 outputs (read by no node):", "  y (MatMul)"]
        );
        assert_eq!(lines[5], "1 variables, 6 parameters");
        assert!(lines.contains(&"       1 MatMul".to_string()), "{lines:?}");
    }
}
