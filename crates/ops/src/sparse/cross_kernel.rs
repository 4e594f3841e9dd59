//! The kernels of `SparseCross`, `SparseCrossV2` and `SparseCrossHashed`, after TensorFlow's
//! `sparse_cross_op.cc`: the same input checks and messages, the same reading of each sparse
//! input's rows (entries taken in order while their row is the row being read), the same
//! product order (the last column varying fastest) and the same hashes.

use weir_graph::{format_dims, Bytes, DType, Error, Kernel, Node, OpContext, Result, Tensor};

use super::checks::bounded;
use super::cross_checks::{single, validate};
use crate::string::{fingerprint64, siphash24};

/// Which op a [`CrossKernel`] runs.
pub(super) enum CrossKind {
    /// `SparseCross`: strings joined by `_X_`, or (`hashed`, when `out_type` is int64)
    /// `FingerprintCat64` chained from `hash_key`.
    V1 {
        hashed: bool,
        num_buckets: i64,
        hash_key: u64,
        internal_type: DType,
    },
    /// `SparseCrossV2`: strings joined by the `sep` input.
    V2,
    /// `SparseCrossHashed`: keyed hashes chained from the first column.
    Hashed,
}

/// The kernel of the three cross ops.
pub(super) struct CrossKernel {
    kind: CrossKind,
    /// The counts of the four input lists: indices (and shapes), values, dense inputs.
    n: usize,
    n_values: usize,
    n_dense: usize,
}

impl CrossKernel {
    /// The kernel for `node`, whose list attrs must hold int64 and string only.
    pub(super) fn new(node: &Node, kind: CrossKind) -> Result<CrossKernel> {
        let n = node.attr::<i64>("N")?.max(0) as usize;
        let sparse: Vec<DType> = node.attr("sparse_types")?;
        let dense: Vec<DType> = node.attr("dense_types")?;
        for (what, list) in [("sparse_types", &sparse), ("dense_types", &dense)] {
            if let Some(dt) = list
                .iter()
                .find(|d| !matches!(d, DType::I64 | DType::String))
            {
                return Err(Error::invalid_argument(format!(
                    "Value for attr '{what}' of {dt} is not in the list of allowed values: \
                     int64, string"
                )));
            }
        }
        Ok(CrossKernel {
            kind,
            n,
            n_values: sparse.len(),
            n_dense: dense.len(),
        })
    }
}

/// TensorFlow's `FingerprintCat64`: combines two 64-bit fingerprints (not commutative).
pub(crate) fn fingerprint_cat64(fp1: u64, fp2: u64) -> u64 {
    const MUL: u64 = 0xc6a4_a793_5bd1_e995;
    let shift_mix = |v: u64| v ^ (v >> 47);
    let mut result = fp1 ^ MUL;
    result ^= shift_mix(fp2.wrapping_mul(MUL)).wrapping_mul(MUL);
    result = result.wrapping_mul(MUL);
    result = shift_mix(result).wrapping_mul(MUL);
    shift_mix(result)
}

/// What one cross becomes.
enum Mode {
    /// The features as strings joined by the separator.
    Join(Bytes),
    /// `SparseCross`'s hash: strings fingerprinted, int64 as they are, chained from `key`.
    Hash { num_buckets: i64, key: u64 },
    /// `SparseCrossHashed`'s: keyed hashes, chained from the first column's.
    Keyed {
        num_buckets: i64,
        strong: bool,
        k0: u64,
        k1: u64,
    },
}

/// The values of one column.
enum Values<'a> {
    Str(&'a [Bytes]),
    Int(&'a [i64]),
}

/// One column of the cross: a sparse input (its values and where the current row's start) or
/// a dense one (`width` values per row).
struct Column<'a> {
    values: Values<'a>,
    dense: bool,
    /// Sparse: the current row's first value and count. Dense: the row's offset and width.
    start: usize,
    count: usize,
}

impl Column<'_> {
    fn text(&self, n: usize) -> std::borrow::Cow<'_, [u8]> {
        match &self.values {
            Values::Str(s) => std::borrow::Cow::Borrowed(&s[self.start + n][..]),
            Values::Int(v) => std::borrow::Cow::Owned(v[self.start + n].to_string().into_bytes()),
        }
    }

    /// `SparseTensorColumn<int64>::Feature` / `DenseTensorColumn<int64>::Feature`.
    fn hash(&self, n: usize) -> u64 {
        match &self.values {
            Values::Str(s) => fingerprint64(&s[self.start + n]),
            Values::Int(v) => v[self.start + n] as u64,
        }
    }

    /// The `Keyed...TensorColumn<int64>::Feature`s. Sparse int64 values are hashed from their
    /// first four bytes (TensorFlow hashes `sizeof(DataType)` bytes of them); dense ones are
    /// kept as they are by the fast hash, and hashed like the sparse ones by the strong hash
    /// (where TensorFlow's kernel crashes).
    fn keyed(&self, n: usize, strong: bool, k0: u64, k1: u64) -> u64 {
        let h = |b: &[u8]| {
            if strong {
                siphash24(k0, k1, b)
            } else {
                fingerprint64(b)
            }
        };
        match &self.values {
            Values::Str(s) => h(&s[self.start + n]),
            Values::Int(v) if self.dense && !strong => v[self.start + n] as u64,
            Values::Int(v) => h(&v[self.start + n].to_le_bytes()[..4]),
        }
    }
}

fn values_of(t: &Tensor) -> Result<Values<'_>> {
    match t.dtype() {
        DType::String => Ok(Values::Str(t.as_slice::<Bytes>()?)),
        DType::I64 => Ok(Values::Int(t.as_slice::<i64>()?)),
        dt => Err(Error::invalid_argument(format!(
            "Cross inputs must be int64 or string, got {dt}"
        ))),
    }
}

/// `h` as TensorFlow's crossers return it: modulo `num_buckets` when positive, else modulo
/// `i64::MAX`.
fn bucket(h: u64, num_buckets: i64) -> i64 {
    let m = if num_buckets > 0 {
        num_buckets as u64
    } else {
        i64::MAX as u64
    };
    (h % m) as i64
}

/// The crosses being built.
enum Crosses {
    Strings(Vec<Bytes>),
    Ints(Vec<i64>),
}

impl Crosses {
    fn len(&self) -> usize {
        match self {
            Crosses::Strings(v) => v.len(),
            Crosses::Ints(v) => v.len(),
        }
    }

    /// Appends the cross of `columns` at `perm` (one feature index per column).
    fn push(&mut self, mode: &Mode, columns: &[Column<'_>], perm: &[usize]) {
        match (self, mode) {
            (Crosses::Strings(out), Mode::Join(sep)) => {
                let mut s = Vec::new();
                for (k, (c, &n)) in columns.iter().zip(perm).enumerate() {
                    if k > 0 {
                        s.extend_from_slice(sep);
                    }
                    s.extend_from_slice(&c.text(n));
                }
                out.push(Bytes::from(s));
            }
            (Crosses::Ints(out), Mode::Hash { num_buckets, key }) => {
                let h = columns
                    .iter()
                    .zip(perm)
                    .fold(*key, |h, (c, &n)| fingerprint_cat64(h, c.hash(n)));
                out.push(bucket(h, *num_buckets));
            }
            (
                Crosses::Ints(out),
                &Mode::Keyed {
                    num_buckets,
                    strong,
                    k0,
                    k1,
                },
            ) => {
                let mut hashes = columns
                    .iter()
                    .zip(perm)
                    .map(|(c, &n)| c.keyed(n, strong, k0, k1));
                let first = hashes.next().unwrap_or(0);
                out.push(bucket(hashes.fold(first, fingerprint_cat64), num_buckets));
            }
            // The output kind always follows the mode (see `cross`).
            _ => {}
        }
    }
}

/// The crosses of every row: output indices, values and (as `[batch, max]`) dense shape.
fn cross(
    mode: &Mode,
    indices: &[Tensor],
    values: &[Tensor],
    dense: &[Tensor],
    batch: i64,
) -> Result<(Tensor, Tensor, Tensor)> {
    if batch < 0 {
        return Err(Error::invalid_argument(format!(
            "Expected a batch size of at least 0, got {batch}"
        )));
    }
    let rows: Vec<&[i64]> = indices
        .iter()
        .map(|t| t.as_slice::<i64>())
        .collect::<Result<_>>()?;
    let mut columns: Vec<Column<'_>> = Vec::with_capacity(values.len() + dense.len());
    for v in values {
        columns.push(Column {
            values: values_of(v)?,
            dense: false,
            start: 0,
            count: 0,
        });
    }
    for d in dense {
        columns.push(Column {
            values: values_of(d)?,
            dense: true,
            start: 0,
            count: d.shape()[1],
        });
    }
    let mut out = match mode {
        Mode::Join(_) => Crosses::Strings(Vec::new()),
        _ => Crosses::Ints(Vec::new()),
    };
    let mut out_ix: Vec<i64> = Vec::new();
    let mut max_count = 0usize;
    let ns = values.len();
    // The next entry of each sparse input (TensorFlow's `current_row`).
    let mut next = vec![0usize; ns];
    let productive = !columns.is_empty() && dense.iter().all(|d| d.shape()[1] > 0);
    let mut b = 0i64;
    while productive && b < batch {
        for (i, c) in columns[..ns].iter_mut().enumerate() {
            let start = next[i];
            while next[i] < rows[i].len() / 2 && rows[i][next[i] * 2] == b {
                next[i] += 1;
            }
            c.start = start;
            c.count = next[i] - start;
        }
        for c in &mut columns[ns..] {
            c.start = b as usize * c.count;
        }
        let mut count = 1usize;
        for c in &columns {
            count = count.checked_mul(c.count).ok_or_else(|| {
                Error::resource_exhausted("SparseCross: too many crosses in one row")
            })?;
        }
        bounded(out.len().saturating_add(count), "SparseCross")?;
        max_count = max_count.max(count);
        if count > 0 {
            let mut perm = vec![0usize; columns.len()];
            for k in 0..count {
                out_ix.extend([b, k as i64]);
                out.push(mode, &columns, &perm);
                // The next permutation: the last column varies fastest.
                for (p, c) in perm.iter_mut().zip(&columns).rev() {
                    *p += 1;
                    if *p < c.count {
                        break;
                    }
                    *p = 0;
                }
            }
        }
        b = if dense.is_empty() {
            // Only sparse inputs: no row before the smallest next entry's can have a cross,
            // and none at all once an input is used up or its next entry's row has passed.
            let mut to = Some(i64::MAX);
            for (i, r) in rows.iter().enumerate() {
                to = match (to, r.get(next[i] * 2)) {
                    (Some(t), Some(&row)) if row > b => Some(t.min(row)),
                    _ => None,
                };
            }
            to.unwrap_or(batch)
        } else {
            b + 1
        };
    }
    let total = out.len();
    let values = match out {
        Crosses::Strings(v) => Tensor::from_vec(&[total], v)?,
        Crosses::Ints(v) => Tensor::from_vec(&[total], v)?,
    };
    Ok((
        Tensor::from_vec(&[total, 2], out_ix)?,
        values,
        Tensor::from_vec(&[2], vec![batch, max_count as i64])?,
    ))
}

impl Kernel for CrossKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (n, nv, nd) = (self.n, self.n_values, self.n_dense);
        let inputs = ctx.inputs();
        let extra = match self.kind {
            CrossKind::V1 { .. } => 0,
            CrossKind::V2 => 1,
            CrossKind::Hashed => 3,
        };
        if inputs.len() != 2 * n + nv + nd + extra {
            return Err(Error::invalid_argument(format!(
                "SparseCross expects {} inputs, got {}",
                2 * n + nv + nd + extra,
                inputs.len()
            )));
        }
        let indices = &inputs[..n];
        let values = &inputs[n..n + nv];
        let shapes = &inputs[n + nv..2 * n + nv];
        let dense = &inputs[2 * n + nv..2 * n + nv + nd];
        let extra = &inputs[2 * n + nv + nd..];
        let internal = match self.kind {
            CrossKind::V1 { internal_type, .. } => Some(internal_type),
            _ => None,
        };
        let batch = validate(indices, values, shapes, dense, internal)?;
        let mode = match self.kind {
            CrossKind::V1 { hashed: false, .. } => Mode::Join(Bytes::from_static(b"_X_")),
            CrossKind::V1 {
                num_buckets,
                hash_key,
                ..
            } => Mode::Hash {
                num_buckets,
                key: hash_key,
            },
            CrossKind::V2 => {
                let sep = &extra[0];
                if sep.rank() != 0 {
                    return Err(Error::invalid_argument(format!(
                        "Input separator should be a scalar. Received: Tensor<type: {} shape: \
                         {} values: {}>",
                        sep.dtype(),
                        format_dims(sep.shape()),
                        sep.summarize_value(3)
                    )));
                }
                Mode::Join(sep.to_scalar::<Bytes>()?)
            }
            CrossKind::Hashed => {
                let num_buckets = single::<i64>(&extra[0], "num_buckets")?;
                let strong = single::<bool>(&extra[1], "strong_hash")?;
                let salt = extra[2].as_slice::<i64>()?;
                if salt.len() != 2 {
                    return Err(Error::invalid_argument(format!(
                        "Input \"salt\" must have length 2 but has length {}",
                        salt.len()
                    )));
                }
                Mode::Keyed {
                    num_buckets,
                    strong,
                    k0: salt[0] as u64,
                    k1: salt[1] as u64,
                }
            }
        };
        let (ix, vals, shape) = cross(&mode, indices, values, dense, batch)?;
        ctx.set_output(0, ix);
        ctx.set_output(1, vals);
        ctx.set_output(2, shape);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{bucket, fingerprint_cat64};
    use crate::string::fingerprint64;

    #[test]
    fn fingerprint_cat64_is_not_commutative_and_mixes() {
        let (a, b) = (fingerprint64(b"a"), fingerprint64(b"b"));
        assert_ne!(fingerprint_cat64(a, b), fingerprint_cat64(b, a));
        assert_ne!(fingerprint_cat64(0, 0), 0);
    }

    #[test]
    fn buckets_are_never_negative() {
        assert_eq!(bucket(u64::MAX, 0), (u64::MAX % i64::MAX as u64) as i64);
        assert_eq!(bucket(u64::MAX, 10), 5);
        assert_eq!(bucket(7, -3), 7);
    }
}
