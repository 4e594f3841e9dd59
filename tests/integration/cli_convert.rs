//! The `weir convert csv` command line: converted files read back with the record reader and
//! the Example parser, decode_csv's errors with line numbers, and no partial output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use weir::ops::io::example::Example;
use weir::ops::io::{tf_record_iterator, Compression};

fn weir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weir"))
        .args(args)
        .output()
        .expect("run weir")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A fresh directory with `input.csv` holding `csv`.
fn setup(csv: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.csv");
    std::fs::write(&input, csv).unwrap();
    (dir, input.to_string_lossy().into_owned())
}

fn out_path(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).to_string_lossy().into_owned()
}

/// `weir convert csv INPUT -o OUT --columns SPEC EXTRA...`.
fn convert(input: &str, out: &str, spec: &str, extra: &[&str]) -> Output {
    let mut args = vec!["convert", "csv", input, "-o", out, "--columns", spec];
    args.extend_from_slice(extra);
    weir(&args)
}

fn read_examples(path: &str, c: Compression) -> Vec<Example> {
    tf_record_iterator(path, c)
        .unwrap()
        .map(|r| Example::from_bytes(r.unwrap()).unwrap())
        .collect()
}

fn strings(ex: &Example, key: &str) -> Vec<String> {
    ex.bytes_list(key)
        .unwrap_or_else(|| panic!("{key} is not a bytes_list"))
        .iter()
        .map(|b| String::from_utf8(b.to_vec()).unwrap())
        .collect()
}

fn dir_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Runs a conversion that must fail with exit status 1 and `want` on stderr, and checks that
/// the directory holds only the input afterwards.
fn fails_with(csv: &str, spec: &str, extra: &[&str], want: &str) {
    let (dir, input) = setup(csv);
    let out = out_path(&dir, "out.tfrecord");
    let o = convert(&input, &out, spec, extra);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(want), "want {want:?} in {err:?}");
    assert_eq!(dir_entries(dir.path()), vec![PathBuf::from(&input)]);
}

#[test]
fn round_trip_keeps_values_and_types() {
    let (dir, input) = setup(
        "id,score,weight,count,name\n\
         1,2.5,0.25,10,alpha\n\
         -2,,1e300,9223372036854775807,\n\
         3,-0.5,,-1,\"gamma, delta\"\n",
    );
    let out = out_path(&dir, "out.tfrecord");
    let o = convert(
        &input,
        &out,
        "id:int32,score:float32=7.5,weight:float64=-1,count:int64,name:string=none",
        &["--skip-header-lines", "1"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(stderr(&o), format!("wrote 3 examples to {out}\n"));
    let ex = read_examples(&out, Compression::None);
    assert_eq!(ex.len(), 3);
    assert_eq!(ex[0].int64_list("id"), Some(&[1i64][..]));
    assert_eq!(ex[1].int64_list("id"), Some(&[-2i64][..]));
    assert_eq!(ex[0].float_list("score"), Some(&[2.5f32][..]));
    assert_eq!(ex[1].float_list("score"), Some(&[7.5f32][..]));
    assert_eq!(ex[0].float_list("weight"), Some(&[0.25f32][..]));
    // float64 goes to a float_list, so 1e300 rounds to inf as float32.
    assert_eq!(ex[1].float_list("weight"), Some(&[f32::INFINITY][..]));
    assert_eq!(ex[2].float_list("weight"), Some(&[-1.0f32][..]));
    assert_eq!(ex[1].int64_list("count"), Some(&[i64::MAX][..]));
    assert_eq!(ex[2].int64_list("count"), Some(&[-1i64][..]));
    assert_eq!(strings(&ex[0], "name"), ["alpha"]);
    assert_eq!(strings(&ex[1], "name"), ["none"]);
    assert_eq!(strings(&ex[2], "name"), ["gamma, delta"]);
    for e in &ex {
        assert_eq!(e.features().count(), 5);
    }
    // `weir records` reads what `weir convert` wrote.
    let o = weir(&["records", "verify", &out]);
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        format!("{out}: OK (3 records)\n")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The mode File::create gives under this umask, not the temp file's 0600.
        let mode = |p: &str| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&out), mode(&input));
    }
}

#[test]
fn many_lines_cross_chunks() {
    let csv: String = (0..10_000).map(|i| format!("{i},{}\n", i * 2)).collect();
    let (dir, input) = setup(&csv);
    let out = out_path(&dir, "out.tfrecord");
    let o = convert(&input, &out, "a:int64,b:int32", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ex = read_examples(&out, Compression::None);
    assert_eq!(ex.len(), 10_000);
    for (i, e) in ex.iter().enumerate() {
        assert_eq!(e.int64_list("a"), Some(&[i as i64][..]));
        assert_eq!(e.int64_list("b"), Some(&[2 * i as i64][..]));
    }
}

#[test]
fn required_column_missing_names_the_line_and_leaves_nothing() {
    fails_with(
        "h1,h2\n1,2\n3,\n",
        "a:int32,b:int32",
        &["--skip-header-lines", "1"],
        "input.csv:3: Field 1 is required but missing in record 0!",
    );
    // An existing output stays as it was.
    let (dir, input) = setup("1,2\n3,\n");
    let out = out_path(&dir, "out.tfrecord");
    std::fs::write(&out, b"old").unwrap();
    let o = convert(&input, &out, "a:int32,b:int32", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("weir: InvalidArgument: "),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    assert_eq!(dir_entries(dir.path()).len(), 2);
}

#[test]
fn bad_number_in_a_later_chunk_names_its_line() {
    let mut lines: Vec<String> = (0..9_000).map(|i| format!("{i},x")).collect();
    lines[6_000] = "12z,x".into();
    lines[7_000] = "bad,x".into();
    let csv = format!("header\n{}\n", lines.join("\n"));
    // Line 6002: one header line, then record 6000 (0-based) on the 6001st data line.
    fails_with(
        &csv,
        "n:int32,s:string",
        &["--skip-header-lines", "1"],
        "input.csv:6002: Field 0 in record 0 is not a valid int32: 12z",
    );
    fails_with(
        "1.5\n2.5x\n",
        "f:float64",
        &[],
        "input.csv:2: Field 0 in record 0 is not a valid double: 2.5x",
    );
}

#[test]
fn wrong_column_count_and_empty_lines() {
    fails_with(
        "1,2\n1,2,3\n",
        "a:int32,b:int32",
        &[],
        "input.csv:2: Expect 2 fields but have 3 in record 0",
    );
    // An empty line is a record with no field, as TextLineReader + decode_csv make it.
    fails_with(
        "1,2\n\n3,4\n",
        "a:int32,b:int32",
        &[],
        "input.csv:2: Expect 2 fields but have 0 in record 0",
    );
    // A quoting error has no record number in decode_csv's text: the line still comes out.
    fails_with(
        "\"a\"\n\"b\n",
        "s:string",
        &[],
        "input.csv:2: Quoted field has to end with quote followed by delim or end",
    );
}

#[test]
fn quoting_and_no_quote_delim() {
    let (dir, input) = setup("\"a,b\",\"c\"\"d\",\"\"\r\nplain,x,\"q\"\n");
    let out = out_path(&dir, "q.tfrecord");
    let o = convert(&input, &out, "a:string,b:string,c:string=def", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ex = read_examples(&out, Compression::None);
    assert_eq!(strings(&ex[0], "a"), ["a,b"]);
    assert_eq!(strings(&ex[0], "b"), ["c\"d"]);
    assert_eq!(strings(&ex[0], "c"), ["def"]);
    assert_eq!(strings(&ex[1], "c"), ["q"]);

    let (dir, input) = setup("\"a,b\"\n");
    let out = out_path(&dir, "nq.tfrecord");
    let o = convert(&input, &out, "x:string,y:string", &["--no-quote-delim"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ex = read_examples(&out, Compression::None);
    assert_eq!(strings(&ex[0], "x"), ["\"a"]);
    assert_eq!(strings(&ex[0], "y"), ["b\""]);
}

#[test]
fn na_value_and_select_cols() {
    let (dir, input) = setup("NA,1,a\n2,NA,b\n");
    let out = out_path(&dir, "na.tfrecord");
    let o = convert(
        &input,
        &out,
        "a:int64=0,b:int64=5,c:string",
        &["--na-value", "NA"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ex = read_examples(&out, Compression::None);
    assert_eq!(ex[0].int64_list("a"), Some(&[0i64][..]));
    assert_eq!(ex[1].int64_list("b"), Some(&[5i64][..]));

    let (dir, input) = setup("0,1,2,3,4,5,6\n10,11,12,13,14,15\n");
    let out = out_path(&dir, "sel.tfrecord");
    let o = convert(
        &input,
        &out,
        "first:int32,third:int32,sixth:string",
        &["--select-cols", "0,2,5"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ex = read_examples(&out, Compression::None);
    assert_eq!(ex[1].int64_list("first"), Some(&[10i64][..]));
    assert_eq!(ex[1].int64_list("third"), Some(&[12i64][..]));
    assert_eq!(strings(&ex[1], "sixth"), ["15"]);
    assert_eq!(ex[0].features().count(), 3);

    fails_with(
        "0,1,2\n",
        "a:int32,b:int32",
        &["--select-cols", "0,5"],
        "input.csv:1: Expect 2 fields but have 1 in record 0",
    );
}

#[test]
fn compressed_output_by_extension_and_flag() {
    let (dir, input) = setup("1,x\n2,y\n");
    for (name, flag, c) in [
        ("o.tfrecord.gz", None, Compression::Gzip),
        ("o.tfrecord.zlib", None, Compression::Zlib),
        ("o.tfrecord", Some("gzip"), Compression::Gzip),
        ("p.tfrecord", Some("zlib"), Compression::Zlib),
        ("o.gz", Some("none"), Compression::None),
    ] {
        let out = out_path(&dir, name);
        let extra: Vec<&str> = flag.map(|f| vec!["--compression", f]).unwrap_or_default();
        let o = convert(&input, &out, "n:int64,s:string", &extra);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let ex = read_examples(&out, c);
        assert_eq!(ex.len(), 2, "{name}");
        assert_eq!(ex[1].int64_list("n"), Some(&[2i64][..]));
        assert_eq!(strings(&ex[1], "s"), ["y"]);
        // The records tool reads it back with the same guess from the extension.
        if flag.is_none() {
            assert!(
                weir(&["records", "verify", &out]).status.success(),
                "{name}"
            );
        }
    }
}

#[test]
fn tab_delimiter() {
    let (dir, input) = setup("1\ta,b\t2.5\n");
    for delim in ["\t", "\\t"] {
        let out = out_path(&dir, "t.tfrecord");
        let o = convert(
            &input,
            &out,
            "i:int32,s:string,f:float32",
            &["--field-delim", delim],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let ex = read_examples(&out, Compression::None);
        assert_eq!(strings(&ex[0], "s"), ["a,b"]);
        assert_eq!(ex[0].float_list("f"), Some(&[2.5f32][..]));
    }
}

#[test]
fn usage_errors_exit_2_and_write_nothing() {
    let (dir, input) = setup("1\n");
    let out = out_path(&dir, "o.tfrecord");
    for (spec, extra, want) in [
        ("a:int8", vec![], "unknown type 'int8'"),
        ("a", vec![], "'a' is not name:type[=default]"),
        ("a:int32,", vec![], "empty entry"),
        ("a:int32=x", vec![], "default 'x' is not a valid int32"),
        ("a:int32,a:int64", vec![], "column name 'a' appears twice"),
        (
            "a:int32",
            vec!["--field-delim", ";;"],
            "field_delim should be only 1 char",
        ),
        (
            "a:int32",
            vec!["--select-cols", "2,1"],
            "select_cols is not strictly increasing.",
        ),
        (
            "a:int32",
            vec!["--select-cols", "0,1"],
            "Length of select_cols and record_defaults do not match",
        ),
        (
            "a:int32",
            vec!["--compression", "lz4"],
            "invalid value 'lz4'",
        ),
    ] {
        let o = convert(&input, &out, spec, &extra);
        assert_eq!(o.status.code(), Some(2), "{spec} {extra:?}");
        assert!(stderr(&o).contains(want), "{want:?} in {}", stderr(&o));
    }
    let o = weir(&["convert", "csv", &input, "--columns", "a:int32"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--output <OUT>"), "{}", stderr(&o));
    assert_eq!(dir_entries(dir.path()).len(), 1);
}

#[test]
fn missing_input_and_missing_output_directory() {
    let (dir, input) = setup("1\n");
    let out = out_path(&dir, "o.tfrecord");
    let o = convert("/nonexistent/in.csv", &out, "a:int32", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("NotFound: /nonexistent/in.csv; No such file or directory"),
        "{}",
        stderr(&o)
    );
    let o = convert(&input, "/nonexistent/dir/o.tfrecord", "a:int32", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/nonexistent/dir/o.tfrecord"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn help_on_every_convert_command() {
    for args in [
        vec!["--help"],
        vec!["convert", "--help"],
        vec!["convert", "csv", "--help"],
        vec!["help", "convert", "csv"],
    ] {
        let o = weir(&args);
        assert!(o.status.success(), "{args:?}");
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.contains("Usage:"), "{args:?}");
        assert!(out.contains("convert"), "{args:?}: {out}");
    }
    let o = weir(&["convert", "csv", "--help"]);
    let out = String::from_utf8(o.stdout).unwrap();
    for flag in [
        "--columns",
        "--field-delim",
        "--no-quote-delim",
        "--na-value",
        "--select-cols",
        "--skip-header-lines",
        "--compression",
    ] {
        assert!(out.contains(flag), "{flag} missing from {out}");
    }
}
