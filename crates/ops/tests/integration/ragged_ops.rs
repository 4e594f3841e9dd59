//! The ragged ops (`RaggedRange`, `RaggedGather`, `RaggedTensorToSparse`,
//! `RaggedTensorToTensor`, `RaggedFillEmptyRows(Grad)`) and the count ops
//! (`Dense/Sparse/RaggedCountSparseOutput`, `SparseBincount`, `RaggedBincount`) against
//! TensorFlow 2.21: `tests/data/ragged_ops/make_ragged_ops.py` ran every case in TensorFlow
//! with its inputs fed through placeholders of unknown shape (so each check is the kernel's),
//! and recorded the outputs bit for bit or the error's code and message.

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::{
    dense_count_sparse_output, ragged_bincount_op, ragged_count_sparse_output, sparse_bincount_op,
    sparse_count_sparse_output, CountAttrs, MathBincount, SparseBincount,
};
use weir_ops::ragged::{
    ragged_cross, ragged_cross_hashed, ragged_fill_empty_rows, ragged_fill_empty_rows_grad,
    ragged_gather, ragged_gather_op, ragged_tensor_to_sparse, ragged_tensor_to_tensor_op,
    RaggedCrossInput, RaggedOutput, RaggedRange, RaggedToTensor, RowPartitionType,
};
use weir_ops::sparse::SparseOutput;

use crate::io_util::{
    check_all_cases, check_spec_outputs, check_tf_error, expected_cases, fetch_and_feed,
    spec_tensor,
};

/// The case's inputs as placeholders of unknown shape (fed their recorded values), by arg.
struct Inputs {
    args: Vec<(String, Vec<Output>)>,
}

impl Inputs {
    fn one(&self, arg: &str) -> Output {
        self.list(arg)[0].clone()
    }

    fn list(&self, arg: &str) -> &[Output] {
        &self
            .args
            .iter()
            .find(|(a, _)| a == arg)
            .unwrap_or_else(|| panic!("no input {arg}"))
            .1
    }
}

fn attr_i64(c: &Value, name: &str) -> Option<i64> {
    c["attrs"].get(name).and_then(|v| v.as_i64())
}

fn count_attrs(c: &Value) -> CountAttrs {
    CountAttrs {
        minlength: attr_i64(c, "minlength"),
        maxlength: attr_i64(c, "maxlength"),
        binary_output: c["attrs"]["binary_output"].as_bool().unwrap_or(false),
    }
}

fn partition_type(s: &str) -> RowPartitionType {
    match s {
        "ROW_SPLITS" => RowPartitionType::RowSplits,
        "VALUE_ROWIDS" => RowPartitionType::ValueRowids,
        "FIRST_DIM_SIZE" => RowPartitionType::FirstDimSize,
        // Not a type weir's builder can name: stand in one that the attr check rejects the
        // same way (checked through the raw attr below).
        _ => RowPartitionType::RowSplits,
    }
}

/// Adds the case's op through weir's builder; its outputs in TensorFlow's order.
fn build(c: &Value, g: &Graph, ins: &Inputs) -> Result<Vec<Output>> {
    let binary = c["attrs"]["binary_output"].as_bool().unwrap_or(false);
    let sparse = || {
        SparseOutput::new(
            ins.one("indices"),
            ins.one("values"),
            ins.one("dense_shape"),
        )
    };
    Ok(match c["op"].as_str().unwrap() {
        "RaggedRange" => {
            let starts = ins.one("starts");
            let mut r = RaggedRange::new()
                .deltas(ins.one("deltas"))
                .dtype(starts.dtype());
            if let Some(s) = c["attrs"].get("Tsplits") {
                r = r.row_splits_dtype(crate::io_util::spec_dtype(s.as_str().unwrap()));
            }
            let rt = r.build(starts, Some(ins.one("limits")))?;
            vec![rt.nested_row_splits[0].clone(), rt.flat_values]
        }
        "RaggedGather" => {
            let rank = attr_i64(c, "OUTPUT_RAGGED_RANK").unwrap() as usize;
            let rt = ragged_gather_op(
                ins.list("params_nested_splits"),
                &ins.one("params_dense_values"),
                ins.one("indices"),
                rank,
            )?;
            let mut out = rt.nested_row_splits;
            out.push(rt.flat_values);
            out
        }
        "RaggedTensorToSparse" => {
            let rt = RaggedOutput {
                flat_values: ins.one("rt_dense_values"),
                nested_row_splits: ins.list("rt_nested_splits").to_vec(),
            };
            ragged_tensor_to_sparse(&rt)?.outputs().to_vec()
        }
        "RaggedTensorToTensor" => {
            let names: Vec<String> = c["attrs"]["row_partition_types"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect();
            let parts = ins.list("row_partition_tensors");
            if names.iter().any(|n| n == "ROW_LENGTHS") {
                // weir's builder cannot name ROW_LENGTHS; add the node with the raw attr.
                let op = g
                    .new_operation("RaggedTensorToTensor")
                    .input(ins.one("shape"))
                    .input(ins.one("values"))
                    .input(ins.one("default_value"))
                    .inputs(parts.iter().cloned())
                    .attr("num_row_partition_tensors", parts.len() as i64)
                    .attr("row_partition_types", names)
                    .build()?;
                return Ok(vec![op.output(0)?]);
            }
            let types: Vec<RowPartitionType> = names.iter().map(|n| partition_type(n)).collect();
            vec![ragged_tensor_to_tensor_op(
                ins.one("shape"),
                &ins.one("values"),
                ins.one("default_value"),
                parts,
                &types,
            )?]
        }
        "RaggedFillEmptyRows" => {
            let (a, b, c, d) = ragged_fill_empty_rows(
                ins.one("value_rowids"),
                ins.one("values"),
                ins.one("nrows"),
                ins.one("default_value"),
            )?;
            vec![a, b, c, d]
        }
        "RaggedFillEmptyRowsGrad" => {
            let (a, b) =
                ragged_fill_empty_rows_grad(ins.one("reverse_index_map"), ins.one("grad_values"))?;
            vec![a, b]
        }
        "DenseCountSparseOutput" => {
            dense_count_sparse_output(ins.one("values"), ins.one("weights"), count_attrs(c))?
                .outputs()
                .to_vec()
        }
        "SparseCountSparseOutput" => {
            sparse_count_sparse_output(&sparse()?, ins.one("weights"), count_attrs(c))?
                .outputs()
                .to_vec()
        }
        "RaggedCountSparseOutput" => ragged_count_sparse_output(
            ins.one("splits"),
            ins.one("values"),
            ins.one("weights"),
            count_attrs(c),
        )?
        .outputs()
        .to_vec(),
        "SparseBincount" => vec![sparse_bincount_op(
            &sparse()?,
            ins.one("size"),
            ins.one("weights"),
            binary,
        )?],
        "RaggedBincount" => vec![ragged_bincount_op(
            ins.one("splits"),
            ins.one("values"),
            ins.one("size"),
            ins.one("weights"),
            binary,
        )?],
        "RaggedCross" => {
            let order = c["attrs"]["input_order"].as_str().unwrap();
            let (mut r, mut s, mut d) = (0, 0, 0);
            let mut inputs = Vec::new();
            for ch in order.chars() {
                inputs.push(match ch {
                    'R' => {
                        r += 1;
                        RaggedCrossInput::Ragged(RaggedOutput {
                            flat_values: ins.list("ragged_values")[r - 1].clone(),
                            nested_row_splits: vec![ins.list("ragged_row_splits")[r - 1].clone()],
                        })
                    }
                    'S' => {
                        s += 1;
                        RaggedCrossInput::Sparse(SparseOutput::new(
                            ins.list("sparse_indices")[s - 1].clone(),
                            ins.list("sparse_values")[s - 1].clone(),
                            ins.list("sparse_shape")[s - 1].clone(),
                        )?)
                    }
                    _ => {
                        d += 1;
                        RaggedCrossInput::Dense(ins.list("dense_inputs")[d - 1].clone())
                    }
                });
            }
            let rt = if c["attrs"]["hashed_output"].as_bool().unwrap() {
                let key = attr_i64(c, "hash_key").unwrap() as u64;
                let buckets = attr_i64(c, "num_buckets").unwrap();
                ragged_cross_hashed(&inputs, buckets, Some(key))?
            } else {
                ragged_cross(&inputs)?
            };
            vec![rt.flat_values, rt.nested_row_splits[0].clone()]
        }
        "python" => build_python(c["name"].as_str().unwrap(), ins)?,
        other => panic!("no builder for {other}"),
    })
}

/// The components of a ragged tensor in the order the script records them.
fn ragged_parts(rt: RaggedOutput) -> Vec<Output> {
    let mut out = vec![rt.flat_values];
    out.extend(rt.nested_row_splits);
    out
}

/// The Python-level cases (`tf.ragged.range`, `tf.gather`, `to_tensor`, `to_sparse`,
/// `tf.sparse.bincount`, `tf.ragged.cross`) through weir's builders over constants.
fn build_python(name: &str, ins: &Inputs) -> Result<Vec<Output>> {
    let rt = |v: &str, splits: &[&str]| RaggedOutput {
        flat_values: ins.one(v),
        nested_row_splits: splits.iter().map(|s| ins.one(s)).collect(),
    };
    let nest = || rt("v", &["s0", "s1"]);
    let sp = || SparseOutput::new(ins.one("i"), ins.one("v"), ins.one("sh"));
    Ok(match name {
        "py_range_limits_only" => ragged_parts(RaggedRange::new().build(ins.one("n"), None)?),
        "py_range_mixed_dtypes" => ragged_parts(
            RaggedRange::new()
                .deltas(ins.one("d"))
                .build(ins.one("s"), Some(ins.one("l")))?,
        ),
        "py_range_int32_splits" => ragged_parts(
            RaggedRange::new()
                .row_splits_dtype(DType::I32)
                .build(ins.one("s"), Some(ins.one("l")))?,
        ),
        "py_gather_2d" | "py_gather_scalar" => ragged_parts(ragged_gather(&nest(), ins.one("i"))?),
        "py_to_tensor_default" => vec![RaggedToTensor::new().build(&nest())?],
        "py_to_tensor_shape" => vec![RaggedToTensor::new()
            .default_value(-1.0f32)
            .shape(Shape::new(vec![None, Some(1)]))
            .build(&rt("v", &["s0"]))?],
        "py_to_sparse" => ragged_tensor_to_sparse(&nest())?.outputs().to_vec(),
        "py_sparse_bincount_axis0" => SparseBincount::new()
            .weights(ins.one("w"))
            .minlength(12)
            .build(ins.one("x"))?
            .outputs()
            .to_vec(),
        "py_sparse_bincount_axis_last" => SparseBincount::new()
            .axis(-1)
            .maxlength(4)
            .binary_output(true)
            .build(ins.one("x"))?
            .outputs()
            .to_vec(),
        "py_sparse_bincount_sparse" => SparseBincount::new()
            .axis(-1)
            .build_sparse(&sp()?)?
            .outputs()
            .to_vec(),
        "py_sparse_bincount_sparse_axis0" => SparseBincount::new()
            .build_sparse(&sp()?)?
            .outputs()
            .to_vec(),
        "py_sparse_bincount_ragged" => SparseBincount::new()
            .axis(-1)
            .build_ragged(&rt("v", &["s0"]))?
            .outputs()
            .to_vec(),
        "py_sparse_bincount_ragged_axis0" => SparseBincount::new()
            .build_ragged(&rt("v", &["s0"]))?
            .outputs()
            .to_vec(),
        "py_cross" | "py_cross_hashed" => {
            let inputs = [
                RaggedCrossInput::Ragged(rt("a", &["s"])),
                RaggedCrossInput::Dense(ins.one("d")),
            ];
            ragged_parts(if name == "py_cross" {
                ragged_cross(&inputs)?
            } else {
                ragged_cross_hashed(&inputs, 7, None)?
            })
        }
        "py_math_bincount_sparse" => vec![MathBincount::new().axis(-1).build_sparse(&sp()?)?],
        "py_math_bincount_sparse_w" => vec![MathBincount::new()
            .weights(ins.one("w"))
            .axis(-1)
            .minlength(7)
            .build_sparse(&sp()?)?],
        "py_math_bincount_sparse_axis0" => vec![MathBincount::new()
            .maxlength(3)
            .dtype(DType::I64)
            .build_sparse(&sp()?)?],
        "py_math_bincount_ragged" => vec![MathBincount::new()
            .axis(-1)
            .build_ragged(&rt("v", &["s0"]))?],
        "py_math_bincount_ragged_w" => vec![MathBincount::new()
            .weights(ins.one("w"))
            .axis(-1)
            .build_ragged(&rt("v", &["s0"]))?],
        "py_math_bincount_ragged_axis0" => vec![MathBincount::new()
            .binary_output(true)
            .minlength(6)
            .build_ragged(&rt("v", &["s0"]))?],
        other => panic!("no Python builder for {other}"),
    })
}

/// Runs one case; returns whether it ended in an error (as TensorFlow's did).
fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    weir_ops::register_all_ops();
    let g = Graph::new();
    let mut feeds: Vec<(Output, Tensor)> = Vec::new();
    let mut args = Vec::new();
    for input in c["inputs"].as_array().unwrap() {
        let mut outs = Vec::new();
        for spec in input["values"].as_array().unwrap() {
            let t = spec_tensor(spec);
            if c["op"] == "python" {
                outs.push(constant(&g, t).unwrap());
                continue;
            }
            let p = placeholder(&g, t.dtype(), weir_graph::Shape::unknown()).unwrap();
            feeds.push((p.clone(), t));
            outs.push(p);
        }
        args.push((input["arg"].as_str().unwrap().to_string(), outs));
    }
    let built = build(c, &g, &Inputs { args });
    if let Some(want) = c.get("build_error") {
        let e = built.expect_err(name);
        assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
        let want = want["message"].as_str().unwrap();
        let want = want.split(" for '").next().unwrap();
        assert_eq!(e.message().split(" for '").next().unwrap(), want, "{name}");
        return true;
    }
    let outs = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let ran = weir_session::Session::new(&g)
        .unwrap()
        .run(&fetch_and_feed(&outs, feeds));
    match (ran, c.get("error")) {
        (Ok(v), None) => {
            check_spec_outputs(name, c, &v);
            false
        }
        (Err(e), Some(want)) => {
            check_tf_error(name, &e, want);
            true
        }
        (Ok(v), Some(want)) => panic!("{name}: got {v:?}, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

#[test]
fn ragged_and_count_ops_match_tensorflow() {
    let cases = expected_cases("ragged_ops");
    assert!(cases.len() > 200, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}
