//! The LSTM digit classifier of the `digits_rnn` example: built, trained and evaluated on
//! plain arrays, so the example and its test share it.

use std::time::Instant;

use weir::prelude::*;
use weir::train::rnn::{BasicLstmCell, DynamicRnn, RnnCell};

/// Rows of an image: the time steps.
pub const STEPS: usize = 8;
/// Pixels of a row: the features of a step.
pub const PIXELS: usize = 8;
const UNITS: usize = 32;
const BATCH: usize = 64;

/// `[rows, 8, 8]` images scaled from 0..16 to [0, 1].
fn images(pixels: &[f32], rows: std::ops::Range<usize>) -> Result<Tensor> {
    let n = STEPS * PIXELS;
    let scaled: Vec<f32> = pixels[rows.start * n..rows.end * n]
        .iter()
        .map(|p| p / 16.0)
        .collect();
    Tensor::from_vec(&[rows.len(), STEPS, PIXELS], scaled)
}

/// Trains the LSTM for `epochs` passes over the images `train_x` (64 pixels each) with labels
/// `train_y`, printing progress when `verbose`, and returns its accuracy on `test_x`/`test_y`.
pub fn train_and_evaluate(
    (train_x, train_y): (&[f32], &[i64]),
    (test_x, test_y): (&[f32], &[i64]),
    epochs: usize,
    verbose: bool,
) -> Result<f64> {
    let g = Graph::new();
    g.set_random_seed(7);
    // x: [batch, 8 rows, 8 pixels]; y: the digit.
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(STEPS), Some(PIXELS)]))
        .name("x")
        .build(&g)?;
    let y = Placeholder::new(DType::I64)
        .shape(Shape::new(vec![None]))
        .name("y")
        .build(&g)?;
    let cell = BasicLstmCell::new(UNITS);
    let (_, state) = DynamicRnn::new().dtype(DType::F32).build(&cell, &x)?;
    let last = state[1].clone(); // h after the last row
    let w = GetVariable::new("softmax/weights")
        .shape(&[cell.output_size(), 10])
        .build(&g)?;
    let b = GetVariable::new("softmax/biases")
        .shape(&[10])
        .initializer(Initializer::Zeros)
        .build(&g)?;
    let logits = nn::bias_add(&matmul(&last, &w)?, &b)?;
    let xent = nn::sparse_softmax_cross_entropy_with_logits(&y, &logits)?;
    let loss = reduce_mean(&xent, Axes::All)?;
    let step = AdamOptimizer::new(0.01).minimize(&loss, None, None)?;
    let prediction = arg_max(&logits, 1)?;

    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let start = Instant::now();
    for epoch in 1..=epochs {
        let (mut total, mut batches) = (0.0, 0);
        for at in (0..train_y.len()).step_by(BATCH) {
            let rows = at..(at + BATCH).min(train_y.len());
            let labels = Tensor::from(train_y[rows.clone()].to_vec());
            let r = sess.run(
                &RunArgs::new()
                    .feed(&x, images(train_x, rows)?)
                    .feed(&y, labels)
                    .fetch(&loss)
                    .target(&step),
            )?;
            total += r[0].to_scalar::<f32>()?;
            batches += 1;
        }
        if verbose && (epoch % 10 == 0 || epoch == 1) {
            println!(
                "epoch {epoch:3}: mean loss {:.4} ({:.1} s)",
                total / batches as f32,
                start.elapsed().as_secs_f64()
            );
        }
    }
    let predicted = sess.run(
        &RunArgs::new()
            .feed(&x, images(test_x, 0..test_y.len())?)
            .fetch(&prediction),
    )?;
    let predicted = predicted[0].to_vec::<i64>()?;
    let right = predicted.iter().zip(test_y).filter(|(p, y)| p == y).count();
    Ok(right as f64 / test_y.len().max(1) as f64)
}
