//! `tf.data.experimental.TFRecordWriter` (`data::TfRecordWriter`, op `DatasetToTFRecord`)
//! against TensorFlow 2.21 (checked on `tf.compat.v1`): the records of a dataset of scalar
//! strings, uncompressed (TensorFlow's 51 bytes for "a", "bc", ""), GZIP and ZLIB; an unknown
//! codec writing uncompressed; a dataset of anything else refused; a missing directory; and the
//! records before a failing element kept.

use std::path::PathBuf;

use weir_graph::{Code, DType, Graph};
use weir_ops::array::constant;
use weir_ops::data::{Dataset, TfRecordWriter};
use weir_ops::io::{tf_record_iterator, Compression};
use weir_ops::math::greater;
use weir_ops::string::string_to_number;
use weir_session::{RunArgs, Session};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("weir_ds_writer_{}_{name}", std::process::id()))
}

fn records(g: &Graph, values: Vec<&str>) -> Dataset {
    Dataset::from_tensor_slices(&[constant(g, values).unwrap()]).unwrap()
}

fn read_back(path: &PathBuf, c: Compression) -> Vec<Vec<u8>> {
    tf_record_iterator(path, c)
        .unwrap()
        .map(|r| r.unwrap().to_vec())
        .collect()
}

#[test]
fn every_element_becomes_a_record() {
    for (codec, c) in [
        ("", Compression::None),
        ("GZIP", Compression::Gzip),
        ("ZLIB", Compression::Zlib),
        ("BAD", Compression::None),
    ] {
        let g = Graph::new();
        let path = temp(&format!("all_{codec}.tfrecord"));
        let write = TfRecordWriter::new(path.to_str().unwrap())
            .compression_type(codec)
            .write(&records(&g, vec!["a", "bc", ""]))
            .unwrap();
        assert_eq!(write.op_type(), "DatasetToTFRecord");
        let sess = Session::new(&g).unwrap();
        sess.run(&RunArgs::new().target(&write)).unwrap();
        assert_eq!(
            read_back(&path, c),
            [b"a".to_vec(), b"bc".to_vec(), vec![]],
            "{codec}"
        );
        if c == Compression::None {
            // Three records of 16 bytes of framing each, as TensorFlow's file.
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 51);
        }
        // Each run writes the file anew.
        sess.run(&RunArgs::new().target(&write)).unwrap();
        assert_eq!(read_back(&path, c).len(), 3);
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn bad_datasets_files_and_elements_get_tensorflows_errors() {
    let g = Graph::new();
    let w = TfRecordWriter::new("unused");
    let e = w.write(&Dataset::range(&g, 0, 3, 1).unwrap()).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        "Invalid `dataset`. Expected a`dataset` that produces scalar `tf.string` elements, but \
         got a dataset which produces elements with shapes () and types <dtype: 'int64'>."
    );
    let vectors = Dataset::from_tensors(&[constant(&g, vec!["a"]).unwrap()]).unwrap();
    let e = w.write(&vectors).unwrap_err();
    assert!(
        e.message()
            .ends_with("with shapes (1,) and types <dtype: 'string'>."),
        "{}",
        e.message()
    );

    let missing = temp("no_such_dir").join("x.tfrecord");
    let write = TfRecordWriter::new(missing.to_str().unwrap())
        .write(&records(&g, vec!["a"]))
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.run(&RunArgs::new().target(&write)).unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert_eq!(
        e.message(),
        format!("{}; No such file or directory", missing.display())
    );

    // "x" is not a number: the second element fails, the first is in the file.
    let path = temp("partial.tfrecord");
    let numbers = records(&g, vec!["1", "x", "3"])
        .filter(|s| {
            let n = string_to_number(&s[0], DType::F32)?;
            greater(n, constant(s[0].graph(), -1.0f32)?)
        })
        .unwrap();
    let write = TfRecordWriter::new(path.to_str().unwrap())
        .write(&numbers)
        .unwrap();
    let e = sess.run(&RunArgs::new().target(&write)).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(read_back(&path, Compression::None), [b"1".to_vec()]);
    std::fs::remove_file(&path).unwrap();
}
