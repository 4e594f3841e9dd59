"""Writes weir's image-codec test data and what TensorFlow decodes from it.

Run with TensorFlow 2.x (tested with 2.21):  python make_images.py
Every image here is small and deterministic: PNG, GIF and BMP files are crafted byte by byte
with the standard library (zlib, struct) so that every colour type, bit depth, palette,
transparency, interlacing and damage case is covered; JPEG files come from tf.io.encode_jpeg,
except jpeg/rgb422, rgb440, cmyk and ycck.jpg (written by the Rust jpeg-encoder crate, which
TensorFlow cannot do), which are kept as inputs.
expected.json lists, one a line, each decode case: the file, the op and its attributes, and
either the shape, dtype and "zdata" (base64 of the zlib-compressed raw little-endian output
TensorFlow produced), or TensorFlow's error class and message."""

import base64
import json
import os
import struct
import zlib

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------------------------
# PNG crafting


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def pack_row(samples, bit_depth):
    """Packs one row of integer samples (a flat list) at `bit_depth` bits each."""
    if bit_depth == 8:
        return bytes(samples)
    if bit_depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    out, acc, nbits = bytearray(), 0, 0
    for s in samples:
        acc = (acc << bit_depth) | s
        nbits += bit_depth
        if nbits == 8:
            out.append(acc)
            acc, nbits = 0, 0
    if nbits:
        out.append(acc << (8 - nbits))
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_bytes(pixels, bit_depth, color_type, extra=b"", interlace=False, filters=(0,)):
    """pixels: array [h, w, samples] of ints. `filters` cycles the filter type per row (0 or 1 or 2)."""
    h, w, _ = pixels.shape
    bpp = max(1, pixels.shape[2] * bit_depth // 8)

    def encode_rows(img):
        raw, prev = bytearray(), None
        for y in range(img.shape[0]):
            row = pack_row([int(v) for v in img[y].reshape(-1)], bit_depth)
            f = filters[y % len(filters)]
            if f == 1:  # Sub
                enc = bytes((row[i] - (row[i - bpp] if i >= bpp else 0)) & 255 for i in range(len(row)))
            elif f == 2:  # Up
                enc = bytes((row[i] - (prev[i] if prev is not None else 0)) & 255 for i in range(len(row)))
            else:
                f, enc = 0, row
            raw += bytes([f]) + enc
            prev = row
        return bytes(raw)

    if interlace:
        raw = b""
        for (x0, y0, dx, dy) in ADAM7:
            sub = pixels[y0::dy, x0::dx]
            if sub.shape[0] and sub.shape[1]:
                raw += encode_rows(sub)
    else:
        raw = encode_rows(pixels)
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 1 if interlace else 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def samples(h, w, c, maxv, seed):
    rng = np.random.RandomState(seed)
    v = rng.randint(0, maxv + 1, size=(h, w, c))
    v[0, 0, :] = 0
    v[-1, -1, :] = maxv
    if c >= 3 and h > 1:  # some gray pixels (r == g == b) for rgb_to_gray's shortcut
        v[1, :, 1] = v[1, :, 0]
        v[1, :, 2] = v[1, :, 0]
    return v


def palette_chunk(n, seed):
    rng = np.random.RandomState(seed)
    return chunk(b"PLTE", bytes(rng.randint(0, 256, size=3 * n).astype(np.uint8)))


def make_pngs():
    H, W = 6, 7
    files = {}
    for bd in (1, 2, 4, 8, 16):
        files[f"gray{bd}"] = png_bytes(samples(H, W, 1, (1 << bd) - 1, bd), bd, 0, filters=(0, 1, 2))
    files["gray2_trns"] = png_bytes(samples(H, W, 1, 3, 20), 2, 0, chunk(b"tRNS", struct.pack(">H", 2)))
    files["gray8_trns"] = png_bytes(samples(H, W, 1, 255, 21) // 64 * 64, 8, 0, chunk(b"tRNS", struct.pack(">H", 128)))
    files["gray16_trns"] = png_bytes(samples(H, W, 1, 3, 22) * 21845, 16, 0, chunk(b"tRNS", struct.pack(">H", 43690)))
    files["ga8"] = png_bytes(samples(H, W, 2, 255, 23), 8, 4, filters=(1, 2, 0))
    files["ga16"] = png_bytes(samples(H, W, 2, 65535, 24), 16, 4)
    files["rgb8"] = png_bytes(samples(H, W, 3, 255, 25), 8, 2, filters=(2, 0, 1))
    files["rgb16"] = png_bytes(samples(H, W, 3, 65535, 26), 16, 2)
    rgb_t = samples(H, W, 3, 1, 27) * 255
    files["rgb8_trns"] = png_bytes(rgb_t, 8, 2, chunk(b"tRNS", struct.pack(">HHH", 255, 0, 255)))
    files["rgb16_trns"] = png_bytes(rgb_t * 257, 16, 2, chunk(b"tRNS", struct.pack(">HHH", 65535, 0, 65535)))
    files["rgba8"] = png_bytes(samples(H, W, 4, 255, 28), 8, 6)
    files["rgba16"] = png_bytes(samples(H, W, 4, 65535, 29), 16, 6)
    for bd in (1, 2, 4, 8):
        n = min(1 << bd, 11)
        idx = samples(H, W, 1, n - 1, 30 + bd)
        files[f"pal{bd}"] = png_bytes(idx, bd, 3, palette_chunk(n, bd))
        trns = bytes([0, 128, 255, 7][: min(n, 4) - 1])
        files[f"pal{bd}_trns"] = png_bytes(idx, bd, 3, palette_chunk(n, bd) + chunk(b"tRNS", trns))
    # Indices past the end of the palette (libpng reads them as black, opaque).
    files["pal4_short"] = png_bytes(samples(H, W, 1, 15, 40), 4, 3, palette_chunk(5, 41) + chunk(b"tRNS", b"\x10\x20"))
    files["rgb8_interlaced"] = png_bytes(samples(11, 13, 3, 255, 42), 8, 2, interlace=True, filters=(0, 1))
    files["gray2_interlaced"] = png_bytes(samples(11, 13, 1, 3, 43), 2, 0, interlace=True)
    files["pal4_interlaced"] = png_bytes(samples(9, 10, 1, 9, 44), 4, 3, palette_chunk(10, 45), interlace=True)
    files["rgba16_interlaced"] = png_bytes(samples(5, 6, 4, 65535, 46), 16, 6, interlace=True)
    files["tiny_interlaced"] = png_bytes(samples(1, 1, 3, 255, 47), 8, 2, interlace=True)
    gama = chunk(b"gAMA", struct.pack(">I", 45455))
    files["rgb8_gama"] = png_bytes(samples(H, W, 3, 255, 48), 8, 2, gama)
    files["rgba8_srgb"] = png_bytes(samples(H, W, 4, 255, 49), 8, 6, chunk(b"sRGB", b"\x00"))
    files["rgb16_gama"] = png_bytes(samples(H, W, 3, 65535, 50), 16, 2, gama)
    files["pal8_gama"] = png_bytes(samples(H, W, 1, 10, 51), 8, 3, gama + palette_chunk(11, 52))
    files["rgb8_gama1"] = png_bytes(samples(H, W, 3, 255, 53), 8, 2, chunk(b"gAMA", struct.pack(">I", 100000)))
    # libpng-written files (real filter choices), from TensorFlow's encoder.
    sess = tf.compat.v1.Session()
    for name, arr in [("tf_rgb8", samples(9, 12, 3, 255, 60).astype(np.uint8)),
                      ("tf_ga8", samples(9, 12, 2, 255, 61).astype(np.uint8)),
                      ("tf_rgba16", samples(9, 12, 4, 65535, 62).astype(np.uint16))]:
        files[name] = sess.run(tf.io.encode_png(arr))
    return {f"png/{k}.png": v for k, v in files.items()}


# ---------------------------------------------------------------------------------------------
# GIF crafting


def lzw(indices, min_code_size):
    """GIF's LZW of a list of colour indices, as data sub-blocks."""
    clear, eoi = 1 << min_code_size, (1 << min_code_size) + 1
    codes = []  # (code, bits)
    size, table, nxt = min_code_size + 1, {}, eoi + 1

    def reset():
        return {bytes([i]): i for i in range(clear)}, eoi + 1, min_code_size + 1

    table, nxt, size = reset()
    codes.append((clear, size))
    w = b""
    for k in indices:
        wk = w + bytes([k])
        if wk in table:
            w = wk
            continue
        codes.append((table[w], size))
        table[wk] = nxt
        nxt += 1
        if nxt > (1 << size) and size < 12:
            size += 1
        if nxt >= 4095:
            codes.append((clear, size))
            table, nxt, size = reset()
        w = bytes([k])
    if w:
        codes.append((table[w], size))
        nxt += 1
        if nxt > (1 << size) and size < 12:
            size += 1
    codes.append((eoi, size))
    acc, nbits, out = 0, 0, bytearray()
    for code, bits in codes:
        acc |= code << nbits
        nbits += bits
        while nbits >= 8:
            out.append(acc & 255)
            acc >>= 8
            nbits -= 8
    if nbits:
        out.append(acc & 255)
    blocks = b"".join(bytes([len(out[i:i + 255])]) + bytes(out[i:i + 255]) for i in range(0, len(out), 255))
    return bytes([min_code_size]) + blocks + b"\x00"


def gif_palette(n, seed):
    rng = np.random.RandomState(seed)
    return bytes(rng.randint(0, 256, size=3 * n).astype(np.uint8))


def gif_frame(left, top, w, h, indices, palette=None, transparent=None, interlace=False, min_code=3):
    out = b""
    if transparent is not None:
        out += b"\x21\xf9\x04" + bytes([1, 10, 0, transparent]) + b"\x00"
    flags = 0x40 if interlace else 0
    if palette is not None:
        flags |= 0x80 | (int(np.log2(len(palette) // 3)) - 1)
    rows = [indices[y * w:(y + 1) * w] for y in range(h)]
    if interlace:
        order = list(range(0, h, 8)) + list(range(4, h, 8)) + list(range(2, h, 4)) + list(range(1, h, 2))
        rows = [rows[y] for y in order]
    flat = [v for r in rows for v in r]
    out += b"\x2c" + struct.pack("<HHHHB", left, top, w, h, flags) + (palette or b"")
    return out + lzw(flat, min_code)


def gif_bytes(sw, sh, frames, global_palette=None, version=b"89a", trailer=True):
    flags = 0
    if global_palette is not None:
        flags = 0x80 | 0x70 | (int(np.log2(len(global_palette) // 3)) - 1)
    out = b"GIF" + version + struct.pack("<HHBBB", sw, sh, flags, 0, 0) + (global_palette or b"")
    out += b"".join(frames)
    return out + (b"\x3b" if trailer else b"")


def idx(n, count, seed):
    return [int(v) for v in np.random.RandomState(seed).randint(0, count, size=n)]


def make_gifs():
    g8 = gif_palette(8, 1)
    files = {
        "single": gif_bytes(7, 5, [gif_frame(0, 0, 7, 5, idx(35, 8, 2))], g8),
        "anim": gif_bytes(8, 6, [
            gif_frame(0, 0, 8, 6, idx(48, 8, 3)),
            gif_frame(2, 1, 4, 3, idx(12, 4, 4), palette=gif_palette(4, 5), transparent=1, min_code=2),
            gif_frame(0, 0, 8, 6, idx(48, 8, 6), transparent=0, interlace=True),
        ], g8),
        "first_small": gif_bytes(9, 9, [
            gif_frame(1, 1, 4, 3, idx(12, 8, 7)),
            gif_frame(0, 0, 6, 5, idx(30, 8, 8)),
        ], g8),
        "offset_beyond": gif_bytes(6, 4, [
            gif_frame(0, 0, 6, 4, idx(24, 8, 9)),
            gif_frame(4, 2, 5, 3, idx(15, 8, 10)),
        ], g8),
        "first_transparent": gif_bytes(5, 4, [gif_frame(0, 0, 5, 4, idx(20, 4, 11), transparent=2)], g8),
        "interlaced_tall": gif_bytes(3, 19, [gif_frame(0, 0, 3, 19, idx(57, 8, 12), interlace=True)], g8),
        "bad_index": gif_bytes(4, 3, [gif_frame(0, 0, 4, 3, idx(12, 4, 13), min_code=2)], gif_palette(2, 14)),
        "no_palette": gif_bytes(4, 3, [gif_frame(0, 0, 4, 3, idx(12, 4, 15), min_code=2)]),
        "version_8x": gif_bytes(4, 3, [gif_frame(0, 0, 4, 3, idx(12, 8, 16))], g8, version=b"87a").replace(b"GIF87a", b"GIF8xa", 1),
        "no_trailer": gif_bytes(4, 3, [gif_frame(0, 0, 4, 3, idx(12, 8, 17)), gif_frame(0, 0, 4, 3, idx(12, 8, 18))], g8, trailer=False),
        "zero_frames": gif_bytes(4, 3, [], g8),
        "only_header": b"GIF89a\x04\x00",
        "short_palette": gif_bytes(4, 3, [], g8)[:20],
        "bad_record": gif_bytes(4, 3, [gif_frame(0, 0, 4, 3, idx(12, 8, 19)), b"\x99junk"], g8, trailer=False),
    }
    # Cut inside the last frame's data (giflib drops the frame), inside the only frame's data,
    # and just before the trailer.
    files["cut_last_frame"] = files["anim"][:-3]
    files["cut_only_frame"] = files["interlaced_tall"][:-20]
    files["cut_trailer"] = files["anim"][:-1]
    return {f"gif/{k}.gif": v for k, v in files.items()}


# ---------------------------------------------------------------------------------------------
# BMP crafting


def bmp_bytes(pixels, bpp, top_down=False, palette=b"", size_delta=0):
    """pixels: array [h, w, c] of BGR(A) or gray samples; rows padded to 4 bytes."""
    h, w, c = pixels.shape
    row = (w * c + 3) // 4 * 4
    rows = [bytes(pixels[y].reshape(-1).astype(np.uint8)) + bytes(row - w * c) for y in range(h)]
    if not top_down:
        rows = rows[::-1]
    data = b"".join(rows)
    offset = 54 + len(palette)
    header = b"BM" + struct.pack("<IHHI", offset + len(data) + size_delta, 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bpp, 0, len(data), 2835, 2835, 0, 0)
    return header + info + palette + data + bytes(max(size_delta, 0))


def make_bmps():
    rng = np.random.RandomState(70)
    files = {
        "bgr24": bmp_bytes(rng.randint(0, 256, size=(3, 5, 3)), 24),
        "bgra32_topdown": bmp_bytes(rng.randint(0, 256, size=(3, 4, 4)), 32, top_down=True),
        "gray8": bmp_bytes(rng.randint(0, 256, size=(2, 6, 1)), 8, palette=gif_palette(256, 71) + bytes(256)),
        "bad_size": bmp_bytes(rng.randint(0, 256, size=(2, 2, 3)), 24, size_delta=3),
        "bpp16": bmp_bytes(rng.randint(0, 256, size=(2, 2, 2)), 16),
    }
    return {f"bmp/{k}.bmp": v for k, v in files.items()}


# ---------------------------------------------------------------------------------------------
# JPEG: TensorFlow's encoder, and four files written by the jpeg-encoder crate (4:2:2, 4:4:0,
# CMYK and YCCK, which TensorFlow cannot write), kept in jpeg/ as inputs.


def natural(h, w, c, seed):
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    chans = []
    for k in range(c):
        v = 128 + 90 * np.sin(x / (5 + 3 * k) + y / (7 + k)) * np.cos(y / (11 + 2 * k)) + 30 * np.sin((x * y) / (60 + 10 * k))
        v += rng.normal(0, 12, size=(h, w))
        v[(x > w * 0.6) & (y < h * 0.4)] = 30 + 60 * k
        chans.append(v)
    return np.clip(np.stack(chans, -1), 0, 255).astype(np.uint8)


def make_jpegs(sess):
    rgb, gray, big = natural(22, 37, 3, 80), natural(21, 30, 1, 81), natural(32, 40, 3, 82)
    ph = tf.compat.v1.placeholder(tf.uint8, [None, None, None])
    specs = {
        "rgb420_q90": (rgb, dict(quality=90)),
        "rgb444_q90": (rgb, dict(quality=90, chroma_downsampling=False)),
        "rgb420_q50": (rgb, dict(quality=50)),
        "rgb420_prog": (rgb, dict(quality=85, progressive=True)),
        "rgb444_prog_opt": (rgb, dict(quality=75, progressive=True, optimize_size=True, chroma_downsampling=False)),
        "gray_q90": (gray, dict(quality=90)),
        "gray_prog": (gray, dict(quality=70, progressive=True)),
        "big420_q95": (big, dict()),
        "big444_q100": (big, dict(quality=100, chroma_downsampling=False)),
    }
    files = {f"jpeg/{k}.jpg": sess.run(tf.io.encode_jpeg(ph, **kw), {ph: img}) for k, (img, kw) in specs.items()}
    for name in ("rgb422", "rgb440", "cmyk", "ycck"):
        with open(os.path.join(HERE, "jpeg", name + ".jpg"), "rb") as f:
            files[f"jpeg/{name}.jpg"] = f.read()
    files["jpeg/truncated.jpg"] = files["jpeg/big420_q95.jpg"][: len(files["jpeg/big420_q95.jpg"]) // 2]
    return files


# ---------------------------------------------------------------------------------------------
# Running TensorFlow


class Runner:
    def __init__(self):
        self.sess = tf.compat.v1.Session()
        self.ph = tf.compat.v1.placeholder(tf.string, [])
        self.ops = {}

    def op(self, name, attrs):
        key = (name, tuple(sorted(attrs.items())))
        if key not in self.ops:
            kw = dict(attrs)
            if "dtype" in kw:
                kw["dtype"] = tf.as_dtype(kw["dtype"])
            if "output_type" in kw:
                kw["output_type"] = tf.as_dtype(kw["output_type"])
            fn = {
                "decode_png": tf.io.decode_png,
                "decode_jpeg": tf.io.decode_jpeg,
                "decode_gif": tf.io.decode_gif,
                "decode_bmp": tf.io.decode_bmp,
                "decode_image": tf.io.decode_image,
                "extract_jpeg_shape": tf.io.extract_jpeg_shape,
            }[name]
            self.ops[key] = fn(self.ph, **kw)
        return self.ops[key]

    def case(self, file, data, name, attrs):
        out = {"file": file, "op": name, "attrs": attrs}
        try:
            v = self.sess.run(self.op(name, attrs), {self.ph: data})
        except tf.errors.OpError as e:
            out["error"] = type(e).__name__
            out["message"] = e.message.split("\n")[-1] if "\n" in e.message else e.message
            # The node's message is the line after "Node: '...'".
            lines = e.message.split("\n")
            for i, line in enumerate(lines):
                if line.startswith("Node: "):
                    out["message"] = lines[i + 1]
            return out
        out["shape"] = list(v.shape)
        out["dtype"] = v.dtype.name
        raw = v.astype(v.dtype.newbyteorder("<")).tobytes()
        out["zdata"] = base64.b64encode(zlib.compress(raw, 9)).decode()
        return out


def make_bad_pngs():
    ok = samples(4, 5, 3, 255, 90)
    good = png_bytes(ok, 8, 2)
    ihdr_end = 8 + 25
    idat = good[ihdr_end:-12]
    raw = b"".join(b"\x00" + bytes(ok[y].reshape(-1).astype(np.uint8)) for y in range(4))

    def with_ihdr(w, h, depth=8, ct=2):
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ct, 0, 0, 0)) + idat + chunk(b"IEND", b"")

    bad_idat = bytearray(good)
    bad_idat[ihdr_end + 10] ^= 0xFF
    files = {
        "huge": with_ihdr(100000, 100000),
        "too_wide": with_ihdr(2000000, 10),
        "big_empty": with_ihdr(20000, 20000),
        "zero_width": with_ihdr(0, 4),
        "bad_depth": with_ihdr(5, 4, depth=4, ct=2),
        "truncated": good[: len(good) - 20],
        "no_iend": good[:-12],
        "bad_ihdr_crc": good[:29] + bytes([good[29] ^ 1]) + good[30:],
        "bad_idat": bytes(bad_idat),
        "no_idat": good[:ihdr_end] + chunk(b"IEND", b""),
        "short_data": good[:ihdr_end] + chunk(b"IDAT", zlib.compress(raw[:-7])) + chunk(b"IEND", b""),
        "extra_data": good[:ihdr_end] + chunk(b"IDAT", zlib.compress(raw + bytes(40))) + chunk(b"IEND", b""),
        "after_iend": good + b"trailing bytes",
        "signature_only": good[:8],
    }
    return {f"png/bad/{k}.png": v for k, v in files.items()}


def png_cases(run, files):
    cases = []
    for path, data in files.items():
        if path.startswith("png/bad/"):
            cases.append(run.case(path, data, "decode_png", {}))
            cases.append(run.case(path, data, "decode_bmp", {}))
            continue
        for dtype in ("uint8", "uint16"):
            for channels in (0, 1, 3, 4):
                cases.append(run.case(path, data, "decode_png", {"channels": channels, "dtype": dtype}))
    for path in ("png/rgb16.png", "png/pal4_trns.png", "png/gray2.png"):
        cases.append(run.case(path, files[path], "decode_image", {"dtype": "float32"}))
    cases.append(run.case("png/rgb8.png", files["png/rgb8.png"], "decode_gif", {}))
    cases.append(run.case("png/rgb8.png", files["png/rgb8.png"], "decode_jpeg", {}))
    return cases


def gif_cases(run, files):
    cases = []
    for path, data in files.items():
        cases.append(run.case(path, data, "decode_gif", {}))
        cases.append(run.case(path, data, "decode_image", {"expand_animations": False}))
        cases.append(run.case(path, data, "decode_png", {}))
    data = files["gif/anim.gif"]
    cases.append(run.case("gif/anim.gif", data, "decode_image", {"dtype": "uint16"}))
    cases.append(run.case("gif/anim.gif", data, "decode_image", {"dtype": "float32"}))
    cases.append(run.case("gif/anim.gif", data, "decode_image", {"channels": 1}))
    cases.append(run.case("gif/single.gif", files["gif/single.gif"], "decode_bmp", {}))
    return cases


def bmp_cases(run, files):
    cases = []
    for path, data in files.items():
        for channels in (0, 3, 4):
            cases.append(run.case(path, data, "decode_bmp", {"channels": channels}))
        if "topdown" not in path:  # TensorFlow sizes a buffer by the negative height and aborts
            cases.append(run.case(path, data, "decode_image", {"dtype": "float32"}))
        cases.append(run.case(path, data, "decode_png", {}))
    cases.append(run.case("bmp/bgr24.bmp", files["bmp/bgr24.bmp"], "decode_bmp", {"channels": 1}))
    cases.append(run.case("bmp/bgr24.bmp", files["bmp/bgr24.bmp"], "decode_image", {"dtype": "uint16"}))
    return cases


ACCURATE = {"jpeg/rgb420_q90.jpg", "jpeg/rgb444_q90.jpg", "jpeg/gray_q90.jpg", "jpeg/rgb420_prog.jpg", "jpeg/big420_q95.jpg"}


def jpeg_cases(run, files):
    cases = []
    for path, data in files.items():
        gray = "gray" in path
        if path == "jpeg/truncated.jpg":
            cases.append(run.case(path, data, "decode_jpeg", {}))
            cases.append(run.case(path, data, "decode_jpeg", {"try_recover_truncated": True}))
            cases.append(run.case(path, data, "extract_jpeg_shape", {}))
            continue
        cases.append(run.case(path, data, "decode_jpeg", {}))
        if path in ACCURATE:
            cases.append(run.case(path, data, "decode_jpeg", {"dct_method": "INTEGER_ACCURATE"}))
        cases.append(run.case(path, data, "decode_jpeg", {"channels": 3 if gray else 1}))
        cases.append(run.case(path, data, "extract_jpeg_shape", {}))
    for path in ("jpeg/rgb420_q90.jpg", "jpeg/big420_q95.jpg", "jpeg/gray_q90.jpg", "jpeg/rgb444_q90.jpg"):
        for ratio in (2, 4, 8):
            cases.append(run.case(path, files[path], "decode_jpeg", {"ratio": ratio}))
    for path in ("jpeg/rgb420_q90.jpg", "jpeg/rgb422.jpg", "jpeg/rgb440.jpg"):
        cases.append(run.case(path, files[path], "decode_jpeg", {"fancy_upscaling": False}))
    cases.append(run.case("jpeg/rgb444_q90.jpg", files["jpeg/rgb444_q90.jpg"], "decode_image", {"dtype": "float32"}))
    cases.append(run.case("jpeg/gray_q90.jpg", files["jpeg/gray_q90.jpg"], "decode_gif", {}))
    cases.append(run.case("jpeg/gray_q90.jpg", files["jpeg/gray_q90.jpg"], "extract_jpeg_shape", {"output_type": "int64"}))
    cases.append(run.case("jpeg/rgb420_q90.jpg", files["jpeg/rgb420_q90.jpg"], "decode_bmp", {}))
    cases.append(run.case("jpeg/rgb420_q90.jpg", files["jpeg/rgb420_q90.jpg"], "decode_image", {"channels": 4}))
    garbage = b"\xff\xd8\xff" + b"garbage" * 5
    files["jpeg/garbage.jpg"] = garbage
    cases.append(run.case("jpeg/garbage.jpg", garbage, "decode_jpeg", {}))
    cases.append(run.case("jpeg/garbage.jpg", garbage, "extract_jpeg_shape", {}))
    unknown = b"this is not an image at all"
    files["misc/unknown.bin"] = unknown
    cases.append(run.case("misc/unknown.bin", unknown, "decode_image", {}))
    cases.append(run.case("misc/unknown.bin", unknown, "decode_png", {}))
    return cases


def main():
    run = Runner()
    files = {}
    files.update(make_pngs())
    files.update(make_bad_pngs())
    cases = png_cases(run, files)
    gifs, bmps = make_gifs(), make_bmps()
    cases += gif_cases(run, gifs) + bmp_cases(run, bmps)
    jpegs = make_jpegs(run.sess)
    cases += jpeg_cases(run, jpegs)
    files.update(gifs)
    files.update(bmps)
    files.update(jpegs)
    for path, data in files.items():
        full = os.path.join(HERE, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        # One case a line: readable diffs, small file.
        f.write('{"tensorflow": %s, "cases": [\n' % json.dumps(tf.__version__))
        f.write(",\n".join(json.dumps(c, sort_keys=True) for c in cases))
        f.write("\n]}\n")
    print(len(files), "files,", len(cases), "cases")


if __name__ == "__main__":
    main()
