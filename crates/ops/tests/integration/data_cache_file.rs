//! `Dataset.cache(filename)` against TensorFlow 2.21: weir reads the cache files TensorFlow
//! wrote (tests/data/tfdata_cache, made by make_cache.py there) and writes the same bytes for
//! the same elements; and TensorFlow's file life cycle, messages and codes (checked on
//! `tf.compat.v1` graph mode): the lock file while writing, nothing left by a partial pass, a
//! concurrent writer or old shard files refused, a missing directory, a dtype mismatch.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use weir_graph::{Bytes, Code, DType, Graph, Output, Tensor};
use weir_ops::data::Dataset;
use weir_session::{RunArgs, Session};

use crate::io_util::run;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/tfdata_cache/{name}"))
}

/// A fresh empty directory for one test.
fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir_cache_file_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The 12 elements of make_cache.py's `three`: (x, str(x), float32 [x, x + 1]).
fn three() -> Vec<Vec<Tensor>> {
    (0..12i64)
        .map(|x| {
            vec![
                Tensor::scalar(x),
                Tensor::scalar(Bytes::from(x.to_string())),
                Tensor::from(vec![x as f32, (x + 1) as f32]),
            ]
        })
        .collect()
}

const THREE_TYPES: [DType; 3] = [DType::I64, DType::String, DType::F32];

/// The 3 elements of make_cache.py's `eleven`: one component per dtype, and two shaped ones.
fn eleven() -> Vec<Vec<Tensor>> {
    (0..3i64)
        .map(|x| {
            let n = x as usize;
            vec![
                Tensor::scalar(x),
                Tensor::scalar(x as i32),
                Tensor::scalar(x as u8),
                Tensor::scalar(x as i8),
                Tensor::scalar(x as i16),
                Tensor::scalar(x as u16),
                Tensor::scalar(x as f64 / 3.0),
                Tensor::scalar(x % 2 == 0),
                Tensor::scalar(Bytes::from((x * 1000).to_string())),
                Tensor::from_vec(&[n], vec![Bytes::from_static(b"ab"); n]).unwrap(),
                Tensor::from_vec(&[n, 2], (0..2 * x).collect::<Vec<i64>>()).unwrap(),
            ]
        })
        .collect()
}

const ELEVEN_TYPES: [DType; 11] = [
    DType::I64,
    DType::I32,
    DType::U8,
    DType::I8,
    DType::I16,
    DType::U16,
    DType::F64,
    DType::Bool,
    DType::String,
    DType::String,
    DType::I64,
];

/// A dataset of `elements`, counting how often its input is read from the start.
fn generated(
    g: &Graph,
    elements: Vec<Vec<Tensor>>,
    types: &[DType],
) -> (Dataset, Arc<AtomicUsize>) {
    let reads = Arc::new(AtomicUsize::new(0));
    let r = reads.clone();
    let ds = Dataset::from_generator(
        g,
        move || {
            r.fetch_add(1, Ordering::SeqCst);
            elements.clone().into_iter().map(Ok)
        },
        types,
        None,
    )
    .unwrap();
    (ds, reads)
}

/// A session reading `input.cache_file(prefix)` through a one-shot iterator, and its
/// `get_next`.
fn read_cached(input: &Dataset, prefix: &str) -> (Session, Vec<Output>) {
    let next = input
        .cache_file(prefix)
        .unwrap()
        .make_one_shot_iterator()
        .unwrap()
        .get_next()
        .unwrap();
    (Session::new(input.graph()).unwrap(), next)
}

/// Every element until End of sequence.
fn drain(sess: &Session, next: &[Output]) -> Vec<Vec<Tensor>> {
    let mut out = vec![];
    let fetches: Vec<&Output> = next.iter().collect();
    loop {
        match run(sess, &fetches) {
            Ok(v) => out.push(v),
            Err(e) if e.code() == Code::OutOfRange => return out,
            Err(e) => panic!("{e}"),
        }
        assert!(out.len() <= 1000, "no End of sequence");
    }
}

fn init(sess: &Session, op: &weir_graph::Operation) {
    sess.run(&RunArgs::new().target(op)).unwrap();
}

#[test]
fn tensorflows_cache_files_are_read_instead_of_the_input() {
    for (name, elements, types) in [
        ("three", three(), &THREE_TYPES[..]),
        ("eleven", eleven(), &ELEVEN_TYPES[..]),
    ] {
        let g = Graph::new();
        // The input has nothing: every element comes from TensorFlow's files.
        let (input, reads) = generated(&g, vec![], types);
        let prefix = fixture(&format!("{name}/cache"));
        let (sess, next) = read_cached(&input, prefix.to_str().unwrap());
        let got = drain(&sess, &next);
        assert_eq!(got, elements, "{name}");
        assert_eq!(reads.load(Ordering::SeqCst), 0, "{name}");
    }
}

#[test]
fn the_files_weir_writes_are_tensorflows_byte_for_byte() {
    for (name, elements, types) in [
        ("three", three(), &THREE_TYPES[..]),
        ("eleven", eleven(), &ELEVEN_TYPES[..]),
    ] {
        let dir = temp_dir(&format!("bytes_{name}"));
        let g = Graph::new();
        let (input, _) = generated(&g, elements.clone(), types);
        let (sess, next) = read_cached(&input, dir.join("cache").to_str().unwrap());
        assert_eq!(drain(&sess, &next), elements);
        assert_eq!(
            listing(&dir),
            ["cache.data-00000-of-00001", "cache.index"],
            "{name}"
        );
        for file in ["cache.index", "cache.data-00000-of-00001"] {
            let ours = std::fs::read(dir.join(file)).unwrap();
            let theirs = std::fs::read(fixture(&format!("{name}/{file}"))).unwrap();
            assert!(ours == theirs, "{name}/{file} differs from TensorFlow's");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn later_passes_and_other_graphs_read_the_file() {
    let dir = temp_dir("passes");
    let prefix = dir.join("cache");
    let g = Graph::new();
    let (input, reads) = generated(&g, three(), &THREE_TYPES);
    let cached = input.cache_file(prefix.to_str().unwrap()).unwrap();
    let it = cached.make_initializable_iterator().unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    for _ in 0..3 {
        init(&sess, &it.initializer().unwrap());
        assert_eq!(drain(&sess, &next), three());
    }
    assert_eq!(reads.load(Ordering::SeqCst), 1);
    // A repeat after the cache reads the input once too.
    let g2 = Graph::new();
    let (input2, reads2) = generated(&g2, vec![], &THREE_TYPES);
    let twice = input2
        .cache_file(prefix.to_str().unwrap())
        .unwrap()
        .repeat(Some(2))
        .unwrap()
        .make_one_shot_iterator()
        .unwrap();
    let sess2 = Session::new(&g2).unwrap();
    let got = drain(&sess2, &twice.get_next().unwrap());
    assert_eq!(got.len(), 24);
    assert_eq!(got[12..], three()[..]);
    assert_eq!(reads2.load(Ordering::SeqCst), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_partial_pass_locks_while_it_writes_and_leaves_nothing() {
    let dir = temp_dir("partial");
    let g = Graph::new();
    let (input, reads) = generated(&g, three(), &THREE_TYPES);
    let cached = input
        .cache_file(dir.join("cache").to_str().unwrap())
        .unwrap();
    let it = cached
        .take(2)
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    init(&sess, &it.initializer().unwrap());
    for x in 0..2i64 {
        assert_eq!(
            run(&sess, &[&next[0]]).unwrap()[0]
                .to_scalar::<i64>()
                .unwrap(),
            x
        );
    }
    // As TensorFlow's: the shard's data file is still temporary, and the lock file says when
    // it was made.
    let files = listing(&dir);
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(
        files[0].starts_with("cache_0.data-00000-of-00001.tempstate"),
        "{files:?}"
    );
    assert_eq!(files[1], "cache_0.lockfile");
    let lock = std::fs::read_to_string(dir.join("cache_0.lockfile")).unwrap();
    let seconds: u64 = lock.strip_prefix("Created at: ").unwrap().parse().unwrap();
    assert!(seconds > 1_700_000_000, "{lock}");
    // The take's end drops the writer, which removes what it wrote.
    assert_eq!(
        run(&sess, &[&next[0]]).unwrap_err().code(),
        Code::OutOfRange
    );
    assert_eq!(listing(&dir), Vec::<String>::new());
    // So does re-initializing, or closing the session, in the middle of a pass.
    init(&sess, &it.initializer().unwrap());
    run(&sess, &[&next[0]]).unwrap();
    assert_eq!(listing(&dir).len(), 2);
    init(&sess, &it.initializer().unwrap());
    assert_eq!(listing(&dir), Vec::<String>::new());
    run(&sess, &[&next[0]]).unwrap();
    assert_eq!(listing(&dir).len(), 2);
    drop(sess);
    drop(it);
    drop(g);
    assert_eq!(listing(&dir), Vec::<String>::new());
    assert_eq!(reads.load(Ordering::SeqCst), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_writer_and_old_shard_files_are_already_exists() {
    let dir = temp_dir("concurrent");
    let prefix = dir.join("cache");
    let lockfile = dir.join("cache_0.lockfile");
    let g = Graph::new();
    let (input, _) = generated(&g, three(), &THREE_TYPES);
    let cached = input.cache_file(prefix.to_str().unwrap()).unwrap();
    let a = cached.make_initializable_iterator().unwrap();
    let b = cached.make_initializable_iterator().unwrap();
    let sess = Session::new(&g).unwrap();
    init(&sess, &a.initializer().unwrap());
    init(&sess, &b.initializer().unwrap());
    run(&sess, &[&a.get_next().unwrap()[0]]).unwrap();
    let e = run(&sess, &[&b.get_next().unwrap()[0]]).unwrap_err();
    let lock = std::fs::read_to_string(&lockfile).unwrap();
    assert_eq!(e.code(), Code::AlreadyExists);
    assert_eq!(
        e.message(),
        format!(
            "There appears to be a concurrent caching iterator running - cache lockfile already \
             exists ('{}'). If you are sure no other running TF computations are using this \
             cache prefix, delete the lockfile and re-initialize the iterator. Lockfile \
             contents: {lock}",
            lockfile.display()
        )
    );
    drop(sess);
    // Shard files of an earlier writer that was never merged.
    std::fs::write(dir.join("cache_0.index"), "x").unwrap();
    let g = Graph::new();
    let (input, _) = generated(&g, three(), &THREE_TYPES);
    let (sess, next) = read_cached(&input, prefix.to_str().unwrap());
    let e = run(&sess, &[&next[0]]).unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    let shard = dir.join("cache_0");
    assert_eq!(
        e.message(),
        format!(
            "Existing cache files found: \n{0}.index\n{0}.data-00000-of-00001\nTo continue \
             delete the above files.",
            shard.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_directory_and_a_wrong_dtype_get_tensorflows_errors() {
    let dir = temp_dir("errors");
    let g = Graph::new();
    let (input, _) = generated(&g, three(), &THREE_TYPES);
    let missing = dir.join("no/such/cache");
    let (sess, next) = read_cached(&input, missing.to_str().unwrap());
    let e = run(&sess, &[&next[0]]).unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert_eq!(
        e.message(),
        format!(
            "{}_0.lockfile; No such file or directory",
            missing.display()
        )
    );
    // TensorFlow's cache of int64 read as int32.
    let g = Graph::new();
    let (input, _) = generated(&g, vec![], &[DType::I32, DType::String, DType::F32]);
    let (sess, next) = read_cached(&input, fixture("three/cache").to_str().unwrap());
    let e = run(&sess, &[&next[0]]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        "Data type mismatch at component 0: expected int32 but got int64."
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_input_caches_as_empty() {
    // TensorFlow writes an index without a data file (tests/data/tfdata_cache/empty), which
    // later passes read as empty.
    let g = Graph::new();
    let (input, _) = generated(&g, vec![], &THREE_TYPES);
    let (sess, next) = read_cached(&input, fixture("empty/cache").to_str().unwrap());
    assert!(drain(&sess, &next).is_empty());
    let dir = temp_dir("empty");
    let prefix = dir.join("cache");
    for pass in 0..2 {
        let g = Graph::new();
        let (input, reads) = generated(&g, vec![], &THREE_TYPES);
        let (sess, next) = read_cached(&input, prefix.to_str().unwrap());
        assert!(drain(&sess, &next).is_empty());
        assert_eq!(reads.load(Ordering::SeqCst), 1 - pass);
        assert_eq!(listing(&dir), ["cache.index"]);
        let theirs = std::fs::read(fixture("empty/cache.index")).unwrap();
        assert!(std::fs::read(dir.join("cache.index")).unwrap() == theirs);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
