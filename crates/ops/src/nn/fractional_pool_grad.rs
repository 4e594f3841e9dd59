//! The kernels of `FractionalMaxPoolGrad` and `FractionalAvgPoolGrad`, as TensorFlow's
//! `fractional_max_pool_op.cc` and `fractional_avg_pool_op.cc` compute them, with their checks
//! and messages (TensorFlow's `DebugString` and Eigen renderings of the offending tensors), and
//! weir's own InvalidArgument where TensorFlow would read or write outside its buffers.

use weir_graph::{format_dims, DType, Error, Kernel, Node, OpContext, Result, Tensor, TensorType};

use super::fractional_pool_kernels::{match_pool_type, span, PoolElem};

/// TensorFlow's `Tensor::DebugString()` (`Tensor<type: T shape: [..] values: ...>`), its
/// first three values nested as `SummarizeValue` nests them.
fn debug_string(t: &Tensor) -> String {
    fn items<T: TensorType + Copy>(t: &Tensor, show: impl Fn(T) -> String) -> Vec<String> {
        t.as_slice::<T>()
            .map(|s| s.iter().take(3).map(|&v| show(v)).collect())
            .unwrap_or_default()
    }
    let vals: Vec<String> = match t.dtype() {
        DType::F32 => items::<f32>(t, super::fractional_pool::format_float),
        DType::F64 => items::<f64>(t, super::fractional_pool::format_double),
        DType::I32 => items::<i32>(t, |v| v.to_string()),
        DType::I64 => items::<i64>(t, |v| v.to_string()),
        _ => Vec::new(),
    };
    let total = t.num_elements();
    let limit = vals.len().min(total);
    let mut s = String::new();
    let mut next = 0;
    if t.rank() == 0 {
        s.extend(vals.first().cloned());
    } else {
        summarize_dim(0, t.shape(), limit, &vals, &mut next, &mut s);
    }
    if total > limit {
        s.push_str("...");
    }
    format!(
        "Tensor<type: {} shape: {} values: {s}>",
        t.dtype().name(),
        format_dims(t.shape())
    )
}

fn summarize_dim(
    dim: usize,
    shape: &[usize],
    limit: usize,
    vals: &[String],
    next: &mut usize,
    s: &mut String,
) {
    if *next >= limit {
        return;
    }
    if dim == shape.len() - 1 {
        for i in 0..shape[dim] {
            if *next >= limit {
                if dim != 0 {
                    s.push_str("...");
                }
                return;
            }
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&vals[*next]);
            *next += 1;
        }
        return;
    }
    for _ in 0..shape[dim] {
        let opened = *next < limit;
        if opened {
            s.push('[');
        }
        summarize_dim(dim + 1, shape, limit, vals, next, s);
        if *next < limit || opened {
            s.push(']');
        }
    }
}

/// The backward kernels, configured by `overlapping`.
pub(super) struct GradKernel {
    avg: bool,
    overlapping: bool,
}

pub(super) fn make_grad(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(GradKernel {
        avg: node.op_type() == "FractionalAvgPoolGrad",
        overlapping: node.attr("overlapping")?,
    }))
}

/// A pooling sequence input as int64s, with weir's own checks where TensorFlow reads out of
/// bounds: a non-empty vector, no value negative.
fn sequence(t: &Tensor, what: &str) -> Result<Vec<i64>> {
    let seq = t.to_vec::<i64>()?;
    if t.rank() != 1 || seq.is_empty() {
        return Err(Error::invalid_argument(format!(
            "{what} must be a non-empty vector, got shape {}",
            format_dims(t.shape())
        )));
    }
    if seq.iter().any(|&v| v < 0) {
        return Err(Error::invalid_argument(format!(
            "{what} values must not be negative"
        )));
    }
    Ok(seq)
}

/// `FractionalMaxPoolGrad`: each output's gradient goes to the first maximum of its cell (in
/// row-major order; a later value wins only when strictly greater), after checking that the
/// recomputed maxima are `orig_output`.
fn max_grad<T: PoolElem>(ctx: &OpContext<'_>, overlapping: bool) -> Result<Tensor> {
    let (x, y, dy) = (ctx.input(0), ctx.input(1), ctx.input(2));
    let (rows_t, cols_t) = (ctx.input(3), ctx.input(4));
    if x.rank() != 4 {
        return Err(Error::invalid_argument(format!(
            "orig_input should be a tensor of rank 4, got {}",
            debug_string(x)
        )));
    }
    if x.num_elements() == 0 {
        return Err(Error::invalid_argument(format!(
            "orig_input must not be empty, got {}",
            debug_string(x)
        )));
    }
    if y.rank() != 4 {
        return Err(Error::invalid_argument(format!(
            "orig_output should be a tensor of rank 4, got {}",
            debug_string(y)
        )));
    }
    if y.num_elements() == 0 {
        return Err(Error::invalid_argument(format!(
            "orig_output must not be empty, got {}",
            debug_string(y)
        )));
    }
    if rows_t.num_elements() * cols_t.num_elements() > x.num_elements() {
        return Err(Error::invalid_argument(format!(
            "Pooling region has more elements than the input tensor. row_pooling_sequence: \
             {}col_pooling_sequence: {}orig_input: {}",
            debug_string(rows_t),
            debug_string(cols_t),
            debug_string(x)
        )));
    }
    let (xd, yd) = (x.shape().to_vec(), y.shape().to_vec());
    if dy.num_elements() != y.num_elements() {
        return Err(Error::invalid_argument(format!(
            "out_backprop must have as many elements as orig_output {}, got shape {}",
            format_dims(&yd),
            format_dims(dy.shape())
        )));
    }
    // TensorFlow walks the sequences' cells (reading past its tensors when they are longer
    // than orig_output's rows and columns); weir requires them to fit.
    let rows = sequence(rows_t, "row_pooling_sequence")?;
    let cols = sequence(cols_t, "col_pooling_sequence")?;
    if rows.len() - 1 > yd[1] || cols.len() - 1 > yd[2] || xd[0] > yd[0] || xd[3] > yd[3] {
        return Err(Error::invalid_argument(format!(
            "The pooling sequences ({} and {} boundaries) and orig_input {} do not fit \
             orig_output {}",
            rows.len(),
            cols.len(),
            format_dims(&xd),
            format_dims(&yd)
        )));
    }
    let (xs, ys, dys) = (x.as_slice::<T>()?, y.as_slice::<T>()?, dy.as_slice::<T>()?);
    let mut dup = vec![T::LOWEST; ys.len()];
    let mut arg = vec![-1i64; ys.len()];
    let (h, w, c) = (xd[1], xd[2], xd[3]);
    let (oh, ow, oc) = (yd[1], yd[2], yd[3]);
    for b in 0..xd[0] {
        for r in 0..rows.len() - 1 {
            let (r0, r1) = span(&rows, r, overlapping, h);
            for q in 0..cols.len() - 1 {
                let (c0, c1) = span(&cols, q, overlapping, w);
                let o = ((b * oh + r) * ow + q) * oc;
                for yy in r0..=r1 {
                    for xx in c0..=c1 {
                        let i = ((b * h + yy as usize) * w + xx as usize) * c;
                        for d in 0..c {
                            let v = xs[i + d];
                            if dup[o + d] < v || arg[o + d] == -1 {
                                dup[o + d] = v;
                                arg[o + d] = (i + d) as i64;
                            }
                        }
                    }
                }
            }
        }
    }
    if dup.iter().zip(ys).any(|(a, b)| a != b) {
        return Err(Error::invalid_argument(
            "tensor_out_dup is not the same as tensor_out",
        ));
    }
    let mut dx = vec![T::ZERO; xs.len()];
    for (&a, &g) in arg.iter().zip(dys) {
        if a < 0 || a as usize >= dx.len() {
            return Err(Error::invalid_argument(format!(
                "Invalid input backprop index: {a}, {}",
                dx.len()
            )));
        }
        dx[a as usize] = dx[a as usize].add(g);
    }
    Tensor::from_vec(&xd, dx)
}

/// The sequence's values as TensorFlow's Eigen printing shows them in the avg grad's
/// messages: each right-aligned to the widest, separated by a space.
fn eigen_row(seq: &[i64]) -> String {
    let items: Vec<String> = seq.iter().map(|v| v.to_string()).collect();
    let width = items.iter().map(String::len).max().unwrap_or(0);
    items
        .iter()
        .map(|s| format!("{s:>width$}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `FractionalAvgPoolGrad`: each output gradient spread evenly (in float64) over its cell's
/// inputs, then cast to `T`.
fn avg_grad<T: PoolElem>(ctx: &OpContext<'_>, overlapping: bool) -> Result<Tensor> {
    let (shape, dy) = (ctx.input(0), ctx.input(1));
    let (rows_t, cols_t) = (ctx.input(2), ctx.input(3));
    if shape.rank() != 1 || shape.num_elements() != 4 {
        return Err(Error::invalid_argument(
            "original input tensor shape must be1-dimensional and 4 elements",
        ));
    }
    if dy.rank() != 4 {
        return Err(Error::invalid_argument(
            "out_backprop must be 4-dimensional",
        ));
    }
    let dd = dy.shape().to_vec();
    for (t, what, cells) in [(rows_t, "row", dd[1]), (cols_t, "col", dd[2])] {
        if t.num_elements() < cells + 1 {
            return Err(Error::invalid_argument(format!(
                "Given out_backprop shape {}, {what}_seq_tensor must have at least {} \
                 elements, but got {}",
                format_dims(&dd),
                cells + 1,
                t.num_elements()
            )));
        }
    }
    let (rows, cols) = (rows_t.to_vec::<i64>()?, cols_t.to_vec::<i64>()?);
    for (seq, what) in [(&rows, "Row"), (&cols, "Column")] {
        if seq.iter().any(|&v| v < 0) {
            return Err(Error::invalid_argument(format!(
                "{what} sequence tensor values must not be negative, got {}",
                eigen_row(seq)
            )));
        }
    }
    let dims: Vec<usize> = shape
        .to_vec::<i64>()?
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .map_err(|_| Error::invalid_argument(format!("Dimension {d} must be >= 0")))
        })
        .collect::<Result<_>>()?;
    // TensorFlow writes past its buffer when out_backprop has more images or channels than
    // the shape; weir refuses.
    if dd[0] > dims[0] || dd[3] > dims[3] {
        return Err(Error::invalid_argument(format!(
            "out_backprop {} has more images or channels than orig_input_tensor_shape {}",
            format_dims(&dd),
            format_dims(&dims)
        )));
    }
    let total = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let total = total.ok_or_else(|| {
        Error::invalid_argument(format!(
            "orig_input_tensor_shape {} has too many elements",
            format_dims(&dims)
        ))
    })?;
    let (h, w, c) = (dims[1], dims[2], dims[3]);
    let dys = dy.as_slice::<T>()?;
    let mut acc = vec![0f64; total];
    for b in 0..dd[0] {
        for r in 0..dd[1] {
            let (r0, r1) = span(&rows, r, overlapping, h);
            for q in 0..dd[2] {
                let (c0, c1) = span(&cols, q, overlapping, w);
                let cells = ((r1 - r0 + 1) * (c1 - c0 + 1)) as f64;
                let o = ((b * dd[1] + r) * dd[2] + q) * dd[3];
                for yy in r0..=r1 {
                    for xx in c0..=c1 {
                        let i = ((b * h + yy as usize) * w + xx as usize) * c;
                        for d in 0..dd[3] {
                            acc[i + d] += dys[o + d].to_f64() / cells;
                        }
                    }
                }
            }
        }
    }
    Tensor::from_vec(&dims, acc.into_iter().map(T::from_f64).collect())
}

impl Kernel for GradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dtype = ctx.input(if self.avg { 1 } else { 0 }).dtype();
        let out = if self.avg {
            match_pool_type!(dtype, T => avg_grad::<T>(ctx, self.overlapping)?)
        } else {
            match_pool_type!(dtype, T => max_grad::<T>(ctx, self.overlapping)?)
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_strings_nest_the_first_three_values() {
        let t = Tensor::from_vec(&[2, 3, 2], (0..12).map(|v| v as f32).collect()).unwrap();
        assert_eq!(
            debug_string(&t),
            "Tensor<type: float shape: [2,3,2] values: [[0 1][2...]]...>"
        );
        let v = Tensor::from(vec![0i64, 1, 2, 3]);
        assert_eq!(
            debug_string(&v),
            "Tensor<type: int64 shape: [4] values: 0 1 2...>"
        );
        let e = Tensor::from_vec(&[1, 0, 2], Vec::<f32>::new()).unwrap();
        assert_eq!(
            debug_string(&e),
            "Tensor<type: float shape: [1,0,2] values: >"
        );
        assert_eq!(eigen_row(&[0, -2, 4, 6]), " 0 -2  4  6");
    }
}
