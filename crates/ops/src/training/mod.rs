//! Training ops: the dense optimizer kernels (`ApplyGradientDescent`, `ApplyMomentum`,
//! `ApplyAdagrad`, `ApplyRMSProp`, `ApplyCenteredRMSProp`, `ApplyAdam`), the dense and sparse
//! kernels of Adadelta, FTRL, proximal Adagrad, proximal gradient descent and AdagradDA
//! (`ApplyFtrl`, `SparseApplyFtrl`, ...), the sparse kernels of Momentum, RMSProp and Adagrad
//! (`SparseApplyMomentum`, `SparseApplyRMSProp`, `SparseApplyCenteredRMSProp`,
//! `SparseApplyAdagrad`), the newer update ops (`ApplyAdaMax`, `ApplyAdagradV2`,
//! `ApplyAddSign`, `ApplyPowerSign`, `ResourceApplyAdamWithAmsgrad`, Keras' momentum), the
//! learning-rate schedule kernels, and the checkpoint ops `SaveV2` / `RestoreV2` with TensorFlow's V2
//! checkpoint format (a tensor bundle). The optimizers and `Saver` of `weir-train` build on
//! these.

mod apply;
mod apply_adamax;
mod apply_extra;
mod apply_extra_ops;
mod apply_more;
mod apply_more_ops;
mod apply_more_update;
mod apply_ops;
mod apply_signs;
mod apply_v2;
pub mod checkpoint;
mod learning_rate;
mod sparse_apply_ops;

pub use apply_adamax::{apply_ada_max, resource_apply_adam_with_amsgrad};
pub use apply_more_ops::{
    apply_adadelta, apply_adagrad_da, apply_ftrl, apply_proximal_adagrad,
    apply_proximal_gradient_descent, sparse_apply_adadelta, sparse_apply_adagrad_da,
    sparse_apply_ftrl, sparse_apply_proximal_adagrad, sparse_apply_proximal_gradient_descent,
    FtrlScalars,
};
pub use apply_ops::{
    apply_adagrad, apply_adam, apply_centered_rms_prop, apply_gradient_descent, apply_momentum,
    apply_rms_prop, AdamScalars,
};
pub use apply_signs::{apply_add_sign, apply_power_sign};
pub use apply_v2::{
    apply_adagrad_v2, resource_apply_keras_momentum, resource_sparse_apply_keras_momentum,
    sparse_apply_adagrad_v2,
};
pub use checkpoint::{checkpoint_exists, list_checkpoint, read_checkpoint, restore_v2, save_v2};
pub use learning_rate::{exponential_decay_op, piecewise_constant_op};
pub use sparse_apply_ops::{
    sparse_apply_adagrad, sparse_apply_centered_rms_prop, sparse_apply_momentum,
    sparse_apply_rms_prop,
};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    apply_ops::register();
    apply_extra_ops::register();
    apply_more_ops::register();
    checkpoint::register();
    learning_rate::register();
}
