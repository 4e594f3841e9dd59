//! Variables: TensorFlow 1.x's `tf.Variable`, its assign ops, and the initializers.
//!
//! A variable's value lives in the session's resource manager (one per session), so two
//! sessions on one graph hold separate values, and many runs may update it at once.

mod initializers;
mod kernels;
mod resource_gather;
mod resource_variables;
mod scatter;
mod scatter_nd_min_max;
mod strided_slice_assign;
mod variable;
mod variable_proto;

pub use initializers::{
    collection_variables, global_variables, global_variables_initializer, local_variables,
    local_variables_initializer, report_uninitialized_variables, trainable_variables,
    variables_initializer,
};
pub use kernels::VariableResource;
pub use resource_gather::resource_gather;
pub use scatter::{
    resource_scatter, resource_scatter_add, resource_scatter_div, resource_scatter_max,
    resource_scatter_min, resource_scatter_mul, resource_scatter_nd_add, resource_scatter_nd_sub,
    resource_scatter_nd_update, resource_scatter_sub, resource_scatter_update, scatter_add,
    scatter_div, scatter_max, scatter_min, scatter_mul, scatter_nd_add, scatter_nd_sub,
    scatter_nd_update, scatter_sub, scatter_update,
};
pub use scatter_nd_min_max::{
    resource_scatter_nd_max, resource_scatter_nd_min, scatter_nd_max, scatter_nd_min,
};
pub use variable::{Variable, VariableBuilder};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    kernels::register();
    resource_variables::register();
    scatter::register();
    strided_slice_assign::register();
    resource_gather::register();
    scatter_nd_min_max::register();
}
