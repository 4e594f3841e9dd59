//! `SampleDistortedBoundingBox`, the first version of the op, whose `min_object_covered` is an
//! attr rather than an input. TensorFlow runs both versions through one kernel, so this one
//! runs weir's `SampleDistortedBoundingBoxV2` kernel (same attrs, same seeded generator) with
//! the attr passed as that kernel's third input: a seeded graph samples TensorFlow's boxes.

use weir_graph::registry::{kernel_factory, register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef, Result, Tensor,
};

struct V1Kernel {
    min_object_covered: f32,
    inner: Box<dyn Kernel>,
}

impl Kernel for V1Kernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut inputs = vec![
            ctx.input(0).clone(),
            ctx.input(1).clone(),
            Tensor::from(self.min_object_covered),
        ];
        let mut outputs = vec![None; 3];
        {
            let mut sub = OpContext::new(
                ctx.node(),
                &mut inputs,
                &mut outputs,
                ctx.resources(),
                ctx.cancellation(),
                ctx.deadline(),
            );
            self.inner.compute(&mut sub)?;
        }
        for (i, t) in outputs.into_iter().enumerate() {
            let t = t.ok_or_else(|| Error::internal("SampleDistortedBoundingBox set no output"))?;
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let min_object_covered: f32 = node.attr("min_object_covered")?;
    // The V1 kernel checks its attr when it is built.
    if min_object_covered.is_nan() || min_object_covered < 0.0 {
        return Err(Error::invalid_argument(format!(
            "Min object covered must be non-negative: {min_object_covered}"
        )));
    }
    let inner = kernel_factory("SampleDistortedBoundingBoxV2")?(node)?;
    Ok(Box::new(V1Kernel {
        min_object_covered,
        inner,
    }))
}

pub(super) fn register() {
    register_op(crate::random::with_seed_attrs(
        OpDef::new("SampleDistortedBoundingBox")
            .input("image_size", ArgType::Attr("T"))
            .input("bounding_boxes", ArgType::Fixed(DType::F32))
            .output("begin", ArgType::Attr("T"))
            .output("size", ArgType::Attr("T"))
            .output("bboxes", ArgType::Fixed(DType::F32))
            .type_attr(
                "T",
                &[DType::U8, DType::I8, DType::I16, DType::I32, DType::I64],
            )
            .attr(
                "min_object_covered",
                AttrKind::Float,
                Some(AttrValue::Float(0.1)),
            )
            .attr(
                "aspect_ratio_range",
                AttrKind::Floats,
                Some(AttrValue::Floats(vec![0.75, 1.33])),
            )
            .attr(
                "area_range",
                AttrKind::Floats,
                Some(AttrValue::Floats(vec![0.05, 1.0])),
            )
            .attr("max_attempts", AttrKind::Int, Some(AttrValue::Int(100)))
            .attr(
                "use_image_if_no_bounding_boxes",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(super::sample_box::shape_v1),
    ));
    register_kernel("SampleDistortedBoundingBox", make);
}
