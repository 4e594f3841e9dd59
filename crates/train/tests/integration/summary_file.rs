//! A FileWriter's event file read back: TFRecord framing, Event protos, summary values.

use prost::Message;
use weir_graph::{Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::io::{tf_record_iterator, TfRecordOptions};
use weir_ops::summary::{self, proto::event::What, proto::summary_value::Value, proto::Event};
use weir_session::Session;
use weir_train::FileWriter;

#[test]
fn events_read_back_with_their_values() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("weir-events-test-{}", std::process::id()));
    let g = Graph::new();
    let loss = constant(&g, 0.25f32)?;
    summary::scalar("loss", &loss)?;
    summary::histogram(
        "weights",
        constant(&g, Tensor::from(vec![1.0f32, 2.0, 3.0]))?,
    )?;
    let merged = summary::merge_all(&g)?.expect("summaries");
    let sess = Session::new(&g)?;
    let writer = FileWriter::new(&dir)?;
    writer.add_summary(&sess.eval(&merged)?, 7)?;
    writer.add_scalar("direct", 1.5, 8)?;
    writer.close()?;
    assert!(writer
        .add_scalar("late", 0.0, 9)
        .unwrap_err()
        .is_failed_precondition());

    let events: Vec<Event> = tf_record_iterator(writer.path(), TfRecordOptions::default())?
        .map(|r| Event::decode(r.expect("record")).expect("an Event"))
        .collect();
    assert_eq!(events.len(), 3);
    assert_eq!(
        events[0].what,
        Some(What::FileVersion("brain.Event:2".into()))
    );
    match &events[1].what {
        Some(What::Summary(s)) => {
            assert_eq!(events[1].step, 7);
            assert_eq!(s.value[0].tag, "loss");
            assert_eq!(s.value[0].value, Some(Value::SimpleValue(0.25)));
            assert_eq!(s.value[1].tag, "weights");
            assert!(
                matches!(&s.value[1].value, Some(Value::Histo(h)) if h.num == 3.0 && h.sum == 6.0)
            );
        }
        other => panic!("expected a summary, got {other:?}"),
    }
    assert!(
        matches!(&events[2].what, Some(What::Summary(s)) if s.value[0].value == Some(Value::SimpleValue(1.5)))
    );
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

/// Image and text summaries go through a FileWriter's event file with every field.
#[test]
fn image_and_text_summaries_read_back_from_the_event_file() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("weir-events-image-{}", std::process::id()));
    let g = Graph::new();
    let pixels = Tensor::from_vec(&[1, 2, 3, 1], vec![0u8, 50, 100, 150, 200, 250])?;
    summary::image("digits", constant(&g, pixels)?, 3)?;
    summary::text("note", constant(&g, Tensor::from("hello"))?)?;
    let merged = summary::merge_all(&g)?.expect("summaries");
    let sess = Session::new(&g)?;
    let writer = FileWriter::new(&dir)?;
    writer.add_summary(&sess.eval(&merged)?, 3)?;
    writer.close()?;
    let events: Vec<Event> = tf_record_iterator(writer.path(), TfRecordOptions::default())?
        .map(|r| Event::decode(r.expect("record")).expect("an Event"))
        .collect();
    let Some(What::Summary(s)) = &events[1].what else {
        panic!("expected a summary, got {:?}", events[1].what);
    };
    assert_eq!(s.value[0].tag, "digits/image/0");
    match &s.value[0].value {
        Some(Value::Image(img)) => {
            assert_eq!((img.height, img.width, img.colorspace), (2, 3, 1));
            assert!(img.encoded_image_string.starts_with(b"\x89PNG"));
        }
        other => panic!("expected an image, got {other:?}"),
    }
    assert_eq!(s.value[1].tag, "note");
    let plugin = s.value[1]
        .metadata
        .as_ref()
        .and_then(|m| m.plugin_data.as_ref());
    assert_eq!(plugin.map(|p| p.plugin_name.as_str()), Some("text"));
    assert!(
        matches!(&s.value[1].value, Some(Value::Tensor(t)) if t.string_val[0].as_ref() == b"hello")
    );
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
