//! Reader claims of ../shared/TF_SEMANTICS.md §3 that the other reader tests do not check, one
//! test per claim (from an audit of §3-§5): op types and static shapes, counters, state
//! serialization, per-session and shared readers, TextLineReader and FixedLengthRecordReader
//! edge cases, TFRecordReader options, and the closed filename queue. Every blocking run has a
//! timeout or runs on a closed queue.

use weir::ops::data_flow::FifoQueue;
use weir::prelude::*;
use weir::Code;

use crate::tf_semantics;

use tf_semantics::*;

// ---------------------------------------------------------------------------------------------
// §3.1 Common reader semantics.

/// TF_SEMANTICS l.383: "`read(queue, name=None)` gives `(key, value)`, scalar strings. Op
/// `ReaderReadV2`."
#[test]
fn s3_read_gives_scalar_string_key_and_value_op_reader_read_v2() {
    let g = Graph::new();
    let (q, _, _) = string_fifo(&g, "fq", &[]);
    let r = TextLineReader::new().build(&g).unwrap();
    let (k, v) = r.read(q.queue_ref()).unwrap();
    assert_eq!(k.op().op_type(), "ReaderReadV2");
    assert_eq!((k.dtype(), v.dtype()), (DType::String, DType::String));
    assert_eq!(k.shape(), Shape::scalar());
    assert_eq!(v.shape(), Shape::scalar());
}

/// TF_SEMANTICS l.386-389: "The queue must have one string component ... Otherwise
/// InvalidArgument: ... "Expected queue with single string component" ... [confirmed for an
/// int queue]" (here with a real FIFOQueue of int32).
#[test]
fn s3_read_from_a_real_int_queue_is_invalid_argument() {
    let g = Graph::new();
    let q = int_queue(&g, 4);
    let enq = q.enqueue(&[constant(&g, 7i32).unwrap()]).unwrap();
    let r = IdentityReader::new().build(&g).unwrap();
    let (k, _) = r.read(q.queue_ref()).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &enq).unwrap();
    expect(
        fetch(&sess, &k),
        Code::InvalidArgument,
        "Expected queue with single string component",
    );
}

/// TF_SEMANTICS l.390-391: "A closed, empty queue gives the queue's OutOfRange, e.g.
/// "FIFOQueue '_0_input_producer' is closed and has insufficient elements (requested 1, current
/// size 0)"" (a real FIFOQueue named input_producer).
#[test]
fn s3_closed_empty_real_queue_gives_the_queues_out_of_range_text() {
    let g = Graph::new();
    let (q, _, close) = string_fifo(&g, "input_producer", &[]);
    let r = TextLineReader::new().build(&g).unwrap();
    let (k, v) = r.read(q.queue_ref()).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &close).unwrap();
    let e = err_of(fetch2(&sess, &k, &v));
    assert_eq!(
        (e.code(), norm(e.message()).as_str()),
        (
            Code::OutOfRange,
            "FIFOQueue '_N_input_producer' is closed and has insufficient elements (requested 1, current size 0)"
        ),
        "{e}"
    );
}

/// TF_SEMANTICS l.392-393: "Session close while waiting gives Cancelled "Dequeue operation was
/// cancelled"." A read waits on an open, empty real FIFOQueue in another thread; a reset of the
/// same reader, probed with a short run timeout, times out only once that read holds the
/// reader (and so is in, or entering, its dequeue); then the session is closed.
#[test]
fn s3_session_close_cancels_a_read_waiting_for_work() {
    let g = Graph::new();
    let (q, _, _) = string_fifo(&g, "fq", &[]);
    let r = TextLineReader::new().build(&g).unwrap();
    let (_, v) = r.read(q.queue_ref()).unwrap();
    let reset = r.reset().unwrap();
    let sess = Session::new(&g).unwrap();
    let h = sess.handle();
    let waiter = std::thread::spawn(move || h.run(&RunArgs::new().fetch(&v).timeout(T)));
    let give_up = std::time::Instant::now() + T;
    loop {
        assert!(
            std::time::Instant::now() < give_up,
            "the read never started"
        );
        match sess.run(&RunArgs::new().target(&reset).timeout(BLOCK)) {
            Err(e) if e.is_deadline_exceeded() => break,
            Ok(_) => continue,
            Err(e) => panic!("reset: {e}"),
        }
    }
    sess.close();
    let e = waiter.join().unwrap().unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (Code::Cancelled, "Dequeue operation was cancelled")
    );
}

/// TF_SEMANTICS l.401-402: "`read_up_to(...)` gives `(keys, values)`, 1-D strings with static
/// shape `[?]`. Op `ReaderReadUpToV2`."
#[test]
fn s3_read_up_to_static_shape_and_op_type() {
    let g = Graph::new();
    let (q, _, _) = string_fifo(&g, "fq", &[]);
    let r = TextLineReader::new().build(&g).unwrap();
    let (k, v) = r.read_up_to(q.queue_ref(), 3).unwrap();
    assert_eq!(k.op().op_type(), "ReaderReadUpToV2");
    assert_eq!((k.dtype(), v.dtype()), (DType::String, DType::String));
    assert_eq!(k.shape(), Shape::new(vec![None]));
    assert_eq!(v.shape(), Shape::new(vec![None]));
}

/// TF_SEMANTICS l.411-412: "`num_records_produced` gives an int64 ... `num_work_units_completed`
/// gives int64" (static dtype and scalar shape).
#[test]
fn s3_counters_are_int64_scalars() {
    let g = Graph::new();
    let r = TextLineReader::new().build(&g).unwrap();
    let p = r.num_records_produced().unwrap();
    let c = r.num_work_units_completed().unwrap();
    assert_eq!((p.dtype(), c.dtype()), (DType::I64, DType::I64));
    assert_eq!(p.shape(), Shape::scalar());
    assert_eq!(c.shape(), Shape::scalar());
}

/// TF_SEMANTICS l.416: "only IdentityReader and WholeFileReader support them" (WholeFileReader
/// serialize_state / restore_state round trip).
#[test]
fn s3_whole_file_reader_supports_serialize_and_restore() {
    let tmp = Tmp::new("wfser");
    let a = tmp.file("a.bin", b"AAA");
    let b = tmp.file("b.bin", b"BBB");
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&a, &b]);
    let r = WholeFileReader::new().build(&g).unwrap();
    let (_, v) = r.read(q.queue_ref()).unwrap();
    let st = r.serialize_state().unwrap();
    let fed = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let restore = r.restore_state(&fed).unwrap();
    let produced = r.num_records_produced().unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    assert_eq!(scalar_str(&fetch(&sess, &v).unwrap()), "AAA");
    let state = fetch(&sess, &st).expect("WholeFileReader serializes its state");
    assert_eq!(scalar_str(&fetch(&sess, &v).unwrap()), "BBB");
    assert_eq!(i64_of(&sess, &produced), 2);
    sess.run(&RunArgs::new().feed(&fed, state).target(&restore).timeout(T))
        .expect("WholeFileReader restores its state");
    assert_eq!(i64_of(&sess, &produced), 1);
}

/// TF_SEMANTICS l.417: "the others give Unimplemented "Reader SerializeState"" (FixedLength and
/// TFRecord readers; TextLine is already covered).
#[test]
fn s3_fixed_length_and_tfrecord_serialize_state_unimplemented() {
    let g = Graph::new();
    let f = FixedLengthRecordReader::new(4).build(&g).unwrap();
    let t = TfRecordReader::new().build(&g).unwrap();
    let fs = f.serialize_state().unwrap();
    let ts = t.serialize_state().unwrap();
    let sess = Session::new(&g).unwrap();
    expect(
        fetch(&sess, &fs),
        Code::Unimplemented,
        "Reader SerializeState",
    );
    expect(
        fetch(&sess, &ts),
        Code::Unimplemented,
        "Reader SerializeState",
    );
}

/// TF_SEMANTICS l.418-419: "a corrupt state gives InvalidArgument "Could not parse state for
/// IdentityReader '<name>'"".
#[test]
fn s3_corrupt_state_message_names_identity_reader() {
    let g = Graph::new();
    let r = IdentityReader::new().name("idr").build(&g).unwrap();
    let fed = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let restore = r.restore_state(&fed).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&fed, Tensor::scalar(Bytes::from_static(b"\x08")))
                .target(&restore)
                .timeout(T),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(
        e.message()
            .starts_with("Could not parse state for IdentityReader 'idr'"),
        "{e}"
    );
}

/// TF_SEMANTICS l.423: "The reader resource is per session (like queues; `shared_name` is
/// supported)." Two sessions each read from the start; two reader nodes with one shared_name
/// share one position in a session.
#[test]
fn s3_reader_per_session_and_shared_name() {
    let tmp = Tmp::new("persess");
    let f = tmp.file("a.txt", b"l1\nl2\nl3\n");
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let r = TextLineReader::new().build(&g).unwrap();
    let (_, v) = r.read(q.queue_ref()).unwrap();
    let s1 = Session::new(&g).unwrap();
    let s2 = Session::new(&g).unwrap();
    fill_and_close(&s1, &enq, &close);
    fill_and_close(&s2, &enq, &close);
    assert_eq!(scalar_str(&fetch(&s1, &v).unwrap()), "l1");
    assert_eq!(scalar_str(&fetch(&s1, &v).unwrap()), "l2");
    assert_eq!(
        scalar_str(&fetch(&s2, &v).unwrap()),
        "l1",
        "a reader per session"
    );

    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let ra = TextLineReader::new()
        .shared_name("shared_r")
        .build(&g)
        .unwrap();
    let rb = TextLineReader::new()
        .shared_name("shared_r")
        .build(&g)
        .unwrap();
    let (_, va) = ra.read(q.queue_ref()).unwrap();
    let (_, vb) = rb.read(q.queue_ref()).unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    assert_eq!(scalar_str(&fetch(&sess, &va).unwrap()), "l1");
    assert_eq!(
        scalar_str(&fetch(&sess, &vb).unwrap()),
        "l2",
        "shared_name shares the reader"
    );
}

// ---------------------------------------------------------------------------------------------
// §3.3 TextLineReader.

/// TF_SEMANTICS l.436: "`TextLineReader(skip_header_lines=None, name=None)`. The default is 0."
#[test]
fn s3_text_line_reader_default_skip_is_zero() {
    let tmp = Tmp::new("tldef");
    let f = tmp.file("a.txt", b"h\nx\n");
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let r = TextLineReader::new().build(&g).unwrap();
    assert_eq!(r.handle().op().op_type(), "TextLineReaderV2");
    assert_eq!(r.handle().op().attr::<i64>("skip_header_lines").unwrap(), 0);
    let (k, v) = r.read(q.queue_ref()).unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    let (k, v) = fetch2(&sess, &k, &v).unwrap();
    assert_eq!(
        (scalar_str(&k), scalar_str(&v)),
        (format!("{f}:1"), "h".to_string())
    );
}

/// TF_SEMANTICS l.444: "A file `"\n"` gives one empty line; `"\n\n"` gives two".
#[test]
fn s3_text_line_two_newlines_give_two_empty_lines() {
    let tmp = Tmp::new("tlnn");
    let f = tmp.file("nn.txt", b"\n\n");
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let (k, v) = TextLineReader::new()
        .build(&g)
        .unwrap()
        .read(q.queue_ref())
        .unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    let mut got = vec![];
    let e = loop {
        match fetch2(&sess, &k, &v) {
            Ok((k, v)) => got.push((scalar_str(&k), scalar_str(&v))),
            Err(e) => break e,
        }
        assert!(got.len() < 10, "runaway");
    };
    assert!(e.is_out_of_range(), "{e}");
    assert_eq!(
        got,
        vec![
            (format!("{f}:1"), String::new()),
            (format!("{f}:2"), String::new())
        ]
    );
}

/// TF_SEMANTICS l.445-446: "A file shorter than the header count yields nothing and still counts
/// as a completed work unit."
#[test]
fn s3_text_line_file_shorter_than_header_is_a_completed_unit() {
    let tmp = Tmp::new("tlshort");
    let f = tmp.file("short.txt", b"a\nb\n");
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let r = TextLineReader::new()
        .skip_header_lines(5)
        .build(&g)
        .unwrap();
    let (k, v) = r.read(q.queue_ref()).unwrap();
    let units = r.num_work_units_completed().unwrap();
    let produced = r.num_records_produced().unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    assert!(err_of(fetch2(&sess, &k, &v)).is_out_of_range());
    assert_eq!(i64_of(&sess, &units), 1);
    assert_eq!(i64_of(&sess, &produced), 0);
}

// ---------------------------------------------------------------------------------------------
// §3.4 FixedLengthRecordReader.

/// TF_SEMANTICS l.450-451: "`FixedLengthRecordReader(record_bytes, header_bytes=None,
/// footer_bytes=None, hop_bytes=None, name=None, encoding=None)`. Defaults are 0 and no
/// encoding."
#[test]
fn s3_fixed_length_defaults() {
    let g = Graph::new();
    let r = FixedLengthRecordReader::new(4).build(&g).unwrap();
    let op = r.handle().op();
    assert_eq!(op.op_type(), "FixedLengthRecordReaderV2");
    assert_eq!(op.attr::<i64>("record_bytes").unwrap(), 4);
    assert_eq!(op.attr::<i64>("header_bytes").unwrap(), 0);
    assert_eq!(op.attr::<i64>("footer_bytes").unwrap(), 0);
    assert_eq!(op.attr::<i64>("hop_bytes").unwrap(), 0);
    assert_eq!(op.attr::<String>("encoding").unwrap(), "");
}

/// TF_SEMANTICS l.452-453: "Negative sizes give InvalidArgument "header_bytes must be >= 0 not
/// ..." (likewise for record_bytes and footer_bytes)."
#[test]
fn s3_fixed_length_negative_sizes_are_invalid_argument() {
    for (r, want) in [
        (
            FixedLengthRecordReader::new(4).header_bytes(-1),
            "header_bytes must be >= 0 not -1",
        ),
        (
            FixedLengthRecordReader::new(-2),
            "record_bytes must be >= 0 not -2",
        ),
        (
            FixedLengthRecordReader::new(4).footer_bytes(-3),
            "footer_bytes must be >= 0 not -3",
        ),
    ] {
        let g = Graph::new();
        let (q, _, close) = string_fifo(&g, "fq", &[]);
        // TensorFlow raises it when the reader op is first run; weir may refuse at build time.
        let outcome = r
            .build(&g)
            .and_then(|r| r.read(q.queue_ref()))
            .and_then(|(k, _)| {
                let sess = Session::new(&g).unwrap();
                run(&sess, &close).unwrap();
                fetch(&sess, &k).map(|_| ())
            });
        let e = err_of(outcome);
        assert_eq!(
            (e.code(), e.message()),
            (Code::InvalidArgument, want),
            "{e}"
        );
    }
}

/// TF_SEMANTICS l.465: "`record_bytes = 0` yields endless empty records, so never finishes a
/// file."
#[test]
fn s3_fixed_length_record_bytes_zero_yields_endless_empty_records() {
    let tmp = Tmp::new("flr0");
    let f = tmp.file("ten.bin", b"0123456789");
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let r = FixedLengthRecordReader::new(0).build(&g).unwrap();
    let (k, v) = r.read(q.queue_ref()).unwrap();
    let units = r.num_work_units_completed().unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    for i in 0..50 {
        let (k, v) = fetch2(&sess, &k, &v).unwrap();
        assert_eq!(
            (scalar_str(&k), scalar_str(&v)),
            (format!("{f}:{i}"), String::new())
        );
    }
    assert_eq!(i64_of(&sess, &units), 0);
}

/// TF_SEMANTICS l.467-468: "`"ZLIB"` or `"GZIP"`: the whole file is decompressed first, and
/// header/footer/hop apply to the decompressed bytes." (ZLIB; GZIP is covered.)
#[test]
fn s3_fixed_length_zlib_encoding_decompresses_the_whole_file() {
    let tmp = Tmp::new("flrz");
    // A ZLIB TFRecord file with one record "abc": decompressed, 12 header bytes, "abc", 4 footer
    // bytes.
    let f = tmp.file("one.zlib", &framed(&[b"abc"], Compression::Zlib));
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let r = FixedLengthRecordReader::new(3)
        .header_bytes(12)
        .footer_bytes(4)
        .encoding("ZLIB")
        .build(&g)
        .unwrap();
    let (k, v) = r.read(q.queue_ref()).unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    let (k0, v0) = fetch2(&sess, &k, &v).unwrap();
    assert_eq!(
        (scalar_str(&k0), scalar_str(&v0)),
        (format!("{f}:0"), "abc".to_string())
    );
    assert!(err_of(fetch2(&sess, &k, &v)).is_out_of_range());
}

/// TF_SEMANTICS l.462-464: header_bytes beyond the file is OutOfRange "reached end of file" from
/// the reader itself, and "A QueueRunner would take this for "queue closed" and quietly stop
/// that thread" (no exception recorded; the runner's queue gets closed).
#[test]
fn s3_fixed_length_header_past_eof_stops_a_queue_runner_quietly() {
    let tmp = Tmp::new("flrhdr");
    let f = tmp.file("small.bin", b"0123456789");
    let g = Graph::new();
    let (fq, enq, close) = string_fifo(&g, "fq", &[&f]);
    let r = FixedLengthRecordReader::new(4)
        .header_bytes(50)
        .build(&g)
        .unwrap();
    let (_, v) = r.read(fq.queue_ref()).unwrap();
    let out = FifoQueue::new(10, &[DType::String])
        .shapes(&[Shape::scalar()])
        .name("out")
        .build(&g)
        .unwrap();
    let out_enq = out.enqueue(std::slice::from_ref(&v)).unwrap();
    let qr = QueueRunner::new(&out, &[out_enq]).unwrap();
    let sess = Session::new(&g).unwrap();
    // Not closed: the error must come from the reader, not from the filename queue.
    run(&sess, enq.as_ref().unwrap()).unwrap();
    let e = err_of(fetch(&sess, &v));
    assert_eq!(
        (e.code(), e.message()),
        (Code::OutOfRange, "reached end of file")
    );
    // A second file for the runner's read, then the runner thread.
    run(&sess, enq.as_ref().unwrap()).unwrap();
    run(&sess, &close).unwrap();
    let threads = qr.create_threads(&sess, None, true).unwrap();
    assert!(threads[0].join(Some(T)).unwrap());
    assert!(
        qr.exceptions_raised().is_empty(),
        "{:?}",
        qr.exceptions_raised()
    );
    assert!(fetch(&sess, &out.is_closed().unwrap())
        .unwrap()
        .to_scalar::<bool>()
        .unwrap());
    assert_eq!(queue_size(&sess, &out), 0);
}

// ---------------------------------------------------------------------------------------------
// §3.5 TFRecordReader.

/// TF_SEMANTICS l.473-474: "the op attr is `compression_type` in {"", "ZLIB", "GZIP"}."
#[test]
fn s3_tfrecord_reader_compression_type_attr() {
    let g = Graph::new();
    let plain = TfRecordReader::new().build(&g).unwrap();
    let gz = TfRecordReader::new()
        .compression(Compression::Gzip)
        .build(&g)
        .unwrap();
    let z = TfRecordReader::new()
        .options(&TfRecordOptions::new(Compression::Zlib))
        .build(&g)
        .unwrap();
    assert_eq!(plain.handle().op().op_type(), "TFRecordReaderV2");
    let ct = |r: &Reader| r.handle().op().attr::<String>("compression_type").unwrap();
    assert_eq!(ct(&plain), "");
    assert_eq!(ct(&gz), "GZIP");
    assert_eq!(ct(&z), "ZLIB");
}

/// TF_SEMANTICS l.479-480: "Reading a GZIP file without options: DataLoss "corrupted record at 0
/// (Is this even a TFRecord file?)"" (TF's whole message, then weir's detail and the file).
#[test]
fn s3_tfrecord_reader_gzip_file_without_options_exact_message() {
    let tmp = Tmp::new("gzplain");
    let f = tmp.file("x.tfrecord.gz", &framed(&[b"abc"], Compression::Gzip));
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let (k, v) = TfRecordReader::new()
        .build(&g)
        .unwrap()
        .read(q.queue_ref())
        .unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    let e = err_of(fetch2(&sess, &k, &v));
    tf_words_then_file(
        &e,
        "corrupted record at 0 (Is this even a TFRecord file?)",
        &f,
    );
}

// ---------------------------------------------------------------------------------------------
// §3.7 Closed, empty filename queue.

/// TF_SEMANTICS l.489-491: "The reader first finishes the file it is on. On its next need for
/// work, `read` fails with the filename queue's OutOfRange. This is also true for a reader
/// already blocked on the empty queue when the queue gets closed." (real FIFOQueue, closed
/// after the first read; then a reader waiting on an open empty queue that another handle
/// closes: whichever comes first, the result must be the queue's OutOfRange.)
#[test]
fn s3_reader_finishes_its_file_then_gets_the_queues_out_of_range() {
    let tmp = Tmp::new("finish");
    let f = tmp.file("a.txt", b"l1\nl2\n");
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&f]);
    let (k, v) = TextLineReader::new()
        .build(&g)
        .unwrap()
        .read(q.queue_ref())
        .unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, enq.as_ref().unwrap()).unwrap();
    assert_eq!(scalar_str(&fetch(&sess, &v).unwrap()), "l1");
    run(&sess, &close).unwrap();
    assert_eq!(
        scalar_str(&fetch(&sess, &v).unwrap()),
        "l2",
        "finishes the current file"
    );
    let e = err_of(fetch2(&sess, &k, &v));
    assert_eq!(
        (e.code(), norm(e.message()).as_str()),
        (
            Code::OutOfRange,
            "FIFOQueue '_N_fq' is closed and has insufficient elements (requested 1, current size 0)"
        )
    );

    // A read waiting on an open, empty queue, closed from another thread.
    let g = Graph::new();
    let (q, _, close) = string_fifo(&g, "fq2", &[]);
    let (_, v) = TextLineReader::new()
        .build(&g)
        .unwrap()
        .read(q.queue_ref())
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let h = sess.handle();
    let waiter = std::thread::spawn(move || h.run(&RunArgs::new().fetch(&v).timeout(T)));
    run(&sess, &close).unwrap();
    let e = waiter.join().unwrap().unwrap_err();
    assert_eq!(
        (e.code(), norm(e.message()).as_str()),
        (
            Code::OutOfRange,
            "FIFOQueue '_N_fq2' is closed and has insufficient elements (requested 1, current size 0)"
        )
    );
}
