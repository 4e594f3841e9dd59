//! The digits_rnn example's LSTM (dynamic_rnn over a BasicLSTMCell, trained by Adam through the
//! loop's gradient) on the shipped digits, with fewer epochs than the example: guards that it
//! still learns (held-out accuracy at least 0.85).

#[path = "../../examples/common/mod.rs"]
mod common;
#[path = "../../examples/digits_rnn/model.rs"]
mod model;

#[test]
fn the_lstm_learns_the_digits_read_row_by_row() -> weir::Result<()> {
    let (train, test) = common::split(&common::digits()?);
    let accuracy = model::train_and_evaluate(
        (&train.features, &train.labels),
        (&test.features, &test.labels),
        15,
        false,
    )?;
    assert!(accuracy >= 0.85, "held-out accuracy {accuracy:.3}");
    Ok(())
}
