//! Gradients of the nn extras: against TensorFlow 2.21's (`weir-ops`'
//! `tests/data/nn_extras/expected.json`, IndexedSlices made dense) for every case, with static
//! and unknown input shapes, and against central differences (float64) for each new op,
//! including the second-order gradients of the conv backprop ops.

#[path = "../../../ops/tests/integration/nn_extras_build.rs"]
mod build;

use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::{self, Axes};
use weir_ops::nn::{self, DepthwiseConv2dNative, EmbeddingLookup, EmbeddingLookupSparse, Padding};
use weir_ops::sparse::SparseOutput;
use weir_train::gradients::{check::gradient_error, gradients};

use build::{assert_close, cases};

#[test]
fn gradients_match_tensorflow() -> Result<()> {
    let mut compared = 0;
    for case in &cases() {
        for dynamic in [false, true] {
            let what = format!("{} (dynamic shapes: {dynamic})", case.label());
            let built = build::build(case, dynamic)?;
            let ws = case
                .weights
                .iter()
                .map(|w| constant(&built.graph, w.clone()))
                .collect::<Result<Vec<_>>>()?;
            let grads = gradients(&built.ys, &built.floats, Some(&ws))
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            for (i, (got, want)) in grads.iter().zip(&case.grads).enumerate() {
                let name = &case.floats[i].0;
                match (got, want) {
                    (Some(got), Some(want)) => {
                        let v = built.run(std::slice::from_ref(got))?.remove(0);
                        assert_close(&v, want, &format!("{what}: d/d{name}"));
                        compared += 1;
                    }
                    (None, None) => {}
                    (g, w) => panic!("{what}: d/d{name}: weir {g:?}, TensorFlow {w:?}"),
                }
            }
        }
    }
    assert!(compared >= 200, "{compared} gradients compared");
    Ok(())
}

/// Values in (-1.5, 1.5), distinct and away from 0, reproducible.
fn vals(shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let v = (0..n)
        .map(|i| {
            let x = ((i as u64 * 2654435761 + seed * 97) % 1000) as f64 / 1000.0;
            let s = if (i + seed as usize) % 2 == 0 {
                1.0
            } else {
                -1.0
            };
            s * (0.2 + 1.3 * x)
        })
        .collect();
    Tensor::from_vec(shape, v).unwrap()
}

/// Checks d(f(x))/dx numerically for each input in turn: `shapes[k]` is input k's shape, the
/// others are constants of their `vals`.
fn check_each(shapes: &[&[usize]], f: impl Fn(&[Output]) -> Result<Output>) {
    for wrt in 0..shapes.len() {
        let g = Graph::new();
        let inputs: Vec<Output> = shapes
            .iter()
            .enumerate()
            .map(|(k, s)| {
                if k == wrt {
                    placeholder(&g, DType::F64, Shape::known(s))
                } else {
                    constant(&g, vals(s, k as u64 + 3))
                }
            })
            .collect::<Result<_>>()
            .unwrap();
        let y = f(&inputs).unwrap();
        let x = &inputs[wrt];
        let err = gradient_error(x, &vals(shapes[wrt], wrt as u64 + 3), &y, &[]).unwrap();
        assert!(
            err < 1e-6,
            "gradient error {err} for input {wrt} of {}",
            y.name()
        );
    }
}

#[test]
fn depthwise_conv_and_its_backprops_numerically() {
    for (xs, fs, s, p, d) in [
        (
            [2, 5, 5, 3],
            [3, 3, 3, 2],
            [1, 1, 1, 1],
            Padding::Same,
            [1, 1, 1, 1],
        ),
        (
            [1, 6, 5, 2],
            [2, 3, 2, 1],
            [1, 2, 2, 1],
            Padding::Valid,
            [1, 1, 1, 1],
        ),
        (
            [1, 5, 6, 2],
            [2, 2, 2, 2],
            [1, 1, 1, 1],
            Padding::Same,
            [1, 2, 2, 1],
        ),
    ] {
        let conv = DepthwiseConv2dNative::new(s, p).dilations(d);
        check_each(&[&xs, &fs], |i| conv.build(&i[0], &i[1]));
        let y_shape = {
            let g = Graph::new();
            let y = conv
                .build(
                    placeholder(&g, DType::F64, Shape::known(&xs)).unwrap(),
                    placeholder(&g, DType::F64, Shape::known(&fs)).unwrap(),
                )
                .unwrap();
            y.shape().to_known().unwrap()
        };
        // Second order: the backprop ops differentiate with respect to their tensor inputs.
        check_each(&[&fs, &y_shape], |i| {
            let sizes = constant(
                i[0].graph(),
                xs.iter().map(|&v| v as i32).collect::<Vec<_>>(),
            )?;
            conv.backprop_input(sizes, &i[0], &i[1])
        });
        check_each(&[&xs, &y_shape], |i| {
            let sizes = constant(
                i[0].graph(),
                fs.iter().map(|&v| v as i32).collect::<Vec<_>>(),
            )?;
            conv.backprop_filter(&i[0], sizes, &i[1])
        });
    }
}

#[test]
fn conv2d_transpose_and_conv_backprops_numerically() {
    check_each(&[&[2, 3, 3, 2], &[3, 3, 4, 2]], |i| {
        nn::conv2d_transpose(&i[0], &i[1], [2, 5, 5, 4], [1, 2, 2, 1], Padding::Same)
    });
    check_each(&[&[1, 2, 3, 3], &[3, 2, 2, 3]], |i| {
        nn::conv2d_transpose(&i[0], &i[1], [1, 5, 7, 2], [1, 2, 2, 1], Padding::Valid)
    });
    // Conv2DBackpropFilter's own gradient.
    check_each(&[&[1, 4, 4, 2], &[1, 2, 2, 3]], |i| {
        let sizes = constant(i[0].graph(), vec![3i32, 3, 2, 3])?;
        nn::conv2d_backprop_filter(&i[0], sizes, &i[1], [1, 2, 2, 1], Padding::Same)
    });
    check_each(&[&[2, 5, 5, 3], &[3, 3, 3, 2], &[1, 1, 6, 4]], |i| {
        nn::separable_conv2d(&i[0], &i[1], &i[2], [1, 1, 1, 1], Padding::Same, None)
    });
}

#[test]
fn sparse_segments_and_embeddings_numerically() {
    let ints = |g: &Graph, v: Vec<i32>| constant(g, v);
    for op in 0..3 {
        check_each(&[&[4, 2, 3]], |i| {
            let g = i[0].graph();
            let (idx, seg) = (ints(g, vec![0, 2, 1, 2, 3])?, ints(g, vec![0, 0, 1, 3, 3])?);
            match op {
                0 => math::sparse_segment_sum(&i[0], idx, seg),
                1 => math::sparse_segment_mean(&i[0], idx, seg),
                _ => math::sparse_segment_sqrt_n(&i[0], idx, seg),
            }
        });
    }
    for strategy in ["mod", "div"] {
        check_each(&[&[4, 2], &[3, 2], &[3, 2]], |i| {
            let ids = ints(i[0].graph(), vec![6, 0, 3, 9, 1, 1])?;
            EmbeddingLookup::new()
                .partition_strategy(strategy)
                .max_norm(1.0)
                .build(i, ids)
        });
    }
    check_each(&[&[6, 3], &[5]], |i| {
        let g = i[0].graph();
        let indices = Tensor::from_vec(&[5, 2], vec![0i64, 0, 0, 1, 1, 0, 3, 0, 3, 1])?;
        let sp = |v: Output| {
            SparseOutput::new(
                constant(g, indices.clone())?,
                v,
                constant(g, vec![4i64, 2])?,
            )
        };
        let ids = sp(constant(g, vec![1i64, 4, 2, 0, 5])?)?;
        let w = sp(i[1].clone())?;
        EmbeddingLookupSparse::new()
            .combiner("sqrtn")
            .build(&i[..1], &ids, Some(&w))
    });
}

#[test]
fn clips_and_l2_normalize_numerically() {
    check_each(&[&[2, 3]], |i| math::clip_by_norm(&i[0], 0.5, vec![1]));
    check_each(&[&[2, 3], &[]], |i| {
        math::clip_by_norm(&i[0], &i[1], Axes::All)
    });
    check_each(&[&[2, 3], &[4]], |i| {
        let (c, n) = math::clip_by_global_norm([i[0].clone(), i[1].clone()], 1.5, None)?;
        math::add(
            math::reduce_sum(c[0].clone().unwrap(), Axes::All)?,
            math::mul(&n, c[1].clone().unwrap())?,
        )
    });
    check_each(&[&[2, 3]], |i| math::clip_by_average_norm(&i[0], 0.1));
    check_each(&[&[2, 3]], |i| nn::l2_normalize(&i[0], vec![0], 1e-12));
    check_each(&[&[2, 2, 3]], |i| nn::l2_normalize(&i[0], Axes::All, 1e-12));
    // A zero slice keeps a finite gradient (TensorFlow's two-where trick).
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::known(&[2, 2])).unwrap();
    let y = math::clip_by_norm(&x, 1.0, vec![1]).unwrap();
    let value = Tensor::from_vec(&[2, 2], vec![0.0, 0.0, 3.0, 4.0]).unwrap();
    let dx = gradients(&[y], std::slice::from_ref(&x), None)
        .unwrap()
        .remove(0)
        .unwrap();
    let sess = weir_session::Session::new(&g).unwrap();
    let v = sess
        .run(&weir_session::RunArgs::new().feed(&x, value).fetch(&dx))
        .unwrap()
        .remove(0)
        .to_vec::<f64>()
        .unwrap();
    assert!(v.iter().all(|d| d.is_finite()), "{v:?}");
}
