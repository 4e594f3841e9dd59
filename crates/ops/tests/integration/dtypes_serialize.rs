//! `tf.io.serialize_tensor` / `tf.io.parse_tensor` of every numeric, half, complex and bool
//! dtype against TensorFlow 2.21 (tests/data/dtypes, `op: "serialize_tensor"`): weir writes
//! TensorFlow's exact bytes (a `TensorProto` with `tensor_content`), reads them back bit for
//! bit, and also reads the proto `tf.make_tensor_proto` writes (typed fields such as
//! `half_val` for scalars).

use serde_json::Value;
use weir_graph::{Bytes, Graph, Tensor};
use weir_ops::array::constant;
use weir_ops::parsing::{parse_tensor, serialize_tensor};
use weir_session::Session;

use super::dtypes_util::{assert_spec, cases, check_each, unhex};
use super::io_util::run;

fn check(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let x = super::dtypes_util::spec_tensor(&c["x"]);
    let tf_bytes = unhex(c["outputs"][0]["hex"].as_str().unwrap());
    let py_bytes = unhex(c["python_proto_hex"].as_str().unwrap());
    let g = Graph::new();
    let ser = serialize_tensor(constant(&g, x.clone()).unwrap()).unwrap();
    let from_tf = constant(&g, Tensor::scalar(Bytes::from(tf_bytes.clone()))).unwrap();
    let from_py = constant(&g, Tensor::scalar(Bytes::from(py_bytes))).unwrap();
    let back_tf = parse_tensor(&from_tf, x.dtype()).unwrap();
    let back_py = parse_tensor(&from_py, x.dtype()).unwrap();
    let sess = Session::new(&g).unwrap();
    let out = run(&sess, &[&ser, &back_tf, &back_py]).unwrap_or_else(|e| panic!("{name}: {e}"));
    let got = out[0].as_slice::<Bytes>().unwrap()[0].to_vec();
    assert_eq!(got, tf_bytes, "{name}: serialized bytes");
    assert_spec(&format!("{name}: parsed"), &out[1], &c["outputs"][1]);
    assert_spec(
        &format!("{name}: parsed from make_tensor_proto"),
        &out[2],
        &c["x"],
    );
}

#[test]
fn serialize_and_parse_tensor_match_tensorflow_for_every_dtype() {
    check_each(&cases("serialize_tensor"), check);
}
