//! `DecodeCSV`: `tf.io.decode_csv`, one output per column, each of the records' shape.

use std::sync::Arc;

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result,
};

use super::csv::{check_inputs, decode_csv_tensors, CsvOptions};
use super::csv_record::decode_one_stacked;
use crate::array::stack::pack_tensors;

const CSV_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I32,
    DType::I64,
    DType::String,
];

/// `tf.io.decode_csv(records, record_defaults)` with TensorFlow's default options: one output
/// per default, each with the dtype of its default and the shape of `records`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::constant;
/// let g = Graph::new();
/// let lines = constant(&g, vec!["1,2.5,abc", "3,,x"])?;
/// let cols = weir_ops::parsing::decode_csv(
///     &lines,
///     [constant(&g, vec![0i32])?, constant(&g, vec![0.0f32])?, constant(&g, vec![""])?],
/// )?;
/// assert_eq!(cols.len(), 3);
/// assert_eq!(cols[1].dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_csv<I, O>(records: impl Into<Output>, record_defaults: I) -> Result<Vec<Output>>
where
    I: IntoIterator<Item = O>,
    O: Into<Output>,
{
    DecodeCsv::new().build(records, record_defaults)
}

/// The options of `tf.io.decode_csv(records, record_defaults, field_delim=',',
/// use_quote_delim=True, name=None, na_value='', select_cols=None)`.
#[derive(Clone, Debug)]
pub struct DecodeCsv {
    field_delim: String,
    use_quote_delim: bool,
    na_value: String,
    select_cols: Option<Vec<i64>>,
    name: Option<String>,
}

impl Default for DecodeCsv {
    fn default() -> Self {
        DecodeCsv {
            field_delim: ",".into(),
            use_quote_delim: true,
            na_value: String::new(),
            select_cols: None,
            name: None,
        }
    }
}

impl DecodeCsv {
    /// TensorFlow's defaults: `,`, quoting on, no NA value, every column.
    pub fn new() -> DecodeCsv {
        DecodeCsv::default()
    }

    /// The field delimiter; it must be one byte (checked when the op runs, as in TensorFlow).
    pub fn field_delim(mut self, d: &str) -> DecodeCsv {
        self.field_delim = d.to_string();
        self
    }

    /// Whether `"` quotes fields (RFC 4180, the default) or is an ordinary character.
    pub fn use_quote_delim(mut self, q: bool) -> DecodeCsv {
        self.use_quote_delim = q;
        self
    }

    /// A field text that, like the empty field, takes the column default.
    pub fn na_value(mut self, na: &str) -> DecodeCsv {
        self.na_value = na.to_string();
        self
    }

    /// Parses only these columns (strictly increasing, one per default).
    pub fn select_cols(mut self, cols: &[i64]) -> DecodeCsv {
        self.select_cols = Some(cols.to_vec());
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> DecodeCsv {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node; build-time errors mirror Python's checks of `decode_csv`.
    pub fn build<I, O>(self, records: impl Into<Output>, record_defaults: I) -> Result<Vec<Output>>
    where
        I: IntoIterator<Item = O>,
        O: Into<Output>,
    {
        let records = records.into();
        let defaults: Vec<Output> = record_defaults.into_iter().map(Into::into).collect();
        if records.dtype() != DType::String {
            return Err(Error::invalid_argument(format!(
                "Value passed to parameter 'records' has DataType {} not in list of allowed values: string",
                records.dtype()
            )));
        }
        for d in &defaults {
            if !CSV_TYPES.contains(&d.dtype()) {
                return Err(Error::invalid_argument(format!(
                    "Value passed to parameter 'record_defaults' has DataType {} not in list of allowed values: float32, float64, int32, int64, string",
                    d.dtype()
                )));
            }
        }
        let select = self.select_cols.unwrap_or_default();
        if !select.is_empty() {
            if select.windows(2).any(|w| w[0] >= w[1]) {
                return Err(Error::invalid_argument(
                    "select_cols is not strictly increasing.",
                ));
            }
            if select[0] < 0 {
                return Err(Error::invalid_argument(
                    "select_cols contains negative values.",
                ));
            }
            if select.len() != defaults.len() {
                return Err(Error::invalid_argument(
                    "Length of select_cols and record_defaults do not match.",
                ));
            }
        }
        let types: Vec<DType> = defaults.iter().map(Output::dtype).collect();
        let mut all = vec![&records];
        all.extend(defaults.iter());
        let g = crate::util::same_graph(&all)?.clone();
        let op = crate::new_op(&g, "DecodeCSV")
            .maybe_name(self.name.as_deref())
            .input(&records)
            .inputs(defaults.iter())
            .attr("OUT_TYPE", types)
            .attr("field_delim", self.field_delim.as_str())
            .attr("use_quote_delim", self.use_quote_delim)
            .attr("na_value", self.na_value.as_str())
            .attr("select_cols", select)
            .build()?;
        Ok(op.outputs())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 1..ctx.num_inputs() {
        let s = ctx.input_shape(i).clone();
        if let Some(r) = s.rank() {
            if r > 1 {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at most rank 1 but is rank {r}"
                )));
            }
            if r == 1 && s.dim(0).is_some_and(|d| d > 1) {
                return Err(Error::invalid_argument(
                    "Shape of a default must be a length-0 or length-1 vector, or a scalar",
                ));
            }
        }
    }
    let records = ctx.input_shape(0).clone();
    for o in 0..ctx.num_outputs() {
        ctx.set_output(o, records.clone());
    }
    Ok(())
}

#[derive(Clone)]
struct DecodeCsvKernel {
    opts: CsvOptions,
    /// Set by a run plan whose `Pack` along this axis is all that reads the outputs
    /// ([`Kernel::with_outputs_packed`]): output 0 is then that stack, the others unset.
    packed: Option<i64>,
}

impl Kernel for DecodeCsvKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (records, defaults) = (ctx.input(0), &ctx.inputs()[1..]);
        let Some(axis) = self.packed else {
            let outs = decode_csv_tensors(records, defaults, &self.opts)?;
            for (i, t) in outs.into_iter().enumerate() {
                ctx.set_output(i, t);
            }
            return Ok(());
        };
        let stacked = match records.as_slice::<Bytes>()? {
            // One line (TextLineReader.read): the fields go straight into the stack.
            [one] if records.rank() == 0 => {
                check_inputs(defaults, &self.opts)?;
                decode_one_stacked(one, defaults, &self.opts)?
            }
            _ => pack_tensors(&decode_csv_tensors(records, defaults, &self.opts)?, axis)?,
        };
        ctx.set_output(0, stacked);
        Ok(())
    }

    fn with_outputs_packed(&self, axis: i64) -> Option<Arc<dyn Kernel>> {
        let mut k = self.clone();
        k.packed = Some(axis);
        Some(Arc::new(k))
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let delim: String = node.attr("field_delim")?;
    let select: Vec<i64> = node.attr("select_cols")?;
    let types: Vec<DType> = node.attr("OUT_TYPE")?;
    let fail = |m: &str| Err(Error::invalid_argument(m).with_node(node.name(), node.op_type()));
    if !select.is_empty() && select.len() != types.len() {
        return fail("select_cols should match output size");
    }
    if select.windows(2).any(|w| w[0] >= w[1]) {
        return fail("select_cols should be strictly increasing indices");
    }
    if select.first().is_some_and(|&c| c < 0) {
        return fail("select_cols should be non-negative indices");
    }
    if delim.len() != 1 {
        return fail("field_delim should be only 1 char");
    }
    let na: String = node.attr("na_value")?;
    Ok(Box::new(DecodeCsvKernel {
        packed: None,
        opts: CsvOptions {
            field_delim: delim.as_bytes()[0],
            use_quote_delim: node.attr("use_quote_delim")?,
            na_value: na.into_bytes(),
            select_cols: select.into_iter().map(|c| c as usize).collect(),
        },
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("DecodeCSV")
            .input("records", ArgType::Fixed(DType::String))
            .input("record_defaults", ArgType::List("OUT_TYPE"))
            .output("output", ArgType::List("OUT_TYPE"))
            .attr("OUT_TYPE", AttrKind::Types, None)
            .attr(
                "field_delim",
                AttrKind::Str,
                Some(AttrValue::Str(",".into())),
            )
            .attr(
                "use_quote_delim",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .attr(
                "na_value",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .attr(
                "select_cols",
                AttrKind::Ints,
                Some(AttrValue::Ints(Vec::new())),
            )
            .shape_fn(shape_fn),
    );
    register_kernel("DecodeCSV", make);
}
