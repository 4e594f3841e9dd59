//! `tf.dynamic_partition` against what the real TensorFlow 2.21 gave for the same inputs,
//! values and errors (placeholders fed at run time).

use weir_graph::{Code, DType, Graph, Result, Shape, Tensor};
use weir_ops::array::placeholder;
use weir_ops::data_flow::dynamic_partition;
use weir_session::{RunArgs, Session};

/// Partitions `data` by `parts` into `n` outputs, both fed (shapes unknown when built).
fn run(data: Tensor, parts: Tensor, n: usize) -> Result<Vec<Tensor>> {
    let g = Graph::new();
    let d = placeholder(&g, data.dtype(), Shape::unknown())?;
    let p = placeholder(&g, DType::I32, Shape::unknown())?;
    let outs = dynamic_partition(&d, &p, n)?;
    let mut args = RunArgs::new().feed(&d, data).feed(&p, parts);
    for o in &outs {
        args = args.fetch(o);
    }
    Session::new(&g)?.run(&args)
}

fn m(rows: usize, cols: usize, v: Vec<i32>) -> Tensor {
    Tensor::from_vec(&[rows, cols], v).unwrap()
}

#[test]
fn slices_go_to_the_partition_their_index_names_in_order() -> Result<()> {
    let out = run(
        Tensor::from(vec![10i32, 20, 30, 40]),
        Tensor::from(vec![1i32, 0, 1, 1]),
        2,
    )?;
    assert_eq!(out[0].to_vec::<i32>()?, [20]);
    assert_eq!(out[1].to_vec::<i32>()?, [10, 30, 40]);
    // Rows of a matrix; an empty partition keeps the row shape.
    let out = run(
        m(3, 2, vec![1, 2, 3, 4, 5, 6]),
        Tensor::from(vec![2i32, 0, 2]),
        3,
    )?;
    assert_eq!(
        (out[0].shape(), out[0].to_vec::<i32>()?),
        (&[1, 2][..], vec![3, 4])
    );
    assert_eq!(out[1].shape(), &[0, 2]);
    assert_eq!(out[2].to_vec::<i32>()?, [1, 2, 5, 6]);
    // Partitions of the data's whole shape: elements, in row-major order.
    let out = run(m(2, 2, vec![1, 2, 3, 4]), m(2, 2, vec![0, 1, 1, 0]), 2)?;
    assert_eq!(out[0].to_vec::<i32>()?, [1, 4]);
    assert_eq!(out[1].to_vec::<i32>()?, [2, 3]);
    Ok(())
}

#[test]
fn bad_partitions_are_tensorflows_errors() {
    let err = |data, parts, n| run(data, parts, n).unwrap_err();
    let e = err(
        Tensor::from(vec![10i32, 20]),
        Tensor::from(vec![0i32, 5]),
        2,
    );
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.to_string().contains("partitions[1] = 5 is not in [0, 2)"),
        "{e}"
    );
    let e = err(m(2, 2, vec![1, 2, 3, 4]), m(2, 2, vec![0, 1, 1, -1]), 2);
    assert!(
        e.to_string()
            .contains("partitions[1,1] = -1 is not in [0, 2)"),
        "{e}"
    );
    let e = err(
        Tensor::from(vec![10i32, 20, 30]),
        Tensor::from(vec![0i32, 1]),
        2,
    );
    assert!(
        e.to_string().contains(
            "data.shape must start with partitions.shape, got data.shape = [3], \
             partitions.shape = [2]"
        ),
        "{e}"
    );
    let g = Graph::new();
    let x = weir_ops::array::constant(&g, vec![1i32]).unwrap();
    assert!(dynamic_partition(&x, &x, 0).is_err());
}
