//! `StringToHashBucketStrong` and the keyed hash behind it: SipHash-2-4 with TensorFlow's
//! two-element `key` as the 128-bit key, so bucket ids match TensorFlow's for the same strings
//! and key.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, Bytes, DType, Error, Kernel, OpContext, OpDef, Output, Result, Tensor,
};

use super::same_shape;

/// The SipHash state: four 64-bit words.
struct Sip([u64; 4]);

impl Sip {
    #[inline]
    fn round(&mut self) {
        let v = &mut self.0;
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    }

    #[inline]
    fn compress(&mut self, m: u64) {
        self.0[3] ^= m;
        self.round();
        self.round();
        self.0[0] ^= m;
    }
}

/// SipHash-2-4 of `s` under the key `(k0, k1)` (TensorFlow's `StrongKeyedHash`).
pub fn siphash24(k0: u64, k1: u64, s: &[u8]) -> u64 {
    let mut st = Sip([
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ]);
    let mut blocks = s.chunks_exact(8);
    for b in &mut blocks {
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        st.compress(u64::from_le_bytes(w));
    }
    let mut last = [0u8; 8];
    let rest = blocks.remainder();
    last[..rest.len()].copy_from_slice(rest);
    last[7] = s.len() as u8;
    st.compress(u64::from_le_bytes(last));
    st.0[2] ^= 0xff;
    for _ in 0..4 {
        st.round();
    }
    st.0[0] ^ st.0[1] ^ st.0[2] ^ st.0[3]
}

/// `tf.strings.to_hash_bucket_strong(input, num_buckets, key)`: SipHash-2-4 of each string
/// under the 128-bit `key`, modulo `num_buckets`, as int64, equal to TensorFlow's ids. Slower
/// than [`string_to_hash_bucket_fast`](super::string_to_hash_bucket_fast), but strings that
/// collide cannot be picked without knowing `key`.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, string::string_to_hash_bucket_strong};
/// let g = Graph::new();
/// let words = constant(&g, ["Pigs", "Lets", "Fly"])?;
/// let ids = string_to_hash_bucket_strong(&words, 10, [1, 2])?; // [9, 1, 9], as in TensorFlow
/// assert_eq!(ids.dtype(), DType::I64);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn string_to_hash_bucket_strong(
    input: impl Into<Output>,
    num_buckets: i64,
    key: [i64; 2],
) -> Result<Output> {
    let input = input.into();
    crate::new_op(input.graph(), "StringToHashBucketStrong")
        .input(input)
        .attr("num_buckets", num_buckets)
        .attr("key", key.to_vec())
        .build()?
        .output(0)
}

struct StrongKernel {
    buckets: u64,
    key: (u64, u64),
}

impl Kernel for StrongKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let ids = t
            .as_slice::<Bytes>()?
            .iter()
            .map(|s| (siphash24(self.key.0, self.key.1, s) % self.buckets) as i64)
            .collect();
        let out = Tensor::from_vec(t.shape(), ids)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("StringToHashBucketStrong")
            .input("input", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::I64))
            .int_attr_min("num_buckets", 1)
            .attr("key", AttrKind::Ints, None)
            .shape_fn(same_shape),
    );
    register_kernel("StringToHashBucketStrong", |node| {
        let key: Vec<i64> = node.attr("key")?;
        let &[k0, k1] = key.as_slice() else {
            return Err(Error::invalid_argument("Key must have 2 elements"));
        };
        Ok(Box::new(StrongKernel {
            buckets: node.attr::<i64>("num_buckets")? as u64,
            key: (k0 as u64, k1 as u64),
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::siphash24;

    #[test]
    fn reference_vectors() {
        // The SipHash paper's test key 00 01 .. 0f and messages 00 01 .. (n-1).
        let k0 = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7]);
        let k1 = u64::from_le_bytes([8, 9, 10, 11, 12, 13, 14, 15]);
        let msg: Vec<u8> = (0..15).collect();
        assert_eq!(siphash24(k0, k1, &msg), 0xa129_ca61_49be_45e5);
        assert_eq!(siphash24(k0, k1, &[]), 0x726f_db47_dd0e_0e31);
    }

    // StringToHashBucketStrong(num_buckets=2**62, key=[1, 2]) outputs printed by TensorFlow 2.21.
    #[test]
    fn matches_tensorflow() {
        let m = |s: &[u8]| siphash24(1, 2, s) % (1u64 << 62);
        assert_eq!(m(b""), 443797209252341627);
        assert_eq!(m(b"a"), 546566331822570742);
        assert_eq!(m(b"hello"), 2957200328589801622);
        assert_eq!(m(b"Hello, world!"), 430630714691892167);
        assert_eq!(m(&[b'x'; 100]), 1638981394980189463);
        assert_eq!(m("\u{e9}".as_bytes()), 4006969190011310591);
        for (n, want) in [(7, 2307315094896867255u64), (8, 3953429938924346798)] {
            assert_eq!(m(&vec![b'a'; n]), want, "length {n}");
        }
    }
}
