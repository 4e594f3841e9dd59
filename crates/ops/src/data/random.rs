//! `RandomDataset` (`tf.data.Dataset.random`): an endless dataset of pseudorandom int64
//! scalars, each one 32-bit word of a Philox stream of the op's `(seed, seed2)`, as
//! TensorFlow 2.21 draws them (`SingleSampleAdapter<PhiloxRandom>`), so a seeded dataset gives
//! TensorFlow's values. Every iterator reads the stream from its start; without any seed the
//! stream is fresh for each dataset made, as TensorFlow's `RandomSeeds` picks it.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Graph, Kernel, OpContext, Result, Shape, Tensor};

use super::shuffle::{tf_data_seeds, Words};
use super::{dataset_def, dataset_tensor, Dataset, DatasetBase, Element, IteratorBase};
use super::{IteratorContext, INFINITE_CARDINALITY};
use crate::random::philox::fresh_seed;

struct RandomData {
    seed: u64,
    seed2: u64,
}

impl DatasetBase for RandomData {
    fn output_dtypes(&self) -> &[DType] {
        &[DType::I64]
    }

    fn cardinality(&self) -> i64 {
        INFINITE_CARDINALITY
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(RandomIter(Words::new(self.seed, self.seed2))))
    }
}

struct RandomIter(Words);

impl IteratorBase for RandomIter {
    fn get_next(&mut self, _ctx: &IteratorContext) -> Result<Option<Element>> {
        Ok(Some(vec![Tensor::from(i64::from(self.0.next_u32()))]))
    }
}

struct RandomKernel;

impl Kernel for RandomKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut seed = ctx.input(0).to_scalar::<i64>()? as u64;
        let mut seed2 = ctx.input(1).to_scalar::<i64>()? as u64;
        if seed == 0 && seed2 == 0 {
            seed = fresh_seed();
            seed2 = fresh_seed();
        }
        ctx.set_output(0, dataset_tensor(Arc::new(RandomData { seed, seed2 })));
        Ok(())
    }
}

impl Dataset {
    /// `tf.data.Dataset.random(seed=None)`: an endless dataset of pseudorandom int64 scalars
    /// in `[0, 2^32)` (op `RandomDataset`). The op seed `seed` is combined with the graph's
    /// seed by [`Graph::get_seed`](weir_graph::Graph::get_seed); with neither, each run that
    /// makes the dataset draws new values.
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::random(&g, Some(5))?.take(3)?;
    /// let next = ds.make_one_shot_iterator()?.get_next()?;
    /// // In a session: 3568415791, 2798973839, 2476249224, as in TensorFlow 2.21.
    /// # let _ = next;
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn random(g: &Graph, seed: Option<i64>) -> Result<Dataset> {
        let (seed, seed2) = tf_data_seeds(g, seed);
        let seed = crate::array::constant_named(g, seed, "seed")?;
        let seed2 = crate::array::constant_named(g, seed2, "seed2")?;
        Dataset::build(
            crate::new_op(g, "RandomDataset").input(seed).input(seed2),
            vec![DType::I64],
            vec![Shape::scalar()],
        )
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("RandomDataset")
            .input("seed", ArgType::Fixed(DType::I64))
            .input("seed2", ArgType::Fixed(DType::I64))
            .stateful(),
    );
    register_kernel("RandomDataset", |_| Ok(Box::new(RandomKernel)));
}

#[cfg(test)]
mod tests {
    use weir_graph::{CancellationToken, Graph, Shape};

    use super::*;

    fn first(ds: &RandomData, n: usize) -> Vec<i64> {
        let ctx = IteratorContext {
            cancellation: CancellationToken::new(),
            deadline: None,
        };
        let mut it = ds.make_iterator().unwrap();
        (0..n)
            .map(|_| {
                it.get_next(&ctx).unwrap().unwrap()[0]
                    .to_scalar::<i64>()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn words_are_tensorflows_and_every_iterator_restarts() {
        // TensorFlow 2.21: Dataset.random(seed=5) without a graph seed, seeds (87654321, 5).
        let ds = RandomData {
            seed: 87_654_321,
            seed2: 5,
        };
        let want = [
            3_568_415_791,
            2_798_973_839,
            2_476_249_224,
            2_816_106_479,
            2_507_884_952,
        ];
        assert_eq!(first(&ds, 5), want);
        assert_eq!(first(&ds, 5), want);
        assert_eq!(ds.cardinality(), INFINITE_CARDINALITY);
    }

    #[test]
    fn the_builder_takes_seeds_as_tf_data_does() -> Result<()> {
        let g = Graph::new();
        let ds = Dataset::random(&g, None)?;
        assert_eq!(ds.output_types(), [DType::I64]);
        assert_eq!(ds.output_shapes(), [Shape::scalar()]);
        let seeds: Vec<i64> = ds.handle().op().inputs()[..2]
            .iter()
            .map(|s| {
                s.op()
                    .attr::<Tensor>("value")
                    .unwrap()
                    .to_scalar::<i64>()
                    .unwrap()
            })
            .collect();
        assert_eq!(seeds, [0, 0]);
        g.set_random_seed(3);
        let ds = Dataset::random(&g, Some(11))?;
        let seeds: Vec<i64> = ds.handle().op().inputs()[..2]
            .iter()
            .map(|s| {
                s.op()
                    .attr::<Tensor>("value")
                    .unwrap()
                    .to_scalar::<i64>()
                    .unwrap()
            })
            .collect();
        assert_eq!(seeds, [3, 11]);
        Ok(())
    }
}
