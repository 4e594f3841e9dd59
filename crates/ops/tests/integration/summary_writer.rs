//! TensorFlow 2's summary-writer ops against TensorFlow 2.21 (tests/data/summary_writer/
//! expected.json, written by make_summary_writer.py there). Each case builds the same writer
//! and writes with weir's builders, runs the same actions, and compares, event by event, every
//! event file weir wrote with TensorFlow's (all fields but wall_time, which import_event keeps
//! as given), the event file names (time, host, pid and file id aside), the write ops' names
//! and the names of the booleans they return; or the error's code and message.
//!
//! Events are compared as decoded protos and also byte for byte (the record weir wrote, its
//! wall_time cut, against TensorFlow's serialization), except where bytes cannot match: PNGs
//! (libpng + zlib against the `png` crate) are compared by their decoded pixels, then with
//! TensorFlow's PNG swapped in, and a graph event's GraphDef as a decoded proto (TensorFlow
//! writes its attr maps in hash order, which changes from run to run).

use prost::Message;
use serde_json::Value;
use weir_graph::graph_def::proto::GraphDef;
use weir_graph::{Bytes, Error, Graph, Operation, Output, Result};
use weir_ops::array::constant;
use weir_ops::summary::proto::{event::What, summary_value, Event, Summary, SummaryMetadata};
use weir_ops::summary::v2::{self, contrib, CreateFileWriter, Step, SummaryWriter};
use weir_session::{RunArgs, Session};

use crate::io_util::{b64, expected_cases, spec_tensor, TempDir};

/// What one write built: the boolean TensorFlow 2's functions return, or an op.
enum Built {
    Output(Output),
    Op(Operation),
}

fn step_of(g: &Graph, w: &Value) -> Option<Step> {
    match &w["step"] {
        Value::Null => None,
        Value::Object(_) => Some(Step::Tensor(constant(g, spec_tensor(&w["step"])).unwrap())),
        v => Some(Step::Value(v.as_i64().unwrap())),
    }
}

fn metadata_of(w: &Value) -> Option<SummaryMetadata> {
    w["metadata"]
        .as_str()
        .map(|m| SummaryMetadata::decode(Bytes::from(b64(m))).unwrap())
}

fn opt_str(v: &Value) -> Option<&str> {
    v.as_str()
}

/// Builds one write spec as the script does (the step before the data).
fn build_write(g: &Graph, w: &Value) -> Result<Option<Built>> {
    let _scope = opt_str(&w["scope"]).map(|s| g.name_scope(s));
    let step = step_of(g, w);
    let data = constant(g, spec_tensor(&w["data"]))?;
    let name = w["name"].as_str().unwrap_or("");
    let family = opt_str(&w["family"]);
    let description = opt_str(&w["description"]);
    let out = |o: Output| Some(Built::Output(o));
    let opt = |o: Option<Output>| o.map(Built::Output);
    Ok(match w["fn"].as_str().unwrap() {
        "scalar" => out(v2::scalar(name, data, step, description)?),
        "text" => out(v2::text(name, data, step, description)?),
        "histogram" => out(v2::histogram(
            name,
            data,
            step,
            w["buckets"].as_i64(),
            description,
        )?),
        "image" => out(v2::image(
            name,
            data,
            step,
            w["max_outputs"].as_i64().unwrap_or(3),
            description,
        )?),
        "audio" => out(v2::audio(
            name,
            data,
            w["sample_rate"].as_i64().unwrap() as i32,
            step,
            w["max_outputs"].as_i64().unwrap_or(3),
            description,
        )?),
        "write" => out(v2::write(
            w["tag"].as_str().unwrap(),
            data,
            step,
            metadata_of(w).as_ref(),
            opt_str(&w["op_name"]),
        )?),
        "write_raw_pb" => out(v2::write_raw_pb(data, step, None)?),
        "contrib_scalar" => opt(contrib::scalar(name, data, family, step)?),
        "contrib_histogram" => opt(contrib::histogram(name, data, family, step)?),
        "contrib_generic" => opt(contrib::generic(
            name,
            data,
            metadata_of(w).as_ref(),
            family,
            step,
        )?),
        "contrib_image" => {
            let bad = match &w["bad_color"] {
                Value::Null => None,
                b => Some(constant(g, spec_tensor(b))?),
            };
            let max = w["max_images"].as_i64().unwrap();
            opt(contrib::image(name, data, bad, max, family, step)?)
        }
        "contrib_audio" => opt(contrib::audio(
            name,
            data,
            w["sample_rate"].as_f64().unwrap() as f32,
            w["max_outputs"].as_i64().unwrap(),
            family,
            step,
        )?),
        "graph_v1" => contrib::graph_v1(&data, step, None)?.map(Built::Op),
        "import_event" => Some(Built::Op(contrib::import_event(&data, None)?)),
        other => panic!("unknown write {other}"),
    })
}

fn writer_of(g: &Graph, c: &Value, logdir: &str) -> Result<SummaryWriter> {
    let o = &c["writer"];
    let mut b = CreateFileWriter::new(logdir);
    if let Some(n) = o["max_queue"].as_i64() {
        b = b.max_queue(n as i32);
    }
    if let Some(n) = o["flush_millis"].as_i64() {
        b = b.flush_millis(n as i32);
    }
    if let Some(s) = o["filename_suffix"].as_str() {
        b = b.filename_suffix(s);
    }
    if let Some(s) = o["name"].as_str() {
        b = b.name(s);
    }
    b.build(g)
}

const WRITE_OPS: &[&str] = &[
    "WriteSummary",
    "WriteScalarSummary",
    "WriteHistogramSummary",
    "WriteImageSummary",
    "WriteAudioSummary",
    "WriteRawProtoSummary",
    "WriteGraphSummary",
    "ImportEvent",
    "SummaryWriter",
    "CreateSummaryFileWriter",
];

/// A file name with its time, host, pid and file id replaced as the script replaces them,
/// after checking the host and pid are this machine's and process's.
fn placeholder_name(name: &str) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let prefix = "events.out.tfevents.";
    let rest = name
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{name}"));
    let (secs, rest) = rest.split_at(10);
    assert!(secs.bytes().all(|b| b.is_ascii_digit()), "{name}");
    let rest = rest
        .strip_prefix(&format!(".{host}.{}.", std::process::id()))
        .unwrap_or_else(|| panic!("{name}: not this host and pid"));
    let id_len = rest.bytes().take_while(u8::is_ascii_digit).count();
    assert!(id_len > 0, "{name}");
    format!("{prefix}<secs>.<host>.<pid>.<id>{}", &rest[id_len..])
}

fn file_id(name: &str) -> u64 {
    name.split('.')
        .nth(6)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn png_pixels(png_bytes: &[u8]) -> Vec<u8> {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    buf
}

/// Compares weir's event with TensorFlow's serialized one.
fn check_event(name: &str, record: &[u8], want_bytes: &[u8], keep_wall_time: bool) {
    let mut got = Event::decode(record).unwrap();
    let want = Event::decode(want_bytes).unwrap();
    if !keep_wall_time {
        assert!(got.wall_time > 1.0e9, "{name}: wall_time {}", got.wall_time);
        got.wall_time = 0.0;
    }
    // Whether the bytes can match: PNGs differ, and TensorFlow writes a GraphDef's attr map
    // in hash order (it changes from run to run), weir in key order.
    let mut exact = true;
    match (&mut got.what, &want.what) {
        (Some(What::Summary(g)), Some(What::Summary(w))) => swap_pngs(name, g, w, &mut exact),
        (Some(What::GraphDef(g)), Some(What::GraphDef(w))) => {
            assert_eq!(
                GraphDef::decode(g.clone()).unwrap(),
                GraphDef::decode(w.clone()).unwrap(),
                "{name}: graph"
            );
            *g = w.clone();
            exact = false;
        }
        _ => {}
    }
    assert_eq!(got, want, "{name}");
    if exact {
        // The record as written, without its wall_time (field 1, a double, written first;
        // TensorFlow's with wall_time zeroed leaves it out).
        let record = match (keep_wall_time, record.first()) {
            (false, Some(0x09)) => &record[9..],
            _ => record,
        };
        assert_eq!(record, want_bytes, "{name}: bytes");
    }
}

/// Checks each image's pixels against TensorFlow's, then puts TensorFlow's PNG in weir's value:
/// V1 image values, and the PNG strings after width and height in a tensor for the `images`
/// plugin (`tf.summary.image`).
fn swap_pngs(name: &str, got: &mut Summary, want: &Summary, exact: &mut bool) {
    for (g, w) in got.value.iter_mut().zip(&want.value) {
        let plugin = w
            .metadata
            .as_ref()
            .and_then(|m| m.plugin_data.as_ref())
            .map(|p| p.plugin_name.as_str());
        match (&mut g.value, &w.value) {
            (Some(summary_value::Value::Image(gi)), Some(summary_value::Value::Image(wi))) => {
                assert_eq!(
                    png_pixels(&gi.encoded_image_string),
                    png_pixels(&wi.encoded_image_string),
                    "{name}: pixels of {}",
                    g.tag
                );
                gi.encoded_image_string = wi.encoded_image_string.clone();
                *exact = false;
            }
            (Some(summary_value::Value::Tensor(gt)), Some(summary_value::Value::Tensor(wt)))
                if plugin == Some("images") =>
            {
                assert_eq!(gt.string_val.len(), wt.string_val.len(), "{name}: images");
                for (i, (gp, wp)) in gt.string_val.iter_mut().zip(&wt.string_val).enumerate() {
                    if i >= 2 {
                        assert_eq!(png_pixels(gp), png_pixels(wp), "{name}: image {i}");
                        *gp = wp.clone();
                    }
                }
                *exact = false;
            }
            _ => {}
        }
    }
}

/// Runs one action; a write's boolean result when it has one.
fn run_action(sess: &Session, target: &Built) -> Result<Option<bool>> {
    let args = RunArgs::new().timeout(crate::io_util::LIMIT);
    match target {
        Built::Output(o) => Ok(Some(sess.run(&args.fetch(o))?[0].to_scalar::<bool>()?)),
        Built::Op(op) => sess.run(&args.target(op)).map(|_| None),
    }
}

fn check_error(name: &str, got: &Error, want: &Value, root: &str) {
    let code = weir_graph::Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{name}: {got}");
    let msg = got
        .message()
        .split(" for '")
        .next()
        .unwrap()
        .replace(root, "<root>");
    assert_eq!(msg, want["message"].as_str().unwrap(), "{name}");
}

fn run_case(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let dir = TempDir::new("summary-writer");
    let root = dir.0.to_string_lossy().into_owned();
    let logdir = if c["block_logdir"].as_bool() == Some(true) {
        dir.file("file", b"");
        dir.0.join("file").join("sub")
    } else {
        dir.0.join(c["logdir"].as_str().unwrap_or("logs"))
    };
    let g = Graph::new();
    let writer = writer_of(&g, c, &logdir.to_string_lossy()).unwrap();
    let mut targets = std::collections::HashMap::new();
    targets.insert("init".to_string(), Built::Op(writer.init()));
    targets.insert("flush".to_string(), Built::Op(writer.flush().unwrap()));
    targets.insert("close".to_string(), Built::Op(writer.close().unwrap()));
    let built: Result<()> = (|| {
        let default_step = c["default_step"].as_i64().map(Step::Value);
        let _default = writer.as_default(default_step);
        // As the script: record_if(true) unless the case names a condition (null: none).
        let _record = match c.get("record_if") {
            None => Some(v2::record_if(true)),
            Some(Value::Bool(b)) => Some(v2::record_if(*b)),
            Some(_) => None,
        };
        for (i, w) in c["writes"].as_array().unwrap().iter().enumerate() {
            if let Some(b) = build_write(&g, w)? {
                targets.insert(format!("w{i}"), b);
            }
        }
        Ok(())
    })();
    if let Some(want) = c.get("build_error") {
        let e = built.err().unwrap_or_else(|| panic!("{name}: built"));
        assert!(e.is_invalid_argument(), "{name}: {e}");
        assert_eq!(e.message(), want["message"].as_str().unwrap(), "{name}");
        return;
    }
    built.unwrap_or_else(|e| panic!("{name}: {e}"));

    let nodes: Vec<(String, String)> = g
        .operations()
        .iter()
        .filter(|op| WRITE_OPS.contains(&op.op_type().as_str()))
        .map(|op| (op.name().to_string(), op.op_type().to_string()))
        .collect();
    let want_nodes: Vec<(String, String)> = c["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
        .collect();
    assert_eq!(nodes, want_nodes, "{name}: nodes");
    let fetched = c["fetched"].as_object().cloned().unwrap_or_default();
    for (k, want) in c["outputs"].as_object().unwrap() {
        // A summary that does not record returns a `false` whose name is incidental.
        if fetched.get(k) == Some(&Value::Bool(false)) {
            continue;
        }
        match &targets[k] {
            Built::Output(o) => assert_eq!(o.name(), want.as_str().unwrap(), "{name}: {k}"),
            Built::Op(_) => panic!("{name}: {k} is an op here"),
        }
    }

    let sess = Session::new(&g).unwrap();
    let want_error = c.get("error");
    for (i, a) in c["actions"].as_array().unwrap().iter().enumerate() {
        let a = a.as_str().unwrap();
        let res = run_action(&sess, &targets[a]);
        match want_error {
            Some(want) if want["at"].as_u64() == Some(i as u64) => {
                let e = res
                    .err()
                    .unwrap_or_else(|| panic!("{name}: action {i} ran"));
                check_error(name, &e, want, &root);
                break;
            }
            _ => {
                let got = res.unwrap_or_else(|e| panic!("{name}: action {i} ({a}): {e}"));
                assert_eq!(got, fetched.get(a).and_then(Value::as_bool), "{name}: {a}");
            }
        }
    }
    // Closing the session drops a writer left open, which flushes it as TensorFlow's does.
    drop(sess);

    let mut files: Vec<String> = std::fs::read_dir(&logdir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    files.sort_by_key(|f| file_id(f));
    let want_files = c["files"].as_array().unwrap();
    assert_eq!(files.len(), want_files.len(), "{name}: {files:?}");
    let keep_wall_time: Vec<u64> = c["keep_wall_time"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_u64().unwrap()).collect())
        .unwrap_or_default();
    for (f, want) in files.iter().zip(want_files) {
        assert_eq!(
            placeholder_name(f),
            want["name"].as_str().unwrap(),
            "{name}"
        );
        let records: Vec<Bytes> =
            weir_ops::io::tf_record_iterator(logdir.join(f), weir_ops::io::Compression::None)
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
        let want_events = want["events"].as_array().unwrap();
        assert_eq!(records.len(), want_events.len(), "{name}: events in {f}");
        for (j, (got, w)) in records.iter().zip(want_events).enumerate() {
            let want_bytes = b64(w.as_str().unwrap());
            check_event(
                &format!("{name} event {j}"),
                got,
                &want_bytes,
                keep_wall_time.contains(&(j as u64)),
            );
        }
    }
}

#[test]
fn summary_writer_matches_tensorflow() {
    let cases = expected_cases("summary_writer");
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for c in &cases {
        run_case(c);
    }
}

#[test]
fn a_write_without_a_default_writer_returns_false_and_writes_nothing() -> Result<()> {
    let g = Graph::new();
    let x = constant(&g, 1.0f32)?;
    let out = v2::scalar("x", &x, Some(1.into()), None)?;
    assert_eq!(out.name(), "x/write_summary/Const:0");
    let got = Session::new(&g)?.run(&RunArgs::new().fetch(&out))?;
    assert!(!got[0].to_scalar::<bool>()?);
    assert!(contrib::scalar("y", &x, None, Some(1.into()))?.is_none());
    Ok(())
}

#[test]
fn a_queued_event_reaches_the_file_on_flush() -> Result<()> {
    let dir = TempDir::new("summary-writer-flush");
    let g = Graph::new();
    let writer = CreateFileWriter::new(&dir.path("logs"))
        .max_queue(100)
        .build(&g)?;
    let x = constant(&g, 2.5f32)?;
    let written = {
        let _d = writer.as_default(Some(4.into()));
        v2::scalar("x", &x, None, None)?
    };
    let flush = writer.flush()?;
    let sess = Session::new(&g)?;
    sess.run(&RunArgs::new().target(&writer.init()))?;
    sess.run(&RunArgs::new().fetch(&written))?;
    let file = std::fs::read_dir(dir.0.join("logs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let count = |p: &std::path::Path| {
        weir_ops::io::tf_record_iterator(p, weir_ops::io::Compression::None)
            .unwrap()
            .count()
    };
    assert_eq!(count(&file), 1, "only the file version before a flush");
    sess.run(&RunArgs::new().target(&flush))?;
    assert_eq!(count(&file), 2);
    Ok(())
}
