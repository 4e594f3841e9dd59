//! `StringToHashBucket` (`tf.compat.v1.string_to_hash_bucket`) and the hash behind it:
//! TensorFlow's legacy `Hash64` (core/lib/hash/hash.cc), a seeded 64-bit MurmurHash2
//! variant, so bucket ids match TensorFlow's for the same strings.

use weir_graph::{Output, Result};

/// The seed TensorFlow's one-argument `Hash64(StringPiece)` uses.
const SEED: u64 = 0xDE_CAFC_AFFE;
const M: u64 = 0xc6a4_a793_5bd1_e995;
const R: u32 = 47;

/// TensorFlow's legacy `Hash64(data, n, seed)` (MurmurHash64A): eight little-endian bytes at
/// a time, the tail folded in from its last byte down, then a final avalanche.
pub fn hash64_with_seed(s: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (s.len() as u64).wrapping_mul(M);
    let mut blocks = s.chunks_exact(8);
    for b in &mut blocks {
        let mut k = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= (b as u64) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^ (h >> R)
}

/// TensorFlow's `Hash64(StringPiece)`: [`hash64_with_seed`] with its fixed seed
/// `0xDECAFCAFFE`. Stable across platforms, but TensorFlow reserves the right to change it,
/// which is why `tf.strings.to_hash_bucket_fast` is preferred.
pub fn hash64(s: &[u8]) -> u64 {
    hash64_with_seed(s, SEED)
}

/// `tf.compat.v1.string_to_hash_bucket(string_tensor, num_buckets)` (op `StringToHashBucket`):
/// `Hash64(s) % num_buckets` for each string, as int64, equal to TensorFlow's ids.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, string::string_to_hash_bucket};
/// let g = Graph::new();
/// let words = constant(&g, ["Hello", "TensorFlow", "2.x"])?;
/// let ids = string_to_hash_bucket(&words, 3)?; // [2, 0, 1], as in TensorFlow's docs
/// assert_eq!(ids.dtype(), DType::I64);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn string_to_hash_bucket(string_tensor: impl Into<Output>, num_buckets: i64) -> Result<Output> {
    let input = string_tensor.into();
    crate::new_op(input.graph(), "StringToHashBucket")
        .input(input)
        .attr("num_buckets", num_buckets)
        .build()?
        .output(0)
}

pub(super) fn register() {
    super::hash::register_hash_bucket("StringToHashBucket", "string_tensor");
}

#[cfg(test)]
mod tests {
    use super::hash64;

    // StringToHashBucket(num_buckets=2**62) outputs printed by TensorFlow 2.21 are checked in
    // tests/integration/strings_hash_ngrams.rs; these are the ids of TensorFlow's docstring.
    #[test]
    fn matches_tensorflow_docstring() {
        let ids = ["Hello", "TensorFlow", "2.x"].map(|s| hash64(s.as_bytes()) % 3);
        assert_eq!(ids, [2, 0, 1]);
    }
}
