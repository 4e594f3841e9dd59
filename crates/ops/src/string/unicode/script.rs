//! `UnicodeScript`: the ICU script code of each code point.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Kernel, OpContext, OpDef, Output, Result, Tensor};

use super::script_data::SCRIPT_RUNS;
use crate::string::same_shape;

/// `tf.strings.unicode_script(input)`: for each int32 code point its script as ICU's
/// `UScriptCode` (0 Common, 1 Inherited, 25 Latin, 103 Unknown for unassigned ones, ...), with
/// the script data of the ICU that TensorFlow 2.21 links; -1 for values outside 0..=0x10FFFF.
pub fn unicode_script(input: impl Into<Output>) -> Result<Output> {
    let input = input.into();
    crate::new_op(input.graph(), "UnicodeScript")
        .input(input)
        .build()?
        .output(0)
}

/// ICU's `uscript_getScript`, with TensorFlow's -1 on failure.
fn script(cp: i32) -> i32 {
    let Ok(cp) = u32::try_from(cp) else {
        return -1;
    };
    if cp > 0x10FFFF {
        return -1;
    }
    // The run holding `cp`: the last whose start is <= cp (the first starts at 0).
    let i = SCRIPT_RUNS.partition_point(|&(start, _)| start <= cp);
    SCRIPT_RUNS[i.saturating_sub(1)].1 as i32
}

struct ScriptKernel;

impl Kernel for ScriptKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let v: Vec<i32> = t.as_slice::<i32>()?.iter().map(|&c| script(c)).collect();
        ctx.set_output(0, Tensor::from_vec(t.shape(), v)?);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("UnicodeScript")
            .input("input", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Fixed(DType::I32))
            .shape_fn(same_shape),
    );
    register_kernel("UnicodeScript", |_| Ok(Box::new(ScriptKernel)));
}

#[cfg(test)]
mod tests {
    use super::script;

    // Values printed by TensorFlow 2.21's UnicodeScript.
    #[test]
    fn scripts_match_tensorflow() {
        assert_eq!(script(0x41), 25); // Latin
        assert_eq!(script(0x20), 0); // Common
        assert_eq!(script(0x378), 103); // unassigned: Unknown
        assert_eq!(script(0xD800), 103);
        assert_eq!(script(0x10FFFF), 103);
        assert_eq!(script(-1), -1);
        assert_eq!(script(i32::MIN), -1);
        assert_eq!(script(0x110000), -1);
        assert_eq!(script(i32::MAX), -1);
    }

    #[test]
    fn runs_are_sorted() {
        assert_eq!(super::SCRIPT_RUNS[0].0, 0);
        assert!(super::SCRIPT_RUNS.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
