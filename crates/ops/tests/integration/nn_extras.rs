//! The nn extras against TensorFlow 2.21's values (`data/nn_extras/expected.json`):
//! embedding_lookup (one table and "mod"/"div" shards, max_norm), embedding_lookup_sparse
//! (every combiner, weighted or not, sharded, max_norm), the sparse segment reductions, the
//! norm clips, l2_normalize, conv2d_transpose, depthwise_conv2d and separable_conv2d. Every
//! case runs with static input shapes and again with unknown ones.

#[path = "nn_extras_build.rs"]
pub(crate) mod build;

use weir_graph::{Code, DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::{self, EmbeddingLookup, Padding};
use weir_session::Session;

use build::{assert_close, cases};

#[test]
fn values_match_tensorflow() -> Result<()> {
    let all = cases();
    assert!(all.len() >= 60, "{} cases", all.len());
    for case in &all {
        for dynamic in [false, true] {
            let what = format!("{} (dynamic shapes: {dynamic})", case.label());
            let built = build::build(case, dynamic).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            assert_eq!(built.ys.len(), case.outputs.len(), "{what}");
            if !dynamic {
                for (y, want) in built.ys.iter().zip(&case.outputs) {
                    assert!(
                        y.shape().is_compatible_with_dims(want.shape()),
                        "{what}: static shape {} vs {:?}",
                        y.shape(),
                        want.shape()
                    );
                }
            }
            let got = built
                .run(&built.ys)
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            for (i, (g, w)) in got.iter().zip(&case.outputs).enumerate() {
                assert_close(g, w, &format!("{what} output {i}"));
            }
        }
    }
    Ok(())
}

#[test]
fn node_names_follow_tensorflow() -> Result<()> {
    let g = Graph::new();
    let p = placeholder(&g, DType::F32, Shape::known(&[5, 3]))?;
    let ids = constant(&g, [0i32, 4])?;
    let y = nn::embedding_lookup(std::slice::from_ref(&p), &ids)?;
    assert_eq!(y.name(), "embedding_lookup/Identity:0");
    assert_eq!(y.op().inputs()[0].name(), "embedding_lookup:0");
    let y = EmbeddingLookup::new().build(&[p.clone(), p.clone()], &ids)?;
    assert_eq!(y.op().op_type(), "Reshape");
    assert!(g.operation_by_name("embedding_lookup_1").is_some());
    let x = placeholder(&g, DType::F32, Shape::known(&[1, 4, 4, 2]))?;
    let w = placeholder(&g, DType::F32, Shape::known(&[3, 3, 2, 2]))?;
    let d = nn::depthwise_conv2d(&x, &w, [1, 1, 1, 1], Padding::Same, Some([2, 2]))?;
    assert_eq!(d.name(), "depthwise:0");
    assert_eq!(d.op().op_type(), "DepthwiseConv2dNative");
    assert_eq!(d.op().attr::<Vec<i64>>("dilations")?, vec![1, 2, 2, 1]);
    Ok(())
}

#[test]
fn runtime_errors_have_tensorflow_kinds() -> Result<()> {
    let g = Graph::new();
    let table = constant(&g, Tensor::from_vec(&[3, 2], vec![1.0f32; 6])?)?;
    let sess = Session::new(&g)?;
    // An id past the table: the gather's InvalidArgument.
    let y = nn::embedding_lookup(std::slice::from_ref(&table), constant(&g, [5i32])?)?;
    let e = sess.eval(&y).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("indices[0] = 5 is not in [0, 3)"),
        "{}",
        e.message()
    );
    let y = nn::embedding_lookup(&[table.clone(), table.clone()], constant(&g, [-1i32])?)?;
    assert_eq!(sess.eval(&y).unwrap_err().code(), Code::InvalidArgument);
    // conv2d_transpose to an output_shape the value does not come from.
    let v = constant(&g, Tensor::from_vec(&[1, 3, 3, 2], vec![1.0f32; 18])?)?;
    let f = constant(&g, Tensor::from_vec(&[2, 2, 4, 2], vec![1.0f32; 32])?)?;
    let y = nn::conv2d_transpose(&v, &f, [1, 5, 5, 4], [1, 1, 1, 1], Padding::Same)?;
    assert_eq!(sess.eval(&y).unwrap_err().code(), Code::InvalidArgument);
    // Depthwise channels that only disagree at run time.
    let x = placeholder(&g, DType::F32, Shape::unknown())?;
    let w = constant(&g, Tensor::from_vec(&[1, 1, 3, 1], vec![1.0f32; 3])?)?;
    let y = nn::depthwise_conv2d_native(&x, &w, [1, 1, 1, 1], Padding::Same)?;
    let run = |t: Tensor| sess.run(&weir_session::RunArgs::new().feed(&x, t).fetch(&y));
    let e = run(Tensor::from_vec(&[1, 2, 2, 2], vec![1.0f32; 8])?).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e
        .message()
        .contains("input and filter must have the same depth: 2 vs 3"));
    let e = run(Tensor::from_vec(&[2, 2, 3], vec![1.0f32; 12])?).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        run(Tensor::from_vec(&[1, 2, 2, 3], vec![1.0f32; 12])?)?[0].shape(),
        [1, 2, 2, 3]
    );
    Ok(())
}
