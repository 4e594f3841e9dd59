//! Summary ops: `tf.summary.scalar`, `histogram`, `image`, `audio`, `text`, `tensor_summary`,
//! `merge` and `merge_all`. Each outputs a serialized `tensorflow.Summary` that a `FileWriter`
//! writes to a TensorBoard event file.

mod audio;
mod histogram;
mod image;
mod kernels;
pub mod proto;
mod tensor;
pub mod v2;

pub use audio::{audio, SampleRate};
pub use histogram::histogram as histogram_proto;
pub use image::image;
pub use kernels::{histogram, merge, merge_all, scalar};
pub use tensor::{tensor_summary, text, TensorSummary};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    kernels::register();
    image::register();
    audio::register();
    tensor::register();
    v2::register();
}
