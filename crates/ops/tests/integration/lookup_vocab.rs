//! Vocabulary tables of input pipelines: `StaticVocabularyTable`, `index_table_from_tensor`,
//! `index_table_from_file` and the index-to-string tables, with the out-of-vocabulary bucket
//! ids, op names and messages TensorFlow 2.21 gives for the same graphs.

use std::path::PathBuf;

use weir_graph::{Bytes, Code, DType, Graph, Operation, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::lookup::{
    index_table_from_file, index_table_from_tensor, index_to_string_table_from_file,
    index_to_string_table_from_tensor, tables_initializer, IndexTable, IndexTableFromFile,
    IndexTableFromTensor, IndexToStringTableFromFile, KeyValueTensorInitializer,
    StaticVocabularyTable,
};
use weir_ops::parsing::decode_csv;
use weir_session::{RunArgs, Session};

fn vocab_file(tag: &str, content: &[u8]) -> (PathBuf, String) {
    let d = std::env::temp_dir().join(format!("weir-lookup-vocab-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("vocab.txt");
    std::fs::write(&p, content).unwrap();
    let path = p.to_str().unwrap().to_string();
    (d, path)
}

fn fetch(s: &Session, t: &Output) -> Tensor {
    s.run(&RunArgs::new().fetch(t)).unwrap().remove(0)
}

fn i64s(s: &Session, t: &Output) -> Vec<i64> {
    fetch(s, t).to_vec::<i64>().unwrap()
}

fn size(s: &Session, t: &Output) -> i64 {
    fetch(s, t).to_scalar::<i64>().unwrap()
}

fn init_all(g: &Graph, s: &Session) {
    s.run(&RunArgs::new().target(&tables_initializer(g).unwrap()))
        .unwrap();
}

fn expect_err<T: std::fmt::Debug>(r: weir_graph::Result<T>, msg: &str) {
    let e = r.expect_err("expected an error");
    assert_eq!((e.code(), e.message()), (Code::InvalidArgument, msg), "{e}");
}

fn names_since(g: &Graph, n: usize) -> Vec<String> {
    g.operations()[n..].iter().map(Operation::name).collect()
}

const WORDS: [&str; 12] = [
    "emerson",
    "lake",
    "palmer",
    "king",
    "crimson",
    "",
    "tarkus",
    "black",
    "moon",
    "a",
    "hello world",
    "The quick brown fox jumps over the lazy dog",
];

#[test]
fn out_of_vocabulary_keys_get_tensorflows_bucket_ids() {
    let g = Graph::new();
    let init = KeyValueTensorInitializer::new(["emerson", "lake", "palmer"], [0i64, 1, 2]);
    let vt = StaticVocabularyTable::new(&g, init, 5).unwrap();
    assert_eq!(vt.name(), "hash_table");
    assert_eq!(
        vt.initializer().name(),
        "key_value_init/LookupTableImportV2"
    );
    let words = constant(&g, WORDS).unwrap();
    let n = g.num_nodes();
    let ids = vt.lookup(&words).unwrap();
    assert_eq!(
        names_since(&g, n),
        vec![
            "hash_table_Lookup/hash_bucket",
            "hash_table_Lookup/hash_table_Lookup/LookupTableFindV2",
            "hash_table_Lookup/hash_table_Size/LookupTableSizeV2",
            "hash_table_Lookup/Add",
            "hash_table_Lookup/NotEqual",
            "hash_table_Lookup/SelectV2",
        ]
    );
    assert_eq!(ids.shape(), Shape::known(&[12]));
    let sz = vt.size().unwrap();
    assert_eq!(sz.name(), "hash_table_Size/add:0");
    let hashed = StaticVocabularyTable::with_options(&g, None, 7, None, None).unwrap();
    assert_eq!(hashed.name(), "hash_bucket");
    assert_eq!(hashed.initializer().name(), "init/NoOp");
    let ids2 = hashed.lookup(&words).unwrap();
    let sz2 = hashed.size().unwrap();
    let ints = StaticVocabularyTable::new(
        &g,
        KeyValueTensorInitializer::new([10i64, 20], [0i64, 1]),
        3,
    )
    .unwrap();
    let ids3 = ints
        .lookup(constant(&g, vec![10i64, 20, 30, -5, 12345678901]).unwrap())
        .unwrap();
    let int32s = StaticVocabularyTable::with_options(
        &g,
        Some(KeyValueTensorInitializer::new([10i64, 20], [0i64, 1]).into()),
        3,
        Some(DType::I32),
        None,
    )
    .unwrap();
    let ids4 = int32s
        .lookup(constant(&g, vec![10i32, 20, 30, -5]).unwrap())
        .unwrap();
    let many = StaticVocabularyTable::with_options(&g, None, 1000, None, None).unwrap();
    let long = |c: char, n: usize| c.to_string().repeat(n);
    let spread: Vec<String> = [
        "",
        "a",
        "ab",
        "abc",
        "abcd",
        "hello",
        "0123456789abcdef",
        "0123456789abcdefghij",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        long('x', 40),
        long('y', 70),
        long('z', 200),
        "naïve".to_string(),
    ])
    .collect();
    let ids5 = many.lookup(constant(&g, spread).unwrap()).unwrap();

    let s = Session::new(&g).unwrap();
    init_all(&g, &s);
    assert_eq!(i64s(&s, &ids), vec![0, 1, 2, 6, 7, 6, 7, 4, 3, 7, 4, 7]);
    assert_eq!(size(&s, &sz), 8);
    assert_eq!(i64s(&s, &ids2), vec![1, 6, 3, 6, 1, 6, 3, 5, 6, 5, 0, 0]);
    assert_eq!(size(&s, &sz2), 7);
    assert_eq!(i64s(&s, &ids3), vec![0, 1, 4, 2, 2]);
    assert_eq!(i64s(&s, &ids4), vec![0, 1, 4, 2]);
    assert_eq!(
        i64s(&s, &ids5),
        vec![263, 939, 502, 385, 985, 296, 263, 819, 852, 122, 92, 233]
    );

    let bad = |r: weir_graph::Result<StaticVocabularyTable>, msg: &str| expect_err(r, msg);
    bad(
        StaticVocabularyTable::new(&g, KeyValueTensorInitializer::new(["a"], [0i64]), 0),
        "`num_oov_buckets` must be > 0; use StaticHashTable.",
    );
    bad(
        StaticVocabularyTable::new(&g, KeyValueTensorInitializer::new(["a"], [1.0f32]), 1),
        "Invalid `value_dtype`, expected <dtype: 'int64'> but got <dtype: 'float32'>.",
    );
    bad(
        StaticVocabularyTable::new(&g, KeyValueTensorInitializer::new([1i32], [1i64]), 1),
        "Invalid `key_dtype`, expected one of (tf.int64, tf.string), but got <dtype: 'int32'>.",
    );
    expect_err(
        vt.lookup(constant(&g, vec![1i64]).unwrap()),
        "Dtype of argument `keys` must be <dtype: 'string'>, received: <dtype: 'int64'>",
    );
}

#[test]
fn index_tables_from_tensors_map_keys_to_positions() {
    let g = Graph::new();
    let vocabulary = constant(&g, ["emerson", "lake", "palmer"]).unwrap();
    let n = g.num_nodes();
    let t = index_table_from_tensor(&g, &vocabulary, 1).unwrap();
    assert_eq!(
        names_since(&g, n),
        vec![
            "string_to_index/Size",
            "string_to_index/range/start",
            "string_to_index/range/delta",
            "string_to_index/range",
            "string_to_index/Cast",
            "string_to_index/hash_table/Const",
            "string_to_index/hash_table/hash_table",
            "string_to_index/hash_table/table_init/LookupTableImportV2",
        ]
    );
    assert!(matches!(t, IndexTable::Hashed(_)));
    assert_eq!(t.name(), "hash_table");
    let ids = t
        .lookup(constant(&g, ["emerson", "lake", "and", "palmer"]).unwrap())
        .unwrap();
    assert_eq!(ids.name(), "hash_table_Lookup/SelectV2:0");
    let t2 = IndexTableFromTensor::new(["emerson", "lake", "palmer"])
        .default_value(-7)
        .build(&g)
        .unwrap();
    assert!(matches!(t2, IndexTable::Static(_)));
    let ids2 = t2
        .lookup(constant(&g, ["emerson", "lake", "and", "palmer"]).unwrap())
        .unwrap();
    assert_eq!(ids2.name(), "hash_table_Lookup_1/LookupTableFindV2:0");
    let t4 = index_to_string_table_from_tensor(&g, ["emerson", "lake", "palmer"], "UNKNOWN", None)
        .unwrap();
    let s4 = t4
        .lookup(constant(&g, vec![1i64, 5, 0, -1]).unwrap())
        .unwrap();
    let t6 = IndexTableFromTensor::new(vec![5i64, 9, 42])
        .num_oov_buckets(2)
        .dtype(DType::I64)
        .build(&g)
        .unwrap();
    let ids6 = t6
        .lookup(constant(&g, vec![9i64, 7, 42, 100]).unwrap())
        .unwrap();
    // Integer keys of another width are cast and hashed as their decimal strings.
    let t7 = IndexTableFromTensor::new(constant(&g, vec![5i32, 9, 42]).unwrap())
        .num_oov_buckets(2)
        .dtype(DType::I32)
        .build(&g)
        .unwrap();
    let n = g.num_nodes();
    let ids7 = t7
        .lookup(constant(&g, vec![9i32, 7, 42, 100]).unwrap())
        .unwrap();
    assert_eq!(
        names_since(&g, n),
        vec![
            "Const_6",
            "Cast",
            "hash_table_Lookup_4/AsString",
            "hash_table_Lookup_4/hash_bucket",
            "hash_table_Lookup_4/hash_table_Lookup/LookupTableFindV2",
            "hash_table_Lookup_4/hash_table_Size/LookupTableSizeV2",
            "hash_table_Lookup_4/Add",
            "hash_table_Lookup_4/NotEqual",
            "hash_table_Lookup_4/SelectV2",
        ]
    );
    let n = g.num_nodes();
    let sz7 = t7.size().unwrap();
    assert_eq!(
        names_since(&g, n),
        vec![
            "hash_table_Size/hash_table_Size/LookupTableSizeV2",
            "hash_table_Size/add/y",
            "hash_table_Size/add",
        ]
    );
    // Without buckets the table keeps int64 keys, as TensorFlow's does.
    let t8 = IndexTableFromTensor::new(vec![5i32, 9, 42])
        .dtype(DType::I32)
        .build(&g)
        .unwrap();
    assert_eq!(t8.key_dtype(), DType::I64);
    let ids8 = t8.lookup(constant(&g, vec![9i64, 7, 42]).unwrap()).unwrap();

    let s = Session::new(&g).unwrap();
    init_all(&g, &s);
    assert_eq!(i64s(&s, &ids), vec![0, 1, 3, 2]);
    assert_eq!(i64s(&s, &ids2), vec![0, 1, -7, 2]);
    assert_eq!(
        fetch(&s, &s4).to_strings().unwrap(),
        vec!["lake", "UNKNOWN", "emerson", "UNKNOWN"]
    );
    assert_eq!(i64s(&s, &ids6), vec![1, 3, 2, 4]);
    assert_eq!(i64s(&s, &ids7), vec![1, 3, 2, 4]);
    assert_eq!(size(&s, &sz7), 5);
    assert_eq!(i64s(&s, &ids8), vec![1, -1, 2]);
    assert_eq!(size(&s, &t.size().unwrap()), 4);
    assert_eq!(size(&s, &t4.size().unwrap()), 3);

    expect_err(
        index_table_from_tensor(&g, ["a"], -1),
        "`num_oov_buckets` must be greater or equal than 0, got -1.",
    );
    expect_err(
        IndexTableFromTensor::new(["a"]).dtype(DType::I64).build(&g),
        "Invalid `dtype`: Expected integer, got <dtype: 'string'>.",
    );
    expect_err(
        IndexTableFromTensor::new(["a"]).dtype(DType::F32).build(&g),
        "`dtype` must either be integer or string.",
    );
}

#[test]
fn index_tables_from_files_read_the_vocabulary_with_buckets_after_it() {
    let (dir, path) = vocab_file("files", b"emerson\nlake\npalmer\n");
    let g = Graph::new();
    let t3 = index_table_from_file(&g, path.as_str(), 2).unwrap();
    assert_eq!(
        t3.initializer().name(),
        "string_to_index/hash_table/table_init/InitializeTableFromTextFileV2"
    );
    let ids3 = t3
        .lookup(constant(&g, ["emerson", "lake", "and", "palmer", "king"]).unwrap())
        .unwrap();
    let t3b = index_table_from_file(&g, path.as_str(), 0).unwrap();
    let ids3b = t3b.lookup(constant(&g, ["emerson", "x"]).unwrap()).unwrap();
    let n = g.num_nodes();
    let named = IndexTableFromFile::new("/nonexist")
        .num_oov_buckets(1)
        .vocab_size(3)
        .name("vocab")
        .build(&g)
        .unwrap();
    assert_eq!(
        names_since(&g, n),
        vec![
            "vocab/hash_table/asset_path",
            "vocab/hash_table/Const",
            "vocab/hash_table/hash_table",
            "vocab/hash_table/table_init/InitializeTableFromTextFileV2",
        ]
    );
    let IndexTable::Hashed(h) = &named else {
        panic!("expected buckets")
    };
    let inner = h.table().unwrap().resource_handle().op();
    assert_eq!(
        inner.attr::<String>("shared_name").unwrap(),
        "hash_table_/nonexist_3_-2_-1"
    );
    let t5 = index_to_string_table_from_file(&g, path.as_str()).unwrap();
    assert_eq!(
        t5.initializer().name(),
        "index_to_string/table_init/InitializeTableFromTextFileV2"
    );
    let grid = constant(&g, Tensor::from_vec(&[1, 2], vec![2i64, 3]).unwrap()).unwrap();
    let s5 = t5.lookup(&grid).unwrap();
    assert_eq!(s5.shape(), Shape::known(&[1, 2]));
    // A file name fed at run time.
    let fed = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let t6 = IndexTableFromFile::new(&fed)
        .num_oov_buckets(1)
        .build(&g)
        .unwrap();
    let IndexTable::Hashed(h6) = &t6 else {
        panic!("expected buckets")
    };
    assert_eq!(
        h6.table()
            .unwrap()
            .resource_handle()
            .op()
            .attr::<String>("shared_name")
            .unwrap(),
        "hash_table_Tensor(\"Placeholder:0\", shape=(), dtype=string)_-2_-1"
    );
    let ids6 = t6.lookup(constant(&g, ["palmer", "zz"]).unwrap()).unwrap();
    let words = IndexToStringTableFromFile::new(&fed)
        .default_value("<unk>")
        .build(&g)
        .unwrap()
        .lookup(constant(&g, vec![0i64, 7]).unwrap())
        .unwrap();

    let s = Session::new(&g).unwrap();
    s.run(
        &RunArgs::new()
            .target(&t3.initializer())
            .target(&t3b.initializer())
            .target(&t5.initializer())
            .target(&t6.initializer())
            .feed(&fed, path.as_str()),
    )
    .unwrap();
    assert_eq!(i64s(&s, &ids3), vec![0, 1, 4, 2, 3]);
    assert_eq!(i64s(&s, &ids3b), vec![0, -1]);
    assert_eq!(fetch(&s, &s5).to_strings().unwrap(), vec!["palmer", "UNK"]);
    assert_eq!(size(&s, &t3.size().unwrap()), 5);
    assert_eq!(i64s(&s, &ids6), vec![2, 3]);
    let e = s.run(&RunArgs::new().fetch(&words)).unwrap_err();
    assert_eq!(e.message(), "Table not initialized.");
    s.run(
        &RunArgs::new()
            .target(&tables_initializer(&g).unwrap())
            .feed(&fed, path.as_str()),
    )
    .unwrap_err(); // the "/nonexist" table fails
    std::fs::remove_dir_all(&dir).unwrap();

    let ints = vocab_file("ints", b"100\n-7\n42\n");
    let t9 = IndexTableFromFile::new(ints.1.as_str())
        .key_dtype(DType::I64)
        .num_oov_buckets(3)
        .build(&g)
        .unwrap();
    let ids9 = t9
        .lookup(constant(&g, vec![42i64, 100, 5, -7, 0]).unwrap())
        .unwrap();
    let s = Session::new(&g).unwrap();
    s.run(&RunArgs::new().target(&t9.initializer())).unwrap();
    assert_eq!(i64s(&s, &ids9), vec![2, 0, 4, 1, 4]);
    std::fs::remove_dir_all(&ints.0).unwrap();

    expect_err(
        index_table_from_file(&g, "", 0),
        "`vocabulary_file` must be specified and must not be empty.",
    );
    expect_err(
        IndexTableFromFile::new(path.as_str())
            .vocab_size(0)
            .build(&g),
        &format!("`vocab_size` must be greater than 0, got 0 for vocabulary_file: {path}."),
    );
    expect_err(
        index_table_from_file(&g, path.as_str(), -1),
        "num_oov_buckets must be greater or equal than 0, got -1.",
    );
    expect_err(
        IndexToStringTableFromFile::new(path.as_str())
            .vocab_size(0)
            .build(&g),
        "`vocab_size` must be greater than 0, got 0.",
    );
}

#[test]
fn a_batch_of_strings_from_decode_csv_maps_to_ids() {
    let (dir, path) = vocab_file("csv", b"emerson\nlake\npalmer\ncrimson\n");
    let g = Graph::new();
    let lines = placeholder(&g, DType::String, Shape::new(vec![None])).unwrap();
    let cols = decode_csv(
        &lines,
        [
            constant(&g, vec![""]).unwrap(),
            constant(&g, vec![0i32]).unwrap(),
        ],
    )
    .unwrap();
    let table = index_table_from_file(&g, path.as_str(), 2).unwrap();
    let ids = table.lookup(&cols[0]).unwrap();
    assert_eq!(ids.shape(), Shape::new(vec![None]));
    let words = index_to_string_table_from_file(&g, path.as_str())
        .unwrap()
        .lookup(&ids)
        .unwrap();
    let grid_lines = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let grid_cols = decode_csv(
        &grid_lines,
        [
            constant(&g, vec![""]).unwrap(),
            constant(&g, vec![0i32]).unwrap(),
        ],
    )
    .unwrap();
    let small = index_table_from_tensor(&g, ["emerson", "lake", "palmer"], 4).unwrap();
    let grid_ids = small.lookup(&grid_cols[0]).unwrap();

    let s = Session::new(&g).unwrap();
    init_all(&g, &s);
    let batch = Tensor::from(vec![
        "lake,3",
        "king,1",
        "emerson,7",
        "crimson,2",
        "tarkus,5",
        "palmer,4",
    ]);
    let got = s
        .run(&RunArgs::new().fetch(&ids).fetch(&words).feed(&lines, batch))
        .unwrap();
    assert_eq!(got[0].to_vec::<i64>().unwrap(), vec![1, 4, 0, 3, 4, 2]);
    assert_eq!(
        got[1].to_strings().unwrap(),
        vec!["lake", "UNK", "emerson", "crimson", "UNK", "palmer"]
    );
    let grid = Tensor::from_vec(
        &[2, 2],
        ["lake,3", "king,1", "emerson,7", "moon,2"]
            .map(Bytes::from)
            .to_vec(),
    )
    .unwrap();
    let got = s
        .run(&RunArgs::new().fetch(&grid_ids).feed(&grid_lines, grid))
        .unwrap();
    assert_eq!(got[0].shape(), &[2, 2]);
    assert_eq!(got[0].to_vec::<i64>().unwrap(), vec![1, 5, 0, 5]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sparse_keys_from_string_split_keep_their_indices() {
    let g = Graph::new();
    let lines = constant(&g, ["emerson lake", "palmer king"]).unwrap();
    let tokens = weir_ops::string::string_split(&lines, " ").unwrap();
    let table = index_table_from_tensor(&g, ["emerson", "lake", "palmer"], 1).unwrap();
    let ids = table.lookup_sparse(&tokens).unwrap();
    let s = Session::new(&g).unwrap();
    init_all(&g, &s);
    let got = s
        .run(
            &RunArgs::new()
                .fetch(&ids.indices)
                .fetch(&ids.values)
                .fetch(&ids.dense_shape),
        )
        .unwrap();
    assert_eq!(
        got[0].to_vec::<i64>().unwrap(),
        vec![0, 0, 0, 1, 1, 0, 1, 1]
    );
    assert_eq!(got[1].to_vec::<i64>().unwrap(), vec![0, 1, 2, 3]);
    assert_eq!(got[2].to_vec::<i64>().unwrap(), vec![2, 2]);
}
