//! The Python-level CTC functions of TensorFlow 1.x (`tf.compat.v1.nn.ctc_loss`,
//! `tf.nn.ctc_greedy_decoder`, `tf.compat.v1.nn.ctc_beam_search_decoder`), with their defaults.

use weir_graph::{Output, Result};

use crate::sparse::SparseOutput;

/// `tf.compat.v1.nn.ctc_loss` with options: TensorFlow's defaults are
/// `preprocess_collapse_repeated=False`, `ctc_merge_repeated=True`,
/// `ignore_longer_outputs_than_inputs=False`, `time_major=True`.
///
/// ```
/// # use weir_graph::Tensor;
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, nn::CtcLoss, sparse::SparseOutput};
/// let g = Graph::new();
/// // Batch-major logits [batch=1, time=2, classes=3] (class 2 is the blank); label "0".
/// let logits = constant(&g, Tensor::from_vec(&[1, 2, 3], vec![2.0f32, 0.0, 1.0, 0.0, 0.0, 3.0])?)?;
/// let labels = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[1, 2], vec![0i64, 0])?)?,
///     constant(&g, vec![0i32])?,
///     constant(&g, vec![1i64, 1])?,
/// )?;
/// let loss = CtcLoss::new().time_major(false).build(&labels, &logits, constant(&g, vec![2i32])?)?;
/// let v = weir_session::Session::new(&g)?.eval(&loss)?.to_vec::<f32>()?;
/// assert!(v[0] > 0.0 && v[0].is_finite());
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CtcLoss {
    preprocess_collapse_repeated: bool,
    ctc_merge_repeated: bool,
    ignore_longer_outputs_than_inputs: bool,
    time_major: bool,
}

impl Default for CtcLoss {
    fn default() -> CtcLoss {
        CtcLoss::new()
    }
}

impl CtcLoss {
    /// TensorFlow's defaults.
    pub fn new() -> CtcLoss {
        CtcLoss {
            preprocess_collapse_repeated: false,
            ctc_merge_repeated: true,
            ignore_longer_outputs_than_inputs: false,
            time_major: true,
        }
    }

    /// Merge repeated labels before the loss (`a a b` becomes `a b`).
    pub fn preprocess_collapse_repeated(mut self, v: bool) -> CtcLoss {
        self.preprocess_collapse_repeated = v;
        self
    }

    /// Let paths that repeat a label without a blank in between emit it once.
    pub fn ctc_merge_repeated(mut self, v: bool) -> CtcLoss {
        self.ctc_merge_repeated = v;
        self
    }

    /// Give loss and gradient 0 to entries whose labels are longer than their input, instead of
    /// failing.
    pub fn ignore_longer_outputs_than_inputs(mut self, v: bool) -> CtcLoss {
        self.ignore_longer_outputs_than_inputs = v;
        self
    }

    /// Whether `inputs` is `[max_time, batch, classes]` (else `[batch, max_time, classes]`,
    /// transposed first).
    pub fn time_major(mut self, v: bool) -> CtcLoss {
        self.time_major = v;
        self
    }

    /// Adds the `CTCLoss` node: the loss of each batch entry (`[batch]`). `labels` holds int32
    /// class ids at `[batch, position]`; `sequence_length` is int32 `[batch]`.
    pub fn build(
        &self,
        labels: &SparseOutput,
        inputs: impl Into<Output>,
        sequence_length: impl Into<Output>,
    ) -> Result<Output> {
        let (mut x, seq) = (inputs.into(), sequence_length.into());
        let g = crate::util::same_graph(&[&x, &seq, &labels.indices])?.clone();
        if !self.time_major {
            x = crate::array::transpose(x, vec![1i64, 0, 2])?;
        }
        crate::new_op(&g, "CTCLoss")
            .input(x)
            .input(&labels.indices)
            .input(&labels.values)
            .input(seq)
            .attr(
                "preprocess_collapse_repeated",
                self.preprocess_collapse_repeated,
            )
            .attr("ctc_merge_repeated", self.ctc_merge_repeated)
            .attr(
                "ignore_longer_outputs_than_inputs",
                self.ignore_longer_outputs_than_inputs,
            )
            .build()?
            .output(0)
    }
}

/// `tf.compat.v1.nn.ctc_loss(labels, inputs, sequence_length)` with TensorFlow's defaults
/// (time-major logits, repeats merged by paths, not collapsed in the labels); see [`CtcLoss`].
pub fn ctc_loss(
    labels: &SparseOutput,
    inputs: impl Into<Output>,
    sequence_length: impl Into<Output>,
) -> Result<Output> {
    CtcLoss::new().build(labels, inputs, sequence_length)
}

/// `tf.nn.ctc_greedy_decoder` with options: `merge_repeated` (default true) and `blank_index`
/// (default: the last class; negative counts from the end).
#[derive(Clone, Debug)]
pub struct CtcGreedyDecoder {
    merge_repeated: bool,
    blank_index: Option<i64>,
}

impl Default for CtcGreedyDecoder {
    fn default() -> CtcGreedyDecoder {
        CtcGreedyDecoder::new()
    }
}

impl CtcGreedyDecoder {
    /// TensorFlow's defaults.
    pub fn new() -> CtcGreedyDecoder {
        CtcGreedyDecoder {
            merge_repeated: true,
            blank_index: None,
        }
    }

    /// Emit a class once when it is the best at consecutive steps.
    pub fn merge_repeated(mut self, v: bool) -> CtcGreedyDecoder {
        self.merge_repeated = v;
        self
    }

    /// The blank class (default: the last).
    pub fn blank_index(mut self, v: i64) -> CtcGreedyDecoder {
        self.blank_index = Some(v);
        self
    }

    /// Adds the `CTCGreedyDecoder` node: the decoded classes (one sparse `[batch, max_len]`
    /// int64 tensor, in a one-element list as TensorFlow returns it) and minus the sum of each
    /// step's greatest logit (`[batch, 1]`).
    pub fn build(
        &self,
        inputs: impl Into<Output>,
        sequence_length: impl Into<Output>,
    ) -> Result<(Vec<SparseOutput>, Output)> {
        let (x, seq) = (inputs.into(), sequence_length.into());
        let g = crate::util::same_graph(&[&x, &seq])?.clone();
        let op = crate::new_op(&g, "CTCGreedyDecoder")
            .input(x)
            .input(seq)
            .attr("merge_repeated", self.merge_repeated)
            .attr("blank_index", self.blank_index.unwrap_or(-1))
            .build()?;
        Ok((vec![SparseOutput::from_op(&op)?], op.output(3)?))
    }
}

/// `tf.nn.ctc_greedy_decoder(inputs, sequence_length, merge_repeated)`: best-path decoding of
/// time-major logits `[max_time, batch, classes]`, the blank being the last class.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::ctc_greedy_decoder};
/// let g = Graph::new();
/// // 3 steps, 1 batch entry, classes {0, 1, blank}: best path 0 0 1 -> "0 1".
/// let x = constant(&g, Tensor::from_vec(&[3, 1, 3], vec![3.0f32, 0.0, 1.0, 3.0, 0.0, 1.0, 0.0, 2.0, 1.0])?)?;
/// let (decoded, _) = ctc_greedy_decoder(&x, constant(&g, vec![3i32])?, true)?;
/// let v = weir_session::Session::new(&g)?.eval(&decoded[0].values)?.to_vec::<i64>()?;
/// assert_eq!(v, [0, 1]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn ctc_greedy_decoder(
    inputs: impl Into<Output>,
    sequence_length: impl Into<Output>,
    merge_repeated: bool,
) -> Result<(Vec<SparseOutput>, Output)> {
    CtcGreedyDecoder::new()
        .merge_repeated(merge_repeated)
        .build(inputs, sequence_length)
}

/// `tf.compat.v1.nn.ctc_beam_search_decoder` with options: `beam_width` (default 100),
/// `top_paths` (default 1) and `merge_repeated` (default true).
#[derive(Clone, Debug)]
pub struct CtcBeamSearchDecoder {
    beam_width: i64,
    top_paths: i64,
    merge_repeated: bool,
}

impl Default for CtcBeamSearchDecoder {
    fn default() -> CtcBeamSearchDecoder {
        CtcBeamSearchDecoder::new()
    }
}

impl CtcBeamSearchDecoder {
    /// TensorFlow's defaults.
    pub fn new() -> CtcBeamSearchDecoder {
        CtcBeamSearchDecoder {
            beam_width: 100,
            top_paths: 1,
            merge_repeated: true,
        }
    }

    /// The number of prefixes kept at each step (at least 1).
    pub fn beam_width(mut self, v: i64) -> CtcBeamSearchDecoder {
        self.beam_width = v;
        self
    }

    /// The number of best paths returned (at least 1, at most `beam_width`).
    pub fn top_paths(mut self, v: i64) -> CtcBeamSearchDecoder {
        self.top_paths = v;
        self
    }

    /// Merge repeated classes in the returned paths.
    pub fn merge_repeated(mut self, v: bool) -> CtcBeamSearchDecoder {
        self.merge_repeated = v;
        self
    }

    /// Adds the `CTCBeamSearchDecoder` node: `top_paths` sparse `[batch, max_len]` int64
    /// tensors, best first, and their log probabilities (`[batch, top_paths]`).
    pub fn build(
        &self,
        inputs: impl Into<Output>,
        sequence_length: impl Into<Output>,
    ) -> Result<(Vec<SparseOutput>, Output)> {
        let (x, seq) = (inputs.into(), sequence_length.into());
        let g = crate::util::same_graph(&[&x, &seq])?.clone();
        let op = crate::new_op(&g, "CTCBeamSearchDecoder")
            .input(x)
            .input(seq)
            .attr("beam_width", self.beam_width)
            .attr("top_paths", self.top_paths)
            .attr("merge_repeated", self.merge_repeated)
            .build()?;
        let n = self.top_paths as usize;
        let decoded = (0..n)
            .map(|p| SparseOutput::new(op.output(p)?, op.output(n + p)?, op.output(2 * n + p)?))
            .collect::<Result<Vec<_>>>()?;
        Ok((decoded, op.output(3 * n)?))
    }
}

/// `tf.compat.v1.nn.ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths,
/// merge_repeated)`: the `top_paths` most likely label sequences of time-major logits, by
/// TensorFlow's prefix beam search, and their log probabilities.
pub fn ctc_beam_search_decoder(
    inputs: impl Into<Output>,
    sequence_length: impl Into<Output>,
    beam_width: i64,
    top_paths: i64,
    merge_repeated: bool,
) -> Result<(Vec<SparseOutput>, Output)> {
    CtcBeamSearchDecoder::new()
        .beam_width(beam_width)
        .top_paths(top_paths)
        .merge_repeated(merge_repeated)
        .build(inputs, sequence_length)
}
