//! The cases of tests/data/more_ops/expected.json (made by make_more_ops.py with TensorFlow
//! 2.21) built as weir graphs: shared by weir-ops' value tests (more_ops.rs) and weir-train's
//! gradient tests (more_ops_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Bytes, DType, Error, Graph, Operation, Output, Result, Shape, Tensor};
use weir_ops::array::{self, constant, placeholder_with_default};
use weir_ops::linalg::{self, Align, MatrixDiag};
use weir_ops::state::{self, Variable};

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../ops/tests/data/more_ops/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

/// A recorded tensor.
pub fn tensor(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let f = |x: &Value| match x {
        Value::String(s) => s.parse::<f64>().unwrap_or(f64::NAN),
        x => x.as_f64().unwrap(),
    };
    let i = |x: &Value| x.as_i64().unwrap();
    match dt {
        DType::F32 => Tensor::from_vec(&shape, vals.iter().map(|x| f(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(f).collect()),
        DType::I32 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(i).collect()),
        DType::Bool => {
            Tensor::from_vec(&shape, vals.iter().map(|x| x.as_bool().unwrap()).collect())
        }
        DType::String => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| Bytes::copy_from_slice(x.as_str().unwrap().as_bytes()))
                .collect(),
        ),
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

/// A weir graph of one case: its outputs, the op to run first (resource scatters), the
/// variable it updates, and its inputs by name.
pub struct Built {
    pub outputs: Vec<Output>,
    pub target: Option<Operation>,
    pub var: Option<Variable>,
    pub inputs: HashMap<String, Output>,
}

fn attr_i64(case: &Value, name: &str) -> Option<i64> {
    case["attrs"][name].as_i64()
}

fn k_range(case: &Value) -> (i64, i64) {
    match case["attrs"]["k"].as_array() {
        Some(k) => (k[0].as_i64().unwrap(), k[1].as_i64().unwrap()),
        None => (0, 0),
    }
}

fn diag_options(case: &Value, inputs: &HashMap<String, Output>) -> MatrixDiag {
    let (lo, hi) = k_range(case);
    let mut o = MatrixDiag::new().k_range(lo, hi);
    if let Some(k) = inputs.get("k") {
        o = o.k_tensor(k);
    }
    if let Some(n) = attr_i64(case, "num_rows") {
        o = o.num_rows(n);
    }
    if let Some(n) = attr_i64(case, "num_cols") {
        o = o.num_cols(n);
    }
    if let Some(v) = case["attrs"]["padding_value"].as_f64() {
        o = o.padding_value(v);
    }
    let align = match case["attrs"]["align"].as_str() {
        Some("LEFT_RIGHT") => Align::LeftRight,
        Some("LEFT_LEFT") => Align::LeftLeft,
        Some("RIGHT_RIGHT") => Align::RightRight,
        _ => Align::RightLeft,
    };
    o.align(align)
}

fn raw(g: &Graph, op: &str, ins: &[&Output]) -> weir_graph::OpBuilder {
    weir_ops::register_all_ops();
    let mut b = g.new_operation(op);
    for i in ins {
        b = b.input(*i);
    }
    b
}

/// Builds `case` in `g`. Inputs named in `grad` become placeholders with defaults (what
/// gradients are taken with respect to); with the case's `dynamic`, all inputs have unknown
/// shapes, so the kernels, not the shape functions, see them.
pub fn build(g: &Graph, case: &Value, grad: &[&str]) -> Result<Built> {
    let dynamic = case["dynamic"].as_bool().unwrap_or(false);
    let mut inputs = HashMap::new();
    let mut var = None;
    for (name, v) in case["inputs"].as_object().unwrap() {
        let t = tensor(v);
        if name == "ref" {
            var = Some(Variable::new(constant(g, t)?)?);
            continue;
        }
        let c = constant(g, t)?;
        let o = if dynamic {
            placeholder_with_default(&c, Shape::unknown())?
        } else if grad.contains(&name.as_str()) {
            let s = c.shape();
            placeholder_with_default(&c, s)?
        } else {
            c
        };
        inputs.insert(name.clone(), o);
    }
    let fn_name = case["fn"].as_str().unwrap();
    let inp = |n: &str| -> Output { inputs[n].clone() };
    let one = |o: Result<Output>| o.map(|o| vec![o]);
    let mut target = None;
    let outputs: Vec<Output> = match fn_name {
        f if f.starts_with("resource_scatter") => {
            let op = match f {
                "resource_scatter_nd_update" => "ResourceScatterNdUpdate",
                "resource_scatter_nd_add" => "ResourceScatterNdAdd",
                "resource_scatter_nd_sub" => "ResourceScatterNdSub",
                "resource_scatter_update" => "ResourceScatterUpdate",
                "resource_scatter_add" => "ResourceScatterAdd",
                "resource_scatter_sub" => "ResourceScatterSub",
                "resource_scatter_mul" => "ResourceScatterMul",
                "resource_scatter_div" => "ResourceScatterDiv",
                "resource_scatter_min" => "ResourceScatterMin",
                _ => "ResourceScatterMax",
            };
            let v = var.as_ref().unwrap();
            target = Some(state::resource_scatter(
                op,
                v,
                inp("indices"),
                inp("updates"),
            )?);
            vec![]
        }
        f if f.starts_with("scatter_") => {
            let v = var.as_ref().unwrap();
            let build = match f {
                "scatter_update" => state::scatter_update,
                "scatter_add" => state::scatter_add,
                "scatter_sub" => state::scatter_sub,
                "scatter_mul" => state::scatter_mul,
                "scatter_div" => state::scatter_div,
                "scatter_min" => state::scatter_min,
                "scatter_max" => state::scatter_max,
                "scatter_nd_update" => state::scatter_nd_update,
                "scatter_nd_add" => state::scatter_nd_add,
                _ => state::scatter_nd_sub,
            };
            one(build(v, inp("indices"), inp("updates")))?
        }
        "tensor_scatter_nd_update" => one(array::tensor_scatter_nd_update(
            inp("tensor"),
            inp("indices"),
            inp("updates"),
        ))?,
        "tensor_scatter_nd_add" => one(array::tensor_scatter_nd_add(
            inp("tensor"),
            inp("indices"),
            inp("updates"),
        ))?,
        "tensor_scatter_nd_sub" => one(array::tensor_scatter_nd_sub(
            inp("tensor"),
            inp("indices"),
            inp("updates"),
        ))?,
        "matrix_diag" if inputs.contains_key("num_rows") => {
            let d = inp("diagonal");
            let c = |v: i32| constant(g, v);
            let pad = constant(g, 0.0f32)?;
            one(raw(
                g,
                "MatrixDiagV3",
                &[&d, &c(0)?, &inp("num_rows"), &c(-1)?, &pad],
            )
            .build()?
            .output(0))?
        }
        "matrix_diag" => one(diag_options(case, &inputs).diag(inp("diagonal")))?,
        "matrix_diag_part" => one(diag_options(case, &inputs).diag_part(inp("input")))?,
        "matrix_set_diag" => {
            one(diag_options(case, &inputs).set_diag(inp("input"), inp("diagonal")))?
        }
        "diag" => one(linalg::diag(inp("diagonal")))?,
        "diag_part" => one(linalg::diag_part(inp("input")))?,
        "matrix_band_part" if inputs.contains_key("num_lower") => one(linalg::matrix_band_part(
            inp("input"),
            inp("num_lower"),
            inp("num_upper"),
        ))?,
        "matrix_band_part" => one(linalg::band_part(
            inp("input"),
            attr_i64(case, "num_lower").unwrap(),
            attr_i64(case, "num_upper").unwrap(),
        ))?,
        "matrix_inverse" => one(linalg::matrix_inverse(
            inp("input"),
            case["attrs"]["adjoint"].as_bool().unwrap_or(false),
        ))?,
        "matrix_determinant" => one(linalg::matrix_determinant(inp("input")))?,
        "cholesky" => one(linalg::cholesky(inp("input")))?,
        "matrix_triangular_solve" => one(linalg::matrix_triangular_solve(
            inp("matrix"),
            inp("rhs"),
            case["attrs"]["lower"].as_bool().unwrap_or(true),
            case["attrs"]["adjoint"].as_bool().unwrap_or(false),
        ))?,
        "einsum" => {
            let eq = case["attrs"]["equation"].as_str().unwrap();
            let ops: Vec<Output> = ["x", "y", "z"]
                .iter()
                .filter_map(|n| inputs.get(*n).cloned())
                .collect();
            one(linalg::einsum(eq, &ops))?
        }
        "roll" => one(array::roll(inp("input"), inp("shift"), inp("axis")))?,
        "unique_with_counts" => {
            let dt = DType::from_name(case["attrs"]["out_idx"].as_str().unwrap())?;
            let (y, idx, count) = array::unique_with_counts_typed(inp("x"), dt)?;
            vec![y, idx, count]
        }
        "space_to_depth" => one(array::space_to_depth(
            inp("input"),
            attr_i64(case, "block_size").unwrap(),
        ))?,
        "depth_to_space" => one(array::depth_to_space(
            inp("input"),
            attr_i64(case, "block_size").unwrap(),
        ))?,
        "lin_space" => one(array::lin_space(inp("start"), inp("stop"), inp("num")))?,
        "bucketize" => {
            let b: Vec<f32> = case["attrs"]["boundaries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap() as f32)
                .collect();
            one(array::bucketize(inp("input"), &b))?
        }
        "histogram_fixed_width" => {
            let dt = DType::from_name(case["attrs"]["dtype"].as_str().unwrap())?;
            one(array::HistogramFixedWidth::new()
                .nbins_tensor(inp("nbins"))
                .dtype(dt)
                .build(inp("values"), inp("value_range")))?
        }
        "bincount" => {
            let mut b = array::Bincount::new()
                .dtype(DType::from_name(case["attrs"]["dtype"].as_str().unwrap())?);
            if let Some(w) = inputs.get("weights") {
                b = b.weights(w);
            }
            if let Some(n) = attr_i64(case, "minlength") {
                b = b.minlength(n);
            }
            if let Some(n) = attr_i64(case, "maxlength") {
                b = b.maxlength(n);
            }
            one(b.build(inp("arr")))?
        }
        "bincount_raw" => one(
            raw(g, "Bincount", &[&inp("arr"), &inp("size"), &inp("weights")])
                .build()?
                .output(0),
        )?,
        f => return Err(Error::unimplemented(format!("no builder for {f}"))),
    };
    Ok(Built {
        outputs,
        target,
        var,
        inputs,
    })
}

/// The elements as f64 (ints exactly), for comparisons.
pub fn numbers(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F64 => t.to_vec::<f64>().unwrap(),
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| f64::from(v))
            .collect(),
        DType::I64 => t
            .as_slice::<i64>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::I32 => t
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .map(|&v| f64::from(v))
            .collect(),
        dt => panic!("not numbers: {dt}"),
    }
}

/// Checks `got` against TensorFlow's `want`: dtype, shape, and values within `rtol`
/// (relative, with `rtol * 0.1` absolute slack near zero; NaN matches NaN).
pub fn assert_tensor(what: &str, got: &Tensor, want: &Value, rtol: f64) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    if want.dtype() == DType::String || want.dtype() == DType::Bool {
        assert!(got == &want, "{what}: got {got:?}, TensorFlow {want:?}");
        return;
    }
    let (g, w) = (numbers(got), numbers(&want));
    for (a, b) in g.iter().zip(&w) {
        let ok = (a.is_nan() && b.is_nan()) || (a - b).abs() <= rtol * b.abs() + rtol * 0.1;
        assert!(ok, "{what}: got {g:?}, TensorFlow {w:?}");
    }
}
