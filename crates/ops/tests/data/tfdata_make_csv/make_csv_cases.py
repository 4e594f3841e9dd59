"""Records what TensorFlow 2.21's `tf.compat.v1.data.experimental.make_csv_dataset` gives for
the CSV files written here, for tests/integration/data_make_csv.rs: component names (tf.nest's
order) and dtypes, then every batch (or the first few of an endless dataset), or the error.

Run with the TF venv: $HOME/.cache/weir-bench/venv/bin/python make_csv_cases.py
"""
import json
import os

import tensorflow as tf

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
make = v1.data.experimental.make_csv_dataset

FILES = {
    "titanic_a.csv": "survived,sex,age,fare,class\n0,male,22,7.25,Third\n1,female,38,71.2833,First\n"
                     "1,female,26,7.925,Third\n1,female,35,53.1,First\n0,male,35,8.05,Third\n",
    "titanic_b.csv": "survived,sex,age,fare,class\n0,male,,8.4583,Third\n0,male,54,51.8625,First\n"
                     "0,male,2,21.075,Third\n1,\"fe,male\",27,11.1333,Third\n",
    "other_header.csv": "survived,sex,age,fare,klass\n1,male,3,4.5,First\n",
    "noheader.csv": "1,2.5,x\n2,3.5,y\n3,,z\n",
    "late_float.csv": "a,b\n1,2\n3,4.5\n",
    "na.csv": "a,b\n1,?\n?,2\n,3\n",
    "big.csv": "id,big\n1,3000000000\n2,5\n",
    "ragged.csv": "a,b\n1,2\n3\n",
    "dup.csv": "a,a\n1,2\n",
}
for name, text in FILES.items():
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


def p(*names):
    return [os.path.join(HERE, n) for n in names]


CASES = {
    "plain": dict(file_pattern=p("titanic_a.csv", "titanic_b.csv"), batch_size=3,
                  label_name="survived", num_epochs=1, shuffle=False),
    "glob": dict(file_pattern=os.path.join(HERE, "titanic_*.csv"), batch_size=4,
                 num_epochs=1, shuffle=False),
    "shuffled": dict(file_pattern=p("titanic_a.csv", "titanic_b.csv"), batch_size=4,
                     label_name="survived", num_epochs=2, shuffle=True, shuffle_seed=7),
    "shuffled_small_buffer": dict(file_pattern=p("titanic_a.csv", "titanic_b.csv"), batch_size=2,
                                  num_epochs=1, shuffle=True, shuffle_seed=3,
                                  shuffle_buffer_size=3),
    "endless": dict(file_pattern=p("titanic_a.csv"), batch_size=4, shuffle=False),
    "select": dict(file_pattern=p("titanic_a.csv", "titanic_b.csv"), batch_size=5,
                   select_columns=["fare", 0, "class"], label_name="class", num_epochs=1,
                   shuffle=False),
    "names_no_header": dict(file_pattern=p("noheader.csv"), batch_size=2, header=False,
                            column_names=["n", "x", "s"], num_epochs=1, shuffle=False),
    "late_float": dict(file_pattern=p("late_float.csv"), batch_size=2, num_epochs=1,
                       shuffle=False, num_rows_for_inference=1),
    "late_float_all_rows": dict(file_pattern=p("late_float.csv"), batch_size=2, num_epochs=1,
                                shuffle=False),
    "na": dict(file_pattern=p("na.csv"), batch_size=3, num_epochs=1, shuffle=False,
               na_value="?"),
    "big": dict(file_pattern=p("big.csv"), batch_size=2, num_epochs=1, shuffle=False),
    "parallel_reads": dict(file_pattern=p("titanic_a.csv", "titanic_b.csv"), batch_size=3,
                           num_epochs=1, shuffle=False, num_parallel_reads=2),
    "given_types": dict(file_pattern=p("titanic_a.csv"), batch_size=5, num_epochs=1,
                        shuffle=False,
                        column_defaults=[tf.int64, tf.string, tf.float64, tf.float32, tf.string]),
    "no_match": dict(file_pattern=os.path.join(HERE, "nothing_*.csv"), batch_size=2),
    "dup_names": dict(file_pattern=p("dup.csv"), batch_size=2),
    "bad_label": dict(file_pattern=p("titanic_a.csv"), batch_size=2, label_name="nope"),
    "dup_select": dict(file_pattern=p("titanic_a.csv"), batch_size=2,
                       select_columns=["age", 2]),
    "bad_index": dict(file_pattern=p("titanic_a.csv"), batch_size=2, select_columns=[7]),
    "bad_name": dict(file_pattern=p("titanic_a.csv"), batch_size=2, select_columns=["x"]),
    "no_names": dict(file_pattern=p("noheader.csv"), batch_size=2, header=False),
    "other_header": dict(file_pattern=p("titanic_a.csv", "other_header.csv"), batch_size=2),
    "ragged": dict(file_pattern=p("ragged.csv"), batch_size=2),
    "defaults_vs_select": dict(file_pattern=p("titanic_a.csv"), batch_size=2,
                               select_columns=[0, 1], column_defaults=[tf.int32]),
}


def jsonable(kw):
    """The case's arguments with file paths relative to this folder and dtypes by name."""
    out = {}
    for k, v in kw.items():
        if k == "file_pattern":
            v = [os.path.relpath(x, HERE) for x in v] if isinstance(v, list) else [os.path.relpath(v, HERE)]
        elif k == "column_defaults":
            v = [t.name for t in v]
        out[k] = v
    return out


def encode(v):
    if v.dtype.kind in "SO":
        return [x.decode() for x in v.tolist()]
    return v.tolist()


out = []
for name, kw in CASES.items():
    case = {"name": name, "args": jsonable(kw)}
    g = tf.Graph()
    with g.as_default():
        try:
            ds = make(**kw)
        except ValueError as e:
            case["error"] = str(e).replace(HERE, "{HERE}")
            out.append(case)
            continue
        flat = tf.nest.flatten(v1.data.get_output_types(ds))
        spec = ds.element_spec
        if isinstance(spec, tuple):
            names = sorted(spec[0].keys()) + [kw["label_name"]]
        else:
            names = sorted(spec.keys())
        case["names"] = names
        case["dtypes"] = [t.name for t in flat]
        nxt = tf.nest.flatten(v1.data.make_one_shot_iterator(ds).get_next())
        batches = []
        with v1.Session() as s:
            try:
                for _ in range(6 if kw.get("num_epochs", None) is None else 100):
                    batches.append([encode(v) for v in s.run(nxt)])
            except tf.errors.OutOfRangeError:
                pass
            except tf.errors.OpError as e:
                lines = [l for l in e.message.split("\n") if l and not l.startswith(("Graph", "Detected", "  ", "Node", "\t"))]
                case["run_error"] = [type(e).__name__, lines[-1] if lines else e.message]
        case["batches"] = batches
    out.append(case)

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(out, f, indent=1)
print(len(out), "cases")
