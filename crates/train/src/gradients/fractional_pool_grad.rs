//! Gradients of the fractional pools (TensorFlow's `nn_grad.py`): `_FractionalMaxPoolGrad` and
//! `_FractionalAvgPoolGrad`, which reuse the forward node's pooling sequences so that the
//! gradient flows through the very cells the forward pass pooled. The sequence outputs get no
//! gradient.

use weir_graph::{AttrValue, Error, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::konst;

type Grads = Result<Vec<Option<Output>>>;

fn overlapping(ctx: &GradContext<'_>) -> Result<(&'static str, AttrValue)> {
    Ok(("overlapping", AttrValue::Bool(ctx.attr("overlapping")?)))
}

/// FractionalMaxPool: `FractionalMaxPoolGrad(input, output, grad, row_seq, col_seq)`.
fn fractional_max_pool_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let (x, y, rows, cols) = (ctx.input(0), ctx.output(0), ctx.output(1), ctx.output(2));
    let dx = op(
        ctx.graph(),
        "FractionalMaxPoolGrad",
        &[&x, &y, &d, &rows, &cols],
        &[overlapping(ctx)?],
    )?;
    Ok(vec![Some(dx)])
}

/// FractionalAvgPool: `FractionalAvgPoolGrad(input.get_shape(), grad, row_seq, col_seq)`. As in
/// TensorFlow, the input's shape is the static one, made a constant: an input whose shape is
/// not fully known at build time fails with TensorFlow's conversion error.
fn fractional_avg_pool_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let x = ctx.input(0);
    let s = x.shape();
    let Some(dims) = s.to_known() else {
        let shown = match s.dims() {
            None => "<unknown>".to_string(),
            Some(ds) => {
                let items: Vec<String> = ds
                    .iter()
                    .map(|d| d.map_or("None".to_string(), |v| v.to_string()))
                    .collect();
                format!("({})", items.join(", "))
            }
        };
        return Err(Error::invalid_argument(format!(
            "Tried to convert 'orig_input_tensor_shape' to a tensor and failed. Error: Cannot \
             convert a partially known TensorShape {shown} to a Tensor."
        )));
    };
    let g = ctx.graph();
    let shape = konst(
        g,
        Tensor::from(dims.iter().map(|&v| v as i64).collect::<Vec<_>>()),
    )?;
    let (rows, cols) = (ctx.output(1), ctx.output(2));
    let dx = op(
        g,
        "FractionalAvgPoolGrad",
        &[&shape, &d, &rows, &cols],
        &[overlapping(ctx)?],
    )?;
    Ok(vec![Some(dx)])
}

pub(super) fn register() {
    register_gradient("FractionalMaxPool", fractional_max_pool_grad);
    register_gradient("FractionalAvgPool", fractional_avg_pool_grad);
}
