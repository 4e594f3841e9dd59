"""Writes expected.json: what TensorFlow 2.21's tf.io.decode_compressed gives for each case.

Run with the bench venv: $HOME/.cache/weir-bench/venv/bin/python make_decode_compressed.py
A list of cases; inputs and outputs are base64; an error case records TF's error class and its
message line. Written with TensorFlow 2.21.0.
"""
import base64
import gzip
import json
import random
import zlib

import tensorflow as tf

v1 = tf.compat.v1
v1.disable_eager_execution()

TEXT = b"the quick brown fox jumps over the lazy dog " * 40


def zl(data, level=6, wbits=15, zdict=None):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, zdict=zdict) if zdict else zlib.compressobj(level, zlib.DEFLATED, wbits)
    return c.compress(data) + c.flush()


def gz(data):
    return gzip.compress(data, mtime=0)


def flip(data, at, mask=0xFF):
    b = bytearray(data)
    b[at] ^= mask
    return bytes(b)


rng = random.Random(7)
junk = bytes(rng.randrange(256) for _ in range(300))
big = bytes(rng.randrange(4) for _ in range(30_000))

CASES = [
    ("zlib", "ZLIB", [zl(TEXT)]),
    ("zlib_levels", "ZLIB", [zl(TEXT, 0), zl(TEXT, 1), zl(TEXT, 9)]),
    ("zlib_empty_stream", "ZLIB", [zl(b"")]),
    ("zlib_empty_string", "ZLIB", [b""]),
    ("zlib_trailing_junk", "ZLIB", [zl(TEXT) + b"junk"]),
    ("zlib_two_streams", "ZLIB", [zl(b"first") + zl(b"second")]),
    ("zlib_truncated", "ZLIB", [zl(TEXT)[:n] for n in (1, 2, 3, 10, 40, len(zl(TEXT)) - 4, len(zl(TEXT)) - 1)]),
    ("zlib_bad_header", "ZLIB", [b"not zlib at all"]),
    ("zlib_gzip_input", "ZLIB", [gz(TEXT)]),
    ("zlib_raw_deflate", "ZLIB", [zl(TEXT, wbits=-15)]),
    ("zlib_bad_adler", "ZLIB", [flip(zl(TEXT), -1)]),
    ("zlib_bad_block", "ZLIB", [flip(zl(TEXT), 2, 0x06)]),
    ("zlib_damaged_middle", "ZLIB", [flip(zl(TEXT), 30)]),
    ("zlib_needs_dict", "ZLIB", [zl(b"hello hello", zdict=b"hello")]),
    ("zlib_big", "ZLIB", [zl(big)]),
    ("zlib_junk", "ZLIB", [junk]),
    ("zlib_batch_one_bad", "ZLIB", [zl(b"a"), b"bad", zl(b"c")]),
    ("gzip", "GZIP", [gz(TEXT)]),
    ("gzip_empty_member", "GZIP", [gz(b"")]),
    ("gzip_empty_string", "GZIP", [b""]),
    ("gzip_one_byte", "GZIP", [b"x"]),
    ("gzip_members", "GZIP", [gz(b"first ") + gz(b"") + gz(b"second")]),
    ("gzip_trailing_junk", "GZIP", [gz(TEXT) + b"junk"]),
    ("gzip_trailing_magic", "GZIP", [gz(TEXT) + b"\x1f\x8b"]),
    ("gzip_trailing_zeros", "GZIP", [gz(TEXT) + b"\0\0\0\0"]),
    ("gzip_truncated", "GZIP", [gz(TEXT)[:n] for n in (1, 5, 10, 11, 30, len(gz(TEXT)) - 8, len(gz(TEXT)) - 1)]),
    ("gzip_zlib_input", "GZIP", [zl(TEXT)]),
    ("gzip_bad_crc", "GZIP", [flip(gz(TEXT), -6)]),
    ("gzip_bad_length", "GZIP", [flip(gz(TEXT), -2)]),
    ("gzip_bad_method", "GZIP", [flip(gz(TEXT), 2, 0x01)]),
    ("gzip_big", "GZIP", [gz(big)]),
    ("gzip_junk", "GZIP", [junk]),
    ("none", "", [b"as it is", b"", zl(b"x")]),
    ("bad_type_none_word", "NONE", [b"abc"]),
    ("bad_type_lowercase", "zlib", [zl(b"abc")]),
    ("bad_type_other", "BZIP2", [b"abc"]),
]

SHAPED = [
    ("zlib_matrix", "ZLIB", [[zl(b"a"), zl(b"bb")], [zl(b""), zl(b"dddd")]]),
    ("zlib_scalar", "ZLIB", zl(b"scalar")),
    ("gzip_empty_batch", "GZIP", []),
]


def lcg_bytes(n, seed):
    """n bytes of the generator the Rust test repeats: x = x * 1103515245 + 12345 (mod 2^32),
    each byte the top 8 bits."""
    out = bytearray(n)
    x = seed
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        out[i] = x >> 24
    return bytes(out)


def deflate_stored(data):
    """Raw deflate of stored blocks of at most 65535 bytes (the Rust test writes the same)."""
    out = bytearray()
    blocks = [data[i:i + 65535] for i in range(0, len(data), 65535)] or [b""]
    for i, b in enumerate(blocks):
        out.append(1 if i == len(blocks) - 1 else 0)
        out += len(b).to_bytes(2, "little") + (len(b) ^ 0xFFFF).to_bytes(2, "little") + b
    return bytes(out)


def stored(kind, n, seed):
    data = lcg_bytes(n, seed)
    if kind == "zlib":
        return b"\x78\x01" + deflate_stored(data) + zlib.adler32(data).to_bytes(4, "big")
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + deflate_stored(data)
            + zlib.crc32(data).to_bytes(4, "little") + (n & 0xFFFFFFFF).to_bytes(4, "little"))


# Inputs larger than TensorFlow's 256 KiB input buffer, built from a recipe (a list of stored
# streams, then a cut) that the Rust test follows too; outputs are recorded as length and CRC32.
BIG = [
    ("big_zlib", "ZLIB", [["zlib", 300_000, 1]], None),
    ("big_zlib_cut", "ZLIB", [["zlib", 300_000, 2]], 280_000),
    ("big_gzip_members", "GZIP", [["gzip", 150_000, 3], ["gzip", 150_000, 4], ["gzip", 0, 5], ["gzip", 1000, 6]], None),
    ("big_gzip_members_tail", "GZIP", [["gzip", 200_000, 7], ["gzip", 100_000, 8], ["gzip", 5000, 9]], None),
    ("big_gzip_cut", "GZIP", [["gzip", 300_000, 10]], 270_000),
    ("big_gzip_junk", "GZIP", [["gzip", 270_000, 11]], None),
    # An empty member stops the read only once all input is in the buffer: here it is not yet...
    ("big_gzip_empty_member_early", "GZIP", [["gzip", 100, 12], ["gzip", 0, 13], ["gzip", 300_000, 14]], None),
    # ...and here it is (the input fits the 256 KiB buffer; a smaller buffer would read on).
    ("gzip_empty_member_in_buffer", "GZIP", [["gzip", 100_000, 15], ["gzip", 0, 16], ["gzip", 100_000, 17]], None),
]


def b64(b):
    return base64.b64encode(b).decode()


def flat(x):
    if isinstance(x, (bytes, bytearray)):
        return [bytes(x)]
    return [b for row in x for b in flat(row)]


def run(inp, ct):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(inp, dtype=tf.string)
        y = tf.io.decode_compressed(x, compression_type=ct)
        static = None if y.shape.rank is None else [d for d in y.shape.as_list()]
        with v1.Session() as s:
            try:
                out = s.run(y)
            except tf.errors.OpError as e:
                lines = [l for l in e.message.split("\n") if l and not l.startswith("\t")]
                return {"static_shape": static, "error": type(e).__name__, "message": lines[-1]}
        shape = list(getattr(out, "shape", ()))
        vals = flat(out.tolist() if hasattr(out, "tolist") else out)
        return {"static_shape": static, "shape": shape, "values": [b64(v) for v in vals]}


cases = []
for name, ct, inp in CASES + SHAPED:
    r = run(inp, ct)
    r["shape_in"] = list(tf.constant(inp, dtype=tf.string).shape.as_list()) if inp != [] else [0]
    r.update({"name": name, "compression_type": ct, "inputs": [b64(b) for b in flat(inp)]})
    cases.append(r)

for name, ct, recipe, cut in BIG:
    data = b"".join(stored(*r) for r in recipe)
    if name.endswith("_junk"):
        data += b"junk"
    if cut is not None:
        data = data[:cut]
    r = run([data], ct)
    vals = r.pop("values", None)
    if vals is not None:
        out = base64.b64decode(vals[0])
        r["out_len"], r["out_crc32"] = len(out), zlib.crc32(out)
    r.update({"name": name, "compression_type": ct, "recipe": recipe, "cut": cut,
              "junk": name.endswith("_junk"), "shape_in": [1]})
    cases.append(r)

with open("expected.json", "w") as f:
    json.dump(cases, f, indent=0, sort_keys=True)
    f.write("\n")
print(len(cases), "cases")
