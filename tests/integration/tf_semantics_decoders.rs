//! Decoder claims of ../shared/TF_SEMANTICS.md §5 that the other decoder tests do not check, one
//! test per claim (from an audit of §3-§5): decode_csv's attrs, field rules and number spellings,
//! decode_raw's out types and static shapes, and the feature specs of parse_example,
//! parse_single_example and parse_single_sequence_example, in TensorFlow's words.

use weir::prelude::*;
use weir::Code;

use crate::tf_semantics;

use tf_semantics::*;

// ---------------------------------------------------------------------------------------------
// §5.1 decode_csv.

/// TF_SEMANTICS l.560-561: "`decode_csv(records, record_defaults, field_delim=',',
/// use_quote_delim=True, name=None, na_value='', select_cols=None)`. Op `DecodeCSV`."
#[test]
fn s5_decode_csv_op_and_default_attrs() {
    let g = Graph::new();
    let r = constant(&g, "1").unwrap();
    let cols = decode_csv(&r, [constant(&g, vec![0i32]).unwrap()]).unwrap();
    let op = cols[0].op();
    assert_eq!(op.op_type(), "DecodeCSV");
    assert_eq!(op.attr::<String>("field_delim").unwrap(), ",");
    assert!(op.attr::<bool>("use_quote_delim").unwrap());
    assert_eq!(op.attr::<String>("na_value").unwrap(), "");
    assert_eq!(
        op.attr::<Vec<i64>>("select_cols").unwrap(),
        Vec::<i64>::new()
    );
}

/// TF_SEMANTICS l.567-569: "Allowed dtypes: float32, float64, int32, int64, string. Others (e.g.
/// bool) are TypeError." and "Output dtype = default dtype."
#[test]
fn s5_decode_csv_allowed_dtypes_and_output_dtype() {
    let g = Graph::new();
    let r = constant(&g, "1,2,3,4,x").unwrap();
    let defaults = vec![
        constant(&g, vec![0.0f32]).unwrap(),
        constant(&g, vec![0.0f64]).unwrap(),
        constant(&g, vec![0i32]).unwrap(),
        constant(&g, vec![0i64]).unwrap(),
        constant(&g, vec![""]).unwrap(),
    ];
    let cols = decode_csv(&r, defaults).unwrap();
    let dts: Vec<DType> = cols.iter().map(Output::dtype).collect();
    assert_eq!(
        dts,
        vec![
            DType::F32,
            DType::F64,
            DType::I32,
            DType::I64,
            DType::String
        ]
    );
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(&RunArgs::new().fetch(&cols[1]).fetch(&cols[4]).timeout(T))
        .unwrap();
    assert_eq!(out[0].to_scalar::<f64>().unwrap(), 2.0);
    assert_eq!(scalar_str(&out[1]), "x");
    for bad in [
        constant(&g, vec![0i16]).unwrap(),
        constant(&g, vec![0u8]).unwrap(),
    ] {
        assert!(decode_csv(&r, [bad]).is_err());
    }
}

fn csv1(record: &str, defaults: &[Tensor], op: DecodeCsv) -> Result<Vec<Tensor>> {
    let g = Graph::new();
    let r = constant(&g, Tensor::scalar(Bytes::from(record.as_bytes().to_vec()))).unwrap();
    let d: Vec<Output> = defaults
        .iter()
        .map(|t| constant(&g, t.clone()).unwrap())
        .collect();
    let cols = op.build(&r, d)?;
    let sess = Session::new(&g).unwrap();
    let mut args = RunArgs::new().timeout(T);
    for c in &cols {
        args = args.fetch(c);
    }
    sess.run(&args)
}

fn ints(n: usize) -> Vec<Tensor> {
    (0..n).map(|_| Tensor::from(vec![0i32])).collect()
}

/// TF_SEMANTICS l.577-578: "The empty string `""` has 0 fields, so always "Expect N fields but
/// have 0 in record 0"" (with one column, whose default could otherwise fill it).
#[test]
fn s5_decode_csv_empty_record_has_zero_fields_even_with_one_column() {
    for d in [Tensor::from(vec![""]), Tensor::from(vec![3i32])] {
        let e = err_of(csv1("", &[d], DecodeCsv::new()));
        assert_eq!(
            (e.code(), e.message()),
            (
                Code::InvalidArgument,
                "Expect 1 fields but have 0 in record 0"
            )
        );
    }
}

/// TF_SEMANTICS l.579: "At the start of each field, `\n` and `\r` are skipped, so `"\n1,2"` and
/// `"1,\n2"` parse." (through the op, with `\r` too).
#[test]
fn s5_decode_csv_skips_cr_and_lf_at_field_start() {
    for rec in ["\n1,2", "1,\n2", "\r1,2", "1,\r2", "\r\n1,\r\n2"] {
        let out = csv1(rec, &ints(2), DecodeCsv::new()).unwrap_or_else(|e| panic!("{rec:?}: {e}"));
        let v: Vec<i32> = out.iter().map(|t| t.to_scalar::<i32>().unwrap()).collect();
        assert_eq!(v, vec![1, 2], "{rec:?}");
    }
}

/// TF_SEMANTICS l.584: "so `"1,2\r\n"` fails and `' "a"'` (space before the quote) fails" (op
/// level, InvalidArgument "Unquoted fields cannot have quotes/CRLFs inside").
#[test]
fn s5_decode_csv_trailing_crlf_and_space_before_quote_fail() {
    for (rec, d) in [
        ("1,2\r\n", ints(2)),
        (" \"a\"", vec![Tensor::from(vec![""])]),
    ] {
        let e = err_of(csv1(rec, &d, DecodeCsv::new()));
        assert_eq!(
            (e.code(), e.message()),
            (
                Code::InvalidArgument,
                "Unquoted fields cannot have quotes/CRLFs inside"
            ),
            "{rec:?}"
        );
    }
}

/// TF_SEMANTICS l.588-589: "a lone `"` inside gives "Quote inside a string has to be escaped by
/// another quote" (`"ab"c,d`, `"a" ,b`)".
#[test]
fn s5_decode_csv_lone_quote_inside_quoted_field() {
    let d = vec![Tensor::from(vec![""]), Tensor::from(vec![""])];
    for rec in ["\"ab\"c,d", "\"a\" ,b"] {
        let e = err_of(csv1(rec, &d, DecodeCsv::new()));
        assert_eq!(
            (e.code(), e.message()),
            (
                Code::InvalidArgument,
                "Quote inside a string has to be escaped by another quote"
            ),
            "{rec:?}"
        );
    }
}

/// TF_SEMANTICS l.590-591: "an unterminated field (`"abc`, `"`) gives "Quoted field has to end
/// with quote followed by delim or end"" (the lone `"` record).
#[test]
fn s5_decode_csv_lone_quote_record_is_unterminated() {
    let e = err_of(csv1("\"", &[Tensor::from(vec![""])], DecodeCsv::new()));
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Quoted field has to end with quote followed by delim or end"
        )
    );
}

/// TF_SEMANTICS l.593-594 and l.599-600: "`"1,2,"` has 3 fields and `","` has 2" and
/// "InvalidArgument "Expect 2 fields but have 3 in record 0"".
#[test]
fn s5_decode_csv_trailing_delimiter_adds_a_field() {
    let e = err_of(csv1("1,2,", &ints(2), DecodeCsv::new()));
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Expect 2 fields but have 3 in record 0"
        )
    );
    let out = csv1(
        ",",
        &[Tensor::from(vec!["d1"]), Tensor::from(vec!["d2"])],
        DecodeCsv::new(),
    )
    .unwrap();
    assert_eq!(
        (scalar_str(&out[0]), scalar_str(&out[1])),
        ("d1".into(), "d2".into())
    );
    let out = csv1("1,2,", &ints(3), DecodeCsv::new()).unwrap();
    assert_eq!(out[2].to_scalar::<i32>().unwrap(), 0);
}

/// TF_SEMANTICS l.605-606: "Extra trailing columns are fine; a selected index beyond the record
/// gives "Expect 2 fields but have 1 in record 0"."
#[test]
fn s5_decode_csv_select_col_beyond_record() {
    let e = err_of(csv1("1,2", &ints(2), DecodeCsv::new().select_cols(&[0, 2])));
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Expect 2 fields but have 1 in record 0"
        )
    );
}

/// TF_SEMANTICS l.605: "Only the selected columns are parsed and validated. Extra trailing
/// columns are fine" (unselected non-numbers are not converted; nothing after the last selected
/// column is even split, as TensorFlow's ExtractFields returns once every selected column is
/// found).
#[test]
fn s5_decode_csv_unselected_columns_are_not_validated() {
    let out = csv1("x,5,bad,7", &ints(2), DecodeCsv::new().select_cols(&[1, 3]))
        .unwrap_or_else(|e| panic!("{e}"));
    let v: Vec<i32> = out.iter().map(|t| t.to_scalar::<i32>().unwrap()).collect();
    assert_eq!(v, vec![5, 7]);
    let out = csv1(
        "1,2,\"bad\"x,\"",
        &ints(2),
        DecodeCsv::new().select_cols(&[0, 1]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let v: Vec<i32> = out.iter().map(|t| t.to_scalar::<i32>().unwrap()).collect();
    assert_eq!(v, vec![1, 2]);
}

/// TF_SEMANTICS l.613-618: int parsing: hex, `1.0`, `1e3`, `true`, out of range are rejected
/// with "Field 0 in record 0 is not a valid int32: 0x10" (or "int64"); `" 1"`, `"1 "`, `"+5"`,
/// `"007"` accepted.
#[test]
fn s5_decode_csv_int_rejections_and_wording() {
    for (dt, ty) in [
        (Tensor::from(vec![0i32]), "int32"),
        (Tensor::from(vec![0i64]), "int64"),
    ] {
        for bad in ["0x10", "1.0", "1e3", "true"] {
            let e = err_of(csv1(bad, std::slice::from_ref(&dt), DecodeCsv::new()));
            assert_eq!(
                (e.code(), e.message().to_string()),
                (
                    Code::InvalidArgument,
                    format!("Field 0 in record 0 is not a valid {ty}: {bad}")
                )
            );
        }
    }
    let e = err_of(csv1(
        "9223372036854775808",
        &[Tensor::from(vec![0i64])],
        DecodeCsv::new(),
    ));
    assert_eq!(
        e.message(),
        "Field 0 in record 0 is not a valid int64: 9223372036854775808"
    );
    for (ok, want) in [(" 1", 1i64), ("1 ", 1), ("+5", 5), ("007", 7)] {
        let out = csv1(ok, &[Tensor::from(vec![0i64])], DecodeCsv::new()).unwrap();
        assert_eq!(out[0].to_scalar::<i64>().unwrap(), want, "{ok:?}");
    }
}

/// TF_SEMANTICS l.621-625: float accepted spellings, overflow to inf, underflow to 0, and
/// "Field 0 in record 0 is not a valid float: 1.5x" (or "double").
#[test]
fn s5_decode_csv_float_spellings_and_wording() {
    let f = || vec![Tensor::from(vec![0.0f32])];
    let d = || vec![Tensor::from(vec![0.0f64])];
    let one = |rec: &str| {
        csv1(rec, &f(), DecodeCsv::new()).unwrap()[0]
            .to_scalar::<f32>()
            .unwrap()
    };
    assert_eq!(one(" 2.5 "), 2.5);
    assert!(one("nan").is_nan());
    assert!(one("NaN").is_nan());
    assert_eq!(one("inf"), f32::INFINITY);
    assert_eq!(one("-Inf"), f32::NEG_INFINITY);
    assert_eq!(one("infinity"), f32::INFINITY);
    assert_eq!(one("0x1p3"), 8.0);
    assert_eq!(one(".5"), 0.5);
    assert_eq!(one("5."), 5.0);
    assert_eq!(one("1e39"), f32::INFINITY);
    assert_eq!(one("-1e39"), f32::NEG_INFINITY);
    assert_eq!(one("1e-50"), 0.0);
    let e = err_of(csv1("1.5x", &f(), DecodeCsv::new()));
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Field 0 in record 0 is not a valid float: 1.5x"
        )
    );
    let e = err_of(csv1("1.5x", &d(), DecodeCsv::new()));
    assert_eq!(
        e.message(),
        "Field 0 in record 0 is not a valid double: 1.5x"
    );
}

// ---------------------------------------------------------------------------------------------
// §5.2 decode_raw.

/// TF_SEMANTICS l.630-634: op `DecodeRaw`, `little_endian=True` by default, out_type in {...,
/// float32, float64, int32, uint16, uint8, int16, int8, int64, ..., bool, ...}; `string` is a
/// TypeError. (float16, complex64, complex128 and bfloat16 have no weir dtype.)
#[test]
fn s5_decode_raw_op_defaults_and_out_types() {
    let g = Graph::new();
    let p = placeholder(&g, DType::String, Shape::new(vec![None])).unwrap();
    let v = decode_raw(&p, DType::U8).unwrap();
    assert_eq!(v.op().op_type(), "DecodeRaw");
    assert!(v.op().attr::<bool>("little_endian").unwrap());
    for dt in [
        DType::F32,
        DType::F64,
        DType::I32,
        DType::U16,
        DType::U8,
        DType::I16,
        DType::I8,
        DType::I64,
        DType::Bool,
    ] {
        let o = decode_raw(&p, dt).unwrap_or_else(|e| panic!("{dt:?}: {e}"));
        assert_eq!(o.dtype(), dt);
    }
    assert!(decode_raw(&p, DType::String).is_err());
}

/// TF_SEMANTICS l.637-638: "A `[2,1]` input gives `[2,1,k]`" (static shape `[2,1,?]`) and
/// "`[b'']` gives `[1,0]`".
#[test]
fn s5_decode_raw_static_shape_of_2x1_and_empty_string() {
    let g = Graph::new();
    let x = constant(
        &g,
        Tensor::from_vec(
            &[2, 1],
            vec![
                Bytes::from_static(b"\x01\x02"),
                Bytes::from_static(b"\x03\x04"),
            ],
        )
        .unwrap(),
    )
    .unwrap();
    let v = decode_raw(&x, DType::U8).unwrap();
    assert_eq!(v.shape(), Shape::new(vec![Some(2), Some(1), None]));
    let e = constant(&g, Tensor::from_byte_strings(&[b""])).unwrap();
    let ev = decode_raw(&e, DType::I32).unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(fetch(&sess, &v).unwrap().shape(), &[2, 1, 2]);
    assert_eq!(fetch(&sess, &ev).unwrap().shape(), &[1, 0]);
}

// ---------------------------------------------------------------------------------------------
// §5.4 Feature specs.

fn ser(ex: Example) -> Bytes {
    ex.to_bytes()
}

fn single(g: &Graph, b: Bytes) -> Output {
    constant(g, Tensor::scalar(b)).unwrap()
}

fn batch(g: &Graph, bs: Vec<Bytes>) -> Output {
    constant(g, Tensor::from(bs)).unwrap()
}

/// TF_SEMANTICS l.673: "dtype ∈ {float32, int64, string}. Others (int32, float64) are TypeError
/// at build time." (float64; int32 is covered.)
#[test]
fn s5_fixed_len_feature_float64_is_refused_at_build() {
    let g = Graph::new();
    let p = placeholder(&g, DType::String, Shape::new(vec![None])).unwrap();
    for f in [
        Features::new().add("a", FixedLenFeature::new(&[], DType::F64)),
        Features::new().add("a", VarLenFeature::new(DType::F64)),
        Features::new().add("a", FixedLenFeature::new(&[], DType::I32)),
    ] {
        assert!(parse_example(&p, &f).is_err());
    }
}

/// TF_SEMANTICS l.684: "`serialized` is a vector of rank ≤ 1" (rank 2 is refused at build).
#[test]
fn s5_parse_example_refuses_rank_2_serialized() {
    let g = Graph::new();
    let p = placeholder(&g, DType::String, Shape::new(vec![None, None])).unwrap();
    let f = Features::new().add("a", FixedLenFeature::new(&[], DType::I64));
    assert!(parse_example(&p, &f).is_err());
}

/// TF_SEMANTICS l.700-704: "Missing key or a Feature with no kind set: uses `default_value`;
/// without a default, InvalidArgument "Feature: zz (data type: int64) is required but could not
/// be found."" (single path; kind-less feature and missing key zz).
#[test]
fn s5_kindless_or_missing_feature_uses_default_or_is_required() {
    let g = Graph::new();
    let ex = ser(Example::builder()
        .feature("a", weir::ops::io::example::Feature::empty())
        .build());
    let with_default = Features::new().add(
        "a",
        FixedLenFeature::new(&[], DType::I64).default(Tensor::from(9i64)),
    );
    let required = Features::new().add("a", FixedLenFeature::new(&[], DType::I64));
    let zz = Features::new().add("zz", FixedLenFeature::new(&[], DType::I64));
    let p1 = parse_single_example(single(&g, ex.clone()), &with_default).unwrap();
    let p2 = parse_single_example(single(&g, ex.clone()), &required).unwrap();
    let p3 = parse_single_example(single(&g, ex.clone()), &zz).unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(
        fetch(&sess, &p1.dense("a").unwrap())
            .unwrap()
            .to_scalar::<i64>()
            .unwrap(),
        9
    );
    expect(
        fetch(&sess, &p2.dense("a").unwrap()),
        Code::InvalidArgument,
        "Feature: a (data type: int64) is required but could not be found.",
    );
    expect(
        fetch(&sess, &p3.dense("zz").unwrap()),
        Code::InvalidArgument,
        "Feature: zz (data type: int64) is required but could not be found.",
    );
}

/// TF_SEMANTICS l.700-704 (batch): a kind-less feature is missing: "Name: <unknown>, Feature: a
/// (data type: int64) is required but could not be found."
#[test]
fn s5_kindless_feature_in_a_batch_is_missing() {
    let g = Graph::new();
    let ex = ser(Example::builder()
        .feature("a", weir::ops::io::example::Feature::empty())
        .build());
    let required = Features::new().add("a", FixedLenFeature::new(&[], DType::I64));
    let p = parse_example(batch(&g, vec![ex]), &required).unwrap();
    let sess = Session::new(&g).unwrap();
    expect(
        fetch(&sess, &p.dense("a").unwrap()),
        Code::InvalidArgument,
        "Name: <unknown>, Feature: a (data type: int64) is required but could not be found.",
    );
}

/// TF_SEMANTICS l.709: "Output shape: `shape` (single) or `[B] + shape` (batch). `[2,1]` works
/// for 2 values."
#[test]
fn s5_fixed_len_shape_2x1_with_two_values() {
    let g = Graph::new();
    let ex = ser(Example::builder().int64("a", [4, 5]).build());
    let f = Features::new().add("a", FixedLenFeature::new(&[2, 1], DType::I64));
    let p1 = parse_single_example(single(&g, ex.clone()), &f).unwrap();
    let pb = parse_example(batch(&g, vec![ex.clone(), ex]), &f).unwrap();
    let a1 = p1.dense("a").unwrap();
    let ab = pb.dense("a").unwrap();
    assert_eq!(a1.shape(), Shape::known(&[2, 1]));
    // The batch dim is static here (a constant batch of 2).
    assert_eq!(ab.shape(), Shape::known(&[2, 2, 1]));
    let sess = Session::new(&g).unwrap();
    let t1 = fetch(&sess, &a1).unwrap();
    assert_eq!(t1.shape(), &[2, 1]);
    assert_eq!(t1.to_vec::<i64>().unwrap(), vec![4, 5]);
    assert_eq!(fetch(&sess, &ab).unwrap().shape(), &[2, 2, 1]);
}

/// TF_SEMANTICS l.713: "Single: indices `[[0],[1],...]`, values, dense_shape `[n]`." and l.715:
/// "Static shapes: indices `[?, rank]`, values `[?]`, dense_shape `[rank]`."
#[test]
fn s5_var_len_single_layout_and_static_shapes() {
    let g = Graph::new();
    let ex = ser(Example::builder().int64("b", [7, 8, 9]).build());
    let f = Features::new().add("b", VarLenFeature::new(DType::I64));
    let p = parse_single_example(single(&g, ex.clone()), &f).unwrap();
    let sp = p.sparse("b").unwrap();
    assert_eq!(sp.indices.shape(), Shape::new(vec![None, Some(1)]));
    assert_eq!(sp.values.shape(), Shape::new(vec![None]));
    assert_eq!(sp.dense_shape.shape(), Shape::known(&[1]));
    let pb = parse_example(batch(&g, vec![ex]), &f).unwrap();
    let spb = pb.sparse("b").unwrap();
    assert_eq!(spb.indices.shape(), Shape::new(vec![None, Some(2)]));
    assert_eq!(spb.values.shape(), Shape::new(vec![None]));
    assert_eq!(spb.dense_shape.shape(), Shape::known(&[2]));
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(
            &RunArgs::new()
                .fetch(&sp.indices)
                .fetch(&sp.values)
                .fetch(&sp.dense_shape)
                .timeout(T),
        )
        .unwrap();
    assert_eq!(out[0].shape(), &[3, 1]);
    assert_eq!(out[0].to_vec::<i64>().unwrap(), vec![0, 1, 2]);
    assert_eq!(out[1].to_vec::<i64>().unwrap(), vec![7, 8, 9]);
    assert_eq!(out[2].to_vec::<i64>().unwrap(), vec![3]);
}

/// TF_SEMANTICS l.716: "Missing, empty or kind-less features give empty values with dense_shape
/// `[0]` (single)."
#[test]
fn s5_var_len_missing_empty_or_kindless_is_empty() {
    let exs = [
        ser(Example::builder().int64("other", [1]).build()),
        ser(Example::builder().int64("b", Vec::<i64>::new()).build()),
        ser(Example::builder()
            .feature("b", weir::ops::io::example::Feature::empty())
            .build()),
    ];
    for (i, ex) in exs.into_iter().enumerate() {
        let g = Graph::new();
        let f = Features::new().add("b", VarLenFeature::new(DType::I64));
        let p = parse_single_example(single(&g, ex), &f).unwrap();
        let sp = p.sparse("b").unwrap();
        let sess = Session::new(&g).unwrap();
        let out = sess
            .run(
                &RunArgs::new()
                    .fetch(&sp.indices)
                    .fetch(&sp.values)
                    .fetch(&sp.dense_shape)
                    .timeout(T),
            )
            .unwrap_or_else(|e| panic!("case {i}: {e}"));
        assert_eq!(out[0].shape(), &[0, 1], "case {i}");
        assert_eq!(out[1].shape(), &[0], "case {i}");
        assert_eq!(out[2].to_vec::<i64>().unwrap(), vec![0], "case {i}");
    }
}

/// TF_SEMANTICS l.717-718: "Type mismatch: InvalidArgument "Key: b.  Data types don't match.
/// Expected type: int64, Actual type: string"" (single path).
#[test]
fn s5_var_len_type_mismatch_single_message() {
    let g = Graph::new();
    let ex = ser(Example::builder().bytes("b", "x").build());
    let f = Features::new().add("b", VarLenFeature::new(DType::I64));
    let p = parse_single_example(single(&g, ex), &f).unwrap();
    let sess = Session::new(&g).unwrap();
    expect(
        fetch(&sess, &p.sparse("b").unwrap().values),
        Code::InvalidArgument,
        "Key: b.  Data types don't match. Expected type: int64, Actual type: string",
    );
}

/// TF_SEMANTICS l.721-722: "In parse_example and parse_single_example it requires
/// `allow_missing=True`" (parse_single_example; parse_example is covered).
#[test]
fn s5_fixed_len_sequence_requires_allow_missing_in_single() {
    let g = Graph::new();
    let p = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let f = Features::new().add("a", FixedLenSequenceFeature::new(&[], DType::I64));
    assert_eq!(
        parse_single_example(&p, &f).unwrap_err().message(),
        "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
    );
}

/// TF_SEMANTICS l.723: "Output `[B, T_max] + shape`, padded with `default_value` or else 0 /
/// "".", and l.726: "A missing feature gives length 0."
#[test]
fn s5_fixed_len_sequence_padding_and_missing() {
    let g = Graph::new();
    let e1 = ser(Example::builder().int64("a", [1, 2, 3]).build());
    let e2 = ser(Example::builder().int64("a", [4]).build());
    let e3 = ser(Example::builder().int64("other", [0]).build());
    let with_default = Features::new().add(
        "a",
        FixedLenSequenceFeature::new(&[], DType::I64)
            .allow_missing(true)
            .default(Tensor::from(-1i64)),
    );
    let zero = Features::new().add(
        "a",
        FixedLenSequenceFeature::new(&[], DType::I64).allow_missing(true),
    );
    let pd = parse_example(
        batch(&g, vec![e1.clone(), e2.clone(), e3.clone()]),
        &with_default,
    )
    .unwrap();
    let pz = parse_example(batch(&g, vec![e1, e2, e3.clone()]), &zero).unwrap();
    let shaped = Features::new().add(
        "a",
        FixedLenSequenceFeature::new(&[2], DType::I64).allow_missing(true),
    );
    let pm = parse_single_example(single(&g, e3.clone()), &shaped).unwrap();
    let pmb = parse_example(batch(&g, vec![e3]), &shaped).unwrap();
    let sess = Session::new(&g).unwrap();
    let d = fetch(&sess, &pd.dense("a").unwrap()).unwrap();
    assert_eq!(d.shape(), &[3, 3]);
    assert_eq!(
        d.to_vec::<i64>().unwrap(),
        vec![1, 2, 3, 4, -1, -1, -1, -1, -1]
    );
    let z = fetch(&sess, &pz.dense("a").unwrap()).unwrap();
    assert_eq!(z.to_vec::<i64>().unwrap(), vec![1, 2, 3, 4, 0, 0, 0, 0, 0]);
    assert_eq!(
        fetch(&sess, &pm.dense("a").unwrap()).unwrap().shape(),
        &[0, 2]
    );
    assert_eq!(
        fetch(&sess, &pmb.dense("a").unwrap()).unwrap().shape(),
        &[1, 0, 2]
    );
}

/// TF_SEMANTICS l.724-725: "The value count must be divisible by prod(shape): InvalidArgument
/// "Error while parsing feature with key a: number of elements should be divisible by 2, found
/// 3 instead"" (parse_single_example).
#[test]
fn s5_fixed_len_sequence_divisibility_message_single() {
    let g = Graph::new();
    let ex = ser(Example::builder().int64("a", [1, 2, 3]).build());
    let f = Features::new().add(
        "a",
        FixedLenSequenceFeature::new(&[2], DType::I64).allow_missing(true),
    );
    let p = parse_single_example(single(&g, ex), &f).unwrap();
    let sess = Session::new(&g).unwrap();
    expect(
        fetch(&sess, &p.dense("a").unwrap()),
        Code::InvalidArgument,
        "Error while parsing feature with key a: number of elements should be divisible by 2, found 3 instead",
    );
}

/// TF_SEMANTICS l.731: "Count mismatch: InvalidArgument "Number of elements in indices (2) and
/// values (1) do not match"".
#[test]
fn s5_sparse_feature_count_mismatch_message() {
    let g = Graph::new();
    let ex = ser(Example::builder()
        .int64("idx", [1, 3])
        .float("val", [0.5])
        .build());
    let f = Features::new().add("sp", SparseFeature::new("idx", "val", DType::F32, 5));
    let p1 = parse_single_example(single(&g, ex.clone()), &f).unwrap();
    let pb = parse_example(batch(&g, vec![ex]), &f).unwrap();
    let sess = Session::new(&g).unwrap();
    for p in [&p1, &pb] {
        expect(
            fetch(&sess, &p.sparse("sp").unwrap().values),
            Code::InvalidArgument,
            "Number of elements in indices (2) and values (1) do not match",
        );
    }
}

/// TF_SEMANTICS l.729: "Output is a SparseTensor with dense_shape `[size]`, indices sorted by
/// index." (single example: dense_shape [5], indices as [[i]]).
#[test]
fn s5_sparse_feature_single_dense_shape_is_size() {
    let g = Graph::new();
    let ex = ser(Example::builder()
        .int64("idx", [3, 1])
        .float("val", [0.3, 0.1])
        .build());
    let f = Features::new().add("sp", SparseFeature::new("idx", "val", DType::F32, 5));
    let p = parse_single_example(single(&g, ex), &f).unwrap();
    let sp = p.sparse("sp").unwrap();
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(
            &RunArgs::new()
                .fetch(&sp.indices)
                .fetch(&sp.values)
                .fetch(&sp.dense_shape)
                .timeout(T),
        )
        .unwrap();
    assert_eq!(out[0].shape(), &[2, 1]);
    assert_eq!(out[0].to_vec::<i64>().unwrap(), vec![1, 3]);
    assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![0.1, 0.3]);
    assert_eq!(out[2].to_vec::<i64>().unwrap(), vec![5]);
}

/// TF_SEMANTICS l.737-740: "A missing feature list without allow_missing is InvalidArgument
/// "Name: <unknown>, Feature list 'nope' is required but could not be found.  Did you mean to
/// include it in feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?".
/// With allow_missing it gives shape `[0] + shape`."
#[test]
fn s5_sequence_missing_feature_list() {
    let g = Graph::new();
    let se = SequenceExample::builder()
        .context_int64("c", [1])
        .feature_list("have", [weir::ops::io::example::Feature::int64([1])])
        .build()
        .to_bytes();
    let x = single(&g, se);
    let (_, seq) = parse_single_sequence_example(
        &x,
        &Features::new(),
        &Features::new().add("nope", FixedLenSequenceFeature::new(&[], DType::I64)),
    )
    .unwrap();
    let (_, seq_ok) = parse_single_sequence_example(
        &x,
        &Features::new(),
        &Features::new().add(
            "nope",
            FixedLenSequenceFeature::new(&[3], DType::F32).allow_missing(true),
        ),
    )
    .unwrap();
    let sess = Session::new(&g).unwrap();
    expect(
        fetch(&sess, &seq.dense("nope").unwrap()),
        Code::InvalidArgument,
        "Name: <unknown>, Feature list 'nope' is required but could not be found.  Did you mean to include it in feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?",
    );
    let t = fetch(&sess, &seq_ok.dense("nope").unwrap()).unwrap();
    assert_eq!(t.shape(), &[0, 3]);
    assert_eq!(t.dtype(), DType::F32);
}

/// TF_SEMANTICS l.741-742: "A wrong per-step count is InvalidArgument "Name: <unknown>, Key:
/// var, Index: 0.  Number of values != expected.  values size: 1 but output shape: [2]"".
/// (Steps of 1 and 3 values: the total, 4, is a multiple of 2, so TensorFlow's earlier
/// total-size check "Feature list 'var' has an unexpected number of values" does not fire.)
#[test]
fn s5_sequence_wrong_step_count_message() {
    let g = Graph::new();
    let se = SequenceExample::builder()
        .feature_list(
            "var",
            [
                weir::ops::io::example::Feature::int64([1]),
                weir::ops::io::example::Feature::int64([1, 2, 3]),
            ],
        )
        .build()
        .to_bytes();
    let (_, seq) = parse_single_sequence_example(
        single(&g, se),
        &Features::new(),
        &Features::new().add("var", FixedLenSequenceFeature::new(&[2], DType::I64)),
    )
    .unwrap();
    let sess = Session::new(&g).unwrap();
    expect(
        fetch(&sess, &seq.dense("var").unwrap()),
        Code::InvalidArgument,
        "Name: <unknown>, Key: var, Index: 0.  Number of values != expected.  values size: 1 but output shape: [2]",
    );
}
