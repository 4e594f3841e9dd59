"""Writes expected.json: what TensorFlow 2.21 (tf.compat.v1 graph mode) returns for
`tf.io.matching_files` over a folder tree of FILES and DIRS (created in a temporary folder; the
test makes the same ones). Patterns and results spell the folder as {root}; a pattern without
{root} is relative and runs with the folder as the working directory.

Each case: {"name", "pattern" (a string or a list of them), "files" (sorted output)} or
{"name", "pattern", "error": {"code", "message"}} for a kernel error (the pattern fed through a
placeholder) or "build_error" for a shape-function error.

Run: ~/.cache/weir-bench/venv/bin/python make_matching_files.py
"""
import json
import os
import tempfile

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

DIRS = ["sub", "sub2", "sub2/deep", "sub3", "emptydir", "x.dir"]
FILES = ["a.txt", "b.txt", "c.dat", ".hidden", "sp ace.txt", "br[1].txt", "q?.txt", "star*.txt",
         "back\\slash.txt", "sub/x.txt", "sub/y.csv", "sub2/x.txt", "sub2/deep/z.txt",
         "sub3/x.txt", "x.dir/inner.txt", "A.TXT", "a.txt.bak"]
ROOT = tempfile.mkdtemp()
for d in DIRS:
    os.makedirs(os.path.join(ROOT, d), exist_ok=True)
for f in FILES:
    with open(os.path.join(ROOT, f), "w") as out:
        out.write(f)

R = "{root}"
CASES = [
    ("star_txt", R + "/*.txt"),
    ("star", R + "/*"),
    ("question", R + "/?.txt"),
    ("bracket_range", R + "/[a-b].txt"),
    ("bracket_negated", R + "/[!a].txt"),
    ("bracket_caret", R + "/[^a].txt"),
    ("bracket_unclosed", R + "/br[1.txt"),
    ("escaped_bracket", R + "/br\\[1].txt"),
    ("escaped_question", R + "/q\\?.txt"),
    ("escaped_star", R + "/star\\*.txt"),
    ("bracket_with_bracket", R + "/br[[]1].txt"),
    ("star_in_middle", R + "/s*b/x.txt"),
    ("two_levels", R + "/sub*/x.txt"),
    ("three_levels", R + "/*/*/*.txt"),
    ("dir_level_then_fixed", R + "/sub*/deep/z.txt"),
    ("trailing_slash_glob", R + "/sub*/"),
    ("trailing_slash_fixed", R + "/sub/"),
    ("no_wildcard_exists", R + "/a.txt"),
    ("no_wildcard_missing", R + "/nope.txt"),
    ("no_wildcard_dir", R + "/sub"),
    ("missing_dir_glob", R + "/nodir/*"),
    ("glob_under_file", R + "/a.txt/*"),
    ("empty_dir", R + "/emptydir/*"),
    ("case_sensitive", R + "/*.TXT"),
    ("dotted_dir", R + "/*.dir/*"),
    ("hidden", R + "/.h*"),
    ("space", R + "/sp*"),
    ("double_slash", R + "//*.dat"),
    ("many_stars", R + "/**.txt"),
    ("star_suffix", R + "/a.txt*"),
    ("empty", ""),
    ("list", [R + "/b*", R + "/a*"]),
    ("list_duplicates", [R + "/*.dat", R + "/c*"]),
    ("list_empty", []),
    ("relative_star", "*.dat"),
    ("relative_first_level_glob", "*/x.txt"),
    ("relative_fixed_dir", "sub/*.csv"),
    ("relative_dot", "./sub/*.csv"),
    ("relative_no_wildcard", "a.txt"),
    ("relative_trailing_slash", "sub/"),
]


def sub(p):
    return p.replace(R, ROOT)


def unsub(p):
    return p.replace(ROOT, R)


def message(e):
    """TensorFlow's own message, without the traceback or the `[[{{node ...}}]]` suffix."""
    msg = e.message
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    return msg.split("\n\t [[")[0].strip()


out = []
old = os.getcwd()
os.chdir(ROOT)
for name, pattern in CASES:
    value = [sub(p) for p in pattern] if isinstance(pattern, list) else sub(pattern)
    tf1.reset_default_graph()
    t = tf.io.matching_files(tf1.constant(value, dtype=tf.string) if isinstance(value, list) else value)
    with tf1.Session() as s:
        got = s.run(t)
    out.append({"name": name, "pattern": pattern,
                "files": [unsub(f.decode()) for f in got]})

# Errors: a rank-2 pattern at graph construction, and fed.
tf1.reset_default_graph()
try:
    tf.io.matching_files([[ROOT + "/*"]])
    raise SystemExit("no build error")
except ValueError as e:
    msg = str(e).split(" for '{{node ")[0]
    out.append({"name": "rank2_build", "pattern": [[R + "/*"]],
                "build_error": {"code": 3, "message": msg}})
tf1.reset_default_graph()
ph = tf1.placeholder(tf.string)
t = tf.io.matching_files(ph)
with tf1.Session() as s:
    try:
        s.run(t, {ph: [[ROOT + "/*"]]})
        raise SystemExit("no run error")
    except tf.errors.InvalidArgumentError as e:
        out.append({"name": "rank2_fed", "pattern": [[R + "/*"]], "fed": True,
                    "error": {"code": 3, "message": message(e)}})
os.chdir(old)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump({"dirs": DIRS, "files": FILES, "cases": out}, f, indent=1)
print(len(out), "cases")
