//! Run-plan rewrites that save work without changing any value a run returns: a kernel that
//! can produce an output already cast does so when that Cast is the output's only reader.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use weir_graph::{DType, Kernel, Node};

use crate::plan::PlanKey;

/// Lets a kernel produce an output already converted when a `Cast` is all that reads it and the
/// output is neither fed nor fetched ([`Kernel::with_output_cast`]); the Cast then passes its
/// input on unchanged. Returns the outputs changed, with the dtype they now have.
///
/// Why: `parse_example` of an int64 image feature followed by `cast(..., float32)` is how the
/// MNIST-style pipelines read their pixels, and the int64 batch between them (800 KB per 128
/// examples) was written and read once more for nothing.
pub(crate) fn fuse_casts(
    nodes: &[Arc<Node>],
    ids: &[usize],
    key: &PlanKey,
    fed: &HashSet<(usize, usize)>,
    kernels: &mut HashMap<usize, Arc<dyn Kernel>>,
) -> HashMap<(usize, usize), DType> {
    let mut readers: HashMap<(usize, usize), usize> = HashMap::new();
    for &n in ids {
        for &inp in nodes[n].inputs() {
            *readers.entry(inp).or_default() += 1;
        }
    }
    let mut fused = HashMap::new();
    for &n in ids {
        let node = &nodes[n];
        if node.op_type() != "Cast" {
            continue;
        }
        let src = node.inputs()[0];
        let dst = node.output_dtypes()[0];
        if fed.contains(&src)
            || key.fetches.contains(&src)
            || readers.get(&src) != Some(&1)
            || fused.contains_key(&src)
            || nodes[src.0].output_dtypes()[src.1] == dst
        {
            continue;
        }
        if let Some(k) = kernels[&src.0].with_output_cast(src.1, dst) {
            kernels.insert(src.0, k);
            fused.insert(src, dst);
        }
    }
    fused
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use weir_graph::{DType, Graph, Kernel, Output, Result, Tensor};
    use weir_ops::array::constant;
    use weir_ops::io::example::Example;
    use weir_ops::math::cast;
    use weir_ops::parsing::{parse_example, Features, FixedLenFeature};

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

    fn dtypes_of_plan(g: &Graph, fetches: &[&Output]) -> Vec<(String, Vec<DType>)> {
        let key = PlanKey {
            feeds: vec![],
            fetches: fetches.iter().map(|o| (o.node_id(), o.index())).collect(),
            targets: vec![],
        };
        let plan = build_plan(g, &key, &[], true, |node| {
            let make = weir_graph::registry::kernel_factory(node.op_type())?;
            Ok(Arc::from(make(node)?) as Arc<dyn Kernel>)
        })
        .unwrap();
        plan.steps
            .iter()
            .map(|s| (s.node.op_type().to_string(), s.output_dtypes.clone()))
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
            dtypes_of_plan(&g, fetches)
                .into_iter()
                .find(|(op, _)| op == "ParseExample")
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
}
