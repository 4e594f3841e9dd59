//! The training program of the `digits_sparse` example, shared with its integration test: the
//! digits as Examples of sparse features (`pixels`: the ids of the inked pixels, `weights`:
//! their intensities), read by `make_batched_features_dataset` as sparse tensors and combined
//! by a linear softmax model through `embedding_lookup_sparse`.

use std::path::Path;

use weir::ops::data::{Component, MakeBatchedFeaturesDataset};
use weir::ops::nn::embedding_lookup_sparse;
use weir::prelude::*;
use weir::train::{AdamOptimizer, Optimizer};

/// A pixel counts as inked from this intensity (of 16) on.
const INKED: u8 = 4;
/// Pixels per 8x8 image.
const PIXELS: usize = 64;
const BATCH: i64 = 32;

/// Writes digits (64 intensities in 0..=16 and a label each) as Examples of sparse features
/// into `path`, and returns the path.
pub fn write_sparse<'a>(
    path: &Path,
    digits: impl IntoIterator<Item = (&'a [u8], i64)>,
) -> Result<String> {
    let mut w = TfRecordWriter::create(path, Compression::None)?;
    for (pixels, label) in digits {
        let (ids, weights): (Vec<i64>, Vec<f32>) = pixels
            .iter()
            .enumerate()
            .filter(|(_, &p)| p >= INKED)
            .map(|(i, &p)| (i as i64, f32::from(p) / 16.0))
            .unzip();
        let ex = Example::builder()
            .int64("pixels", ids)
            .float("weights", weights)
            .int64("label", [label])
            .build();
        w.write(ex.to_bytes())?;
    }
    w.close()?;
    Ok(path.to_string_lossy().into_owned())
}

fn features() -> Features {
    Features::new()
        .add("pixels", VarLenFeature::new(DType::I64))
        .add("weights", VarLenFeature::new(DType::F32))
        .add("label", FixedLenFeature::new(&[], DType::I64))
}

/// The linear model's weights: one row of 10 class weights per pixel id, and the biases.
fn variables(g: &Graph) -> Result<(Output, Output)> {
    let w = GetVariable::new("pixel_weights")
        .shape(&[PIXELS, 10])
        .initializer(Initializer::Zeros)
        .build(g)?;
    let b = GetVariable::new("biases")
        .shape(&[10])
        .initializer(Initializer::Zeros)
        .build(g)?;
    Ok((w.value(), b.value()))
}

/// The logits of a batch's sparse pixel ids and weights, and its labels.
fn model(w: &Output, b: &Output, batch: &[Component]) -> Result<(Output, Output)> {
    // Components: the features by name ("pixels", "weights"), then the label.
    let (pixels, weights, label) = (batch[0].sparse()?, batch[1].sparse()?, batch[2].tensor()?);
    let combined = embedding_lookup_sparse(std::slice::from_ref(w), pixels, Some(weights), "sum")?;
    Ok((nn::bias_add(&combined, b)?, label.clone()))
}

/// Trains on `train_file` for `epochs` epochs (until the dataset ends), then returns the
/// accuracy on `eval_file` (`eval_count` Examples); prints progress when `verbose`.
pub fn train_and_evaluate(
    train_file: &str,
    eval_file: &str,
    eval_count: usize,
    epochs: i64,
    verbose: bool,
) -> Result<f64> {
    let g = Graph::new();
    g.set_random_seed(1);
    let (training, names) = MakeBatchedFeaturesDataset::new(&[train_file], BATCH, features())
        .label_key("label")
        .num_epochs(Some(epochs))
        .shuffle_seed(1)
        .build(&g)?;
    if verbose {
        let spec: Vec<String> = training
            .element_spec()
            .iter()
            .map(|s| s.to_string())
            .collect();
        println!("components {names:?}: {}", spec.join(", "));
    }
    let (evaluation, _) = MakeBatchedFeaturesDataset::new(&[eval_file], 256, features())
        .label_key("label")
        .num_epochs(Some(1))
        .shuffle(false)
        .build(&g)?;

    let (w, b) = variables(&g)?;
    let next = training.make_one_shot_iterator()?.get_next_components()?;
    let (logits, labels) = model(&w, &b, &next)?;
    let xent = nn::sparse_softmax_cross_entropy_with_logits(&labels, &logits)?;
    let loss = Reduce::mean().build(&xent)?;
    let train_op = AdamOptimizer::new(0.05).minimize(&loss, None, None)?;
    let next = evaluation.make_one_shot_iterator()?.get_next_components()?;
    let (eval_logits, eval_labels) = model(&w, &b, &next)?;
    let hits = cast(&nn::in_top_k(&eval_logits, &eval_labels, 1)?, DType::I64)?;
    let correct = Reduce::sum().build(&hits)?;

    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let (mut steps, mut recent) = (0usize, Vec::new());
    loop {
        match sess.run(&RunArgs::new().target(&train_op).fetch(&loss)) {
            Ok(out) => recent.push(out[0].to_scalar::<f32>()?),
            Err(e) if e.is_out_of_range() => break,
            Err(e) => return Err(e),
        }
        steps += 1;
        if verbose && steps % 500 == 0 {
            let mean = recent.iter().sum::<f32>() / recent.len() as f32;
            println!("step {steps:>5}  mean loss {mean:.4}");
            recent.clear();
        }
    }
    let mut right = 0i64;
    loop {
        match sess.run(&RunArgs::new().fetch(&correct)) {
            Ok(out) => right += out[0].to_scalar::<i64>()?,
            Err(e) if e.is_out_of_range() => break,
            Err(e) => return Err(e),
        }
    }
    if verbose {
        println!("{steps} steps (the dataset ended); held-out {right}/{eval_count} right");
    }
    Ok(right as f64 / eval_count as f64)
}
