//! Unit tests of the checkpoint format: TensorFlow's exact bytes, round trips, damaged files.

use super::*;

/// `<prefix>.index` as TensorFlow 2.21 wrote it for a Saver of `a` (float32 [[1.5, 2], [3, 4]]),
/// `e` (float32 of shape [0, 3]), `s` (string ["x", "", "hello"]) and `scope/step` (int64 7).
const TF_INDEX: [u8; 192] = [
    0, 0, 6, 8, 1, 26, 2, 8, 1, 0, 1, 19, 97, 8, 1, 18, 8, 18, 2, 8, 2, 18, 2, 8, 2, 40, 16, 53,
    195, 146, 226, 151, 0, 1, 17, 101, 8, 1, 18, 6, 18, 0, 18, 2, 8, 3, 32, 16, 53, 216, 234, 130,
    162, 0, 1, 17, 115, 8, 7, 18, 4, 18, 2, 8, 3, 32, 16, 40, 13, 53, 23, 44, 130, 19, 1, 9, 13,
    99, 111, 112, 101, 47, 115, 116, 101, 112, 8, 9, 18, 0, 32, 29, 40, 8, 53, 187, 215, 159, 17,
    0, 0, 0, 0, 1, 0, 0, 0, 0, 240, 172, 76, 136, 0, 0, 0, 0, 1, 0, 0, 0, 0, 192, 242, 161, 176, 0,
    1, 2, 116, 0, 107, 0, 0, 0, 0, 1, 0, 0, 0, 0, 157, 190, 8, 20, 112, 8, 125, 14, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    87, 251, 128, 139, 36, 117, 71, 219,
];

/// The matching `<prefix>.data-00000-of-00001`.
const TF_DATA: [u8; 37] = [
    0, 0, 192, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 1, 0, 5, 197, 99, 208, 150, 120, 104,
    101, 108, 108, 111, 7, 0, 0, 0, 0, 0, 0, 0,
];

fn tf_tensors() -> Vec<(String, Tensor)> {
    vec![
        (
            "a".into(),
            Tensor::from_vec(&[2, 2], vec![1.5f32, 2.0, 3.0, 4.0]).unwrap(),
        ),
        (
            "e".into(),
            Tensor::from_vec(&[0, 3], Vec::<f32>::new()).unwrap(),
        ),
        ("s".into(), Tensor::from(vec!["x", "", "hello"])),
        ("scope/step".into(), Tensor::from(7i64)),
    ]
}

struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d =
            std::env::temp_dir().join(format!("weir-ckpt-unit-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }

    fn prefix(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn read_all(prefix: &str, tensors: &[(String, Tensor)]) -> Result<Vec<Tensor>> {
    let names: Vec<String> = tensors.iter().map(|t| t.0.clone()).collect();
    let dtypes: Vec<DType> = tensors.iter().map(|t| t.1.dtype()).collect();
    read_checkpoint(prefix, &names, &dtypes)
}

#[test]
fn writes_tensorflows_bytes_exactly() {
    let dir = TempDir::new("bytes");
    let prefix = dir.prefix("model.ckpt-3");
    write_checkpoint(&prefix, &tf_tensors()).unwrap();
    assert_eq!(std::fs::read(index_filename(&prefix)).unwrap(), TF_INDEX);
    assert_eq!(
        std::fs::read(data_filename(&prefix, 0, 1)).unwrap(),
        TF_DATA
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["model.ckpt-3.data-00000-of-00001", "model.ckpt-3.index"]
    );
}

#[test]
fn reads_tensorflows_bytes() {
    let dir = TempDir::new("tfread");
    let prefix = dir.prefix("tf");
    std::fs::write(index_filename(&prefix), TF_INDEX).unwrap();
    std::fs::write(data_filename(&prefix, 0, 1), TF_DATA).unwrap();
    let want = tf_tensors();
    assert_eq!(
        read_all(&prefix, &want).unwrap(),
        want.iter().map(|t| t.1.clone()).collect::<Vec<_>>()
    );
    let listed = list_checkpoint(&prefix).unwrap();
    assert_eq!(
        listed,
        vec![
            ("a".to_string(), DType::F32, vec![2, 2]),
            ("e".to_string(), DType::F32, vec![0, 3]),
            ("s".to_string(), DType::String, vec![3]),
            ("scope/step".to_string(), DType::I64, vec![]),
        ]
    );
}

#[test]
fn round_trips_every_dtype_in_any_order() {
    let dir = TempDir::new("dtypes");
    let prefix = dir.prefix("m");
    let tensors = vec![
        ("z/f64".to_string(), Tensor::from(vec![1e300f64, -0.5])),
        ("i8".to_string(), Tensor::from(vec![-128i8, 127])),
        ("i16".to_string(), Tensor::from(vec![-3i16])),
        (
            "i32".to_string(),
            Tensor::from_vec(&[1, 2], vec![1i32, 2]).unwrap(),
        ),
        ("u8".to_string(), Tensor::from(vec![255u8])),
        ("u16".to_string(), Tensor::from(vec![65535u16])),
        ("flags".to_string(), Tensor::from(vec![true, false, true])),
        (
            "long string".to_string(),
            Tensor::from(vec!["é".repeat(200)]),
        ),
        (
            "no strings".to_string(),
            Tensor::from_vec(&[0], Vec::<Bytes>::new()).unwrap(),
        ),
    ];
    write_checkpoint(&prefix, &tensors).unwrap();
    let got = read_all(&prefix, &tensors).unwrap();
    for ((name, want), got) in tensors.iter().zip(&got) {
        assert_eq!(got, want, "{name}");
    }
    // A subset, in another order.
    let got = read_checkpoint(
        &prefix,
        &["u8".into(), "i8".into()],
        &[DType::U8, DType::I8],
    )
    .unwrap();
    assert_eq!(got[0].to_vec::<u8>().unwrap(), vec![255]);
    assert_eq!(got[1].to_vec::<i8>().unwrap(), vec![-128, 127]);
}

#[test]
fn a_small_block_size_spreads_the_index_over_many_blocks() {
    let dir = TempDir::new("blocks");
    let prefix = dir.prefix("m");
    let tensors: Vec<(String, Tensor)> = (0..300)
        .map(|i| {
            (
                format!("layer_{i:03}/weights"),
                Tensor::from(vec![i as f32; i % 5]),
            )
        })
        .collect();
    let refs: Vec<(&str, &Tensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let opts = TableOptions {
        block_size: 512,
        restart_interval: 16,
    };
    write_bundle(&prefix, &refs, opts).unwrap();
    let index = std::fs::read(index_filename(&prefix)).unwrap();
    let entries = table::read_table(&index).unwrap();
    assert_eq!(entries.len(), 301);
    assert!(table::tests::data_blocks(&index) > 10);
    assert_eq!(
        read_all(&prefix, &tensors).unwrap(),
        tensors.iter().map(|t| t.1.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn missing_files_names_and_dtypes_have_tensorflows_errors() {
    let dir = TempDir::new("errors");
    let prefix = dir.prefix("m");
    let e = read_all(&prefix, &tf_tensors()).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert_eq!(
        e.message(),
        format!("Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {prefix}")
    );
    assert!(!checkpoint_exists(&prefix));
    write_checkpoint(&prefix, &tf_tensors()).unwrap();
    assert!(checkpoint_exists(&prefix));
    let e = read_checkpoint(&prefix, &["nope".into()], &[DType::F32]).unwrap_err();
    assert!(e.is_not_found());
    assert_eq!(e.message(), "Key nope not found in checkpoint");
    let e = read_checkpoint(&prefix, &["a".into()], &[DType::F64]).unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(
        e.message(),
        "tensor_name = a; expected dtype double does not equal original dtype float"
    );
    let e = write_checkpoint(
        &prefix,
        &[
            ("x".into(), Tensor::from(1.0f32)),
            ("x".into(), Tensor::from(2.0f32)),
        ],
    )
    .unwrap_err();
    assert_eq!(e.message(), "Adding duplicate key: x");
    // The failed save left the earlier checkpoint whole, and no temporary files.
    assert_eq!(read_all(&prefix, &tf_tensors()).unwrap().len(), 4);
    std::fs::remove_file(data_filename(&prefix, 0, 1)).unwrap();
    let e = read_all(&prefix, &tf_tensors()).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert!(e.message().contains(&data_filename(&prefix, 0, 1)), "{e}");
    let names: Vec<_> = std::fs::read_dir(&dir.0).unwrap().collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn unknown_dtypes_are_named_as_tensorflow_names_them() {
    assert_eq!(dtype_name(1), "float");
    assert_eq!(dtype_name(19), "half");
    assert_eq!(dtype_name(8), "complex64");
    assert_eq!(dtype_name(101), "float_ref");
    assert_eq!(dtype_name(999), "unknown dtype enum (999)");
}

/// Restores `tensors` from damaged copies of `prefix`'s files: each must fail with DataLoss
/// naming the damaged file.
fn assert_damage_is_data_loss(prefix: &str, tensors: &[(String, Tensor)], file: &str, i: usize) {
    let e = read_all(prefix, tensors).unwrap_err();
    assert!(e.is_data_loss(), "{file} damaged at {i}: {e}");
    assert!(e.message().contains(file), "{file} damaged at {i}: {e}");
}

#[test]
fn every_truncation_and_byte_flip_of_either_file_is_data_loss() {
    let dir = TempDir::new("damage");
    let prefix = dir.prefix("m");
    let tensors = tf_tensors();
    write_checkpoint(&prefix, &tensors).unwrap();
    for file in [index_filename(&prefix), data_filename(&prefix, 0, 1)] {
        let good = std::fs::read(&file).unwrap();
        for cut in 0..good.len() {
            std::fs::write(&file, &good[..cut]).unwrap();
            assert_damage_is_data_loss(&prefix, &tensors, &file, cut);
        }
        for i in 0..good.len() {
            for bit in [0x01u8, 0x20, 0x80] {
                let mut b = good.clone();
                b[i] ^= bit;
                std::fs::write(&file, &b).unwrap();
                assert_damage_is_data_loss(&prefix, &tensors, &file, i);
            }
        }
        std::fs::write(&file, &good).unwrap();
        assert!(read_all(&prefix, &tensors).is_ok());
    }
}

#[test]
fn old_weir_checkpoints_still_restore() {
    let dir = TempDir::new("legacy");
    let prefix = dir.prefix("old.ckpt");
    let mut tensors = legacy::tests::sample();
    std::fs::write(&prefix, legacy::tests::encode(&mut tensors)).unwrap();
    assert!(checkpoint_exists(&prefix));
    assert_eq!(
        read_all(&prefix, &tensors).unwrap(),
        tensors.iter().map(|t| t.1.clone()).collect::<Vec<_>>()
    );
    let listed: Vec<String> = list_checkpoint(&prefix)
        .unwrap()
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert_eq!(listed, ["d", "flags", "global_step", "names", "w"]);
    let e = read_checkpoint(&prefix, &["w".into()], &[DType::I32]).unwrap_err();
    assert_eq!(
        e.message(),
        "tensor_name = w; expected dtype int32 does not equal original dtype float"
    );
    // Once a bundle is written at the same prefix, it takes precedence.
    write_checkpoint(&prefix, &tf_tensors()).unwrap();
    assert_eq!(list_checkpoint(&prefix).unwrap().len(), 4);
    // A file at the prefix that is neither: DataLoss naming it.
    let junk = dir.prefix("junk");
    std::fs::write(&junk, b"hello, world; not a checkpoint").unwrap();
    let e = read_all(&junk, &tensors).unwrap_err();
    assert!(e.is_data_loss() && e.message().contains(&junk), "{e}");
}
