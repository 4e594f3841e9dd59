//! A GraphDef written by TensorFlow 2.21 (crates/ops/tests/data/lookup, made by its
//! make_lookup_graph.py) with an `index_table_from_file` table whose vocabulary file is fed
//! through a placeholder, an index-to-string table of the same file, a `StaticHashTable` of
//! constants and a `MutableHashTable`: imported, initialized and run here, compared with the
//! values TensorFlow computed.

use std::path::PathBuf;

use weir_graph::graph_def::{proto::GraphDef, ImportGraphDef, Message};
use weir_graph::{Graph, Tensor};
use weir_ops::import_graph_def;
use weir_session::{RunArgs, Session};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lookup")
        .join(name)
}

#[test]
fn tensorflows_lookup_graph_imports_and_maps_words_as_tensorflow_did() {
    let bytes = std::fs::read(data("lookup_graph.pb")).unwrap();
    let def = GraphDef::decode(&bytes[..]).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
    let op_types = |t: &str| g.operations().iter().filter(|o| o.op_type() == t).count();
    assert_eq!(op_types("HashTableV2"), 3);
    assert_eq!(op_types("MutableHashTableV2"), 1);
    assert_eq!(op_types("InitializeTableFromTextFileV2"), 2);
    let s = Session::new(&g).unwrap();
    let vocab = data("vocab.txt");
    let lines = Tensor::from(vec![
        "lake,3",
        "king,1",
        "emerson,7",
        "crimson,2",
        "tarkus,5",
        "palmer,4",
    ]);
    let feed = |args: RunArgs| {
        args.feed_name("vocab_file:0", vocab.to_str().unwrap())
            .feed_name("lines:0", lines.clone())
    };
    s.run(&feed(RunArgs::new().target_name("init_all_tables")))
        .unwrap();
    let got = s
        .run(&feed(
            RunArgs::new()
                .fetch_name("ids:0")
                .fetch_name("size:0")
                .fetch_name("back:0")
                .fetch_name("weight:0")
                .fetch_name("seen:0"),
        ))
        .unwrap();
    assert_eq!(got[0].to_vec::<i64>().unwrap(), vec![1, 4, 0, 3, 4, 2]);
    assert_eq!(got[1].to_scalar::<i64>().unwrap(), 6);
    assert_eq!(
        got[2].to_strings().unwrap(),
        vec!["lake", "<unk>", "emerson", "crimson", "<unk>", "palmer"]
    );
    assert_eq!(
        got[3].to_vec::<f32>().unwrap(),
        vec![0.5, -1.0, -1.0, -1.0, -1.0, 2.0]
    );
    assert_eq!(got[4].to_vec::<i32>().unwrap(), vec![0; 6]);
    s.run(&feed(
        RunArgs::new().target_name("update/LookupTableInsertV2"),
    ))
    .unwrap();
    let seen = s
        .run(&feed(RunArgs::new().fetch_name("seen:0")))
        .unwrap()
        .remove(0);
    assert_eq!(seen.to_vec::<i32>().unwrap(), vec![3, 1, 7, 2, 5, 4]);
}
