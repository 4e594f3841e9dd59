//! Session handles against TensorFlow 2.21 (tf.compat.v1 graph mode), as
//! `data/session_handles/make_session_handles.py` records them in `expected.json`: each scenario
//! replays the script's sequence of runs on one graph and session (`get_session_handle`,
//! `GetSessionHandleV2`, `get_session_tensor`, `delete_session_tensor`, `TensorHandle`'s eval,
//! delete and raw handle), and every step gives TensorFlow's value (handle strings, tensors bit
//! for bit) or its error kind and message; node names and static shapes are TensorFlow's.
//! A Python TypeError or ValueError is InvalidArgument here.

use serde_json::Value;
use weir_graph::{Bytes, Code, DType, Error, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, identity, Placeholder};
use weir_ops::math::mul;
use weir_ops::session_ops::{
    delete_session_tensor, get_session_handle, get_session_handle_v2, get_session_tensor,
    handle_string, TENSOR_HANDLE_KEY,
};
use weir_session::{RunArgs, Session, TensorHandle};

const DEV: &str = ";/job:localhost/replica:0/task:0/device:CPU:0";

fn expected() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/session_handles/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What one step gave.
enum Got {
    Nothing,
    Str(String),
    Strs(Vec<String>),
    Tensor(Tensor),
}

fn code_of(class: &str) -> Code {
    match class {
        "InvalidArgumentError" | "TypeError" | "ValueError" => Code::InvalidArgument,
        "InternalError" => Code::Internal,
        "NotFoundError" => Code::NotFound,
        other => panic!("unexpected recorded error {other}"),
    }
}

/// A recorded `tensor_json.encode` tensor (floats as bit patterns).
fn tensor_of(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    match DType::from_name(v["dtype"].as_str().unwrap()).unwrap() {
        DType::F32 => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f32::from_bits(x.as_u64().unwrap() as u32))
                .collect(),
        ),
        DType::I32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(|x| x.as_i64().unwrap()).collect()),
        DType::Bool => {
            Tensor::from_vec(&shape, vals.iter().map(|x| x.as_bool().unwrap()).collect())
        }
        other => panic!("no {other} values recorded"),
    }
    .unwrap()
}

/// Checks step `i` of `scenario` against what weir gave.
fn check(scenario: &str, i: usize, want: &Value, got: Result<Got>) {
    let at = format!("{scenario} step {i}");
    if let Some(class) = want.get("error") {
        let e = match got {
            Err(e) => e,
            Ok(_) => panic!("{at}: expected {class}, got a value"),
        };
        assert_eq!(e.code(), code_of(class.as_str().unwrap()), "{at}: {e}");
        assert_eq!(e.message(), want["message"].as_str().unwrap(), "{at}");
        return;
    }
    let got = got.unwrap_or_else(|e| panic!("{at}: {e}"));
    let value = &want["value"];
    match (value, got) {
        (Value::Null, Got::Nothing) => {}
        (Value::String(s), Got::Str(g)) => assert_eq!(&g, s, "{at}"),
        (Value::Array(a), Got::Strs(g)) => {
            let want: Vec<&str> = a.iter().map(|x| x.as_str().unwrap()).collect();
            assert_eq!(g, want, "{at}");
        }
        (Value::Object(_), Got::Tensor(t)) => {
            let w = tensor_of(value);
            assert_eq!((t.dtype(), t.shape()), (w.dtype(), w.shape()), "{at}");
            match w.dtype() {
                // Bit for bit, so a NaN or -0.0 would count.
                DType::F32 => {
                    let bits = |t: &Tensor| -> Vec<u32> {
                        t.to_vec::<f32>()
                            .unwrap()
                            .iter()
                            .map(|x| x.to_bits())
                            .collect()
                    };
                    assert_eq!(bits(&t), bits(&w), "{at}");
                }
                DType::I32 => assert_eq!(t.to_vec::<i32>().unwrap(), w.to_vec::<i32>().unwrap()),
                DType::I64 => assert_eq!(t.to_vec::<i64>().unwrap(), w.to_vec::<i64>().unwrap()),
                DType::Bool => {
                    assert_eq!(t.to_vec::<bool>().unwrap(), w.to_vec::<bool>().unwrap())
                }
                other => panic!("{at}: no {other} comparison"),
            }
        }
        (want, _) => panic!("{at}: expected {want}, got another kind of value"),
    }
}

fn steps<'a>(exp: &'a Value, scenario: &str) -> &'a [Value] {
    exp[scenario]["steps"].as_array().unwrap()
}

fn names(exp: &Value, scenario: &str) -> Vec<String> {
    exp[scenario]["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// Runs `fetch` with `placeholder` fed `handle`.
fn read(sess: &Session, placeholder: &Output, handle: &str, fetch: &Output) -> Result<Got> {
    let args = RunArgs::new().feed(placeholder, handle).fetch(fetch);
    Ok(Got::Tensor(sess.run(&args)?.remove(0)))
}

/// `tf.raw_ops.GetSessionTensor(handle, dtype)`.
fn raw_get_session_tensor(handle: &Output, dtype: DType) -> Result<Output> {
    handle
        .graph()
        .new_operation("GetSessionTensor")
        .input(handle)
        .attr("dtype", dtype)
        .build()?
        .output(0)
}

#[test]
fn fetch_feed_eval_delete_and_use_after_delete() -> Result<()> {
    let exp = expected();
    let want = steps(&exp, "basic");
    let g = Graph::new();
    let c = mul(constant(&g, 10.0f32)?, constant(&g, 5.0f32)?)?;
    let h = get_session_handle(&c, None)?;
    let sess = Session::new(&g)?;
    let th = TensorHandle::fetch(&sess, &h)?;
    check("basic", 0, &want[0], Ok(Got::Str(th.to_string())));
    let (p, a) = get_session_tensor(&g, th.handle(), DType::F32, None)?;
    let b = mul(&a, constant(&g, 10.0f32)?)?;
    let run_b = |th: &TensorHandle| -> Result<Got> {
        let args = RunArgs::new().feed(&p, th).fetch(&b);
        Ok(Got::Tensor(sess.run(&args)?.remove(0)))
    };
    check("basic", 1, &want[1], run_b(&th));
    check("basic", 2, &want[2], run_b(&th));
    check("basic", 3, &want[3], th.eval().map(Got::Tensor));
    check("basic", 4, &want[4], th.delete().map(|_| Got::Nothing));
    check("basic", 5, &want[5], run_b(&th));
    check("basic", 6, &want[6], th.eval().map(Got::Tensor));
    check("basic", 7, &want[7], th.delete().map(|_| Got::Nothing));
    let (dp, d) = delete_session_tensor(&g, th.handle(), None)?;
    let args = RunArgs::new().feed(&dp, th.handle()).target(&d);
    check("basic", 8, &want[8], sess.run(&args).map(|_| Got::Nothing));
    assert_eq!(want.len(), 9);
    let got = [
        h.name(),
        p.name(),
        a.name(),
        dp.name(),
        d.name(),
        a.shape().python_str(),
        h.shape().python_str(),
    ];
    assert_eq!(got.to_vec(), names(&exp, "basic"));
    Ok(())
}

#[test]
fn handle_ids_count_up_per_session() -> Result<()> {
    let exp = expected();
    let want = steps(&exp, "ids");
    let g = Graph::new();
    let x = constant(&g, [1i32, 2, 3])?;
    let h = get_session_handle(&x, None)?;
    let h1 = get_session_handle(&mul(&x, constant(&g, 2i32)?)?, Some("doubled"))?;
    let raw = |sess: &Session, op: &Output| -> Result<Got> {
        Ok(Got::Str(TensorHandle::fetch(sess, op)?.get_raw_handle()))
    };
    let sess = Session::new(&g)?;
    check("ids", 0, &want[0], raw(&sess, &h));
    check("ids", 1, &want[1], raw(&sess, &h));
    check("ids", 2, &want[2], raw(&sess, &h1));
    let (p, t) = get_session_tensor(&g, "doubled;2;", DType::I32, None)?;
    check(
        "ids",
        3,
        &want[3],
        read(&sess, &p, &format!("doubled;2{DEV}"), &t),
    );
    let first = format!("GetSessionHandle;0{DEV}");
    check("ids", 4, &want[4], read(&sess, &p, &first, &t));
    let sess2 = Session::new(&g)?;
    check("ids", 5, &want[5], raw(&sess2, &h1));
    check("ids", 6, &want[6], read(&sess2, &p, &first, &t));
    assert_eq!(want.len(), 7);
    assert_eq!(vec![h1.name(), t.name()], names(&exp, "ids"));
    Ok(())
}

#[test]
fn a_failed_run_or_an_unfetched_handle_keeps_nothing() -> Result<()> {
    let exp = expected();
    let want = steps(&exp, "not_kept");
    let g = Graph::new();
    let x = constant(&g, Tensor::from_vec(&[1, 2], vec![1.5f32, -2.0])?)?;
    let h = get_session_handle(&x, None)?;
    let (p, t) = get_session_tensor(&g, "GetSessionHandle;0;", DType::F32, None)?;
    let fails = {
        let _deps = g.control_dependencies(&[h.op()])?;
        raw_get_session_tensor(&constant(&g, "nope")?, DType::F32)?
    };
    let z = identity(&h)?;
    let sess = Session::new(&g)?;
    let both = RunArgs::new().fetch(&h).fetch(&fails);
    check(
        "not_kept",
        0,
        &want[0],
        sess.run(&both).map(|_| Got::Nothing),
    );
    let handle = |i: i64| format!("GetSessionHandle;{i}{DEV}");
    check("not_kept", 1, &want[1], read(&sess, &p, &handle(0), &t));
    let via_identity = sess.eval(&z).and_then(|v| handle_string(&v)).map(Got::Str);
    check("not_kept", 2, &want[2], via_identity);
    check("not_kept", 3, &want[3], read(&sess, &p, &handle(1), &t));
    let kept = TensorHandle::fetch(&sess, &h).map(|th| Got::Str(th.get_raw_handle()));
    check("not_kept", 4, &want[4], kept);
    check("not_kept", 5, &want[5], read(&sess, &p, &handle(2), &t));
    assert_eq!(want.len(), 6);
    assert_eq!(sess.session_state().len(), 1);
    Ok(())
}

#[test]
fn wrong_dtype_missing_handles_and_bad_device_specs() -> Result<()> {
    let exp = expected();
    let want = steps(&exp, "wrong_dtype_and_missing");
    let s = "wrong_dtype_and_missing";
    let g = Graph::new();
    let f = get_session_handle(&constant(&g, [1.0f32, 2.0])?, Some("f"))?;
    let st = get_session_handle(&constant(&g, Tensor::from(vec!["a", "bc"]))?, Some("s"))?;
    let bools = Tensor::from_vec(&[2, 1], vec![true, false])?;
    let bo = get_session_handle(&constant(&g, bools)?, Some("b"))?;
    let raw = Placeholder::new(DType::String).name("raw").build(&g)?;
    let read_raw = raw_get_session_tensor(&raw, DType::F32)?;
    let sess = Session::new(&g)?;
    for (i, op) in [&f, &st, &bo].into_iter().enumerate() {
        let got = TensorHandle::fetch(&sess, op).map(|th| Got::Str(th.get_raw_handle()));
        check(s, i, &want[i], got);
    }
    let (fh, sh, bh) = (
        format!("f;0{DEV}"),
        format!("s;1{DEV}"),
        format!("b;2{DEV}"),
    );
    let (pi, ti) = get_session_tensor(&g, &fh, DType::I32, Some("as_int"))?;
    check(s, 3, &want[3], read(&sess, &pi, &fh, &ti));
    let (ps, ts) = get_session_tensor(&g, &sh, DType::String, None)?;
    let strings = |sess: &Session| -> Result<Got> {
        let t = sess.run(&RunArgs::new().feed(&ps, sh.as_str()).fetch(&ts))?;
        let v = t[0].as_slice::<Bytes>()?;
        Ok(Got::Strs(
            v.iter()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .collect(),
        ))
    };
    check(s, 4, &want[4], strings(&sess));
    let (pb, tb) = get_session_tensor(&g, &bh, DType::Bool, None)?;
    check(s, 5, &want[5], read(&sess, &pb, &bh, &tb));
    check(s, 6, &want[6], read(&sess, &raw, "garbage", &read_raw));
    check(s, 7, &want[7], read(&sess, &raw, &fh, &read_raw));
    let bad = delete_session_tensor(&g, "s;1;x", Some("free")).map(|_| Got::Nothing);
    check(s, 8, &want[8], bad);
    let bad = get_session_tensor(&g, "s;1;/job:a/cpu:0/zz:1", DType::String, None);
    check(s, 9, &want[9], bad.map(|_| Got::Nothing));
    let (dp, d) = delete_session_tensor(&g, &sh, Some("free"))?;
    let delete = RunArgs::new().feed(&dp, sh.as_str()).target(&d);
    check(s, 10, &want[10], sess.run(&delete).map(|_| Got::Nothing));
    check(s, 11, &want[11], strings(&sess));
    check(s, 12, &want[12], sess.run(&delete).map(|_| Got::Nothing));
    assert_eq!(want.len(), 13);
    assert_eq!(
        vec![ti.name(), ts.name(), d.name(), dp.name()],
        names(&exp, s)
    );
    Ok(())
}

#[test]
fn get_session_handle_v2_gives_a_resource_handle_to_the_kept_tensor() -> Result<()> {
    let exp = expected();
    let want = steps(&exp, "v2");
    let g = Graph::new();
    let c = constant(&g, 7i64)?;
    let hv = get_session_handle_v2(&c, None)?;
    let h = get_session_handle(&c, None)?;
    let key = format!("GetSessionHandleV2;0{DEV}");
    let (p, t) = get_session_tensor(&g, &key, DType::I64, None)?;
    let sess = Session::new(&g)?;
    let fetched = sess.eval(&hv)?;
    assert_eq!(
        (fetched.dtype(), fetched.shape()),
        (DType::Resource, &[][..])
    );
    let r = fetched.to_scalar::<weir_graph::ResourceHandle>()?;
    assert_eq!((r.container(), r.name()), (TENSOR_HANDLE_KEY, key.as_str()));
    let th = TensorHandle::from_fetched(&sess, &hv, &fetched)?;
    assert_eq!((th.handle(), th.dtype()), (key.as_str(), DType::I64));
    check("v2", 0, &want[0], read(&sess, &p, &key, &t));
    let next = TensorHandle::fetch(&sess, &h).map(|th| Got::Str(th.get_raw_handle()));
    check("v2", 1, &want[1], next);
    let info = &exp["v2"]["info"];
    assert_eq!(hv.dtype().python_name(), info["dtype"].as_str().unwrap());
    assert_eq!(hv.shape().python_str(), info["shape"].as_str().unwrap());
    assert_eq!(hv.name(), info["name"].as_str().unwrap());
    // Dropping the handle frees the tensor, as Python's collection of a dead handle does.
    drop(th);
    let e: Error = read(&sess, &p, &key, &t).err().unwrap();
    assert!(e.message().contains("is not in the session store"), "{e}");
    Ok(())
}

/// Not recorded from TensorFlow (its executor is always parallel): weir's parallel executor,
/// used when independent expensive steps are ready together, keeps fetched handles too, and
/// only those.
#[test]
fn a_parallel_run_keeps_its_fetched_handles() -> Result<()> {
    use weir_session::SessionOptions;
    let g = Graph::new();
    let ones = weir_ops::array::ones(&g, DType::F32, &[256, 256])?;
    let a = weir_ops::math::matmul(&ones, &ones)?;
    let b = weir_ops::math::matmul(&ones, &ones)?;
    let ha = get_session_handle(&a, Some("ha"))?;
    let hb = get_session_handle(&b, Some("hb"))?;
    let sess = Session::with_options(&g, SessionOptions::default().inter_op_threads(2))?;
    let out = sess.run(&RunArgs::new().fetch(&ha).fetch(&b).target(&hb.op()))?;
    let kept = handle_string(&out[0])?;
    assert!(kept.starts_with("ha;") && kept.ends_with(DEV), "{kept}");
    assert_eq!(
        sess.session_state().len(),
        1,
        "only the fetched handle is kept"
    );
    let (p, t) = get_session_tensor(&g, &kept, DType::F32, None)?;
    let Got::Tensor(v) = read(&sess, &p, &kept, &t)? else {
        unreachable!()
    };
    assert_eq!(v.shape(), [256, 256]);
    assert!(v.to_vec::<f32>()?.iter().all(|&x| x == 256.0));
    Ok(())
}
