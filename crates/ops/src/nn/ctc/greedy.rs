//! `CTCGreedyDecoder`: best-path decoding (the most likely class at each step, repeats merged
//! when asked, blanks dropped), and the shared input checks and sparse output layout of the
//! CTC decoders (TensorFlow's `CTCDecodeHelper`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Result, Tensor,
};

use super::shapes::decoder_shapes;
use super::CtcFloat;
use crate::nn::match_float;

/// The decoders' input checks (`ValidateInputsGenerateOutputs`): `(max_time, batch, classes)`
/// and the sequence lengths.
pub(super) fn check_decoder_inputs<'a>(ctx: &'a OpContext<'_>) -> Result<([usize; 3], &'a [i32])> {
    let (inputs, seq_len) = (ctx.input(0), ctx.input(1));
    if inputs.rank() != 3 {
        return Err(Error::invalid_argument("inputs is not a 3-Tensor"));
    }
    if inputs.num_elements() == 0 {
        return Err(Error::invalid_argument("inputs must not be empty"));
    }
    let dims = [inputs.shape()[0], inputs.shape()[1], inputs.shape()[2]];
    if seq_len.rank() != 1 {
        return Err(Error::invalid_argument("sequence_length is not a vector"));
    }
    if seq_len.shape()[0] != dims[1] {
        return Err(Error::failed_precondition(format!(
            "len(sequence_length) != batch_size.  len(sequence_length):  {} batch_size: {}",
            seq_len.shape()[0],
            dims[1]
        )));
    }
    let seq = seq_len.as_slice::<i32>()?;
    for (b, &s) in seq.iter().enumerate() {
        if i64::from(s) > dims[0] as i64 {
            return Err(Error::failed_precondition(format!(
                "sequence_length({b}) <= {}",
                dims[0]
            )));
        }
    }
    if dims[2] > i32::MAX as usize {
        return Err(Error::invalid_argument("num_classes cannot exceed max int"));
    }
    Ok((dims, seq))
}

/// `StoreAllDecodedSequences`: `sequences[b][p]` as one sparse tensor per path `p` (outputs
/// `p`, `paths + p` and `2 paths + p`: indices `[b, t]`, values, dense shape
/// `[batch, longest]`).
pub(super) fn store_sequences(
    ctx: &mut OpContext<'_>,
    sequences: &[Vec<Vec<i64>>],
    paths: usize,
) -> Result<()> {
    let batch = sequences.len();
    for p in 0..paths {
        let total: usize = sequences.iter().map(|s| s[p].len()).sum();
        let mut indices = Vec::with_capacity(2 * total);
        let mut values = Vec::with_capacity(total);
        let mut longest = 0;
        for (b, s) in sequences.iter().enumerate() {
            longest = longest.max(s[p].len());
            for (t, &v) in s[p].iter().enumerate() {
                indices.extend([b as i64, t as i64]);
                values.push(v);
            }
        }
        ctx.set_output(p, Tensor::from_vec(&[total, 2], indices)?);
        ctx.set_output(paths + p, Tensor::from_vec(&[total], values)?);
        ctx.set_output(
            2 * paths + p,
            Tensor::from(vec![batch as i64, longest as i64]),
        );
    }
    Ok(())
}

struct GreedyKernel {
    merge_repeated: bool,
    blank_index: i64,
}

impl GreedyKernel {
    /// The decoded classes of each batch entry and minus the sum of each step's greatest logit.
    fn decode<T: CtcFloat>(
        &self,
        x: &[T],
        [_, batch, classes]: [usize; 3],
        seq: &[i32],
        blank: usize,
    ) -> (Vec<Vec<Vec<i64>>>, Vec<T>) {
        let mut sequences = Vec::with_capacity(batch);
        let mut log_prob = vec![T::ZERO; batch];
        for (b, &len) in seq.iter().enumerate() {
            let mut decoded = Vec::new();
            let mut prev = None;
            for t in 0..len.max(0) as usize {
                let row = &x[(t * batch + b) * classes..(t * batch + b + 1) * classes];
                // The first greatest logit, as TensorFlow's RowMax finds it.
                let mut best = 0;
                for (c, &v) in row.iter().enumerate().skip(1) {
                    if v > row[best] {
                        best = c;
                    }
                }
                log_prob[b] = log_prob[b] + -row[best];
                if best != blank && !(self.merge_repeated && prev == Some(best)) {
                    decoded.push(best as i64);
                }
                prev = Some(best);
            }
            sequences.push(vec![decoded]);
        }
        (sequences, log_prob)
    }
}

impl Kernel for GreedyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (dims, seq) = check_decoder_inputs(ctx)?;
        let classes = dims[2] as i64;
        let blank = if self.blank_index < 0 {
            classes + self.blank_index
        } else {
            self.blank_index
        };
        if !(0..classes).contains(&blank) {
            return Err(Error::invalid_argument(format!(
                "blank_index expected to be between {} and {} but was {}",
                -classes,
                classes - 1,
                self.blank_index
            )));
        }
        let inputs = ctx.input(0);
        let (sequences, log_prob) = match_float!(inputs.dtype(), T => {
            let (s, lp) = self.decode::<T>(inputs.as_slice::<T>()?, dims, seq, blank as usize);
            (s, Tensor::from_vec(&[dims[1], 1], lp)?)
        });
        store_sequences(ctx, &sequences, 1)?;
        ctx.set_output(3, log_prob);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(GreedyKernel {
        merge_repeated: node.attr("merge_repeated")?,
        blank_index: node.attr("blank_index")?,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    decoder_shapes(ctx, 1, 1)
}

pub(super) fn register() {
    register_op(
        OpDef::new("CTCGreedyDecoder")
            .input("inputs", ArgType::Attr("T"))
            .input("sequence_length", ArgType::Fixed(DType::I32))
            .output("decoded_indices", ArgType::Fixed(DType::I64))
            .output("decoded_values", ArgType::Fixed(DType::I64))
            .output("decoded_shape", ArgType::Fixed(DType::I64))
            .output("log_probability", ArgType::Attr("T"))
            .attr(
                "merge_repeated",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .attr("blank_index", AttrKind::Int, Some(AttrValue::Int(-1)))
            .type_attr("T", &[DType::F32, DType::F64])
            .shape_fn(shape_fn),
    );
    register_kernel("CTCGreedyDecoder", make);
}
