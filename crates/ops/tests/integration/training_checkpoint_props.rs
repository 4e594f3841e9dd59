//! TensorFlow-format checkpoints, tried hard: random tensors of every dtype round-trip through
//! `write_checkpoint` / `read_checkpoint`, and damaged copies of either file (a flipped byte, a
//! cut, inserted or deleted bytes) fail with DataLoss naming the file: never a panic, never
//! wrong values, never an allocation sized by a length the file cannot hold.

use std::path::PathBuf;

use proptest::prelude::*;
use weir_graph::{Bytes, DType, Tensor};
use weir_ops::training::checkpoint::{data_filename, index_filename, write_checkpoint};
use weir_ops::training::read_checkpoint;

fn temp_prefix(tag: &str) -> (PathBuf, String) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "weir-ckpt-props-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("model.ckpt").to_string_lossy().into_owned();
    (dir, prefix)
}

/// A tensor of a random dtype and a small random shape (possibly empty, possibly a scalar).
fn tensor() -> impl Strategy<Value = Tensor> {
    let shape = prop::collection::vec(0usize..4, 0..3);
    (shape, 0u8..10).prop_flat_map(|(shape, kind)| {
        let n: usize = shape.iter().product();
        let s = shape.clone();
        match kind {
            0 => prop::collection::vec(-1e6f32..1e6, n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            1 => prop::collection::vec(-1e300f64..1e300, n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            2 => prop::collection::vec(any::<i8>(), n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            3 => prop::collection::vec(any::<i16>(), n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            4 => prop::collection::vec(any::<i32>(), n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            5 => prop::collection::vec(any::<i64>(), n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            6 => prop::collection::vec(any::<u8>(), n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            7 => prop::collection::vec(any::<u16>(), n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            8 => prop::collection::vec(any::<bool>(), n)
                .prop_map(move |v| Tensor::from_vec(&s, v).unwrap())
                .boxed(),
            _ => prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), n)
                .prop_map(move |v| {
                    Tensor::from_vec(&s, v.into_iter().map(Bytes::from).collect::<Vec<_>>())
                        .unwrap()
                })
                .boxed(),
        }
    })
}

/// Distinct names with scopes and shared prefixes, so the index's keys prefix-compress.
fn named_tensors() -> impl Strategy<Value = Vec<(String, Tensor)>> {
    prop::collection::btree_map("[a-c]{1,3}(/[a-z_.0-9]{1,12}){0,2}", tensor(), 1..30)
        .prop_map(|m| m.into_iter().collect())
}

fn read_all(prefix: &str, tensors: &[(String, Tensor)]) -> weir_graph::Result<Vec<Tensor>> {
    let names: Vec<String> = tensors.iter().map(|t| t.0.clone()).collect();
    let dtypes: Vec<DType> = tensors.iter().map(|t| t.1.dtype()).collect();
    read_checkpoint(prefix, &names, &dtypes)
}

/// A damage applied to one of the checkpoint's files.
#[derive(Clone, Debug)]
enum Mutation {
    Flip { at: usize, xor: u8 },
    Truncate { keep: usize },
    Insert { at: usize, bytes: Vec<u8> },
    Delete { at: usize, len: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(at, xor)| Mutation::Flip { at, xor }),
        any::<usize>().prop_map(|keep| Mutation::Truncate { keep }),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..8).prop_map(|(at, len)| Mutation::Delete { at, len }),
    ]
}

fn apply(m: &Mutation, b: &mut Vec<u8>) {
    let n = b.len();
    match m {
        Mutation::Flip { at, xor } if n > 0 => b[at % n] ^= xor,
        Mutation::Truncate { keep } => b.truncate(keep % n.max(1)),
        Mutation::Insert { at, bytes } => {
            let at = at % (n + 1);
            b.splice(at..at, bytes.iter().copied());
        }
        Mutation::Delete { at, len } if n > 0 => {
            let at = at % n;
            b.drain(at..(at + len).min(n));
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_tensors_round_trip(tensors in named_tensors()) {
        let (dir, prefix) = temp_prefix("round");
        write_checkpoint(&prefix, &tensors).unwrap();
        let back = read_all(&prefix, &tensors).unwrap();
        for ((name, want), got) in tensors.iter().zip(&back) {
            prop_assert_eq!(got, want, "{}", name);
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn damaged_files_are_data_loss(
        tensors in named_tensors(),
        m in mutation(),
        in_index in any::<bool>(),
    ) {
        let (dir, prefix) = temp_prefix("damage");
        write_checkpoint(&prefix, &tensors).unwrap();
        let file = if in_index { index_filename(&prefix) } else { data_filename(&prefix, 0, 1) };
        let mut b = std::fs::read(&file).unwrap();
        let good = b.clone();
        apply(&m, &mut b);
        // Bytes appended after the last tensor are never read, by TensorFlow or weir.
        let only_appended = !in_index && b.len() > good.len() && b.starts_with(&good);
        if b != good && !only_appended {
            std::fs::write(&file, &b).unwrap();
            match read_all(&prefix, &tensors) {
                Err(e) => {
                    prop_assert!(e.is_data_loss(), "{:?}: {}", m, e);
                    prop_assert!(e.message().contains(&file), "{:?}: {}", m, e);
                }
                Ok(got) => {
                    // Every change to the index is caught. In the data file, only bytes no
                    // tensor uses (past empty tensors at the end) can change unnoticed, and the
                    // values must then be exactly the written ones.
                    prop_assert!(!in_index, "{:?} of the index went unnoticed", m);
                    let want: Vec<Tensor> = tensors.iter().map(|t| t.1.clone()).collect();
                    prop_assert_eq!(got, want, "{:?} went unnoticed", m);
                }
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
