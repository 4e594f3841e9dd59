//! String ops in a session, against outputs and messages printed by TensorFlow 2.21.

// Expected values are TensorFlow's printed outputs, digit for digit.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use weir_graph::{DType, Graph, Output, Shape, SparseTensor, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::sparse::SparseOutput;
use weir_ops::string::{
    as_string, decode_base64, encode_base64, regex_full_match, regex_full_match_tensor,
    string_join, string_length, string_split, string_to_hash_bucket_fast, string_to_number,
    strings_split, substr, AsString, StringSplit, Substr, Unit,
};
use weir_session::{RunArgs, Session};

fn strs(g: &Graph, v: &[&str]) -> Output {
    constant(g, Tensor::from_strings(v)).unwrap()
}

fn eval(g: &Graph, o: &Output) -> Tensor {
    Session::new(g).unwrap().eval(o).unwrap()
}

fn eval_err(g: &Graph, o: &Output) -> weir_graph::Error {
    Session::new(g).unwrap().eval(o).unwrap_err()
}

fn fetch_sparse(g: &Graph, sp: &SparseOutput) -> SparseTensor {
    let out = Session::new(g)
        .unwrap()
        .run(
            &RunArgs::new()
                .fetch(&sp.indices)
                .fetch(&sp.values)
                .fetch(&sp.dense_shape),
        )
        .unwrap();
    SparseTensor::new(out[0].clone(), out[1].clone(), out[2].clone()).unwrap()
}

#[test]
fn join_broadcasts_scalars() {
    let g = Graph::new();
    let a = strs(&g, &["a", "b"]);
    let x = constant(&g, "x").unwrap();
    let n = strs(&g, &["1", "2"]);
    let j = string_join(&[a.clone(), x.clone(), n], "-").unwrap();
    assert_eq!(j.shape(), Shape::known(&[2]));
    assert_eq!(eval(&g, &j).to_strings().unwrap(), ["a-x-1", "b-x-2"]);
    let scalars = string_join(&[x.clone(), x.clone()], ",").unwrap();
    assert_eq!(scalars.shape(), Shape::scalar());
    assert_eq!(eval(&g, &scalars).to_strings().unwrap(), ["x,x"]);
    let empty = string_join(
        &[
            constant(&g, Tensor::from(Vec::<&str>::new())).unwrap(),
            x.clone(),
        ],
        "",
    )
    .unwrap();
    assert_eq!(eval(&g, &empty).shape(), &[0]);
    let three = strs(&g, &["1", "2", "3"]);
    let e = string_join(&[a.clone(), three], "").unwrap_err();
    assert!(e.message().contains("Input shapes do not match"), "{e}");
    let p = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let j = string_join(&[a, p.clone()], "").unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec!["1", "2", "3"]))
                .fetch(&j),
        )
        .unwrap_err();
    assert_eq!(e.message(), "Input shapes do not match: [2] vs. [3]");
    let ints = constant(&g, 1i32).unwrap();
    assert!(string_join(&[x, ints], "").is_err());
}

#[test]
fn string_split_matches_tensorflow() {
    let g = Graph::new();
    let src = strs(&g, &["a b  c", "", "d,e"]);
    let sp = string_split(&src, " ,").unwrap();
    assert_eq!(sp.indices.shape(), Shape::new(vec![None, Some(2)]));
    assert_eq!(sp.dense_shape.shape(), Shape::known(&[2]));
    let v = fetch_sparse(&g, &sp);
    assert_eq!(
        v.indices.to_vec::<i64>().unwrap(),
        [0, 0, 0, 1, 0, 2, 2, 0, 2, 1]
    );
    assert_eq!(v.values.to_strings().unwrap(), ["a", "b", "c", "d", "e"]);
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [3, 3]);

    let keep = StringSplit::new(" ,")
        .skip_empty(false)
        .build(&src)
        .unwrap();
    let v = fetch_sparse(&g, &keep);
    assert_eq!(
        v.indices.to_vec::<i64>().unwrap(),
        [0, 0, 0, 1, 0, 2, 0, 3, 2, 0, 2, 1]
    );
    assert_eq!(
        v.values.to_strings().unwrap(),
        ["a", "b", "", "c", "d", "e"]
    );
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [3, 4]);

    let chars = string_split(strs(&g, &["abc", "de"]), "").unwrap();
    let v = fetch_sparse(&g, &chars);
    assert_eq!(v.values.to_strings().unwrap(), ["a", "b", "c", "d", "e"]);
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [2, 3]);

    let none = string_split(constant(&g, Tensor::from(Vec::<&str>::new())).unwrap(), " ").unwrap();
    let v = fetch_sparse(&g, &none);
    assert_eq!(v.indices.shape(), &[0, 2]);
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [0, 0]);

    let two_d = constant(&g, Tensor::from(vec!["a"]).reshape(&[1, 1]).unwrap()).unwrap();
    assert!(string_split(&two_d, " ")
        .unwrap_err()
        .message()
        .contains("rank 1"));
    let p = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let sp = string_split(&p, " ").unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from("a b"))
                .fetch(&sp.values),
        )
        .unwrap_err();
    assert_eq!(e.message(), "input must be a vector, got shape: []");
}

#[test]
fn strings_split_is_python_split() {
    let g = Graph::new();
    let ws = strings_split(strs(&g, &["a  b c ", " x", ""]), None, -1).unwrap();
    let v = fetch_sparse(&g, &ws);
    assert_eq!(v.indices.to_vec::<i64>().unwrap(), [0, 0, 0, 1, 0, 2, 1, 0]);
    assert_eq!(v.values.to_strings().unwrap(), ["a", "b", "c", "x"]);
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [3, 3]);
    let sep = strings_split(strs(&g, &["a<>b<><>c", ""]), Some("<>"), -1).unwrap();
    let v = fetch_sparse(&g, &sep);
    assert_eq!(v.values.to_strings().unwrap(), ["a", "b", "", "c", ""]);
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [2, 4]);
    let max = strings_split(strs(&g, &["a,b,c,d"]), Some(","), 2).unwrap();
    assert_eq!(
        fetch_sparse(&g, &max).values.to_strings().unwrap(),
        ["a", "b", "c,d"]
    );
}

#[test]
fn substr_matches_tensorflow() {
    let g = Graph::new();
    let hw = strs(&g, &["hello", "world"]);
    assert_eq!(
        eval(&g, &substr(&hw, 1, 3).unwrap()).to_strings().unwrap(),
        ["ell", "orl"]
    );
    assert_eq!(
        eval(&g, &substr(&hw, -3, 2).unwrap()).to_strings().unwrap(),
        ["ll", "rl"]
    );
    let pos = constant(&g, vec![0i64, 2]).unwrap();
    let len = constant(&g, vec![1i64, 2]).unwrap();
    let v = substr(&hw, &pos, &len).unwrap();
    assert_eq!(eval(&g, &v).to_strings().unwrap(), ["h", "rl"]);
    let grid = constant(
        &g,
        Tensor::from(vec!["hello", "world", "abcde", "fghij"])
            .reshape(&[2, 2])
            .unwrap(),
    )
    .unwrap();
    let b = substr(
        &grid,
        constant(&g, vec![1i32, 2]).unwrap(),
        constant(&g, vec![2i32, 3]).unwrap(),
    )
    .unwrap();
    assert_eq!(b.shape(), Shape::known(&[2, 2]));
    assert_eq!(
        eval(&g, &b).to_strings().unwrap(),
        ["el", "rld", "bc", "hij"]
    );
    let oob = substr(&hw, 6, 1).unwrap();
    assert_eq!(
        eval_err(&g, &oob).message(),
        "pos 6 out of range for string b'hello' at index 0"
    );
    let bad = substr(
        &hw,
        constant(&g, vec![1i32, 2, 3]).unwrap(),
        constant(&g, vec![2i32, 3, 1]).unwrap(),
    )
    .unwrap_err();
    assert!(bad.is_invalid_argument());
    let mixed = substr(&hw, constant(&g, vec![1i32, 2]).unwrap(), 1).unwrap_err();
    assert!(
        mixed
            .message()
            .contains("pos and len should have the same shape"),
        "{mixed}"
    );
    let utf = strs(&g, &["h\u{e9}llo"]);
    let u = Substr::new()
        .unit(Unit::Utf8Char)
        .build(&utf, 1, 2)
        .unwrap();
    assert_eq!(eval(&g, &u).to_strings().unwrap(), ["\u{e9}l"]);
    let ub = substr(&utf, 1, 2).unwrap();
    assert_eq!(
        eval(&g, &ub).as_slice::<weir_graph::Bytes>().unwrap()[0].as_ref(),
        b"\xc3\xa9"
    );
}

#[test]
fn length_counts_bytes_or_chars() {
    let g = Graph::new();
    let s = strs(&g, &["", "abc", "h\u{e9}"]);
    let b = string_length(&s, Unit::Byte).unwrap();
    let c = string_length(&s, Unit::Utf8Char).unwrap();
    assert_eq!(b.dtype(), DType::I32);
    assert_eq!(eval(&g, &b).to_vec::<i32>().unwrap(), [0, 3, 3]);
    assert_eq!(eval(&g, &c).to_vec::<i32>().unwrap(), [0, 3, 2]);
}

#[test]
fn to_number_matches_tensorflow() {
    let g = Graph::new();
    let f = string_to_number(
        strs(
            &g,
            &["1.5", " 1.5 ", "1e3", "-inf", "0x10", "+2", ".5", "1e400"],
        ),
        DType::F32,
    )
    .unwrap();
    assert_eq!(f.dtype(), DType::F32);
    assert_eq!(
        eval(&g, &f).to_vec::<f32>().unwrap(),
        [
            1.5,
            1.5,
            1000.0,
            f32::NEG_INFINITY,
            16.0,
            2.0,
            0.5,
            f32::INFINITY
        ]
    );
    let d = string_to_number(strs(&g, &["0.1", "1e-310"]), DType::F64).unwrap();
    assert_eq!(eval(&g, &d).to_vec::<f64>().unwrap(), [0.1, 1e-310]);
    let i = string_to_number(
        strs(&g, &["12", " 12 ", "+3", "-7", "007", "-2147483648"]),
        DType::I32,
    )
    .unwrap();
    assert_eq!(
        eval(&g, &i).to_vec::<i32>().unwrap(),
        [12, 12, 3, -7, 7, i32::MIN]
    );
    let l = string_to_number(strs(&g, &["9223372036854775807"]), DType::I64).unwrap();
    assert_eq!(eval(&g, &l).to_vec::<i64>().unwrap(), [i64::MAX]);
    for (s, dt) in [
        ("1.5f", DType::F32),
        ("", DType::F32),
        ("12.0", DType::I32),
        ("2147483648", DType::I32),
        ("abc", DType::F64),
    ] {
        let o = string_to_number(strs(&g, &["1", s]), dt).unwrap();
        let e = eval_err(&g, &o);
        assert!(e.is_invalid_argument());
        assert_eq!(
            e.message(),
            format!("StringToNumberOp could not correctly convert string: {s}")
        );
        assert_eq!(e.node().unwrap().op_type, "StringToNumber");
    }
    assert!(string_to_number(strs(&g, &["1"]), DType::U8).is_err());
    assert!(string_to_number(constant(&g, 1.0f32).unwrap(), DType::F32).is_err());
}

#[test]
fn as_string_matches_tensorflow() {
    let g = Graph::new();
    let x = constant(
        &g,
        vec![
            3.14159f32,
            -2.5,
            1e10,
            0.0,
            1e-5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            100.0,
        ],
    )
    .unwrap();
    let cases: Vec<(AsString, Vec<&str>)> = vec![
        (
            AsString::new(),
            vec![
                "3.141590",
                "-2.500000",
                "10000000000.000000",
                "0.000000",
                "0.000010",
                "nan",
                "inf",
                "-inf",
                "100.000000",
            ],
        ),
        (
            AsString::new().precision(2),
            vec![
                "3.14",
                "-2.50",
                "10000000000.00",
                "0.00",
                "0.00",
                "nan",
                "inf",
                "-inf",
                "100.00",
            ],
        ),
        (
            AsString::new().scientific(true),
            vec![
                "3.141590e+00",
                "-2.500000e+00",
                "1.000000e+10",
                "0.000000e+00",
                "1.000000e-05",
                "nan",
                "inf",
                "-inf",
                "1.000000e+02",
            ],
        ),
        (
            AsString::new().scientific(true).precision(3),
            vec![
                "3.142e+00",
                "-2.500e+00",
                "1.000e+10",
                "0.000e+00",
                "1.000e-05",
                "nan",
                "inf",
                "-inf",
                "1.000e+02",
            ],
        ),
        (
            AsString::new().shortest(true),
            vec![
                "3.14159", "-2.5", "1e+10", "0", "1e-05", "nan", "inf", "-inf", "100",
            ],
        ),
        (
            AsString::new().shortest(true).precision(3),
            vec![
                "3.14", "-2.5", "1e+10", "0", "1e-05", "nan", "inf", "-inf", "100",
            ],
        ),
        (
            AsString::new().width(12),
            vec![
                "    3.141590",
                "   -2.500000",
                "10000000000.000000",
                "    0.000000",
                "    0.000010",
                "         nan",
                "         inf",
                "        -inf",
                "  100.000000",
            ],
        ),
        (
            AsString::new().width(12).fill('0'),
            vec![
                "00003.141590",
                "-0002.500000",
                "10000000000.000000",
                "00000.000000",
                "00000.000010",
                "         nan",
                "         inf",
                "        -inf",
                "00100.000000",
            ],
        ),
        (
            AsString::new().width(12).fill(' '),
            vec![
                "    3.141590",
                "   -2.500000",
                " 10000000000.000000",
                "    0.000000",
                "    0.000010",
                "         nan",
                "         inf",
                "        -inf",
                "  100.000000",
            ],
        ),
        (
            AsString::new().width(12).fill('-'),
            vec![
                "3.141590    ",
                "-2.500000   ",
                "10000000000.000000",
                "0.000000    ",
                "0.000010    ",
                "nan         ",
                "inf         ",
                "-inf        ",
                "100.000000  ",
            ],
        ),
    ];
    let sess = Session::new(&g).unwrap();
    for (opts, want) in cases {
        let o = opts.build(&x).unwrap();
        assert_eq!(sess.eval(&o).unwrap().to_strings().unwrap(), want);
    }
    let ints = constant(&g, vec![0i32, -5, 123]).unwrap();
    assert_eq!(
        sess.eval(as_string(&ints).unwrap())
            .unwrap()
            .to_strings()
            .unwrap(),
        ["0", "-5", "123"]
    );
    let padded = AsString::new().width(5).fill('0').build(&ints).unwrap();
    assert_eq!(
        sess.eval(&padded).unwrap().to_strings().unwrap(),
        ["00000", "-0005", "00123"]
    );
    let d = constant(&g, vec![3.14159265358979f64, 1e100, 1e-100]).unwrap();
    assert_eq!(
        sess.eval(as_string(&d).unwrap()).unwrap().to_strings().unwrap(),
        ["3.141593", "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104.000000", "0.000000"]
    );
    let small = constant(&g, vec![1.0f32 / 3.0, 123456.7, 1e-7, 0.1]).unwrap();
    assert_eq!(
        sess.eval(as_string(&small).unwrap())
            .unwrap()
            .to_strings()
            .unwrap(),
        ["0.333333", "123456.703125", "0.000000", "0.100000"]
    );
    let b = constant(&g, vec![true, false]).unwrap();
    assert_eq!(
        sess.eval(AsString::new().width(7).build(&b).unwrap())
            .unwrap()
            .to_strings()
            .unwrap(),
        ["true", "false"]
    );
    let u = constant(&g, vec![255u8]).unwrap();
    assert_eq!(
        sess.eval(as_string(&u).unwrap())
            .unwrap()
            .to_strings()
            .unwrap(),
        ["255"]
    );
    let s = strs(&g, &["ab"]);
    assert!(as_string(&s).unwrap().op().op_type() == "AsString");
    assert_eq!(
        sess.eval(AsString::new().width(4).build(&s).unwrap())
            .unwrap()
            .to_strings()
            .unwrap(),
        ["  ab"]
    );
    let err = |o: AsString, t: &Output| o.build(t).unwrap_err().message().to_string();
    assert_eq!(
        err(AsString::new().fill('x').width(3), &x),
        "Fill argument not supported: \"x\""
    );
    assert_eq!(
        err(AsString::new().precision(2), &ints),
        "precision not supported for datatype int32"
    );
    assert_eq!(
        err(AsString::new().scientific(true), &ints),
        "scientific and shortest format not supported for datatype int32"
    );
    assert_eq!(
        err(AsString::new().scientific(true).shortest(true), &x),
        "Cannot select both scientific and shortest notation"
    );
}

#[test]
fn regex_full_match_works() {
    let g = Graph::new();
    let s = strs(&g, &["abc", "abcd", "xabc", ""]);
    let m = regex_full_match(&s, "a.c").unwrap();
    assert_eq!(m.dtype(), DType::Bool);
    assert_eq!(
        eval(&g, &m).to_vec::<bool>().unwrap(),
        [true, false, false, false]
    );
    let alt = regex_full_match(strs(&g, &["ab", "cd", "abcd"]), "ab|cd").unwrap();
    assert_eq!(
        eval(&g, &alt).to_vec::<bool>().unwrap(),
        [true, true, false]
    );
    let e = regex_full_match(&s, "a(b").unwrap_err();
    assert!(
        e.message().starts_with("Invalid pattern: a(b, error: "),
        "{e}"
    );
    let p = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let d = regex_full_match_tensor(&s, &p).unwrap();
    let sess = Session::new(&g).unwrap();
    for (pat, want) in [
        ("a.*", [true, true, false, false]),
        ("", [false, false, false, true]),
        ("a.*", [true, true, false, false]),
    ] {
        let out = sess
            .run(&RunArgs::new().feed(&p, Tensor::from(pat)).fetch(&d))
            .unwrap();
        assert_eq!(out[0].to_vec::<bool>().unwrap(), want);
    }
    let e = sess
        .run(&RunArgs::new().feed(&p, Tensor::from(vec!["ab"])).fetch(&d))
        .unwrap_err();
    assert_eq!(e.message(), "Pattern must be scalar, but received [1]");
    let e = sess
        .run(&RunArgs::new().feed(&p, Tensor::from("(")).fetch(&d))
        .unwrap_err();
    assert!(
        e.message().starts_with("Invalid pattern: (, error: "),
        "{e}"
    );
}

#[test]
fn hash_buckets_match_tensorflow() {
    let g = Graph::new();
    let h =
        string_to_hash_bucket_fast(strs(&g, &["Pigs", "Lets", "Fly", "On", "Mars"]), 10).unwrap();
    assert_eq!(h.shape(), Shape::known(&[5]));
    assert_eq!(eval(&g, &h).to_vec::<i64>().unwrap(), [0, 4, 7, 8, 5]);
    let big = string_to_hash_bucket_fast(strs(&g, &["", "hello"]), 1 << 62).unwrap();
    assert_eq!(
        eval(&g, &big).to_vec::<i64>().unwrap(),
        [1936946117179621455, 3786372426573024488]
    );
    let e = string_to_hash_bucket_fast(strs(&g, &["a"]), 0).unwrap_err();
    assert!(e.message().contains("num_buckets"), "{e}");
}

#[test]
fn base64_round_trips_and_rejects() {
    let g = Graph::new();
    let s = strs(&g, &["", "a", "ab", "abc", "hello world"]);
    let enc = encode_base64(&s, false).unwrap();
    let padded = encode_base64(&s, true).unwrap();
    assert_eq!(
        eval(&g, &enc).to_strings().unwrap(),
        ["", "YQ", "YWI", "YWJj", "aGVsbG8gd29ybGQ"]
    );
    assert_eq!(
        eval(&g, &padded).to_strings().unwrap(),
        ["", "YQ==", "YWI=", "YWJj", "aGVsbG8gd29ybGQ="]
    );
    let back = decode_base64(&padded).unwrap();
    assert_eq!(
        eval(&g, &back).to_strings().unwrap(),
        ["", "a", "ab", "abc", "hello world"]
    );
    let bytes: Vec<u8> = (0..=255).collect();
    let raw = constant(
        &g,
        Tensor::from(vec![weir_graph::Bytes::from(bytes.clone())]),
    )
    .unwrap();
    let rt = decode_base64(encode_base64(&raw, false).unwrap()).unwrap();
    assert_eq!(
        eval(&g, &rt).as_slice::<weir_graph::Bytes>().unwrap()[0].as_ref(),
        &bytes[..]
    );
    let bad = decode_base64(strs(&g, &["YWJj", "a/8="])).unwrap();
    assert_eq!(
        eval_err(&g, &bad).message(),
        "Invalid character found in base64."
    );
    let short = decode_base64(strs(&g, &["YWJjZ"])).unwrap();
    assert_eq!(
        eval_err(&g, &short).message(),
        "Base64 string length cannot be 1 modulo 4."
    );
}
