//! Reader ops with the queue side exercised: blocking until work arrives, closing, session
//! close and timeouts, bad queue elements, state save/restore, and one reader shared by threads.

use crate::io_util;

use std::time::Duration;

use io_util::{queue_of, queue_resource, run, scalar_bytes, string_queue, TempDir, LIMIT};
use weir_graph::{Bytes, DType, Graph, Tensor};
use weir_ops::io::{Compression, IdentityReader, RecordWriter, TextLineReader, TfRecordReader};
use weir_session::{RunArgs, Session};

#[test]
fn serialize_and_restore_state() {
    let g = Graph::new();
    let iq = string_queue(&g, "iq", &["w1", "w2", "w3"], true);
    let ir = IdentityReader::new().build(&g).unwrap();
    let (_, iv) = ir.read(&iq).unwrap();
    let state = ir.serialize_state().unwrap();
    let fed = weir_ops::array::placeholder(&g, DType::String, weir_graph::Shape::scalar()).unwrap();
    let restore = ir.restore_state(&fed).unwrap();
    let produced = ir.num_records_produced().unwrap();
    let tq = string_queue(&g, "tq", &[], true);
    let tl = TextLineReader::new().build(&g).unwrap();
    let _ = tl.read(&tq).unwrap();
    let tstate = tl.serialize_state().unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &[&iv]).unwrap();
    let s = run(&sess, &[&state]).unwrap()[0].clone();
    run(&sess, &[&iv]).unwrap();
    assert_eq!(
        run(&sess, &[&produced]).unwrap()[0]
            .to_scalar::<i64>()
            .unwrap(),
        2
    );
    sess.run(&RunArgs::new().feed(&fed, s).target(&restore))
        .unwrap();
    assert_eq!(
        run(&sess, &[&produced]).unwrap()[0]
            .to_scalar::<i64>()
            .unwrap(),
        1
    );
    let bad = sess.run(
        &RunArgs::new()
            .feed(&fed, Tensor::scalar(Bytes::from_static(b"\x08")))
            .target(&restore),
    );
    assert!(bad.unwrap_err().is_invalid_argument());
    assert_eq!(
        run(&sess, &[&produced]).unwrap()[0]
            .to_scalar::<i64>()
            .unwrap(),
        0
    );
    let e = run(&sess, &[&tstate]).unwrap_err();
    assert!(e.is_unimplemented());
    assert_eq!(e.message(), "Reader SerializeState");
}

#[test]
fn bad_queue_elements_are_invalid_argument() {
    let g = Graph::new();
    let int_q = queue_of(&g, "iq", vec![DType::I32], &[], false);
    let two_q = queue_of(&g, "tq", vec![DType::String, DType::String], &[], false);
    let vec_q = queue_of(&g, "vq", vec![DType::String], &[], false);
    let r1 = IdentityReader::new().build(&g).unwrap();
    let (k1, _) = r1.read(&int_q).unwrap();
    let (k2, _) = r1.read(&two_q).unwrap();
    let (k3, _) = r1.read(&vec_q).unwrap();
    let sess = Session::new(&g).unwrap();
    let handles = run(&sess, &[&int_q, &two_q, &vec_q]).unwrap();
    queue_resource(&handles[0]).push(vec![Tensor::scalar(1i32)]);
    queue_resource(&handles[1]).push(vec![Tensor::from("a"), Tensor::from("b")]);
    queue_resource(&handles[2]).push(vec![Tensor::from(vec!["a", "b"])]);
    for (k, msg) in [
        (&k1, "Expected queue with single string component"),
        (&k2, "Expected single component queue"),
        (&k3, "Expected to dequeue a one-element string tensor"),
    ] {
        let e = run(&sess, &[k]).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        assert_eq!(e.message(), msg);
    }
}

#[test]
fn read_blocks_until_work_arrives_or_the_queue_closes() {
    let tmp = TempDir::new("block");
    let f = tmp.file("f.txt", b"hello\n");
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[], false);
    let (k, v) = TextLineReader::new().build(&g).unwrap().read(&fq).unwrap();
    let sess = Session::new(&g).unwrap();
    let q = queue_resource(&run(&sess, &[&fq]).unwrap()[0]);
    let h = sess.handle();
    let (k2, v2) = (k.clone(), v.clone());
    let t = std::thread::spawn(move || h.run(&RunArgs::new().fetch(&k2).fetch(&v2).timeout(LIMIT)));
    std::thread::sleep(Duration::from_millis(100));
    q.push(vec![Tensor::from(f.as_str())]);
    let out = t.join().unwrap().unwrap();
    assert_eq!(scalar_bytes(&out[1]), b"hello");
    let h = sess.handle();
    let t = std::thread::spawn(move || h.run(&RunArgs::new().fetch(&k).fetch(&v).timeout(LIMIT)));
    std::thread::sleep(Duration::from_millis(100));
    q.close();
    let e = t.join().unwrap().unwrap_err();
    assert!(e.is_out_of_range(), "{e}");
}

#[test]
fn session_close_cancels_a_blocked_read_and_timeouts_end_it() {
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[], false);
    let (k, _) = TextLineReader::new().build(&g).unwrap().read(&fq).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(&RunArgs::new().fetch(&k).timeout(Duration::from_millis(100)))
        .unwrap_err();
    assert!(e.is_deadline_exceeded(), "{e}");
    let h = sess.handle();
    let k2 = k.clone();
    let t = std::thread::spawn(move || h.run(&RunArgs::new().fetch(&k2).timeout(LIMIT)));
    std::thread::sleep(Duration::from_millis(100));
    sess.close();
    let e = t.join().unwrap().unwrap_err();
    assert!(e.is_cancelled(), "{e}");
}

#[test]
fn two_threads_share_one_reader() {
    let tmp = TempDir::new("shared");
    let mut files = vec![];
    for i in 0..4 {
        let p = tmp.path(&format!("{i}.tfrecord"));
        let mut w =
            RecordWriter::new(std::fs::File::create(&p).unwrap(), Compression::None).unwrap();
        for j in 0..500 {
            w.write(format!("{i}-{j}")).unwrap();
        }
        w.close().unwrap();
        files.push(p);
    }
    let g = Graph::new();
    let fq = string_queue(
        &g,
        "fq",
        &files.iter().map(String::as_str).collect::<Vec<_>>(),
        true,
    );
    let reader = TfRecordReader::new().build(&g).unwrap();
    let (_, v) = reader.read(&fq).unwrap();
    let sess = Session::new(&g).unwrap();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let h = sess.handle();
            let v = v.clone();
            std::thread::spawn(move || {
                let mut seen = vec![];
                loop {
                    match h.run(&RunArgs::new().fetch(&v).timeout(LIMIT)) {
                        Ok(t) => seen.push(String::from_utf8(scalar_bytes(&t[0])).unwrap()),
                        Err(e) => {
                            assert!(e.is_out_of_range(), "{e}");
                            return seen;
                        }
                    }
                }
            })
        })
        .collect();
    let mut all: Vec<String> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 2000);
}

#[test]
fn a_key_nothing_reads_is_skipped_and_a_fetched_one_is_exact() {
    // A run that reads only the values leaves the key output unset (output_required); runs
    // that fetch the key still get TensorFlow's `file:line` keys, and both advance one reader.
    let dir = TempDir::new("keys");
    let f = dir.file("a.csv", b"l1\nl2\nl3\nl4\n");
    let g = Graph::new();
    let q = string_queue(&g, "q", &[&f], true);
    let reader = TextLineReader::new().build(&g).unwrap();
    let (k, v) = reader.read(&q).unwrap();
    let (ks, vs) = reader.read_up_to(&q, 2).unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(scalar_bytes(&run(&sess, &[&v]).unwrap()[0]), b"l1");
    let both = run(&sess, &[&k, &v]).unwrap();
    assert_eq!(scalar_bytes(&both[0]), format!("{f}:2").as_bytes());
    assert_eq!(scalar_bytes(&both[1]), b"l2");
    let values = run(&sess, &[&vs]).unwrap();
    assert_eq!(values[0].to_strings().unwrap(), vec!["l3", "l4"]);
    assert!(run(&sess, &[&ks]).unwrap_err().is_out_of_range());
}
