"""Records what TensorFlow's tf.data does with SparseTensor components into expected.json:
from_tensor_slices / from_sparse_tensor_slices of sparse tensors, map functions that return
sparse tensors (parse_single_example with VarLenFeature), batch (the largest dense shape),
unbatch (TensorFlow re-slices the batched sparse tensor), filter, zip, concatenate,
shuffle/repeat/take, parse_example_dataset and make_batched_features_dataset over TFRecord
files.

Run with TensorFlow 2.21:  python make_tfdata_sparse.py  (writes expected.json next to this
file). Each case is a pipeline that tests/integration/data_sparse.rs builds again under the
same name. A case records its element_spec (per flat component: tensor or sparse, dtype,
static shape) and what an iterator yields (tf.compat.v1 graph mode) until OutOfRange
("end": null) or an error (its class and message), or the build-time error.
"""
import base64
import json
import os
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
D = tf.data.Dataset


def example(age=None, kws=(), w=(), idx=(), val=(), label=0):
    f = {"label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}
    if age is not None:
        f["age"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[age]))
    f["kws"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[k.encode() for k in kws]))
    f["w"] = tf.train.Feature(float_list=tf.train.FloatList(value=list(w)))
    f["idx"] = tf.train.Feature(int64_list=tf.train.Int64List(value=list(idx)))
    f["val"] = tf.train.Feature(float_list=tf.train.FloatList(value=list(val)))
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


RECORDS = [
    example(age=30, kws=["code", "art"], w=[0.5], idx=[1, 4], val=[1.0, 2.0], label=1),
    example(kws=["sports"], w=[], idx=[], val=[], label=0),
    example(age=7, kws=[], w=[1.5, 2.5, 3.5], idx=[0], val=[9.0], label=1),
    example(age=12, kws=["a", "b", "c"], w=[4.0], idx=[2, 3, 5], val=[3.0, 4.0, 5.0], label=0),
    example(age=50, kws=["x"], w=[], idx=[5], val=[7.5], label=1),
]
FILES = [RECORDS[:3], RECORDS[3:]]


def features(label=True):
    f = {
        "age": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
        "kws": tf.io.VarLenFeature(tf.string),
        "w": tf.io.VarLenFeature(tf.float32),
        "sp": tf.io.SparseFeature("idx", "val", tf.float32, 6),
    }
    if label:
        f["label"] = tf.io.FixedLenFeature([], tf.int64)
    return f


def records():
    return D.from_tensor_slices(tf.constant(RECORDS))


def parsed_single(keys):
    fs = features()
    return records().map(lambda s: tuple(
        tf.io.parse_single_example(s, {k: fs[k] for k in keys})[k] for k in keys))


def sp(indices, values, shape, dtype=None):
    return tf.SparseTensor(
        tf.constant(indices, tf.int64, shape=[len(indices), len(shape)]),
        tf.constant(values, dtype), tf.constant(shape, tf.int64))


SP34 = lambda: sp([[0, 1], [0, 3], [2, 0]], [1.5, 2.5, 3.5], [3, 4], tf.float32)
SP_STR = lambda: sp([[0, 0], [1, 1], [1, 2]], [b"a", b"b", b"c"], [2, 3])


def files(d):
    names = []
    for i, recs in enumerate(FILES):
        n = os.path.join(d, "part-%d.tfrecord" % i)
        with tf.io.TFRecordWriter(n) as w:
            for r in recs:
                w.write(r)
        names.append(n)
    return os.path.join(d, "part-*.tfrecord")


MBF = tf.data.experimental.make_batched_features_dataset
DSB = tf.data.experimental.dense_to_sparse_batch


def filled(n):
    """[1], [2, 2], [3, 3, 3], ... up to n - 1."""
    return D.range(1, n).map(lambda x: tf.fill([x], x))
PED = tf.data.experimental.parse_example_dataset


def cases(pattern):
    return {
        "sparse_slices": lambda: D.from_sparse_tensor_slices(SP34()),
        "tensor_slices_sparse": lambda: D.from_tensor_slices(SP34()),
        "tensor_slices_mixed": lambda: D.from_tensor_slices(
            (tf.constant([10, 20]), SP_STR())),
        "tensors_sparse": lambda: D.from_tensors(SP_STR()),
        "map_varlen": lambda: parsed_single(["kws"]),
        "map_varlen_batch": lambda: parsed_single(["age", "kws"]).batch(2),
        "map_varlen_batch_drop": lambda: parsed_single(["w"]).batch(2, drop_remainder=True),
        "map_sparse_feature": lambda: parsed_single(["sp"]).batch(3),
        "batch_unbatch": lambda: parsed_single(["kws"]).batch(3).unbatch(),
        "batch_map_unbatch": lambda: parsed_single(["kws"]).batch(2).map(
            lambda s: tf.sparse.reorder(s)).unbatch(),
        "batch_batch": lambda: parsed_single(["w"]).batch(2).batch(2),
        "map_sparse_to_dense": lambda: parsed_single(["w"]).map(
            lambda s: (tf.sparse.to_dense(s), s)),
        "filter_sparse": lambda: parsed_single(["kws", "age"]).filter(
            lambda s, a: tf.size(s.values) > 0),
        "take_while_sparse": lambda: parsed_single(["kws", "age"]).take_while(
            lambda s, a: tf.size(s.values) > 0),
        "reduce_sparse": lambda: D.from_tensors(parsed_single(["kws", "age"]).reduce(
            (tf.constant(0, tf.int64), tf.constant(0, tf.int64)),
            lambda st, x: (st[0] + tf.size(x[0].values, out_type=tf.int64), st[1] + x[1]))),
        "zip_sparse": lambda: D.zip((parsed_single(["kws"]), D.range(10))),
        "concat_sparse": lambda: parsed_single(["w"]).take(2).concatenate(
            parsed_single(["w"]).skip(3)),
        "repeat_take": lambda: parsed_single(["kws"]).repeat(2).skip(3).take(4),
        "shuffle_seeded": lambda: parsed_single(["kws"]).shuffle(5, seed=3),
        "prefetch_cache": lambda: parsed_single(["kws"]).cache().prefetch(2),
        "enumerate_sparse": lambda: parsed_single(["w"]).enumerate(5),
        "interleave_sparse": lambda: D.range(2).interleave(
            lambda i: parsed_single(["kws"]).take(2), cycle_length=2,
            block_length=1),
        "flat_map_sparse": lambda: D.range(2).flat_map(
            lambda i: parsed_single(["w"]).take(3)),
        "map_and_batch_sparse": lambda: records().apply(tf.data.experimental.map_and_batch(
            lambda s: tf.io.parse_single_example(s, {"kws": features()["kws"]})["kws"], 2)),
        "map_and_batch_sparse_drop": lambda: records().apply(
            tf.data.experimental.map_and_batch(
                lambda s: tf.io.parse_single_example(s, {"sp": features()["sp"]})["sp"], 2,
                drop_remainder=True)),
        "dsb_basic": lambda: filled(5).apply(DSB(2, [None])),
        "dsb_fixed": lambda: filled(5).apply(DSB(3, [5])),
        "dsb_too_big": lambda: filled(5).apply(DSB(3, [3])),
        "dsb_rank2": lambda: D.range(1, 4).map(lambda x: tf.fill([x, 2], x)).apply(
            DSB(2, [None, 2])),
        "dsb_rank_mismatch": lambda: filled(4).apply(DSB(2, [None, 2])),
        "dsb_zeros": lambda: D.from_tensor_slices([[0, 1], [2, 0]]).apply(DSB(2, [2])),
        "dsb_scalars": lambda: D.range(1, 4).apply(DSB(2, [])),
        "ped_basic": lambda: records().batch(2).apply(PED(features())),
        "ped_parallel": lambda: records().batch(3).apply(PED(features(), num_parallel_calls=2)),
        "ped_static_batch": lambda: records().batch(2, drop_remainder=True).apply(
            PED({"kws": tf.io.VarLenFeature(tf.string)})),
        "ped_not_vector": lambda: records().apply(PED(features())),
        "ped_bad_type": lambda: records().batch(2).apply(
            PED({"age": tf.io.FixedLenFeature([], tf.float32)})),
        "mbf_one_epoch": lambda: MBF(pattern, 2, features(), num_epochs=1, shuffle=False),
        "mbf_label": lambda: MBF(pattern, 2, features(), label_key="label", num_epochs=1,
                                 shuffle=False),
        "mbf_drop": lambda: MBF(pattern, 2, features(label=False), num_epochs=2,
                                shuffle=False, drop_final_batch=True),
        "mbf_forever": lambda: MBF(pattern, 3, features(label=False), shuffle=False).take(4),
        "mbf_bad_label": lambda: MBF(pattern, 2, features(), label_key="nope"),
    }


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind in "SO":
        data = [base64.b64encode(x).decode() for x in a.reshape(-1)]
        dtype = "string"
    else:
        kind = a.dtype.kind
        data = [float(x) if kind == "f" else (bool(x) if kind == "b" else int(x))
                for x in a.reshape(-1)]
        dtype = str(a.dtype)
    return {"dtype": dtype, "shape": list(a.shape), "data": data}


def component(v):
    if isinstance(v, tf.SparseTensorValue):
        return {"indices": enc(v.indices), "values": enc(v.values),
                "dense_shape": enc(v.dense_shape)}
    return enc(v)


def spec(s):
    shape = None if s.shape.rank is None else s.shape.as_list()
    kind = "sparse" if isinstance(s, tf.SparseTensorSpec) else "tensor"
    return {"kind": kind, "dtype": s.dtype.name, "shape": shape}


def core(m):
    i = m.find("\nNode: ")
    if i >= 0:
        m = m[m.index("\n", i + 1) + 1:]
    j = m.find("\n\t [[")
    m = m[:j] if j >= 0 else m
    return m.replace("Graph execution error:\n\n", "")


def err(e):
    return {"class": type(e).__name__, "message": core(str(e))}


def record(name, make):
    out = {"name": name}
    g = tf.Graph()
    with g.as_default():
        try:
            ds = make()
        except (TypeError, ValueError) as e:
            out["error"] = err(e)
            return out
        out["spec"] = [spec(s) for s in tf.nest.flatten(ds.element_spec)]
        it = tf.data.make_initializable_iterator(ds)
        nxt = tf.nest.flatten(it.get_next())
        elements = []
        with tf.Session(graph=g) as s:
            s.run(it.initializer)
            while True:
                try:
                    v = s.run(nxt)
                except tf.errors.OutOfRangeError:
                    out["end"] = None
                    break
                except tf.errors.OpError as e:
                    out["end"] = err(e)
                    break
                elements.append([component(x) for x in v])
        out["elements"] = elements
    return out


def main():
    with tempfile.TemporaryDirectory() as d:
        pattern = files(d)
        result = [record(n, f) for n, f in cases(pattern).items()]
    doc = {
        "records": [base64.b64encode(r).decode() for r in RECORDS],
        "files": [len(f) for f in FILES],
        "cases": result,
    }
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "expected.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for c in result:
        print(c["name"], c.get("error") or ("%d elements" % len(c["elements"])), c.get("end"))


if __name__ == "__main__":
    main()
