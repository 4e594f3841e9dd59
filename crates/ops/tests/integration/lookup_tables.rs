//! Lookup tables built from tensors (`StaticHashTable`, `KeyValueTensorInitializer`) and the
//! `HashTableV2` ops themselves, with the op names, values and messages TensorFlow 2.21 gives for
//! the same graphs (tf.compat.v1 sessions).

use weir_graph::{Bytes, Code, DType, Graph, Operation, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::lookup::{
    tables_initializer, KeyValueTensorInitializer, MutableHashTable, StaticHashTable,
};
use weir_session::{RunArgs, Session};

use crate::lookup_util::{
    expect_err, fetch, fetch_fed, raw_find, run, run_fed, sorted_pairs, strings,
};

#[test]
fn a_static_hash_table_is_named_filled_and_read_as_in_tensorflow() {
    let g = Graph::new();
    let init = KeyValueTensorInitializer::new(["a", "b", "c"], [7i64, 8, 9]);
    let t = StaticHashTable::new(&g, init, -1).unwrap();
    assert_eq!(t.name(), "hash_table");
    let op = t.resource_handle().op();
    assert_eq!(op.op_type(), "HashTableV2");
    let shared: String = op.attr("shared_name").unwrap();
    assert!(
        shared.starts_with("hash_table_") && shared.len() == 47,
        "{shared}"
    );
    assert!(!op.attr::<bool>("use_node_name_sharing").unwrap());
    assert_eq!(t.initializer().name(), "key_value_init/LookupTableImportV2");
    let out = t
        .lookup(
            constant(
                &g,
                Tensor::from_vec(
                    &[2, 2],
                    vec![
                        Bytes::from("a"),
                        Bytes::from("x"),
                        Bytes::from("c"),
                        Bytes::from("b"),
                    ],
                )
                .unwrap(),
            )
            .unwrap(),
        )
        .unwrap();
    assert_eq!(out.name(), "hash_table_Lookup/LookupTableFindV2:0");
    assert_eq!(out.shape(), Shape::known(&[2, 2]));
    let size = t.size().unwrap();
    assert_eq!(size.name(), "hash_table_Size/LookupTableSizeV2:0");
    let (ek, ev) = t.export().unwrap();
    assert_eq!(ek.name(), "hash_table_Export/LookupTableExportV2:0");
    assert_eq!(ev.name(), "hash_table_Export/LookupTableExportV2:1");
    let init_all = tables_initializer(&g).unwrap();
    assert_eq!(init_all.name(), "init_all_tables");
    let inputs: Vec<String> = init_all
        .control_inputs()
        .iter()
        .map(Operation::name)
        .collect();
    assert_eq!(inputs, vec!["key_value_init/LookupTableImportV2"]);

    let s = Session::new(&g).unwrap();
    expect_err(
        fetch(&s, &out),
        Code::FailedPrecondition,
        "Table not initialized.",
    );
    assert_eq!(fetch(&s, &size).unwrap().to_scalar::<i64>().unwrap(), 0);
    expect_err(
        fetch(&s, &ek),
        Code::Aborted,
        "HashTable is not initialized.",
    );
    run(&s, &init_all).unwrap();
    let got = fetch(&s, &out).unwrap();
    assert_eq!(got.shape(), &[2, 2]);
    assert_eq!(got.to_vec::<i64>().unwrap(), vec![7, -1, 9, 8]);
    assert_eq!(fetch(&s, &size).unwrap().to_scalar::<i64>().unwrap(), 3);
    let kv = s.run(&RunArgs::new().fetch(&ek).fetch(&ev)).unwrap();
    assert_eq!(
        sorted_pairs(&kv[0], &kv[1]),
        vec![("a".into(), 7), ("b".into(), 8), ("c".into(), 9)]
    );
    // Initializing again with the same data is accepted.
    run(&s, &init_all).unwrap();
    run(&s, &t.initializer()).unwrap();
    // Another session has its own table.
    let s2 = Session::new(&g).unwrap();
    expect_err(
        fetch(&s2, &out),
        Code::FailedPrecondition,
        "Table not initialized.",
    );
}

#[test]
fn duplicate_keys_pass_with_equal_values_and_fail_with_tensorflows_message() {
    let g = Graph::new();
    let same = StaticHashTable::new(
        &g,
        KeyValueTensorInitializer::new(["a", "b", "a"], [1i64, 2, 1]),
        -1,
    )
    .unwrap();
    let clash = StaticHashTable::new(
        &g,
        KeyValueTensorInitializer::new(["a", "b", "a"], [1i64, 2, 3]),
        -1,
    )
    .unwrap();
    let floats = StaticHashTable::new(
        &g,
        KeyValueTensorInitializer::new([1i64, 2, 1], [1.5f32, 2.0, 3.25]),
        -1.0,
    )
    .unwrap();
    let words = StaticHashTable::new(
        &g,
        KeyValueTensorInitializer::new([1i64, 2, 1], ["x", "y", "z"]),
        "d",
    )
    .unwrap();
    assert_eq!(
        clash.initializer().name(),
        "key_value_init_1/LookupTableImportV2"
    );
    let s = Session::new(&g).unwrap();
    run(&s, &same.initializer()).unwrap();
    assert_eq!(
        fetch(&s, &same.size().unwrap())
            .unwrap()
            .to_scalar::<i64>()
            .unwrap(),
        2
    );
    expect_err(
        run(&s, &clash.initializer()),
        Code::FailedPrecondition,
        "HashTable has different value for same key. Key a has 1 and trying to add value 3",
    );
    assert_eq!(
        fetch(&s, &clash.size().unwrap())
            .unwrap()
            .to_scalar::<i64>()
            .unwrap(),
        0
    );
    expect_err(
        run(&s, &floats.initializer()),
        Code::FailedPrecondition,
        "HashTable has different value for same key. Key 1 has 1.5 and trying to add value 3.25",
    );
    expect_err(
        run(&s, &words.initializer()),
        Code::FailedPrecondition,
        "HashTable has different value for same key. Key 1 has x and trying to add value z",
    );
}

#[test]
fn fed_initializers_defaults_and_signatures_are_checked_at_run_time() {
    let g = Graph::new();
    let kp = placeholder(&g, DType::String, Shape::new(vec![None])).unwrap();
    let vp = placeholder(&g, DType::I64, Shape::new(vec![None])).unwrap();
    let t = StaticHashTable::new(&g, KeyValueTensorInitializer::new(&kp, &vp), -1).unwrap();
    let init = t.initializer();
    let dp = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let keys = constant(&g, ["a", "q"]).unwrap();
    let find = raw_find(t.resource_handle(), &keys, &dp);
    let int_keys = constant(&g, vec![1i64, 2]).unwrap();
    let find_ints = raw_find(t.resource_handle(), &int_keys, &dp);
    let float_default = constant(&g, 1.0f32).unwrap();
    let find_floats = raw_find(
        t.resource_handle(),
        &constant(&g, ["a"]).unwrap(),
        &float_default,
    );

    let s = Session::new(&g).unwrap();
    let feeds = |k: Vec<&str>, v: Vec<i64>| vec![(&kp, Tensor::from(k)), (&vp, Tensor::from(v))];
    expect_err(
        run_fed(&s, &init, &feeds(vec!["a", "b", "c"], vec![1, 2])),
        Code::InvalidArgument,
        "Expected shape [3] for value, got [2]",
    );
    run_fed(&s, &init, &feeds(vec!["a", "b"], vec![1, 2])).unwrap();
    run_fed(&s, &init, &feeds(vec!["a", "b"], vec![1, 2])).unwrap();
    // TensorFlow compares only the sizes of the old and new data.
    run_fed(&s, &init, &feeds(vec!["a", "c"], vec![1, 2])).unwrap();
    expect_err(
        run_fed(&s, &init, &feeds(vec!["a", "c", "d"], vec![1, 2, 3])),
        Code::FailedPrecondition,
        "Table was already initialized with different data.",
    );
    let found = |d: Tensor| fetch_fed(&s, &find, &[(&dp, d)]);
    assert_eq!(
        found(Tensor::from(5i64)).unwrap().to_vec::<i64>().unwrap(),
        vec![1, 5]
    );
    // A HashTable gives every missing key the default's first element.
    assert_eq!(
        found(Tensor::from(vec![5i64, 6]))
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![1, 5]
    );
    expect_err(
        found(Tensor::from(vec![5i64])),
        Code::InvalidArgument,
        "Expected shape [] or [2] for default value, got [1]",
    );
    expect_err(
        found(Tensor::from_vec(&[1, 2], vec![5i64, 6]).unwrap()),
        Code::InvalidArgument,
        "Expected shape [] or [2] for default value, got [1,2]",
    );
    expect_err(
        fetch_fed(&s, &find_ints, &[(&dp, Tensor::from(5i64))]),
        Code::InvalidArgument,
        "Signature mismatch, have: resource, int64, int64->int64 expected: resource, string, int64->int64",
    );
    expect_err(
        fetch(&s, &find_floats),
        Code::InvalidArgument,
        "Signature mismatch, have: resource, string, float->float expected: resource, string, int64->int64",
    );
    let (ek, ev) = t.export().unwrap();
    let kv = s.run(&RunArgs::new().fetch(&ek).fetch(&ev)).unwrap();
    assert_eq!(
        sorted_pairs(&kv[0], &kv[1]),
        vec![("a".into(), 1), ("b".into(), 2)]
    );
}

#[test]
fn wrong_dtypes_and_shapes_are_refused_when_building_as_python_refuses_them() {
    let g = Graph::new();
    let t = StaticHashTable::new(&g, KeyValueTensorInitializer::new(["a"], [7i64]), -1).unwrap();
    expect_err(
        t.lookup(constant(&g, vec![1i64]).unwrap()),
        Code::InvalidArgument,
        "Dtype of argument `keys` must be <dtype: 'string'>, received: <dtype: 'int64'>",
    );
    expect_err(
        StaticHashTable::new(&g, KeyValueTensorInitializer::new(["a"], [7i64]), "x"),
        Code::InvalidArgument,
        "Expected int64, but got x of type 'str'.",
    );
    expect_err(
        StaticHashTable::new(
            &g,
            KeyValueTensorInitializer::new(["a"], [1i64]),
            vec![1i64, 2],
        ),
        Code::InvalidArgument,
        "Shapes (2,) and () are not compatible",
    );
}

#[test]
fn tables_of_other_dtypes_take_keys_of_any_rank() {
    let g = Graph::new();
    let t = StaticHashTable::builder(KeyValueTensorInitializer::new([1i32, 2], [3i32, 4]), 0)
        .name("ints")
        .build(&g)
        .unwrap();
    assert_eq!(t.name(), "ints");
    let cube = t
        .lookup(constant(&g, Tensor::from_vec(&[2, 1, 1], vec![1i32, 5]).unwrap()).unwrap())
        .unwrap();
    assert_eq!(cube.shape(), Shape::known(&[2, 1, 1]));
    let scalar = t.lookup(constant(&g, 2i32).unwrap()).unwrap();
    assert_eq!(scalar.shape(), Shape::scalar());
    let floats = StaticHashTable::new(
        &g,
        KeyValueTensorInitializer::new(["x", "y"], [0.5f64, 2.0]),
        -1.0,
    )
    .unwrap();
    let f = floats.lookup(constant(&g, ["y", "z"]).unwrap()).unwrap();
    let to_words = StaticHashTable::new(
        &g,
        KeyValueTensorInitializer::new([10i64, 20], ["ten", "twenty"]),
        "?",
    )
    .unwrap();
    let w = to_words
        .lookup(constant(&g, vec![20i64, 30]).unwrap())
        .unwrap();
    let s = Session::new(&g).unwrap();
    run(&s, &tables_initializer(&g).unwrap()).unwrap();
    let c = fetch(&s, &cube).unwrap();
    assert_eq!(
        (c.shape(), c.to_vec::<i32>().unwrap()),
        (&[2usize, 1, 1][..], vec![3, 0])
    );
    assert_eq!(fetch(&s, &scalar).unwrap().to_scalar::<i32>().unwrap(), 4);
    assert_eq!(
        fetch(&s, &f).unwrap().to_vec::<f64>().unwrap(),
        vec![2.0, -1.0]
    );
    assert_eq!(strings(&fetch(&s, &w).unwrap()), vec!["twenty", "?"]);
}

#[test]
fn a_table_of_dtypes_tensorflow_has_no_kernel_for_fails_when_run() {
    let g = Graph::new();
    let t = StaticHashTable::new(
        &g,
        KeyValueTensorInitializer::new([1.0f32], [1.0f32]),
        0.0f32,
    )
    .unwrap();
    let s = Session::new(&g).unwrap();
    let e = run(&s, &t.initializer()).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().starts_with(
            "No OpKernel was registered to support Op 'HashTableV2' used by {{node hash_table}} with these attrs: ["
        ),
        "{e}"
    );
    assert!(e.message().contains(
        "Registered devices: [CPU]\nRegistered kernels:\n  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_STRING]\n"
    ));
    let m = MutableHashTable::new(&g, DType::String, DType::String, "").unwrap();
    let e = fetch(&s, &m.size().unwrap()).unwrap_err();
    assert!(e.message().starts_with(
        "No OpKernel was registered to support Op 'MutableHashTableV2' used by {{node MutableHashTable}}"
    ));
}
