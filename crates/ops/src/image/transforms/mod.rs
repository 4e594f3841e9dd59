//! Geometric sampling ops outside `image_ops_impl.py`'s resize family: the projective
//! transforms keras' augmentation layers emit (projective.rs), `tf.extract_volume_patches`
//! (volume_patches.rs) and `tf.image.extract_glimpse` (glimpse.rs).

mod glimpse;
mod projective;
mod volume_patches;

pub use glimpse::{extract_glimpse, ExtractGlimpse, GlimpseNoise};
pub use projective::{projective_transform, FillMode, Interpolation, ProjectiveTransform};
pub use volume_patches::extract_volume_patches;

/// Registers these ops and kernels.
pub(crate) fn register() {
    glimpse::register();
    projective::register();
    volume_patches::register();
}
