//! `StringToHashBucketFast` and the hash behind it: farmhash's `Fingerprint64`
//! (`farmhashna::Hash64`), which TensorFlow's `Fingerprint64` is, so bucket ids match
//! TensorFlow's for the same strings.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, Bytes, DType, Kernel, OpContext, OpDef, Output, Result, Tensor};

use super::same_shape;

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;

#[inline]
fn fetch64(s: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"))
}

#[inline]
fn fetch32(s: &[u8], i: usize) -> u64 {
    u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes")) as u64
}

#[inline]
fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

#[inline]
fn hash_len16(u: u64, v: u64, mul: u64) -> u64 {
    let mut a = (u ^ v).wrapping_mul(mul);
    a ^= a >> 47;
    let mut b = (v ^ a).wrapping_mul(mul);
    b ^= b >> 47;
    b.wrapping_mul(mul)
}

fn hash_len0to16(s: &[u8]) -> u64 {
    let len = s.len();
    if len >= 8 {
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch64(s, 0).wrapping_add(K2);
        let b = fetch64(s, len - 8);
        let c = b.rotate_right(37).wrapping_mul(mul).wrapping_add(a);
        let d = a.rotate_right(25).wrapping_add(b).wrapping_mul(mul);
        return hash_len16(c, d, mul);
    }
    if len >= 4 {
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch32(s, 0);
        return hash_len16((len as u64).wrapping_add(a << 3), fetch32(s, len - 4), mul);
    }
    if len > 0 {
        let (a, b, c) = (s[0] as u64, s[len >> 1] as u64, s[len - 1] as u64);
        let y = (a + (b << 8)) as u32 as u64;
        let z = (len as u64 + (c << 2)) as u32 as u64;
        return shift_mix(y.wrapping_mul(K2) ^ z.wrapping_mul(K0)).wrapping_mul(K2);
    }
    K2
}

fn hash_len17to32(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K1);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    hash_len16(
        a.wrapping_add(b)
            .rotate_right(43)
            .wrapping_add(c.rotate_right(30))
            .wrapping_add(d),
        a.wrapping_add(b.wrapping_add(K2).rotate_right(18))
            .wrapping_add(c),
        mul,
    )
}

fn hash_len33to64(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K2);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    let y = a
        .wrapping_add(b)
        .rotate_right(43)
        .wrapping_add(c.rotate_right(30))
        .wrapping_add(d);
    let z = hash_len16(
        y,
        a.wrapping_add(b.wrapping_add(K2).rotate_right(18))
            .wrapping_add(c),
        mul,
    );
    let e = fetch64(s, 16).wrapping_mul(mul);
    let f = fetch64(s, 24);
    let g = y.wrapping_add(fetch64(s, len - 32)).wrapping_mul(mul);
    let h = z.wrapping_add(fetch64(s, len - 24)).wrapping_mul(mul);
    hash_len16(
        e.wrapping_add(f)
            .rotate_right(43)
            .wrapping_add(g.rotate_right(30))
            .wrapping_add(h),
        e.wrapping_add(f.wrapping_add(a).rotate_right(18))
            .wrapping_add(g),
        mul,
    )
}

#[inline]
fn weak_hash_len32_with_seeds(s: &[u8], i: usize, a: u64, b: u64) -> (u64, u64) {
    let (w, x, y, z) = (
        fetch64(s, i),
        fetch64(s, i + 8),
        fetch64(s, i + 16),
        fetch64(s, i + 24),
    );
    let mut a = a.wrapping_add(w);
    let mut b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
    let c = a;
    a = a.wrapping_add(x).wrapping_add(y);
    b = b.wrapping_add(a.rotate_right(44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

/// farmhash's `Fingerprint64` of `s`: TensorFlow's `Fingerprint64`, stable across platforms
/// and releases.
pub fn fingerprint64(s: &[u8]) -> u64 {
    let len = s.len();
    if len <= 16 {
        return hash_len0to16(s);
    }
    if len <= 32 {
        return hash_len17to32(s);
    }
    if len <= 64 {
        return hash_len33to64(s);
    }
    const SEED: u64 = 81;
    let mut x = SEED;
    let mut y = SEED.wrapping_mul(K1).wrapping_add(113);
    let mut z = shift_mix(y.wrapping_mul(K2).wrapping_add(113)).wrapping_mul(K2);
    let mut v = (0u64, 0u64);
    let mut w = (0u64, 0u64);
    x = x.wrapping_mul(K2).wrapping_add(fetch64(s, 0));
    // Whole 64-byte blocks, leaving 1 to 64 bytes for the final round on the last 64.
    let end = ((len - 1) / 64) * 64;
    let last64 = len - 64;
    let mut p = 0;
    while p != end {
        x = x
            .wrapping_add(y)
            .wrapping_add(v.0)
            .wrapping_add(fetch64(s, p + 8))
            .rotate_right(37)
            .wrapping_mul(K1);
        y = y
            .wrapping_add(v.1)
            .wrapping_add(fetch64(s, p + 48))
            .rotate_right(42)
            .wrapping_mul(K1);
        x ^= w.1;
        y = y.wrapping_add(v.0).wrapping_add(fetch64(s, p + 40));
        z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
        v = weak_hash_len32_with_seeds(s, p, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
        w = weak_hash_len32_with_seeds(
            s,
            p + 32,
            z.wrapping_add(w.1),
            y.wrapping_add(fetch64(s, p + 16)),
        );
        std::mem::swap(&mut z, &mut x);
        p += 64;
    }
    let mul = K1.wrapping_add((z & 0xff) << 1);
    p = last64;
    w.0 = w.0.wrapping_add(((len - 1) & 63) as u64);
    v.0 = v.0.wrapping_add(w.0);
    w.0 = w.0.wrapping_add(v.0);
    x = x
        .wrapping_add(y)
        .wrapping_add(v.0)
        .wrapping_add(fetch64(s, p + 8))
        .rotate_right(37)
        .wrapping_mul(mul);
    y = y
        .wrapping_add(v.1)
        .wrapping_add(fetch64(s, p + 48))
        .rotate_right(42)
        .wrapping_mul(mul);
    x ^= w.1.wrapping_mul(9);
    y = y
        .wrapping_add(v.0.wrapping_mul(9))
        .wrapping_add(fetch64(s, p + 40));
    z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(mul);
    v = weak_hash_len32_with_seeds(s, p, v.1.wrapping_mul(mul), x.wrapping_add(w.0));
    w = weak_hash_len32_with_seeds(
        s,
        p + 32,
        z.wrapping_add(w.1),
        y.wrapping_add(fetch64(s, p + 16)),
    );
    std::mem::swap(&mut z, &mut x);
    hash_len16(
        hash_len16(v.0, w.0, mul)
            .wrapping_add(shift_mix(y).wrapping_mul(K0))
            .wrapping_add(z),
        hash_len16(v.1, w.1, mul).wrapping_add(x),
        mul,
    )
}

/// `tf.strings.to_hash_bucket_fast(input, num_buckets)`: `Fingerprint64(s) % num_buckets` for
/// each string, as int64. The ids equal TensorFlow's for the same strings.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, string::string_to_hash_bucket_fast};
/// let g = Graph::new();
/// let words = constant(&g, ["Pigs", "Lets", "Fly"])?;
/// let ids = string_to_hash_bucket_fast(&words, 10)?; // [0, 4, 7], as in TensorFlow's docs
/// assert_eq!(ids.dtype(), DType::I64);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn string_to_hash_bucket_fast(input: impl Into<Output>, num_buckets: i64) -> Result<Output> {
    let input = input.into();
    crate::new_op(input.graph(), "StringToHashBucketFast")
        .input(input)
        .attr("num_buckets", num_buckets)
        .build()?
        .output(0)
}

/// `hash(s) % num_buckets` for each string: the kernel of the `StringToHashBucket*` ops.
struct HashKernel {
    buckets: u64,
    hash: fn(&[u8]) -> u64,
}

impl Kernel for HashKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let ids = t
            .as_slice::<Bytes>()?
            .iter()
            .map(|s| ((self.hash)(s) % self.buckets) as i64)
            .collect();
        let out = Tensor::from_vec(t.shape(), ids)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The hash behind each `StringToHashBucket*` op that [`HashKernel`] runs.
fn bucket_hash(op_type: &str) -> fn(&[u8]) -> u64 {
    match op_type {
        "StringToHashBucket" => super::hash_legacy::hash64,
        _ => fingerprint64,
    }
}

/// Registers a hash-bucket op: a string input named `input_name`, an int64 output of its
/// shape, and the `num_buckets` attr (at least 1).
pub(super) fn register_hash_bucket(op: &'static str, input_name: &'static str) {
    register_op(
        OpDef::new(op)
            .input(input_name, ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::I64))
            .int_attr_min("num_buckets", 1)
            .shape_fn(same_shape),
    );
    register_kernel(op, |node| {
        Ok(Box::new(HashKernel {
            buckets: node.attr::<i64>("num_buckets")? as u64,
            hash: bucket_hash(node.op_type()),
        }))
    });
}

pub(super) fn register() {
    register_hash_bucket("StringToHashBucketFast", "input");
}

#[cfg(test)]
mod tests {
    use super::fingerprint64;

    // StringToHashBucketFast(num_buckets=2**62) outputs printed by TensorFlow 2.21.
    #[test]
    fn matches_tensorflow_fingerprints() {
        let m = |s: &[u8]| fingerprint64(s) % (1u64 << 62);
        assert_eq!(m(b""), 1936946117179621455);
        assert_eq!(m(b"a"), 3694432073954588131);
        assert_eq!(m(b"b"), 2572224033622389014);
        assert_eq!(m(b"hello"), 3786372426573024488);
        assert_eq!(m(b"Hello, world!"), 3493709964939663943);
        assert_eq!(m(&[b'x'; 100]), 1978794067220662815);
        assert_eq!(m("\u{e9}".as_bytes()), 693143013273849025);
        let by_len = [
            (0, 1936946117179621455u64),
            (1, 3694432073954588131),
            (3, 3360065502999313129),
            (4, 1373008272375474036),
            (7, 3005736497893877398),
            (8, 1507030721935717893),
            (15, 3040356080517542800),
            (16, 3481940567716887985),
            (17, 3756752071939108419),
            (31, 3673984877978741482),
            (32, 3058527438150226200),
            (33, 3476057946412062037),
            (63, 2908254470160274448),
            (64, 1281596039326491513),
            (65, 3166372076517071988),
            (100, 3930626154289304810),
            (200, 886273374978001185),
        ];
        for (n, want) in by_len {
            assert_eq!(m(&vec![b'a'; n]), want, "length {n}");
        }
        let bytes = [
            645241335607543436u64,
            3051615862604427504,
            1862673765024627790,
            3105970463601476334,
            719405317307782202,
        ];
        for (i, want) in bytes.iter().enumerate() {
            let s: Vec<u8> = (i as u8 * 40..i as u8 * 40 + 40).collect();
            assert_eq!(m(&s), *want);
        }
        let ten = ["Pigs", "Lets", "Fly", "On", "Mars"].map(|s| fingerprint64(s.as_bytes()) % 10);
        assert_eq!(ten, [0, 4, 7, 8, 5]);
    }
}
