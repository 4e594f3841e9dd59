//! Run-plan rewrites that save work without changing any value a run returns, as TensorFlow's
//! Grappler rewrites a graph before running it: a kernel that can produce an output already
//! cast (and then scaled by a constant), or all its outputs already stacked, does so when that
//! Cast (and Mul or RealDiv) or Pack is their only reader.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use weir_graph::{DType, Kernel, Node, OpContext, OutputScale, Result};

use crate::plan::PlanKey;

/// What [`fuse`] changed in a plan.
#[derive(Default)]
pub(crate) struct Fusions {
    /// Outputs a fused Cast reads already converted, with the dtype they now have.
    pub dtypes: HashMap<(usize, usize), DType>,
    /// Steps that read other outputs than their node's inputs: a fused Pack reads the stack its
    /// producer made, in that producer's output 0.
    pub inputs: HashMap<usize, Vec<(usize, usize)>>,
}

/// Rewrites the plan of the nodes `ids` (run in that order) where a kernel can save a
/// following op's work, changing `kernels`: see [`fuse_casts`], [`fuse_scales`] and
/// [`fuse_packs`].
pub(crate) fn fuse(
    nodes: &[Arc<Node>],
    ids: &[usize],
    key: &PlanKey,
    fed: &HashSet<(usize, usize)>,
    kernels: &mut HashMap<usize, Arc<dyn Kernel>>,
) -> Fusions {
    let mut readers: HashMap<(usize, usize), usize> = HashMap::new();
    for &n in ids {
        for &inp in nodes[n].inputs() {
            *readers.entry(inp).or_default() += 1;
        }
    }
    // An output another step or the caller also sees must stay as the graph says.
    let private = |o: &(usize, usize)| {
        !fed.contains(o) && !key.fetches.contains(o) && readers.get(o) == Some(&1)
    };
    let mut f = Fusions::default();
    fuse_casts(nodes, ids, &private, kernels, &mut f);
    fuse_scales(nodes, ids, fed, &private, kernels, &mut f);
    fuse_packs(nodes, ids, &private, kernels, &mut f);
    f
}

/// Lets a kernel produce an output already converted when a `Cast` is all that reads it
/// ([`Kernel::with_output_cast`]); the Cast then passes its input on unchanged.
///
/// Why: `parse_example` of an int64 image feature followed by `cast(..., float32)` is how the
/// MNIST-style pipelines read their pixels, and the int64 batch between them (800 KB per 128
/// examples) was written and read once more for nothing.
fn fuse_casts(
    nodes: &[Arc<Node>],
    ids: &[usize],
    private: &impl Fn(&(usize, usize)) -> bool,
    kernels: &mut HashMap<usize, Arc<dyn Kernel>>,
    f: &mut Fusions,
) {
    for &n in ids {
        let node = &nodes[n];
        if node.op_type() != "Cast" {
            continue;
        }
        let dst = node.output_dtypes()[0];
        // Reshapes between the producer and the Cast move the values whatever their dtype
        // (`reshape(decode_raw(..), [-1, 784])` in batched MNIST pipelines): they pass the
        // converted values on.
        let mut src = node.inputs()[0];
        let mut between = Vec::new();
        while nodes[src.0].op_type() == "Reshape" && private(&src) {
            between.push(src);
            src = nodes[src.0].inputs()[0];
        }
        if !private(&src) || nodes[src.0].output_dtypes()[src.1] == dst {
            continue;
        }
        if let Some(k) = kernels[&src.0].with_output_cast(src.1, dst) {
            kernels.insert(src.0, k);
            f.dtypes.insert(src, dst);
            for o in between {
                f.dtypes.insert(o, dst);
            }
        }
    }
}

/// Lets a kernel whose output a fused Cast makes float32 also apply the float32 `Mul` or
/// `RealDiv` by a scalar constant that is all that reads the Cast
/// ([`Kernel::with_output_scaled`]); that op then passes the Cast's output on.
///
/// Why: `tf.cast(pixels, tf.float32) * (1. / 255)` is how the MNIST-style pipelines scale their
/// pixels, and the multiply was one more pass over the whole batch (400 KB per 128 images), out
/// of cache by then; fused, each value is scaled while it is in a register.
fn fuse_scales(
    nodes: &[Arc<Node>],
    ids: &[usize],
    fed: &HashSet<(usize, usize)>,
    private: &impl Fn(&(usize, usize)) -> bool,
    kernels: &mut HashMap<usize, Arc<dyn Kernel>>,
    f: &mut Fusions,
) {
    // A scalar float32 constant that no feed replaces.
    let constant = |o: (usize, usize)| -> Option<f32> {
        let t = nodes[o.0].const_value()?;
        if fed.contains(&o) || t.rank() != 0 || t.dtype() != DType::F32 {
            return None;
        }
        t.as_slice::<f32>().ok()?.first().copied()
    };
    for &n in ids {
        let node = &nodes[n];
        if node.output_dtypes() != [DType::F32] || node.inputs().len() != 2 {
            continue;
        }
        let (a, b) = (node.inputs()[0], node.inputs()[1]);
        let (cast, scale) = match node.op_type() {
            "Mul" => match (constant(b), constant(a)) {
                (Some(c), _) => (a, OutputScale::Mul(c)),
                (None, Some(c)) => (b, OutputScale::Mul(c)),
                (None, None) => continue,
            },
            "RealDiv" => match constant(b) {
                Some(c) => (a, OutputScale::Div(c)),
                None => continue,
            },
            _ => continue,
        };
        if nodes[cast.0].op_type() != "Cast" || !private(&cast) {
            continue;
        }
        // The output the Cast's fused producer makes, through the Reshapes between them.
        let mut src = nodes[cast.0].inputs()[0];
        while nodes[src.0].op_type() == "Reshape" && f.dtypes.contains_key(&src) {
            src = nodes[src.0].inputs()[0];
        }
        if f.dtypes.get(&src) != Some(&DType::F32) {
            continue;
        }
        if let Some(k) = kernels[&src.0].with_output_scaled(src.1, scale) {
            kernels.insert(src.0, k);
            kernels.insert(n, Arc::new(PassOn));
            f.inputs.insert(n, vec![cast]);
        }
    }
}

/// Lets a kernel stack all its outputs itself when a `Pack` of them, in order, is all that
/// reads them ([`Kernel::with_outputs_packed`]); the Pack then passes that stack on.
///
/// Why: `tf.stack(tf.decode_csv(line, defaults))` is TensorFlow's documented CSV pattern, and
/// per line it made a tensor per field for Pack to copy into one: over a third of what a
/// per-line pipeline's runner thread spent on decoding (callgrind).
fn fuse_packs(
    nodes: &[Arc<Node>],
    ids: &[usize],
    private: &impl Fn(&(usize, usize)) -> bool,
    kernels: &mut HashMap<usize, Arc<dyn Kernel>>,
    f: &mut Fusions,
) {
    for &n in ids {
        let node = &nodes[n];
        let Some(&(m, _)) = node.inputs().first() else {
            continue;
        };
        let producer = &nodes[m];
        let whole = node.inputs().len() == producer.output_dtypes().len()
            && node.inputs().iter().enumerate().all(|(i, &o)| o == (m, i));
        // A known rank: the Pack's axis was checked against it when the graph was built.
        let ranked = producer.output_shapes()[0].dims().is_some();
        if node.op_type() != "Pack"
            || !whole
            || !ranked
            || !node.inputs().iter().all(private)
            || f.dtypes.keys().any(|&(p, _)| p == m)
        {
            continue;
        }
        let Ok(axis) = node.attr::<i64>("axis") else {
            continue;
        };
        if let Some(k) = kernels[&m].with_outputs_packed(axis) {
            kernels.insert(m, k);
            kernels.insert(n, Arc::new(PassOn));
            f.inputs.insert(n, vec![(m, 0)]);
        }
    }
}

/// The kernel of a step whose work a fused producer did: outputs its one input.
struct PassOn;

impl Kernel for PassOn {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.take_input(0);
        ctx.set_output(0, t);
        Ok(())
    }
}

#[cfg(test)]
mod scale_tests;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use weir_graph::{DType, Graph, Kernel, Output, Result, Shape, Tensor};
    use weir_ops::array::{constant, placeholder, reshape, stack};
    use weir_ops::io::example::Example;
    use weir_ops::math::cast;
    use weir_ops::parsing::{decode_csv, decode_raw, parse_example, Features, FixedLenFeature};

    use crate::plan::{build_plan, PlanKey};
    use crate::{RunArgs, Session};

    fn example(pixels: &[i64]) -> weir_graph::Bytes {
        Example::builder()
            .int64("image", pixels.to_vec())
            .build()
            .to_bytes()
    }

    /// parse_example of four int64 pixels per example (zeros when missing), and its cast.
    fn graph(records: Vec<weir_graph::Bytes>) -> Result<(Graph, Output, Output)> {
        let g = Graph::new();
        let ser = constant(&g, Tensor::from(records))?;
        let features = Features::new().add(
            "image",
            FixedLenFeature::new(&[4], DType::I64).default(Tensor::from(vec![5i64, 6, 7, 8])),
        );
        let pixels = parse_example(&ser, &features)?.dense("image")?;
        let floats = cast(&pixels, DType::F32)?;
        Ok((g, pixels, floats))
    }

    /// A step of a plan: op type, output dtypes, inputs read.
    pub(super) type PlanStep = (String, Vec<DType>, usize);

    /// Each step of the plan fetching `fetches`.
    pub(super) fn dtypes_of_plan(
        g: &Graph,
        feeds: &[(&Output, &[usize])],
        fetches: &[&Output],
    ) -> Vec<PlanStep> {
        let key = PlanKey {
            feeds: feeds
                .iter()
                .map(|(o, _)| (o.node_id(), o.index()))
                .collect(),
            fetches: fetches.iter().map(|o| (o.node_id(), o.index())).collect(),
            targets: vec![],
        };
        let shapes: Vec<&[usize]> = feeds.iter().map(|(_, s)| *s).collect();
        let plan = build_plan(g, &key, &shapes, true, |node| {
            let make = weir_graph::registry::kernel_factory(node.op_type())?;
            Ok(Arc::from(make(node)?) as Arc<dyn Kernel>)
        })
        .unwrap();
        plan.steps
            .iter()
            .map(|s| {
                let op = s.node.op_type().to_string();
                (op, s.output_dtypes.clone(), s.inputs.len())
            })
            .collect()
    }

    #[test]
    fn a_parse_read_only_by_a_cast_makes_floats_and_gives_the_same_values() {
        weir_ops::register_all_ops();
        let records = vec![
            example(&[0, 1, 200, 16383]),
            example(&[16385, 300, 1 << 40, -3]),
            Example::builder().build().to_bytes(),
        ];
        let (g, pixels, floats) = graph(records).unwrap();
        // Fetching only the cast fuses; fetching the int64 values too does not.
        let parse_dtypes = |fetches: &[&Output]| {
            dtypes_of_plan(&g, &[], fetches)
                .into_iter()
                .find(|(op, _, _)| op == "ParseExample")
                .unwrap()
                .1
        };
        assert_eq!(parse_dtypes(&[&floats]), vec![DType::F32]);
        assert_eq!(parse_dtypes(&[&floats, &pixels]), vec![DType::I64]);

        let sess = Session::new(&g).unwrap();
        let fused = sess.run(&RunArgs::new().fetch(&floats)).unwrap();
        let both = sess
            .run(&RunArgs::new().fetch(&floats).fetch(&pixels))
            .unwrap();
        let want: Vec<f32> = both[1]
            .to_vec::<i64>()
            .unwrap()
            .iter()
            .map(|&v| v as f32)
            .collect();
        assert_eq!(both[0].to_vec::<f32>().unwrap(), want);
        assert_eq!(fused[0].to_vec::<f32>().unwrap(), want);
        assert_eq!(fused[0].shape(), &[3, 4]);
        assert_eq!(
            &want[..],
            &[
                0.,
                1.,
                200.,
                16383.,
                16385.,
                300.,
                (1u64 << 40) as f32,
                -3.,
                5.,
                6.,
                7.,
                8.
            ]
        );
    }

    #[test]
    fn a_single_example_parse_read_only_by_a_cast_makes_floats_too() {
        weir_ops::register_all_ops();
        let records = [
            example(&[16385, 300, 1 << 40, -3]),
            Example::builder().build().to_bytes(),
            example(&[1, 2, 3]),
        ];
        for (i, r) in records.into_iter().enumerate() {
            let g = Graph::new();
            let ser = constant(&g, Tensor::from(vec![r]).reshape(&[]).unwrap()).unwrap();
            let features = Features::new().add(
                "image",
                FixedLenFeature::new(&[4], DType::I64).default(Tensor::from(vec![5i64, 6, 7, 8])),
            );
            let pixels = parse_example(&ser, &features)
                .unwrap()
                .dense("image")
                .unwrap();
            let floats = cast(&pixels, DType::F32).unwrap();
            let plan = dtypes_of_plan(&g, &[], &[&floats]);
            let parse = plan.iter().find(|(op, _, _)| op == "ParseExample").unwrap();
            assert_eq!(parse.1, vec![DType::F32]);
            let sess = Session::new(&g).unwrap();
            let fused = sess.run(&RunArgs::new().fetch(&floats));
            let both = sess.run(&RunArgs::new().fetch(&floats).fetch(&pixels));
            match (fused, both) {
                (Ok(f), Ok(b)) => {
                    let want: Vec<f32> = b[1]
                        .to_vec::<i64>()
                        .unwrap()
                        .iter()
                        .map(|&v| v as f32)
                        .collect();
                    assert_eq!(f[0].to_vec::<f32>().unwrap(), want, "record {i}");
                    assert_eq!(f[0].shape(), &[4]);
                }
                (Err(f), Err(b)) => {
                    assert_eq!(
                        (f.code(), f.message()),
                        (b.code(), b.message()),
                        "record {i}"
                    );
                    assert_eq!(i, 2);
                }
                (f, b) => panic!("record {i}: {f:?} vs {b:?}"),
            }
        }
    }

    #[test]
    fn a_fused_parse_reports_the_errors_of_the_unfused_one() {
        weir_ops::register_all_ops();
        let (g, pixels, floats) = graph(vec![example(&[1, 2, 3])]).unwrap();
        let sess = Session::new(&g).unwrap();
        let fused = sess.run(&RunArgs::new().fetch(&floats)).unwrap_err();
        let unfused = sess
            .run(&RunArgs::new().fetch(&floats).fetch(&pixels))
            .unwrap_err();
        assert_eq!(fused.code(), unfused.code());
        assert_eq!(fused.message(), unfused.message());
        assert!(
            fused
                .message()
                .contains("Number of int64 values != expected"),
            "{fused}"
        );
    }

    /// stack(decode_csv(records, defaults), axis): the plan's DecodeCSV step, and the stack
    /// computed fused and unfused (the decode_csv outputs fetched too).
    fn csv_stack(
        records: Tensor,
        rank: usize,
        defaults: Vec<Tensor>,
        axis: i64,
    ) -> (Vec<PlanStep>, Result<Tensor>, Result<Tensor>) {
        weir_ops::register_all_ops();
        let g = Graph::new();
        let lines = placeholder(&g, DType::String, Shape::unknown_of_rank(rank)).unwrap();
        let defaults: Vec<Output> = defaults
            .into_iter()
            .map(|d| constant(&g, d).unwrap())
            .collect();
        let cols = decode_csv(&lines, defaults).unwrap();
        let rows = stack(&cols, axis).unwrap();
        let plan = dtypes_of_plan(&g, &[(&lines, records.shape())], &[&rows]);
        let sess = Session::new(&g).unwrap();
        let fused = sess
            .run(&RunArgs::new().feed(&lines, records.clone()).fetch(&rows))
            .map(|mut v| v.remove(0));
        let unfused = sess
            .run(
                &RunArgs::new()
                    .feed(&lines, records)
                    .fetch(&rows)
                    .fetch(&cols[0]),
            )
            .map(|mut v| v.remove(0));
        (plan, fused, unfused)
    }

    #[test]
    fn a_stack_of_every_decode_csv_column_is_made_by_the_decoder() {
        let ints = || {
            vec![
                Tensor::from(vec![0i32]),
                Tensor::from(vec![7i32]),
                Tensor::from(Vec::<i32>::new()),
            ]
        };
        // One line, as TextLineReader.read gives it.
        let line = Tensor::from(vec!["1,,3"]).reshape(&[]).unwrap();
        let (plan, fused, unfused) = csv_stack(line.clone(), 0, ints(), 0);
        // The Pack step passes the decoder's stack on: it reads one input, not three.
        let pack = plan.iter().find(|(op, _, _)| op == "Pack").unwrap();
        assert_eq!(pack.2, 1);
        let (fused, unfused) = (fused.unwrap(), unfused.unwrap());
        assert_eq!(fused, unfused);
        assert_eq!(fused.shape(), &[3]);
        assert_eq!(fused.to_vec::<i32>().unwrap(), vec![1, 7, 3]);
        // A batch of lines, stacked as rows and as columns; strings too.
        let lines = Tensor::from(vec!["1,2,3", "4,,6"]);
        for axis in [1, -1, 0] {
            let (_, fused, unfused) = csv_stack(lines.clone(), 1, ints(), axis);
            assert_eq!(fused.unwrap(), unfused.unwrap(), "axis {axis}");
        }
        let strs = vec![Tensor::from(vec!["a"]), Tensor::from(vec!["b"])];
        let (_, fused, unfused) =
            csv_stack(Tensor::from(vec!["x,"]).reshape(&[]).unwrap(), 0, strs, -1);
        assert_eq!(fused.unwrap().to_strings().unwrap(), vec!["x", "b"]);
        assert!(unfused.is_ok());
    }

    #[test]
    fn a_fused_decode_csv_reports_the_errors_of_the_unfused_one() {
        let ints = || vec![Tensor::from(vec![0i32]), Tensor::from(Vec::<i32>::new())];
        for line in ["1", "1,2,3", "x,1", "1,", "\"1,2"] {
            for rank in [0, 1] {
                let records = if rank == 0 {
                    Tensor::from(vec![line]).reshape(&[]).unwrap()
                } else {
                    Tensor::from(vec!["5,6", line])
                };
                let (_, fused, unfused) = csv_stack(records, rank, ints(), 0);
                let (f, u) = (fused.unwrap_err(), unfused.unwrap_err());
                assert_eq!((f.code(), f.message()), (u.code(), u.message()), "{line:?}");
            }
        }
    }

    #[test]
    fn decode_raw_bytes_read_only_by_a_cast_decode_to_floats() {
        decode_raw_then_cast(false);
        decode_raw_then_cast(true);
    }

    /// decode_raw, then (with `reshaped`) reshape to [-1, 3], then cast to float32.
    fn decode_raw_then_cast(reshaped: bool) {
        weir_ops::register_all_ops();
        let g = Graph::new();
        let raw = placeholder(&g, DType::String, Shape::unknown()).unwrap();
        let mut bytes = decode_raw(&raw, DType::U8).unwrap();
        if reshaped {
            bytes = reshape(&bytes, [-1i64, 3]).unwrap();
        }
        let floats = cast(&bytes, DType::F32).unwrap();
        let good = Tensor::from_byte_strings(&[vec![0u8, 1, 255], vec![7, 128, 9]]);
        let plan = dtypes_of_plan(&g, &[(&raw, good.shape())], &[&floats]);
        for op in ["DecodeRaw", "Reshape"] {
            if let Some(step) = plan.iter().find(|(o, _, _)| o == op) {
                assert_eq!(step.1, vec![DType::F32], "{op}");
            }
        }
        let sess = Session::new(&g).unwrap();
        let run = |t: &Tensor, both: bool| {
            let mut args = RunArgs::new().feed(&raw, t.clone()).fetch(&floats);
            if both {
                args = args.fetch(&bytes);
            }
            sess.run(&args).map(|mut v| v.remove(0))
        };
        let fused = run(&good, false).unwrap();
        assert_eq!(fused, run(&good, true).unwrap());
        assert_eq!(fused.shape(), &[2, 3]);
        assert_eq!(
            fused.to_vec::<f32>().unwrap(),
            vec![0., 1., 255., 7., 128., 9.]
        );
        let bad = Tensor::from_byte_strings(&[vec![0u8, 1], vec![7]]);
        let (f, u) = (run(&bad, false).unwrap_err(), run(&bad, true).unwrap_err());
        assert_eq!((f.code(), f.message()), (u.code(), u.message()));
    }
}
