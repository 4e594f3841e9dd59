//! `CTCLoss`: the negative log likelihood of each batch entry's label sequence under the
//! logits, and its gradient with respect to the logits (TensorFlow's `CTCLossCalculator`:
//! softmax per time step, then log-space forward and backward variables, GravesTh ch. 7).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Result, Shape, Tensor,
};

use super::eigen_exp::eigen_sum;
use super::shapes::{merge_dim, with_rank};
use super::{ftz, log_sum_exp, CtcFloat};
use crate::nn::match_float;

struct CtcLossKernel {
    collapse: bool,
    merge: bool,
    ignore_longer: bool,
}

/// TensorFlow's `SparseTensor::IndicesValid` for the `[batch, max_label_len]` labels in
/// row-major order, with its messages.
fn check_label_indices(ix: &[i64], shape: [i64; 2]) -> Result<()> {
    let n = ix.len() / 2;
    for i in 0..n {
        let row = &ix[2 * i..2 * i + 2];
        let show = || format!("indices[{i}] = [{},{}]", row[0], row[1]);
        if row.iter().zip(shape).any(|(&v, d)| v < 0 || v >= d) {
            return Err(Error::invalid_argument(format!(
                "label SparseTensor is not valid: {} is out of bounds: need 0 <= index < [{},{}]",
                show(),
                shape[0],
                shape[1]
            )));
        }
        if i > 0 {
            let prev = &ix[2 * i - 2..2 * i];
            match row.cmp(prev) {
                std::cmp::Ordering::Less => {
                    return Err(Error::invalid_argument(format!(
                        "label SparseTensor is not valid: {} is out of order. Many sparse ops \
                         require sorted indices.\n    Use `tf.sparse.reorder` to create a \
                         correctly ordered copy.\n\n",
                        show()
                    )))
                }
                std::cmp::Ordering::Equal => {
                    return Err(Error::invalid_argument(format!(
                        "label SparseTensor is not valid: {} is repeated",
                        show()
                    )))
                }
                std::cmp::Ordering::Greater => {}
            }
        }
    }
    Ok(())
}

/// The label sequence of each batch entry, from the sparse labels, checked as TensorFlow's
/// kernel checks them.
fn labels_by_batch(ctx: &OpContext<'_>, batch: usize) -> Result<Vec<Vec<i32>>> {
    let (indices, values) = (ctx.input(1), ctx.input(2));
    let n = indices.shape()[0];
    if n != values.shape()[0] {
        return Err(Error::invalid_argument(format!(
            "labels_indices and labels_values must contain the same number of rows, but saw \
             shapes: {} vs. {}",
            format_dims(indices.shape()),
            format_dims(values.shape())
        )));
    }
    if batch == 0 {
        return Err(Error::invalid_argument("batch_size must not be 0"));
    }
    if indices.shape()[1] != 2 {
        return Err(Error::invalid_argument(format!(
            "Number of dimensions must match second dimension of indices. Got 2 dimensions, \
             indices shape: {}",
            format_dims(indices.shape())
        )));
    }
    let ix = indices.as_slice::<i64>()?;
    let max_len = (0..n)
        .map(|i| ix[2 * i + 1].saturating_add(1))
        .max()
        .unwrap_or(0)
        .max(0);
    check_label_indices(ix, [batch as i64, max_len])?;
    let vals = values.as_slice::<i32>()?;
    let mut labels = vec![Vec::new(); batch];
    for (i, &v) in vals.iter().enumerate() {
        labels[ix[2 * i] as usize].push(v);
    }
    Ok(labels)
}

/// TensorFlow's `PopulateLPrimes` for one batch entry: the label sequence with a blank before
/// each label and at the end (`l'`), after its checks.
fn l_prime(
    label: &[i32],
    b: usize,
    num_classes: usize,
    seq_len: i32,
    collapse: bool,
    ignore_longer: bool,
) -> Result<Vec<usize>> {
    let join = |v: &[i32]| v.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
    if label.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Labels length is zero in batch {b}"
        )));
    }
    let blank = num_classes as i64 - 1;
    let mut l = Vec::with_capacity(label.len());
    let mut finished = false;
    for (i, &v) in label.iter().enumerate() {
        if i == 0 || !collapse || v != label[i - 1] {
            if i64::from(v) >= blank {
                finished = true;
            } else {
                if finished {
                    return Err(Error::invalid_argument(format!(
                        "Saw a non-null label (index >= num_classes - 1) following a null \
                         label, batch: {b} num_classes: {num_classes} labels: {} labels seen so \
                         far: {}",
                        join(label),
                        join(&l)
                    )));
                }
                l.push(v);
            }
        }
    }
    if l.iter().any(|&v| v < 0) {
        return Err(Error::invalid_argument(format!(
            "All labels must be nonnegative integers, batch: {b} labels: {}",
            join(&l)
        )));
    }
    if !ignore_longer && label.len() as i64 > i64::from(seq_len) {
        return Err(Error::invalid_argument(format!(
            "Not enough time for target transition sequence (required: {}, available: \
             {seq_len}){b}You can turn this error into a warning by using the flag \
             ignore_longer_outputs_than_inputs",
            label.len()
        )));
    }
    let mut lp = Vec::with_capacity(2 * l.len() + 1);
    for &v in &l {
        lp.push(blank as usize);
        lp.push(v as usize);
    }
    lp.push(blank as usize);
    Ok(lp)
}

/// The rows of `u` that can still reach the end (and be reached from the start) at step `t` of
/// `steps`: TensorFlow's `max(0, U - 2(T - t)) .. min(U, 2(t + 1))`.
fn live_rows(u: usize, t: usize, steps: usize) -> std::ops::Range<usize> {
    let lo = (u as i64 - 2 * (steps - t) as i64).max(0) as usize;
    lo..u.min(2 * (t + 1))
}

/// One batch entry's loss (`-log p(labels | logits)`) over its first `steps` steps, with
/// modified labels `lp`; `row(t)` is where step `t`'s logits start in `logits`, and the gradient
/// with respect to each logit goes to `put(t, class, value)`.
fn entry_loss<T: CtcFloat>(
    row: impl Fn(usize) -> usize,
    logits: &[T],
    lp: &[usize],
    steps: usize,
    classes: usize,
    merge: bool,
    mut put: impl FnMut(usize, usize, T),
) -> T {
    let zero = T::neg_infinity();
    let blank = classes - 1;
    // Softmax of each step's logits, as TensorFlow's Eigen expressions compute it.
    let mut y = vec![T::ZERO; steps * classes];
    for t in 0..steps {
        let xt = &logits[row(t)..row(t) + classes];
        let max = xt[1..]
            .iter()
            .fold(xt[0], |m, &v| if v > m { v } else { m });
        let yt = &mut y[t * classes..(t + 1) * classes];
        for (o, &v) in yt.iter_mut().zip(xt) {
            *o = ftz((v - max).eigen_exp());
        }
        let sum = eigen_sum(yt, T::LANES);
        for o in yt.iter_mut() {
            *o = ftz(*o / sum);
        }
    }
    let yv = |c: usize, t: usize| y[t * classes + c];
    let u_len = lp.len();
    let at = |u: usize, t: usize| u * steps + t;

    let mut alpha = vec![zero; u_len * steps];
    alpha[at(0, 0)] = yv(blank, 0).ln();
    if u_len > 1 {
        alpha[at(1, 0)] = yv(lp[1], 0).ln();
    }
    for t in 1..steps {
        for u in live_rows(u_len, t, steps) {
            let mut sum = zero;
            if merge || lp[u] == blank {
                sum = alpha[at(u, t - 1)];
            }
            if u > 0 {
                sum = log_sum_exp(sum, alpha[at(u - 1, t - 1)]);
            }
            if u > 1 && lp[u] != blank && !(merge && lp[u] == lp[u - 2]) {
                sum = log_sum_exp(sum, alpha[at(u - 2, t - 1)]);
            }
            alpha[at(u, t)] = yv(lp[u], t).ln() + sum;
        }
    }

    let mut beta = vec![zero; u_len * steps];
    for u in u_len.saturating_sub(2)..u_len {
        beta[at(u, steps - 1)] = T::ZERO;
    }
    for t in (0..steps - 1).rev() {
        for u in live_rows(u_len, t, steps) {
            let mut b = beta[at(u, t)];
            if merge || lp[u] == blank {
                b = log_sum_exp(b, beta[at(u, t + 1)] + yv(lp[u], t + 1).ln());
            }
            if u + 1 < u_len {
                b = log_sum_exp(b, beta[at(u + 1, t + 1)] + yv(lp[u + 1], t + 1).ln());
            }
            if u + 2 < u_len && lp[u] != blank && !(merge && lp[u] == lp[u + 2]) {
                b = log_sum_exp(b, beta[at(u + 2, t + 1)] + yv(lp[u + 2], t + 1).ln());
            }
            beta[at(u, t)] = b;
        }
    }

    let mut log_p = zero;
    for u in 0..u_len {
        log_p = log_sum_exp(log_p, alpha[at(u, 0)] + beta[at(u, 0)]);
    }

    if log_p == zero {
        // No path can emit the labels: TensorFlow's gradient is then the softmax itself.
        for t in 0..steps {
            for c in 0..classes {
                put(t, c, yv(c, t));
            }
        }
    } else {
        let mut prob_sum = vec![zero; classes];
        for t in 0..steps {
            prob_sum.fill(zero);
            for (u, &l) in lp.iter().enumerate() {
                prob_sum[l] = log_sum_exp(prob_sum[l], alpha[at(u, t)] + beta[at(u, t)]);
            }
            for (c, &s) in prob_sum.iter().enumerate() {
                put(t, c, ftz(yv(c, t) - ftz((s - log_p).expf())));
            }
        }
    }
    -log_p
}

impl CtcLossKernel {
    fn run<T: CtcFloat>(
        &self,
        inputs: &Tensor,
        seq_len: &[i32],
        labels: &[Vec<i32>],
    ) -> Result<(Tensor, Tensor)> {
        let (max_time, batch, classes) = (inputs.shape()[0], inputs.shape()[1], inputs.shape()[2]);
        for (b, &s) in seq_len.iter().enumerate() {
            if s < 0 {
                return Err(Error::invalid_argument(format!("seq_len({b}) < 0")));
            }
        }
        let mut l_primes = Vec::with_capacity(batch);
        for (b, label) in labels.iter().enumerate() {
            l_primes.push(l_prime(
                label,
                b,
                classes,
                seq_len[b],
                self.collapse,
                self.ignore_longer,
            )?);
        }
        if classes == 0 && seq_len.iter().any(|&s| s > 0) {
            // TensorFlow reads past an empty class dimension here; there is nothing to score.
            return Err(Error::invalid_argument(
                "Invalid input dimensions: num_classes must be positive",
            ));
        }
        let logits = inputs.as_slice::<T>()?;
        let mut loss = vec![T::ZERO; batch];
        let mut grad = vec![T::ZERO; max_time * batch * classes];
        for b in 0..batch {
            let steps = seq_len[b] as usize;
            if steps == 0 || (self.ignore_longer && labels[b].len() > steps) {
                continue;
            }
            let offset = |t: usize| (t * batch + b) * classes;
            loss[b] = entry_loss(
                offset,
                logits,
                &l_primes[b],
                steps,
                classes,
                self.merge,
                |t, c, v| grad[offset(t) + c] = v,
            );
        }
        Ok((
            Tensor::from_vec(&[batch], loss)?,
            Tensor::from_vec(inputs.shape(), grad)?,
        ))
    }
}

impl Kernel for CtcLossKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (inputs, indices, values, seq_len) =
            (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        if inputs.rank() != 3 {
            return Err(Error::invalid_argument("inputs is not a 3-Tensor"));
        }
        if seq_len.rank() != 1 {
            return Err(Error::invalid_argument("sequence_length is not a vector"));
        }
        if indices.rank() != 2 {
            return Err(Error::invalid_argument("labels_indices is not a matrix"));
        }
        if values.rank() != 1 {
            return Err(Error::invalid_argument("labels_values is not a vector"));
        }
        let (max_time, batch, classes) = (inputs.shape()[0], inputs.shape()[1], inputs.shape()[2]);
        if classes > i32::MAX as usize {
            return Err(Error::invalid_argument("num_classes cannot exceed max int"));
        }
        if seq_len.shape()[0] != batch {
            return Err(Error::invalid_argument(format!(
                "len(sequence_length) != batch_size.  len(sequence_length):  {} batch_size: \
                 {batch}",
                seq_len.shape()[0]
            )));
        }
        let labels = labels_by_batch(ctx, batch)?;
        let seq = ctx.input(3).as_slice::<i32>()?;
        for (b, &s) in seq.iter().enumerate() {
            if i64::from(s) > max_time as i64 {
                return Err(Error::invalid_argument(format!(
                    "sequence_length({b}) <= {max_time}"
                )));
            }
        }
        let inputs = ctx.input(0);
        let (loss, grad) = match_float!(inputs.dtype(), T => self.run::<T>(inputs, seq, &labels)?);
        ctx.set_output(0, loss);
        ctx.set_output(1, grad);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(CtcLossKernel {
        collapse: node.attr("preprocess_collapse_repeated")?,
        merge: node.attr("ctc_merge_repeated")?,
        ignore_longer: node.attr("ignore_longer_outputs_than_inputs")?,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let inputs = with_rank(ctx, 0, 3)?;
    let indices = with_rank(ctx, 1, 2)?;
    let values = with_rank(ctx, 2, 1)?;
    let seq_len = with_rank(ctx, 3, 1)?;
    merge_dim(ctx, indices[0], values[0])?;
    let batch = merge_dim(ctx, inputs[1], seq_len[0])?;
    ctx.set_output(0, Shape::new(vec![batch]));
    ctx.set_output(1, Shape::new(vec![inputs[0], batch, inputs[2]]));
    Ok(())
}

pub(super) fn register() {
    let flag = |b: bool| Some(AttrValue::Bool(b));
    register_op(
        OpDef::new("CTCLoss")
            .input("inputs", ArgType::Attr("T"))
            .input("labels_indices", ArgType::Fixed(DType::I64))
            .input("labels_values", ArgType::Fixed(DType::I32))
            .input("sequence_length", ArgType::Fixed(DType::I32))
            .output("loss", ArgType::Attr("T"))
            .output("gradient", ArgType::Attr("T"))
            .attr("preprocess_collapse_repeated", AttrKind::Bool, flag(false))
            .attr("ctc_merge_repeated", AttrKind::Bool, flag(true))
            .attr(
                "ignore_longer_outputs_than_inputs",
                AttrKind::Bool,
                flag(false),
            )
            .type_attr("T", &[DType::F32, DType::F64])
            .shape_fn(shape_fn),
    );
    register_kernel("CTCLoss", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l_prime_interleaves_blanks_and_drops_trailing_nulls() {
        assert_eq!(
            l_prime(&[0, 1], 0, 4, 5, false, false).unwrap(),
            [3, 0, 3, 1, 3]
        );
        assert_eq!(
            l_prime(&[1, 1, 2], 0, 4, 5, true, false).unwrap(),
            [3, 1, 3, 2, 3]
        );
        assert_eq!(
            l_prime(&[0, 3, 3], 0, 4, 5, false, false).unwrap(),
            [3, 0, 3]
        );
        assert!(l_prime(&[3, 0], 0, 4, 5, false, false).is_err());
        assert!(l_prime(&[0, 1, 2], 0, 4, 2, false, false).is_err());
        assert!(l_prime(&[0, 1, 2], 0, 4, 2, false, true).is_ok());
    }

    #[test]
    fn single_label_single_step_is_its_softmax() {
        // One step, label 0: the only path is "0", so the loss is -log softmax(x)[0].
        let x = [1.0f64, 2.0, 0.5];
        let mut g = [0.0; 3];
        let loss = entry_loss(|_| 0, &x, &[2, 0, 2], 1, 3, true, |_, c, v| g[c] = v);
        let z: f64 = x.iter().map(|v| (v - 2.0).exp()).sum();
        let p0 = (1.0f64 - 2.0).exp() / z;
        assert!((loss + p0.ln()).abs() < 1e-6, "{loss}");
        assert!((g[0] - (p0 - 1.0)).abs() < 1e-6);
    }
}
