//! `Unique`, `UniqueWithCounts`, `UniqueV2`, `UniqueWithCountsV2` (1-D and along axis 1 of a
//! matrix) and `ListDiff` with uint32, uint64, float16, bfloat16, complex64, complex128, bool,
//! float32 and int32 against TensorFlow 2.21, bit for bit (tests/data/dtypes, `op: "unique"`):
//! float16/bfloat16 keep `-0.0` apart from `0.0` while float32 merges them, NaNs stay distinct,
//! and complex (and bool for ListDiff) has no kernel. TensorFlow's "No OpKernel" message also
//! lists its XLA devices' kernels; weir's lists the CPU ones, so the message is compared up to
//! that list.

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, reshape, slice};
use weir_session::Session;

use super::dtypes_util::{cases, check_each, check_outcome, spec_tensor};
use super::io_util::run;

fn build(g: &Graph, op: &str, x: Tensor) -> Result<Vec<Output>> {
    weir_ops::register_all_ops();
    let x = constant(g, x)?;
    let axis = |a: i64| constant(g, vec![a]);
    let node = match op {
        "Unique" => g
            .new_operation("Unique")
            .input(&x)
            .attr("out_idx", DType::I64)
            .build()?,
        "UniqueWithCounts" => g.new_operation("UniqueWithCounts").input(&x).build()?,
        "UniqueV2" | "UniqueWithCountsV2" => {
            g.new_operation(op).input(&x).input(&axis(0)?).build()?
        }
        "UniqueV2_axis1" => g
            .new_operation("UniqueV2")
            .input(&reshape(&x, vec![2i64, 4])?)
            .input(&axis(1)?)
            .build()?,
        "ListDiff" => g
            .new_operation("ListDiff")
            .input(&x)
            .input(&slice(&x, vec![1i64], vec![2i64])?)
            .build()?,
        other => panic!("no op {other}"),
    };
    (0..node.num_outputs()).map(|i| node.output(i)).collect()
}

/// A "No OpKernel" message up to its list of registered kernels.
fn head(msg: &str) -> String {
    let msg = super::dtypes_util::normalized_message(msg);
    msg.split("\nRegistered kernels:")
        .next()
        .unwrap()
        .to_string()
}

fn check(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let got = build(&g, c["unique_op"].as_str().unwrap(), spec_tensor(&c["x"]))
        .and_then(|outs| run(&Session::new(&g)?, &outs.iter().collect::<Vec<_>>()));
    if let (Some(want), Err(e)) = (c.get("error"), &got) {
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument, "{name}: {e}");
        assert_eq!(
            head(e.message()),
            head(want["message"].as_str().unwrap()),
            "{name}"
        );
        return;
    }
    check_outcome(name, c, got);
}

#[test]
fn the_unique_family_matches_tensorflow_for_the_new_dtypes() {
    check_each(&cases("unique"), check);
}
