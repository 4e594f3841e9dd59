//! Tables initialized from text files (`TextFileInitializer`, `InitializeTableFromTextFileV2`):
//! the special indices, delimiters, `vocab_size`, offsets, and TensorFlow 2.21's messages for
//! malformed files, naming the file and the line.

use std::path::{Path, PathBuf};

use weir_graph::{Code, DType, Graph, Operation, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::lookup::{MutableHashTable, StaticHashTable, TextFileIndex, TextFileInitializer};
use weir_session::{RunArgs, Session};

const WHOLE: i64 = TextFileIndex::WHOLE_LINE;
const LINE: i64 = TextFileIndex::LINE_NUMBER;

/// A fresh directory for one test's files.
fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-lookup-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, content: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.to_str().unwrap().to_string()
}

fn fetch(s: &Session, t: &Output) -> weir_graph::Result<Tensor> {
    Ok(s.run(&RunArgs::new().fetch(t))?.remove(0))
}

fn run(s: &Session, op: &Operation) -> weir_graph::Result<()> {
    s.run(&RunArgs::new().target(op)).map(|_| ())
}

fn expect_err<T: std::fmt::Debug>(r: weir_graph::Result<T>, code: Code, msg: &str) {
    let e = r.expect_err("expected an error");
    assert_eq!((e.code(), e.message()), (code, msg), "{e}");
}

/// A `StaticHashTable` from `path`, with -1 / "?" / -1.0 as its default.
fn table(
    g: &Graph,
    path: &str,
    kd: DType,
    ki: i64,
    vd: DType,
    vi: i64,
    opts: impl FnOnce(TextFileInitializer) -> TextFileInitializer,
) -> StaticHashTable {
    let init = opts(TextFileInitializer::new(path, kd, ki, vd, vi));
    let default = match vd {
        DType::String => Tensor::from("?"),
        DType::F32 => Tensor::from(-1.0f32),
        _ => Tensor::from(-1i64),
    };
    StaticHashTable::new(g, init, default).unwrap()
}

fn space(i: TextFileInitializer) -> TextFileInitializer {
    i.delimiter(" ")
}

#[test]
fn text_files_fill_tables_by_column_whole_line_and_line_number() {
    let d = temp_dir("fill");
    let vocab = write(&d, "vocab.txt", b"emerson\nlake\npalmer\n");
    let cols = write(&d, "cols.txt", b"emerson 10\nlake 20\npalmer 30");
    let crlf = write(&d, "crlf.txt", b"a\r\nb\r\n");
    let tabs = write(&d, "tabs.txt", b"1\ta\tx\n2\tb\ty\n");
    let i32s = write(&d, "i32.txt", b"a 5\nb 6\n");
    let floats = write(&d, "flt.txt", b"a 0.5\nb 1e3\n");
    let g = Graph::new();
    let t1 = table(&g, &vocab, DType::String, WHOLE, DType::I64, LINE, |i| i);
    let op = t1.resource_handle().op();
    assert_eq!(
        op.attr::<String>("shared_name").unwrap(),
        format!("hash_table_{vocab}_-2_-1")
    );
    let init = t1.initializer();
    assert_eq!(init.name(), "text_file_init/InitializeTableFromTextFileV2");
    let inputs: Vec<String> = init.inputs().iter().map(Output::name).collect();
    assert_eq!(inputs, vec!["hash_table:0", "asset_path:0"]);
    assert_eq!(init.attr::<i64>("vocab_size").unwrap(), -1);
    assert_eq!(init.attr::<String>("delimiter").unwrap(), "\t");
    let t2 = table(&g, &cols, DType::String, 0, DType::I64, 1, space);
    let t3 = table(&g, &crlf, DType::String, WHOLE, DType::I64, LINE, |i| i);
    let t7 = table(&g, &tabs, DType::I64, 0, DType::String, 2, |i| i);
    let t8 = table(&g, &vocab, DType::String, WHOLE, DType::I64, LINE, |i| {
        i.vocab_size(2)
    });
    assert_eq!(
        t8.resource_handle()
            .op()
            .attr::<String>("shared_name")
            .unwrap(),
        format!("hash_table_{vocab}_2_-2_-1")
    );
    let t10 = table(&g, &i32s, DType::String, 0, DType::I32, 1, space);
    let t11 = table(&g, &floats, DType::String, 0, DType::F32, 1, space);
    let t14 = table(&g, &vocab, DType::String, WHOLE, DType::I64, LINE, |i| {
        i.value_index_offset(10)
    });
    assert_eq!(
        t14.resource_handle()
            .op()
            .attr::<String>("shared_name")
            .unwrap(),
        format!("hash_table_{vocab}_-2_-1_10")
    );
    let t15 = table(&g, &i32s, DType::String, 0, DType::I32, 1, |i| {
        space(i).value_index_offset(100)
    });
    let t16 = table(&g, &vocab, DType::I64, LINE, DType::String, WHOLE, |i| i);
    let words = |v: &[&str]| constant(&g, Tensor::from_strings(v)).unwrap();
    let ids = |v: Vec<i64>| constant(&g, v).unwrap();
    let l1 = t1
        .lookup(words(&["lake", "x", "emerson", "palmer"]))
        .unwrap();
    let l2 = t2.lookup(words(&["palmer", "lake", "q"])).unwrap();
    let l3 = t3.lookup(words(&["a", "b", "a\r"])).unwrap();
    let l7 = t7.lookup(ids(vec![0, 1, 2, -1])).unwrap();
    let l8 = t8.lookup(words(&["lake", "palmer"])).unwrap();
    let l10 = t10.lookup(words(&["a", "b", "c"])).unwrap();
    let l11 = t11.lookup(words(&["a", "b"])).unwrap();
    let l14 = t14.lookup(words(&["lake"])).unwrap();
    let l15 = t15.lookup(words(&["a"])).unwrap();
    let l16 = t16.lookup(ids(vec![0, 1, 2, -1])).unwrap();
    let s = Session::new(&g).unwrap();
    run(&s, &weir_ops::lookup::tables_initializer(&g).unwrap()).unwrap();
    let i64s = |o: &Output| fetch(&s, o).unwrap().to_vec::<i64>().unwrap();
    let strs = |o: &Output| fetch(&s, o).unwrap().to_strings().unwrap();
    let size = |t: &StaticHashTable| {
        fetch(&s, &t.size().unwrap())
            .unwrap()
            .to_scalar::<i64>()
            .unwrap()
    };
    assert_eq!((i64s(&l1), size(&t1)), (vec![1, -1, 0, 2], 3));
    assert_eq!((i64s(&l2), size(&t2)), (vec![30, 20, -1], 3));
    assert_eq!((i64s(&l3), size(&t3)), (vec![0, 1, -1], 2));
    assert_eq!(
        (strs(&l7), size(&t7)),
        (vec!["?".into(), "x".into(), "y".into(), "?".into()], 2)
    );
    assert_eq!((i64s(&l8), size(&t8)), (vec![1, -1], 2));
    assert_eq!(
        fetch(&s, &l10).unwrap().to_vec::<i32>().unwrap(),
        vec![5, 6, -1]
    );
    assert_eq!(
        fetch(&s, &l11).unwrap().to_vec::<f32>().unwrap(),
        vec![0.5, 1000.0]
    );
    assert_eq!(i64s(&l14), vec![11]);
    // The offset is added to int32 fields, as TensorFlow adds it.
    assert_eq!(fetch(&s, &l15).unwrap().to_vec::<i32>().unwrap(), vec![105]);
    assert_eq!(strs(&l16), vec!["emerson", "lake", "palmer", "?"]);
    // A table initialized from a file takes a second initialization as done.
    run(&s, &t1.initializer()).unwrap();
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn malformed_files_fail_naming_the_file_and_line_as_tensorflow_does() {
    let d = temp_dir("bad");
    let vocab = write(&d, "vocab.txt", b"emerson\nlake\npalmer\n");
    let empty_line = write(&d, "empty.txt", b"a\nb\n\nc\n");
    let short = write(&d, "short.txt", b"a 1\nb\nc 3\n");
    let bad_int = write(&d, "badint.txt", b"a 1\nb x\n");
    let dup = write(&d, "dup.txt", b"a\nb\na\n");
    let missing = d.join("missing.txt").to_str().unwrap().to_string();
    let g = Graph::new();
    let t4 = table(
        &g,
        &empty_line,
        DType::String,
        WHOLE,
        DType::I64,
        LINE,
        |i| i,
    );
    let t5 = table(&g, &short, DType::String, 0, DType::I64, 1, space);
    let t6 = table(&g, &bad_int, DType::String, 0, DType::I64, 1, space);
    let t9 = table(&g, &vocab, DType::String, WHOLE, DType::I64, LINE, |i| {
        i.vocab_size(5)
    });
    let t12 = table(&g, &dup, DType::String, WHOLE, DType::I64, LINE, |i| i);
    let t13 = table(&g, &missing, DType::String, WHOLE, DType::I64, LINE, |i| i);
    let s = Session::new(&g).unwrap();
    let init = |t: &StaticHashTable| run(&s, &t.initializer());
    expect_err(
        init(&t4),
        Code::InvalidArgument,
        &format!("Invalid content in {empty_line}: empty line found at position 5."),
    );
    let lookup = t4.lookup(constant(&g, ["a"]).unwrap()).unwrap();
    expect_err(
        fetch(&s, &lookup),
        Code::FailedPrecondition,
        "Table not initialized.",
    );
    assert_eq!(
        fetch(&s, &t4.size().unwrap())
            .unwrap()
            .to_scalar::<i64>()
            .unwrap(),
        0
    );
    expect_err(
        init(&t5),
        Code::InvalidArgument,
        &format!("Invalid number of columns in {short} line 1 (b) : expected at least 2 got 1"),
    );
    expect_err(
        init(&t6),
        Code::InvalidArgument,
        "Field x in line 1 is not a valid int64.",
    );
    expect_err(
        init(&t9),
        Code::InvalidArgument,
        &format!("Invalid vocab_size in {vocab}: expected 5 but got 3"),
    );
    expect_err(
        init(&t12),
        Code::FailedPrecondition,
        "HashTable has different value for same key. Key a has 0 and trying to add value 2",
    );
    expect_err(
        init(&t13),
        Code::NotFound,
        &format!("{missing}; No such file or directory"),
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// A `HashTableV2` op of string keys and `value` values, shared under `name`.
fn raw_table(g: &Graph, value: DType, name: &str) -> Output {
    weir_ops::register_all_ops();
    g.new_operation("HashTableV2")
        .attr("key_dtype", DType::String)
        .attr("value_dtype", value)
        .attr("shared_name", name)
        .build()
        .unwrap()
        .output(0)
        .unwrap()
}

fn raw_init(h: &Output, file: &Output, ki: i64, vi: i64, extra: &[(&str, i64)]) -> Operation {
    let mut b = h
        .graph()
        .new_operation("InitializeTableFromTextFileV2")
        .input(h)
        .input(file)
        .attr("key_index", ki)
        .attr("value_index", vi);
    for (k, v) in extra {
        b = b.attr(k, *v);
    }
    b.build().unwrap()
}

#[test]
fn the_init_op_checks_its_file_name_dtypes_and_lines() {
    let d = temp_dir("raw");
    let vocab = write(&d, "vocab.txt", b"emerson\nlake\npalmer\n");
    let empty = write(&d, "empty.txt", b"");
    let newline = write(&d, "nl.txt", b"\n");
    let i64s = write(&d, "i64.txt", b"a 5\nb 6\n");
    let spaces = write(&d, "ws.txt", b"a  7 \nb +8\n");
    let g = Graph::new();
    let fname = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let h = raw_table(&g, DType::I64, "h");
    let init = raw_init(&h, &fname, WHOLE, LINE, &[]);
    let size = g
        .new_operation("LookupTableSizeV2")
        .input(&h)
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    let s = Session::new(&g).unwrap();
    let with = |f: Tensor| {
        s.run(&RunArgs::new().target(&init).feed(&fname, f))
            .map(|_| ())
    };
    expect_err(
        with(Tensor::from(empty.as_str())),
        Code::OutOfRange,
        "Read less bytes than requested",
    );
    assert_eq!(fetch(&s, &size).unwrap().to_scalar::<i64>().unwrap(), 0);
    expect_err(
        with(Tensor::from(newline.as_str())),
        Code::InvalidArgument,
        &format!("Invalid content in {newline}: empty line found at position 1."),
    );
    expect_err(
        with(Tensor::from("")),
        Code::InvalidArgument,
        "filename cannot be empty.",
    );
    expect_err(
        with(Tensor::from(vec!["a"])),
        Code::InvalidArgument,
        "filename should be a single string, but got [1]",
    );
    let dir = d.to_str().unwrap();
    expect_err(
        with(Tensor::from(dir)),
        Code::FailedPrecondition,
        &format!("{dir}; Is a directory"),
    );
    with(Tensor::from(vocab.as_str())).unwrap();
    assert_eq!(fetch(&s, &size).unwrap().to_scalar::<i64>().unwrap(), 3);

    // int64 fields get no offset; int32 fields parse as TensorFlow's safe_strto32.
    let h2 = raw_table(&g, DType::I64, "h2");
    let f2 = constant(&g, i64s.as_str()).unwrap();
    let init2 = g
        .new_operation("InitializeTableFromTextFileV2")
        .input(&h2)
        .input(&f2)
        .attr("key_index", 0i64)
        .attr("value_index", 1i64)
        .attr("delimiter", " ")
        .attr("offset", 100i64)
        .build()
        .unwrap();
    run(&s, &init2).unwrap();
    let find = g
        .new_operation("LookupTableFindV2")
        .input(&h2)
        .input(constant(&g, ["a", "b"]).unwrap())
        .input(constant(&g, -1i64).unwrap())
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    assert_eq!(
        fetch(&s, &find).unwrap().to_vec::<i64>().unwrap(),
        vec![5, 6]
    );
    let h3 = raw_table(&g, DType::I32, "h3");
    let f3 = constant(&g, spaces.as_str()).unwrap();
    let init3 = g
        .new_operation("InitializeTableFromTextFileV2")
        .input(&h3)
        .input(&f3)
        .attr("key_index", 0i64)
        .attr("value_index", 1i64)
        .attr("delimiter", " ")
        .build()
        .unwrap();
    expect_err(
        run(&s, &init3),
        Code::InvalidArgument,
        "Field  in line 0 is not a valid int32.",
    );

    let strings = raw_table(&g, DType::String, "strings");
    let f = constant(&g, vocab.as_str()).unwrap();
    expect_err(
        run(&s, &raw_init(&strings, &f, LINE, WHOLE, &[])),
        Code::InvalidArgument,
        "Key index for line number requires table key dtype of int64, got string",
    );
    expect_err(
        run(&s, &raw_init(&strings, &f, WHOLE, LINE, &[])),
        Code::InvalidArgument,
        "Value index for line number requires table value dtype of int64, got string",
    );
    let floats = raw_table(&g, DType::F32, "floats");
    expect_err(
        run(&s, &raw_init(&floats, &f, WHOLE, WHOLE, &[])),
        Code::InvalidArgument,
        "Value index for whole line requires table value dtype of integer or string, got float",
    );
    let two = g
        .new_operation("InitializeTableFromTextFileV2")
        .input(&strings)
        .input(&f)
        .attr("key_index", WHOLE)
        .attr("value_index", WHOLE)
        .attr("delimiter", "ab")
        .build()
        .unwrap();
    expect_err(
        run(&s, &two),
        Code::InvalidArgument,
        "delimiter should be only 1 char",
    );
    let m = MutableHashTable::new(&g, DType::String, DType::I64, -1).unwrap();
    expect_err(
        run(&s, &raw_init(m.resource_handle(), &f, WHOLE, LINE, &[])),
        Code::InvalidArgument,
        "Table localhost MutableHashTable is not initializable",
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_initializers_arguments_are_checked_as_python_checks_them() {
    let g = Graph::new();
    let check = |kd: DType, ki: i64, vd: DType, vi: i64, size: Option<i64>, msg: &str| {
        let mut i = TextFileInitializer::new("vocab.txt", kd, ki, vd, vi);
        if let Some(n) = size {
            i = i.vocab_size(n);
        }
        expect_err(StaticHashTable::new(&g, i, 0), Code::InvalidArgument, msg);
    };
    let s = DType::String;
    check(
        s,
        -3,
        DType::I64,
        LINE,
        None,
        "`key_index` should be >= -2, received: -3.",
    );
    check(
        s,
        LINE,
        DType::I64,
        LINE,
        None,
        "`key_dtype` must be int64 if `key_index` is -1, received: <dtype: 'string'>",
    );
    check(
        DType::F32,
        WHOLE,
        DType::I64,
        LINE,
        None,
        "`key_dtype` should be either integer or string for `key_index` -2, received: <dtype: 'float32'>",
    );
    check(
        s,
        WHOLE,
        DType::I64,
        -3,
        None,
        "`value_index` should be >= -2, received: -3",
    );
    check(
        s,
        WHOLE,
        s,
        LINE,
        None,
        "`value_dtype` must be int64 for `value_index` -1, received: <dtype: 'string'>",
    );
    check(
        s,
        WHOLE,
        DType::F32,
        WHOLE,
        None,
        "`value_dtype` should be either integer or string for `value_index` -2, received: <dtype: 'float32'>",
    );
    check(
        s,
        WHOLE,
        DType::I64,
        LINE,
        Some(0),
        "`vocab_size` should be > 0, received: 0",
    );
    expect_err(
        StaticHashTable::new(
            &g,
            TextFileInitializer::new("", s, WHOLE, DType::I64, LINE),
            0,
        ),
        Code::InvalidArgument,
        "`filename` argument required for tf.lookup.TextFileInitializer",
    );
}
