//! `Einsum` (`tf.einsum`): sums of products over labelled dimensions, for one or two operands,
//! with diagonals (repeated labels), broadcasting `...` dimensions, and repeated output labels
//! (which the gradient uses). Two operands are contracted as one batched matrix product: each
//! is gathered once into `[batch, free, contracted]` order (summing labels only it has), the
//! batches multiplied, and the product scattered into the output's label order.

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use super::einsum_plan::{geometry, offsets, parse, resolve, Equation, Geometry, Sub};
use crate::math::Arith;

/// `tf.einsum(equation, *inputs)`: the Einstein summation of `inputs` described by
/// `equation` (`"ij,jk->ik"`, `"bij,bjk->bik"`, `"ii->i"`, `"...ij->...ji"`; without `->` the
/// output is the labels used once, in alphabetical order). More than two operands are
/// contracted left to right, two at a time.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::einsum};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?)?;
/// let b = constant(&g, Tensor::from_vec(&[2, 1], vec![1.0f32, 1.0])?)?;
/// let ab = einsum("ij,jk->ik", &[a.clone(), b])?;
/// let trace = einsum("ii", &[a])?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&ab)?.to_vec::<f32>()?, vec![3.0, 7.0]);
/// assert_eq!(sess.eval(&trace)?.to_scalar::<f32>()?, 5.0);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn einsum(equation: &str, inputs: &[Output]) -> Result<Output> {
    let resolved = resolve(equation, inputs.len())?;
    let refs: Vec<&Output> = inputs.iter().collect();
    let g = crate::util::same_graph(&refs)?.clone();
    if inputs.len() <= 2 {
        return crate::new_op(&g, "Einsum")
            .inputs(inputs.iter().cloned())
            .attr("equation", resolved.as_str())
            .build()?
            .output(0);
    }
    // Left to right: keep the labels later operands or the output still need.
    let (ins, out) = resolved.split_once("->").unwrap_or((&resolved, ""));
    let subs: Vec<&str> = ins.split(',').collect();
    let mut acc = inputs[0].clone();
    let mut acc_subs = subs[0].to_string();
    for (k, next) in inputs.iter().enumerate().skip(1) {
        let rest: String = subs[k + 1..].concat() + out;
        let ell = acc_subs.contains("...") || subs[k].contains("...");
        let mut keep = String::new();
        if ell {
            keep.push_str("...");
        }
        for c in acc_subs.chars().chain(subs[k].chars()) {
            if c.is_ascii_alphabetic() && rest.contains(c) && !keep.contains(c) {
                keep.push(c);
            }
        }
        let eq = if k + 1 == inputs.len() {
            format!("{acc_subs},{}->{out}", subs[k])
        } else {
            format!("{acc_subs},{}->{keep}", subs[k])
        };
        acc = crate::new_op(&g, "Einsum")
            .input(&acc)
            .input(next)
            .attr("equation", eq.as_str())
            .build()?
            .output(0)?;
        acc_subs = keep;
    }
    Ok(acc)
}

/// The element types of Einsum, with their matrix product.
trait Elem: Arith {
    fn gemm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]) -> Result<()>;
}

macro_rules! float_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn gemm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]) -> Result<()> {
                let err = |e: ndarray::ShapeError| Error::internal(e.to_string());
                let av = ArrayView2::from_shape((m, k), a).map_err(err)?;
                let bv = ArrayView2::from_shape((k, n), b).map_err(err)?;
                let mut cv = ArrayViewMut2::from_shape((m, n), c).map_err(err)?;
                general_mat_mul(1.0, &av, &bv, 0.0, &mut cv);
                Ok(())
            }
        }
    )*};
}
float_elem!(f32, f64);

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn gemm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]) -> Result<()> {
                c.iter_mut().for_each(|v| *v = 0);
                for i in 0..m {
                    for p in 0..k {
                        let x = a[i * k + p];
                        for (cv, &bv) in c[i * n..(i + 1) * n].iter_mut().zip(&b[p * n..(p + 1) * n]) {
                            *cv = cv.wrapping_add(x.wrapping_mul(bv));
                        }
                    }
                }
                Ok(())
            }
        }
    )*};
}
int_elem!(i32, i64);

/// A buffer for `dims` elements: InvalidArgument when the count overflows, ResourceExhausted
/// when the allocator refuses.
fn buffer<T: Elem>(dims: &[usize], dtype: DType) -> Result<Vec<T>> {
    let n = super::batch::checked_len(dims)?;
    let mut v = crate::array::alloc_filled(dims, n, T::default(), dtype)?;
    v.clear();
    Ok(v)
}

/// Operand `i` gathered in the order of the labels `keep` (row-major), summed over `sum`.
fn gather<T: Elem>(
    geo: &Geometry,
    i: usize,
    src: &[T],
    keep: &[usize],
    sum: &[usize],
) -> Result<Vec<T>> {
    let size = |ls: &[usize]| ls.iter().map(|&l| geo.sizes[l]).collect::<Vec<_>>();
    let stride = |ls: &[usize]| ls.iter().map(|&l| geo.stride(i, l)).collect::<Vec<_>>();
    let mut inner = Vec::new();
    offsets(&size(sum), &stride(sum), |o| inner.push(o));
    let mut out = buffer::<T>(&size(keep), T::DTYPE)?;
    offsets(&size(keep), &stride(keep), |base| {
        out.push(
            inner
                .iter()
                .fold(T::default(), |acc, &o| T::add(acc, src[base + o])),
        );
    });
    Ok(out)
}

/// Writes `r` (labels `order`, row-major) into a zero output of the geometry's output labels;
/// repeated output labels get the value on their diagonal only.
fn scatter_out<T: Elem>(geo: &Geometry, r: &[T], order: &[usize]) -> Result<Tensor> {
    let shape = geo.output_shape();
    let n = super::batch::checked_len(&shape)?;
    let mut out = crate::array::alloc_filled(&shape, n, T::default(), T::DTYPE)?;
    let mut st = vec![0usize; geo.sizes.len()];
    let mut s = 1usize;
    for (&l, &d) in geo.output.iter().zip(&shape).rev() {
        st[l] += s;
        s *= d;
    }
    let sizes: Vec<usize> = order.iter().map(|&l| geo.sizes[l]).collect();
    let strides: Vec<usize> = order.iter().map(|&l| st[l]).collect();
    let mut k = 0usize;
    offsets(&sizes, &strides, |o| {
        out[o] = r[k];
        k += 1;
    });
    Tensor::from_vec(&shape, out)
}

fn distinct_output(geo: &Geometry) -> Vec<usize> {
    let mut v: Vec<usize> = Vec::with_capacity(geo.output.len());
    for &l in &geo.output {
        if !v.contains(&l) {
            v.push(l);
        }
    }
    v
}

fn compute<T: Elem>(eq: &Equation, inputs: &[&Tensor]) -> Result<Tensor> {
    let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape()).collect();
    let geo = geometry(eq, &shapes)?;
    let out_labels = distinct_output(&geo);
    let in_out = |l: usize| out_labels.contains(&l);
    let labels = |i: usize| geo.operands[i].iter().map(|&(l, _)| l).collect::<Vec<_>>();
    if inputs.len() == 1 {
        let sum: Vec<usize> = labels(0).into_iter().filter(|&l| !in_out(l)).collect();
        let r = gather(&geo, 0, inputs[0].as_slice::<T>()?, &out_labels, &sum)?;
        if out_labels.len() == geo.output.len() {
            return Tensor::from_vec(&geo.output_shape(), r);
        }
        return scatter_out(&geo, &r, &out_labels);
    }
    let (lx, ly) = (labels(0), labels(1));
    let pick = |f: &dyn Fn(usize) -> bool, from: &[usize]| -> Vec<usize> {
        from.iter().copied().filter(|&l| f(l)).collect()
    };
    let batch = pick(&|l| geo.has(0, l) && geo.has(1, l), &out_labels);
    let free_x = pick(&|l| geo.has(0, l) && !geo.has(1, l), &out_labels);
    let free_y = pick(&|l| geo.has(1, l) && !geo.has(0, l), &out_labels);
    let contracted = pick(&|l| geo.has(1, l) && !in_out(l), &lx);
    let sum_x = pick(&|l| !geo.has(1, l) && !in_out(l), &lx);
    let sum_y = pick(&|l| !geo.has(0, l) && !in_out(l), &ly);
    let prod = |ls: &[usize]| ls.iter().map(|&l| geo.sizes[l]).product::<usize>();
    let (nb, m, k, n) = (
        prod(&batch),
        prod(&free_x),
        prod(&contracted),
        prod(&free_y),
    );
    let xo: Vec<usize> = [&batch[..], &free_x, &contracted].concat();
    let yo: Vec<usize> = [&batch[..], &contracted, &free_y].concat();
    let x = gather(&geo, 0, inputs[0].as_slice::<T>()?, &xo, &sum_x)?;
    let y = gather(&geo, 1, inputs[1].as_slice::<T>()?, &yo, &sum_y)?;
    let mut r = buffer::<T>(&[nb, m, n], T::DTYPE)?;
    r.resize(nb * m * n, T::default());
    if m * n > 0 {
        for (b, c) in r.chunks_exact_mut(m * n).enumerate() {
            T::gemm(
                m,
                k,
                n,
                &x[b * m * k..(b + 1) * m * k],
                &y[b * k * n..(b + 1) * k * n],
                c,
            )?;
        }
    }
    let order: Vec<usize> = [&batch[..], &free_x, &free_y].concat();
    scatter_out(&geo, &r, &order)
}

struct EinsumKernel(Equation);

impl Kernel for EinsumKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs: Vec<&Tensor> = ctx.inputs().iter().collect();
        let dt = inputs[0].dtype();
        let out = match dt {
            DType::F32 => compute::<f32>(&self.0, &inputs)?,
            DType::F64 => compute::<f64>(&self.0, &inputs)?,
            DType::I32 => compute::<i32>(&self.0, &inputs)?,
            DType::I64 => compute::<i64>(&self.0, &inputs)?,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "Einsum does not support {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(EinsumKernel(parse(
        &node.attr::<String>("equation")?,
    )?)))
}

/// The static output shape: each label's size from whichever operand knows it.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let eq = parse(&ctx.attr::<String>("equation")?)?;
    if eq.inputs.len() != ctx.num_inputs() {
        return Err(Error::invalid_argument(format!(
            "Expected {} inputs but got: {}",
            eq.inputs.len(),
            ctx.num_inputs()
        )));
    }
    let mut dims: Vec<Vec<Option<usize>>> = Vec::new();
    for i in 0..ctx.num_inputs() {
        match ctx.input_shape(i).dims() {
            Some(d) => dims.push(d.to_vec()),
            None => return Ok(()),
        }
    }
    let mut letter: Vec<(u8, Option<usize>)> = Vec::new();
    let mut ell: Vec<Vec<Option<usize>>> = Vec::new();
    for (i, (subs, d)) in eq.inputs.iter().zip(&dims).enumerate() {
        let named = subs.iter().filter(|s| **s != Sub::Ellipsis).count();
        let has = subs.contains(&Sub::Ellipsis);
        if d.len() < named || (!has && d.len() != named) {
            return Err(Error::invalid_argument(format!(
                "Expected input {i} to have rank {named} but got: {}",
                d.len()
            )));
        }
        let e = d.len() - named;
        let mut axis = 0;
        for s in subs {
            match s {
                Sub::Ellipsis => {
                    ell.push(d[axis..axis + e].to_vec());
                    axis += e;
                }
                Sub::Label(c) => {
                    match letter.iter_mut().find(|(x, _)| x == c) {
                        Some((_, v)) => match (*v, d[axis]) {
                            (Some(a), Some(b)) if a != b => {
                                return Err(Error::invalid_argument(format!(
                                    "Dimensions must be equal, but are {a} and {b}"
                                )))
                            }
                            (a, b) => *v = a.or(b),
                        },
                        None => letter.push((*c, d[axis])),
                    }
                    axis += 1;
                }
            }
        }
    }
    // The broadcast of the ellipsis dims, right-aligned.
    let nb = ell.iter().map(Vec::len).max().unwrap_or(0);
    let mut bdims: Vec<Option<usize>> = vec![Some(1); nb];
    for e in &ell {
        for (j, &d) in e.iter().enumerate() {
            let b = &mut bdims[nb - e.len() + j];
            *b = match (*b, d) {
                (Some(1), x) | (x, Some(1)) => x,
                (Some(a), Some(c)) if a == c => Some(a),
                (Some(a), Some(c)) => {
                    return Err(Error::invalid_argument(format!(
                        "Dimensions must be equal, but are {a} and {c}"
                    )))
                }
                _ => None,
            };
        }
    }
    let mut out = Vec::new();
    for s in &eq.output {
        match s {
            Sub::Ellipsis => out.extend(bdims.iter().copied()),
            Sub::Label(c) => out.push(letter.iter().find(|(x, _)| x == c).and_then(|(_, v)| *v)),
        }
    }
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Einsum")
            .input(
                "inputs",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .output("output", ArgType::Attr("T"))
            .attr("equation", AttrKind::Str, None)
            .int_attr_min("N", 1)
            .type_attr("T", &[DType::F32, DType::F64, DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("Einsum", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(eq: &str, ins: &[&Tensor]) -> Tensor {
        compute::<f64>(&parse(eq).unwrap(), ins).unwrap()
    }

    #[test]
    fn contracts_diagonals_and_inflates() {
        let a = Tensor::from_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(
            run("ij,jk->ik", &[&a, &a]).to_vec::<f64>().unwrap(),
            vec![7.0, 10.0, 15.0, 22.0]
        );
        assert_eq!(
            run("ij->ji", &[&a]).to_vec::<f64>().unwrap(),
            vec![1.0, 3.0, 2.0, 4.0]
        );
        assert_eq!(run("ii->i", &[&a]).to_vec::<f64>().unwrap(), vec![1.0, 4.0]);
        assert_eq!(run("ii->", &[&a]).to_scalar::<f64>().unwrap(), 5.0);
        let v = Tensor::from(vec![5.0, 6.0]);
        assert_eq!(
            run("i->ii", &[&v]).to_vec::<f64>().unwrap(),
            vec![5.0, 0.0, 0.0, 6.0]
        );
        assert_eq!(
            run("ij,j->j", &[&a, &v]).to_vec::<f64>().unwrap(),
            vec![20.0, 36.0]
        );
        let e = compute::<f64>(
            &parse("ij,jk->ik").unwrap(),
            &[&a, &Tensor::from(vec![1.0])],
        )
        .unwrap_err();
        assert!(e.is_invalid_argument());
    }
}
