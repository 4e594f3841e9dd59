//! `ResourceGather` (`v.sparse_read`, `tf.gather(v, i)`, the raw op with `batch_dims`),
//! `ResourceGatherNd` (`v.gather_nd`), `TensorScatterMax`/`Min`, `ScatterNdMax`/`Min` and
//! `ResourceScatterNdMax`/`Min` against TensorFlow 2.21: every case of
//! tests/data/resource_gather_scatter/expected.json (made by make_resource_gather_scatter.py
//! there), with every dtype TensorFlow's CPU kernels take, compared bit for bit (the ops only
//! move and compare elements), with static shapes and errors (graph-construction failures when
//! the node is added, kernel errors with TensorFlow's code and message).

use serde_json::Value;
use weir_graph::{Code, Complex, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{
    constant, placeholder_with_default, tensor_scatter_nd_max, tensor_scatter_nd_min,
};
use weir_ops::state::{
    resource_gather, resource_scatter_nd_max, resource_scatter_nd_min, scatter_nd_max,
    scatter_nd_min, Variable,
};

use crate::io_util::{
    check_all_cases, check_spec_outputs, check_tf_error, expected_cases, run_built_case,
    spec_tensor, usizes,
};

/// A recorded tensor; complex128 (which the shared `spec_tensor` leaves out) as the bit
/// patterns of its parts.
fn tensor(spec: &Value) -> Tensor {
    if spec["dtype"] != "complex128" {
        return spec_tensor(spec);
    }
    let bits: Vec<f64> = spec["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| f64::from_bits(x.as_u64().unwrap()))
        .collect();
    let v = bits.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
    Tensor::from_vec(&usizes(&spec["dims"]), v).unwrap()
}

/// A build-time failure: TensorFlow's TypeErrors and ValueErrors (shape functions) are
/// InvalidArgument here, with TensorFlow's message up to its node description.
fn check_build_error(name: &str, e: &weir_graph::Error, want: &Value) {
    assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
    let msg = want["message"].as_str().unwrap();
    let want = msg.split(" for '").next().unwrap();
    let got = e.message().split(" for '").next().unwrap();
    assert_eq!(got, want, "{name}");
}

fn check_error(name: &str, e: &weir_graph::Error, want: &Value) {
    if want.get("type").is_some() {
        check_build_error(name, e, want);
    } else {
        check_tf_error(name, e, want);
    }
}

/// The case's indices: a constant, or fed with an unknown shape.
fn indices(g: &Graph, c: &Value) -> Result<Output> {
    let k = constant(g, tensor(&c["indices"]))?;
    if c["fed"].as_bool() == Some(true) {
        placeholder_with_default(k, Shape::unknown())
    } else {
        Ok(k)
    }
}

/// Builds the case's graph: its output, with the variable initialized by a control dependency
/// (TensorFlow's script runs the initializer first; here it runs in the same step, before).
fn build(g: &Graph, c: &Value) -> Result<Vec<Output>> {
    let kind = c["kind"].as_str().unwrap();
    let params = constant(g, tensor(&c["params"]))?;
    let i = indices(g, c)?;
    if kind == "tensor_scatter" {
        let u = constant(g, tensor(&c["updates"]))?;
        let out = match c["op"].as_str().unwrap() {
            "max" => tensor_scatter_nd_max(params, i, u)?,
            _ => tensor_scatter_nd_min(params, i, u)?,
        };
        return Ok(vec![out]);
    }
    let v = Variable::builder(params).name("v").build()?;
    let _init = g.control_dependencies(&[v.initializer()])?;
    let out = match kind {
        "sparse_read" | "tf_gather" => v.sparse_read(i)?,
        "raw_gather" => resource_gather(&v, i, c["batch_dims"].as_i64().unwrap(), true)?,
        "gather_nd" => v.gather_nd(i)?,
        "scatter_nd_ref" => {
            let u = constant(g, tensor(&c["updates"]))?;
            match c["op"].as_str().unwrap() {
                "max" => scatter_nd_max(&v, i, u)?,
                _ => scatter_nd_min(&v, i, u)?,
            }
        }
        "scatter_nd_resource" => {
            let u = constant(g, tensor(&c["updates"]))?;
            let up = match c["op"].as_str().unwrap() {
                "max" => resource_scatter_nd_max(&v, i, u)?,
                _ => resource_scatter_nd_min(&v, i, u)?,
            };
            let _after = g.control_dependencies(&[up])?;
            v.read_value()?
        }
        other => panic!("kind {other}"),
    };
    Ok(vec![out])
}

#[test]
fn resource_gathers_and_min_max_scatters_match_tensorflow() {
    let cases = expected_cases("resource_gather_scatter");
    assert!(cases.len() >= 200, "{} cases", cases.len());
    let mut dtypes = std::collections::BTreeSet::new();
    for c in &cases {
        if c.get("outputs").is_some() {
            dtypes.insert((
                c["kind"].as_str().unwrap().to_string(),
                c["dtype"].as_str().unwrap().to_string(),
            ));
        }
    }
    // Every dtype TensorFlow's CPU kernels take, for each op, ran to a value.
    assert_eq!(
        dtypes.iter().filter(|(k, _)| k == "sparse_read").count(),
        16
    );
    assert_eq!(dtypes.iter().filter(|(k, _)| k == "gather_nd").count(), 16);
    for k in ["tensor_scatter", "scatter_nd_ref", "scatter_nd_resource"] {
        assert_eq!(dtypes.iter().filter(|(kk, _)| kk == k).count(), 12, "{k}");
    }
    check_all_cases(&cases, |c| {
        run_built_case(
            c,
            c.get("build_error"),
            |g, _feeds| build(g, c),
            check_error,
            |name, got| check_spec_outputs_any(name, c, got),
        )
    });
}

/// [`check_spec_outputs`], with complex128 compared here.
fn check_spec_outputs_any(name: &str, c: &Value, got: &[Tensor]) {
    if c["dtype"] != "complex128" {
        return check_spec_outputs(name, c, got);
    }
    let want = tensor(&c["outputs"][0]);
    assert_eq!(got[0].dtype(), DType::C128, "{name}");
    assert_eq!(got[0].shape(), want.shape(), "{name}");
    let bits = |t: &Tensor| -> Vec<(u64, u64)> {
        t.as_slice::<Complex<f64>>()
            .unwrap()
            .iter()
            .map(|z| (z.re.to_bits(), z.im.to_bits()))
            .collect()
    };
    assert_eq!(bits(&got[0]), bits(&want), "{name}");
}

#[test]
fn sparse_read_names_its_node_as_tensorflow_does() {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, Tensor::from(vec![1.0f32, 2.0])).unwrap())
        .name("emb")
        .build()
        .unwrap();
    let r = v.sparse_read(constant(&g, [1]).unwrap()).unwrap();
    assert_eq!(r.op().op_type(), "ResourceGather");
    assert_eq!(r.op().name(), "Gather");
    let nd = v
        .gather_nd(constant(&g, Tensor::from_vec(&[1, 1], vec![0]).unwrap()).unwrap())
        .unwrap();
    assert_eq!(nd.op().op_type(), "Identity");
    let up = scatter_nd_max(
        &v,
        constant(&g, Tensor::from_vec(&[1, 1], vec![0]).unwrap()).unwrap(),
        constant(&g, [3.0f32]).unwrap(),
    )
    .unwrap();
    assert!(up.op().attr::<bool>("use_locking").unwrap());
}
