//! `tf.summary.image`, `audio`, `text` and `tensor_summary` against TensorFlow 2.21
//! (tests/data/summary_more/expected.json, written by make_summary_more.py there): node names,
//! op types and inputs, the SUMMARIES collection, error messages, and the serialized Summary.
//!
//! Audio, text and tensor summaries are compared byte for byte. Image summaries cannot be: the
//! PNG inside comes from libpng + zlib in TensorFlow and from the `png` crate (its own filter
//! choice and deflate) in weir, so the compressed bytes differ. For them the PNG is decoded and
//! its pixels compared exactly with TensorFlow's decoded pixels, and the Summary with TensorFlow's
//! PNG swapped in for weir's is compared byte for byte (every other field: tags, height, width,
//! colorspace, their order and encoding).

use prost::Message;
use serde_json::Value as Json;
use weir_graph::{graph_keys, Bytes, DType, Error, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_ops::summary::{
    self,
    proto::{summary_value::Value, Event, Summary},
    TensorSummary,
};
use weir_session::Session;

use crate::io_util::b64;

fn expected() -> Json {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/summary_more/expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn tensor_of(spec: &Json) -> Tensor {
    let dims: Vec<usize> = spec["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let v = spec["values"].as_array().unwrap();
    let ints = || v.iter().map(|x| x.as_i64().unwrap());
    match spec["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|b| f32::from_bits(b.as_u64().unwrap() as u32))
                .collect(),
        ),
        "float64" => Tensor::from_vec(&dims, v.iter().map(|x| x.as_f64().unwrap()).collect()),
        "uint8" => Tensor::from_vec(&dims, ints().map(|x| x as u8).collect()),
        "int32" => Tensor::from_vec(&dims, ints().map(|x| x as i32).collect()),
        "int64" => Tensor::from_vec(&dims, ints().collect()),
        "bool" => Tensor::from_vec(&dims, v.iter().map(|x| x.as_bool().unwrap()).collect()),
        "string" => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|s| Bytes::from(s.as_str().unwrap().to_string()))
                .collect(),
        ),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

fn build(g: &Graph, c: &Json) -> Result<Output, Error> {
    let t = constant(g, tensor_of(&c["tensor"]))?;
    let tag = c["tag"].as_str().unwrap();
    let max = c["max_outputs"].as_i64().unwrap_or(3);
    match c["op"].as_str().unwrap() {
        "image" => summary::image(tag, &t, max),
        "audio" => {
            let rate = constant(g, tensor_of(&c["sample_rate"]))?;
            summary::audio(tag, &t, &rate, max)
        }
        "text" => summary::text(tag, &t),
        _ => {
            let mut b = TensorSummary::new();
            if let Some(d) = c["summary_description"].as_str() {
                b = b.summary_description(d);
            }
            if let Some(d) = c["display_name"].as_str() {
                b = b.display_name(d);
            }
            b.build(tag, &t)
        }
    }
}

fn build_case(g: &Graph, c: &Json) -> Result<Output, Error> {
    let mut out = None;
    for _ in 0..c["repeat"].as_u64().unwrap_or(1) {
        out = Some(match c["scope"].as_str() {
            Some(s) => {
                let _scope = g.name_scope(s);
                build(g, c)?
            }
            None => build(g, c)?,
        });
    }
    Ok(out.expect("at least one build"))
}

/// Decodes an 8-bit PNG to its samples.
fn png_pixels(png_bytes: &[u8]) -> Vec<u8> {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    buf
}

/// Compares an image Summary: pixels decoded from weir's PNGs against TensorFlow's decoded
/// pixels, then the whole Summary with TensorFlow's PNGs swapped in, byte for byte.
fn check_images(name: &str, mut got: Summary, want_bytes: &[u8], want_values: &[Json]) {
    let want = Summary::decode(want_bytes).unwrap();
    assert_eq!(got.value.len(), want_values.len(), "{name}: value count");
    for ((v, w), wv) in got.value.iter_mut().zip(&want.value).zip(want_values) {
        assert_eq!(v.tag, wv["tag"].as_str().unwrap(), "{name}: tag");
        let (Some(Value::Image(gi)), Some(Value::Image(wi))) = (&mut v.value, &w.value) else {
            panic!("{name}: not images");
        };
        assert_eq!(gi.height as u64, wv["height"].as_u64().unwrap(), "{name}");
        assert_eq!(gi.width as u64, wv["width"].as_u64().unwrap(), "{name}");
        assert_eq!(
            gi.colorspace as u64,
            wv["colorspace"].as_u64().unwrap(),
            "{name}"
        );
        let pixels = b64(wv["pixels"].as_str().unwrap());
        assert_eq!(
            png_pixels(&gi.encoded_image_string),
            pixels,
            "{name}: {}: decoded pixels",
            v.tag
        );
        gi.encoded_image_string = wi.encoded_image_string.clone();
    }
    assert_eq!(
        got.encode_to_vec(),
        want_bytes,
        "{name}: Summary with TF's PNGs"
    );
}

#[test]
fn summaries_match_tensorflow() {
    let data = expected();
    let cases = data["cases"].as_array().unwrap();
    let results = data["results"].as_array().unwrap();
    assert_eq!(cases.len(), results.len());
    // How many cases ended in each way, so that a JSON file missing cases fails.
    let (mut build_errors, mut run_errors, mut images, mut exact) = (0, 0, 0, 0);
    for (c, r) in cases.iter().zip(results) {
        let name = r["name"].as_str().unwrap();
        let g = Graph::new();
        let out = build_case(&g, c);
        if let Some(msg) = r.get("build_error") {
            let e = out.expect_err(name);
            assert!(e.is_invalid_argument(), "{name}: {e}");
            let want = msg.as_str().unwrap();
            let prefix = want
                .split(" to have")
                .next()
                .unwrap()
                .split("Const")
                .next()
                .unwrap();
            assert!(e.message().starts_with(prefix), "{name}: {e} vs {want}");
            assert!(e.message().contains("to have dtype string"), "{name}: {e}");
            build_errors += 1;
            continue;
        }
        let out = out.unwrap_or_else(|e| panic!("{name}: {e}"));
        let node = &r["node"];
        let op = out.op();
        assert_eq!(
            op.name(),
            node["name"].as_str().unwrap(),
            "{name}: node name"
        );
        assert_eq!(
            op.op_type(),
            node["type"].as_str().unwrap(),
            "{name}: op type"
        );
        let inputs: Vec<String> = op.inputs().iter().map(|i| i.op().name()).collect();
        let want_inputs: Vec<&str> = node["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert_eq!(inputs, want_inputs, "{name}: inputs");
        assert_eq!(
            g.get_collection(graph_keys::SUMMARIES).len() as u64,
            r["collection"].as_u64().unwrap(),
            "{name}: SUMMARIES"
        );
        let sess = Session::new(&g).unwrap();
        let got = sess.eval(&out);
        if let Some(err) = r.get("error") {
            let e = got.expect_err(name);
            assert_eq!(err["code"], "InvalidArgumentError", "{name}");
            assert!(e.is_invalid_argument(), "{name}: {e}");
            assert_eq!(e.message(), err["message"].as_str().unwrap(), "{name}");
            run_errors += 1;
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let got_bytes = got.to_scalar::<Bytes>().unwrap();
        let want_bytes = b64(r["summary"].as_str().unwrap());
        let summary = Summary::decode(got_bytes.clone()).unwrap();
        // A summary goes into an event file inside an Event: it survives the round trip.
        let event = Event {
            wall_time: 1.5,
            step: 3,
            what: Some(summary::proto::event::What::Summary(summary.clone())),
            source_metadata: None,
        };
        assert_eq!(Event::decode(&event.encode_to_vec()[..]).unwrap(), event);
        if c["op"] == "image" {
            check_images(name, summary, &want_bytes, r["values"].as_array().unwrap());
            images += 1;
        } else {
            assert_eq!(
                &got_bytes[..],
                &want_bytes[..],
                "{name}: serialized Summary"
            );
            exact += 1;
        }
    }
    assert_eq!(
        (build_errors, run_errors, images, exact),
        (1, 6, 17, 15),
        "cases by outcome"
    );
}

#[test]
fn text_metadata_and_tensor_fields() -> Result<(), Error> {
    let g = Graph::new();
    let t = constant(
        &g,
        Tensor::from_vec(&[2], vec![Bytes::from("a"), Bytes::from("b")])?,
    )?;
    let s = summary::text("notes", &t)?;
    let got = Session::new(&g)?.eval(&s)?;
    let summary = Summary::decode(got.to_scalar::<Bytes>()?).unwrap();
    let v = &summary.value[0];
    let meta = v.metadata.as_ref().unwrap();
    assert_eq!(meta.plugin_data.as_ref().unwrap().plugin_name, "text");
    match &v.value {
        Some(Value::Tensor(p)) => {
            assert_eq!(p.dtype, DType::String.proto_number());
            assert_eq!(p.string_val, vec![Bytes::from("a"), Bytes::from("b")]);
        }
        other => panic!("expected a tensor, got {other:?}"),
    }
    Ok(())
}

#[test]
fn float_images_scale_and_paint_bad_pixels() -> Result<(), Error> {
    let g = Graph::new();
    let img = Tensor::from_vec(&[1, 1, 3, 1], vec![-1.0f32, f32::NAN, 1.0])?;
    let s = summary::image("x", constant(&g, img)?, 1)?;
    let got = Session::new(&g)?.eval(&s)?;
    let summary = Summary::decode(got.to_scalar::<Bytes>()?).unwrap();
    assert_eq!(summary.value[0].tag, "x/image");
    let Some(Value::Image(i)) = &summary.value[0].value else {
        panic!("not an image");
    };
    // -1 -> 128 - 127, NaN -> bad_color's red channel, 1 -> 128 + 127.
    assert_eq!(png_pixels(&i.encoded_image_string), vec![1, 255, 255]);
    Ok(())
}

#[test]
fn bad_arguments_are_invalid_argument() -> Result<(), Error> {
    let g = Graph::new();
    let t = constant(&g, Tensor::from_vec(&[1, 2], vec![0.0f32; 2])?)?;
    let rate = constant(&g, 3i32)?;
    let e = summary::audio("a", &t, &rate, 3).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    let e = summary::text("t", &t).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    let img = constant(&g, Tensor::from_vec(&[1, 1, 1, 1], vec![0u8])?)?;
    assert!(summary::image("i", &img, 0).is_err());
    Ok(())
}

/// Runs each summary of `g` named in `want` and compares it with TensorFlow's output.
fn check_graph(g: &Graph, want: &Json) {
    let sess = Session::new(g).unwrap();
    for (name, w) in want.as_object().unwrap() {
        let out = g
            .operation_by_name(name)
            .unwrap_or_else(|| panic!("no node {name}"))
            .output(0)
            .unwrap();
        let got = sess.eval(&out).unwrap().to_scalar::<Bytes>().unwrap();
        let want_bytes = b64(w["summary"].as_str().unwrap());
        match w.get("values") {
            Some(v) => check_images(
                name,
                Summary::decode(got).unwrap(),
                &want_bytes,
                v.as_array().unwrap(),
            ),
            None => assert_eq!(&got[..], &want_bytes[..], "{name}: serialized Summary"),
        }
    }
}

/// TensorFlow's GraphDef of every new summary (graph.pb) imports and runs as TensorFlow ran it,
/// and weir's export of the imported graph imports and runs the same again.
#[test]
fn tensorflows_graph_def_imports_runs_and_exports() {
    use weir_graph::graph_def::{proto::GraphDef, ImportGraphDef};
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/summary_more");
    let bytes = std::fs::read(dir.join("graph.pb")).unwrap();
    let want = &expected()["graph"];
    let def = GraphDef::decode(&bytes[..]).unwrap();
    let g = Graph::new();
    weir_ops::import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
    check_graph(&g, want);
    let exported = g.as_graph_def(false).unwrap();
    let g2 = Graph::new();
    weir_ops::import_graph_def(&g2, &ImportGraphDef::new(&exported).name("")).unwrap();
    check_graph(&g2, want);
}
