//! Mutable lookup tables (`MutableHashTable`, `MutableHashTableOfTensorsV2`), tables shared by
//! name, and the ops each kind of table refuses, with TensorFlow 2.21's values and messages.

use weir_graph::{Bytes, Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::lookup::MutableHashTable;
use weir_session::{RunArgs, Session};

use crate::lookup_util::{
    expect_err, fetch, fetch_fed, raw_find, raw_op, run, run_fed, sorted_pairs, strings,
};

#[test]
fn a_mutable_hash_table_inserts_finds_removes_and_exports() {
    let g = Graph::new();
    let m = MutableHashTable::new(&g, DType::String, DType::I64, -1).unwrap();
    assert_eq!(m.name(), "MutableHashTable");
    let op = m.resource_handle().op();
    assert_eq!(op.op_type(), "MutableHashTableV2");
    assert!(op.attr::<bool>("use_node_name_sharing").unwrap());
    let ins = m
        .insert(
            constant(&g, ["a", "b", "c"]).unwrap(),
            constant(&g, vec![1i64, 2, 3]).unwrap(),
        )
        .unwrap();
    assert_eq!(
        ins.name(),
        "MutableHashTable_lookup_table_insert/LookupTableInsertV2"
    );
    let grid = Tensor::from_vec(&[2, 2], ["a", "z", "c", "b"].map(Bytes::from).to_vec()).unwrap();
    let lk = m.lookup(constant(&g, grid).unwrap()).unwrap();
    assert_eq!(
        lk.name(),
        "MutableHashTable_lookup_table_find/LookupTableFindV2:0"
    );
    assert_eq!(lk.shape(), Shape::known(&[2, 2]));
    let rm = m.remove(constant(&g, ["b", "q"]).unwrap()).unwrap();
    assert_eq!(
        rm.name(),
        "MutableHashTable_lookup_table_remove/LookupTableRemoveV2"
    );
    let sz = m.size().unwrap();
    assert_eq!(sz.name(), "MutableHashTable_Size/LookupTableSizeV2:0");
    // The saver's export took the first name when the table was made.
    let (ek, ev) = m.export().unwrap();
    assert_eq!(
        ek.name(),
        "MutableHashTable_lookup_table_export_values_1/LookupTableExportV2:0"
    );
    let dd = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let lk2 = m
        .lookup_with_defaults(constant(&g, ["a", "z", "y"]).unwrap(), &dd)
        .unwrap();
    assert_eq!(
        lk2.name(),
        "MutableHashTable_lookup_table_find_1/LookupTableFindV2:0"
    );

    let s = Session::new(&g).unwrap();
    let export = || {
        let kv = s.run(&RunArgs::new().fetch(&ek).fetch(&ev)).unwrap();
        sorted_pairs(&kv[0], &kv[1])
    };
    assert_eq!(
        fetch(&s, &lk).unwrap().to_vec::<i64>().unwrap(),
        vec![-1; 4]
    );
    assert_eq!(fetch(&s, &sz).unwrap().to_scalar::<i64>().unwrap(), 0);
    assert_eq!(export(), vec![]);
    run(&s, &ins).unwrap();
    assert_eq!(
        fetch(&s, &lk).unwrap().to_vec::<i64>().unwrap(),
        vec![1, -1, 3, 2]
    );
    assert_eq!(fetch(&s, &sz).unwrap().to_scalar::<i64>().unwrap(), 3);
    run(&s, &rm).unwrap();
    assert_eq!(
        fetch(&s, &lk).unwrap().to_vec::<i64>().unwrap(),
        vec![1, -1, 3, -1]
    );
    assert_eq!(fetch(&s, &sz).unwrap().to_scalar::<i64>().unwrap(), 2);
    assert_eq!(export(), vec![("a".into(), 1), ("c".into(), 3)]);
    let with = |d: Tensor| fetch_fed(&s, &lk2, &[(&dd, d)]);
    assert_eq!(
        with(Tensor::from(7i64)).unwrap().to_vec::<i64>().unwrap(),
        vec![1, 7, 7]
    );
    assert_eq!(
        with(Tensor::from(vec![7i64, 8, 9]))
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![1, 8, 9]
    );
    expect_err(
        with(Tensor::from(vec![7i64, 8])),
        Code::InvalidArgument,
        "Expected shape [] or [3] for default value, got [2]",
    );

    let h = m.resource_handle();
    let two = constant(&g, ["a", "b"]).unwrap();
    let bad_ins = raw_op(
        h,
        "LookupTableInsertV2",
        &[&two, &constant(&g, vec![1i64]).unwrap()],
    );
    expect_err(
        run(&s, &bad_ins),
        Code::InvalidArgument,
        "Expected shape [2] for value, got [1]",
    );
    let bad_ins2 = raw_op(
        h,
        "LookupTableInsertV2",
        &[&two, &constant(&g, vec![1i32, 2]).unwrap()],
    );
    expect_err(
        run(&s, &bad_ins2),
        Code::InvalidArgument,
        "Signature mismatch, have: resource, string, int32-> expected: resource, string, int64->",
    );
    let bad_rm = raw_op(
        h,
        "LookupTableRemoveV2",
        &[&constant(&g, vec![1i64]).unwrap()],
    );
    expect_err(
        run(&s, &bad_rm),
        Code::InvalidArgument,
        "Signature mismatch, have: resource, int64-> expected: resource, string->",
    );
    // Import replaces every entry.
    run(&s, &m.import(["x"], [9i64]).unwrap()).unwrap();
    assert_eq!(export(), vec![("x".into(), 9)]);
    let s2 = Session::new(&g).unwrap();
    assert_eq!(fetch(&s2, &sz).unwrap().to_scalar::<i64>().unwrap(), 0);
}

#[test]
fn a_mutable_table_of_vectors_and_its_options() {
    let g = Graph::new();
    let m = MutableHashTable::builder(DType::String, DType::F32, vec![0.0f32, 0.0])
        .name("vecs")
        .build(&g)
        .unwrap();
    let op = m.resource_handle().op();
    assert_eq!(op.op_type(), "MutableHashTableOfTensorsV2");
    assert_eq!(op.attr::<Shape>("value_shape").unwrap(), Shape::known(&[2]));
    let ins = m
        .insert(["a"], Tensor::from_vec(&[1, 2], vec![1.0f32, 2.0]).unwrap())
        .unwrap();
    let keys = Tensor::from_vec(&[1, 2], vec![Bytes::from("a"), Bytes::from("b")]).unwrap();
    let found = m.lookup(keys).unwrap();
    assert_eq!(found.shape(), Shape::known(&[1, 2, 2]));
    let (ek, ev) = m.export().unwrap();
    let plain = MutableHashTable::builder(DType::I64, DType::String, "none")
        .checkpoint(false)
        .build(&g)
        .unwrap();
    assert_eq!(plain.name(), "MutableHashTable");
    assert!(!plain
        .resource_handle()
        .op()
        .attr::<bool>("use_node_name_sharing")
        .unwrap());
    let s = Session::new(&g).unwrap();
    run(&s, &ins).unwrap();
    let got = fetch(&s, &found).unwrap();
    assert_eq!(got.shape(), &[1, 2, 2]);
    assert_eq!(got.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 0.0, 0.0]);
    let kv = s.run(&RunArgs::new().fetch(&ek).fetch(&ev)).unwrap();
    assert_eq!(strings(&kv[0]), vec!["a"]);
    assert_eq!(
        (kv[1].shape(), kv[1].to_vec::<f32>().unwrap()),
        (&[1usize, 2][..], vec![1.0, 2.0])
    );
    expect_err(
        m.lookup(constant(&g, vec![1i64]).unwrap()),
        Code::InvalidArgument,
        "keys: Tensor conversion requested dtype string for Tensor with dtype int64: <tf.Tensor 'Const_2:0' shape=(1,) dtype=int64>",
    );
    expect_err(
        m.remove(constant(&g, vec![1i64]).unwrap()),
        Code::InvalidArgument,
        "Dtype of argument `keys` must be <dtype: 'string'>, received: <dtype: 'int64'>",
    );
}

#[test]
fn a_hash_table_refuses_insert_and_remove_and_a_mutable_one_initialization() {
    let g = Graph::new();
    weir_ops::register_all_ops();
    let table = |op: &str, shared: &str| -> Output {
        g.new_operation(op)
            .attr("key_dtype", DType::String)
            .attr("value_dtype", DType::I64)
            .attr("shared_name", shared)
            .build()
            .unwrap()
            .output(0)
            .unwrap()
    };
    let h = table("HashTableV2", "h4");
    let kp = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let vp = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let init = raw_op(&h, "InitializeTableV2", &[&kp, &vp]);
    let import = raw_op(&h, "LookupTableImportV2", &[&kp, &vp]);
    let insert = raw_op(&h, "LookupTableInsertV2", &[&kp, &vp]);
    let remove = raw_op(&h, "LookupTableRemoveV2", &[&kp]);
    let find = raw_find(&h, &kp, &vp);
    let s = Session::new(&g).unwrap();
    let kv = |k: Tensor, v: Tensor| vec![(&kp, k), (&vp, v)];
    let m = |r: &[usize], v: Vec<&str>| {
        Tensor::from_vec(
            r,
            v.into_iter()
                .map(|s| Bytes::copy_from_slice(s.as_bytes()))
                .collect(),
        )
        .unwrap()
    };
    expect_err(
        run_fed(
            &s,
            &init,
            &kv(m(&[1, 1], vec!["a"]), Tensor::from(vec![1i64])),
        ),
        Code::InvalidArgument,
        "Keys must be a vector, but received shape[1,1]",
    );
    expect_err(
        run_fed(
            &s,
            &init,
            &kv(
                m(&[1], vec!["a"]),
                Tensor::from_vec(&[1, 1], vec![1i64]).unwrap(),
            ),
        ),
        Code::InvalidArgument,
        "Values must be a vector, but received shape[1,1]",
    );
    expect_err(
        run_fed(
            &s,
            &init,
            &kv(m(&[2], vec!["a", "b"]), Tensor::from(vec![1i64])),
        ),
        Code::InvalidArgument,
        "Keys and values must have the same size 2 vs 1",
    );
    // LookupTableImportV2 initializes a HashTable, with keys of any rank.
    run_fed(
        &s,
        &import,
        &kv(
            m(&[1, 2], vec!["a", "b"]),
            Tensor::from_vec(&[1, 2], vec![1i64, 2]).unwrap(),
        ),
    )
    .unwrap();
    let grid = m(&[2, 2], vec!["a", "b", "c", "a"]);
    let got = fetch_fed(&s, &find, &kv(grid.clone(), Tensor::from(-1i64))).unwrap();
    assert_eq!(got.to_vec::<i64>().unwrap(), vec![1, 2, -1, 1]);
    let full = Tensor::from_vec(&[2, 2], vec![1i64, 2, 3, 4]).unwrap();
    let got = fetch_fed(&s, &find, &kv(grid, full)).unwrap();
    assert_eq!(got.to_vec::<i64>().unwrap(), vec![1, 2, 1, 1]);
    expect_err(
        run_fed(&s, &import, &kv(Tensor::from("x"), Tensor::from(3i64))),
        Code::FailedPrecondition,
        "Table was already initialized with different data.",
    );
    expect_err(
        run_fed(
            &s,
            &insert,
            &kv(m(&[1], vec!["z"]), Tensor::from(vec![1i64])),
        ),
        Code::Unimplemented,
        "Insert not supported by InitializableLookupTable implementations",
    );
    expect_err(
        run_fed(&s, &remove, &[(&kp, m(&[1], vec!["z"]))]),
        Code::Unimplemented,
        "Remove not supported by InitializableLookupTable implementations",
    );
    let ints = constant(&g, vec![1i32]).unwrap();
    let bad = raw_op(&h, "InitializeTableV2", &[&ints, &ints]);
    expect_err(
        run(&s, &bad),
        Code::InvalidArgument,
        "Signature mismatch, have: resource, int32, int32-> expected: resource, string, int64->",
    );

    // A mutable table under the same shared name, made first in a new session, is what the
    // HashTableV2 op finds there: it is not initializable.
    let mh = table("MutableHashTableV2", "h4");
    let s2 = Session::new(&g).unwrap();
    run(&s2, &mh.op()).unwrap();
    expect_err(
        run_fed(
            &s2,
            &init,
            &kv(m(&[1], vec!["a"]), Tensor::from(vec![1i64])),
        ),
        Code::InvalidArgument,
        "Table localhost h4 is not initializable",
    );
    // Tables sharing a name must agree on dtypes.
    let other = g
        .new_operation("HashTableV2")
        .attr("key_dtype", DType::String)
        .attr("value_dtype", DType::I32)
        .attr("shared_name", "h4")
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    expect_err(
        fetch(&s2, &other),
        Code::InvalidArgument,
        "Conflicting key/value dtypes string->int32 with string-int64 for table h4",
    );
}

#[test]
fn tables_sharing_a_name_share_entries_in_a_session() {
    let g = Graph::new();
    weir_ops::register_all_ops();
    let table = || -> Output {
        g.new_operation("MutableHashTableV2")
            .attr("key_dtype", DType::I64)
            .attr("value_dtype", DType::F32)
            .attr("shared_name", "shared")
            .build()
            .unwrap()
            .output(0)
            .unwrap()
    };
    let (a, b) = (table(), table());
    let keys = constant(&g, vec![3i64]).unwrap();
    let ins = raw_op(
        &a,
        "LookupTableInsertV2",
        &[&keys, &constant(&g, vec![0.25f32]).unwrap()],
    );
    let found = raw_find(&b, &keys, &constant(&g, 0.0f32).unwrap());
    let s = Session::new(&g).unwrap();
    run(&s, &ins).unwrap();
    assert_eq!(
        fetch(&s, &found).unwrap().to_vec::<f32>().unwrap(),
        vec![0.25]
    );
    let s2 = Session::new(&g).unwrap();
    assert_eq!(
        fetch(&s2, &found).unwrap().to_vec::<f32>().unwrap(),
        vec![0.0]
    );
}
