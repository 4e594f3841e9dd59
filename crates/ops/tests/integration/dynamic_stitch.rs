//! `tf.dynamic_stitch` against TensorFlow's own test cases (dynamic_stitch_op_test.py) and the
//! errors the real TensorFlow 2.21 gave for the same bad inputs.

use weir_graph::{Code, DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data_flow::{dynamic_stitch, parallel_dynamic_stitch};
use weir_session::{RunArgs, Session};

#[test]
fn slices_go_to_the_rows_their_indices_name() -> Result<()> {
    let g = Graph::new();
    let out = dynamic_stitch(
        &[constant(&g, vec![1i32, 6, 2, 3, 5, 0, 4, 7])?],
        &[constant(&g, vec![10i32, 60, 20, 30, 50, 0, 40, 70])?],
    )?;
    // The row count is max(indices) + 1, known statically from constant indices.
    assert_eq!(out.shape(), Shape::known(&[8]));
    let sess = Session::new(&g)?;
    assert_eq!(
        sess.eval(&out)?.to_vec::<i32>()?,
        [0, 10, 20, 30, 40, 50, 60, 70]
    );

    // Indices of rank 0, 1 and 2 with data of matching leading shapes and a [2] suffix.
    let g = Graph::new();
    let out = dynamic_stitch(
        &[
            constant(&g, Tensor::scalar(6i32))?,
            constant(&g, vec![4i32, 1])?,
            constant(&g, Tensor::from_vec(&[2, 2], vec![5i32, 2, 0, 3])?)?,
        ],
        &[
            constant(&g, vec![61.0f32, 62.0])?,
            constant(
                &g,
                Tensor::from_vec(&[2, 2], vec![41.0f32, 42.0, 11.0, 12.0])?,
            )?,
            constant(
                &g,
                Tensor::from_vec(
                    &[2, 2, 2],
                    vec![51.0f32, 52.0, 21.0, 22.0, 1.0, 2.0, 31.0, 32.0],
                )?,
            )?,
        ],
    )?;
    assert_eq!(out.shape(), Shape::known(&[7, 2]));
    let want: Vec<f32> = (0..7)
        .flat_map(|r| [10.0 * r as f32 + 1.0, 10.0 * r as f32 + 2.0])
        .collect();
    assert_eq!(Session::new(&g)?.eval(&out)?.to_vec::<f32>()?, want);
    Ok(())
}

#[test]
fn gaps_are_zero_repeats_take_the_later_slice_and_empty_inputs_give_no_rows() -> Result<()> {
    let g = Graph::new();
    let gap = dynamic_stitch(
        &[constant(&g, vec![0i32, 3])?, constant(&g, vec![0i32])?],
        &[
            constant(&g, vec![1.0f32, 2.0])?,
            constant(&g, vec![9.0f32])?,
        ],
    )?;
    let strings = parallel_dynamic_stitch(
        &[constant(&g, vec![1i32, 1])?, constant(&g, vec![0i32])?],
        &[
            constant(&g, Tensor::from_strings(&["a", "b"]))?,
            constant(&g, Tensor::from_strings(&["c"]))?,
        ],
    )?;
    let sess = Session::new(&g)?;
    // What TensorFlow gave: [9, 0, 0, 2].
    assert_eq!(sess.eval(&gap)?.to_vec::<f32>()?, [9.0, 0.0, 0.0, 2.0]);
    assert_eq!(sess.eval(&strings)?.to_strings()?, ["c", "b"]);

    let g = Graph::new();
    let i = placeholder(&g, DType::I32, Shape::unknown())?;
    let d = placeholder(&g, DType::F32, Shape::unknown())?;
    let out = dynamic_stitch(std::slice::from_ref(&i), std::slice::from_ref(&d))?;
    let r = Session::new(&g)?.run(
        &RunArgs::new()
            .feed(&i, Tensor::from_vec(&[0], Vec::<i32>::new())?)
            .feed(&d, Tensor::from_vec(&[0, 3], Vec::<f32>::new())?)
            .fetch(&out),
    )?;
    assert_eq!(r[0].shape(), &[0, 3]);
    Ok(())
}

#[test]
fn bad_inputs_fail_in_tensorflows_words() -> Result<()> {
    let g = Graph::new();
    let i: Vec<_> = (0..2)
        .map(|_| placeholder(&g, DType::I32, Shape::unknown()))
        .collect::<Result<_>>()?;
    let d: Vec<_> = (0..2)
        .map(|_| placeholder(&g, DType::F32, Shape::unknown()))
        .collect::<Result<_>>()?;
    let out = dynamic_stitch(&i, &d)?;
    let sess = Session::new(&g)?;
    let run = |i0: Tensor, i1: Tensor, d0: Tensor, d1: Tensor| {
        sess.run(
            &RunArgs::new()
                .feed(&i[0], i0)
                .feed(&i[1], i1)
                .feed(&d[0], d0)
                .feed(&d[1], d1)
                .fetch(&out),
        )
        .unwrap_err()
    };
    for (err, words) in [
        (
            run(
                vec![0i32, -1].into(),
                vec![2i32].into(),
                vec![1.0f32, 2.0].into(),
                vec![3.0f32].into(),
            ),
            "indices[1] is out of range",
        ),
        (
            run(
                vec![0i32, 1].into(),
                vec![2i32].into(),
                vec![1.0f32].into(),
                vec![3.0f32].into(),
            ),
            "data[0].shape = [1] does not start with indices[0].shape = [2]",
        ),
        (
            run(
                vec![0i32].into(),
                vec![1i32].into(),
                Tensor::from_vec(&[1, 2], vec![1.0f32, 2.0])?,
                Tensor::from_vec(&[1, 1], vec![3.0f32])?,
            ),
            "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [1,2], \
             data[1].shape = [1,1], indices[0].shape = [1], indices[1].shape = [1]",
        ),
    ] {
        assert_eq!(err.code(), Code::InvalidArgument, "{err}");
        assert!(err.message().contains(words), "{err}");
    }
    // Mismatched lists are refused when the node is built.
    assert!(dynamic_stitch(&i, &d[..1]).is_err());
    assert!(dynamic_stitch(&[], &[]).is_err());
    Ok(())
}
