"""Records TensorFlow 2.21's behaviour of DenseHashTable (MutableDenseHashTableV2), the anonymous
table ops and TensorFlow 1's ref-handle table ops, for crates/ops/tests/integration/lookup_more.rs.
Run by hand in the shared bench's venv:
  $HOME/.cache/weir-bench/venv/bin/python make_lookup_more.py
It writes expected.json (cases of steps run in one session, each step's outputs or error) and
v1_tables.pbtxt (a GraphDef of TensorFlow 1's ref-handle table ops, whose runs expected.json
records under the case "graph_def")."""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
here = os.path.dirname(os.path.abspath(__file__))
raw = tf.raw_ops


def err(e):
    msg = e.message if hasattr(e, "message") else str(e)
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    return {"class": type(e).__name__, "code": getattr(e, "error_code", None),
            "message": msg.split("\n\t [[")[0]}


def enc(a):
    a = np.asarray(a)
    if a.dtype == object:
        return {"dtype": "string", "shape": list(a.shape),
                "values": [x.decode("latin1") for x in a.reshape(-1)]}
    return encode(a)


def const(spec):
    if spec is None:
        return None
    return tf.constant(spec["v"], dtype=tf.as_dtype(spec["dtype"]))


def dense_case(name, key_dtype, value_dtype, default, empty, deleted, steps, buckets=None,
               raw_table=None):
    """A DenseHashTable built by the Python class (or, with raw_table, by the raw op with those
    attrs), then `steps` run one by one in one session."""
    g = tf.Graph()
    case = {"name": name, "kind": "dense", "key_dtype": key_dtype, "value_dtype": value_dtype,
            "default": default, "empty_key": empty, "deleted_key": deleted,
            "initial_num_buckets": buckets, "raw_table": raw_table, "steps": steps}
    results = []
    with g.as_default():
        kd, vd = tf.as_dtype(key_dtype), tf.as_dtype(value_dtype)
        try:
            if raw_table is None:
                t = tf.lookup.experimental.DenseHashTable(
                    kd, vd, default_value=default, empty_key=empty, deleted_key=deleted,
                    initial_num_buckets=buckets)
                handle = t.resource_handle
            else:
                handle = raw.MutableDenseHashTableV2(
                    empty_key=tf.constant(empty, kd), deleted_key=tf.constant(deleted, kd),
                    value_dtype=vd, **raw_table)
                t = None
        except (TypeError, ValueError) as e:
            case["build_error"] = err(e)
            return case
        default_t = tf.constant(default, vd)
        s = tf1.Session()
        for st in steps:
            op = st["op"]
            try:
                if op == "insert":
                    if st.get("raw") or t is None:
                        x = raw.LookupTableInsertV2(table_handle=handle, keys=const(st["keys"]),
                                                    values=const(st["values"]))
                    else:
                        x = t.insert(const(st["keys"]), const(st["values"]))
                elif op == "import":
                    # Fed through shapeless placeholders, as a restore feeds them: the op's
                    # shape function takes only vectors of keys.
                    x = raw.LookupTableImportV2(
                        table_handle=handle,
                        keys=tf1.placeholder_with_default(const(st["keys"]), shape=None),
                        values=tf1.placeholder_with_default(const(st["values"]), shape=None))
                elif op == "init":
                    x = raw.InitializeTableV2(table_handle=handle, keys=const(st["keys"]),
                                              values=const(st["values"]))
                elif op == "remove":
                    x = raw.LookupTableRemoveV2(table_handle=handle, keys=const(st["keys"]))
                elif op == "find":
                    d = const(st["default"]) if "default" in st else default_t
                    x = raw.LookupTableFindV2(table_handle=handle, keys=const(st["keys"]),
                                              default_value=d)
                elif op == "size":
                    x = raw.LookupTableSizeV2(table_handle=handle)
                elif op in ("export", "export_shape"):
                    x = list(raw.LookupTableExportV2(table_handle=handle, Tkeys=kd, Tvalues=vd))
            except (TypeError, ValueError) as e:
                results.append({"build_error": err(e)})
                continue
            try:
                out = s.run(x)
            except tf.errors.OpError as e:
                results.append({"error": err(e)})
                continue
            if op in ("insert", "import", "remove", "init"):
                results.append({"ok": True})
            elif op == "export":
                results.append({"outputs": [enc(out[0]), enc(out[1])]})
            elif op == "export_shape":
                results.append({"shapes": [list(out[0].shape), list(out[1].shape)]})
            else:
                results.append({"outputs": [enc(out)]})
    case["results"] = results
    return case


def c(v, dtype):
    return {"v": v, "dtype": dtype}


I64, I32, F32, F64, S, B = "int64", "int32", "float32", "float64", "string", "bool"
cases = []
cases.append(dense_case("int_probing_order", I64, I64, -1, 0, -1, buckets=8, steps=[
    {"op": "insert", "keys": c([5, 13, 21, 3, 100], I64), "values": c([1, 2, 3, 4, 5], I64)},
    {"op": "export"}, {"op": "size"},
    {"op": "find", "keys": c([5, 13, 21, 7, 100], I64)},
    {"op": "find", "keys": c([[5, 6], [21, 3]], I64)},
    {"op": "remove", "keys": c([13, 99], I64)},
    {"op": "export"}, {"op": "size"},
    {"op": "find", "keys": c([5, 13, 21], I64)},
    {"op": "insert", "keys": c([29, 21], I64), "values": c([6, 30], I64)},
    {"op": "export"}, {"op": "size"},
    {"op": "find", "keys": c(5, I64)},
]))
cases.append(dense_case("growth_rebuckets", I64, F32, 0.5, -1, -2, buckets=4, steps=[
    {"op": "insert", "keys": c([1, 2, 3], I64), "values": c([1.5, 2.5, 3.5], F32)},
    {"op": "export"},
    {"op": "insert", "keys": c([4], I64), "values": c([4.5], F32)},
    {"op": "export"},
    {"op": "insert", "keys": c([9, 17, 25, 33, 41, 49], I64),
     "values": c([9., 17., 25., 33., 41., 49.], F32)},
    {"op": "export"}, {"op": "size"},
    {"op": "find", "keys": c([1, 4, 49, 50], I64)},
]))
cases.append(dense_case("string_keys_vector_values", S, F32, [0.0, -1.0], "", "$", buckets=8, steps=[
    {"op": "insert", "keys": c(["a", "b", "c", "emerson"], S),
     "values": c([[1., 2.], [3., 4.], [5., 6.], [7., 8.]], F32)},
    {"op": "export"},
    {"op": "find", "keys": c(["b", "zz", "emerson"], S)},
    {"op": "find", "keys": c(["b", "zz"], S), "default": c([[9., 9.], [8., 8.]], F32)},
    {"op": "remove", "keys": c(["a"], S)},
    {"op": "export"}, {"op": "size"},
    {"op": "insert", "keys": c(["b"], S), "values": c([[1., 2., 3.]], F32)},
    {"op": "find", "keys": c(["b"], S), "default": c([1., 2., 3.], F32)},
]))
cases.append(dense_case("string_keys_bool_values", S, B, False, "", "<deleted>", buckets=16, steps=[
    {"op": "insert", "keys": c(["lake", "palmer", "king", "crimson", "tarkus"], S),
     "values": c([True, False, True, True, False], B)},
    {"op": "export"},
    {"op": "find", "keys": c(["lake", "palmer", "x"], S)},
]))
cases.append(dense_case("int32_negative_keys", I32, F64, -1.0, 0, 1, buckets=8, steps=[
    {"op": "insert", "keys": c([-3, 7, -100, 2147483647], I32),
     "values": c([0.25, 7.0, -100.5, 1e300], F64)},
    {"op": "export"},
    {"op": "find", "keys": c([-3, -4, 2147483647], I32)},
]))
cases.append(dense_case("int64_int32_values", I64, I32, 0, -1, -2, buckets=8, steps=[
    {"op": "insert", "keys": c([1 << 40, -(1 << 40), 12345678901], I64), "values": c([1, 2, 3], I32)},
    {"op": "export"},
]))
cases.append(dense_case("vector_keys", I64, I64, -1, [0, 0], [-1, -1], buckets=8, steps=[
    {"op": "insert", "keys": c([[1, 2], [3, 4], [2, 1]], I64), "values": c([10, 20, 30], I64)},
    {"op": "export"},
    {"op": "find", "keys": c([[1, 2], [5, 6], [2, 1]], I64)},
    {"op": "find", "keys": c([1, 2, 3], I64)},
    {"op": "find", "keys": c([3, 4], I64)},
    {"op": "remove", "keys": c([[3, 4]], I64)},
    {"op": "export"}, {"op": "size"},
]))
cases.append(dense_case("default_buckets", S, I64, -1, "", "$", steps=[
    {"op": "insert", "keys": c(["a", "b"], S), "values": c([1, 2], I64)},
    {"op": "size"}, {"op": "export_shape"},
    {"op": "find", "keys": c(["b", "c"], S)},
]))
cases.append(dense_case("import_and_reexport", I64, I64, -1, 0, -1, buckets=8, steps=[
    {"op": "import", "keys": c([[0], [7], [-1], [5], [0], [0]], I64),
     "values": c([[0], [70], [0], [50], [0], [0]], I64)},
    {"op": "size"}, {"op": "export"},
    {"op": "find", "keys": c([7, 5, 3], I64)},
    {"op": "import", "keys": c([7, 5], I64), "values": c([70, 50], I64)},
    {"op": "import", "keys": c([[7], [5]], I64), "values": c([70, 50], I64)},
    {"op": "import", "keys": c([[7, 1], [5, 1]], I64), "values": c([[70], [50]], I64)},
]))
cases.append(dense_case("errors_on_keys", I64, I64, -1, 0, -1, buckets=8, steps=[
    {"op": "insert", "keys": c([1, 0], I64), "values": c([1, 2], I64)},
    {"op": "size"},
    {"op": "insert", "keys": c([-1], I64), "values": c([2], I64)},
    {"op": "find", "keys": c([0], I64)},
    {"op": "find", "keys": c([-1], I64)},
    {"op": "remove", "keys": c([0], I64)},
    {"op": "remove", "keys": c([-1], I64)},
    {"op": "insert", "keys": c([1, 2], I64), "values": c([1, 2, 3], I64)},
    {"op": "insert", "keys": c([[1, 2]], I64), "values": c([[1, 2]], I64)},
    {"op": "insert", "raw": True, "keys": c([1], I32), "values": c([1], I64)},
    {"op": "insert", "raw": True, "keys": c([1], I64), "values": c([1.0], F32)},
    {"op": "find", "keys": c([1], I64), "default": c([1, 2], I64)},
    {"op": "find", "keys": c([1], I64), "default": c([1.0], F32)},
    {"op": "remove", "keys": c([[1]], I64)},
    {"op": "remove", "keys": c(1, I64)},
]))
cases.append(dense_case("empty_equals_deleted", I64, I64, -1, 7, 7, buckets=8, steps=[
    {"op": "size"},
]))
cases.append(dense_case("buckets_not_power_of_two", I64, I64, -1, 0, -1, buckets=6, steps=[
    {"op": "size"},
]))
cases.append(dense_case("buckets_too_few", I64, I64, -1, 0, -1, buckets=2, steps=[
    {"op": "size"},
]))
cases.append(dense_case("empty_deleted_shapes_differ", I64, I64, -1, [0, 0], [-1], buckets=8, steps=[
    {"op": "size"},
]))
cases.append(dense_case("empty_key_matrix", I64, I64, -1, [[0]], [[-1]], buckets=8, steps=[
    {"op": "size"},
]))
cases.append(dense_case("max_load_factor_out_of_range", I64, I64, -1, 0, -1, steps=[
    {"op": "size"},
], raw_table={"max_load_factor": 1.5, "initial_num_buckets": 8}))
cases.append(dense_case("max_load_factor_half", I64, I64, -1, 0, -1, steps=[
    {"op": "insert", "keys": c([1, 2, 3, 4, 5], I64), "values": c([1, 2, 3, 4, 5], I64)},
    {"op": "export"},
], raw_table={"max_load_factor": 0.5, "initial_num_buckets": 4}))
cases.append(dense_case("value_shape_matrix", I64, I64, [[1]], 0, -1, buckets=8, steps=[
    {"op": "size"},
]))
cases.append(dense_case("string_values_no_kernel", I64, S, "", 0, -1, buckets=8, steps=[
    {"op": "size"},
]))
cases.append(dense_case("import_odd_bucket_count_then_grow", I64, I64, -1, 0, -1, buckets=8, steps=[
    {"op": "import", "keys": c([[0], [7], [-1], [5], [0], [0]], I64),
     "values": c([[0], [70], [0], [50], [0], [0]], I64)},
    {"op": "insert", "keys": c([1], I64), "values": c([10], I64)},
    {"op": "export"},
    {"op": "insert", "keys": c([2, 3, 4], I64), "values": c([20, 30, 40], I64)},
    {"op": "size"},
]))
cases.append(dense_case("string_keys_growth", S, I32, -1, "", "$", buckets=4, steps=[
    {"op": "insert", "keys": c(["k%d" % i for i in range(10)], S), "values": c(list(range(10)), I32)},
    {"op": "export"}, {"op": "size"},
    {"op": "remove", "keys": c(["k3", "k7", "nope"], S)},
    {"op": "insert", "keys": c(["k%d" % i for i in range(10, 14)], S),
     "values": c(list(range(10, 14)), I32)},
    {"op": "export"},
    {"op": "find", "keys": c([["k0", "k3"], ["k13", "k7"]], S)},
]))
cases.append(dense_case("scalar_and_empty_keys", I64, F64, [1.5, 2.5], 0, -1, buckets=4, steps=[
    {"op": "insert", "keys": c(9, I64), "values": c([9.5, 9.25], F64)},
    {"op": "find", "keys": c(9, I64)},
    {"op": "find", "keys": c(8, I64)},
    {"op": "insert", "keys": c([], I64), "values": {"v": np.zeros((0, 2)).tolist(), "dtype": F64}},
    {"op": "find", "keys": c([], I64)},
    {"op": "insert", "keys": c([5, 5], I64), "values": c([[1., 1.], [2., 2.]], F64)},
    {"op": "size"}, {"op": "export"},
]))
cases.append(dense_case("not_initializable", I64, I64, -1, 0, -1, buckets=4, steps=[
    {"op": "init", "keys": c([1], I64), "values": c([1], I64)},
]))
cases.append(dense_case("float_keys_no_kernel", F32, I64, -1, 0.0, -1.0, buckets=8, steps=[
    {"op": "size"},
]))


def anon_case():
    """Anonymous tables: a fresh table in every run."""
    g = tf.Graph()
    runs = []
    with g.as_default():
        h = raw.AnonymousMutableHashTable(key_dtype=tf.string, value_dtype=tf.int64, name="anon")
        ins = raw.LookupTableInsertV2(table_handle=h, keys=tf.constant(["a", "b"]),
                                      values=tf.constant([1, 2], tf.int64), name="ins")
        with tf.control_dependencies([ins]):
            size_after = tf.identity(raw.LookupTableSizeV2(table_handle=h), name="size_after")
            found_after = raw.LookupTableFindV2(table_handle=h, keys=tf.constant(["b", "c"]),
                                                default_value=tf.constant(-1, tf.int64),
                                                name="found_after")
        size = raw.LookupTableSizeV2(table_handle=h, name="size")
        ht = raw.AnonymousHashTable(key_dtype=tf.int64, value_dtype=tf.float32, name="anon_hash")
        hfind = raw.LookupTableFindV2(table_handle=ht, keys=tf.constant([1, 2], tf.int64),
                                      default_value=tf.constant(0.0), name="hfind")
        init = raw.InitializeTableV2(table_handle=ht, keys=tf.constant([1, 3], tf.int64),
                                     values=tf.constant([1.5, 3.5]), name="hinit")
        with tf.control_dependencies([init]):
            hfind_after = tf.identity(
                raw.LookupTableFindV2(table_handle=ht, keys=tf.constant([1, 2], tf.int64),
                                      default_value=tf.constant(0.0)), name="hfind_after")
        ot = raw.AnonymousMutableHashTableOfTensors(key_dtype=tf.int64, value_dtype=tf.int32,
                                                    value_shape=[2], name="anon_tensors")
        oins = raw.LookupTableInsertV2(table_handle=ot, keys=tf.constant([4], tf.int64),
                                       values=tf.constant([[4, 40]]), name="oins")
        with tf.control_dependencies([oins]):
            ofind = tf.identity(
                raw.LookupTableFindV2(table_handle=ot, keys=tf.constant([4, 5], tf.int64),
                                      default_value=tf.constant([0, -1])), name="ofind")
        dt = raw.AnonymousMutableDenseHashTable(
            empty_key=tf.constant(0, tf.int64), deleted_key=tf.constant(-1, tf.int64),
            value_dtype=tf.int64, initial_num_buckets=4, name="anon_dense")
        dins = raw.LookupTableInsertV2(table_handle=dt, keys=tf.constant([6, 2, 10], tf.int64),
                                       values=tf.constant([60, 20, 100], tf.int64), name="dins")
        with tf.control_dependencies([dins]):
            dk, dv = raw.LookupTableExportV2(table_handle=dt, Tkeys=tf.int64, Tvalues=tf.int64)
            dk = tf.identity(dk, name="dense_keys")
            dv = tf.identity(dv, name="dense_values")
        dsize = raw.LookupTableSizeV2(table_handle=dt, name="dsize")
        bad = raw.AnonymousMutableDenseHashTable(
            empty_key=tf.constant(3, tf.int64), deleted_key=tf.constant(3, tf.int64),
            value_dtype=tf.int64, initial_num_buckets=4, name="anon_dense_bad")
        bsize = raw.LookupTableSizeV2(table_handle=bad, name="bsize")
        s = tf1.Session()
        for fetches in [["size_after:0", "found_after:0"], ["size:0"], ["size_after:0"],
                        ["hfind:0"], ["hfind_after:0"], ["ofind:0"], ["dense_keys:0", "dense_values:0"],
                        ["dsize:0"], ["bsize:0"]]:
            try:
                out = s.run(fetches)
                runs.append({"fetches": fetches, "outputs": [enc(o) for o in out]})
            except tf.errors.OpError as e:
                runs.append({"fetches": fetches, "error": err(e)})
    return {"name": "anonymous", "kind": "anonymous", "runs": runs}


cases.append(anon_case())


def v1_case():
    """TensorFlow 1's ref-handle ops, saved as a GraphDef that the Rust test imports."""
    g = tf.Graph()
    runs = []
    vocab = os.path.join(here, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("emerson\nlake\npalmer\n")
    with g.as_default():
        path = tf1.placeholder(tf.string, [], name="vocab_path")
        ht = raw.HashTable(key_dtype=tf.string, value_dtype=tf.int64, name="hash")
        init = raw.InitializeTable(table_handle=ht, keys=tf.constant(["a", "b", "c"]),
                                   values=tf.constant([1, 2, 3], tf.int64), name="init")
        find = raw.LookupTableFind(table_handle=ht, keys=tf.constant(["b", "z", "a"]),
                                   default_value=tf.constant(-1, tf.int64), name="find")
        size = raw.LookupTableSize(table_handle=ht, name="size")
        hk, hv = raw.LookupTableExport(table_handle=ht, Tkeys=tf.string, Tvalues=tf.int64,
                                       name="hexport")
        hsz = tf.size(hk, name="hexport_size")
        ins_bad = raw.LookupTableInsert(table_handle=ht, keys=tf.constant(["q"]),
                                        values=tf.constant([9], tf.int64), name="insert_hash")
        ft = raw.HashTable(key_dtype=tf.string, value_dtype=tf.int64, name="file_hash")
        finit = raw.InitializeTableFromTextFile(table_handle=ft, filename=path, key_index=-2,
                                                value_index=-1, name="file_init")
        ffind = raw.LookupTableFind(table_handle=ft, keys=tf.constant(["palmer", "lake", "x"]),
                                    default_value=tf.constant(-1, tf.int64), name="file_find")
        mt = raw.MutableHashTable(key_dtype=tf.int64, value_dtype=tf.float32, name="mutable",
                                  use_node_name_sharing=True)
        mins = raw.LookupTableInsert(table_handle=mt, keys=tf.constant([1, 2], tf.int64),
                                     values=tf.constant([0.5, 2.5]), name="minsert")
        mfind = raw.LookupTableFind(table_handle=mt, keys=tf.constant([2, 3], tf.int64),
                                    default_value=tf.constant(-0.5), name="mfind")
        msize = raw.LookupTableSize(table_handle=mt, name="msize")
        mimp = raw.LookupTableImport(table_handle=mt, keys=tf.constant([7], tf.int64),
                                     values=tf.constant([7.5]), name="mimport")
        mk, mv = raw.LookupTableExport(table_handle=mt, Tkeys=tf.int64, Tvalues=tf.float32,
                                       name="mexport")
        mwrong = raw.LookupTableInsert(table_handle=mt, keys=tf.constant(["s"]),
                                       values=tf.constant([1.0]), name="mwrong")
        mshape = raw.LookupTableInsert(table_handle=mt, keys=tf.constant([1, 2], tf.int64),
                                       values=tf.constant([1.0]), name="mshape")
        tt = raw.MutableHashTableOfTensors(key_dtype=tf.string, value_dtype=tf.int64,
                                           value_shape=[2], name="tensors")
        tins = raw.LookupTableInsert(table_handle=tt, keys=tf.constant(["x"]),
                                     values=tf.constant([[1, 2]], tf.int64), name="tinsert")
        tfind = raw.LookupTableFind(table_handle=tt, keys=tf.constant(["x", "y"]),
                                    default_value=tf.constant([0, 0], tf.int64), name="tfind")
        dt = raw.MutableDenseHashTable(empty_key=tf.constant(0, tf.int64), value_dtype=tf.int64,
                                       initial_num_buckets=8, name="dense")
        dsize = raw.LookupTableSize(table_handle=dt, name="dsize")
        gd = g.as_graph_def()
        with open(os.path.join(here, "v1_tables.pbtxt"), "w") as f:
            f.write(str(gd))
        s = tf1.Session()
        feed = {path: vocab}
        for targets, fetches in [([], ["find:0"]), ([], ["size:0"]), ([], ["hexport:0"]),
                                 (["init"], []), ([], ["find:0", "size:0"]),
                                 ([], ["hexport_size:0"]),
                                 (["insert_hash"], []),
                                 ([], ["file_find:0"]),
                                 (["file_init"], []), ([], ["file_find:0"]),
                                 (["minsert"], []), ([], ["mfind:0", "msize:0"]),
                                 (["mimport"], []), ([], ["mexport:0", "mexport:1", "mfind:0"]),
                                 (["mwrong"], []), (["mshape"], []),
                                 (["tinsert"], []), ([], ["tfind:0"]),
                                 ([], ["dsize:0"])]:
            try:
                out = s.run(fetches + targets, feed)
                runs.append({"targets": targets, "fetches": fetches,
                             "outputs": [enc(o) for o in out[:len(fetches)]]})
            except tf.errors.OpError as e:
                runs.append({"targets": targets, "fetches": fetches, "error": err(e)})
    return {"name": "graph_def", "kind": "graph_def", "runs": runs}


cases.append(v1_case())

with open(os.path.join(here, "expected.json"), "w") as f:
    json.dump(cases, f, indent=1)
for c_ in cases:
    print(c_["name"], json.dumps(c_.get("results", c_.get("runs", c_.get("build_error"))))[:1500])
