//! TensorFlow 2's V2 stateless random ops, the stateful RNG ops and `tf.random.Generator`
//! against TensorFlow 2.21 (tests/data/random_v2/expected.json, written by make_random_v2.py
//! there): values bit for bit, the state after every stateful call, node structure of the
//! Python-level builders, error kinds and messages.

use serde_json::Value;
use weir_graph::{Bytes, DType, Error, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::random::stateful::raw as sraw;
use weir_ops::random::stateless_v2::raw;
use weir_ops::random::{
    Algorithm, Generator, Scalar, StatelessNormalV2, StatelessShuffle, StatelessTruncatedNormalV2,
    StatelessUniformV2,
};
use weir_ops::state::Variable;
use weir_session::{RunArgs, Session};

use crate::dtypes_util::{assert_spec, check_each, check_error, dtype_named, spec_tensor};
use crate::io_util::expected_cases;

fn cases(kind: &str) -> Vec<Value> {
    let picked: Vec<Value> = expected_cases("random_v2")
        .into_iter()
        .filter(|c| c["kind"] == kind)
        .collect();
    assert!(!picked.is_empty(), "no {kind} cases");
    picked
}

fn name_of(c: &Value) -> &str {
    c["name"].as_str().unwrap()
}

/// A placeholder of unknown shape fed with `t`, as the TensorFlow script feeds every input.
fn fed(g: &Graph, t: Tensor, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let p = placeholder(g, t.dtype(), Shape::unknown()).unwrap();
    feeds.push((p.clone(), t));
    p
}

fn run(g: &Graph, fetch: &[Output], feeds: Vec<(Output, Tensor)>) -> Result<Vec<Tensor>, Error> {
    let mut args = RunArgs::new();
    for o in fetch {
        args = args.fetch(o);
    }
    for (p, t) in feeds {
        args = args.feed(&p, t);
    }
    Session::new(g)?.run(&args)
}

/// Compares outputs (or an error) with the case's `outputs` (or `error`).
fn check_result(name: &str, c: &Value, got: Result<Vec<Tensor>, Error>) {
    match (got, c.get("error")) {
        (Ok(outs), None) => {
            if let Some(strings) = c.get("out_strings") {
                let got: Vec<String> = outs[0]
                    .as_slice::<Bytes>()
                    .unwrap()
                    .iter()
                    .map(|b| String::from_utf8(b.to_vec()).unwrap())
                    .collect();
                let want: Vec<String> = serde_json::from_value(strings.clone()).unwrap();
                assert_eq!(got, want, "{name}");
                return;
            }
            let want = c["outputs"].as_array().unwrap();
            assert_eq!(outs.len(), want.len(), "{name}: outputs");
            for (k, (g, w)) in outs.iter().zip(want).enumerate() {
                assert_spec(&format!("{name} output {k}"), g, w);
            }
        }
        (Err(e), Some(want)) => check_error(name, &e, want),
        (Ok(v), Some(want)) => panic!("{name}: got {v:?}, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

fn build_raw(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Vec<Output> {
    let op = c["op"].as_str().unwrap();
    let inputs = c["inputs"].as_array().unwrap();
    let mut ins: Vec<Output> = inputs
        .iter()
        .filter(|s| !s.is_null())
        .map(|s| fed(g, spec_tensor(s), feeds))
        .collect();
    if let Some(strings) = c.get("strings").filter(|s| !s.is_null()) {
        let words: Vec<String> = serde_json::from_value(strings.clone()).unwrap();
        let t = Tensor::from(words.iter().map(String::as_str).collect::<Vec<_>>());
        ins.insert(0, fed(g, t, feeds));
    }
    let dtype = || dtype_named(&c["dtype"]);
    let one = |r: weir_graph::Result<Output>| vec![r.unwrap()];
    match op {
        "StatelessRandomGetAlg" => one(raw::stateless_random_get_alg(g)),
        "StatelessRandomGetKeyCounter" => {
            let (k, n) = raw::stateless_random_get_key_counter(&ins[0]).unwrap();
            vec![k, n]
        }
        "StatelessRandomGetKeyCounterAlg" => {
            let (k, n, a) = raw::stateless_random_get_key_counter_alg(&ins[0]).unwrap();
            vec![k, n, a]
        }
        "StatelessShuffle" => one(raw::stateless_shuffle(&ins[0], &ins[1], &ins[2], &ins[3])),
        "StatelessRandomGammaV3" => one(raw::stateless_random_gamma_v3(
            g, &ins[0], &ins[1], &ins[2], &ins[3], &ins[4],
        )),
        "StatelessRandomGammaV2" => {
            one(raw::stateless_random_gamma_v2(g, &ins[0], &ins[1], &ins[2]))
        }
        "StatelessRandomBinomial" => one(raw::stateless_random_binomial(
            g,
            &ins[0],
            &ins[1],
            &ins[2],
            &ins[3],
            dtype(),
        )),
        "StatelessRandomPoisson" => one(raw::stateless_random_poisson(
            g,
            &ins[0],
            &ins[1],
            &ins[2],
            dtype(),
        )),
        "StatelessRandomUniformIntV2" => one(raw::stateless_random_uniform_int_v2(
            g, &ins[0], &ins[1], &ins[2], &ins[3], &ins[4], &ins[5],
        )),
        _ => {
            let f = match op {
                "StatelessRandomUniformV2" => raw::stateless_random_uniform_v2,
                "StatelessRandomNormalV2" => raw::stateless_random_normal_v2,
                "StatelessTruncatedNormalV2" => raw::stateless_truncated_normal_v2,
                "StatelessRandomUniformFullIntV2" => raw::stateless_random_uniform_full_int_v2,
                other => panic!("op {other}"),
            };
            one(f(g, &ins[0], &ins[1], &ins[2], &ins[3], dtype()))
        }
    }
}

#[test]
fn raw_v2_ops_match_tensorflow() {
    let all = cases("raw");
    check_each(&all, |c| {
        let g = Graph::new();
        let mut feeds = Vec::new();
        let outs = build_raw(&g, c, &mut feeds);
        check_result(name_of(c), c, run(&g, &outs, feeds));
    });
}

/// Builds one stateful call on `handle` (inputs fed as TensorFlow's script feeds them):
/// its output, or its op as a target when it has none.
fn stateful_call(
    g: &Graph,
    handle: &Output,
    call: &Value,
    feeds: &mut Vec<(Output, Tensor)>,
) -> Result<Output, weir_graph::Operation> {
    let op = call["op"].as_str().unwrap();
    let alg = call.get("alg").map_or(1, |a| a.as_i64().unwrap());
    if op == "RngReadAndSkip" {
        let a = fed(g, Tensor::scalar(alg as i32), feeds);
        let d = call["delta"].as_u64().unwrap();
        let d = fed(g, Tensor::scalar(d), feeds);
        return Ok(sraw::rng_read_and_skip(handle, &a, &d).unwrap());
    }
    let a = fed(g, Tensor::scalar(alg), feeds);
    if op == "StatefulRandomBinomial" {
        let dims: Vec<i32> = serde_json::from_value(call["shape"].clone()).unwrap();
        let shape = fed(g, Tensor::from(dims), feeds);
        let t = dtype_named(&call["T"]);
        assert!(matches!(t, DType::F32 | DType::F64), "T {t}");
        let param = |k: &str| {
            let v = &call[k];
            let (dims, vals): (Vec<usize>, Vec<f64>) = match v.as_array() {
                Some(a) => (
                    vec![a.len()],
                    a.iter().map(|x| x.as_f64().unwrap()).collect(),
                ),
                None => (vec![], vec![v.as_f64().unwrap()]),
            };
            match t {
                DType::F32 => Tensor::from_vec(&dims, vals.iter().map(|&x| x as f32).collect()),
                _ => Tensor::from_vec(&dims, vals),
            }
            .unwrap()
        };
        let n = fed(g, param("counts"), feeds);
        let p = fed(g, param("probs"), feeds);
        let dtype = dtype_named(&call["dtype"]);
        return Ok(sraw::stateful_random_binomial(g, handle, &a, &shape, &n, &p, dtype).unwrap());
    }
    if op == "RngSkip" {
        let d = fed(g, Tensor::scalar(call["delta"].as_i64().unwrap()), feeds);
        return Err(sraw::rng_skip(handle, &a, &d).unwrap());
    }
    let dims: Vec<i64> = serde_json::from_value(call["shape"].clone()).unwrap();
    let shape = fed(g, Tensor::from(dims), feeds);
    let dtype = dtype_named(&call["dtype"]);
    if op == "StatefulUniformInt" {
        let bound = |k: &str| match dtype {
            DType::I32 => Tensor::scalar(call[k].as_i64().unwrap() as i32),
            _ => Tensor::scalar(call[k].as_i64().unwrap()),
        };
        let lo = fed(g, bound("minval"), feeds);
        let hi = fed(g, bound("maxval"), feeds);
        return Ok(sraw::stateful_uniform_int(g, handle, &a, &shape, &lo, &hi).unwrap());
    }
    let f = match op {
        "StatefulUniform" => sraw::stateful_uniform,
        "StatefulStandardNormalV2" => sraw::stateful_standard_normal_v2,
        "StatefulTruncatedNormal" => sraw::stateful_truncated_normal,
        "StatefulUniformFullInt" => sraw::stateful_uniform_full_int,
        other => panic!("op {other}"),
    };
    Ok(f(g, handle, &a, &shape, dtype).unwrap())
}

#[test]
fn stateful_ops_advance_the_state_as_tensorflow_does() {
    let all = cases("stateful");
    check_each(&all, |c| {
        let name = name_of(c);
        let g = Graph::new();
        let var = Variable::builder(constant(&g, spec_tensor(&c["state"])).unwrap())
            .trainable(false)
            .validate_shape(false)
            .build()
            .unwrap();
        let calls = c["calls"].as_array().unwrap();
        let built: Vec<_> = calls
            .iter()
            .map(|call| {
                let mut feeds = Vec::new();
                let out = stateful_call(&g, var.handle(), call, &mut feeds);
                (out, feeds)
            })
            .collect();
        let s = Session::new(&g).unwrap();
        s.run(&RunArgs::new().target(&var.initializer())).unwrap();
        let results = c["results"].as_array().unwrap();
        for (k, ((out, feeds), want)) in built.into_iter().zip(results).enumerate() {
            let mut args = match &out {
                Ok(o) => RunArgs::new().fetch(o),
                Err(op) => RunArgs::new().target(op),
            };
            for (p, t) in feeds {
                args = args.feed(&p, t);
            }
            let call = format!("{name} call {k}");
            check_result(&call, want, s.run(&args));
            let state = s.run(&RunArgs::new().fetch(var.value())).unwrap();
            assert_spec(&format!("{call} state"), &state[0], &want["state"]);
        }
    });
}

fn scalar(v: &Value) -> Scalar {
    match v.as_i64() {
        Some(i) => i.into(),
        None => v.as_f64().unwrap().into(),
    }
}

fn seed_of(c: &Value) -> [i64; 2] {
    serde_json::from_value(c["seed"].clone()).unwrap()
}

fn shape_of(c: &Value) -> Vec<usize> {
    serde_json::from_value(c["shape"].clone()).unwrap()
}

/// The nodes of `g` from the `from`-th on, as TensorFlow's GraphDef lists them: name, op and
/// inputs (`node` for output 0, `node:i` otherwise).
fn nodes(g: &Graph, from: usize) -> Vec<(String, String, Vec<String>)> {
    g.operations()
        .iter()
        .skip(from)
        .map(|op| {
            let inputs = op
                .inputs()
                .iter()
                .map(|o| match o.index() {
                    0 => o.op().name(),
                    i => format!("{}:{i}", o.op().name()),
                })
                .collect();
            (op.name(), op.op_type(), inputs)
        })
        .collect()
}

fn tf_nodes(v: &Value) -> Vec<(String, String, Vec<String>)> {
    serde_json::from_value(v.clone()).unwrap()
}

type NodeList = [(String, String, Vec<String>)];

/// Asserts two node lists are equal, naming the first node that differs.
fn assert_nodes(name: &str, got: &NodeList, want: &NodeList) {
    if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
        panic!(
            "{name}: node {i} differs: weir {:?}, TensorFlow {:?}",
            got.get(i),
            want.get(i)
        );
    }
}

fn build_python(g: &Graph, c: &Value) -> weir_graph::Result<Output> {
    let dtype = c.get("dtype").map_or(DType::F32, dtype_named);
    let alg = c.get("alg").map_or(Ok(Algorithm::AutoSelect), |a| {
        Algorithm::from_name(a.as_str().unwrap())
    })?;
    match c["fn"].as_str().unwrap() {
        "uniform" => {
            let mut b = StatelessUniformV2::new(shape_of(c), seed_of(c))
                .dtype(dtype)
                .alg(alg);
            if c.get("full_range").is_some() {
                b = b.full_range();
            }
            if let Some(v) = c.get("minval") {
                b = b.minval(scalar(v));
            }
            if let Some(v) = c.get("maxval") {
                b = b.maxval(scalar(v));
            }
            b.build(g)
        }
        "normal" => {
            let mut b = StatelessNormalV2::new(shape_of(c), seed_of(c)).dtype(dtype);
            if let Some(m) = c.get("mean") {
                b = b.mean(scalar(m));
            }
            if let Some(s) = c.get("stddev") {
                b = b.stddev(scalar(s));
            }
            b.alg(alg).build(g)
        }
        "truncated_normal" => StatelessTruncatedNormalV2::new(shape_of(c), seed_of(c))
            .dtype(dtype)
            .alg(alg)
            .build(g),
        "shuffle" => {
            let value = constant(g, spec_tensor(&c["value"]))?;
            StatelessShuffle::new(seed_of(c)).alg(alg).build(&value)
        }
        other => panic!("fn {other}"),
    }
}

#[test]
fn stateless_builders_match_tensorflow() {
    let all = cases("python");
    check_each(&all, |c| {
        let name = name_of(c);
        let g = Graph::new();
        let built = if c["seed"].as_array().unwrap().len() == 2 {
            build_python(&g, c)
        } else {
            // A seed of three numbers: a constant the builder scrambles, refused by the
            // key/counter op's shape function as in TensorFlow.
            let seed = constant(&g, Tensor::from(vec![1i32, 2, 3])).unwrap();
            StatelessUniformV2::new(shape_of(c), seed).build(&g)
        };
        let out = match (built, c.get("build_error")) {
            (Ok(o), None) => o,
            (Err(e), Some(want)) => return check_error(name, &e, want),
            (Ok(o), Some(want)) => panic!("{name}: built {}, TensorFlow failed: {want}", o.name()),
            (Err(e), None) => panic!("{name}: {e}"),
        };
        if c.get("values_only").is_none() {
            assert_eq!(out.name(), c["result_name"].as_str().unwrap(), "{name}");
            assert_nodes(name, &nodes(&g, 0), &tf_nodes(&c["nodes"]));
        }
        check_result(name, c, run(&g, &[out], Vec::new()));
    });
}

#[test]
fn graph_construction_errors_match_tensorflow() {
    let all = cases("build");
    check_each(&all, |c| {
        let name = name_of(c);
        let g = Graph::new();
        let u = |v: Vec<u64>| constant(&g, Tensor::from(v)).unwrap();
        let (k1, c2) = (u(vec![1]), u(vec![1, 2]));
        let alg = constant(&g, 1i32).unwrap();
        let i32s = |v: Vec<i32>| constant(&g, Tensor::from(v)).unwrap();
        let built: weir_graph::Result<Vec<Output>> = match name {
            "key_counter_ok" | "key_counter_seed_3" | "key_counter_seed_matrix" => {
                let seed = match name {
                    "key_counter_ok" => i32s(vec![1, 2]),
                    "key_counter_seed_3" => i32s(vec![1, 2, 3]),
                    _ => constant(&g, Tensor::from_vec(&[1, 2], vec![1i32, 2]).unwrap()).unwrap(),
                };
                raw::stateless_random_get_key_counter(&seed).map(|(k, n)| vec![k, n])
            }
            "key_counter_alg_ok" => raw::stateless_random_get_key_counter_alg(&i32s(vec![1, 2]))
                .map(|(k, n, a)| vec![k, n, a]),
            "uniform_ok" => {
                raw::stateless_random_uniform_v2(&g, [2, 3], &k1, &c2, &alg, DType::F32)
                    .map(|o| vec![o])
            }
            "uniform_key_2" => {
                raw::stateless_random_uniform_v2(&g, [2, 3], &c2, &c2, &alg, DType::F32)
                    .map(|o| vec![o])
            }
            "uniform_alg_vector" => {
                let a = i32s(vec![1]);
                raw::stateless_random_uniform_v2(&g, [2, 3], &k1, &c2, &a, DType::F32)
                    .map(|o| vec![o])
            }
            "uniform_counter_scalar" => {
                let c0 = constant(&g, 1u64).unwrap();
                raw::stateless_random_uniform_v2(&g, [2, 3], &k1, &c0, &alg, DType::F32)
                    .map(|o| vec![o])
            }
            "uniform_int_minval_vector" => {
                let lo = i32s(vec![1]);
                let hi = constant(&g, 2i32).unwrap();
                raw::stateless_random_uniform_int_v2(&g, [2], &k1, &c2, &alg, &lo, &hi)
                    .map(|o| vec![o])
            }
            "shuffle_shape" => {
                let v = constant(&g, Tensor::from_vec(&[1, 2], vec![1i32, 2]).unwrap()).unwrap();
                raw::stateless_shuffle(&v, &k1, &c2, &alg).map(|o| vec![o])
            }
            other => panic!("case {other}"),
        };
        match (built, c.get("build_error")) {
            (Ok(outs), None) => {
                let want: Vec<Vec<usize>> = serde_json::from_value(c["shapes"].clone()).unwrap();
                let got: Vec<Shape> = outs.iter().map(Output::shape).collect();
                let want: Vec<Shape> = want.iter().map(|d| Shape::known(d)).collect();
                assert_eq!(got, want, "{name}");
            }
            (Err(e), Some(want)) => check_error(name, &e, want),
            (Ok(_), Some(want)) => panic!("{name}: built, TensorFlow failed: {want}"),
            (Err(e), None) => panic!("{name}: {e}"),
        }
    });
}

fn algorithm_named(c: &Value) -> Algorithm {
    Algorithm::from_name(c["alg"].as_str().unwrap()).unwrap()
}

/// Adds one `Generator` method call of a case.
fn generator_call(gen: &Generator, call: &Value) -> weir_graph::Result<Output> {
    let dtype = call.get("dtype").map(dtype_named);
    let shape = || -> Vec<usize> { serde_json::from_value(call["shape"].clone()).unwrap() };
    match call["method"].as_str().unwrap() {
        "uniform" => {
            let mut b = gen.uniform(shape());
            if let Some(d) = dtype {
                b = b.dtype(d);
            }
            if let Some(v) = call.get("minval") {
                b = b.minval(scalar(v));
            }
            if let Some(v) = call.get("maxval") {
                b = b.maxval(scalar(v));
            }
            b.build()
        }
        m @ ("normal" | "truncated_normal") => {
            let mut b = if m == "normal" {
                gen.normal(shape())
            } else {
                gen.truncated_normal(shape())
            };
            if let Some(d) = dtype {
                b = b.dtype(d);
            }
            if let Some(v) = call.get("mean") {
                b = b.mean(scalar(v));
            }
            if let Some(v) = call.get("stddev") {
                b = b.stddev(scalar(v));
            }
            b.build()
        }
        "uniform_full_int" => {
            let mut b = gen.uniform_full_int(shape());
            if let Some(d) = dtype {
                b = b.dtype(d);
            }
            b.build()
        }
        "skip" => gen.skip(call["delta"].as_i64().unwrap()),
        "binomial" => {
            // Python converts the lists to float32 constants.
            let param = |v: &Value| match v.as_array() {
                Some(a) => Tensor::from(
                    a.iter()
                        .map(|x| x.as_f64().unwrap() as f32)
                        .collect::<Vec<_>>(),
                ),
                None => Tensor::scalar(v.as_f64().unwrap() as f32),
            };
            let mut b = gen.binomial(shape(), param(&call["counts"]), param(&call["probs"]));
            if let Some(d) = dtype {
                b = b.dtype(d);
            }
            b.build()
        }
        "make_seeds" => gen.make_seeds(call["count"].as_u64().unwrap() as usize),
        other => panic!("method {other}"),
    }
}

#[test]
fn generator_methods_match_tensorflow() {
    let all = cases("generator");
    check_each(&all, |c| {
        let name = name_of(c);
        let g = Graph::new();
        let seed: i128 = c["seed"].as_str().unwrap().parse().unwrap();
        let gen = Generator::from_seed(&g, seed, algorithm_named(c)).unwrap();
        let first = g.operations().len();
        let outs: Vec<Output> = c["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| generator_call(&gen, call).unwrap())
            .collect();
        let names: Vec<String> = outs.iter().map(Output::name).collect();
        let want: Vec<String> = serde_json::from_value(c["result_names"].clone()).unwrap();
        assert_eq!(names, want, "{name}: result names");
        assert_nodes(name, &nodes(&g, first), &tf_nodes(&c["nodes"]));
        let s = Session::new(&g).unwrap();
        s.run(&RunArgs::new().target(&gen.state().initializer()))
            .unwrap();
        for (k, (o, want)) in outs
            .iter()
            .zip(c["results"].as_array().unwrap())
            .enumerate()
        {
            let call = format!("{name} call {k}");
            check_result(&call, want, s.run(&RunArgs::new().fetch(o)));
            let state = s.run(&RunArgs::new().fetch(gen.state().value())).unwrap();
            assert_spec(&format!("{call} state"), &state[0], &want["state"]);
        }
    });
}

#[test]
fn split_generators_match_tensorflow() {
    for c in cases("split") {
        let g = Graph::new();
        let seed = c["seed"].as_u64().unwrap();
        let gen = Generator::from_seed(&g, seed, Algorithm::Philox).unwrap();
        let kids = gen.split(c["count"].as_u64().unwrap() as usize).unwrap();
        let normals: Vec<Output> = kids
            .iter()
            .map(|k| k.normal([3]).build().unwrap())
            .collect();
        let s = Session::new(&g).unwrap();
        s.run(&RunArgs::new().target(&gen.state().initializer()))
            .unwrap();
        // One run initializes every child, as TensorFlow computes their keys once.
        let mut init = RunArgs::new();
        for k in &kids {
            init = init.target(&k.state().initializer());
        }
        s.run(&init).unwrap();
        let parent = s.run(&RunArgs::new().fetch(gen.state().value())).unwrap();
        assert_spec("split parent", &parent[0], &c["parent_state"]);
        for (i, k) in kids.iter().enumerate() {
            let st = s.run(&RunArgs::new().fetch(k.state().value())).unwrap();
            assert_spec(&format!("split child {i}"), &st[0], &c["child_states"][i]);
            let n = s.run(&RunArgs::new().fetch(&normals[i])).unwrap();
            assert_spec(&format!("split normal {i}"), &n[0], &c["child_normals"][i]);
        }
    }
}

#[test]
fn concurrent_stateful_runs_draw_disjoint_counters() {
    // Every run reserves its counters under the variable's lock, so eight threads drawing
    // from one generator advance it by exactly their total, and no two draws repeat.
    let g = Graph::new();
    let gen = Generator::from_seed(&g, 5u64, Algorithm::Philox).unwrap();
    let u = gen.uniform_full_int([4]).dtype(DType::U64).build().unwrap();
    let s = Session::new(&g).unwrap();
    s.run(&RunArgs::new().target(&gen.state().initializer()))
        .unwrap();
    let draws: Vec<Vec<u64>> = std::thread::scope(|scope| {
        let hs: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    (0..10)
                        .flat_map(|_| {
                            s.run(&RunArgs::new().fetch(&u)).unwrap()[0]
                                .to_vec::<u64>()
                                .unwrap()
                        })
                        .collect::<Vec<u64>>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all: Vec<u64> = draws.into_iter().flatten().collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n);
    let state = s.run(&RunArgs::new().fetch(gen.state().value())).unwrap();
    assert_eq!(state[0].to_vec::<i64>().unwrap(), [5 + 80 * 4 * 256, 0, 0]);
}
