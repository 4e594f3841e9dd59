//! `Cast` between every pair of numeric, half, complex and bool dtypes against TensorFlow 2.21,
//! bit for bit (tests/data/dtypes, `op: "cast"`): NaN, ±inf, -0.0, values halfway between two
//! float16/bfloat16 numbers, float64 values that round twice on the way to a half type, complex
//! to real and bool, huge integers to float16. Float values outside an integer target's range
//! are left out: TensorFlow's result for them is undefined (it differs between its vectorized
//! and scalar paths), and weir saturates.

use weir_graph::Graph;
use weir_ops::{array::constant, math::cast};
use weir_session::Session;

use super::dtypes_util::{cases, check_each, check_outcome, dtype_named, spec_tensor};
use super::io_util::run;

#[test]
fn cast_matches_tensorflow_bit_for_bit() {
    check_each(&cases("cast"), |c| {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let x = constant(&g, spec_tensor(&c["x"])).unwrap();
        let y = cast(x, dtype_named(&c["dst"])).unwrap();
        let got = run(&Session::new(&g).unwrap(), &[&y]);
        check_outcome(name, c, got);
    });
}

#[test]
fn cast_from_string_is_unimplemented_with_tensorflows_message() {
    check_each(&cases("cast_string"), |c| {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let got = constant(&g, "1")
            .and_then(|x| cast(x, dtype_named(&c["dst"])))
            .and_then(|y| run(&Session::new(&g)?, &[&y]));
        check_outcome(name, c, got);
    });
}
