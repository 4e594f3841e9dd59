//! `tf.compat.v1.layers`: `Dense`, `Conv2D`, `MaxPooling2D`, `AveragePooling2D`, `Flatten`,
//! `Dropout` and `BatchNormalization`, with the function forms `dense`, `conv2d`,
//! `max_pooling2d`, `average_pooling2d`, `flatten`, `dropout` and `batch_normalization`.
//!
//! Each layer makes its variables with `get_variable` on its first call, in a variable scope
//! named as TensorFlow names it, so checkpoints are interchangeable: `dense/kernel`,
//! `dense/bias`, then `dense_1/...` for a second unnamed layer (unique per enclosing variable
//! scope), `conv2d/kernel`, `batch_normalization/gamma`, `beta`, `moving_mean`,
//! `moving_variance`. Calling a layer again reuses its variables; its ops go in the name
//! scope of its first call (`dense/MatMul_1`).
//!
//! A builder's `name` behaves as the function form's `name=` (`tf.layers.dense(x, 4,
//! name="fc")`): the variable scope is exactly `name`, so a second layer of the same name
//! needs `reuse`. Unnamed layers get TensorFlow's unique default names. Regularization
//! penalties go to `REGULARIZATION_LOSSES`, batch normalization's moving-average updates to
//! `UPDATE_OPS`.
//!
//! ```
//! # use weir_graph::{DType, Graph, Shape};
//! # use weir_ops::array::placeholder;
//! use weir_train::layers::{self, Dense};
//! let g = Graph::new();
//! let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(784)]))?;
//! let h = Dense::new(128).activation(|x| weir_ops::nn::relu(x)).apply(&x)?;
//! let h = layers::dropout(&h, 0.5, false)?;
//! let logits = layers::dense(&h, 10)?;
//! assert_eq!(logits.name(), "dense_1/BiasAdd:0");
//! # Ok::<(), weir_graph::Error>(())
//! ```
//!
//! `training` (dropout, batch normalization) is a bool, which builds only that mode, or a
//! scalar bool tensor, which builds both under a `tf.cond` as TensorFlow's `smart_cond` does.
//!
//! Not supported (refused with an error when asked for): `data_format="channels_first"` for
//! convolution and pooling (and the fused batch normalization over axis 1), dilated
//! convolution, batch renormalization. Left out: constraints, virtual batches, `adjustment`.
//!
//! Unique default names count the variable scopes layers opened, per opening of the enclosing
//! variable scope (re-entering `variable_scope("model")` starts `model/dense` again, as
//! TensorFlow resets the counts of a scope's subscopes when it is exited); scopes a program
//! opens itself with the name of a layer kind are not counted.

mod base;
mod convolutional;
mod core;
mod normalization;
mod pooling;
#[cfg(test)]
mod tests;

pub use self::core::{dense, dropout, flatten, Dense, Dropout, Flatten};
pub use base::{Pair, Training};
pub use convolutional::{conv2d, Conv2D};
pub use normalization::{batch_normalization, BatchNormalization};
pub use pooling::{average_pooling2d, max_pooling2d, AveragePooling2D, MaxPooling2D};

/// An activation applied to a layer's output (TensorFlow's `activation=` callable).
pub type Activation = crate::rnn::Activation;
