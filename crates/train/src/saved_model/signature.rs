//! `tf.compat.v1.saved_model.signature_def_utils` and `utils`: signatures from tensors, and
//! tensors from signatures.

use weir_graph::graph_def::meta_graph::{
    prepend_name_scope, tensor_info, SignatureDef, TensorInfo,
};
use weir_graph::graph_def::shape_proto;
use weir_graph::{DType, Error, Graph, Output, Result};

use super::signature_constants as sc;

/// `tf.saved_model.build_tensor_info(tensor)`: the tensor's name, dtype and static shape.
pub fn build_tensor_info(tensor: &Output) -> TensorInfo {
    TensorInfo {
        encoding: Some(tensor_info::Encoding::Name(tensor.name())),
        dtype: tensor.dtype().proto_number(),
        tensor_shape: Some(shape_proto(&tensor.shape())),
    }
}

/// `tf.saved_model.get_tensor_from_tensor_info(info, graph, import_scope)`: the tensor a
/// signature names, in `graph` under `import_scope`. NotFound when it is not there;
/// Unimplemented for a sparse tensor's info.
pub fn get_tensor_from_tensor_info(
    info: &TensorInfo,
    graph: &Graph,
    import_scope: Option<&str>,
) -> Result<Output> {
    match &info.encoding {
        Some(tensor_info::Encoding::Name(name)) => {
            graph.tensor_by_name(&prepend_name_scope(name, import_scope))
        }
        Some(tensor_info::Encoding::CooSparse(s)) => Err(Error::unimplemented(format!(
            "The TensorInfo names a SparseTensor ({}); weir reads dense tensors from signatures",
            s.values_tensor_name
        ))),
        None => Err(Error::invalid_argument(
            "Invalid TensorInfo.encoding: none is set",
        )),
    }
}

fn infos(tensors: &[(&str, Output)]) -> std::collections::BTreeMap<String, TensorInfo> {
    tensors
        .iter()
        .map(|(k, t)| (k.to_string(), build_tensor_info(t)))
        .collect()
}

/// `tf.saved_model.predict_signature_def(inputs, outputs)`: a Predict signature of named
/// tensors. InvalidArgument (TensorFlow's ValueError) when either map is empty.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::Placeholder, math::add};
/// use weir_train::saved_model::predict_signature_def;
/// let g = Graph::new();
/// let x = Placeholder::new(DType::F32).name("x").build(&g)?;
/// let y = add(&x, &x)?;
/// let sig = predict_signature_def(&[("x", x)], &[("y", y)])?;
/// assert_eq!(sig.method_name, "tensorflow/serving/predict");
/// assert_eq!(sig.inputs["x"].dtype, 1);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn predict_signature_def(
    inputs: &[(&str, Output)],
    outputs: &[(&str, Output)],
) -> Result<SignatureDef> {
    if inputs.is_empty() {
        return Err(Error::invalid_argument(
            "Prediction inputs cannot be None or empty.",
        ));
    }
    if outputs.is_empty() {
        return Err(Error::invalid_argument(
            "Prediction outputs cannot be None or empty.",
        ));
    }
    Ok(SignatureDef {
        inputs: infos(inputs),
        outputs: infos(outputs),
        method_name: sc::PREDICT_METHOD_NAME.to_string(),
        defaults: Default::default(),
    })
}

fn check_dtype(what: &str, t: &Output, want: DType) -> Result<()> {
    if t.dtype() == want {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "{what} must be a {want} tensor, got {}: {}",
            t.dtype(),
            t.name()
        )))
    }
}

/// `tf.saved_model.classification_signature_def(examples, classes, scores)`: a Classify
/// signature over serialized `tf.Example`s (a string tensor), with string `classes` and/or
/// float `scores`; InvalidArgument (TensorFlow's ValueError) for other dtypes or neither
/// output.
pub fn classification_signature_def(
    examples: &Output,
    classes: Option<&Output>,
    scores: Option<&Output>,
) -> Result<SignatureDef> {
    check_dtype("Classification input", examples, DType::String)?;
    if classes.is_none() && scores.is_none() {
        return Err(Error::invalid_argument(
            "Classification classes and scores cannot both be None.",
        ));
    }
    let mut outputs = Vec::new();
    if let Some(c) = classes {
        check_dtype("Classification classes", c, DType::String)?;
        outputs.push((sc::CLASSIFY_OUTPUT_CLASSES, c.clone()));
    }
    if let Some(s) = scores {
        check_dtype("Classification scores", s, DType::F32)?;
        outputs.push((sc::CLASSIFY_OUTPUT_SCORES, s.clone()));
    }
    Ok(SignatureDef {
        inputs: infos(&[(sc::CLASSIFY_INPUTS, examples.clone())]),
        outputs: infos(&outputs),
        method_name: sc::CLASSIFY_METHOD_NAME.to_string(),
        defaults: Default::default(),
    })
}

/// `tf.saved_model.regression_signature_def(examples, predictions)`: a Regress signature from
/// serialized `tf.Example`s (string) to float predictions.
pub fn regression_signature_def(examples: &Output, predictions: &Output) -> Result<SignatureDef> {
    check_dtype("Regression input", examples, DType::String)?;
    check_dtype("Regression output", predictions, DType::F32)?;
    Ok(SignatureDef {
        inputs: infos(&[(sc::REGRESS_INPUTS, examples.clone())]),
        outputs: infos(&[(sc::REGRESS_OUTPUTS, predictions.clone())]),
        method_name: sc::REGRESS_METHOD_NAME.to_string(),
        defaults: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_ops::array::{constant, Placeholder};

    #[test]
    fn signatures_check_their_tensors_as_tensorflow_does() {
        let g = Graph::new();
        let x = Placeholder::new(DType::F32).name("x").build(&g).unwrap();
        let e = predict_signature_def(&[], &[("y", x.clone())]).unwrap_err();
        assert_eq!(e.message(), "Prediction inputs cannot be None or empty.");
        let e = regression_signature_def(&x, &x).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        let ex = constant(&g, "").unwrap();
        let sig = regression_signature_def(&ex, &x).unwrap();
        assert_eq!(sig.outputs["outputs"].dtype, 1);
        let e = classification_signature_def(&ex, None, None).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        let info = build_tensor_info(&x);
        assert_eq!(
            get_tensor_from_tensor_info(&info, &g, None).unwrap().name(),
            "x:0"
        );
        let e = get_tensor_from_tensor_info(&info, &g, Some("other")).unwrap_err();
        assert!(e.is_not_found(), "{e}");
    }
}
