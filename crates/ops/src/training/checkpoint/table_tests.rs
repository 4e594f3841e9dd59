//! Unit tests of the table writer and reader.

use super::*;

/// How many data blocks the table `file` has (its index block's entries).
pub(crate) fn data_blocks(file: &[u8]) -> usize {
    let footer = &file[file.len() - FOOTER_LEN..];
    let (_, n) = BlockHandle::decode(footer).unwrap();
    let index = BlockHandle::decode(&footer[n..]).unwrap().0;
    let block = read_block(file, index, file.len(), "index").unwrap();
    block_entries(block, 0).unwrap().len()
}

fn build(entries: &[(Vec<u8>, Vec<u8>)], opts: TableOptions) -> Vec<u8> {
    let mut b = TableBuilder::new(opts);
    for (k, v) in entries {
        b.add(k, v);
    }
    b.finish()
}

fn sample(n: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|i| {
            (
                format!("key/{i:05}/{}", "x".repeat(i % 7)).into_bytes(),
                vec![i as u8; i % 40],
            )
        })
        .collect()
}

#[test]
fn separators_and_successors_follow_tensorflow() {
    let mut s = b"scope/step".to_vec();
    short_successor(&mut s);
    assert_eq!(s, b"t");
    let mut s = vec![0xff, 0xff];
    short_successor(&mut s);
    assert_eq!(s, vec![0xff, 0xff]);
    let mut s = b"the quick brown fox".to_vec();
    shortest_separator(&mut s, b"the who");
    assert_eq!(s, b"the r");
    let mut s = b"abc".to_vec();
    shortest_separator(&mut s, b"abd");
    assert_eq!(s, b"abc", "adjacent bytes are not shortened");
    let mut s = b"ab".to_vec();
    shortest_separator(&mut s, b"abc");
    assert_eq!(s, b"ab", "a prefix is not shortened");
}

#[test]
fn round_trips_with_many_blocks_and_restarts() {
    let entries = sample(500);
    for opts in [
        TableOptions::default(),
        TableOptions {
            block_size: 256,
            restart_interval: 16,
        },
        TableOptions {
            block_size: 1,
            restart_interval: 1,
        },
        TableOptions {
            block_size: 4096,
            restart_interval: 3,
        },
    ] {
        let file = build(&entries, opts);
        assert_eq!(read_table(&file).unwrap(), entries, "{opts:?}");
    }
    // A small block size really makes many blocks.
    let file = build(
        &entries,
        TableOptions {
            block_size: 256,
            restart_interval: 16,
        },
    );
    assert!(data_blocks(&file) > 20);
    assert_eq!(data_blocks(&build(&entries, TableOptions::default())), 1);
}

#[test]
fn an_empty_table_and_an_oversized_entry() {
    let file = build(&[], TableOptions::default());
    assert_eq!(file.len(), 2 * (8 + TRAILER_LEN) + FOOTER_LEN);
    assert!(read_table(&file).unwrap().is_empty());
    let big = vec![
        (b"a".to_vec(), vec![1u8; 10]),
        (b"b".to_vec(), vec![2u8; 700]),
        (b"c".to_vec(), vec![3u8; 3]),
    ];
    let opts = TableOptions {
        block_size: 300,
        restart_interval: 16,
    };
    assert_eq!(read_table(&build(&big, opts)).unwrap(), big);
}

#[test]
fn every_truncation_and_byte_flip_is_an_error() {
    let entries = sample(40);
    let file = build(
        &entries,
        TableOptions {
            block_size: 200,
            restart_interval: 4,
        },
    );
    for cut in 0..file.len() {
        assert!(read_table(&file[..cut]).is_err(), "cut at {cut}");
    }
    for i in 0..file.len() {
        for bit in [0x01, 0x80] {
            let mut f = file.clone();
            f[i] ^= bit;
            assert!(read_table(&f).is_err(), "flip {bit:#x} at {i}");
        }
    }
    let mut padded = file.clone();
    padded.insert(0, 0);
    assert!(read_table(&padded).is_err());
}
