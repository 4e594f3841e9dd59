//! Graphs as TensorFlow's `GraphDef`: `as_graph_def`, `write_graph` in binary and text format,
//! and the graph event of a `FileWriter`.

use weir::graph::graph_def::proto::attr_value_proto::Value;
use weir::graph::graph_def::proto::{GraphDef, NodeDef};
use weir::graph::graph_def::{to_text, write_graph, Message, GRAPH_DEF_VERSION};
use weir::prelude::*;

/// The graph TensorFlow printed for the same Python (see the test below): a placeholder, a 2-D
/// and a scalar constant, a product, a sum and an identity under a control dependency.
fn small_graph() -> Result<Graph> {
    let g = Graph::new();
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(3)]))
        .name("x")
        .build(&g)?;
    let c = constant_named(&g, Tensor::from_vec(&[1, 3], vec![1.0f32, 2.0, 3.0])?, "c")?;
    let s = constant_named(&g, 2.0f32, "s")?;
    let y = add(mul(&x, &s)?, &c)?;
    let _after = g.control_dependencies(&[y.op()])?;
    identity(&y)?;
    Ok(g)
}

fn node<'a>(def: &'a GraphDef, name: &str) -> &'a NodeDef {
    def.node
        .iter()
        .find(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name}"))
}

#[test]
fn nodes_inputs_and_attrs_are_tensorflows() -> Result<()> {
    let g = small_graph()?;
    let def = g.as_graph_def(true)?;
    assert_eq!(def.versions.as_ref().unwrap().producer, GRAPH_DEF_VERSION);
    assert_eq!(def.node.len(), g.num_nodes());
    let ops: Vec<(&str, &str)> = def
        .node
        .iter()
        .map(|n| (n.name.as_str(), n.op.as_str()))
        .collect();
    assert_eq!(
        ops,
        [
            ("x", "Placeholder"),
            ("c", "Const"),
            ("s", "Const"),
            ("Mul", "Mul"),
            ("AddV2", "AddV2"),
            ("Identity", "Identity")
        ]
    );
    assert_eq!(node(&def, "Mul").input, ["x", "s"]);
    assert_eq!(node(&def, "AddV2").input, ["Mul", "c"]);
    assert_eq!(node(&def, "Identity").input, ["AddV2", "^AddV2"]);

    let x = node(&def, "x");
    assert_eq!(x.attr["dtype"].value, Some(Value::Type(1)));
    let Some(Value::Shape(shape)) = &x.attr["shape"].value else {
        panic!("{:?}", x.attr["shape"]);
    };
    let dims: Vec<i64> = shape.dim.iter().map(|d| d.size).collect();
    assert_eq!(dims, [-1, 3]);

    // The constants as TensorFlow writes them: raw little-endian bytes for the matrix, the
    // typed field for the scalar.
    let Some(Value::Tensor(c)) = &node(&def, "c").attr["value"].value else {
        panic!("no tensor");
    };
    assert_eq!(c.dtype, 1);
    assert_eq!(&c.tensor_content[..], b"\0\0\x80?\0\0\0@\0\0@@");
    let Some(Value::Tensor(s)) = &node(&def, "s").attr["value"].value else {
        panic!("no tensor");
    };
    assert_eq!(
        (s.float_val.as_slice(), s.tensor_content.is_empty()),
        (&[2.0f32][..], true)
    );
    assert!(s.tensor_shape.as_ref().unwrap().dim.is_empty());

    // add_shapes: each node's static output shapes.
    let Some(Value::List(l)) = &node(&def, "AddV2").attr["_output_shapes"].value else {
        panic!("no _output_shapes");
    };
    let dims: Vec<i64> = l.shape[0].dim.iter().map(|d| d.size).collect();
    assert_eq!(dims, [-1, 3]);
    assert!(!g.as_graph_def(false)?.node[0]
        .attr
        .contains_key("_output_shapes"));

    // The binary form reads back to the same message.
    assert_eq!(GraphDef::decode(&def.encode_to_vec()[..]).unwrap(), def);
    Ok(())
}

#[test]
fn the_text_format_is_protobufs() -> Result<()> {
    let text = to_text(&small_graph()?.as_graph_def(false)?);
    // Lines TensorFlow printed for the same graph.
    for line in [
        "node {\n  name: \"x\"\n  op: \"Placeholder\"\n",
        "    key: \"dtype\"\n    value {\n      type: DT_FLOAT\n    }\n",
        "      shape {\n        dim {\n          size: -1\n        }\n        dim {\n          size: 3\n        }\n      }\n",
        "        tensor_content: \"\\000\\000\\200?\\000\\000\\000@\\000\\000@@\"\n",
        "        tensor_shape {\n        }\n        float_val: 2\n",
        "  input: \"AddV2\"\n  input: \"^AddV2\"\n",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    assert!(text.ends_with(&format!(
        "versions {{\n  producer: {GRAPH_DEF_VERSION}\n}}\n"
    )));
    Ok(())
}

#[test]
fn write_graph_writes_text_or_binary_and_names_a_bad_directory() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("weir-graph-def-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let def = small_graph()?.as_graph_def(false)?;
    let text = write_graph(&def, dir.join("sub"), "graph.pbtxt", true)?;
    assert_eq!(std::fs::read_to_string(&text).unwrap(), to_text(&def));
    let bin = write_graph(&def, &dir, "graph.pb", false)?;
    assert_eq!(
        GraphDef::decode(&std::fs::read(&bin).unwrap()[..]).unwrap(),
        def
    );
    // A file where the directory should be.
    let err = write_graph(&def, dir.join("graph.pb"), "g.pbtxt", true).unwrap_err();
    assert!(err.message().contains("graph.pb"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
