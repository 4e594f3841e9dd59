//! `Bitcast` between every pair of TensorFlow's Bitcast types (the quantized ones aside, which
//! weir does not have) against TensorFlow 2.21, bit for bit (tests/data/dtypes,
//! `op: "bitcast"`), with the shape errors of its shape function (constant inputs) and of its
//! kernel (fed ones), and the dtypes its op def rejects (`op: "bitcast_bad_type"`).

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Tensor};
use weir_ops::array::{bitcast, constant, placeholder};
use weir_session::Session;

use super::dtypes_util::{cases, check_each, check_outcome, dtype_named, spec_tensor};
use super::io_util::fetch_and_feed;

fn check(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let x = spec_tensor(&c["x"]);
    let mut feeds = Vec::new();
    let input = if c["fed"].as_bool() == Some(true) {
        let p = placeholder(&g, x.dtype(), weir_graph::Shape::unknown()).unwrap();
        feeds.push((p.clone(), x));
        p
    } else {
        constant(&g, x).unwrap()
    };
    let built = bitcast(input, dtype_named(&c["dst"]));
    if let Some(want) = c.get("build_error") {
        let e = built.expect_err(name);
        assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
        let msg = e.message().split(" for '").next().unwrap();
        assert_eq!(msg, want["message"].as_str().unwrap(), "{name}");
        return;
    }
    let y = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let got = Session::new(&g).unwrap().run(&fetch_and_feed([&y], feeds));
    check_outcome(name, c, got);
}

#[test]
fn bitcast_matches_tensorflow_for_every_pair_of_types() {
    check_each(&cases("bitcast"), check);
}

#[test]
fn bitcast_rejects_the_types_tensorflow_rejects() {
    check_each(&cases("bitcast_bad_type"), |c| {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let src = dtype_named(&c["src"]);
        let x = match src {
            DType::Bool => Tensor::from(vec![true, false]),
            DType::String => Tensor::from(vec![weir_graph::Bytes::from_static(b"a")]),
            _ => Tensor::from(vec![1i8, 0]),
        };
        let e = bitcast(constant(&g, x).unwrap(), dtype_named(&c["dst"])).expect_err(name);
        assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
        // Weir words the op def's check as TensorFlow's C++ (attr `type`) or Python (input)
        // layer does; both name the list of allowed values.
        assert!(e.message().contains("allowed values"), "{name}: {e}");
    });
}
