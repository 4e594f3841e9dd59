//! numpy broadcasting for elementwise kernels, without materializing a broadcast operand.
//!
//! [`Bcast`] merges adjacent dimensions that broadcast the same way (TensorFlow's `BCast` does
//! the same), so `[1024,1024] + [1024]` becomes an outer loop of 1024 runs over two contiguous
//! rows, and equal shapes become a single run. Each run is one tight loop over slices, with the
//! operation monomorphized: no per-element dispatch or index arithmetic.

use weir_graph::{format_dims, Error, InferenceContext, Result, Shape, Tensor, TensorType};

use crate::util::vectorized;

/// The numpy broadcast of two run-time shapes; InvalidArgument "Incompatible shapes" otherwise.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (i, o) in out.iter_mut().enumerate() {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        *o = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(incompatible(a, b));
        };
    }
    Ok(out)
}

pub(crate) fn incompatible(a: &[usize], b: &[usize]) -> Error {
    Error::invalid_argument(format!(
        "Incompatible shapes: {} vs. {}",
        format_dims(a),
        format_dims(b)
    ))
}

/// The static broadcast of two partial shapes (TensorFlow's `BroadcastBinaryOpShapeFn`):
/// unknown stays unknown, a known mismatch is an error naming the op.
pub(crate) fn broadcast_static(a: &Shape, b: &Shape, op: &str) -> Result<Shape> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(Shape::unknown());
    };
    let n = da.len().max(db.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let x = if i + da.len() >= n {
            da[i + da.len() - n]
        } else {
            Some(1)
        };
        let y = if i + db.len() >= n {
            db[i + db.len() - n]
        } else {
            Some(1)
        };
        out.push(match (x, y) {
            (Some(p), Some(q)) if p == q => Some(p),
            (Some(1), q) => q,
            (p, Some(1)) => p,
            (Some(p), Some(q)) => {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {p} and {q} for '{op}' with input shapes: {a}, {b}."
                )))
            }
            // The unknown side must be 1 or p, and p is not 1 here.
            (Some(p), None) | (None, Some(p)) => Some(p),
            (None, None) => None,
        });
    }
    Ok(Shape::new(out))
}

/// Shape function of broadcasting binary ops: output 0 is the broadcast of inputs 0 and 1.
pub(crate) fn broadcast_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = broadcast_static(ctx.input_shape(0), ctx.input_shape(1), ctx.op_type)?;
    ctx.set_output(0, s);
    Ok(())
}

/// How two operands map onto their broadcast output.
pub(crate) struct Bcast {
    /// The output shape.
    pub out_shape: Vec<usize>,
    /// Number of output elements.
    pub len: usize,
    /// Merged output dims, outermost first; never empty.
    dims: Vec<usize>,
    /// Per merged dim, each operand's stride (0 where it is broadcast).
    x_stride: Vec<usize>,
    y_stride: Vec<usize>,
}

impl Bcast {
    /// The plan for operands of shapes `a` and `b`; InvalidArgument when they do not broadcast.
    pub fn new(a: &[usize], b: &[usize]) -> Result<Bcast> {
        let out_shape = if a == b {
            a.to_vec()
        } else {
            broadcast_shapes(a, b)?
        };
        let n = out_shape.len();
        let mut dims: Vec<usize> = Vec::with_capacity(n);
        let mut kinds: Vec<(bool, bool)> = Vec::with_capacity(n);
        for (i, &d) in out_shape.iter().enumerate() {
            if d == 1 {
                continue;
            }
            let da = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let db = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            let kind = (da == 1, db == 1);
            if kinds.last() == Some(&kind) {
                *dims.last_mut().expect("kinds and dims grow together") *= d;
            } else {
                dims.push(d);
                kinds.push(kind);
            }
        }
        if dims.is_empty() {
            dims.push(1);
            kinds.push((false, false));
        }
        let mut x_stride = vec![0; dims.len()];
        let mut y_stride = vec![0; dims.len()];
        let (mut sx, mut sy) = (1usize, 1usize);
        for j in (0..dims.len()).rev() {
            if !kinds[j].0 {
                x_stride[j] = sx;
                sx *= dims[j];
            }
            if !kinds[j].1 {
                y_stride[j] = sy;
                sy *= dims[j];
            }
        }
        let len = out_shape.iter().product();
        Ok(Bcast {
            out_shape,
            len,
            dims,
            x_stride,
            y_stride,
        })
    }

    /// Whether operand x covers the whole output (so the output may be written into it).
    pub fn x_is_full(&self) -> bool {
        self.x_stride
            .iter()
            .zip(&self.dims)
            .all(|(&s, &d)| s != 0 || d == 1)
    }

    /// Whether operand y covers the whole output.
    pub fn y_is_full(&self) -> bool {
        self.y_stride
            .iter()
            .zip(&self.dims)
            .all(|(&s, &d)| s != 0 || d == 1)
    }

    /// Calls `run(x_offset, y_offset, x_broadcast, y_broadcast, len)` for each innermost run, in
    /// output order. A broadcast operand contributes the one element at its offset.
    fn for_each_run(&self, mut run: impl FnMut(usize, usize, bool, bool, usize)) {
        if self.len == 0 {
            return;
        }
        let k = self.dims.len() - 1;
        let inner = self.dims[k];
        let (xb, yb) = (self.x_stride[k] == 0, self.y_stride[k] == 0);
        if k == 0 {
            run(0, 0, xb, yb, inner);
            return;
        }
        let mut idx = vec![0usize; k];
        let (mut xo, mut yo) = (0usize, 0usize);
        loop {
            run(xo, yo, xb, yb, inner);
            // Advance the odometer over the outer dims.
            let mut j = k;
            loop {
                if j == 0 {
                    return;
                }
                j -= 1;
                idx[j] += 1;
                xo += self.x_stride[j];
                yo += self.y_stride[j];
                if idx[j] < self.dims[j] {
                    break;
                }
                xo -= self.x_stride[j] * self.dims[j];
                yo -= self.y_stride[j] * self.dims[j];
                idx[j] = 0;
            }
        }
    }

    /// `f(x, y)` over the broadcast, into a new buffer (one allocation).
    pub fn map<A, B, U>(&self, x: &[A], y: &[B], f: impl Fn(&A, &B) -> U) -> Vec<U> {
        let mut out: Vec<U> = Vec::with_capacity(self.len);
        // `vectorized` wraps each run's loop, not the walk over runs: only a small body is
        // inlined into the wide-vector variants (a large one is compiled apart, for the
        // baseline, and its loops run 4 lanes wide).
        self.for_each_run(|xo, yo, xb, yb, n| match (xb, yb) {
            (false, false) => vectorized(|| {
                out.extend(
                    x[xo..xo + n]
                        .iter()
                        .zip(&y[yo..yo + n])
                        .map(|(p, q)| f(p, q)),
                )
            }),
            (false, true) => {
                let q = &y[yo];
                vectorized(|| out.extend(x[xo..xo + n].iter().map(|p| f(p, q))))
            }
            (true, false) => {
                let p = &x[xo];
                vectorized(|| out.extend(y[yo..yo + n].iter().map(|q| f(p, q))))
            }
            (true, true) => {
                let (p, q) = (&x[xo], &y[yo]);
                out.extend((0..n).map(|_| f(p, q)))
            }
        });
        out
    }

    /// `x = f(x, y)` in place; x must cover the whole output ([`Bcast::x_is_full`]).
    pub fn update_x<A: Copy, B>(&self, x: &mut [A], y: &[B], f: impl Fn(A, &B) -> A) {
        self.for_each_run(|xo, yo, _, yb, n| {
            let xs = &mut x[xo..xo + n];
            if yb {
                let q = &y[yo];
                vectorized(|| {
                    for p in xs.iter_mut() {
                        *p = f(*p, q);
                    }
                })
            } else {
                vectorized(|| {
                    for (p, q) in xs.iter_mut().zip(&y[yo..yo + n]) {
                        *p = f(*p, q);
                    }
                })
            }
        });
    }

    /// `y = f(x, y)` in place; y must cover the whole output ([`Bcast::y_is_full`]).
    pub fn update_y<A, B: Copy>(&self, x: &[A], y: &mut [B], f: impl Fn(&A, B) -> B) {
        self.for_each_run(|xo, yo, xb, _, n| {
            let ys = &mut y[yo..yo + n];
            if xb {
                let p = &x[xo];
                vectorized(|| {
                    for q in ys.iter_mut() {
                        *q = f(p, *q);
                    }
                })
            } else {
                vectorized(|| {
                    for (q, p) in ys.iter_mut().zip(&x[xo..xo + n]) {
                        *q = f(p, *q);
                    }
                })
            }
        });
    }
}

/// Whether this tensor's buffer is held by no one else, so a kernel may write into it.
pub(crate) fn is_unique<T: TensorType>(t: &Tensor) -> bool {
    t.dtype() == T::DTYPE && t.is_unique()
}

/// `f(x, y)` with broadcasting, for tensors of one element type `T` and an output of type `U`.
#[cfg(test)]
pub(crate) fn broadcast_map<T, U>(x: &Tensor, y: &Tensor, f: impl Fn(T, T) -> U) -> Result<Tensor>
where
    T: TensorType + Copy,
    U: TensorType,
{
    let bc = Bcast::new(x.shape(), y.shape())?;
    let out = bc.map(x.as_slice::<T>()?, y.as_slice::<T>()?, |&p, &q| f(p, q));
    Tensor::from_vec(&bc.out_shape, out)
}

/// `f(x, y)` with broadcasting where the output has the inputs' type: written into the buffer
/// of an input that covers the output and that no one else holds, else into a new one.
pub(crate) fn broadcast_update<T>(x: Tensor, y: Tensor, f: impl Fn(T, T) -> T) -> Result<Tensor>
where
    T: TensorType + Copy,
{
    // A tensor times a scalar (`cast(img) * (1/255)` on every example of a per-example
    // pipeline) needs no broadcast plan, whose vectors cost more than the loop on [784].
    if y.rank() == 0 && is_unique::<T>(&x) {
        let q = *y
            .as_slice::<T>()?
            .first()
            .ok_or_else(|| Error::internal("empty scalar"))?;
        let mut x = x;
        let xs = x.as_slice_mut::<T>()?;
        vectorized(|| {
            for p in xs.iter_mut() {
                *p = f(*p, q);
            }
        });
        return Ok(x);
    }
    // Operands of one shape (every elementwise op between a loop's scalars, or two batches)
    // need no broadcast plan either.
    if x.shape() == y.shape() {
        if is_unique::<T>(&x) {
            let mut x = x;
            let ys = y.as_slice::<T>()?;
            let xs = x.as_slice_mut::<T>()?;
            vectorized(|| {
                for (p, &q) in xs.iter_mut().zip(ys) {
                    *p = f(*p, q);
                }
            });
            return Ok(x);
        }
        if is_unique::<T>(&y) {
            let mut y = y;
            let xs = x.as_slice::<T>()?;
            let ys = y.as_slice_mut::<T>()?;
            vectorized(|| {
                for (&p, q) in xs.iter().zip(ys.iter_mut()) {
                    *q = f(p, *q);
                }
            });
            return Ok(y);
        }
        let (xs, ys) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
        let out: Vec<T> = vectorized(|| xs.iter().zip(ys).map(|(&p, &q)| f(p, q)).collect());
        return Tensor::from_vec(x.shape(), out);
    }
    let bc = Bcast::new(x.shape(), y.shape())?;
    if bc.x_is_full() && is_unique::<T>(&x) {
        let mut x = x;
        let ys = y.as_slice::<T>()?;
        bc.update_x(x.as_slice_mut::<T>()?, ys, |p, &q| f(p, q));
        return with_shape(x, &bc.out_shape);
    }
    if bc.y_is_full() && is_unique::<T>(&y) {
        let mut y = y;
        let xs = x.as_slice::<T>()?;
        bc.update_y(xs, y.as_slice_mut::<T>()?, |&p, q| f(p, q));
        return with_shape(y, &bc.out_shape);
    }
    let out = bc.map(x.as_slice::<T>()?, y.as_slice::<T>()?, |&p, &q| f(p, q));
    Tensor::from_vec(&bc.out_shape, out)
}

/// `t` with `shape` (same element count: only size-1 dims differ), sharing its data.
fn with_shape(t: Tensor, shape: &[usize]) -> Result<Tensor> {
    if t.shape() == shape {
        Ok(t)
    } else {
        t.reshape(shape)
    }
}

/// `f(x)` elementwise into a new tensor of type `U`.
pub(crate) fn unary_map<T, U>(x: &Tensor, f: impl Fn(T) -> U) -> Result<Tensor>
where
    T: TensorType + Copy,
    U: TensorType,
{
    let xs = x.as_slice::<T>()?;
    // One value (a per-example label's cast): kept inline in the tensor, with no vector to
    // allocate and no SIMD dispatch for a single element.
    if let [v] = xs {
        return Ok(Tensor::filled(x.shape(), f(*v)));
    }
    let out: Vec<U> = vectorized(|| xs.iter().map(|&v| f(v)).collect());
    Tensor::from_vec(x.shape(), out)
}

/// `f(x)` elementwise, in `x`'s buffer when no one else holds it.
pub(crate) fn unary_update<T>(x: Tensor, f: impl Fn(T) -> T) -> Result<Tensor>
where
    T: TensorType + Copy,
{
    if is_unique::<T>(&x) {
        let mut x = x;
        let xs = x.as_slice_mut::<T>()?;
        vectorized(|| {
            for v in xs {
                *v = f(*v);
            }
        });
        Ok(x)
    } else {
        unary_map(&x, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(a: &Tensor, b: &Tensor) -> Vec<i32> {
        broadcast_map(a, b, |p: i32, q: i32| p + q)
            .unwrap()
            .to_vec::<i32>()
            .unwrap()
    }

    #[test]
    fn broadcast_shapes_follow_numpy() {
        assert_eq!(broadcast_shapes(&[2, 3], &[3]).unwrap(), vec![2, 3]);
        assert_eq!(broadcast_shapes(&[2, 1], &[1, 3]).unwrap(), vec![2, 3]);
        assert_eq!(broadcast_shapes(&[], &[4]).unwrap(), vec![4]);
        assert_eq!(broadcast_shapes(&[0, 3], &[1]).unwrap(), vec![0, 3]);
        let e = broadcast_shapes(&[2, 3], &[4]).unwrap_err();
        assert_eq!(e.message(), "Incompatible shapes: [2,3] vs. [4]");
    }

    #[test]
    fn static_broadcast_keeps_unknowns() {
        let a = Shape::new(vec![None, Some(3)]);
        let b = Shape::known(&[3]);
        assert_eq!(broadcast_static(&a, &b, "Add").unwrap(), a);
        let c = Shape::new(vec![Some(2), None]);
        assert_eq!(
            broadcast_static(&c, &Shape::new(vec![None, Some(1)]), "Add").unwrap(),
            Shape::new(vec![Some(2), None])
        );
        let e = broadcast_static(&Shape::known(&[2]), &Shape::known(&[3]), "Add").unwrap_err();
        assert!(
            e.message()
                .contains("Dimensions must be equal, but are 2 and 3"),
            "{e}"
        );
        assert_eq!(
            broadcast_static(&Shape::unknown(), &b, "Add").unwrap(),
            Shape::unknown()
        );
    }

    #[test]
    fn every_path_agrees() {
        let a = Tensor::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
        let row = Tensor::from(vec![10i32, 20, 30]);
        let col = Tensor::from_vec(&[2, 1], vec![100i32, 200]).unwrap();
        let s = Tensor::from(1i32);
        assert_eq!(add(&a, &row), vec![11, 22, 33, 14, 25, 36]);
        assert_eq!(add(&row, &a), vec![11, 22, 33, 14, 25, 36]);
        assert_eq!(add(&a, &col), vec![101, 102, 103, 204, 205, 206]);
        assert_eq!(add(&a, &s), vec![2, 3, 4, 5, 6, 7]);
        assert_eq!(add(&s, &a), vec![2, 3, 4, 5, 6, 7]);
        assert_eq!(add(&s, &s), vec![2]);
        let outer = broadcast_map(&col, &row, |p: i32, q: i32| p + q).unwrap();
        assert_eq!(outer.shape(), &[2, 3]);
        assert_eq!(
            outer.to_vec::<i32>().unwrap(),
            vec![110, 120, 130, 210, 220, 230]
        );
        let empty = Tensor::from_vec(&[0, 3], Vec::<i32>::new()).unwrap();
        assert_eq!(
            broadcast_map(&empty, &row, |p: i32, q: i32| p + q)
                .unwrap()
                .shape(),
            &[0, 3]
        );
    }

    #[test]
    fn a_unique_tensor_and_a_scalar_update_in_place_in_operand_order() {
        let x = Tensor::from_vec(&[2, 2], vec![10i32, 20, 30, 40]).unwrap();
        let ptr = x.as_slice::<i32>().unwrap().as_ptr();
        let out = broadcast_update(x, Tensor::from(3i32), |p: i32, q: i32| p - q).unwrap();
        assert_eq!(out.shape(), &[2, 2]);
        assert_eq!(out.to_vec::<i32>().unwrap(), vec![7, 17, 27, 37]);
        assert_eq!(out.as_slice::<i32>().unwrap().as_ptr(), ptr);
        // A shared tensor is left alone; a scalar first keeps its place.
        let shared = Tensor::from(vec![1i32, 2]);
        let out = broadcast_update(shared.clone(), Tensor::from(5i32), |p: i32, q: i32| p - q);
        assert_eq!(out.unwrap().to_vec::<i32>().unwrap(), vec![-4, -3]);
        assert_eq!(shared.to_vec::<i32>().unwrap(), vec![1, 2]);
        let out = broadcast_update(
            Tensor::from(5i32),
            Tensor::from(vec![1i32, 2]),
            |p: i32, q| p - q,
        );
        assert_eq!(out.unwrap().to_vec::<i32>().unwrap(), vec![4, 3]);
    }

    #[test]
    fn middle_axis_broadcast_merges_dims() {
        // [2,3,2] + [2,1,2]: x full, y broadcast in the middle.
        let x = Tensor::from_vec(&[2, 3, 2], (0..12).collect::<Vec<i32>>()).unwrap();
        let y = Tensor::from_vec(&[2, 1, 2], vec![100, 200, 300, 400]).unwrap();
        let want: Vec<i32> = vec![100, 201, 102, 203, 104, 205, 306, 407, 308, 409, 310, 411];
        assert_eq!(add(&x, &y), want);
        assert_eq!(add(&y, &x), want);
        // Size-1 dims of the output are dropped from the plan.
        let p = Tensor::from_vec(&[1, 3, 1], vec![1, 2, 3]).unwrap();
        let q = Tensor::from_vec(&[1, 1, 1], vec![10]).unwrap();
        assert_eq!(add(&p, &q), vec![11, 12, 13]);
    }

    #[test]
    fn update_writes_in_place_only_when_unshared() {
        let x = Tensor::from(vec![1i32, 2, 3]);
        let ptr = x.as_slice::<i32>().unwrap().as_ptr();
        let out = broadcast_update(x, Tensor::from(10i32), |p: i32, q: i32| p + q).unwrap();
        assert_eq!(out.as_slice::<i32>().unwrap().as_ptr(), ptr);
        assert_eq!(out.to_vec::<i32>().unwrap(), vec![11, 12, 13]);

        let shared = Tensor::from(vec![1i32, 2, 3]);
        let keep = shared.clone();
        let out = broadcast_update(shared, Tensor::from(10i32), |p: i32, q: i32| p + q).unwrap();
        assert_eq!(keep.to_vec::<i32>().unwrap(), vec![1, 2, 3]);
        assert_eq!(out.to_vec::<i32>().unwrap(), vec![11, 12, 13]);

        // y reused when x is broadcast; subtraction order is kept.
        let y = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap();
        let out =
            broadcast_update(Tensor::from(vec![10i32, 20]), y, |p: i32, q: i32| p - q).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), vec![9, 18, 7, 16]);

        // A full operand of lower rank gets the output's shape.
        let x = Tensor::from(vec![1i32, 2]);
        let out = broadcast_update(
            x,
            Tensor::from_vec(&[1, 1], vec![5]).unwrap(),
            |p: i32, q: i32| p * q,
        )
        .unwrap();
        assert_eq!(out.shape(), &[1, 2]);
        assert_eq!(out.to_vec::<i32>().unwrap(), vec![5, 10]);
    }
}
