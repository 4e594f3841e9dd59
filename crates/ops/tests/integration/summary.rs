//! Summary ops through a session: the serialized Summary protos decode to the right values.

use prost::Message;
use weir_graph::{graph_keys, Bytes, Graph, Result, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::summary::{self, proto::summary_value::Value, proto::Summary};
use weir_session::{RunArgs, Session};

fn decode(t: &Tensor) -> Summary {
    Summary::decode(t.to_scalar::<Bytes>().unwrap()).unwrap()
}

#[test]
fn scalar_histogram_and_merge_all() -> Result<()> {
    let g = Graph::new();
    let loss = placeholder(&g, weir_graph::DType::F32, weir_graph::Shape::scalar())?;
    let s = summary::scalar("loss", &loss)?;
    let w = constant(&g, Tensor::from(vec![1.0f32, 2.0, 2.0, -1.0]))?;
    let h = {
        let _scope = g.name_scope("layer");
        summary::histogram("weights", &w)?
    };
    assert_eq!(g.get_collection(graph_keys::SUMMARIES).len(), 2);
    let all = summary::merge_all(&g)?.expect("two summaries");
    let sess = Session::new(&g)?;
    let out = sess.run(
        &RunArgs::new()
            .feed(&loss, 0.25f32)
            .fetch(&s)
            .fetch(&h)
            .fetch(&all),
    )?;
    let scalar = decode(&out[0]);
    assert_eq!(scalar.value[0].tag, "loss");
    assert_eq!(scalar.value[0].value, Some(Value::SimpleValue(0.25)));
    let hist = decode(&out[1]);
    assert_eq!(hist.value[0].tag, "layer/weights");
    match &hist.value[0].value {
        Some(Value::Histo(p)) => {
            assert_eq!(
                (p.min, p.max, p.num, p.sum, p.sum_squares),
                (-1.0, 2.0, 4.0, 4.0, 10.0)
            );
            assert_eq!(p.bucket.iter().sum::<f64>(), 4.0);
        }
        other => panic!("expected a histogram, got {other:?}"),
    }
    let merged = decode(&out[2]);
    let tags: Vec<&str> = merged.value.iter().map(|v| v.tag.as_str()).collect();
    assert_eq!(tags, vec!["loss", "layer/weights"]);
    Ok(())
}

#[test]
fn duplicate_tags_and_nan_are_errors() -> Result<()> {
    let g = Graph::new();
    let a = summary::scalar("x", constant(&g, 1.0f32)?)?;
    let sess = Session::new(&g)?;
    let e = sess.eval(summary::merge(&[a.clone(), a])?).unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(e.message(), "Duplicate tag x found in summary inputs");
    let bad = summary::histogram("h", constant(&g, Tensor::from(vec![f32::NAN]))?)?;
    let e = sess.eval(&bad).unwrap_err();
    assert_eq!(e.message(), "Nan in summary histogram for: h");
    assert!(summary::merge_all(&Graph::new())?.is_none());
    Ok(())
}
