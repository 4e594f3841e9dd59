//! `tf.linalg.expm`: TensorFlow's Python composite (no kernel of its own) for the matrix
//! exponential by scaling and squaring with Padé approximants (Higham 2005): degrees 3, 5 and 7
//! for float32, up to 13 for float64, chosen per matrix by its 1-norm; the squarings run in a
//! `while_loop`, and a non-finite norm gives NaNs through a `cond`, exactly as TensorFlow builds
//! it (so its gradient is the gradient of that graph, as in TensorFlow).

use weir_graph::{DType, Error, Output, Result};

use crate::array::{concat, constant, fill, reshape, shape, strided_slice_items, SliceItem};
use crate::control_flow::{cond, while_loop};
use crate::math::{
    abs, add, cast, floor, is_finite, less, log, matmul, maximum, mul, neg, pow, realdiv,
    reduce_max, reduce_sum, select_v2,
};

/// `value[begin:end]` of a vector.
fn range_of(value: &Output, begin: Option<i64>, end: Option<i64>) -> Result<Output> {
    strided_slice_items(
        value,
        &[SliceItem::Range {
            begin,
            end,
            step: 1,
        }],
    )
}

/// Padé coefficients `b_0..b_m` of each degree TensorFlow uses.
const PADE3: &[f64] = &[120.0, 60.0, 12.0];
const PADE5: &[f64] = &[30240.0, 15120.0, 3360.0, 420.0, 30.0];
const PADE7: &[f64] = &[
    17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0,
];
const PADE9: &[f64] = &[
    17643225600.0,
    8821612800.0,
    2075673600.0,
    302702400.0,
    30270240.0,
    2162160.0,
    110880.0,
    3960.0,
    90.0,
];
const PADE13: &[f64] = &[
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
];

struct Pade<'a> {
    dtype: DType,
    x: &'a Output,
    eye: Output,
}

impl Pade<'_> {
    fn k(&self, v: f64) -> Result<Output> {
        constant(self.x.graph(), weir_graph::scalar_of(self.dtype, v)?)
    }

    /// `sum_i c_i * p_i` over (coefficient, power) pairs, left to right as TensorFlow adds.
    fn combo(&self, terms: &[(f64, &Output)]) -> Result<Output> {
        let mut acc: Option<Output> = None;
        for &(c, p) in terms {
            let t = if c == 1.0 {
                p.clone()
            } else {
                mul(self.k(c)?, p)?
            };
            acc = Some(match acc {
                None => t,
                Some(a) => add(&a, &t)?,
            });
        }
        acc.ok_or_else(|| Error::internal("empty Padé sum"))
    }

    /// `_matrix_exp_pade{3,5,7,9}`: `(U, V)` of the odd and even parts.
    fn low(&self, b: &[f64]) -> Result<(Output, Output)> {
        let x2 = matmul(self.x, self.x)?;
        let mut powers = vec![self.eye.clone(), x2.clone()];
        while powers.len() < b.len().div_ceil(2) {
            let last = powers.last().cloned().unwrap_or_else(|| x2.clone());
            powers.push(matmul(&last, &x2)?);
        }
        let top = powers.len() - 1;
        // tmp = x^(2top) + b[2top-1] x^(2top-2) + ... + b[1] I, then U = x tmp.
        let mut odd: Vec<(f64, &Output)> = vec![(1.0, &powers[top])];
        let mut even: Vec<(f64, &Output)> = vec![(b[2 * top], &powers[top])];
        for i in (0..top).rev() {
            odd.push((b[2 * i + 1], &powers[i]));
            even.push((b[2 * i], &powers[i]));
        }
        let u = matmul(self.x, &self.combo(&odd)?)?;
        Ok((u, self.combo(&even)?))
    }

    /// `_matrix_exp_pade13`.
    fn thirteen(&self) -> Result<(Output, Output)> {
        let b = PADE13;
        let x2 = matmul(self.x, self.x)?;
        let x4 = matmul(&x2, &x2)?;
        let x6 = matmul(&x4, &x2)?;
        let inner = self.combo(&[(1.0, &x6), (b[11], &x4), (b[9], &x2)])?;
        let tmp_u = add(
            matmul(&x6, &inner)?,
            self.combo(&[(b[7], &x6), (b[5], &x4), (b[3], &x2), (b[1], &self.eye)])?,
        )?;
        let u = matmul(self.x, &tmp_u)?;
        let tmp_v = self.combo(&[(b[12], &x6), (b[10], &x4), (b[8], &x2)])?;
        let v = add(
            matmul(&x6, &tmp_v)?,
            self.combo(&[(b[6], &x6), (b[4], &x4), (b[2], &x2), (b[0], &self.eye)])?,
        )?;
        Ok((u, v))
    }
}

/// `tf.linalg.expm(input)`: the exponential of each square matrix of `input` (float32 or
/// float64), built as TensorFlow's composite under the name scope `matrix_exponential`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::matrix_exponential};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![0.0f64, 1.0, -1.0, 0.0])?)?;
/// let e = Session::new(&g)?.eval(&matrix_exponential(&a)?)?.to_vec::<f64>()?;
/// assert!((e[0] - 1f64.cos()).abs() < 1e-12 && (e[1] - 1f64.sin()).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matrix_exponential(input: impl Into<Output>) -> Result<Output> {
    let input = input.into();
    let g = input.graph().clone();
    let _scope = g.name_scope("matrix_exponential");
    let dtype = input.dtype();
    if dtype != DType::F32 && dtype != DType::F64 {
        return Err(Error::invalid_argument(format!(
            "tf.linalg.expm does not support matrices of type {dtype}"
        )));
    }
    let s = input.shape();
    if s.dim(-2) == Some(0) && s.dim(-1) == Some(0) {
        return Ok(input);
    }
    let k = |v: f64| constant(&g, weir_graph::scalar_of(dtype, v)?);
    let full_shape = shape(&input)?;
    let static_batch = s.dims().and_then(|d| {
        d[..d.len().saturating_sub(2)]
            .iter()
            .copied()
            .collect::<Option<Vec<usize>>>()
    });
    let minus_one = constant(&g, weir_graph::Tensor::from(vec![-1i32]))?;
    let matrix = reshape(
        &input,
        concat(&[minus_one, range_of(&full_shape, Some(-2), None)?], 0)?,
    )?;
    let col_sums = reduce_sum(abs(&matrix)?, vec![1i64])?;
    let l1 = reduce_max(&col_sums, vec![-1i64])?;
    let l1 = reshape(
        &l1,
        constant(&g, weir_graph::Tensor::from(vec![-1i32, 1, 1]))?,
    )?;
    let ones = crate::array::ones_like(&crate::linalg::matrix_diag_part(&matrix)?)?;
    let eye = crate::linalg::matrix_diag(&ones)?;
    let (maxnorm, degrees, conds): (f64, &[&[f64]], &[f64]) = if dtype == DType::F32 {
        (
            3.925_724_783_138_66,
            &[PADE3, PADE5, PADE7],
            &[4.258730016922831e-001, 1.880152677804762e+000],
        )
    } else {
        (
            5.371920351148152,
            &[PADE3, PADE5, PADE7, PADE9, PADE13],
            &[
                1.495585217958292e-002,
                2.539_398_330_063_23e-1,
                9.504178996162932e-001,
                2.097847961257068e+000,
            ],
        )
    };
    let squarings = maximum(
        floor(realdiv(log(realdiv(&l1, k(maxnorm)?)?)?, log(k(2.0)?)?)?)?,
        k(0.0)?,
    )?;
    let scaled = realdiv(&matrix, cast(pow(k(2.0)?, &squarings)?, dtype)?)?;
    let mut approximants = Vec::new();
    for (i, b) in degrees.iter().enumerate() {
        let last = i + 1 == degrees.len();
        let pade = Pade {
            dtype,
            x: if last { &scaled } else { &matrix },
            eye: eye.clone(),
        };
        approximants.push(if b.len() == 13 {
            pade.thirteen()?
        } else {
            pade.low(b)?
        });
    }
    // `_nest_where`: the first degree whose threshold the norm is below, else the last.
    let pick = |which: fn(&(Output, Output)) -> &Output| -> Result<Output> {
        let mut acc = which(&approximants[approximants.len() - 1]).clone();
        for i in (0..conds.len()).rev() {
            acc = select_v2(less(&l1, k(conds[i])?)?, which(&approximants[i]), &acc)?;
        }
        Ok(acc)
    };
    let (u, v) = (pick(|p| &p.0)?, pick(|p| &p.1)?);
    let finite = is_finite(reduce_max(&l1, crate::math::Axes::All)?)?;
    let result = cond(
        &finite,
        || super::matrix_solve(add(neg(&u)?, &v)?, add(&u, &v)?, false),
        || fill(shape(&matrix)?, &k(f64::NAN)?),
    )?;
    let max_squarings = reduce_max(&squarings, crate::math::Axes::All)?;
    let i0 = k(0.0)?;
    let out = while_loop(
        |vars| {
            cond(
                &finite,
                || less(&vars[0], &max_squarings),
                || constant(&g, false),
            )
        },
        |vars| {
            let sq = matmul(&vars[1], &vars[1])?;
            Ok(vec![
                add(&vars[0], k(1.0)?)?,
                select_v2(less(&vars[0], &squarings)?, &sq, &vars[1])?,
            ])
        },
        &[i0, result],
    )?;
    let result = &out[1];
    match (static_batch, s.dim(-2), s.dim(-1)) {
        (Some(mut b), Some(r), Some(c)) => {
            b.extend([r, c]);
            let dims: Vec<i32> = b.iter().map(|&d| d as i32).collect();
            reshape(result, constant(&g, weir_graph::Tensor::from(dims))?)
        }
        _ => {
            let batch = range_of(&full_shape, None, Some(-2))?;
            let tail = range_of(&shape(result)?, Some(-2), None)?;
            reshape(result, concat(&[batch, tail], 0)?)
        }
    }
}
