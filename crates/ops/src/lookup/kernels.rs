//! Kernels of the lookup-table ops: the table ops (`HashTableV2`, `MutableHashTableV2`,
//! `MutableHashTableOfTensorsV2`) that find or make the session's table and output its handle,
//! and the ops that use a table through that handle.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use weir_graph::{
    format_dims, Code, DType, Error, Kernel, Node, OpContext, ResourceHandle, Result, Shape, Tensor,
};

use super::dense_table::{self, dense};
use super::table::{LookupTable, TableKind};
use super::text_file::{check_dtypes, read_entries, TextFileSpec};

/// The counter behind private table names `_<N>_<node name>`, as TensorFlow's `ContainerInfo`
/// names a resource no other kernel shares.
pub(super) static PRIVATE_NAMES: AtomicU64 = AtomicU64::new(0);

/// The key and value dtypes TensorFlow 2.21 registers kernels for, per table op.
pub(super) const HASH_TABLE_TYPES: &[(DType, DType)] = &[
    (DType::String, DType::String),
    (DType::String, DType::I64),
    (DType::String, DType::I32),
    (DType::String, DType::F32),
    (DType::String, DType::F64),
    (DType::String, DType::Bool),
    (DType::I64, DType::String),
    (DType::I64, DType::I64),
    (DType::I64, DType::I32),
    (DType::I64, DType::F32),
    (DType::I64, DType::F64),
    (DType::I32, DType::String),
    (DType::I32, DType::I32),
    (DType::I32, DType::F32),
    (DType::I32, DType::F64),
];

pub(super) const MUTABLE_TABLE_TYPES: &[(DType, DType)] = &[
    (DType::String, DType::I64),
    (DType::String, DType::I32),
    (DType::String, DType::F32),
    (DType::String, DType::F64),
    (DType::String, DType::Bool),
    (DType::I64, DType::String),
    (DType::I64, DType::I64),
    (DType::I64, DType::I32),
    (DType::I64, DType::F32),
    (DType::I64, DType::F64),
    (DType::I32, DType::I32),
    (DType::I32, DType::F32),
    (DType::I32, DType::F64),
];

/// The container as TensorFlow's messages name it: the default one is `localhost`.
fn container_name(c: &str) -> &str {
    if c.is_empty() {
        "localhost"
    } else {
        c
    }
}

/// TensorFlow's message for a table op with dtypes it has no kernel for.
pub(super) fn no_kernel(node: &Node, types: &[(DType, DType)]) -> Error {
    let attrs: Vec<String> = node
        .attrs()
        .iter()
        .filter(|(k, _)| !k.starts_with('_'))
        .map(|(k, v)| match v {
            weir_graph::AttrValue::Type(d) => format!("{k}={}", d.proto_name()),
            weir_graph::AttrValue::Str(s) => format!("{k}=\"{s}\""),
            weir_graph::AttrValue::Bool(b) => format!("{k}={b}"),
            weir_graph::AttrValue::Shape(s) => format!("{k}={s}"),
            weir_graph::AttrValue::Int(i) => format!("{k}={i}"),
            weir_graph::AttrValue::Float(f) => {
                format!("{k}={}", Tensor::scalar(*f).summarize_value(-1))
            }
            other => format!("{k}={other:?}"),
        })
        .collect();
    let kernels: Vec<String> = types
        .iter()
        .map(|(k, v)| {
            format!(
                "  device='CPU'; key_dtype in [{}]; value_dtype in [{}]",
                k.proto_name(),
                v.proto_name()
            )
        })
        .collect();
    Error::invalid_argument(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these attrs: [{}]\nRegistered devices: [CPU]\nRegistered kernels:\n{}\n",
        node.op_type(),
        node.name(),
        attrs.join(", "),
        kernels.join("\n")
    ))
}

/// The table kernel of one node in one session: finds or makes the table on first run and
/// outputs its handle.
struct CreateTable {
    kind: TableKind,
    container: String,
    name: String,
    key_dtype: DType,
    value_dtype: DType,
    /// The value shape of `MutableHashTableOfTensorsV2`; `None` for the tables of scalars.
    value_shape: Option<Shape>,
    handle: OnceLock<Tensor>,
}

impl CreateTable {
    fn make(&self) -> Result<LookupTable> {
        let value_shape = match &self.value_shape {
            None => Vec::new(),
            Some(s) => match s.to_known() {
                Some(dims) if dims.len() == 1 => dims,
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "Default value must be a vector, got shape {}",
                        s.to_known()
                            .map_or_else(|| s.to_string(), |d| format_dims(&d))
                    )))
                }
            },
        };
        LookupTable::new(self.kind, self.key_dtype, self.value_dtype, value_shape).ok_or_else(
            || {
                Error::internal(format!(
                    "No table holds {} keys and {} values",
                    self.key_dtype, self.value_dtype
                ))
            },
        )
    }
}

impl Kernel for CreateTable {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let table = ctx
            .resources()
            .lookup_or_create_typed(&self.container, &self.name, || self.make())?;
        if table.key_dtype() != self.key_dtype || table.value_dtype() != self.value_dtype {
            return Err(Error::invalid_argument(format!(
                "Conflicting key/value dtypes {}->{} with {}-{} for table {}",
                self.key_dtype,
                self.value_dtype,
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

/// The kernel of `HashTableV2`, `MutableHashTableV2` or `MutableHashTableOfTensorsV2`.
pub(super) fn make_create_table(node: &Node) -> Result<Box<dyn Kernel>> {
    let key_dtype: DType = node.attr("key_dtype")?;
    let value_dtype: DType = node.attr("value_dtype")?;
    // TensorFlow 1's ref-handle ops (`HashTable`, ...) share the kernels of their V2 forms.
    let (kind, types, value_shape) = match node.op_type().trim_end_matches("V2") {
        "HashTable" => (TableKind::Hash, HASH_TABLE_TYPES, None),
        "MutableHashTable" => (TableKind::Mutable, MUTABLE_TABLE_TYPES, None),
        _ => (
            TableKind::Mutable,
            MUTABLE_TABLE_TYPES,
            Some(node.attr::<Shape>("value_shape")?),
        ),
    };
    if !types.contains(&(key_dtype, value_dtype)) {
        return Err(no_kernel(node, types));
    }
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
    Ok(Box::new(CreateTable {
        kind,
        container: node.attr("container")?,
        name,
        key_dtype,
        value_dtype,
        value_shape,
        handle: OnceLock::new(),
    }))
}

/// The table behind input 0.
fn table<'c>(ctx: &'c OpContext<'_>) -> Result<&'c LookupTable> {
    ctx.resource::<LookupTable>(0)
}

/// The table behind input 0 if it is initializable (a `HashTable`).
fn initializable<'c>(ctx: &'c OpContext<'_>) -> Result<&'c LookupTable> {
    match table(ctx) {
        Ok(t) if t.kind() == TableKind::Hash => Ok(t),
        Err(e) if dense(ctx).is_none() => Err(e),
        // A mutable table, or a dense one.
        _ => {
            let h = ctx.resource_handle(0)?;
            Err(Error::invalid_argument(format!(
                "Table {} {} is not initializable",
                container_name(h.container()),
                h.name()
            )))
        }
    }
}

fn names(types: &[DType]) -> String {
    let v: Vec<&str> = types.iter().map(|d| d.name()).collect();
    v.join(", ")
}

/// TensorFlow's `OpKernelContext::MatchSignature` against the table's dtypes: `inputs` after
/// the handle and every output.
pub(super) fn match_signature(
    ctx: &OpContext<'_>,
    inputs: &[DType],
    outputs: &[DType],
) -> Result<()> {
    let have_in: Vec<DType> = std::iter::once(DType::Resource)
        .chain((1..ctx.num_inputs()).map(|i| ctx.input(i).dtype()))
        .collect();
    let have_out: Vec<DType> = (0..ctx.num_outputs())
        .map(|i| ctx.output_dtype(i))
        .collect();
    let want_in: Vec<DType> = std::iter::once(DType::Resource)
        .chain(inputs.iter().copied())
        .collect();
    if have_in != want_in || have_out != outputs {
        return Err(Error::invalid_argument(format!(
            "Signature mismatch, have: {}->{} expected: {}->{}",
            names(&have_in),
            names(&have_out),
            names(&want_in),
            names(outputs)
        )));
    }
    Ok(())
}

/// `LookupTableFindV2`.
pub(super) struct Find;

impl Kernel for Find {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(d) = dense(ctx) {
            return dense_table::compute("LookupTableFind", &d, ctx);
        }
        let t = table(ctx)?;
        match_signature(ctx, &[t.key_dtype(), t.value_dtype()], &[t.value_dtype()])?;
        let out = t.find(ctx.input(1), ctx.input(2))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `LookupTableInsertV2`, or `LookupTableImportV2` when `import`.
pub(super) struct Insert {
    pub import: bool,
}

impl Kernel for Insert {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(d) = dense(ctx) {
            let op = if self.import {
                "LookupTableImport"
            } else {
                "LookupTableInsert"
            };
            return dense_table::compute(op, &d, ctx);
        }
        let t = table(ctx)?;
        match_signature(ctx, &[t.key_dtype(), t.value_dtype()], &[])?;
        if self.import {
            t.import(ctx.input(1), ctx.input(2))
        } else {
            t.insert(ctx.input(1), ctx.input(2))
        }
    }
}

/// `LookupTableRemoveV2`.
pub(super) struct Remove;

impl Kernel for Remove {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(d) = dense(ctx) {
            return dense_table::compute("LookupTableRemove", &d, ctx);
        }
        let t = table(ctx)?;
        match_signature(ctx, &[t.key_dtype()], &[])?;
        t.remove(ctx.input(1))
    }
}

/// `LookupTableSizeV2`.
pub(super) struct Size;

impl Kernel for Size {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(d) = dense(ctx) {
            return dense_table::compute("LookupTableSize", &d, ctx);
        }
        let n = table(ctx)?.size() as i64;
        ctx.set_output(0, Tensor::scalar(n));
        Ok(())
    }
}

/// `LookupTableExportV2`.
pub(super) struct Export;

impl Kernel for Export {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(d) = dense(ctx) {
            return dense_table::compute("LookupTableExport", &d, ctx);
        }
        let t = table(ctx)?;
        match_signature(ctx, &[], &[t.key_dtype(), t.value_dtype()])?;
        let (keys, values) = t.export()?;
        ctx.set_output(0, keys);
        ctx.set_output(1, values);
        Ok(())
    }
}

/// `InitializeTableV2`.
pub(super) struct InitializeTable;

impl Kernel for InitializeTable {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = initializable(ctx)?;
        match_signature(ctx, &[t.key_dtype(), t.value_dtype()], &[])?;
        let (keys, values) = (ctx.input(1), ctx.input(2));
        if keys.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Keys must be a vector, but received shape{}",
                format_dims(keys.shape())
            )));
        }
        if values.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Values must be a vector, but received shape{}",
                format_dims(values.shape())
            )));
        }
        if keys.num_elements() != values.num_elements() {
            return Err(Error::invalid_argument(format!(
                "Keys and values must have the same size {} vs {}",
                keys.num_elements(),
                values.num_elements()
            )));
        }
        t.initialize(keys, values, keys.num_elements() as i64)
    }
}

/// `InitializeTableFromTextFileV2`.
struct InitializeFromTextFile {
    spec: TextFileSpec,
}

impl Kernel for InitializeFromTextFile {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = initializable(ctx)?;
        let file = ctx.input(1);
        if file.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "filename should be a single string, but got {}",
                format_dims(file.shape())
            )));
        }
        let path = file.to_strings()?.remove(0);
        if path.is_empty() {
            return Err(Error::invalid_argument("filename cannot be empty."));
        }
        check_dtypes(&self.spec, t.key_dtype(), t.value_dtype())?;
        let entries = read_entries(&path, &self.spec, t.key_dtype(), t.value_dtype())?;
        let done = t.initialize_with(
            |store| {
                store.insert_new(&entries.keys, &entries.values)?;
                entries.error.clone().map_or(Ok(()), Err)
            },
            entries.total,
        );
        match done {
            // A table initialized from a file takes a second initialization as done.
            Err(e) if e.code() == Code::FailedPrecondition && t.initialized_hash_table() => Ok(()),
            other => other,
        }
    }
}

/// The kernel of `InitializeTableFromTextFileV2`, refusing a delimiter of more than one byte.
pub(super) fn make_initialize_from_text_file(node: &Node) -> Result<Box<dyn Kernel>> {
    let delimiter: String = node.attr("delimiter")?;
    if delimiter.len() != 1 {
        return Err(Error::invalid_argument("delimiter should be only 1 char"));
    }
    Ok(Box::new(InitializeFromTextFile {
        spec: TextFileSpec {
            vocab_size: node.attr("vocab_size")?,
            delimiter: delimiter.as_bytes()[0],
            key_index: node.attr("key_index")?,
            value_index: node.attr("value_index")?,
            offset: node.attr("offset")?,
        },
    }))
}
