"""Writes expected.json beside this file: TensorFlow 2.21's results for the ops that move or
convert values of every dtype (Cast, DecodeRaw, Bitcast, ...), read by
crates/ops/tests/integration/dtypes_*.rs.

Tensors are recorded as {"dtype", "shape", "hex"}: the little-endian bytes of the elements
(complex: real part first; bool: one byte), so every value, NaN payloads included, compares
bit for bit. Errors are {"type": exception class, "code", "message"}.

Run with TensorFlow 2.21:  python make_dtypes.py
Then, to check that TensorFlow reads the GraphDefs weir writes:
  WEIR_GRAPH_DEF_OUT=/tmp/d cargo test -p weir-ops --test integration dtypes_graph_def
  python make_dtypes.py --check-weir /tmp/d
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))

NUMERIC = [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32,
           tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.complex64, tf.complex128,
           tf.bool]


def spec(value, dtype):
    a = np.asarray(value, dtype=dtype.as_numpy_dtype)
    return {"dtype": dtype.name, "shape": list(a.shape), "hex": a.tobytes().hex()}


def spec_of_array(a, dtype):
    return {"dtype": dtype.name, "shape": list(np.shape(a)),
            "hex": np.ascontiguousarray(a).tobytes().hex()}


def err_message(e):
    """TensorFlow's own message, without the traceback of where the node was defined, the
    `[[{{node ...}}]]` suffix, or a shape function's ` for '{{node ...` context."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def error_of(e):
    return {"type": type(e).__name__, "code": e.error_code, "message": err_message(e)}


def run_cases(cases):
    """Runs each case's `fn` (building its graph in a fresh graph) and records outputs or the
    error; removes `fn`."""
    out = []
    for c in cases:
        fn = c.pop("fn")
        with tf.Graph().as_default():
            try:
                fetches, feeds = fn()
            except (ValueError, TypeError, tf.errors.OpError) as e:
                c["build_error"] = {"type": type(e).__name__, "message": err_message(e)}
                out.append(c)
                continue
            with tf.Session() as s:
                try:
                    vals = s.run(fetches, feed_dict=feeds)
                    c["outputs"] = [spec_of_array(v, f.dtype) for v, f in zip(vals, fetches)]
                except tf.errors.OpError as e:
                    c["error"] = error_of(e)
        out.append(c)
    return out


# ---------------------------------------------------------------------------------------------
# Cast

HALF_F16 = 1.0 + 2.0 ** -11  # exactly between two float16 numbers
HALF_BF16 = 1.0 + 2.0 ** -8  # exactly between two bfloat16 numbers
FLOAT_VALUES = [0.0, -0.0, 1.0, -1.0, 1.5, -1.5, 2.5, -2.7, 0.1, 100.0, 127.0, 255.0, 300.0,
                65504.0, 65519.0, 65520.0, 1e-8, 6e-8, 3e-5, HALF_F16, HALF_F16 + 2.0 ** -10,
                HALF_BF16, HALF_BF16 + 2.0 ** -7, 3.0e38, 1e300, 2.0 ** 31, 2.0 ** 24 + 1,
                np.nan, -np.nan, np.inf, -np.inf]
# float64 values that float32 rounds onto a float16/bfloat16 halfway point: casting them to a
# half type rounds twice if it goes through float.
DOUBLE_ROUNDING = [HALF_F16 + 2.0 ** -30, HALF_F16 - 2.0 ** -30, HALF_BF16 + 2.0 ** -30,
                   HALF_BF16 - 2.0 ** -30]
# NaNs with payloads, signalling ones and negative ones, as bit patterns of each float type:
# conversions quiet them and keep (or drop) payload bits in their own ways.
NAN_BITS = {
    tf.float16: (np.uint16, [0x7D00, 0xFD00, 0x7E01, 0x7C01, 0xFE00]),
    tf.bfloat16: (np.uint16, [0x7FA0, 0xFFA0, 0x7FC1, 0x7F81, 0xFFC0]),
    tf.float32: (np.uint32, [0x7FA00000, 0xFFA00000, 0x7FC00001, 0x7F800001, 0xFFC12345]),
    tf.float64: (np.uint64, [0x7FF4000000000000, 0xFFF4000000000000, 0x7FF8000000000001,
                             0x7FF8123456789ABC, 0xFFF8000000000000]),
}
INT_VALUES = [0, 1, -1, 2, 100, 127, 128, -128, -129, 255, 256, 300, -300, 32767, -32768, 65504,
              65519, 65520, 65535, 2 ** 24 + 1, 2 ** 31 - 1, -2 ** 31, 2 ** 32 - 1, 2 ** 53 + 1,
              2 ** 63 - 1, -2 ** 63, 2 ** 64 - 1]
COMPLEX_VALUES = [1 + 2j, 0 + 1j, 0j, complex(-0.0, -0.0), 1.5 - 2.5j, complex(np.nan, 0),
                  complex(0, np.nan), complex(np.inf, 1), 300 + 0j, -3.5 + 7j, 65520 + 1j]


def in_range(v, dst):
    """Whether casting real value `v` to integer dtype `dst` is defined (C++ leaves a float
    outside the target's range, and NaN, undefined: TensorFlow's result depends on whether
    its vectorized or scalar path ran)."""
    if not dst.is_integer:
        return True
    if not np.isfinite(v):
        return False
    t = np.trunc(v)
    return dst.min <= t <= dst.max


def source_values(src, dst):
    if src == tf.bool:
        return [True, False, True]
    if src.is_complex:
        vals = [v for v in COMPLEX_VALUES if in_range(v.real, dst)]
        return vals
    if src.is_integer:
        return [v for v in INT_VALUES if src.min <= v <= src.max]
    np_t = src.as_numpy_dtype
    vals = FLOAT_VALUES + (DOUBLE_ROUNDING if src == tf.float64 else [])
    with np.errstate(over="ignore"):
        # The source's own values (rounded into src first), then filtered for the target.
        vals = [np.asarray(v, np_t) for v in vals]
    bits_t, bits = NAN_BITS[src]
    vals += [np.asarray(b, bits_t).view(np_t) for b in bits]
    if src == tf.float32 and dst == tf.bfloat16:
        # Eigen's vectorized float->bfloat16 path drops a NaN's sign, its scalar path keeps
        # it: the negative NaNs get a case of their own, of one element (the scalar path).
        vals = [v for v in vals if not (np.isnan(v) and np.signbit(v))]
    return [v for v in vals if in_range(float(v), dst)]


def cast_cases():
    cases = []
    for src in NUMERIC:
        for dst in NUMERIC:
            vals = source_values(src, dst)
            # Twice over, so both Eigen's vectorized and its scalar path see every value.
            with np.errstate(over="ignore"):
                x = np.array(vals * 2, dtype=src.as_numpy_dtype)

            def fn(x=x, src=src, dst=dst):
                return [tf.raw_ops.Cast(x=tf.constant(x, dtype=src), DstT=dst)], None

            cases.append({"name": f"cast_{src.name}_{dst.name}", "op": "cast",
                          "x": spec_of_array(x, src), "dst": dst.name, "fn": fn})
    neg_nans = np.array([0xFFA00000, 0xFFC12345], np.uint32).view(np.float32)
    for k, v in enumerate(neg_nans):
        def fn(v=v):
            return [tf.raw_ops.Cast(x=tf.constant([v]), DstT=tf.bfloat16)], None
        cases.append({"name": f"cast_float32_bfloat16_negative_nan_{k}", "op": "cast",
                      "x": spec_of_array(np.array([v]), tf.float32), "dst": "bfloat16",
                      "fn": fn})
    for dst in [tf.int32, tf.float32, tf.bool]:
        def fn(dst=dst):
            return [tf.raw_ops.Cast(x=tf.constant(["1"]), DstT=dst)], None
        cases.append({"name": f"cast_string_{dst.name}", "op": "cast_string", "dst": dst.name,
                      "fn": fn})
    return run_cases(cases)


# ---------------------------------------------------------------------------------------------
# DecodeRaw / DecodePaddedRaw

RAW_TYPES = [tf.float16, tf.float32, tf.float64, tf.int32, tf.uint16, tf.uint8, tf.int16,
             tf.int8, tf.int64, tf.complex64, tf.complex128, tf.bool, tf.bfloat16]
PADDED_TYPES = [t for t in RAW_TYPES if not (t.is_complex or t == tf.bool)]
RAW_BYTES = bytes(range(1, 33)) + bytes([0x80, 0x3F, 0x00, 0xC0, 0x7C, 0x00, 0xFF, 0x7F])


def decode_raw_cases():
    cases = []
    for t in RAW_TYPES + [tf.uint32, tf.uint64, tf.string]:
        for le in [True, False]:
            size = 1 if t == tf.string else t.size
            n = len(RAW_BYTES) // size * size
            rows = [RAW_BYTES[:n], RAW_BYTES[n - 1::-1][:n]]
            if t == tf.bool:
                # Bytes other than 0 and 1 make bools TensorFlow's session cannot fetch.
                rows = [bytes([0, 1, 1, 0, 1]), bytes([1, 0, 0, 0, 1])]
            # A two-row batch, and a [2, 1] batch, from the same bytes.
            for shape in [[2], [2, 1]]:
                inp = np.array(rows, dtype=object).reshape(shape)

                def fn(inp=inp, t=t, le=le):
                    return [tf.raw_ops.DecodeRaw(bytes=tf.constant(inp), out_type=t,
                                                 little_endian=le)], None

                cases.append({"name": f"decode_raw_{t.name}_{'le' if le else 'be'}_{len(shape)}d",
                              "op": "decode_raw", "input_hex": [r.hex() for r in rows],
                              "input_shape": shape, "out_type": t.name, "little_endian": le,
                              "fn": fn})
            for fixed in [3 * size, 5 * size] + ([size + 1] if size > 1 else []):
                def fn(t=t, le=le, fixed=fixed, size=size):
                    # fed, so that the kernel (not the shape function) checks the length
                    fl = tf.placeholder(tf.int32, [])
                    out = tf.raw_ops.DecodePaddedRaw(input_bytes=tf.constant(
                        [RAW_BYTES[:2 * size], RAW_BYTES[:7 * size + 1]]), fixed_length=fl,
                        out_type=t, little_endian=le)
                    return [out], {fl: fixed}

                cases.append({"name": f"decode_padded_raw_{t.name}_{'le' if le else 'be'}_{fixed}",
                              "op": "decode_padded_raw",
                              "input_hex": [RAW_BYTES[:2 * size].hex(),
                                            RAW_BYTES[:7 * size + 1].hex()],
                              "fixed_length": fixed, "out_type": t.name, "little_endian": le,
                              "fn": fn})
    return run_cases(cases)


# ---------------------------------------------------------------------------------------------
# Bitcast

BITCAST_TYPES = [tf.bfloat16, tf.float16, tf.float32, tf.float64, tf.int64, tf.int32, tf.uint8,
                 tf.uint16, tf.uint32, tf.uint64, tf.int8, tf.int16, tf.complex64,
                 tf.complex128]
# 32 bytes with NaN, infinity and negative-zero patterns of several widths in them.
BITCAST_BYTES = bytes([0x00, 0x7E, 0x01, 0x7C, 0x00, 0x00, 0xC0, 0x7F, 0x00, 0x80, 0x00, 0x00,
                       0x00, 0x00, 0xF8, 0xFF, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0,
                       0x01, 0x00, 0x80, 0x3F, 0xFF, 0xFF, 0xFF, 0xFF])


def bitcast_input(src, dst):
    a = np.frombuffer(BITCAST_BYTES, dtype=src.as_numpy_dtype).copy()
    if src.size < dst.size:
        a = a.reshape([-1, dst.size // src.size])
    return a


def bitcast_cases():
    cases = []
    for src in BITCAST_TYPES:
        for dst in BITCAST_TYPES:
            x = bitcast_input(src, dst)

            def fn(x=x, src=src, dst=dst):
                return [tf.bitcast(tf.constant(x, dtype=src), dst)], None

            cases.append({"name": f"bitcast_{src.name}_{dst.name}", "op": "bitcast",
                          "x": spec_of_array(x, src), "dst": dst.name, "fn": fn})
    # Shapes a wider type cannot take: at build time (constants) and in the kernel (fed).
    bad = [("int8_3_to_int32", np.arange(3, dtype=np.int8), tf.int32),
           ("int8_2x3_to_int32", np.arange(6, dtype=np.int8).reshape(2, 3), tf.int32),
           ("uint16_scalar_to_uint32", np.array(7, np.uint16), tf.uint32),
           ("float16_2x4_to_complex64", np.zeros([2, 4], np.float16), tf.complex64)]
    for name, x, dst in bad:
        src = tf.as_dtype(x.dtype)
        for fed in [False, True]:
            def fn(x=x, src=src, dst=dst, fed=fed):
                if not fed:
                    return [tf.bitcast(tf.constant(x), dst)], None
                p = tf.placeholder(src)
                return [tf.bitcast(p, dst)], {p: x}

            cases.append({"name": f"bitcast_{name}_{'fed' if fed else 'const'}",
                          "op": "bitcast", "x": spec_of_array(x, src), "dst": dst.name,
                          "fed": fed, "fn": fn})
    for src, dst in [(tf.bool, tf.int8), (tf.int8, tf.bool), (tf.string, tf.int8)]:
        x = np.array([True, False]) if src == tf.bool else (
            np.array([b"a"], dtype=object) if src == tf.string else np.array([1, 0], np.int8))

        def fn(x=x, src=src, dst=dst):
            return [tf.bitcast(tf.constant(x, dtype=src), dst)], None

        cases.append({"name": f"bitcast_{src.name}_{dst.name}", "op": "bitcast_bad_type",
                      "src": src.name, "dst": dst.name, "fn": fn})
    return run_cases(cases)


# ---------------------------------------------------------------------------------------------
# SerializeTensor / ParseTensor

def sample(dtype, shape):
    n = int(np.prod(shape))
    if dtype == tf.bool:
        a = np.array([i % 3 == 1 for i in range(n)])
    elif dtype.is_complex:
        a = np.array([complex(i * 0.5 - 1, 2 - i * 0.25) for i in range(n)])
    elif dtype.is_floating:
        a = np.array([[-0.0, 1.5, np.nan, -np.inf, 65504.0, 1e-3][i % 6] for i in range(n)])
    else:
        a = np.array([[0, 1, dtype.max, dtype.min, 7, 100][i % 6] for i in range(n)])
    with np.errstate(over="ignore"):
        return a.astype(dtype.as_numpy_dtype).reshape(shape)


def serialize_cases():
    cases = []
    for t in NUMERIC:
        for shape in [[], [2, 3], [0]]:
            x = sample(t, shape)

            def fn(x=x, t=t):
                c = tf.constant(x, dtype=t)
                ser = tf.io.serialize_tensor(c)
                return [ser, tf.io.parse_tensor(ser, t)], None

            # The proto make_tensor_proto writes (typed value fields such as half_val for
            # scalars, tensor_content otherwise), which ParseTensor must read too.
            py_proto = tf.make_tensor_proto(x, dtype=t).SerializeToString()
            cases.append({"name": f"serialize_{t.name}_{len(shape)}d", "op": "serialize_tensor",
                          "x": spec_of_array(x, t), "python_proto_hex": py_proto.hex(),
                          "fn": fn})
    return run_cases(cases)


# ---------------------------------------------------------------------------------------------
# Ops that only move values: which dtypes each takes, and what it computes with them

NEW_TYPES = [tf.uint32, tf.uint64, tf.float16, tf.bfloat16, tf.complex64, tf.complex128]

MOVE_OPS = {
    "identity": lambda x: tf.identity(x),
    "reshape": lambda x: tf.reshape(x, [3, 2]),
    "concat": lambda x: tf.concat([x, x], axis=1),
    "stack": lambda x: tf.stack([x, x], axis=1),
    "unstack": lambda x: tf.unstack(x, axis=1)[2],
    "gather": lambda x: tf.gather(x, [2, 0], axis=1),
    "slice": lambda x: tf.slice(x, [0, 1], [2, 2]),
    "strided_slice": lambda x: x[::-1, 1::2],
    "transpose": lambda x: tf.transpose(x),
    "tile": lambda x: tf.tile(x, [2, 1]),
    "pad": lambda x: tf.pad(x, [[1, 0], [0, 1]]),
    "zeros_like": lambda x: tf.zeros_like(x),
    "ones_like": lambda x: tf.ones_like(x),
    "fill": lambda x: tf.fill([2, 2], x[0, 1]),
    "expand_dims": lambda x: tf.expand_dims(x, 1),
    "where": lambda x: tf.where(tf.constant([[True, False, True], [False, True, True]]), x,
                                tf.zeros_like(x)),
    "select": lambda x: tf.raw_ops.Select(condition=tf.constant([True, False]), x=x,
                                          y=tf.zeros_like(x)),
    "where_indices": lambda x: tf.where(x),
    "placeholder": None,
}


def move_cases():
    cases = []
    for op, build in MOVE_OPS.items():
        for t in NEW_TYPES:
            x = sample(t, [2, 3])

            def fn(x=x, t=t, op=op, build=build):
                if build is None:
                    p = tf.placeholder(t, [2, 3])
                    return [tf.identity(p)], {p: x}
                return [build(tf.constant(x, dtype=t))], None

            cases.append({"name": f"{op}_{t.name}", "op": "move", "move_op": op,
                          "x": spec_of_array(x, t), "fn": fn})
    return run_cases(cases)


# ---------------------------------------------------------------------------------------------
# Queues: TensorFlow 2.21's queues copy every dtype in enqueue_many/dequeue_many (older
# versions' slice helpers gave Unimplemented for some).

def queue_cases():
    cases = []
    for t in NEW_TYPES + [tf.bool]:
        x = sample(t, [3, 2])

        def fifo(x=x, t=t):
            q = tf.FIFOQueue(10, [t], shapes=[[2]])
            with tf.control_dependencies([q.enqueue_many(tf.constant(x, dtype=t))]):
                many = q.dequeue_many(2)
            with tf.control_dependencies([many]):
                one = q.dequeue()
            return [many, one], None

        def padding(x=x, t=t):
            q = tf.PaddingFIFOQueue(10, [t], shapes=[[None]])
            c = tf.constant(x, dtype=t)
            e1 = q.enqueue(c[0, :1])
            with tf.control_dependencies([e1]):
                e2 = q.enqueue(c[1])
            with tf.control_dependencies([e2]):
                many = q.dequeue_many(2)
            return [many], None

        cases.append({"name": f"fifo_queue_{t.name}", "op": "queue", "kind": "fifo",
                      "x": spec_of_array(x, t), "fn": fifo})
        cases.append({"name": f"padding_fifo_queue_{t.name}", "op": "queue", "kind": "padding",
                      "x": spec_of_array(x, t), "fn": padding})
    return run_cases(cases)


# ---------------------------------------------------------------------------------------------
# A GraphDef written by TensorFlow with constants (scalar and not) and placeholders of every dtype

def graph_def_case():
    from google.protobuf import text_format
    values = {}
    with tf.Graph().as_default() as g:
        for t in NUMERIC:
            for shape in [[], [2, 3]]:
                x = sample(t, shape)
                name = f"const_{t.name}_{len(shape)}d"
                tf.constant(x, dtype=t, name=name)
                values[name] = spec_of_array(x, t)
            tf.placeholder(t, [None, 3], name=f"ph_{t.name}")
        gd = g.as_graph_def()
    return [{"name": "graph_def_every_dtype", "op": "graph_def",
             "pbtxt": text_format.MessageToString(gd), "pb_hex": gd.SerializeToString().hex(),
             "values": values}]


# ---------------------------------------------------------------------------------------------
# The Unique family and ListDiff: which dtypes have kernels, and how -0.0 and NaN group

def unique_input(t, shape):
    if t == tf.bool:
        a = np.array([True, False, False, True, True, False, True, True])
    elif t.is_complex:
        a = np.array([1, 0, 1j, 0, 1, 2, 0, 1j], dtype=np.complex128)
    elif t.is_floating:
        a = np.array([1, 0, -0.0, np.nan, np.nan, 1, 2, 0])
    else:
        a = np.array([1, 0, 0, 5, 5, 1, 2, 0])
    return a.astype(t.as_numpy_dtype).reshape(shape)


UNIQUE_OPS = {
    "Unique": lambda c: tf.raw_ops.Unique(x=c, out_idx=tf.int64),
    "UniqueWithCounts": lambda c: tf.raw_ops.UniqueWithCounts(x=c),
    "UniqueV2": lambda c: tf.raw_ops.UniqueV2(x=c, axis=tf.constant([0], tf.int64)),
    "UniqueWithCountsV2": lambda c: tf.raw_ops.UniqueWithCountsV2(
        x=c, axis=tf.constant([0], tf.int64)),
    "UniqueV2_axis1": lambda c: tf.raw_ops.UniqueV2(x=tf.reshape(c, [2, 4]),
                                                    axis=tf.constant([1], tf.int64)),
    "ListDiff": lambda c: tf.raw_ops.ListDiff(x=c, y=c[1:3]),
}


def unique_cases():
    cases = []
    for t in NEW_TYPES + [tf.bool, tf.float32, tf.int32]:
        x = unique_input(t, [8])
        for op, build in UNIQUE_OPS.items():
            def fn(x=x, t=t, build=build):
                return list(build(tf.constant(x, dtype=t))), None

            cases.append({"name": f"{op}_{t.name}", "op": "unique", "unique_op": op,
                          "x": spec_of_array(x, t), "fn": fn})
    return run_cases(cases)


def check_weir_graph_defs(directory):
    """Imports the GraphDefs weir wrote (dtypes_graph_def.rs with WEIR_GRAPH_DEF_OUT=directory)
    into TensorFlow and checks every constant's bits against expected.json."""
    from google.protobuf import text_format
    with open(os.path.join(HERE, "expected.json")) as f:
        case = [c for c in json.load(f) if c["op"] == "graph_def"][0]
    for fname in sorted(os.listdir(directory)):
        gd = tf.GraphDef()
        with open(os.path.join(directory, fname), "rb") as f:
            data = f.read()
        if fname.endswith(".pbtxt"):
            text_format.Parse(data.decode(), gd)
        else:
            gd.ParseFromString(data)
        with tf.Graph().as_default() as g:
            tf.import_graph_def(gd, name="")
            with tf.Session() as s:
                for name, spec in case["values"].items():
                    t = g.get_tensor_by_name(name + ":0")
                    got = spec_of_array(s.run(t), t.dtype)
                    assert got == spec, (fname, name, got, spec)
        print(fname, "imports into TensorFlow with every value intact")


def main():
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--check-weir":
        check_weir_graph_defs(sys.argv[2])
        return
    cases = (cast_cases() + decode_raw_cases() + bitcast_cases() + serialize_cases()
             + move_cases() + queue_cases() + graph_def_case() + unique_cases())
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(cases, f, indent=0)
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
