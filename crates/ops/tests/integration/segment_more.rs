//! `UnsortedSegmentMax/Min/Prod` and `UnsortedSegmentJoin` against TensorFlow 2.21: every case
//! of tests/data/segment_more/expected.json (made by make_segment_more.py there): values
//! exactly (max, min and join pick inputs; the products of a few small floats are exact in
//! both float types, and both multiply in input order), static shapes as TensorFlow infers
//! them, and errors with TensorFlow's code and message. Where TensorFlow's shape function
//! raises a ValueError (constant inputs), weir must fail with InvalidArgument at build or run
//! time, with TensorFlow's message up to its node description.

mod build;

use build::{assert_tensor, build, cases};
use weir_graph::{Code, Graph, Shape};
use weir_session::{RunArgs, Session};

#[test]
fn unsorted_segment_ops_match_tensorflow() {
    let (mut values, mut errors) = (0, 0);
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let result = build(&g, case).and_then(|b| {
            if let Some(s) = case.get("static_shape").filter(|s| !s.is_null()) {
                let dims: Vec<Option<usize>> = s
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| usize::try_from(d.as_i64().unwrap()).ok())
                    .collect();
                assert_eq!(b.output.shape(), Shape::new(dims), "{name}: static shape");
            }
            let sess = Session::new(&g)?;
            let mut args = RunArgs::new().fetch(&b.output);
            for (p, t) in &b.feeds {
                args = args.feed(p, t.clone());
            }
            Ok(sess.run(&args)?.remove(0))
        });
        match (case.get("error"), result) {
            (None, Ok(got)) => {
                assert_tensor(name, &got, &case["output"], 0.0);
                values += 1;
            }
            (None, Err(e)) => panic!("{name}: {e}"),
            (Some(err), Ok(got)) => {
                panic!("{name}: TensorFlow fails with {err}, weir gives {got:?}")
            }
            (Some(err), Err(e)) => {
                let want = err["message"].as_str().unwrap();
                assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
                if err["type"] == "InvalidArgumentError" {
                    assert_eq!(e.message(), want, "{name}");
                } else {
                    assert!(
                        want.starts_with(&format!("{} for '", e.message())),
                        "{name}: weir says {:?}, TensorFlow {want:?}",
                        e.message()
                    );
                }
                errors += 1;
            }
        }
    }
    assert_eq!((values, errors), (38, 30), "case counts");
}

#[test]
fn negative_ids_drop_slices_under_tensorflows_node_name() {
    use weir_ops::array::constant;
    use weir_ops::math::unsorted_segment_prod;
    let g = Graph::new();
    let data = constant(&g, [2.0f32, 3.0, 5.0]).unwrap();
    let ids = constant(&g, [0, -1, 0]).unwrap();
    let y = unsorted_segment_prod(&data, &ids, constant(&g, 2).unwrap()).unwrap();
    let got = Session::new(&g).unwrap().eval(&y).unwrap();
    assert_eq!(got.to_vec::<f32>().unwrap(), [10.0, 1.0]);
    assert_eq!(y.op().name(), "UnsortedSegmentProd");
}
