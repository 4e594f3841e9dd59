//! SavedModels: TensorFlow 1's `tf.compat.v1.saved_model` (`Builder`, `loader.load`,
//! `simple_save`, the signature helpers and constants).
//!
//! A SavedModel is a directory: `saved_model.pb` (a `SavedModel` proto: meta graphs, each with
//! its tags and named signatures), `variables/variables.{index,data-*}` (a V2 checkpoint) and
//! `assets/` (files the graph reads, such as vocabularies). It is how a trained TensorFlow 1
//! model is handed to serving; weir writes directories TensorFlow's loader and TensorFlow
//! Serving read, and loads the ones TensorFlow 1's builder (or `tf.compat.v1` in TensorFlow 2)
//! writes.

mod builder;
mod loader;
mod signature;

pub use builder::{simple_save, MetaGraphArgs, SavedModelBuilder};
pub use loader::{contains_saved_model, load, SavedModelLoader};
pub use signature::{
    build_tensor_info, classification_signature_def, get_tensor_from_tensor_info,
    predict_signature_def, regression_signature_def,
};

/// `tf.saved_model.tag_constants`: the tags of a SavedModel's meta graphs.
pub mod tag_constants {
    /// `SERVING`: the meta graph TensorFlow Serving loads.
    pub const SERVING: &str = "serve";
    /// `TRAINING`.
    pub const TRAINING: &str = "train";
    /// `EVAL`.
    pub const EVAL: &str = "eval";
    /// `GPU`.
    pub const GPU: &str = "gpu";
    /// `TPU`.
    pub const TPU: &str = "tpu";
}

/// `tf.saved_model.signature_constants`: signature keys, method names and their inputs' and
/// outputs' keys.
pub mod signature_constants {
    /// `DEFAULT_SERVING_SIGNATURE_DEF_KEY`.
    pub const DEFAULT_SERVING_SIGNATURE_DEF_KEY: &str = "serving_default";
    /// `PREDICT_METHOD_NAME`.
    pub const PREDICT_METHOD_NAME: &str = "tensorflow/serving/predict";
    /// `CLASSIFY_METHOD_NAME`.
    pub const CLASSIFY_METHOD_NAME: &str = "tensorflow/serving/classify";
    /// `REGRESS_METHOD_NAME`.
    pub const REGRESS_METHOD_NAME: &str = "tensorflow/serving/regress";
    /// `CLASSIFY_INPUTS`: the serialized `tf.Example` input of a classification signature.
    pub const CLASSIFY_INPUTS: &str = "inputs";
    /// `CLASSIFY_OUTPUT_CLASSES`.
    pub const CLASSIFY_OUTPUT_CLASSES: &str = "classes";
    /// `CLASSIFY_OUTPUT_SCORES`.
    pub const CLASSIFY_OUTPUT_SCORES: &str = "scores";
    /// `REGRESS_INPUTS`.
    pub const REGRESS_INPUTS: &str = "inputs";
    /// `REGRESS_OUTPUTS`.
    pub const REGRESS_OUTPUTS: &str = "outputs";
}

/// `tf.saved_model.constants`: file, directory and collection names of the format.
pub mod constants {
    /// `SAVED_MODEL_SCHEMA_VERSION`.
    pub const SAVED_MODEL_SCHEMA_VERSION: i64 = 1;
    /// `SAVED_MODEL_FILENAME_PB`.
    pub const SAVED_MODEL_FILENAME_PB: &str = "saved_model.pb";
    /// `SAVED_MODEL_FILENAME_PBTXT`.
    pub const SAVED_MODEL_FILENAME_PBTXT: &str = "saved_model.pbtxt";
    /// `VARIABLES_DIRECTORY`.
    pub const VARIABLES_DIRECTORY: &str = "variables";
    /// `VARIABLES_FILENAME`: the checkpoint prefix's file name in the variables directory.
    pub const VARIABLES_FILENAME: &str = "variables";
    /// `ASSETS_DIRECTORY`.
    pub const ASSETS_DIRECTORY: &str = "assets";
    /// `ASSETS_KEY`: the collection of `AssetFileDef`s.
    pub const ASSETS_KEY: &str = "saved_model_assets";
    /// `MAIN_OP_KEY`: the collection of the op run after the variables are restored.
    pub const MAIN_OP_KEY: &str = "saved_model_main_op";
    /// `LEGACY_INIT_OP_KEY`: the older name of that collection.
    pub const LEGACY_INIT_OP_KEY: &str = "legacy_init_op";
    /// `TRAIN_OP_KEY`.
    pub const TRAIN_OP_KEY: &str = "saved_model_train_op";
    /// `INIT_OP_SIGNATURE_KEY`: TensorFlow 2's way of naming the init op, as a signature.
    pub const INIT_OP_SIGNATURE_KEY: &str = "__saved_model_init_op";
}
