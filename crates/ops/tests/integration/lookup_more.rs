//! `DenseHashTable` (`MutableDenseHashTableV2`), the anonymous table ops and TensorFlow 1's
//! ref-handle table ops against TensorFlow 2.21: crates/ops/tests/data/lookup_more/expected.json
//! (written by make_lookup_more.py beside it) records, step by step, what TensorFlow gave (the
//! dense tables' exported buckets in TensorFlow's probing order, bit for bit) or the error it
//! raised; v1_tables.pbtxt is the GraphDef of TensorFlow 1 ops that the "graph_def" case ran.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::graph_def::{parse_text, ImportGraphDef};
use weir_graph::{Bytes, Code, DType, Error, Graph, Operation, Output, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::import_graph_def;
use weir_ops::lookup::DenseHashTable;
use weir_session::{RunArgs, Session};

use crate::io_util::{expected_cases, spec_dtype};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lookup_more")
        .join(name)
}

/// The leaves of a nested JSON list, and its shape.
fn flatten<'v>(v: &'v Value, shape: &mut Vec<usize>, depth: usize, out: &mut Vec<&'v Value>) {
    match v {
        Value::Array(items) => {
            if shape.len() == depth {
                shape.push(items.len());
            }
            for x in items {
                flatten(x, shape, depth + 1, out);
            }
        }
        leaf => out.push(leaf),
    }
}

/// An input the script gave as `{"v": nested list, "dtype": name}`.
fn input(spec: &Value) -> Tensor {
    let (mut shape, mut leaves) = (Vec::new(), Vec::new());
    flatten(&spec["v"], &mut shape, 0, &mut leaves);
    let t = match spec_dtype(spec["dtype"].as_str().unwrap()) {
        DType::I64 => {
            Tensor::from_vec(&shape, leaves.iter().map(|x| x.as_i64().unwrap()).collect())
        }
        DType::I32 => Tensor::from_vec(
            &shape,
            leaves.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        DType::F32 => Tensor::from_vec(
            &shape,
            leaves.iter().map(|x| x.as_f64().unwrap() as f32).collect(),
        ),
        DType::F64 => {
            Tensor::from_vec(&shape, leaves.iter().map(|x| x.as_f64().unwrap()).collect())
        }
        DType::Bool => Tensor::from_vec(
            &shape,
            leaves.iter().map(|x| x.as_bool().unwrap()).collect(),
        ),
        DType::String => Tensor::from_vec(
            &shape,
            leaves
                .iter()
                .map(|x| Bytes::from(x.as_str().unwrap().as_bytes().to_vec()))
                .collect(),
        ),
        other => panic!("no inputs of {other}"),
    };
    t.unwrap()
}

/// Compares a tensor with the script's encoding: dtype, shape and every element (floats as
/// their bit patterns, strings as Latin-1 text).
fn check_tensor(what: &str, got: &Tensor, want: &Value) {
    let dtype = spec_dtype(want["dtype"].as_str().unwrap());
    assert_eq!(got.dtype(), dtype, "{what}: dtype");
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(got.shape(), shape.as_slice(), "{what}: shape");
    let values = want["values"].as_array().unwrap();
    let got_values: Vec<Value> = match dtype {
        DType::I64 => got
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::I32 => got
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::F32 => got
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(|x| Value::from(x.to_bits()))
            .collect(),
        DType::F64 => got
            .to_vec::<f64>()
            .unwrap()
            .into_iter()
            .map(|x| Value::from(x.to_bits()))
            .collect(),
        DType::Bool => got
            .to_vec::<bool>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::String => got
            .as_slice::<Bytes>()
            .unwrap()
            .iter()
            .map(|b| Value::from(b.iter().map(|&c| c as char).collect::<String>()))
            .collect(),
        other => panic!("{what}: no outputs of {other}"),
    };
    assert_eq!(&got_values, values, "{what}: values");
}

/// The message of an error up to weir's " for '<node>'" suffix (where TensorFlow's ends).
fn message(e: &Error) -> &str {
    e.message().split(" for '").next().unwrap()
}

fn check_error(what: &str, got: &Error, want: &Value) {
    let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{what}: {got}");
    let want = want["message"].as_str().unwrap();
    if want.starts_with("No OpKernel was registered") {
        check_no_kernel(what, message(got), want);
    } else {
        assert_eq!(message(got), want, "{what}");
    }
}

/// TensorFlow's message for dtypes without a kernel lists the attrs in its hash map's order,
/// and kernels for resource and variant values, which weir's tables do not hold: the same
/// attrs in any order, and TensorFlow's kernel lines less those.
fn check_no_kernel(what: &str, got: &str, want: &str) {
    let split = |m: &str| -> (String, Vec<String>, Vec<String>) {
        let (head, rest) = m.split_once("with these attrs: [").unwrap();
        let (attrs, rest) = rest.split_once("]\n").unwrap();
        let mut attrs: Vec<String> = attrs.split(", ").map(str::to_string).collect();
        attrs.sort();
        let lines = rest
            .lines()
            .filter(|l| !l.contains("DT_RESOURCE") && !l.contains("DT_VARIANT"))
            .map(str::to_string)
            .collect();
        (head.to_string(), attrs, lines)
    };
    assert_eq!(split(got), split(want), "{what}");
}

/// TensorFlow refused to build the op (a shape function, or Python's checks): weir must refuse
/// it too, when building (with TensorFlow's message up to its node name) or when running.
fn check_build_error(what: &str, got: std::result::Result<(), Error>, want: &Value) {
    let e = got.expect_err(&format!("{what}: TensorFlow refused to build it"));
    assert_eq!(e.code(), Code::InvalidArgument, "{what}: {e}");
    let tf = want["message"]
        .as_str()
        .unwrap()
        .split(" for '")
        .next()
        .unwrap();
    if e.message().starts_with("Shape must") {
        assert_eq!(message(&e), tf, "{what}");
    }
}

/// One step of a dense case, as graph ops: what to run and what to fetch.
enum Step {
    Run(Operation),
    Fetch(Vec<Output>),
}

fn raw_op(g: &Graph, op: &str, inputs: &[&Output]) -> Result<Operation> {
    let mut b = g.new_operation(op);
    for i in inputs {
        b = b.input(*i);
    }
    b.build()
}

/// The table of a dense case: the Python class, or the raw op with the case's attrs.
fn dense_table(g: &Graph, c: &Value) -> Result<(Output, Option<DenseHashTable>)> {
    let (kd, vd) = (
        spec_dtype(c["key_dtype"].as_str().unwrap()),
        spec_dtype(c["value_dtype"].as_str().unwrap()),
    );
    let spec = |v: &Value, d: &str| serde_json::json!({"v": v, "dtype": d});
    let empty = input(&spec(&c["empty_key"], c["key_dtype"].as_str().unwrap()));
    let deleted = input(&spec(&c["deleted_key"], c["key_dtype"].as_str().unwrap()));
    let default = input(&spec(&c["default"], c["value_dtype"].as_str().unwrap()));
    if let Some(attrs) = c["raw_table"].as_object() {
        let mut b = g
            .new_operation("MutableDenseHashTableV2")
            .input(constant(g, empty)?)
            .input(constant(g, deleted)?)
            .attr("value_dtype", vd);
        for (k, v) in attrs {
            b = match k.as_str() {
                "max_load_factor" => b.attr(k, v.as_f64().unwrap() as f32),
                _ => b.attr(k, v.as_i64().unwrap()),
            };
        }
        return Ok((b.build()?.output(0)?, None));
    }
    let mut b = DenseHashTable::builder(kd, vd, default, empty, deleted);
    if let Some(n) = c["initial_num_buckets"].as_i64() {
        b = b.initial_num_buckets(n);
    }
    let t = b.build(g)?;
    Ok((t.resource_handle().clone(), Some(t)))
}

fn dense_step(
    g: &Graph,
    handle: &Output,
    table: Option<&DenseHashTable>,
    st: &Value,
    c: &Value,
) -> Result<Step> {
    let (kd, vd) = (
        spec_dtype(c["key_dtype"].as_str().unwrap()),
        spec_dtype(c["value_dtype"].as_str().unwrap()),
    );
    let keys = || constant(g, input(&st["keys"]));
    let values = || constant(g, input(&st["values"]));
    Ok(match st["op"].as_str().unwrap() {
        "insert" => match table {
            Some(t) if st.get("raw").is_none() => {
                Step::Run(t.insert(input(&st["keys"]), input(&st["values"]))?)
            }
            _ => Step::Run(raw_op(
                g,
                "LookupTableInsertV2",
                &[handle, &keys()?, &values()?],
            )?),
        },
        "import" => Step::Run(raw_op(
            g,
            "LookupTableImportV2",
            &[handle, &keys()?, &values()?],
        )?),
        "init" => Step::Run(raw_op(
            g,
            "InitializeTableV2",
            &[handle, &keys()?, &values()?],
        )?),
        "remove" => Step::Run(raw_op(g, "LookupTableRemoveV2", &[handle, &keys()?])?),
        "find" => {
            let default = match st.get("default") {
                Some(d) => constant(g, input(d))?,
                None => {
                    let d = serde_json::json!({"v": c["default"], "dtype": c["value_dtype"]});
                    constant(g, input(&d))?
                }
            };
            let op = raw_op(g, "LookupTableFindV2", &[handle, &keys()?, &default])?;
            Step::Fetch(vec![op.output(0)?])
        }
        "size" => Step::Fetch(vec![raw_op(g, "LookupTableSizeV2", &[handle])?.output(0)?]),
        "export" | "export_shape" => {
            let op = g
                .new_operation("LookupTableExportV2")
                .input(handle)
                .attr("Tkeys", kd)
                .attr("Tvalues", vd)
                .build()?;
            Step::Fetch(vec![op.output(0)?, op.output(1)?])
        }
        other => panic!("no step {other}"),
    })
}

fn run_dense_case(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let built = dense_table(&g, c);
    if let Some(want) = c.get("build_error") {
        check_build_error(name, built.map(|_| ()), want);
        return;
    }
    let (handle, table) = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let steps: Vec<&Value> = c["steps"].as_array().unwrap().iter().collect();
    let results = c["results"].as_array().unwrap();
    assert_eq!(steps.len(), results.len(), "{name}");
    let built: Vec<Result<Step>> = steps
        .iter()
        .map(|st| dense_step(&g, &handle, table.as_ref(), st, c))
        .collect();
    let s = Session::new(&g).unwrap();
    for (k, ((st, want), step)) in steps.iter().zip(results).zip(built).enumerate() {
        let what = format!("{name} step {k} ({})", st["op"]);
        let ran = step.and_then(|step| match step {
            Step::Run(op) => s.run(&RunArgs::new().target(&op)).map(|_| Vec::new()),
            Step::Fetch(outs) => {
                let mut args = RunArgs::new();
                for o in &outs {
                    args = args.fetch(o);
                }
                s.run(&args)
            }
        });
        if let Some(want) = want.get("build_error") {
            check_build_error(&what, ran.map(|_| ()), want);
        } else if let Some(want) = want.get("error") {
            check_error(&what, &ran.expect_err(&what), want);
        } else {
            let got = ran.unwrap_or_else(|e| panic!("{what}: {e}"));
            if let Some(outs) = want.get("outputs") {
                let outs = outs.as_array().unwrap();
                assert_eq!(got.len(), outs.len(), "{what}");
                for (i, (g, w)) in got.iter().zip(outs).enumerate() {
                    check_tensor(&format!("{what} output {i}"), g, w);
                }
            } else if let Some(shapes) = want.get("shapes") {
                for (g, w) in got.iter().zip(shapes.as_array().unwrap()) {
                    let w: Vec<usize> = w
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_u64().unwrap() as usize)
                        .collect();
                    assert_eq!(g.shape(), w.as_slice(), "{what}");
                }
            }
        }
    }
}

fn case(name: &str) -> Value {
    expected_cases("lookup_more")
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

#[test]
fn dense_hash_tables_match_tensorflow_bucket_for_bucket() {
    let cases: Vec<Value> = expected_cases("lookup_more")
        .into_iter()
        .filter(|c| c["kind"] == "dense")
        .collect();
    assert!(cases.len() >= 20, "{} dense cases", cases.len());
    let mut failed = Vec::new();
    for c in &cases {
        if std::panic::catch_unwind(|| run_dense_case(c)).is_err() {
            failed.push(c["name"].as_str().unwrap().to_string());
        }
    }
    assert!(failed.is_empty(), "cases that differ: {failed:?}");
}

/// Runs `fetches` (and `targets`) of `g` as a recorded run, comparing with its outputs or error.
fn check_run(s: &Session, run: &Value, feeds: &[(&str, Tensor)]) {
    let what = format!("run {} {}", run["targets"], run["fetches"]);
    let mut args = RunArgs::new();
    for f in run["fetches"].as_array().unwrap() {
        args = args.fetch_name(f.as_str().unwrap());
    }
    if let Some(targets) = run.get("targets") {
        for t in targets.as_array().unwrap() {
            args = args.target_name(t.as_str().unwrap());
        }
    }
    for (name, v) in feeds {
        args = args.feed_name(name, v.clone());
    }
    let ran = s.run(&args);
    match run.get("error") {
        Some(want) => check_error(&what, &ran.expect_err(&what), want),
        None => {
            let got = ran.unwrap_or_else(|e| panic!("{what}: {e}"));
            let outs = run["outputs"].as_array().unwrap();
            assert_eq!(got.len(), outs.len(), "{what}");
            for (i, (g, w)) in got.iter().zip(outs).enumerate() {
                check_tensor(&format!("{what} output {i}"), g, w);
            }
        }
    }
}

fn identity_after(g: &Graph, name: &str, x: &Output, after: &Operation) -> Result<Output> {
    g.new_operation("Identity")
        .name(name)
        .input(x)
        .control_input(after)
        .build()?
        .output(0)
}

/// The script's anonymous-table graph, op for op.
fn anonymous_graph(g: &Graph) -> Result<()> {
    let i64s = |v: Vec<i64>| constant(g, v);
    let anon = g
        .new_operation("AnonymousMutableHashTable")
        .name("anon")
        .attr("key_dtype", DType::String)
        .attr("value_dtype", DType::I64)
        .build()?
        .output(0)?;
    let ins = g
        .new_operation("LookupTableInsertV2")
        .name("ins")
        .input(&anon)
        .input(constant(g, ["a", "b"])?)
        .input(i64s(vec![1, 2])?)
        .build()?;
    let size = raw_op(g, "LookupTableSizeV2", &[&anon])?.output(0)?;
    identity_after(g, "size_after", &size, &ins)?;
    g.new_operation("LookupTableFindV2")
        .name("found_after")
        .input(&anon)
        .input(constant(g, ["b", "c"])?)
        .input(constant(g, -1i64)?)
        .control_input(&ins)
        .build()?;
    g.new_operation("LookupTableSizeV2")
        .name("size")
        .input(&anon)
        .build()?;

    let hash = g
        .new_operation("AnonymousHashTable")
        .name("anon_hash")
        .attr("key_dtype", DType::I64)
        .attr("value_dtype", DType::F32)
        .build()?
        .output(0)?;
    g.new_operation("LookupTableFindV2")
        .name("hfind")
        .input(&hash)
        .input(i64s(vec![1, 2])?)
        .input(constant(g, 0.0f32)?)
        .build()?;
    let init = g
        .new_operation("InitializeTableV2")
        .name("hinit")
        .input(&hash)
        .input(i64s(vec![1, 3])?)
        .input(constant(g, vec![1.5f32, 3.5])?)
        .build()?;
    let keys = i64s(vec![1, 2])?;
    let zero = constant(g, 0.0f32)?;
    let found = raw_op(g, "LookupTableFindV2", &[&hash, &keys, &zero])?.output(0)?;
    identity_after(g, "hfind_after", &found, &init)?;

    let tensors = g
        .new_operation("AnonymousMutableHashTableOfTensors")
        .name("anon_tensors")
        .attr("key_dtype", DType::I64)
        .attr("value_dtype", DType::I32)
        .attr("value_shape", weir_graph::Shape::known(&[2]))
        .build()?
        .output(0)?;
    let values = constant(g, Tensor::from_vec(&[1, 2], vec![4i32, 40])?)?;
    let oins = raw_op(
        g,
        "LookupTableInsertV2",
        &[&tensors, &i64s(vec![4])?, &values],
    )?;
    let (keys, default) = (i64s(vec![4, 5])?, constant(g, vec![0i32, -1])?);
    let found = raw_op(g, "LookupTableFindV2", &[&tensors, &keys, &default])?.output(0)?;
    identity_after(g, "ofind", &found, &oins)?;

    let dense = |name: &str, empty: i64, deleted: i64| -> Result<Output> {
        g.new_operation("AnonymousMutableDenseHashTable")
            .name(name)
            .input(constant(g, empty)?)
            .input(constant(g, deleted)?)
            .attr("value_dtype", DType::I64)
            .attr("initial_num_buckets", 4i64)
            .build()?
            .output(0)
    };
    let d = dense("anon_dense", 0, -1)?;
    let dins = raw_op(
        g,
        "LookupTableInsertV2",
        &[&d, &i64s(vec![6, 2, 10])?, &i64s(vec![60, 20, 100])?],
    )?;
    let export = g
        .new_operation("LookupTableExportV2")
        .input(&d)
        .attr("Tkeys", DType::I64)
        .attr("Tvalues", DType::I64)
        .build()?;
    identity_after(g, "dense_keys", &export.output(0)?, &dins)?;
    identity_after(g, "dense_values", &export.output(1)?, &dins)?;
    g.new_operation("LookupTableSizeV2")
        .name("dsize")
        .input(&d)
        .build()?;
    let bad = dense("anon_dense_bad", 3, 3)?;
    g.new_operation("LookupTableSizeV2")
        .name("bsize")
        .input(&bad)
        .build()?;
    Ok(())
}

#[test]
fn anonymous_tables_are_fresh_on_every_run_as_in_tensorflow() {
    let c = case("anonymous");
    weir_ops::register_all_ops();
    let g = Graph::new();
    anonymous_graph(&g).unwrap();
    let s = Session::new(&g).unwrap();
    let runs = c["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 9);
    for run in runs {
        check_run(&s, run, &[]);
    }
}

#[test]
fn tensorflow_1_ref_table_graph_imports_and_runs_as_in_tensorflow() {
    let text = std::fs::read_to_string(data("v1_tables.pbtxt")).unwrap();
    let def = parse_text(&text).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
    for op in [
        "HashTable",
        "MutableHashTable",
        "MutableHashTableOfTensors",
        "MutableDenseHashTable",
        "InitializeTable",
        "InitializeTableFromTextFile",
        "LookupTableFind",
        "LookupTableInsert",
        "LookupTableSize",
        "LookupTableExport",
        "LookupTableImport",
    ] {
        assert!(
            g.operations().iter().any(|o| o.op_type() == op),
            "no {op} imported"
        );
    }
    let c = case("graph_def");
    let s = Session::new(&g).unwrap();
    let vocab = data("vocab.txt");
    let feeds = [("vocab_path:0", Tensor::from(vocab.to_str().unwrap()))];
    let runs = c["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 19);
    for run in runs {
        check_run(&s, run, &feeds);
    }
}
