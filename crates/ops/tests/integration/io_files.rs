//! `read_file` and `write_file` through a session: bytes round-trip exactly, directories are
//! created, and bad input gets TensorFlow's errors.

use std::time::Duration;

use weir_graph::{Code, DType, Graph, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::io::{read_file, write_file};
use weir_session::{RunArgs, Session};

fn scalar(s: &str) -> Tensor {
    Tensor::from_strings(&[s]).reshape(&[]).unwrap()
}

#[test]
fn written_bytes_read_back_exactly_and_missing_files_are_not_found() {
    weir_ops::register_all_ops();
    let dir = std::env::temp_dir().join(format!("weir-io-files-{}", std::process::id()));
    let path = dir.join("a/b/blob.bin");
    let path_s = path.to_str().unwrap().to_string();
    let g = Graph::new();
    let name = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let blob: Vec<u8> = (0..70_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
    let contents = constant(&g, Tensor::scalar(weir_graph::Bytes::from(blob.clone()))).unwrap();
    let write = write_file(&name, &contents).unwrap();
    let read = read_file(&name).unwrap();
    assert_eq!(read.shape(), Shape::scalar());
    let sess = Session::new(&g).unwrap();
    let run = |args: RunArgs| sess.run(&args.timeout(Duration::from_secs(10)));
    run(RunArgs::new().feed(&name, scalar(&path_s)).target(&write)).unwrap();
    let got = run(RunArgs::new().feed(&name, scalar(&path_s)).fetch(&read)).unwrap();
    assert_eq!(got[0].shape(), &[] as &[usize]);
    assert_eq!(
        &got[0].as_slice::<weir_graph::Bytes>().unwrap()[0][..],
        &blob[..]
    );
    assert_eq!(std::fs::read(&path).unwrap(), blob);

    let missing = dir.join("nope.txt");
    let missing = missing.to_str().unwrap();
    let e = run(RunArgs::new().feed(&name, scalar(missing)).fetch(&read)).unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e}");
    assert!(
        e.message()
            .starts_with(&format!("{missing}; No such file or directory")),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_filename_that_is_not_a_scalar_is_refused() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    // Known at build time: the shape function refuses it.
    let two = constant(&g, Tensor::from_strings(&["a", "b"])).unwrap();
    let e = read_file(&two).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(
        e.message().contains("Shape must be rank 0 but is rank 1"),
        "{e}"
    );
    // Known only at run time: the kernel does, in TensorFlow's words.
    let any = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let read = read_file(&any).unwrap();
    let write = write_file(&any, constant(&g, scalar("x")).unwrap()).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&any, Tensor::from_strings(&["a", "b"]))
                .fetch(&read),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .starts_with("Input filename tensor must be scalar, but had shape: [2]"),
        "{e}"
    );
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&any, Tensor::from_strings(&["a", "b"]))
                .target(&write),
        )
        .unwrap_err();
    assert!(
        e.message()
            .starts_with("Input filename tensor must be scalar, but had shape: [2]"),
        "{e}"
    );
    let vector = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let name = constant(&g, scalar("unused")).unwrap();
    let write = write_file(&name, &vector).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&vector, Tensor::from_strings(&["a", "b", "c"]))
                .target(&write),
        )
        .unwrap_err();
    assert!(
        e.message()
            .starts_with("Contents tensor must be scalar, but had shape: [3]"),
        "{e}"
    );
}
