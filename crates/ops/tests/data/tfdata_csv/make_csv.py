"""Writes the tf.data.experimental.CsvDataset fixtures and records what TensorFlow returns.

Run with TensorFlow 2.21 (tf.compat.v1 graph mode):

    python make_csv.py

It writes small CSV files (plain, GZIP and ZLIB) into this folder and `expected.json`: for each
case, the dataset's arguments, the element dtypes, and the outcome of each `get_next` run in
order (a tuple of values, or an error's class and message), up to the first OutOfRange, or up
to three runs after an error that repeats. Messages name files as `<DIR>/<name>`. Floats are
stored as Python `repr` strings (exact, and `nan`/`inf` survive JSON); strings as latin-1
characters.
"""

import gzip
import json
import os
import re
import zlib

import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_RUNS = 30

DTYPES = {
    "int32": tf.int32,
    "int64": tf.int64,
    "float32": tf.float32,
    "float64": tf.float64,
    "string": tf.string,
}


def path(name):
    return os.path.join(HERE, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


def make_files():
    basic = b'1,2.5,abc,10,0.125\n-3,1e3,"q,""w""",-20,2\n'
    write("basic.csv", basic)
    write("basic.csv.gz", gzip.compress(basic, mtime=0))
    write("basic.csv.zlib", zlib.compress(basic))
    write("defaults.csv", b"1,,\n,2.5,\n,,x\n")
    write("required.csv", b"1,2\n,3\n4,5\n")
    write("crlf.csv", b"1,a\r\n2,b\r\n3,c")
    write("cr.csv", b"1,a\r2,b\n")
    write("header.csv", b"x,y\n1,2\n3,4\n")
    write("header2.csv", b"p,q\r\n5,6\r\n")
    header_gz = b'h1,h2\n"multi\nline header?",9\n7,8\n'
    write("header.csv.gz", gzip.compress(header_gz, mtime=0))
    write("a.csv", b"1,x\n2,y\n")
    write("b.csv", b"3,z\n")
    write("pipe.csv", b'1|a,b|"c|d"\n2||e\n')
    write("tab.csv", b"1\t2\n3\t4\n")
    write("quotes.csv", b'"a",b\n"c""d",e\n')
    write("na.csv", b'NA,1\n2,NA\n"NA",3\nna,4\n')
    write("wide.csv", b"0,1,2,3,4\n10,11,12,13,14\n")
    write("ragged.csv", b"0,1,2\n10,11\n20\n30,31,32,33\n")
    write("newline_in_quotes.csv", b'"line1\nline2",1\n"x\r\ny",2\n"",3\n')
    write("quote_inside.csv", b'1,"ab"c\n2,ok\n')
    write("unterminated.csv", b'1,ok\n2,"abc')
    write("unquoted_quote.csv", b'1,ab"c\n2,ok\n')
    write("quote_then_space.csv", b'1,"ab" \n2,ok\n')
    write("field_count.csv", b"1,2\n3\n4,5,6\n7,8\n")
    write("bad_numbers.csv", b"x,1,1.0,1\n1.5,1,1.0,1\n2147483648,1,1.0,1\n"
          b"1,9223372036854775808,1.0,1\n1,1,y,1\n1,1,1.0,z\n 7 ,+8,  -1.5e2,0x10\n")
    write("floats.csv", b"nan,inf,-inf,1e-50,3.4028236e38,0x1p-2\n")
    write("empty_lines.csv", b"1\n\n2\n\n")
    write("empty_lines2.csv", b"1,2\n\n3,4\n")
    write("trailing_delim.csv", b"1,2,\n3,4,\n")
    write("empty.csv", b"")
    write("only_newline.csv", b"\n")
    write("long_fields.csv", b'"' + b"x" * 50 + b'",' + b"7" * 9 + b"\n" + b"y" * 70 + b",12\n")
    write("quoted_numbers.csv", b'"1","2.5"\n" 3",""\n')
    write("excl.csv", b"1,skip,2.5\n3,skip\n")
    write("nonutf8.csv", b"\xff\xfe,1\n")
    write("header_quoted.csv", b'"h\n1",h2\n1,2\n')
    write("header_cr.csv", b"h\r1,2\n3,4\n")
    write("header_bad_quote.csv", b'a"b\n1,2\n')
    write("header_unterminated.csv", b'"abc\n1,2\n')
    write("bad_then_eof.csv", b'x,"abc')
    write("quote_recovers.csv", b'1,"ab"c",1\n2,ok,3\n')
    write("unselected_quotes.csv", b'1,2,a"x\n4,5\n6,7,"x\n8,9\n')
    write("lone_cr.csv", b"1,2\r\r\n3,4\n\r\n5,6")
    write("select_missing.csv", b"1,,3\n4,5,6\n")
    write("mixed_errors.csv", b'x,1,2\n1,2,x\n"a""b",1\n1,"2"x\n')


def redact(msg):
    """The kernel's own message: without the graph-execution preamble and node trace; paths as
    `<DIR>`."""
    msg = msg.split("\n\t [[")[0].rstrip()
    msg = re.split(r"\nNode: '[^']*'\n", msg)[-1]
    msg = re.sub(r"^Graph execution error:\n\n", "", msg)
    return msg.replace(HERE, "<DIR>")


def default_tensor(d):
    dt = DTYPES[d["dtype"]]
    if d.get("value") is None:
        return tf.constant([], dtype=dt)
    return tf.constant([d["value"]], dtype=dt)


def py_value(v, dtype):
    if dtype in ("float32", "float64"):
        return repr(float(v))
    if dtype == "string":
        return v.decode("latin-1")
    return int(v)


def run_case(case):
    tf.compat.v1.reset_default_graph()
    files = [path(f) for f in case["files"]]
    filenames = files[0] if case.get("scalar") else tf.constant(files, dtype=tf.string)
    kw = dict(case.get("kwargs", {}))
    defaults = [default_tensor(d) for d in case["defaults"]]
    out = dict(case)
    try:
        ds = tf.data.experimental.CsvDataset(filenames, defaults, **kw)
    except Exception as e:  # noqa: BLE001
        out["build_error"] = {"error": type(e).__name__, "message": redact(str(e))}
        return out
    out["dtypes"] = [t.name for t in tf.compat.v1.data.get_output_types(ds)]
    nxt = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
    outcomes = []
    errors_after = 0
    with tf.compat.v1.Session() as sess:
        for _ in range(MAX_RUNS):
            try:
                vals = sess.run(nxt)
                outcomes.append({"value": [py_value(v, t) for v, t in zip(vals, out["dtypes"])]})
                errors_after = 0
            except tf.errors.OutOfRangeError as e:
                outcomes.append({"error": type(e).__name__, "message": redact(e.message)})
                break
            except tf.errors.OpError as e:
                outcomes.append({"error": type(e).__name__, "message": redact(e.message)})
                if len(outcomes) >= 2 and outcomes[-2] == outcomes[-1]:
                    errors_after += 1
                    if errors_after >= 3:
                        break
    out["outcomes"] = outcomes
    return out


def d(dtype, value=None):
    return {"dtype": dtype, "value": value}


I32, I64, F32, F64, S = "int32", "int64", "float32", "float64", "string"
BASIC = [d(I32, 0), d(F32, 0.0), d(S, ""), d(I64, 0), d(F64, 0.0)]

CASES = [
    {"name": "basic", "files": ["basic.csv"], "defaults": BASIC},
    {"name": "basic_scalar_filename", "files": ["basic.csv"], "scalar": True, "defaults": BASIC},
    {"name": "basic_required", "files": ["basic.csv"],
     "defaults": [d(I32), d(F32), d(S), d(I64), d(F64)]},
    {"name": "gzip", "files": ["basic.csv.gz"], "defaults": BASIC,
     "kwargs": {"compression_type": "GZIP"}},
    {"name": "zlib_small_buffer", "files": ["basic.csv.zlib"], "defaults": BASIC,
     "kwargs": {"compression_type": "ZLIB", "buffer_size": 7}},
    {"name": "small_buffer", "files": ["basic.csv", "newline_in_quotes.csv"],
     "defaults": [d(S, "")] * 2, "kwargs": {"buffer_size": 3}},
    {"name": "defaults", "files": ["defaults.csv"],
     "defaults": [d(I32, 7), d(F32, 0.5), d(S, "dflt")]},
    {"name": "defaults_f64_i64", "files": ["defaults.csv"],
     "defaults": [d(I64, -9), d(F64, 0.1), d(S, "")]},
    {"name": "required_missing", "files": ["required.csv"], "defaults": [d(I32), d(I32, 0)]},
    {"name": "required_string_missing", "files": ["defaults.csv"],
     "defaults": [d(S, "a"), d(S, "b"), d(S)]},
    {"name": "crlf", "files": ["crlf.csv"], "defaults": [d(I32, 0), d(S, "")]},
    {"name": "cr", "files": ["cr.csv"], "defaults": [d(I32, 0), d(S, "")]},
    {"name": "header", "files": ["header.csv", "header2.csv"], "defaults": [d(I64, 0)] * 2,
     "kwargs": {"header": True}},
    {"name": "no_header", "files": ["header.csv"], "defaults": [d(S, "")] * 2},
    {"name": "header_gzip_small_buffer", "files": ["header.csv.gz"], "defaults": [d(S, "")] * 2,
     "kwargs": {"header": True, "compression_type": "GZIP", "buffer_size": 5}},
    {"name": "header_empty_file", "files": ["a.csv", "empty.csv", "b.csv"],
     "defaults": [d(I32, 0), d(S, "")], "kwargs": {"header": True}},
    {"name": "two_files", "files": ["a.csv", "b.csv", "a.csv"],
     "defaults": [d(I32, 0), d(S, "")]},
    {"name": "missing_file", "files": ["a.csv", "nope.csv", "b.csv"],
     "defaults": [d(I32, 0), d(S, "")]},
    {"name": "pipe_delim", "files": ["pipe.csv"], "defaults": [d(I32, 0), d(S, ""), d(S, "-")],
     "kwargs": {"field_delim": "|"}},
    {"name": "tab_delim", "files": ["tab.csv"], "defaults": [d(F64, 0.0)] * 2,
     "kwargs": {"field_delim": "\t"}},
    {"name": "quotes", "files": ["quotes.csv"], "defaults": [d(S, "")] * 2},
    {"name": "no_quote_delim", "files": ["quotes.csv", "unterminated.csv"],
     "defaults": [d(S, "")] * 2, "kwargs": {"use_quote_delim": False}},
    {"name": "na_value", "files": ["na.csv"], "defaults": [d(I32, -1), d(I64, -2)],
     "kwargs": {"na_value": "NA"}},
    {"name": "na_value_string", "files": ["na.csv"], "defaults": [d(S, "dflt"), d(S, "")],
     "kwargs": {"na_value": "NA"}},
    {"name": "na_value_required", "files": ["na.csv"], "defaults": [d(S), d(I32, 0)],
     "kwargs": {"na_value": "NA"}},
    {"name": "select_cols", "files": ["wide.csv"], "defaults": [d(I32, 0), d(S, "")],
     "kwargs": {"select_cols": [1, 3]}},
    {"name": "select_cols_first_last", "files": ["wide.csv"], "defaults": [d(I64, 0)] * 2,
     "kwargs": {"select_cols": [0, 4]}},
    {"name": "select_cols_ragged", "files": ["ragged.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"select_cols": [0, 2]}},
    {"name": "select_cols_beyond", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"select_cols": [4, 5]}},
    {"name": "exclude_cols", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 3,
     "kwargs": {"exclude_cols": [1, 3]}},
    {"name": "exclude_cols_ragged", "files": ["ragged.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"exclude_cols": [1]}},
    {"name": "exclude_cols_short", "files": ["excl.csv"], "defaults": [d(I32, 0), d(F32, 0.0)],
     "kwargs": {"exclude_cols": [1]}},
    {"name": "exclude_cols_last", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 4,
     "kwargs": {"exclude_cols": [4]}},
    {"name": "newline_in_quotes", "files": ["newline_in_quotes.csv"],
     "defaults": [d(S, "dflt"), d(I32, 0)]},
    {"name": "newline_in_quotes_required", "files": ["newline_in_quotes.csv"],
     "defaults": [d(S), d(I32, 0)]},
    {"name": "quote_inside", "files": ["quote_inside.csv"], "defaults": [d(I32, 0), d(S, "")]},
    {"name": "quote_then_space", "files": ["quote_then_space.csv"],
     "defaults": [d(I32, 0), d(S, "")]},
    {"name": "unterminated_quote", "files": ["unterminated.csv", "b.csv"],
     "defaults": [d(I32, 0), d(S, "")]},
    {"name": "unquoted_quote", "files": ["unquoted_quote.csv"],
     "defaults": [d(I32, 0), d(S, "")]},
    {"name": "field_count", "files": ["field_count.csv"], "defaults": [d(I32, 0)] * 2},
    {"name": "bad_numbers", "files": ["bad_numbers.csv"],
     "defaults": [d(I32, 0), d(I64, 0), d(F32, 0.0), d(F64, 0.0)]},
    {"name": "floats", "files": ["floats.csv"], "defaults": [d(F32, 0.0)] * 6},
    {"name": "floats_f64", "files": ["floats.csv"], "defaults": [d(F64, 0.0)] * 6},
    {"name": "empty_lines", "files": ["empty_lines.csv"], "defaults": [d(I32, 5)]},
    {"name": "empty_lines_required", "files": ["empty_lines.csv"], "defaults": [d(I32)]},
    {"name": "empty_lines_two_cols", "files": ["empty_lines2.csv"], "defaults": [d(I32, 0)] * 2},
    {"name": "trailing_delim", "files": ["trailing_delim.csv"], "defaults": [d(I32, 0)] * 3},
    {"name": "empty_and_newline_files", "files": ["empty.csv", "only_newline.csv", "b.csv"],
     "defaults": [d(S, "e"), d(S, "f")]},
    {"name": "long_fields_small_buffer", "files": ["long_fields.csv"],
     "defaults": [d(S, ""), d(I64, 0)], "kwargs": {"buffer_size": 4}},
    {"name": "quoted_numbers", "files": ["quoted_numbers.csv"],
     "defaults": [d(I32, 0), d(F32, -1.0)]},
    {"name": "non_utf8", "files": ["nonutf8.csv"], "defaults": [d(S, ""), d(I32, 0)]},
    {"name": "header_quoted_newline", "files": ["header_quoted.csv"],
     "defaults": [d(I32, 0)] * 2, "kwargs": {"header": True}},
    {"name": "header_ends_at_cr", "files": ["header_cr.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"header": True}},
    {"name": "header_bad_quote", "files": ["header_bad_quote.csv", "header_cr.csv"],
     "defaults": [d(I32, 0)] * 2, "kwargs": {"header": True}},
    {"name": "header_unterminated", "files": ["header_unterminated.csv", "header_cr.csv"],
     "defaults": [d(I32, 0)] * 2, "kwargs": {"header": True}},
    {"name": "header_empty_then_more", "files": ["empty.csv", "header.csv"],
     "defaults": [d(I32, 0)] * 2, "kwargs": {"header": True}},
    {"name": "header_gzip_two_files", "files": ["header.csv.gz", "basic.csv.gz"],
     "defaults": [d(S, "")] * 2, "kwargs": {"header": True, "compression_type": "GZIP",
                                            "select_cols": [0, 1]}},
    {"name": "bad_value_before_unterminated_quote", "files": ["bad_then_eof.csv", "a.csv"],
     "defaults": [d(I32, 0), d(S, "")]},
    {"name": "quote_inside_recovers", "files": ["quote_recovers.csv"],
     "defaults": [d(S, "")] * 3},
    {"name": "quote_errors_in_unselected_columns", "files": ["unselected_quotes.csv"],
     "defaults": [d(I32, 0)] * 2, "kwargs": {"select_cols": [0, 1]}},
    {"name": "lone_cr_records", "files": ["lone_cr.csv"], "defaults": [d(I32, 0)] * 2},
    {"name": "select_cols_required_missing", "files": ["select_missing.csv"],
     "defaults": [d(I32), d(I32, 0)], "kwargs": {"select_cols": [1, 2]}},
    {"name": "mixed_errors", "files": ["mixed_errors.csv"], "defaults": [d(I32, 0)] * 2},
    {"name": "delim_is_newline", "files": ["empty_lines.csv"], "defaults": [d(I32, 0)],
     "kwargs": {"field_delim": "\n"}},
    {"name": "no_files", "files": [], "defaults": [d(I32, 0)]},
    # Argument errors.
    {"name": "err_select_not_increasing", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"select_cols": [3, 1]}},
    {"name": "err_select_duplicate", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"select_cols": [1, 1]}},
    {"name": "err_select_negative", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"select_cols": [-1, 1]}},
    {"name": "err_select_size", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"select_cols": [0, 1, 2]}},
    {"name": "err_select_and_exclude", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 2,
     "kwargs": {"select_cols": [0, 1], "exclude_cols": [2]}},
    {"name": "err_exclude_not_increasing", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 3,
     "kwargs": {"exclude_cols": [3, 1]}},
    {"name": "err_exclude_negative", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 3,
     "kwargs": {"exclude_cols": [-2, 1]}},
    {"name": "err_delim_two_chars", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 5,
     "kwargs": {"field_delim": "||"}},
    {"name": "err_delim_empty", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 5,
     "kwargs": {"field_delim": ""}},
    {"name": "err_buffer_zero", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 5,
     "kwargs": {"buffer_size": 0}},
    {"name": "err_buffer_negative", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 5,
     "kwargs": {"buffer_size": -1}},
    {"name": "err_compression", "files": ["wide.csv"], "defaults": [d(I32, 0)] * 5,
     "kwargs": {"compression_type": "LZ4"}},
    {"name": "err_gzip_on_plain", "files": ["a.csv"], "defaults": [d(I32, 0), d(S, "")],
     "kwargs": {"compression_type": "GZIP"}},
]


def main():
    make_files()
    results = []
    for case in CASES:
        results.append(run_case(case))
    with open(path("expected.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": results}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    tf.compat.v1.disable_eager_execution()
    main()
