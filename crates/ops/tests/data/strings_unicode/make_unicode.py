"""Records TensorFlow 2.21's Unicode string ops into expected.json (and the script table).

Run with TensorFlow 2.21:  python make_unicode.py  (writes expected.json, and graph.pb with
graph_expected.json, next to this file; with --script-table, prints the Rust table of crates/ops/src/string/unicode_script_data.rs).
RANDOM_CASES=N (default 12) sets the number of seeded random batches per input encoding; weir
matched TensorFlow on 400 per encoding when this was written.

Each case builds one raw op in a tf.compat.v1 graph (UnicodeTranscode, UnicodeDecode,
UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeScript, StringLength, Substr) and runs it in a
Session. Inputs given with `input_shape` are placeholders of that static shape (None: unknown
rank) fed with `input`; otherwise constants. Strings that are not UTF-8 are lists of byte
values. Recorded: the static output shapes (`static_shapes`, None for unknown rank), then either
the values (`out`, one {shape, values} per output) or the error (`build_error` when adding the
node failed, `error` when running it did), as TensorFlow's canonical code and message.
Graph-building messages keep only the part before TensorFlow's "\\n\\t; NodeDef" or
" for '{{node" suffix; run-time messages are the line TensorFlow reports for the node.
"""
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_string_ops

tf.disable_eager_execution()


def enc(s):
    if isinstance(s, str):
        return s
    try:
        return s.decode("utf-8")
    except UnicodeDecodeError:
        return list(s)


def dec(s):
    return s if isinstance(s, bytes) else s.encode("utf-8")


def tensor_json(v):
    # A scalar string comes back as bytes; an "S" array would drop its trailing NULs.
    a = np.array(v, dtype=object) if isinstance(v, bytes) else np.asarray(v)
    flat = a.reshape(-1).tolist()
    if a.dtype == object:
        flat = [enc(x) for x in flat]
    return {"shape": list(a.shape), "values": flat}


def source(c, key, dtype):
    value = c[key]
    if dtype == tf.string:
        arr = np.array(value, dtype=object)
        value = np.array([dec(x) for x in arr.reshape(-1)], dtype=object).reshape(arr.shape)
    else:
        value = np.array(value, dtype=dtype.as_numpy_dtype)
    shape_key = key + "_shape"
    if shape_key not in c:
        return tf.constant(value, dtype=dtype), {}
    p = tf.placeholder(dtype, c[shape_key])
    return p, {p: value}


SPLITS = {"int32": tf.int32, "int64": tf.int64}


def build(c):
    op = c["op"]
    if op == "encode":
        v, feeds = source(c, "values", tf.int32)
        s, more = source(c, "splits", SPLITS[c["tsplits"]])
        feeds.update(more)
        return [gen_string_ops.unicode_encode(v, s, errors=c["errors"],
                                              output_encoding=c["output_encoding"],
                                              replacement_char=c["replacement_char"])], feeds
    if op == "script":
        x, feeds = source(c, "input", tf.int32)
        return [gen_string_ops.unicode_script(x)], feeds
    x, feeds = source(c, "input", tf.string)
    if op == "transcode":
        return [gen_string_ops.unicode_transcode(
            x, input_encoding=c["input_encoding"], output_encoding=c["output_encoding"],
            errors=c["errors"], replacement_char=c["replacement_char"],
            replace_control_characters=c["replace_control_characters"])], feeds
    if op in ("decode", "decode_offsets"):
        f = (gen_string_ops.unicode_decode_with_offsets if op == "decode_offsets"
             else gen_string_ops.unicode_decode)
        return list(f(x, input_encoding=c["input_encoding"], errors=c["errors"],
                      replacement_char=c["replacement_char"],
                      replace_control_characters=c["replace_control_characters"],
                      Tsplits=SPLITS[c["tsplits"]])), feeds
    if op == "length":
        return [gen_string_ops.string_length(x, unit=c["unit"])], feeds
    if op == "substr":
        return [gen_string_ops.substr(x, c["pos"], c["len"], unit=c["unit"])], feeds
    raise ValueError(op)


def build_message(e):
    m = str(e)
    return m.split(" for '{{node")[0].split("\n\t; NodeDef")[0]


def run_message(e):
    lines = e.message.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: '") and i + 1 < len(lines):
            return lines[i + 1]
    return lines[0]


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            outs, feeds = build(c)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static_shapes"] = [o.shape.as_list() if o.shape.rank is not None else None
                              for o in outs]
        with tf.Session() as sess:
            try:
                c["out"] = [tensor_json(v) for v in sess.run(outs, feed_dict=feeds)]
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
    return c


def tc(name, x, ie="UTF-8", oe="UTF-8", errors="replace", rc=65533, rcc=False, **kw):
    return dict(name=name, op="transcode", input=x, input_encoding=ie, output_encoding=oe,
                errors=errors, replacement_char=rc, replace_control_characters=rcc, **kw)


def dc(name, x, ie="UTF-8", errors="replace", rc=65533, rcc=False, offsets=True,
       tsplits="int64", **kw):
    return dict(name=name, op="decode_offsets" if offsets else "decode", input=x,
                input_encoding=ie, errors=errors, replacement_char=rc,
                replace_control_characters=rcc, tsplits=tsplits, **kw)


def ec(name, values, splits, oe="UTF-8", errors="replace", rc=65533, tsplits="int64", **kw):
    return dict(name=name, op="encode", values=values, splits=splits, output_encoding=oe,
                errors=errors, replacement_char=rc, tsplits=tsplits, **kw)


UTF8 = [
    b"", b"hello", "h\u00e9llo \u20ac \U0001F600".encode(), b"a\xffb", b"\x80", b"\xbf\x80x",
    b"\xc0\x80", b"\xc1\xbf", b"\xc2", b"\xc2\x80", b"\xdf\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf",
    b"\xe0\xa0\x80", b"\xe0\xa0", b"\xe2\x82", b"\xe2\x82x", b"\xed\x9f\xbf", b"\xed\xa0\x80",
    b"\xed\xbf\xbf", b"\xee\x80\x80", b"\xef\xbf\xbe", b"\xef\xbf\xbf", b"\xef\xbb\xbfbom",
    b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf0\x90\x80\x80", b"\xf0\x9f\x98", b"\xf0\x9f\x98x",
    b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf8\x88\x80\x80\x80",
    b"\xfc\x84\x80\x80\x80\x80", b"\xfe\xff", b"a\x00b", b"\x01\x1f\x20\x7f", b"\t\n\r",
    b"\xc2\x9f", b"x\xe2\x82\xac\xe2\x82", b"\xed\xa0\xbd\xed\xb8\x80",
]
UTF16 = [b"", b"\x00a", b"\x00a\x00b", b"\xfe\xff\x00a", b"\xff\xfea\x00", b"\xfe\xff", b"\xff\xfe",
         b"\xff", b"\x00a\x00", b"\xd8\x3d\xde\x00", b"\xd8\x3d\x00a", b"\xdc\x00\x00a", b"\xd8\x3d",
         b"\xd8\x3d\xde", b"\xfe\xff\xd8\x3d\xde\x00x", b"\xff\xfe\x00\xd8a\x00", b"\xff\xfe\x00\x00",
         b"\xff\xfe\x00\x00\x00\x00", b"\x00\x00\xfe\xff", b"\xfe\xff\xfe\xff", b"\x00\x01\x00\x1f",
         b"\xfe\xff\x00", b"\xfe\xff\xdc\x00", b"a\x00b\x00c", b"a\x00"]
UTF32 = [b"", b"\x00\x00\x00a", b"a\x00\x00\x00", b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00",
         b"\x00\x00\xfe\xff\x00\x00\x00a\x00\x00\x00b", b"\xff\xfe\x00\x00a\x00\x00\x00",
         b"\x00\x00\xd8\x00", b"\x00\xd8\x00\x00", b"\x00\x11\x00\x00", b"\x00\x00\x11\x00",
         b"\xff\xff\xff\xff", b"\x00\x01\xf6\x00", b"\x00\xf6\x01\x00", b"\x00\x00\x00", b"\x00",
         b"\xff\xfe\x00", b"\x00\x00\xfe\xff\x00", b"\xff\xfe\x00\x00a",
         b"\x00\x00\x00a\x00\x00\xfe\xff", b"\x00\x00\x00\x01"]
LATIN = [b"", b"abc", b"a\x80\xff", b"\x00\x7f\x80", b"caf\xe9", bytes(range(256))]

ENC_UTF16 = ["UTF-16", "UTF-16-BE", "UTF-16-LE"]
ENC_UTF32 = ["UTF-32", "UTF-32-BE", "UTF-32-LE"]
OUT = ["UTF-8", "UTF-16-BE", "UTF-32-BE"]
MODES = ["replace", "ignore", "strict"]

ALIASES = {
    "UTF-8": ["UTF-8", "utf8", "UTF8", "utf-8 ", " u t f 8", "UTF-008", "utf_8", "ibm-1208",
              "ibm-1209", "ibm-5304", "ibm-5305", "ibm-13496", "ibm-13497", "ibm-17592",
              "ibm-17593", "windows-65001", "cp1208", "x-UTF_8J", "unicode-1-1-utf-8",
              "unicode-2-0-utf-8", "UTF-8,foo"],
    "UTF-16": ["UTF-16", "utf16", "ISO-10646-UCS-2", "ibm-1204", "ibm-1205", "unicode",
               "csUnicode", "ucs-2"],
    "UTF-16BE": ["UTF-16BE", "UTF-16-BE", "utf-16be", "x-utf-16be", "UTF16_BigEndian",
                 "ibm-1200", "ibm-1201", "ibm-13488", "ibm-13489", "ibm-17584", "ibm-17585",
                 "ibm-21680", "ibm-21681", "ibm-25776", "ibm-25777", "ibm-29872", "ibm-29873",
                 "ibm-61955", "ibm-61956", "windows-1201", "cp1200", "cp1201",
                 "UTF16_OppositeEndian"],
    "UTF-16LE": ["UTF-16LE", "UTF-16-LE", "x-utf-16le", "UTF16_LittleEndian", "ibm-1202",
                 "ibm-1203", "ibm-13490", "ibm-13491", "ibm-17586", "ibm-17587", "ibm-21682",
                 "ibm-21683", "ibm-25778", "ibm-25779", "ibm-29874", "ibm-29875",
                 "windows-1200", "UTF16_PlatformEndian"],
    "UTF-32": ["UTF-32", "UTF32", "ISO-10646-UCS-4", "ibm-1236", "ibm-1237", "csUCS4", "ucs-4"],
    "UTF-32BE": ["UTF-32BE", "UTF-32-BE", "UTF32_BigEndian", "ibm-1232", "ibm-1233", "ibm-9424",
                 "UTF32_OppositeEndian"],
    "UTF-32LE": ["UTF-32LE", "UTF-32-LE", "UTF32_LittleEndian", "ibm-1234", "ibm-1235",
                 "UTF32_PlatformEndian"],
    "US-ASCII": ["US-ASCII", "ascii", "ASCII", "ANSI_X3.4-1968", "ANSI_X3.4-1986",
                 "ISO_646.irv:1991", "iso_646.irv:1983", "ISO646-US", "us", "csASCII",
                 "iso-ir-6", "cp367", "ascii7", "646", "windows-20127", "ibm-367", "IBM367"],
    "ISO-8859-1": ["ISO-8859-1", "latin1", "ibm-819", "IBM819", "cp819", "8859_1",
                   "csISOLatin1", "iso-ir-100", "ISO_8859-1:1987", "l1", "819", "iso88591",
                   "ISO-8859-01"],
    "windows-1252": ["windows-1252", "cp1252", "ibm-5348", "ibm-5348_P100-1997", "x-cp1252",
                     "windows1252"],
    "ISO-8859-15": ["ISO-8859-15", "iso8859_15", "ibm-923", "ibm-923_P100-1998", "Latin-9",
                    "l9", "8859_15", "latin0", "csisolatin0", "csisolatin9", "iso8859_15_fdis",
                    "cp923", "923", "windows-28605", "latin9", "ISO_8859-15"],
}
PROBE = [b"a\xc3\xa9\xff", b"\x00\x00\xfe\xff\xd8\x3d\xde\x00", b"\xff\xfe\x00\x00a\x00\x00\x00",
         b"\x80\x00", b"\x81\x9f\xa4\xbe"]


def cases():
    out = []
    # Transcode: each UTF-8 sample alone, in every errors mode.
    for i, s in enumerate(UTF8):
        for m in MODES:
            out.append(tc(f"tc_utf8_{i}_{m}", s, errors=m))
        out.append(tc(f"tc_utf8_{i}_rcc", s, rcc=True))
    for oe in OUT:
        for m in ["replace", "ignore"]:
            out.append(tc(f"tc_batch_{oe}_{m}", UTF8, oe=oe, errors=m))
            out.append(tc(f"tc_batch_{oe}_{m}_rcc", UTF8, oe=oe, errors=m, rcc=True))
        out.append(tc(f"tc_strict_ok_{oe}", ["abc", "\u00e9\U0001F600", ""], oe=oe, errors="strict"))
    out.append(tc("tc_strict_rcc_ok", [b"abc", b"\x7f"], errors="strict", rcc=True))
    out.append(tc("tc_strict_rcc_fails", [b"abc", b"a\x01"], errors="strict", rcc=True))
    out.append(tc("tc_strict_batch", [b"abc", b"a\xff"], errors="strict"))
    for rc in [0, 65, 0xD800, 0xD83D, 0xDC00, 0xFFFE, 0x10FFFF, 0x1F600]:
        for oe in OUT:
            out.append(tc(f"tc_rc_{rc}_{oe}", [b"a\xffb", b"\x01\xed\xa0\x80"], oe=oe, rc=rc, rcc=True))
    for rc in [-1, 0x110000, -(2 ** 31)]:
        out.append(tc(f"tc_rc_bad_{rc}", [b"a"], rc=rc))
    for ie, samples in [("UTF-16", UTF16), ("UTF-16-BE", UTF16), ("UTF-16-LE", UTF16),
                        ("UTF-32", UTF32), ("UTF-32-BE", UTF32), ("UTF-32-LE", UTF32),
                        ("US-ASCII", LATIN), ("ISO-8859-1", LATIN), ("windows-1252", LATIN),
                        ("ISO-8859-15", LATIN)]:
        for oe in OUT:
            out.append(tc(f"tc_{ie}_{oe}", samples, ie=ie, oe=oe))
        out.append(tc(f"tc_{ie}_ignore_rcc", samples, ie=ie, errors="ignore", rcc=True))
        for i, s in enumerate(samples):
            out.append(tc(f"tc_{ie}_{i}_strict", s, ie=ie, errors="strict"))
        for i in range(len(samples) if samples is not LATIN else 0):
            # The converter keeps its byte order from one string to the next.
            out.append(tc(f"tc_{ie}_pair_{i}", samples[i:i + 2], ie=ie))
    out.append(tc("tc_rank2", [[b"a\xff", b"b"], [b"", b"\xe2\x82\xac"]], oe="UTF-16-BE"))
    out.append(tc("tc_rank2_empty", np.zeros((2, 0), dtype=object).tolist(), input_shape=[2, 0]))
    out.append(tc("tc_placeholder_unknown", [b"a\xff", b"b"], input_shape=None))
    out.append(tc("tc_placeholder_partial", [[b"a\xff"], [b"b"]], input_shape=[None, 1]))
    out.append(tc("tc_bad_encoding", [b"a"], ie="bogus"))
    out.append(tc("tc_empty_encoding", [b"a"], ie=""))
    out.append(tc("tc_bad_output_encoding", [b"a"], oe="UTF-16-LE"))
    out.append(tc("tc_bad_output_encoding_alias", [b"a"], oe="utf8"))
    out.append(tc("tc_bad_errors", [b"a"], errors="bogus"))
    for canon, names in ALIASES.items():
        for n in names:
            out.append(tc(f"tc_alias_{n}", PROBE, ie=n))

    # Decode.
    for ie, samples in [("UTF-8", UTF8), ("UTF-16", UTF16), ("UTF-16-BE", UTF16),
                        ("UTF-16-LE", UTF16), ("UTF-32", UTF32), ("UTF-32-BE", UTF32),
                        ("UTF-32-LE", UTF32), ("US-ASCII", LATIN), ("ISO-8859-1", LATIN),
                        ("windows-1252", LATIN), ("ISO-8859-15", LATIN)]:
        for m in ["replace", "ignore"]:
            out.append(dc(f"dc_{ie}_{m}", samples, ie=ie, errors=m))
            out.append(dc(f"dc_{ie}_{m}_rcc", samples, ie=ie, errors=m, rcc=True))
            if m == "replace" or samples is not LATIN:
                out.append(dc(f"dc_{ie}_{m}_nooffsets", samples, ie=ie, errors=m,
                              offsets=False))
        for i, s in enumerate(samples):
            out.append(dc(f"dc_{ie}_{i}_strict", [s], ie=ie, errors="strict"))
        for i in range(len(samples) if samples is not LATIN else 0):
            out.append(dc(f"dc_{ie}_pair_{i}", samples[i:i + 2], ie=ie))
    out.append(dc("dc_strict_rcc", [b"a\x01b"], errors="strict", rcc=True))
    out.append(dc("dc_strict_nooffsets", [b"a\xffb"], errors="strict", offsets=False))
    out.append(dc("dc_rc_x", [b"a\xff\x01", b"\xf0\x9f"], rc=120, rcc=True))
    out.append(dc("dc_rc_surrogate", [b"a\xff"], rc=0xD800))
    out.append(dc("dc_rc_bad", [b"a"], rc=0x110000))
    out.append(dc("dc_rc_bad_nooffsets", [b"a"], rc=-1, offsets=False))
    # TensorFlow 2.21 aborts the process (a failed CHECK) on UnicodeDecodeWithOffsets with
    # Tsplits=int32: its kernel writes char_to_byte_starts as int32 while the op declares int64.
    out.append(dc("dc_int32_nooffsets", [b"ab", b"\xe2\x82\xac"], tsplits="int32", offsets=False))
    out.append(dc("dc_scalar", b"h\xc3\xa9"))
    out.append(dc("dc_scalar_nooffsets", b"h\xc3\xa9", offsets=False))
    out.append(dc("dc_rank2", [[b"ab", b"c"], [b"", b"\xf0\x9f\x98\x80d"]]))
    out.append(dc("dc_rank3", [[[b"a"], [b"bc"]]], offsets=False))
    out.append(dc("dc_empty", np.zeros((0,), dtype=object).tolist(), input_shape=[0]))
    out.append(dc("dc_unknown_rank", [b"ab", b"c"], input_shape=None))
    out.append(dc("dc_partial", [[b"ab"], [b"c"]], input_shape=[None, 1]))
    out.append(dc("dc_known_placeholder", [[b"ab"], [b"c"]], input_shape=[2, 1]))
    out.append(dc("dc_bad_encoding", [b"a"], ie="UTF-7x"))
    out.append(dc("dc_bad_encoding_nooffsets", [b"a"], ie="bogus", offsets=False))
    out.append(dc("dc_bad_errors", [b"a"], errors="strictly"))
    for canon, names in ALIASES.items():
        for n in names[:3]:
            out.append(dc(f"dc_alias_{n}", PROBE, ie=n))

    # Random strings of bytes that matter to the decoders (seeded: the same cases every run).
    rng = np.random.RandomState(2021)
    pool = [0x00, 0x01, 0x61, 0x7F, 0x80, 0x9F, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4,
            0xF5, 0xFE, 0xFF, 0xD8, 0xDB, 0xDC, 0xDF, 0x10, 0x11, 0xA0, 0x90, 0x8F]
    for ie in ["UTF-8", "UTF-16", "UTF-16-BE", "UTF-16-LE", "UTF-32", "UTF-32-BE", "UTF-32-LE"]:
        for k in range(int(os.environ.get("RANDOM_CASES", "12"))):
            batch = [bytes(int(b) for b in rng.choice(pool, size=rng.randint(0, 12)))
                     for _ in range(8)]
            out.append(dc(f"dc_random_{ie}_{k}", batch, ie=ie, rcc=bool(k % 3 == 0),
                          errors="ignore" if k % 4 == 1 else "replace"))
            out.append(tc(f"tc_random_{ie}_{k}", batch, ie=ie, oe=OUT[k % 3]))

    # Encode.
    V = [97, 0xD83D, 0xDE00, -1, 0x110000, 0xDC00, 0xFFFE, 0x1F600, 0xD800, 0, 0x10FFFF, 0xE9,
         -(2 ** 31), 2 ** 31 - 1, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000]
    for oe in OUT:
        for m in MODES:
            for ts in ["int32", "int64"]:
                out.append(ec(f"ec_{oe}_{m}_{ts}", V, [0, 3, 9, 9, 20], oe=oe, errors=m, tsplits=ts))
            out.append(ec(f"ec_{oe}_{m}_valid", [104, 0xE9, 0x20AC, 0x1F600, 0, 0xFFFF], [0, 2, 6],
                          oe=oe, errors=m))
        for rc in [0, 0xD83D, 0xDC00, 0x10FFFF, 120]:
            out.append(ec(f"ec_{oe}_rc_{rc}", V, [0, 5, 20], oe=oe, rc=rc))
    out.append(ec("ec_pair_surrogates_ignore", [0xD83D, 0xDE00], [0, 2], errors="ignore"))
    out.append(ec("ec_rc_bad", [97], [0, 1], rc=-5))
    out.append(ec("ec_rc_bad_big", [97], [0, 1], rc=0x110000))
    out.append(ec("ec_last_not_len", [97], [0]))
    out.append(ec("ec_empty_splits", [97], [], splits_shape=[None]))
    out.append(ec("ec_empty_all", [], [], values_shape=[None], splits_shape=[None]))
    out.append(ec("ec_empty_values", [], [0], values_shape=[None]))
    out.append(ec("ec_empty_rows", [], [0, 0, 0]))
    out.append(ec("ec_first_not_zero", [97], [1, 1]))
    out.append(ec("ec_descending", [97, 98], [0, 2, 1, 2]))
    out.append(ec("ec_too_big", [97, 98], [0, 3, 2]))
    out.append(ec("ec_negative", [97, 98], [0, -1, 2]))
    out.append(ec("ec_last_short", [97, 98], [0, 1]))
    out.append(ec("ec_last_long", [97, 98], [0, 3]))
    out.append(ec("ec_rank2_splits_static", [97, 98], [[0, 2]]))
    out.append(ec("ec_rank2_values_static", [[97, 98]], [0, 2]))
    out.append(ec("ec_rank2_splits_fed", [97, 98], [[0, 2]], splits_shape=None))
    out.append(ec("ec_rank2_values_fed", [[97, 98]], [0, 2], values_shape=None))
    out.append(ec("ec_scalar_splits_fed", [97], 0, splits_shape=None))
    out.append(ec("ec_zero_splits_static", [], np.zeros((0,), dtype=np.int64).tolist()))
    out.append(ec("ec_unknown_splits", [97, 98], [0, 1, 2], splits_shape=[None]))
    out.append(ec("ec_bad_output_encoding", [97], [0, 1], oe="UTF-16-LE"))
    out.append(ec("ec_bad_errors", [97], [0, 1], errors="bogus"))

    # Script.
    r = np.load(SCRIPTS) if os.path.exists(SCRIPTS) else all_scripts()
    points = set([-1, -2, -(2 ** 31), 2 ** 31 - 1, 0x110000, 0x10FFFF, 0xD800, 0xDFFF, 0xFFFE])
    for i in range(1, len(r)):
        if r[i] != r[i - 1]:
            points.update([i - 1, i])
    points = sorted(points)
    out.append(dict(name="script_runs", op="script", input=points))
    out.append(dict(name="script_every_997th", op="script", input=list(range(0, 0x110000, 997))))
    out.append(dict(name="script_rank2", op="script", input=[[65, 0x3B1], [0x5D0, -1]]))
    out.append(dict(name="script_scalar", op="script", input=0x0E01))
    out.append(dict(name="script_unknown", op="script", input=[65, 0x4E00], input_shape=None))

    # StringLength and Substr counting UTF-8 characters, on invalid UTF-8 too.
    out.append(dict(name="length_utf8_char", op="length", input=UTF8, unit="UTF8_CHAR"))
    out.append(dict(name="length_byte", op="length", input=UTF8, unit="BYTE"))
    for i, s in enumerate(UTF8 + [b"\x80\x80a\x80", b"ab\x80", "h\u00e9llo".encode()]):
        for pos, ln in [(0, 1), (1, 2), (-1, 1), (0, -1), (1, -1), (-2, -1), (-2, 5), (-1, 0),
                        (2, 1), (-3, 2), (3, 2 ** 31 - 1), (-(2 ** 31), 1)]:
            out.append(dict(name=f"substr_{i}_{pos}_{ln}", op="substr", input=s, pos=pos, len=ln,
                            unit="UTF8_CHAR"))
    return out


SCRIPTS = "/tmp/weir_unicode_scripts.npy"


def all_scripts():
    g = tf.Graph()
    with g.as_default():
        cps = np.arange(0, 0x110000, dtype=np.int32)
        out = gen_string_ops.unicode_script(tf.constant(cps))
        with tf.Session() as sess:
            r = sess.run(out)
    np.save(SCRIPTS, r)
    return r


def script_table():
    r = all_scripts()
    runs = [(0, int(r[0]))]
    for i in range(1, len(r)):
        if r[i] != r[i - 1]:
            runs.append((i, int(r[i])))
    items = [f"(0x{s:06X}, {v})," for s, v in runs]
    lines = ["    " + " ".join(items[i:i + 6]) for i in range(0, len(items), 6)]
    return len(runs), "\n".join(lines)


GRAPH_INPUT = ["h\u00e9llo", b"a\xff\x01", "", "\U0001F600\u0e01"]
GRAPH_FETCHES = ["transcode:0", "decode:0", "decode:1", "decode:2", "encode:0", "script:0",
                 "decode16:0", "decode16:1"]


def write_graph(here):
    """graph.pb: the Unicode ops in one TensorFlow graph fed "x:0"; graph_expected.json: the
    values of GRAPH_FETCHES for GRAPH_INPUT."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.string, [None], name="x")
        t = gen_string_ops.unicode_transcode(x, "UTF-8", "UTF-16-BE", errors="replace",
                                             replace_control_characters=True, name="transcode")
        d = gen_string_ops.unicode_decode_with_offsets(x, "utf8", name="decode")
        gen_string_ops.unicode_encode(d.char_values, d.row_splits, "UTF-32-BE", name="encode")
        gen_string_ops.unicode_script(d.char_values, name="script")
        gen_string_ops.unicode_decode(t, "UTF-16BE", errors="ignore", Tsplits=tf.int32,
                                      name="decode16")
        with open(os.path.join(here, "graph.pb"), "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
        with tf.Session() as sess:
            vals = sess.run(GRAPH_FETCHES, feed_dict={x: [dec(v) for v in GRAPH_INPUT]})
    out = {"input": [enc(dec(v)) for v in GRAPH_INPUT],
           "fetches": [dict(name=n, **tensor_json(v)) for n, v in zip(GRAPH_FETCHES, vals)]}
    with open(os.path.join(here, "graph_expected.json"), "w") as f:
        json.dump(out, f, indent=0, default=to_json)
        f.write("\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if "--script-table" in sys.argv:
        n, body = script_table()
        print("//! ICU's script of every code point, as TensorFlow 2.21's UnicodeScript reports it:")
        print("//! the first code point of each run of one UScriptCode. Generated by")
        print("//! crates/ops/tests/data/strings_unicode/make_unicode.py --script-table.")
        print()
        print("#[rustfmt::skip]")
        print(f"pub(super) static SCRIPT_RUNS: [(u32, u8); {n}] = [\n{body}\n];")
        return
    all_scripts()
    write_graph(here)
    cs = [record(c) for c in cases()]
    names = [c["name"] for c in cs]
    assert len(names) == len(set(names)), "duplicate case names"
    with open(os.path.join(here, "expected.json"), "w") as f:
        # One case per line.
        f.write("[\n" + ",\n".join(json.dumps(c, default=to_json) for c in cs) + "\n]\n")
    print(len(cs), "cases")


def to_json(v):
    if isinstance(v, bytes):
        return enc(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.integer):
        return int(v)
    raise TypeError(type(v))


if __name__ == "__main__":
    main()
