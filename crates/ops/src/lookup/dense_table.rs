//! The session resource of `MutableDenseHashTableV2` (TensorFlow's `MutableDenseHashTable`
//! lookup table), its checks of keys and values with TensorFlow's messages, and the kernel of
//! the ops that make one. The `LookupTable*V2` kernels reach it through [`dense`].

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Resource, ResourceHandle, Result, Shape, Tensor,
};

use super::dense_store::{new_dense_store, DenseStore};
use super::kernels::{match_signature, no_kernel, PRIVATE_NAMES};

/// The key and value dtypes TensorFlow 2.21 registers `MutableDenseHashTableV2` kernels for
/// (leaving out its resource and variant values, which weir's tables do not hold).
pub(super) const DENSE_TABLE_TYPES: &[(DType, DType)] = &[
    (DType::String, DType::I64),
    (DType::String, DType::I32),
    (DType::String, DType::F32),
    (DType::String, DType::F64),
    (DType::String, DType::Bool),
    (DType::I64, DType::I64),
    (DType::I64, DType::I32),
    (DType::I64, DType::F32),
    (DType::I64, DType::F64),
    (DType::I64, DType::Bool),
    (DType::I32, DType::I32),
    (DType::I32, DType::F32),
    (DType::I32, DType::F64),
];

/// The attrs of a dense table op.
#[derive(Clone, Debug)]
pub(super) struct DenseSpec {
    pub key_dtype: DType,
    pub value_dtype: DType,
    pub value_shape: Shape,
    pub initial_num_buckets: i64,
    pub max_load_factor: f32,
}

impl DenseSpec {
    /// The spec of a `MutableDenseHashTable*` node, refusing dtypes TensorFlow has no kernel for.
    pub(super) fn of(node: &Node) -> Result<DenseSpec> {
        let spec = DenseSpec {
            key_dtype: node.attr("key_dtype")?,
            value_dtype: node.attr("value_dtype")?,
            value_shape: node.attr("value_shape")?,
            initial_num_buckets: node.attr("initial_num_buckets")?,
            max_load_factor: node.attr("max_load_factor")?,
        };
        if !DENSE_TABLE_TYPES.contains(&(spec.key_dtype, spec.value_dtype)) {
            return Err(no_kernel(node, DENSE_TABLE_TYPES));
        }
        Ok(spec)
    }
}

/// A dense hash table of one session: see the module doc.
pub(super) struct DenseTable {
    key_dtype: DType,
    value_dtype: DType,
    key_shape: Vec<usize>,
    value_shape: Vec<usize>,
    max_load_factor: f32,
    store: RwLock<Box<dyn DenseStore>>,
}

impl Resource for DenseTable {
    fn type_name(&self) -> &str {
        "MutableDenseHashTable"
    }
}

/// The dense table behind input 0 of a table op, if it is one (a check that costs the other
/// tables no message).
pub(super) fn dense(ctx: &OpContext<'_>) -> Option<Arc<DenseTable>> {
    let h = ctx.resource_handle(0).ok()?;
    if !h.resource()?.as_ref().as_any().is::<DenseTable>() {
        return None;
    }
    h.get::<DenseTable>().ok()
}

fn vectorized(shape: &[usize]) -> Vec<usize> {
    if shape.is_empty() {
        vec![1]
    } else {
        shape.to_vec()
    }
}

impl DenseTable {
    /// TensorFlow's `MutableDenseHashTable` constructor: `deleted` is `None` for TensorFlow 1's
    /// op, which has no such input (and so always fails, as TensorFlow's does).
    pub(super) fn new(spec: &DenseSpec, empty: &Tensor, deleted: Option<&Tensor>) -> Result<Self> {
        let mlf = spec.max_load_factor;
        if !(mlf > 0.0 && mlf < 1.0) {
            return Err(Error::invalid_argument(format!(
                "max_load_factor must be between 0 and 1, got: {}",
                Tensor::scalar(mlf).summarize_value(-1)
            )));
        }
        let value_shape = match spec.value_shape.to_known() {
            Some(d) if d.len() <= 1 => d,
            Some(d) => {
                return Err(Error::invalid_argument(format!(
                    "Empty value must be a scalar or a vector, got shape {}",
                    format_dims(&d)
                )))
            }
            None => {
                return Err(Error::invalid_argument(format!(
                    "Empty value must be a scalar or a vector, got shape {}",
                    spec.value_shape
                )))
            }
        };
        if empty.rank() > 1 {
            return Err(Error::invalid_argument(format!(
                "Empty key must be a scalar or a vector, got shape {}",
                format_dims(empty.shape())
            )));
        }
        let deleted =
            deleted.ok_or_else(|| Error::invalid_argument("Unknown input name: deleted_key"))?;
        if empty.shape() != deleted.shape() {
            return Err(Error::invalid_argument(format!(
                "Empty and deleted keys must have same shape, got shapes: {} and {}",
                format_dims(empty.shape()),
                format_dims(deleted.shape())
            )));
        }
        let value_size = value_shape.iter().product();
        let store = new_dense_store(
            spec.value_dtype,
            empty,
            deleted,
            value_size,
            spec.initial_num_buckets,
        )
        .ok_or_else(|| {
            Error::internal(format!(
                "No dense table holds {} keys and {} values",
                spec.key_dtype, spec.value_dtype
            ))
        })??;
        Ok(DenseTable {
            key_dtype: spec.key_dtype,
            value_dtype: spec.value_dtype,
            key_shape: empty.shape().to_vec(),
            value_shape,
            max_load_factor: mlf,
            store: RwLock::new(store),
        })
    }

    pub(super) fn key_dtype(&self) -> DType {
        self.key_dtype
    }

    pub(super) fn value_dtype(&self) -> DType {
        self.value_dtype
    }

    /// TensorFlow's `CheckKeyShape`.
    fn check_key_shape(&self, keys: &Tensor) -> Result<()> {
        let s = keys.shape();
        if !s.ends_with(&self.key_shape) {
            return Err(Error::invalid_argument(format!(
                "Input key shape {} must end with the table's key shape {}",
                format_dims(s),
                format_dims(&self.key_shape)
            )));
        }
        Ok(())
    }

    /// `keys`' shape without the key dims (of `key_dims`), followed by `value_shape`.
    fn values_shape(keys: &Tensor, key_dims: usize, value_shape: &[usize]) -> Vec<usize> {
        let s = keys.shape();
        let mut out = s[..s.len().saturating_sub(key_dims)].to_vec();
        out.extend_from_slice(value_shape);
        out
    }

    /// The number of key rows of `keys`, checked as TensorFlow's table checks it.
    fn rows(&self, keys: &Tensor) -> Result<usize> {
        let n = keys.shape().first().copied().unwrap_or(1);
        let key_size: usize = self.key_shape.iter().product();
        if keys.num_elements() != n * key_size {
            let mut want = vec![n];
            want.extend_from_slice(&self.key_shape);
            return Err(Error::invalid_argument(format!(
                "Expected key shape {} got {}",
                format_dims(&want),
                format_dims(keys.shape())
            )));
        }
        Ok(n)
    }

    /// `LookupTableFindV2`.
    pub(super) fn find(&self, keys: &Tensor, default: &Tensor) -> Result<Tensor> {
        self.check_key_shape(keys)?;
        let out = Self::values_shape(keys, self.key_shape.len(), &self.value_shape);
        let d = default.shape();
        if d != self.value_shape.as_slice() && d != out.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Expected shape {} or {} for default value, got {}",
                format_dims(&self.value_shape),
                format_dims(&out),
                format_dims(d)
            )));
        }
        let n = self.rows(keys)?;
        self.store.read().find(keys, n, default, &out)
    }

    /// `LookupTableInsertV2`.
    pub(super) fn insert(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        self.check_key_shape(keys)?;
        let want = Self::values_shape(keys, self.key_shape.len(), &self.value_shape);
        if values.shape() != want.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Expected shape {} for value, got {}",
                format_dims(&want),
                format_dims(values.shape())
            )));
        }
        let n = self.rows(keys)?;
        self.store
            .write()
            .insert(keys, values, n, self.max_load_factor)
    }

    /// `LookupTableRemoveV2`.
    pub(super) fn remove(&self, keys: &Tensor) -> Result<()> {
        // TensorFlow's shape function refuses scalar keys before its kernel could see them.
        if keys.rank() == 0 {
            return Err(Error::invalid_argument(
                "Shape must be at least rank 1 but is rank 0",
            ));
        }
        self.check_key_shape(keys)?;
        let n = self.rows(keys)?;
        self.store.write().remove(keys, n)
    }

    /// `LookupTableImportV2`: the buckets as `LookupTableExportV2` gives them.
    pub(super) fn import(&self, keys: &Tensor, values: &Tensor) -> Result<()> {
        self.check_key_shape(keys)?;
        let key_dims = vectorized(&self.key_shape).len();
        if keys.rank() < key_dims {
            return Err(Error::invalid_argument(format!(
                "Expected keys of rank at least {key_dims}, got shape {}",
                format_dims(keys.shape())
            )));
        }
        let want = Self::values_shape(keys, key_dims, &vectorized(&self.value_shape));
        if values.shape() != want.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Expected shape {} for value, got {}",
                format_dims(&want),
                format_dims(values.shape())
            )));
        }
        self.store.write().import(keys, values)
    }

    /// `LookupTableExportV2`: every bucket, empty and deleted ones included.
    pub(super) fn export(&self) -> Result<(Tensor, Tensor)> {
        self.store.read().export()
    }

    /// `LookupTableSizeV2`.
    pub(super) fn size(&self) -> usize {
        self.store.read().len()
    }
}

/// The `LookupTable*V2` kernels on a dense table: `op` is the op type without `V2`.
pub(super) fn compute(op: &str, t: &DenseTable, ctx: &mut OpContext<'_>) -> Result<()> {
    let (k, v) = (t.key_dtype(), t.value_dtype());
    match op {
        "LookupTableFind" => {
            match_signature(ctx, &[k, v], &[v])?;
            let out = t.find(ctx.input(1), ctx.input(2))?;
            ctx.set_output(0, out);
        }
        "LookupTableInsert" => {
            match_signature(ctx, &[k, v], &[])?;
            t.insert(ctx.input(1), ctx.input(2))?;
        }
        "LookupTableImport" => {
            match_signature(ctx, &[k, v], &[])?;
            t.import(ctx.input(1), ctx.input(2))?;
        }
        "LookupTableRemove" => {
            match_signature(ctx, &[k], &[])?;
            t.remove(ctx.input(1))?;
        }
        "LookupTableSize" => ctx.set_output(0, Tensor::scalar(t.size() as i64)),
        "LookupTableExport" => {
            match_signature(ctx, &[], &[k, v])?;
            let (keys, values) = t.export()?;
            ctx.set_output(0, keys);
            ctx.set_output(1, values);
        }
        other => {
            return Err(Error::internal(format!(
                "{other} has no kernel for a dense table"
            )))
        }
    }
    Ok(())
}

/// The kernel of `MutableDenseHashTableV2` (and of TensorFlow 1's `MutableDenseHashTable`):
/// finds or makes the session's table from the op's empty and deleted keys on first run.
struct CreateDenseTable {
    spec: DenseSpec,
    container: String,
    name: String,
    v1: bool,
    handle: OnceLock<Tensor>,
}

impl Kernel for CreateDenseTable {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let deleted = (!self.v1).then(|| ctx.input(1));
        let table = ctx
            .resources()
            .lookup_or_create_typed(&self.container, &self.name, || {
                DenseTable::new(&self.spec, ctx.input(0), deleted)
            })?;
        if table.key_dtype() != self.spec.key_dtype || table.value_dtype() != self.spec.value_dtype
        {
            return Err(Error::invalid_argument(format!(
                "Conflicting key/value dtypes {}->{} with {}-{} for table {}",
                self.spec.key_dtype,
                self.spec.value_dtype,
                table.key_dtype(),
                table.value_dtype(),
                self.name
            )));
        }
        let handle = ResourceHandle::new(&self.container, &self.name, table);
        let h = self.handle.get_or_init(|| Tensor::scalar(handle)).clone();
        ctx.set_output(0, h);
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

/// The kernel of `MutableDenseHashTableV2` or `MutableDenseHashTable`.
pub(super) fn make_create_dense_table(node: &Node) -> Result<Box<dyn Kernel>> {
    let spec = DenseSpec::of(node)?;
    let shared: String = node.attr("shared_name")?;
    let sharing: bool = node.attr("use_node_name_sharing")?;
    let name = if !shared.is_empty() {
        shared
    } else if sharing {
        node.name().to_string()
    } else {
        let n = PRIVATE_NAMES.fetch_add(1, Ordering::Relaxed);
        format!("_{n}_{}", node.name())
    };
    Ok(Box::new(CreateDenseTable {
        spec,
        container: node.attr("container")?,
        name,
        v1: node.op_type() == "MutableDenseHashTable",
        handle: OnceLock::new(),
    }))
}

/// TensorFlow's shape function of the dense table ops: keys of rank at most 1, a scalar handle.
pub(super) fn dense_table_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 0..ctx.num_inputs() {
        if let Some(r) = ctx.input_shape(i).rank().filter(|&r| r > 1) {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 1 but is rank {r} for '{}' (input {i})",
                ctx.op_type
            )));
        }
    }
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

/// The attrs a dense table op has besides its name attrs, with TensorFlow's defaults.
pub(super) fn dense_attrs(def: OpDef) -> OpDef {
    def.attr("key_dtype", AttrKind::Type, None)
        .attr("value_dtype", AttrKind::Type, None)
        .attr(
            "value_shape",
            AttrKind::Shape,
            Some(AttrValue::Shape(Shape::scalar())),
        )
        .attr(
            "initial_num_buckets",
            AttrKind::Int,
            Some(AttrValue::Int(131072)),
        )
        .attr(
            "max_load_factor",
            AttrKind::Float,
            Some(AttrValue::Float(0.8)),
        )
}

/// Registers `MutableDenseHashTableV2` and TensorFlow 1's `MutableDenseHashTable`, whose
/// handle TensorFlow types as a string ref and weir as a resource.
pub(super) fn register() {
    for (op, inputs) in [
        ("MutableDenseHashTableV2", &["empty_key", "deleted_key"][..]),
        ("MutableDenseHashTable", &["empty_key"][..]),
    ] {
        let mut def = OpDef::new(op);
        for i in inputs {
            def = def.input(i, ArgType::Attr("key_dtype"));
        }
        let def = def
            .output("table_handle", ArgType::Fixed(DType::Resource))
            .resource_name_attrs()
            .attr(
                "use_node_name_sharing",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            );
        register_op(dense_attrs(def).stateful().shape_fn(dense_table_shape));
        register_kernel(op, make_create_dense_table);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> DenseSpec {
        DenseSpec {
            key_dtype: DType::I64,
            value_dtype: DType::F32,
            value_shape: Shape::known(&[2]),
            initial_num_buckets: 8,
            max_load_factor: 0.8,
        }
    }

    #[test]
    fn vector_keys_are_checked_as_tensorflow_checks_them() {
        let empty = Tensor::from(vec![0i64, 0]);
        let deleted = Tensor::from(vec![-1i64, -1]);
        let t = DenseTable::new(&spec(), &empty, Some(&deleted)).unwrap();
        let keys = Tensor::from_vec(&[2, 2], vec![1i64, 2, 3, 4]).unwrap();
        let values = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        t.insert(&keys, &values).unwrap();
        let e = t.find(
            &Tensor::from(vec![1i64, 2, 3]),
            &Tensor::from(vec![0.0f32, 0.0]),
        );
        assert_eq!(
            e.unwrap_err().message(),
            "Input key shape [3] must end with the table's key shape [2]"
        );
        // As TensorFlow's, a lookup takes a batch of vector keys, not one alone.
        let default = Tensor::from(vec![0.0f32, 0.0]);
        let one = t.find(&Tensor::from(vec![3i64, 4]), &default);
        assert_eq!(
            one.unwrap_err().message(),
            "Expected key shape [2,2] got [2]"
        );
        let batch = Tensor::from_vec(&[1, 2], vec![3i64, 4]).unwrap();
        let found = t.find(&batch, &default).unwrap();
        assert_eq!(found.shape(), &[1, 2]);
        assert_eq!(found.to_vec::<f32>().unwrap(), vec![3.0, 4.0]);
        assert_eq!(t.size(), 2);
    }

    #[test]
    fn tensorflow_1s_op_has_no_deleted_key_and_bad_attrs_are_refused() {
        let e = DenseTable::new(&spec(), &Tensor::from(0i64), None)
            .err()
            .unwrap();
        assert_eq!(e.message(), "Unknown input name: deleted_key");
        let mut s = spec();
        s.max_load_factor = 1.0;
        let e = DenseTable::new(&s, &Tensor::from(0i64), Some(&Tensor::from(1i64)))
            .err()
            .unwrap();
        assert_eq!(
            e.message(),
            "max_load_factor must be between 0 and 1, got: 1"
        );
    }
}
