//! `RaggedCross`: `tf.ragged.cross` and `tf.ragged.cross_hashed`, the per-row feature crosses
//! of ragged, sparse and dense rank-2 inputs, as a ragged tensor. Hashing is `SparseCross`'s
//! (`FingerprintCat64` over `Fingerprint64` of strings and int64 values as they are).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, Bytes, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::checks::{bounded, ints};
use super::RaggedOutput;
use crate::sparse::{fingerprint_cat64, SparseOutput, DEFAULT_CROSS_HASH_KEY};
use crate::string::fingerprint64;

/// One input of [`ragged_cross`] / [`ragged_cross_hashed`]: a rank-2 ragged, sparse or dense
/// tensor of int64 (other integers are cast) or string features.
#[derive(Clone, Debug)]
pub enum RaggedCrossInput {
    /// A ragged tensor of ragged rank 1.
    Ragged(RaggedOutput),
    /// A sparse tensor of rank 2.
    Sparse(SparseOutput),
    /// A matrix.
    Dense(Output),
}

/// `tf.ragged.cross(inputs)` (op `RaggedCross`): for each row, every combination of one
/// feature per input, joined by `"_X_"` (the last input varying fastest).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, ragged::{ragged_cross, RaggedCrossInput, RaggedOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = RaggedOutput::from_nested_row_splits(
///     constant(&g, ["a", "b", "c"])?,
///     vec![constant(&g, [0i64, 2, 3])?],
/// )?;
/// let d = constant(&g, weir_graph::Tensor::from_strings(&["x", "y"]).reshape(&[2, 1])?)?;
/// let rt = ragged_cross(&[RaggedCrossInput::Ragged(a), RaggedCrossInput::Dense(d)])?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&rt.flat_values)?.to_strings()?, ["a_X_x", "b_X_x", "c_X_y"]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn ragged_cross(inputs: &[RaggedCrossInput]) -> Result<RaggedOutput> {
    cross_internal(inputs, false, 0, DEFAULT_CROSS_HASH_KEY as u64)
}

/// `tf.ragged.cross_hashed(inputs, num_buckets=0, hash_key=None)` (op `RaggedCross`): the
/// crosses as int64 hashes, modulo `num_buckets` when positive; `hash_key` `None` is
/// TensorFlow's default key.
pub fn ragged_cross_hashed(
    inputs: &[RaggedCrossInput],
    num_buckets: i64,
    hash_key: Option<u64>,
) -> Result<RaggedOutput> {
    cross_internal(
        inputs,
        true,
        num_buckets,
        hash_key.unwrap_or(DEFAULT_CROSS_HASH_KEY as u64),
    )
}

fn cross_internal(
    inputs: &[RaggedCrossInput],
    hashed: bool,
    num_buckets: i64,
    hash_key: u64,
) -> Result<RaggedOutput> {
    let first = match inputs.first() {
        Some(RaggedCrossInput::Ragged(r)) => r.flat_values.clone(),
        Some(RaggedCrossInput::Sparse(s)) => s.values.clone(),
        Some(RaggedCrossInput::Dense(d)) => d.clone(),
        None => return Err(Error::invalid_argument("inputs must be a non-empty list")),
    };
    let g = first.graph().clone();
    let _scope = g.name_scope("RaggedCross");
    let feature = |o: &Output, i: usize| -> Result<Output> {
        match o.dtype() {
            DType::String | DType::I64 => Ok(o.clone()),
            dt if dt.is_integer() => crate::math::cast(o, DType::I64),
            dt => Err(Error::invalid_argument(format!(
                "Unexpected dtype for inputs[{i}]: {}",
                dt.python_name()
            ))),
        }
    };
    let (mut rv, mut rs, mut si, mut sv, mut ss, mut dense) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut order = String::new();
    for (i, input) in inputs.iter().enumerate() {
        match input {
            RaggedCrossInput::Ragged(r) => {
                if r.ragged_rank() != 1 {
                    return Err(Error::invalid_argument(
                        "tf.ragged.cross only supports inputs with rank=2",
                    ));
                }
                rv.push(feature(&r.flat_values, i)?);
                rs.push(r.nested_row_splits[0].clone());
                order.push('R');
            }
            RaggedCrossInput::Sparse(s) => {
                si.push(s.indices.clone());
                sv.push(feature(&s.values, i)?);
                ss.push(s.dense_shape.clone());
                order.push('S');
            }
            RaggedCrossInput::Dense(d) => {
                dense.push(feature(d, i)?);
                order.push('D');
            }
        }
    }
    let splits_type = if !rs.is_empty() && rs.iter().all(|s| s.dtype() == DType::I32) {
        DType::I32
    } else {
        DType::I64
    };
    let types = |v: &[Output]| -> Vec<DType> { v.iter().map(|o| o.dtype()).collect() };
    let op = crate::new_op(&g, "RaggedCross")
        .inputs(rv.clone())
        .inputs(rs.clone())
        .inputs(si.clone())
        .inputs(sv.clone())
        .inputs(ss)
        .inputs(dense.clone())
        .attr("Nsparse", si.len() as i64)
        .attr("input_order", order)
        .attr("hashed_output", hashed)
        .attr("num_buckets", num_buckets)
        .attr("hash_key", hash_key as i64)
        .attr("ragged_values_types", types(&rv))
        .attr("ragged_splits_types", types(&rs))
        .attr("sparse_values_types", types(&sv))
        .attr("dense_types", types(&dense))
        .attr(
            "out_values_type",
            if hashed { DType::I64 } else { DType::String },
        )
        .attr("out_row_splits_type", splits_type)
        .build()?;
    Ok(RaggedOutput {
        flat_values: op.output(0)?,
        nested_row_splits: vec![op.output(1)?],
    })
}

/// The features of one input: its values, and where each batch row's start.
struct Feature<'a> {
    strings: Option<&'a [Bytes]>,
    ints: Option<&'a [i64]>,
    splits: Vec<usize>,
}

impl Feature<'_> {
    fn count(&self, b: usize) -> usize {
        self.splits[b + 1] - self.splits[b]
    }

    fn text(&self, i: usize) -> Vec<u8> {
        match (self.strings, self.ints) {
            (Some(s), _) => s[i].to_vec(),
            (_, Some(v)) => v[i].to_string().into_bytes(),
            _ => Vec::new(),
        }
    }

    fn hash(&self, i: usize) -> u64 {
        match (self.strings, self.ints) {
            (Some(s), _) => fingerprint64(&s[i]),
            (_, Some(v)) => v[i] as u64,
            _ => 0,
        }
    }
}

/// An input's features as strings or as int64s.
type FeatureSlices<'a> = (Option<&'a [Bytes]>, Option<&'a [i64]>);

fn feature_values(t: &Tensor) -> Result<FeatureSlices<'_>> {
    match t.dtype() {
        DType::String => Ok((Some(t.as_slice::<Bytes>()?), None)),
        DType::I64 => Ok((None, Some(t.as_slice::<i64>()?))),
        dt => Err(Error::invalid_argument(format!(
            "Unexpected dtype for input: {dt}"
        ))),
    }
}

/// TensorFlow's `RaggedTensorVerifySplits` (splits starting at 0).
fn verify_splits(s: &[i64], nvals: usize) -> Result<()> {
    let bad = |m: String| {
        Err(Error::invalid_argument(format!(
            "Invalid ragged splits: {m}"
        )))
    };
    let Some(&first) = s.first() else {
        return bad("ragged splits must have at least one splits, but is empty".to_string());
    };
    if first != 0 {
        return bad(format!(
            "first element of ragged splits  must be 0 but is {first}"
        ));
    }
    for i in 1..s.len() {
        if s[i] < s[i - 1] {
            return bad(format!(
                "ragged splits must be monotonically increasing, but ragged_splits[{i}]={} is \
                 smaller than row_splits[{}]={}",
                s[i],
                i - 1,
                s[i - 1]
            ));
        }
    }
    let last = s[s.len() - 1];
    if last != nvals as i64 {
        return bad(format!(
            "last element of ragged splits must be the number of ragged values({nvals}) but is \
             {last}"
        ));
    }
    Ok(())
}

struct CrossKernel {
    order: Vec<char>,
    n_ragged: usize,
    n_sparse: usize,
    n_dense: usize,
    hashed: bool,
    num_buckets: i64,
    hash_key: u64,
    splits_type: DType,
}

impl Kernel for CrossKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (nr, ns, nd) = (self.n_ragged, self.n_sparse, self.n_dense);
        let inputs = ctx.inputs().to_vec();
        let rv = &inputs[..nr];
        let rs = &inputs[nr..2 * nr];
        let si = &inputs[2 * nr..2 * nr + ns];
        let sv = &inputs[2 * nr + ns..2 * nr + 2 * ns];
        let ss = &inputs[2 * nr + 2 * ns..2 * nr + 3 * ns];
        let dense = &inputs[2 * nr + 3 * ns..2 * nr + 3 * ns + nd];
        let rank2 = || {
            Err(Error::invalid_argument(
                "tf.ragged.cross only supports inputs with rank=2.",
            ))
        };
        let mut ragged_splits = Vec::with_capacity(nr);
        for i in 0..nr {
            if rv[i].rank() != 1 || rs[i].rank() != 1 {
                return rank2();
            }
            let s = ints(&rs[i])?;
            verify_splits(&s, rv[i].num_elements())?;
            ragged_splits.push(s);
        }
        for i in 0..ns {
            if si[i].rank() != 2 || sv[i].rank() != 1 || ss[i].rank() != 1 {
                return Err(Error::invalid_argument(format!("Invalid SparseTensor {i}")));
            }
            if ss[i].num_elements() != 2 {
                return rank2();
            }
        }
        if dense.iter().any(|d| d.rank() != 2) {
            return rank2();
        }
        let batch: i64 = if let Some(s) = ragged_splits.first() {
            s.len() as i64 - 1
        } else if let Some(d) = dense.first() {
            d.shape()[0] as i64
        } else if let Some(s) = ss.first() {
            s.as_slice::<i64>()?[0]
        } else {
            0
        };
        let mismatch = ragged_splits.iter().any(|s| s.len() as i64 - 1 != batch)
            || ss
                .iter()
                .any(|s| s.as_slice::<i64>().map_or(true, |v| v[0] != batch))
            || dense.iter().any(|d| d.shape()[0] as i64 != batch);
        if mismatch {
            return Err(Error::invalid_argument(
                "inputs must all have the same batch dimension size.",
            ));
        }
        let nb = bounded(batch, DType::I64, &[])?;
        let (mut r, mut s, mut d) = (0, 0, 0);
        let mut features = Vec::with_capacity(self.order.len());
        for &c in &self.order {
            let f = match c {
                'R' if r < nr => {
                    let (strings, ints) = feature_values(&rv[r])?;
                    let splits = ragged_splits[r].iter().map(|&x| x as usize).collect();
                    r += 1;
                    Feature {
                        strings,
                        ints,
                        splits,
                    }
                }
                'S' if s < ns => {
                    let (strings, ints) = feature_values(&sv[s])?;
                    let ix = si[s].as_slice::<i64>()?;
                    let width = si[s].shape()[1].max(1);
                    let n = sv[s].num_elements().min(si[s].shape()[0]);
                    let mut splits = Vec::with_capacity(nb + 1);
                    splits.push(0);
                    let mut i = 0usize;
                    for row in 0..nb as i64 {
                        while i < n && ix[i * width] <= row {
                            i += 1;
                        }
                        splits.push(i);
                    }
                    s += 1;
                    Feature {
                        strings,
                        ints,
                        splits,
                    }
                }
                'D' if d < nd => {
                    let (strings, ints) = feature_values(&dense[d])?;
                    let w = dense[d].shape()[1];
                    d += 1;
                    Feature {
                        strings,
                        ints,
                        splits: (0..=nb).map(|b| b * w).collect(),
                    }
                }
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "input_order \"{}\" does not match the inputs",
                        self.order.iter().collect::<String>()
                    )))
                }
            };
            features.push(f);
        }
        let mut row_splits = vec![0i64; nb + 1];
        let mut total = 0i64;
        for b in 0..nb {
            let mut count = if features.is_empty() { 0i64 } else { 1i64 };
            for f in &features {
                count = count.saturating_mul(f.count(b) as i64);
            }
            total = total.saturating_add(count);
            bounded(total, DType::I64, &[])?;
            row_splits[b + 1] = total;
        }
        let mut strings: Vec<Bytes> = Vec::new();
        let mut hashes: Vec<i64> = Vec::new();
        let mut combo = vec![0usize; features.len()];
        for b in 0..nb {
            combo.iter_mut().for_each(|c| *c = 0);
            for _ in row_splits[b]..row_splits[b + 1] {
                if self.hashed {
                    let h = features
                        .iter()
                        .zip(&combo)
                        .fold(self.hash_key, |h, (f, &c)| {
                            fingerprint_cat64(h, f.hash(f.splits[b] + c))
                        });
                    let m = if self.num_buckets > 0 {
                        self.num_buckets as u64
                    } else {
                        i64::MAX as u64
                    };
                    hashes.push((h % m) as i64);
                } else {
                    let parts: Vec<Vec<u8>> = features
                        .iter()
                        .zip(&combo)
                        .map(|(f, &c)| f.text(f.splits[b] + c))
                        .collect();
                    strings.push(Bytes::from(parts.join(&b"_X_"[..])));
                }
                for (k, f) in features.iter().enumerate().rev() {
                    combo[k] += 1;
                    if combo[k] < f.count(b) {
                        break;
                    }
                    combo[k] = 0;
                }
            }
        }
        let n = total as usize;
        let values = if self.hashed {
            Tensor::from_vec(&[n], hashes)?
        } else {
            Tensor::from_vec(&[n], strings)?
        };
        let splits = match self.splits_type {
            DType::I32 => {
                Tensor::from_vec(&[nb + 1], row_splits.iter().map(|&x| x as i32).collect())?
            }
            _ => Tensor::from_vec(&[nb + 1], row_splits)?,
        };
        ctx.set_output(0, values);
        ctx.set_output(1, splits);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let rv: Vec<DType> = node.attr("ragged_values_types")?;
    let rs: Vec<DType> = node.attr("ragged_splits_types")?;
    let sv: Vec<DType> = node.attr("sparse_values_types")?;
    let dense: Vec<DType> = node.attr("dense_types")?;
    let order: String = node.attr("input_order")?;
    let n_sparse = node.attr::<i64>("Nsparse")?.max(0) as usize;
    if rv.len() != rs.len() {
        return Err(Error::invalid_argument(
            "ragged values and splits must have the same length",
        ));
    }
    if n_sparse != sv.len() {
        return Err(Error::invalid_argument(
            "sparse indices and values must have the same length",
        ));
    }
    if rv.len() + sv.len() + dense.len() != order.chars().count() {
        return Err(Error::invalid_argument("Invalid length for input_order"));
    }
    Ok(Box::new(CrossKernel {
        order: order.chars().collect(),
        n_ragged: rv.len(),
        n_sparse,
        n_dense: dense.len(),
        hashed: node.attr("hashed_output")?,
        num_buckets: node.attr("num_buckets")?,
        hash_key: node.attr::<i64>("hash_key")? as u64,
        splits_type: node.attr("out_row_splits_type")?,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::new(vec![None]));
    ctx.set_output(1, Shape::new(vec![None]));
    Ok(())
}

pub(super) fn register() {
    const FEATURES: &[DType] = &[DType::I64, DType::String];
    const SPLITS: &[DType] = &[DType::I32, DType::I64];
    register_op(
        OpDef::new("RaggedCross")
            .input("ragged_values", ArgType::List("ragged_values_types"))
            .input("ragged_row_splits", ArgType::List("ragged_splits_types"))
            .input(
                "sparse_indices",
                ArgType::RepeatedFixed {
                    count: "Nsparse",
                    dtype: DType::I64,
                },
            )
            .input("sparse_values", ArgType::List("sparse_values_types"))
            .input(
                "sparse_shape",
                ArgType::RepeatedFixed {
                    count: "Nsparse",
                    dtype: DType::I64,
                },
            )
            .input("dense_inputs", ArgType::List("dense_types"))
            .output("output_values", ArgType::Attr("out_values_type"))
            .output("output_row_splits", ArgType::Attr("out_row_splits_type"))
            .int_attr_min("Nsparse", 0)
            .attr("input_order", AttrKind::Str, None)
            .attr("hashed_output", AttrKind::Bool, None)
            .int_attr_min("num_buckets", 0)
            .attr("hash_key", AttrKind::Int, None)
            .attr("ragged_values_types", AttrKind::Types, None)
            .attr("ragged_splits_types", AttrKind::Types, None)
            .attr("sparse_values_types", AttrKind::Types, None)
            .attr("dense_types", AttrKind::Types, None)
            .type_attr("out_values_type", FEATURES)
            .type_attr("out_row_splits_type", SPLITS)
            .shape_fn(shape_fn),
    );
    register_kernel("RaggedCross", make);
}
