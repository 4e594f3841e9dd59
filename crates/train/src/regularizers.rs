//! Weight regularizers with `tf.contrib.layers` semantics (`l1_regularizer`, `l2_regularizer`,
//! `l1_l2_regularizer`, `sum_regularizer`, `apply_regularization`); `weir_train::losses` reads
//! the penalties back (`get_regularization_losses`, `get_regularization_loss`).
//!
//! A regularizer maps a weight tensor to a scalar penalty, or to nothing (a scale of 0 disables
//! it). `GetVariable::regularizer` and the layers' `kernel_regularizer`/`bias_regularizer` apply
//! one to each new variable and add the penalty to the `regularization_losses` collection.

use std::fmt;
use std::sync::Arc;

use weir_graph::{graph_keys, scalar_of, Error, Graph, Output, Result};
use weir_ops::array::{constant, constant_named};
use weir_ops::math::{abs, Reduce};
use weir_ops::nn::l2_loss;

/// A user regularizer: the penalty of a weight tensor, or `None` for no penalty.
pub type RegularizerFn = Arc<dyn Fn(&Output) -> Result<Option<Output>> + Send + Sync>;

#[derive(Clone)]
enum Kind {
    Disabled,
    L1(f64),
    L2(f64),
    Sum(Vec<Regularizer>),
    Custom(RegularizerFn),
}

/// A regularizer: TensorFlow's `(Tensor -> Tensor or None)` functions, such as
/// `tf.contrib.layers.l2_regularizer(scale)` returns. Cheap to clone.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::constant;
/// # use weir_session::Session;
/// use weir_train::l2_regularizer;
/// let g = Graph::new();
/// let w = constant(&g, Tensor::from(vec![1.0f32, -2.0]))?;
/// let penalty = l2_regularizer(0.1)?.apply(&w)?.unwrap();
/// assert_eq!(penalty.name(), "l2_regularizer:0");
/// // 0.1 * (1 + 4) / 2
/// assert!((Session::new(&g)?.eval(&penalty)?.to_scalar::<f32>()? - 0.25).abs() < 1e-7);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct Regularizer {
    kind: Kind,
    scope: Option<String>,
}

impl fmt::Debug for Regularizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.kind {
            Kind::Disabled => "disabled".to_string(),
            Kind::L1(s) => format!("l1({s})"),
            Kind::L2(s) => format!("l2({s})"),
            Kind::Sum(r) => format!("sum({r:?})"),
            Kind::Custom(_) => "custom".to_string(),
        };
        f.debug_struct("Regularizer")
            .field("kind", &kind)
            .field("scope", &self.scope)
            .finish()
    }
}

impl Regularizer {
    /// A regularizer computed by `f` (any Python `lambda w: ...` passed as `regularizer=`).
    pub fn new(f: impl Fn(&Output) -> Result<Option<Output>> + Send + Sync + 'static) -> Self {
        Regularizer {
            kind: Kind::Custom(Arc::new(f)),
            scope: None,
        }
    }

    /// The name scope of the penalty's ops instead of the default (`l1_regularizer`,
    /// `l2_regularizer`, `sum_regularizer`): TensorFlow's `scope` argument.
    pub fn scope(mut self, scope: &str) -> Regularizer {
        self.scope = Some(scope.to_string());
        self
    }

    /// Whether the regularizer never adds a penalty (a scale of 0, or an empty sum).
    pub fn is_disabled(&self) -> bool {
        match &self.kind {
            Kind::Disabled => true,
            Kind::Sum(list) => list.iter().all(Regularizer::is_disabled),
            _ => false,
        }
    }

    /// The penalty of `weights` (`regularizer(weights)`), a scalar of the weights' dtype, or
    /// `None` when the regularizer is disabled.
    pub fn apply(&self, weights: &Output) -> Result<Option<Output>> {
        let g = weights.graph();
        match &self.kind {
            Kind::Disabled => Ok(None),
            Kind::Custom(f) => f(weights),
            Kind::L1(scale) => {
                let _s = g.name_scope(self.scope.as_deref().unwrap_or("l1_regularizer"));
                let name = g.current_scope();
                let s = constant_named(g, scalar_of(weights.dtype(), *scale)?, "scale")?;
                let sum = Reduce::sum().build(abs(weights)?)?;
                Ok(Some(named_op(g, "Mul", &[s, sum], &name)?))
            }
            Kind::L2(scale) => {
                let _s = g.name_scope(self.scope.as_deref().unwrap_or("l2_regularizer"));
                let name = g.current_scope();
                let s = constant_named(g, scalar_of(weights.dtype(), *scale)?, "scale")?;
                let loss = l2_loss(weights)?;
                Ok(Some(named_op(g, "Mul", &[s, loss], &name)?))
            }
            Kind::Sum(list) => {
                let _s = g.name_scope(self.scope.as_deref().unwrap_or("sum_regularizer"));
                let name = g.current_scope();
                let mut terms = Vec::new();
                for r in list {
                    if let Some(t) = r.apply(weights)? {
                        terms.push(t);
                    }
                }
                if terms.is_empty() {
                    return Ok(None);
                }
                Ok(Some(named_op(g, "AddN", &terms, &name)?))
            }
        }
    }
}

/// Adds an op of `op_type` named exactly `name` (a name scope's own name, ending in `/`).
pub(crate) fn named_op(g: &Graph, op_type: &str, inputs: &[Output], name: &str) -> Result<Output> {
    weir_ops::register_all_ops();
    g.new_operation(op_type)
        .name(name)
        .inputs(inputs.iter().cloned())
        .build()?
        .output(0)
}

/// Python's `%g`: six significant digits, trailing zeros dropped, exponent form outside
/// `1e-4 <= |x| < 1e6`.
fn format_g(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exp = x.abs().log10().floor() as i32;
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..6).contains(&exp) {
        let m = format!("{:.5e}", x);
        let (mant, e) = m.split_once('e').unwrap_or((&m, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        let sign = if e < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant.to_string()), e.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(format!("{x:.decimals$}"))
    }
}

fn checked_scale(scale: f64, period: &str) -> Result<Option<f64>> {
    if scale < 0.0 {
        return Err(Error::invalid_argument(format!(
            "Setting a scale less than 0 on a regularizer: {}{period}",
            format_g(scale)
        )));
    }
    Ok((scale != 0.0).then_some(scale))
}

fn disabled() -> Regularizer {
    Regularizer {
        kind: Kind::Disabled,
        scope: None,
    }
}

/// `tf.contrib.layers.l1_regularizer(scale)`: `scale * reduce_sum(abs(weights))`, in the name
/// scope `l1_regularizer`. A scale of 0 disables it; a negative one is InvalidArgument.
pub fn l1_regularizer(scale: f64) -> Result<Regularizer> {
    Ok(match checked_scale(scale, "")? {
        Some(s) => Regularizer {
            kind: Kind::L1(s),
            scope: None,
        },
        None => disabled(),
    })
}

/// `tf.contrib.layers.l2_regularizer(scale)`: `scale * l2_loss(weights)`, that is
/// `scale * sum(weights ** 2) / 2`, in the name scope `l2_regularizer`. A scale of 0 disables
/// it; a negative one is InvalidArgument.
pub fn l2_regularizer(scale: f64) -> Result<Regularizer> {
    Ok(match checked_scale(scale, ".")? {
        Some(s) => Regularizer {
            kind: Kind::L2(s),
            scope: None,
        },
        None => disabled(),
    })
}

/// `tf.contrib.layers.l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0)`: the sum of both
/// penalties in the name scope `l1_l2_regularizer` (just one of them when the other scale is 0).
pub fn l1_l2_regularizer(scale_l1: f64, scale_l2: f64) -> Result<Regularizer> {
    let scope = "l1_l2_regularizer";
    if scale_l1 == 0.0 {
        return Ok(l2_regularizer(scale_l2)?.scope(scope));
    }
    if scale_l2 == 0.0 {
        return Ok(l1_regularizer(scale_l1)?.scope(scope));
    }
    Ok(sum_regularizer(&[l1_regularizer(scale_l1)?, l2_regularizer(scale_l2)?]).scope(scope))
}

/// `tf.contrib.layers.sum_regularizer(regularizer_list)`: the `add_n` of the penalties of
/// `list`, in the name scope `sum_regularizer`.
pub fn sum_regularizer(list: &[Regularizer]) -> Regularizer {
    Regularizer {
        kind: Kind::Sum(list.to_vec()),
        scope: None,
    }
}

/// `tf.contrib.layers.apply_regularization(regularizer, weights_list)`: the summed penalty of
/// `weights_list` (a disabled regularizer counts 0.0), named `get_regularization_penalty` and
/// added to `REGULARIZATION_LOSSES`. InvalidArgument for an empty list or a non-scalar penalty.
pub fn apply_regularization(regularizer: &Regularizer, weights_list: &[Output]) -> Result<Output> {
    let Some(first) = weights_list.first() else {
        return Err(Error::invalid_argument("No weights to regularize."));
    };
    let g = first.graph();
    let _s = g.name_scope("get_regularization_penalty");
    let name = g.current_scope();
    let mut penalties = Vec::new();
    for w in weights_list {
        let p = match regularizer.apply(w)? {
            Some(p) => p,
            None => constant(g, 0.0f32)?,
        };
        if let Some(r) = p.shape().rank().filter(|&r| r != 0) {
            return Err(Error::invalid_argument(format!(
                "regularizer must return a scalar Tensor instead of a Tensor with rank {r}."
            )));
        }
        penalties.push(p);
    }
    let total = named_op(g, "AddN", &penalties, &name)?;
    g.add_to_collection(graph_keys::REGULARIZATION_LOSSES, total.clone())?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::losses::{get_regularization_loss, get_regularization_losses};
    use weir_graph::{Code, Tensor};
    use weir_session::Session;

    fn eval(o: &Output) -> f32 {
        Session::new(o.graph())
            .unwrap()
            .eval(o)
            .unwrap()
            .to_scalar::<f32>()
            .unwrap()
    }

    #[test]
    fn formulas_and_names() {
        let g = Graph::new();
        let w = constant(&g, Tensor::from(vec![1.0f32, -2.0, 3.0])).unwrap();
        let l1 = l1_regularizer(0.5).unwrap().apply(&w).unwrap().unwrap();
        assert_eq!(l1.name(), "l1_regularizer:0");
        assert!((eval(&l1) - 3.0).abs() < 1e-6);
        let both = l1_l2_regularizer(0.5, 0.25)
            .unwrap()
            .apply(&w)
            .unwrap()
            .unwrap();
        assert_eq!(both.name(), "l1_l2_regularizer:0");
        assert!((eval(&both) - (3.0 + 0.25 * 7.0)).abs() < 1e-6);
        let only_l2 = l1_l2_regularizer(0.0, 1.0)
            .unwrap()
            .apply(&w)
            .unwrap()
            .unwrap();
        assert_eq!(only_l2.name(), "l1_l2_regularizer_1:0");
        assert!(l2_regularizer(0.0).unwrap().apply(&w).unwrap().is_none());
        assert!(sum_regularizer(&[]).apply(&w).unwrap().is_none());
    }

    #[test]
    fn negative_scales_use_tensorflows_messages() {
        let e = l1_regularizer(-0.5).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(
            e.message(),
            "Setting a scale less than 0 on a regularizer: -0.5"
        );
        let e = l2_regularizer(-1e-7).unwrap_err();
        assert_eq!(
            e.message(),
            "Setting a scale less than 0 on a regularizer: -1e-07."
        );
    }

    #[test]
    fn percent_g() {
        for (x, s) in [
            (0.1, "0.1"),
            (-1.0, "-1"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (2.5, "2.5"),
        ] {
            assert_eq!(format_g(x), s);
        }
    }

    #[test]
    fn total_loss_and_scopes() {
        let g = Graph::new();
        let zero = get_regularization_loss(&g, None).unwrap();
        assert_eq!(zero.name(), "Const:0");
        assert_eq!(eval(&zero), 0.0);
        let w = constant(&g, Tensor::from(vec![2.0f32])).unwrap();
        let r = l2_regularizer(1.0).unwrap();
        let p = apply_regularization(&r, &[w.clone(), w]).unwrap();
        assert_eq!(p.name(), "get_regularization_penalty:0");
        assert_eq!(get_regularization_losses(&g, Some("get_reg")).len(), 1);
        assert!(get_regularization_losses(&g, Some("other")).is_empty());
        let total = get_regularization_loss(&g, None).unwrap();
        assert_eq!(total.name(), "total_regularization_loss:0");
        assert!((eval(&total) - 4.0).abs() < 1e-6);
        let e = apply_regularization(&r, &[]).unwrap_err();
        assert_eq!(e.message(), "No weights to regularize.");
    }
}
