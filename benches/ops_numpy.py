"""numpy side of benches/ops.rs: the same cases, timed the same way.

Prints one JSON object per case on stdout: {"id": ..., "best": s, "median": s}, seconds per
call in the best and the median batch. Run by `cargo bench --bench ops` (one case at a time, with
--only ID), or alone: python benches/ops_numpy.py [--quick] [--only ID].
"""

import json
import sys
import time

import numpy as np


def floats(shape, seed):
    # Values only need to be varied; numpy's generator is fine here.
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def cases():
    a = floats((1024, 1024), 1)
    b = floats((1024, 1024), 2)
    s = floats((1024, 1024), 3)
    m1, k1 = floats((128, 784), 4), floats((784, 10), 5)
    m2, k2 = floats((512, 512), 4), floats((512, 512), 5)
    x = floats((128, 784), 4)
    keep = lambda pct: np.where((np.arange(128 * 784).reshape(128, 784) * 7919) % 100 < pct, x, 0)
    x20, x30, x40 = (keep(p).astype(np.float32) for p in (20, 30, 40))
    w, g = floats((784, 128), 5), floats((128, 128), 5)
    u8 = (np.arange(128 * 784) * 31 % 251).astype(np.uint8).reshape(128, 784)
    i64 = u8.astype(np.int64)
    chw = (np.arange(3 * 32 * 32) * 31 % 251).astype(np.uint8).reshape(3, 32, 32)
    return [
        ("add_f32_1024x1024", lambda: np.add(a, b)),
        ("reduce_sum_axis0_1024x1024", lambda: s.sum(axis=0)),
        ("reduce_sum_axis1_1024x1024", lambda: s.sum(axis=1)),
        ("matmul_128x784x10", lambda: m1 @ k1),
        ("matmul_512x512x512", lambda: m2 @ k2),
        ("matmul_128x784x128", lambda: x @ w),
        ("matmul_sparse20_128x784x128", lambda: x20 @ w),
        ("matmul_sparse20_t_784x128x128", lambda: x20.T @ g),
        ("matmul_sparse30_128x784x128", lambda: x30 @ w),
        ("matmul_sparse40_128x784x128", lambda: x40 @ w),
        ("cast_u8_f32_128x784", lambda: u8.astype(np.float32)),
        ("cast_i64_f32_128x784", lambda: i64.astype(np.float32)),
        ("transpose_u8_3x32x32_hwc", lambda: np.ascontiguousarray(chw.transpose(1, 2, 0))),
    ]


def time_per_call(reps, f):
    """Seconds per call over `reps` batches of about a millisecond, after warming up."""
    t = time.perf_counter()
    for _ in range(3):
        f()
    one = (time.perf_counter() - t) / 3
    k = max(1, min(10000, int(1e-3 / max(one, 1e-7))))
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(k):
            f()
        samples.append((time.perf_counter() - t) / k)
    samples.sort()
    return samples[0], samples[len(samples) // 2]


def main():
    reps = 9 if "--quick" in sys.argv else 41
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    for case_id, f in cases():
        if only is not None and case_id != only:
            continue
        best, median = time_per_call(reps, f)
        print(json.dumps({"id": case_id, "best": best, "median": median}), flush=True)


if __name__ == "__main__":
    main()
