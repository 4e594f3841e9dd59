"""Writes expected.json: what TensorFlow 2.21's tf.io.decode_json_example gives for each case.

Run with the bench venv: $HOME/.cache/weir-bench/venv/bin/python make_decode_json_example.py
A list of cases; inputs and outputs are base64; an error case records TF's error class and its
message line. Written with TensorFlow 2.21.0.
"""
import base64
import json
import re

import tensorflow as tf

v1 = tf.compat.v1
v1.disable_eager_execution()


def ex(feature_json):
    return ('{"features":{"feature":%s}}' % feature_json).encode()


def one(kind, values):
    return ex('{"f":{"%s":{"value":%s}}}' % (kind, values))


CASES = [
    ("empty_object", [b"{}"]),
    ("empty_features", [b'{"features":{}}']),
    ("empty_feature_map", [ex("{}")]),
    ("int64_camel", [one("int64List", '["1","-2","3"]')]),
    ("int64_snake", [one("int64_list", '["1","-2","3"]')]),
    ("int64_numbers", [one("int64List", "[1,-2,0,9007199254740993]")]),
    ("int64_extremes_strings", [one("int64List", '["9223372036854775807","-9223372036854775808"]')]),
    ("int64_overflow_string", [one("int64List", '["9223372036854775808"]')]),
    ("int64_overflow_number", [one("int64List", "[9223372036854775808]")]),
    ("int64_underflow_string", [one("int64List", '["-9223372036854775809"]')]),
    ("int64_float_number", [one("int64List", "[1.5]")]),
    ("int64_float_integral", [one("int64List", "[2.0]")]),
    ("int64_exponent", [one("int64List", "[1e3]")]),
    ("int64_exponent_string", [one("int64List", '["1e3"]')]),
    ("int64_string_float", [one("int64List", '["1.0"]')]),
    ("int64_string_spaces", [one("int64List", '[" 1"]')]),
    ("int64_string_plus", [one("int64List", '["+1"]')]),
    ("int64_string_hex", [one("int64List", '["0x10"]')]),
    ("int64_string_empty", [one("int64List", '[""]')]),
    ("int64_string_leading_zero", [one("int64List", '["007"]')]),
    ("int64_bool", [one("int64List", "[true]")]),
    ("int64_null_item", [one("int64List", "[null]")]),
    ("int64_not_list", [one("int64List", '"1"')]),
    ("int64_single_number", [one("int64List", "5")]),
    ("int64_empty", [one("int64List", "[]")]),
    ("int64_list_null", [ex('{"f":{"int64List":null}}')]),
    ("int64_value_null", [one("int64List", "null")]),
    ("int64_list_empty_object", [ex('{"f":{"int64List":{}}}')]),
    ("float_numbers", [one("floatList", "[1.5,-0.25,0,3,1e10,1E-3,-0.0]")]),
    ("float_snake", [one("float_list", "[1.5]")]),
    ("float_strings", [one("floatList", '["1.5","-2","1e3"]')]),
    ("float_special", [one("floatList", '["NaN","Infinity","-Infinity"]')]),
    ("float_special_lower", [one("floatList", '["nan"]')]),
    ("float_inf_word", [one("floatList", '["inf"]')]),
    ("float_bare_nan", [one("floatList", "[NaN]")]),
    ("float_too_big", [one("floatList", "[1e39]")]),
    ("float_too_big_string", [one("floatList", '["1e39"]')]),
    ("float_max", [one("floatList", "[3.4028235e38]")]),
    ("float_tiny", [one("floatList", "[1e-50]")]),
    ("float_rounding", [one("floatList", "[0.1,16777217,3.14159265358979]")]),
    ("float_huge_double", [one("floatList", "[1e400]")]),
    ("float_bool", [one("floatList", "[false]")]),
    ("float_string_garbage", [one("floatList", '["abc"]')]),
    ("float_int_big", [one("floatList", "[9223372036854775807]")]),
    ("bytes_padded", [one("bytesList", '["aGVsbG8=","","YQ=="]')]),
    ("bytes_unpadded", [one("bytesList", '["aGVsbG8","YQ","YWI"]')]),
    ("bytes_snake", [one("bytes_list", '["aGk="]')]),
    ("bytes_urlsafe", [one("bytesList", '["-_-_","__8="]')]),
    ("bytes_mixed_alphabet", [one("bytesList", '["+_8="]')]),
    ("bytes_invalid_char", [one("bytesList", '["a*bc"]')]),
    ("bytes_bad_length", [one("bytesList", '["abcde"]')]),
    ("bytes_one_char", [one("bytesList", '["a"]')]),
    ("bytes_extra_padding", [one("bytesList", '["YQ==="]')]),
    ("bytes_padding_middle", [one("bytesList", '["YQ==YQ=="]')]),
    ("bytes_single_pad", [one("bytesList", '["YQ="]')]),
    ("bytes_nonzero_tail_bits", [one("bytesList", '["YR=="]')]),
    ("bytes_whitespace", [one("bytesList", '["YW Jj"]')]),
    ("bytes_number", [one("bytesList", "[12]")]),
    ("bytes_binary", [one("bytesList", '["AAH/gA=="]')]),
    ("feature_no_kind", [ex('{"f":{}}')]),
    ("feature_null", [ex('{"f":null}')]),
    ("feature_two_kinds", [ex('{"f":{"int64List":{"value":["1"]},"floatList":{"value":[1]}}}')]),
    ("feature_same_kind_twice", [ex('{"f":{"int64List":{"value":["1"]},"int64List":{"value":["2"]}}}')]),
    ("several_features_sorted", [ex('{"a":{"int64List":{"value":["1"]}},"b":{"floatList":{"value":[2]}},"c":{"bytesList":{"value":["Yw=="]}}}')]),
    ("several_features_reverse", [ex('{"z":{"int64List":{"value":["1"]}},"m":{"floatList":{"value":[2]}},"a":{"bytesList":{"value":["Yw=="]}}}')]),
    ("several_features_mixed", [ex('{"bb":{"int64List":{"value":["1"]}},"a":{},"ab":{"int64List":{}},"b":{"int64List":{"value":["2"]}}}')]),
    ("duplicate_feature_key", [ex('{"k":{"int64List":{"value":["1"]}},"k":{"int64List":{"value":["2"]}}}')]),
    ("duplicate_features_field", [b'{"features":{"feature":{"a":{}}},"features":{"feature":{"b":{}}}}']),
    ("duplicate_feature_field", [b'{"features":{"feature":{"a":{}},"feature":{"b":{}}}}']),
    ("duplicate_value_field", [ex('{"f":{"int64List":{"value":["1"],"value":["2"]}}}')]),
    ("unknown_top_field", [b'{"foo":1}']),
    ("unknown_features_field", [b'{"features":{"bar":{}}}']),
    ("unknown_feature_field", [ex('{"f":{"stringList":{}}}')]),
    ("unknown_list_field", [ex('{"f":{"int64List":{"values":["1"]}}}')]),
    ("features_null", [b'{"features":null}']),
    ("feature_map_null", [b'{"features":{"feature":null}}']),
    ("features_string", [b'{"features":"x"}']),
    ("features_array", [b'{"features":[]}']),
    ("feature_map_array", [b'{"features":{"feature":[]}}']),
    ("feature_string", [ex('{"f":"x"}')]),
    ("feature_number", [ex('{"f":1}')]),
    ("top_array", [b"[]"]),
    ("top_string", [b'"x"']),
    ("top_number", [b"1"]),
    ("top_null", [b"null"]),
    ("empty_string", [b""]),
    ("whitespace_only", [b"   "]),
    ("whitespace_around", [b' \n\t{ "features" : { } } \r\n']),
    ("truncated", [b'{"features":{"feature":{"a":']),
    ("truncated_string", [b'{"features']),
    ("trailing_garbage", [b"{} x"]),
    ("trailing_object", [b"{}{}"]),
    ("trailing_comma_object", [b'{"features":{},}']),
    ("trailing_comma_array", [one("int64List", '["1",]')]),
    ("missing_colon", [b'{"features" {}}']),
    ("single_quotes", [b"{'features':{}}"]),
    ("unquoted_key", [b"{features:{}}"]),
    ("comment", [b"{/*x*/}"]),
    ("non_utf8", [b'{"features":{"feature":{"\xff":{}}}}']),
    ("non_utf8_outside", [b"\xff{}"]),
    ("non_ascii_key", [ex('{"caf\xc3\xa9":{"int64List":{"value":["1"]}}}'.replace("\\xc3\\xa9", "\u00e9"))]),
    ("unicode_escape_key", [ex('{"\\u00e9\\ud83d\\ude00\\n":{}}')]),
    ("lone_surrogate_key", [ex('{"\\ud800":{}}')]),
    ("bad_escape", [ex('{"\\q":{}}')]),
    ("escaped_field_name", [b'{"\\u0066eatures":{}}']),
    ("control_char_in_string", [ex('{"a\x01":{}}')]),
    ("deep_nesting", [b"[" * 200 + b"]" * 200]),
    ("deep_nesting_unknown", [b'{"x":' + b"[" * 200 + b"]" * 200 + b"}"]),
    ("deep_nesting_value", [one("int64List", "[" * 120 + "]" * 120)]),
    ("empty_key", [ex('{"":{"int64List":{"value":["1"]}}}')]),
    ("big_values", [one("int64List", json.dumps([str(i * 1000003 - 5000) for i in range(300)]))]),
    ("long_key", [ex('{"%s":{}}' % ("k" * 300))]),
    ("int64_string_hex_forms", [one("int64List", '["0x1F","0X1f","-0x10","0xffffffffffffffff"]')]),
    ("int64_string_hex_empty", [one("int64List", '["0x"]')]),
    ("int64_string_binary", [one("int64List", '["0b1"]')]),
    ("int64_string_underscore", [one("int64List", '["1_0"]')]),
    ("int64_string_plus_minus", [one("int64List", '["+-1"]')]),
    ("int64_string_inf", [one("int64List", '["inf"]')]),
    ("int64_string_big_exponent", [one("int64List", '["1e400"]')]),
    ("int64_string_2pow53", [one("int64List", '["9007199254740993.0","-9007199254740992.0"]')]),
    ("int64_string_2pow53_over", [one("int64List", '["9007199254740994.0"]')]),
    ("int64_number_big_float", [one("int64List", "[1e18]")]),
    ("int64_number_leading_zero", [one("int64List", "[01]")]),
    ("int64_number_trailing_period", [one("int64List", "[1.]")]),
    ("int64_number_minus_only", [one("int64List", "[-]")]),
    ("int64_number_plus", [one("int64List", "[+1]")]),
    ("int64_number_junk_after", [one("int64List", "[1x]")]),
    ("int64_number_space_junk", [one("int64List", "[1 2]")]),
    ("int64_negative_zero", [one("int64List", '[-0,"-0"]')]),
    ("float_string_forms", [one("floatList", '[" 1.5 ","+1",".5","5.","1e-400","1E2"]')]),
    ("float_string_inf_forms", [one("floatList", '["INF","infinity","-inf","1e400"]')]),
    ("float_string_neg_nan", [one("floatList", '["-nan"]')]),
    ("float_string_nan_payload", [one("floatList", '["nan(1)"]')]),
    ("float_string_hex", [one("floatList", '["0x10"]')]),
    ("float_string_trailing_e", [one("floatList", '["1e"]')]),
    ("float_string_empty", [one("floatList", '[""]')]),
    ("float_number_fraction_forms", [one("floatList", "[-1.5e-3,2E+2,0.0]")]),
    ("float_nested_arrays", [one("floatList", "[[1,[2]],[],3]")]),
    ("float_null_item", [one("floatList", "[null,1]")]),
    ("bytes_null_item", [one("bytesList", '[null,"YQ=="]')]),
    ("bytes_single_string", [one("bytesList", '"YQ=="')]),
    ("bytes_nested_arrays", [one("bytesList", '[["YQ=="],"Yg=="]')]),
    ("int64_nested_arrays", [one("int64List", '[[1,2],[[3]],"4"]')]),
    ("float_single_number", [one("floatList", "2.5")]),
    ("oneof_then_null", [ex('{"f":{"int64List":{"value":["1"]},"floatList":null}}')]),
    ("oneof_null_then_set", [ex('{"f":{"int64List":null,"floatList":{"value":[1]}}}')]),
    ("mixed_case_names", [ex('{"f":{"Int64List":{"value":["1"]}}}')]),
    ("json_name_features_caps", [b'{"Features":{}}']),
    ("bad_continuation_byte", [ex('{"a__":{}}').replace(b"__", b"\xc3(")]),
    ("truncated_utf8_at_end", [b'{"features":{"feature":{"a\xc3']),
    ("escape_after_surrogate", [ex(r'{"\u00e9\ud800x":{}}')]),
    ("bad_unicode_escape", [ex(r'{"\u00g9":{}}')]),
    ("unpaired_low_surrogate", [ex(r'{"x\udc00":{}}')]),
    ("bad_low_surrogate", [ex(r'{"\ud800\u0041":{}}')]),
    ("escape_forms", [ex(r'{"\"\/\b\f\n\r\t\'\U00e9":{}}')]),
    ("single_quoted_values", [ex(r"""{'f':{'bytesList':{'value':['YQ==', 'a"b', "Y\'Q=="]}}}""")]),
    ("bare_word_key_digit", [b"{1a:{}}"]),
    ("bare_word_key_null", [b"{null:{}}"]),
    ("missing_comma", [b'{"features":{} "x":1}']),
    ("truncated_after_value", [b'{"features":{}']),
    ("truncated_after_comma", [b'{"features":{},']),
    ("leading_comma", [b'{,"features":{}}']),
    ("double_comma", [b'{"features":{},,}']),
    ("array_double_comma", [one("int64List", '[1,,2]')]),
    ("array_missing_comma", [one("int64List", '[1 "2"]')]),
    ("array_leading_comma", [one("int64List", '[,1]')]),
    ("bad_literal", [ex('{"f":nul}')]),
    ("bad_true", [one("int64List", "[tru]")]),
    ("newlines_position", [b'{\n  "features": {\n    "foo": 1\n  }\n}']),
    ("crlf_position", [b'{\r\n"features":\r\n{"x":1}}']),
    ("null_top_fields", [b'{"features":{"feature":{"a":null,"b":{"bytesList":null}}}}']),
    ("deep_nesting_ok", [one("int64List", "[" * 95 + "1" + "]" * 95)]),
    ("deep_nesting_limit", [one("int64List", "[" * 96 + "1" + "]" * 96)]),
    ("unknown_in_list", [ex('{"f":{"floatList":{"value":[1],"x":2}}}')]),
    ("oneof_same_key_different_case", [ex('{"f":{"int64List":{},"int64_list":{}}}')]),
    ("float_string_hex_forms", [one("floatList", '["0x1.8p1","-0x10","0x1p3","0XaP-1"]')]),
    ("float_near_max", [one("floatList", '[3.4028235677e38,"-3.4028235677e38"]')]),
    ("float_just_over_max", [one("floatList", "[3.40282357e38]")]),
    ("float_negative_zero_string", [one("floatList", '["-0"]')]),
    ("int64_string_vertical_tab", [one("int64List", r'["\u000b1"]')]),
    ("int64_number_exponent_forms", [one("int64List", "[1E2,-0.0,2e-0]")]),
    ("surrogate_pair_with_space", [ex(r'{"\ud83d \ude00":{}}')]),
    ("max_codepoint_escape", [ex(r'{"\udbff\udfff":{}}')]),
    ("utf8_above_max", [ex('{"__":{}}').replace(b"__", b"\xf5\x80\x80\x80")]),
    ("utf8_overlong", [ex('{"__":{}}').replace(b"__", b"\xc0\x80")]),
    ("control_chars_in_string", [ex('{"a\tb\nc":{}}')]),
    ("location_after_number", [ex('{"a":{"int64List":{"value":12345}},"a":{}}')]),
    ("number_then_braces_eof", [ex('{"a":{"int64List":{"value":1')]),
    ("number_then_space_eof", [b'{"features":{"feature":{"a":{"int64List":{"value":1 ']),
    ("number_eof_bare", [b'{"features":{"feature":{"a":{"int64List":{"value":1']),
    ("trailing_whitespace", [ex('{"a":{"int64List":{"value":[1]}}}') + b" \n\t\r"]),
    ("bare_word_keys", [b"{features:{feature:{a_1:{floatList:{value:[1]}},b:{int64_list:{value:2}}}}}"]),
    ("string_then_junk", [one("bytesList", '["YQ==" x]')]),
    ("batch_one_bad", [b"{}", b"{", b"{}"]),
    ("batch_two_bad", [b"[]", b"{"]),
    ("batch_good", [one("int64List", '["1"]'), b"{}", one("floatList", "[2]")]),
]

SHAPED = [
    ("scalar", one("bytesList", '["c2NhbGFy"]')),
    ("empty_batch", []),
    ("matrix", [[b"{}", one("int64List", '["1"]')], [one("floatList", "[0.5]"), ex("{}")]]),
]


def b64(b):
    return base64.b64encode(b).decode()


def flat(x):
    if isinstance(x, (bytes, bytearray)):
        return [bytes(x)]
    return [b for row in x for b in flat(row)]


def message(raw):
    """The message line, with runs of spaces collapsed: protobuf's JSON parser builds its
    messages with randomly doubled or tripled spaces (differing from run to run, to keep
    callers from depending on the exact text), so only the single-spaced text is stable.
    Stored as text, or as base64 when it quotes bytes that are not UTF-8."""
    lines = [l for l in raw.split(b"\n") if l and not l.startswith(b"\t")]
    line = re.sub(b" +", b" ", lines[-1])
    try:
        return {"message": line.decode()}
    except UnicodeDecodeError:
        return {"message_b64": b64(line)}


def run(inp):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(inp, dtype=tf.string)
        y = tf.io.decode_json_example(x)
        static = None if y.shape.rank is None else [d for d in y.shape.as_list()]
        with v1.Session() as s:
            try:
                out = s.run(y)
            except tf.errors.OpError as e:
                return {"static_shape": static, "error": type(e).__name__, **message(e.message.encode())}
            except UnicodeDecodeError as e:
                # The message quotes input bytes that are not UTF-8, so Python cannot decode the
                # status; the raw message is in the exception. The op's errors are all
                # InvalidArgument ("Error while parsing JSON: ...").
                return {"static_shape": static, "error": "InvalidArgumentError", **message(e.object)}
        shape = list(getattr(out, "shape", ()))
        vals = flat(out.tolist() if hasattr(out, "tolist") else out)
        return {"static_shape": static, "shape": shape, "values": [b64(v) for v in vals]}


cases = []
for name, inp in CASES + SHAPED:
    r = run(inp)
    r["shape_in"] = list(tf.constant(inp, dtype=tf.string).shape.as_list()) if inp != [] else [0]
    r.update({"name": name, "inputs": [b64(b) for b in flat(inp)]})
    cases.append(r)

with open("expected.json", "w") as f:
    json.dump(cases, f, indent=0, sort_keys=True)
    f.write("\n")
print(len(cases), "cases")
