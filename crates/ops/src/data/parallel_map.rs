//! (being written)

pub(super) fn register() {}
