//! The recorded tensors, errors and step-by-step scenarios of
//! tests/data/data_flow_accumulator/expected.json, read back and replayed on weir.

use std::time::Duration;

use serde_json::Value;
use weir_graph::{f16, Code, DType, Error, Graph, Operation, Output, Result, Shape, Tensor};
use weir_ops::array::{placeholder, IndexArg};
use weir_ops::data_flow::{
    AccumulatorOptions, ConditionalAccumulator, ReductionType, SparseConditionalAccumulator,
};
use weir_session::{RunArgs, Session};

use crate::io_util::{shape_of, usizes, LIMIT};

/// A recorded tensor: floats from their IEEE bit patterns, integers as they are.
pub fn tensor(v: &Value) -> Tensor {
    let shape = usizes(&v["shape"]);
    let vals = v["values"].as_array().unwrap();
    let bits = |x: &Value| x.as_u64().unwrap();
    match v["dtype"].as_str().unwrap() {
        "float16" => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f16::from_bits(bits(x) as u16))
                .collect(),
        ),
        "float32" => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f32::from_bits(bits(x) as u32))
                .collect(),
        ),
        "float64" => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f64::from_bits(bits(x))).collect(),
        ),
        "int64" => Tensor::from_vec(&shape, vals.iter().map(|x| x.as_i64().unwrap()).collect()),
        "int32" => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        other => panic!("no recorded tensors of {other}"),
    }
    .unwrap()
}

/// The elements as comparable bit patterns (floats) or values (integers).
fn element_bits(t: &Tensor) -> Vec<u64> {
    match t.dtype() {
        DType::F16 => t
            .as_slice::<f16>()
            .unwrap()
            .iter()
            .map(|v| u64::from(v.to_bits()))
            .collect(),
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|v| u64::from(v.to_bits()))
            .collect(),
        DType::F64 => t
            .as_slice::<f64>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect(),
        DType::I64 => t
            .as_slice::<i64>()
            .unwrap()
            .iter()
            .map(|&v| v as u64)
            .collect(),
        DType::I32 => t
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .map(|&v| v as u64)
            .collect(),
        other => panic!("unexpected dtype {other}"),
    }
}

pub fn assert_tensor(what: &str, got: &Tensor, want: &Value) {
    let w = tensor(want);
    assert_eq!((got.dtype(), got.shape()), (w.dtype(), w.shape()), "{what}");
    assert_eq!(
        element_bits(got),
        element_bits(&w),
        "{what}: {got:?} vs TensorFlow's {w:?}"
    );
}

/// A message made comparable: without weir's " for '<node>'" suffix and surrounding
/// whitespace, and with the attrs of a "No OpKernel was registered" message sorted (TensorFlow
/// lists them in hash-map order; a shape attr's brackets are part of its value).
pub fn normalized_message(msg: &str) -> String {
    let msg = msg.split(" for '").next().unwrap().trim();
    let (key, end_key) = ("with these attrs: [", "]\nRegistered devices");
    let (Some(start), Some(end)) = (msg.find(key), msg.find(end_key)) else {
        return msg.to_string();
    };
    let start = start + key.len();
    let mut attrs: Vec<&str> = msg[start..end].split(", ").collect();
    attrs.sort_unstable();
    format!("{}{}{}", &msg[..start], attrs.join(", "), &msg[end..])
}

/// Compares a weir error with a recorded `{"type", "code", "message"}`.
pub fn assert_error(what: &str, got: &Error, want: &Value) {
    let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{what}: {got}");
    assert_eq!(
        normalized_message(got.message()),
        normalized_message(want["message"].as_str().unwrap()),
        "{what}"
    );
}

pub fn dtype_of(v: &Value) -> DType {
    DType::from_name(v.as_str().unwrap()).unwrap()
}

/// One scenario's graph: an accumulator and its placeholder-fed ops, as the script builds it.
struct Scenario {
    sess: Session,
    dtype: DType,
    grad: Option<Output>,
    sparse: Option<[Output; 3]>,
    step: Output,
    num: Output,
    new_step: Output,
    apply: Operation,
    apply_shaped: Option<Operation>,
    take: Vec<Output>,
    count: Output,
    set_step: Operation,
}

impl Scenario {
    fn new(c: &Value) -> Result<Scenario> {
        let g = Graph::new();
        let dtype = dtype_of(&c["dtype"]);
        let step = placeholder(&g, DType::I64, Shape::scalar())?;
        let num = placeholder(&g, DType::I32, Shape::scalar())?;
        let new_step = placeholder(&g, DType::I64, Shape::scalar())?;
        let reduction = match c["reduction_type"].as_str().unwrap() {
            "SUM" => ReductionType::Sum,
            _ => ReductionType::Mean,
        };
        let kind = c["kind"].as_str().unwrap();
        let opts = AccumulatorOptions::new()
            .shape(shape_of(&c["shape"]))
            .reduction_type(reduction)
            .ref_handle(kind == "dense_ref");
        let (grad, sparse, apply, apply_shaped, take, count, set_step);
        if kind == "sparse" {
            let acc = SparseConditionalAccumulator::with_options(&g, dtype, opts)?;
            let indices = placeholder(&g, DType::I64, Shape::unknown())?;
            let values = placeholder(&g, dtype, Shape::unknown())?;
            let dense = placeholder(&g, DType::I64, Shape::unknown())?;
            apply = acc.apply_grad_with(&indices, &values, None, &step, None)?;
            let shape = Some(IndexArg::Tensor(dense.clone()));
            apply_shaped = Some(acc.apply_grad_with(&indices, &values, shape, &step, None)?);
            take = acc.take_grad(&num)?.to_vec();
            count = acc.num_accumulated()?;
            set_step = acc.set_global_step(&new_step)?;
            (grad, sparse) = (None, Some([indices, values, dense]));
        } else {
            let acc = ConditionalAccumulator::with_options(&g, dtype, opts)?;
            let p = placeholder(&g, dtype, Shape::unknown())?;
            apply = acc.apply_grad_with(&p, &step, None)?;
            apply_shaped = None;
            take = vec![acc.take_grad(&num)?];
            count = acc.num_accumulated()?;
            set_step = acc.set_global_step(&new_step)?;
            (grad, sparse) = (Some(p), None);
        }
        Ok(Scenario {
            sess: Session::new(&g)?,
            dtype,
            grad,
            sparse,
            step,
            num,
            new_step,
            apply,
            apply_shaped,
            take,
            count,
            set_step,
        })
    }

    /// Runs one recorded step; the fetched outputs.
    fn run(&self, st: &Value) -> Result<Vec<Tensor>> {
        let timeout = st
            .get("timeout_ms")
            .map_or(LIMIT, |ms| Duration::from_millis(ms.as_u64().unwrap()));
        let mut args = RunArgs::new().timeout(timeout);
        let step = || Tensor::scalar(st["local_step"].as_i64().unwrap());
        match st["op"].as_str().unwrap() {
            "apply" => {
                let g = tensor(&st["grad"]);
                assert_eq!(g.dtype(), self.dtype);
                args = args
                    .target(&self.apply)
                    .feed(self.grad.as_ref().unwrap(), g)
                    .feed(&self.step, step());
            }
            "sparse_apply" => {
                let [indices, values, dense] = self.sparse.as_ref().unwrap();
                args = args
                    .feed(indices, tensor(&st["indices"]))
                    .feed(values, tensor(&st["values"]))
                    .feed(&self.step, step());
                args = match st.get("grad_shape").filter(|s| !s.is_null()) {
                    Some(s) => {
                        let dims: Vec<i64> = usizes(s).iter().map(|&d| d as i64).collect();
                        let n = dims.len();
                        args.target(self.apply_shaped.as_ref().unwrap())
                            .feed(dense, Tensor::from_vec(&[n], dims).unwrap())
                    }
                    None => args.target(&self.apply),
                };
            }
            "take" => {
                let n = st["num_required"].as_i64().unwrap() as i32;
                for t in &self.take {
                    args = args.fetch(t);
                }
                args = args.feed(&self.num, Tensor::scalar(n));
            }
            "num" => args = args.fetch(&self.count),
            "set_step" => {
                args = args
                    .target(&self.set_step)
                    .feed(&self.new_step, Tensor::scalar(st["step"].as_i64().unwrap()));
            }
            other => panic!("unknown step {other}"),
        }
        self.sess.run(&args)
    }
}

pub fn check_scenario(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let s = Scenario::new(c).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (i, st) in c["steps"].as_array().unwrap().iter().enumerate() {
        let what = format!("{name} step {i} ({})", st["op"]);
        match (s.run(st), st.get("error")) {
            (Ok(outs), None) => {
                if let Some(want) = st.get("outputs") {
                    let want = want.as_array().unwrap();
                    assert_eq!(outs.len(), want.len(), "{what}");
                    for (k, (g, w)) in outs.iter().zip(want).enumerate() {
                        assert_tensor(&format!("{what} output {k}"), g, w);
                    }
                }
            }
            (Err(e), Some(want)) => assert_error(&what, &e, want),
            (Ok(v), Some(want)) => panic!("{what}: got {v:?}, TensorFlow failed with {want}"),
            (Err(e), None) => panic!("{what}: {e}"),
        }
    }
}
