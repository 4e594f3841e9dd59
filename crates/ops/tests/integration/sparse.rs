//! Sparse ops in a session, against outputs and messages printed by TensorFlow 2.21.

// Expected values are TensorFlow's printed outputs, digit for digit.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use weir_graph::{DType, Graph, Output, Shape, SparseTensor, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::sparse::{
    add_many_sparse_to_tensors_map, add_sparse_to_tensors_map, sparse_concat, sparse_reshape,
    sparse_reshape_tensor, sparse_tensor_to_dense, sparse_to_dense,
    take_many_sparse_from_tensors_map, SparseOutput, SparseToDense,
};
use weir_ops::string::string_split;
use weir_session::{RunArgs, Session};

fn i64s(g: &Graph, shape: &[usize], v: Vec<i64>) -> Output {
    constant(g, Tensor::from_vec(shape, v).unwrap()).unwrap()
}

fn sparse(g: &Graph, idx: &[[i64; 2]], values: Tensor, shape: [i64; 2]) -> SparseOutput {
    let flat: Vec<i64> = idx.iter().flatten().copied().collect();
    SparseOutput::new(
        i64s(g, &[idx.len(), 2], flat),
        constant(g, values).unwrap(),
        constant(g, shape.to_vec()).unwrap(),
    )
    .unwrap()
}

fn fetch(g: &Graph, sp: &SparseOutput) -> SparseTensor {
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

fn eval_err(g: &Graph, o: &Output) -> weir_graph::Error {
    Session::new(g).unwrap().eval(o).unwrap_err()
}

#[test]
fn to_dense_matches_tensorflow() {
    let g = Graph::new();
    let d = sparse_to_dense(
        i64s(&g, &[2, 2], vec![0, 1, 2, 0]),
        constant(&g, vec![3i64, 2]).unwrap(),
        constant(&g, vec![5.0f32, 6.0]).unwrap(),
        constant(&g, -1.0f32).unwrap(),
    )
    .unwrap();
    assert_eq!(d.shape(), Shape::known(&[3, 2]));
    let sess = Session::new(&g).unwrap();
    assert_eq!(
        sess.eval(&d).unwrap().to_vec::<f32>().unwrap(),
        [-1.0, 5.0, -1.0, -1.0, 6.0, -1.0]
    );
    let v = sparse_to_dense(
        constant(&g, vec![1i32, 3]).unwrap(),
        constant(&g, vec![5i32]).unwrap(),
        constant(&g, 7i32).unwrap(),
        constant(&g, 0i32).unwrap(),
    )
    .unwrap();
    assert_eq!(
        sess.eval(&v).unwrap().to_vec::<i32>().unwrap(),
        [0, 7, 0, 7, 0]
    );
    let s = sparse_to_dense(
        constant(&g, 2i32).unwrap(),
        constant(&g, vec![4i32]).unwrap(),
        constant(&g, 7i32).unwrap(),
        constant(&g, 0i32).unwrap(),
    )
    .unwrap();
    assert_eq!(
        sess.eval(&s).unwrap().to_vec::<i32>().unwrap(),
        [0, 0, 7, 0]
    );
    let e = sparse_to_dense(
        i64s(&g, &[0, 2], vec![]),
        constant(&g, vec![2i64, 2]).unwrap(),
        constant(&g, Vec::<f32>::new()).unwrap(),
        constant(&g, 1.0f32).unwrap(),
    )
    .unwrap();
    assert_eq!(sess.eval(&e).unwrap().to_vec::<f32>().unwrap(), [1.0; 4]);
    let unsorted = SparseToDense::new()
        .validate_indices(false)
        .build(
            i64s(&g, &[2, 2], vec![1, 1, 0, 1]),
            constant(&g, vec![3i64, 2]).unwrap(),
            constant(&g, vec![5.0f32, 6.0]).unwrap(),
            constant(&g, -1.0f32).unwrap(),
        )
        .unwrap();
    assert_eq!(
        sess.eval(&unsorted).unwrap().to_vec::<f32>().unwrap(),
        [-1.0, 6.0, -1.0, 5.0, -1.0, -1.0]
    );
}

#[test]
fn to_dense_errors_match_tensorflow() {
    let g = Graph::new();
    let idx = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let shape = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let vals = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let def = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let d = sparse_to_dense(&idx, &shape, &vals, &def).unwrap();
    assert_eq!(d.shape(), Shape::unknown());
    let sess = Session::new(&g).unwrap();
    let run = |i: Tensor, s: Vec<i64>, v: Tensor, df: Tensor| {
        sess.run(
            &RunArgs::new()
                .feed(&idx, i)
                .feed(&shape, Tensor::from(s))
                .feed(&vals, v)
                .feed(&def, df)
                .fetch(&d),
        )
        .unwrap_err()
        .message()
        .to_string()
    };
    let m = |r: usize, v: Vec<i64>| Tensor::from_vec(&[r, 2], v).unwrap();
    let two = || Tensor::from(vec![5.0f32, 6.0]);
    let dflt = || Tensor::from(-1.0f32);
    assert_eq!(
        run(m(2, vec![0, 1, 3, 0]), vec![3, 2], two(), dflt()),
        "indices[1] = [3,0] is out of bounds: need 0 <= index < [3,2]"
    );
    assert_eq!(
        run(
            m(1, vec![0, -1]),
            vec![3, 2],
            Tensor::from(vec![5.0f32]),
            dflt()
        ),
        "indices[0] = [0,-1] is out of bounds: need 0 <= index < [3,2]"
    );
    assert_eq!(
        run(m(2, vec![0, 1, 0, 1]), vec![3, 2], two(), dflt()),
        "indices[1] = [0,1] is repeated"
    );
    assert_eq!(
        run(m(2, vec![1, 1, 0, 1]), vec![3, 2], two(), dflt()),
        "indices[1] = [0,1] is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
    );
    assert_eq!(
        run(
            m(2, vec![1, 1, 0, 1]),
            vec![3, 2],
            Tensor::from(vec![5.0f32, 6.0, 7.0]),
            dflt()
        ),
        "sparse_values has incorrect shape [3], should be [] or [2]"
    );
    assert_eq!(
        run(m(2, vec![1, 1, 0, 1]), vec![3, 2, 1], two(), dflt()),
        "output_shape has incorrect number of elements: 3 should be: 2"
    );
    assert_eq!(
        run(
            m(1, vec![1, 1]),
            vec![3, 2],
            Tensor::from(vec![5.0f32]),
            Tensor::from(vec![-1.0f32])
        ),
        "default_value should be a scalar."
    );
    assert_eq!(
        run(
            Tensor::from_vec(&[1, 1, 2], vec![1i64, 1]).unwrap(),
            vec![3, 2],
            Tensor::from(vec![5.0f32]),
            dflt()
        ),
        "sparse_indices should be a scalar, vector, or matrix, got shape [1,1,2]"
    );
    assert_eq!(
        run(
            m(0, vec![]),
            vec![2, -2],
            Tensor::from(Vec::<f32>::new()),
            dflt()
        ),
        "Dimension -2 must be >= 0"
    );
    let e = sparse_to_dense(&idx, &shape, &vals, constant(&g, 1i32).unwrap()).unwrap_err();
    assert!(e.message().contains("does not match"), "{e}");
}

#[test]
fn split_then_densify() {
    let g = Graph::new();
    let sp = string_split(constant(&g, ["a b", "c", ""]).unwrap(), " ").unwrap();
    let dense = sparse_tensor_to_dense(&sp, None).unwrap();
    let filled = sparse_tensor_to_dense(&sp, Some(constant(&g, "<pad>").unwrap())).unwrap();
    let sess = Session::new(&g).unwrap();
    let d = sess.eval(&dense).unwrap();
    assert_eq!(d.shape(), &[3, 2]);
    assert_eq!(d.to_strings().unwrap(), ["a", "b", "c", "", "", ""]);
    assert_eq!(
        sess.eval(&filled).unwrap().to_strings().unwrap(),
        ["a", "b", "c", "<pad>", "<pad>", "<pad>"]
    );
}

#[test]
fn concat_matches_tensorflow() {
    let g = Graph::new();
    let a = sparse(
        &g,
        &[[0, 2], [1, 0], [1, 1]],
        Tensor::from(vec!["a", "b", "c"]),
        [2, 3],
    );
    let b = sparse(&g, &[[0, 1], [0, 2]], Tensor::from(vec!["d", "e"]), [2, 4]);
    let b3 = sparse(&g, &[[0, 1], [0, 2]], Tensor::from(vec!["d", "e"]), [2, 3]);
    let c1 = sparse_concat(1, &[a.clone(), b.clone()]).unwrap();
    assert_eq!(c1.indices.shape(), Shape::new(vec![None, Some(2)]));
    let v = fetch(&g, &c1);
    assert_eq!(
        v.indices.to_vec::<i64>().unwrap(),
        [0, 2, 0, 4, 0, 5, 1, 0, 1, 1]
    );
    assert_eq!(v.values.to_strings().unwrap(), ["a", "d", "e", "b", "c"]);
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [2, 7]);
    assert_eq!(
        fetch(&g, &sparse_concat(-1, &[a.clone(), b.clone()]).unwrap()),
        v
    );
    let v = fetch(&g, &sparse_concat(0, &[a.clone(), b3]).unwrap());
    assert_eq!(
        v.indices.to_vec::<i64>().unwrap(),
        [0, 2, 1, 0, 1, 1, 2, 1, 2, 2]
    );
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [4, 3]);
    let u1 = sparse(&g, &[[1, 0], [0, 2]], Tensor::from(vec!["a", "b"]), [2, 3]);
    let u2 = sparse(&g, &[[1, 1], [0, 0]], Tensor::from(vec!["c", "d"]), [2, 2]);
    let v = fetch(&g, &sparse_concat(1, &[u1, u2]).unwrap());
    assert_eq!(v.indices.to_vec::<i64>().unwrap(), [0, 2, 0, 3, 1, 0, 1, 4]);
    assert_eq!(v.values.to_strings().unwrap(), ["b", "d", "a", "c"]);
    assert!(sparse_concat(1, std::slice::from_ref(&a))
        .unwrap_err()
        .message()
        .contains("must be >= 2"));
    let f = sparse(&g, &[[0, 0]], Tensor::from(vec![1.0f32]), [2, 3]);
    assert!(
        sparse_concat(0, &[a.clone(), f]).is_err(),
        "values of different dtypes"
    );
    let c = sparse(&g, &[[0, 0]], Tensor::from(vec!["x"]), [3, 4]);
    let e = eval_err(&g, &sparse_concat(1, &[a.clone(), c]).unwrap().values);
    assert_eq!(
        e.message(),
        "Input shapes must match: expected 2 for dimension 0 but got 3 at position 1"
    );
    let e = eval_err(
        &g,
        &sparse_concat(2, &[a.clone(), b.clone()]).unwrap().values,
    );
    assert_eq!(
        e.message(),
        "Concat dimension must be in range [-2, 2), got 2"
    );
    let r3 = SparseOutput::new(
        i64s(&g, &[1, 3], vec![0, 1, 0]),
        constant(&g, vec!["d"]).unwrap(),
        constant(&g, vec![2i64, 4, 1]).unwrap(),
    )
    .unwrap();
    let e = eval_err(&g, &sparse_concat(1, &[a, r3]).unwrap().values);
    assert_eq!(
        e.message(),
        "Ranks of all input tensors must match: expected 2 but got 3 at position 1"
    );
}

#[test]
fn reshape_matches_tensorflow() {
    let g = Graph::new();
    let sp = SparseOutput::new(
        i64s(&g, &[5, 2], vec![0, 0, 0, 1, 1, 2, 4, 2, 5, 0]),
        constant(&g, vec![1i32, 2, 3, 4, 5]).unwrap(),
        constant(&g, vec![6i64, 3]).unwrap(),
    )
    .unwrap();
    let r = sparse_reshape(&sp, &[2, -1, 3]).unwrap();
    assert_eq!(r.indices.shape(), Shape::known(&[5, 3]));
    assert_eq!(r.values, sp.values);
    let v = fetch(&g, &r);
    assert_eq!(
        v.indices.to_vec::<i64>().unwrap(),
        [0, 0, 0, 0, 0, 1, 0, 1, 2, 1, 1, 2, 1, 2, 0]
    );
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [2, 3, 3]);
    let dense = sparse_tensor_to_dense(&sparse_reshape(&sp, &[18]).unwrap(), None).unwrap();
    let d = Session::new(&g)
        .unwrap()
        .eval(&dense)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    assert_eq!((d[0], d[1], d[5], d[14], d[15]), (1, 2, 3, 4, 5));
    let bad = sparse_reshape(&sp, &[4, 4]).unwrap();
    assert_eq!(
        eval_err(&g, &bad.indices).message(),
        "Input to reshape is a tensor with 18 dense values, but the requested shape has 16. input_shape=[6,3] output_shape=[4,4]"
    );
    let p = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let dynamic = sparse_reshape_tensor(&sp, &p).unwrap();
    assert_eq!(dynamic.indices.shape(), Shape::new(vec![Some(5), None]));
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec![-1i64, -1]))
                .fetch(&dynamic.indices),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "only one output dimension may be -1, not both 0 and 1"
    );
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(9i64))
                .fetch(&dynamic.indices),
        )
        .unwrap_err();
    assert!(e.is_invalid_argument());
    let empty = SparseOutput::new(
        i64s(&g, &[0, 2], vec![]),
        constant(&g, Vec::<f32>::new()).unwrap(),
        constant(&g, vec![0i64, 3]).unwrap(),
    )
    .unwrap();
    let v = fetch(&g, &sparse_reshape(&empty, &[-1, 3]).unwrap());
    assert_eq!(v.indices.shape(), &[0, 2]);
    assert_eq!(v.dense_shape.to_vec::<i64>().unwrap(), [0, 3]);
}

#[test]
fn sparse_output_checks_its_parts() {
    let g = Graph::new();
    let idx = i64s(&g, &[1, 1], vec![0]);
    let vals = constant(&g, vec![1.0f32]).unwrap();
    let shape = constant(&g, vec![3i64]).unwrap();
    let sp = SparseOutput::new(idx.clone(), vals.clone(), shape.clone()).unwrap();
    assert_eq!(sp.dtype(), DType::F32);
    assert_eq!(sp.outputs(), [idx.clone(), vals.clone(), shape.clone()]);
    assert!(SparseOutput::new(vals.clone(), vals.clone(), shape.clone()).is_err());
    assert!(
        SparseOutput::new(idx.clone(), vals.clone(), constant(&g, vec![3i32]).unwrap()).is_err()
    );
    assert!(SparseOutput::new(shape.clone(), vals.clone(), shape.clone()).is_err());
    let other = Graph::new();
    assert!(SparseOutput::new(idx, constant(&other, vec![1.0f32]).unwrap(), shape).is_err());
}

/// A minibatch stored row by row (AddManySparseToTensorsMap) comes back whole, rows in the
/// order of the handles; taking a handle twice, or from another map, is an error.
#[test]
fn a_sparse_tensors_map_gives_back_what_it_was_given() {
    let g = Graph::new();
    // Rows 0 and 2 hold values; row 1 is empty; the minibatch is [3, 4] strings.
    let sp = sparse(
        &g,
        &[[0, 1], [0, 3], [2, 0]],
        Tensor::from(vec!["a", "b", "c"]),
        [3, 4],
    );
    let handles = add_many_sparse_to_tensors_map(&sp, Some("m")).unwrap();
    let fed = placeholder(&g, DType::I64, Shape::new(vec![None])).unwrap();
    let back = take_many_sparse_from_tensors_map(&fed, DType::String, "m").unwrap();
    let sess = Session::new(&g).unwrap();
    let h = sess.run(&RunArgs::new().fetch(&handles)).unwrap().remove(0);
    assert_eq!(h.shape(), &[3]);
    // Rows 2 and 0, in that order: row 2 becomes row 0 of the new batch.
    let hv = h.to_vec::<i64>().unwrap();
    let pick = Tensor::from(vec![hv[2], hv[0]]);
    let out = sess
        .run(
            &RunArgs::new()
                .feed(&fed, pick.clone())
                .fetch(&back.indices)
                .fetch(&back.values)
                .fetch(&back.dense_shape),
        )
        .unwrap();
    assert_eq!(out[0].to_vec::<i64>().unwrap(), vec![0, 0, 1, 1, 1, 3]);
    assert_eq!(out[1].to_strings().unwrap(), vec!["c", "a", "b"]);
    assert_eq!(out[2].to_vec::<i64>().unwrap(), vec![2, 4]);
    // Taken entries are gone.
    let e = sess
        .run(&RunArgs::new().feed(&fed, pick).fetch(&back.values))
        .unwrap_err();
    assert_eq!(
        e.message(),
        format!("Unable to find SparseTensor: {} in map: m", hv[2])
    );
    // The empty row comes back as a batch of one with no values.
    let out = sess
        .run(
            &RunArgs::new()
                .feed(&fed, Tensor::from(vec![hv[1]]))
                .fetch(&back.indices)
                .fetch(&back.dense_shape),
        )
        .unwrap();
    assert_eq!(out[0].shape(), &[0, 2]);
    assert_eq!(out[1].to_vec::<i64>().unwrap(), vec![1, 4]);

    // One whole sparse tensor per handle, and the dtype must be the one asked for.
    let one = add_sparse_to_tensors_map(&sp, Some("one")).unwrap();
    let as_i64 = take_many_sparse_from_tensors_map(&fed, DType::I64, "one").unwrap();
    let h = sess.run(&RunArgs::new().fetch(&one)).unwrap().remove(0);
    assert_eq!(h.shape(), &[] as &[usize]);
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&fed, Tensor::from(vec![h.to_scalar::<i64>().unwrap()]))
                .fetch(&as_i64.values),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Requested SparseTensor of type int64 but SparseTensor[0].values.dtype() == string"
    );
}

/// `tf.sparse.reorder` (`SparseReorder`), fed at run time, against TensorFlow 2.21: a stable
/// row-major sort (equal indices keep their order; indices are not checked against the shape)
/// and TensorFlow's three messages.
#[test]
fn sparse_reorder_sorts_stably_with_tensorflows_errors() -> weir_graph::Result<()> {
    let g = Graph::new();
    let ix = placeholder(&g, DType::I64, Shape::unknown())?;
    let vals = placeholder(&g, DType::F32, Shape::unknown())?;
    let shape = placeholder(&g, DType::I64, Shape::unknown())?;
    let sp = weir_ops::sparse::SparseOutput::new(ix.clone(), vals.clone(), shape.clone())?;
    let sorted = weir_ops::sparse::sparse_reorder(&sp)?;
    let sess = Session::new(&g)?;
    let run = |i: Tensor, v: Vec<f32>, s: Vec<i64>| {
        sess.run(
            &RunArgs::new()
                .feed(&ix, i)
                .feed(&vals, Tensor::from(v))
                .feed(&shape, Tensor::from(s))
                .fetch(&sorted.indices)
                .fetch(&sorted.values),
        )
    };
    let m = |rows: usize, v: Vec<i64>| Tensor::from_vec(&[rows, v.len() / rows], v).unwrap();
    let out = run(
        m(4, vec![1, 0, 0, 2, 0, 1, 1, 0]),
        vec![1.0, 2.0, 3.0, 4.0],
        vec![2, 3],
    )?;
    assert_eq!(out[0].to_vec::<i64>()?, [0, 1, 0, 2, 1, 0, 1, 0]);
    assert_eq!(out[1].to_vec::<f32>()?, [3.0, 2.0, 1.0, 4.0]);
    let out = run(m(1, vec![0, 5]), vec![1.0], vec![2, 3])?;
    assert_eq!(out[0].to_vec::<i64>()?, [0, 5]);
    let out = run(Tensor::zeros(DType::I64, &[0, 2])?, vec![], vec![2, 3])?;
    assert_eq!(out[0].shape(), &[0, 2]);
    for (i, v, want) in [
        (
            m(1, vec![0, 0]),
            vec![1.0, 2.0],
            "Number of elements in indices (1) and values (2) do not match",
        ),
        (
            Tensor::from(vec![0i64, 0]),
            vec![1.0],
            "Sparse indices must be rank 2 but is rank 1",
        ),
        (
            m(1, vec![0, 0, 0]),
            vec![1.0],
            "Index rank (3) and shape rank (2) do not match",
        ),
    ] {
        let e = run(i, v, vec![2, 3]).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }
    Ok(())
}
