//! A recurrent classifier, TensorFlow 1's "MNIST as sequences" tutorial on the shipped digits:
//! each 8x8 image is read as 8 time steps of 8 pixels by an LSTM (`tf.nn.dynamic_rnn` over a
//! `BasicLSTMCell`), whose last output feeds a softmax layer; Adam trains it through the loop's
//! gradient, fed by placeholders. Half the images train, the other half measure the accuracy.
//!
//! `cargo run --release --example digits_rnn [-- --epochs N]`

#[path = "../common/mod.rs"]
mod common;
mod model;

fn main() -> weir::Result<()> {
    let epochs = std::env::args()
        .skip_while(|a| a != "--epochs")
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let (train, test) = common::split(&common::digits()?);
    let accuracy = model::train_and_evaluate(
        (&train.features, &train.labels),
        (&test.features, &test.labels),
        epochs,
        true,
    )?;
    println!("held-out accuracy of the LSTM: {accuracy:.3}");
    Ok(())
}
