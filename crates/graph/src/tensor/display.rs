//! Printing tensors the way numpy and Python print them.

use std::fmt;

use bytes::Bytes;

use super::Tensor;
use crate::shape::format_dims;
use crate::{DType, ResourceHandle};

/// A string element printed the way Python prints bytes: `b'abc\n'`.
struct ByteStr<'a>(&'a [u8]);

impl fmt::Display for ByteStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("b'")?;
        for &c in self.0 {
            match c {
                b'\\' => f.write_str("\\\\")?,
                b'\'' => f.write_str("\\'")?,
                b'\n' => f.write_str("\\n")?,
                b'\r' => f.write_str("\\r")?,
                b'\t' => f.write_str("\\t")?,
                0x20..=0x7e => write!(f, "{}", c as char)?,
                _ => write!(f, "\\x{c:02x}")?,
            }
        }
        f.write_str("'")
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bad = |_| fmt::Error;
        match self.dtype() {
            DType::String => {
                let shown = self
                    .view::<Bytes>()
                    .map_err(bad)?
                    .map(|b| ByteStr(b).to_string());
                write!(f, "{shown}")
            }
            DType::Resource => {
                let shown = self
                    .view::<ResourceHandle>()
                    .map_err(bad)?
                    .map(|h| format!("<resource {}>", h.name()));
                write!(f, "{shown}")
            }
            DType::Bool => write!(f, "{}", self.view::<bool>().map_err(bad)?),
            d => crate::match_real_dtype!(d, T => write!(f, "{}", self.view::<T>().map_err(bad)?),
                _ => crate::match_complex_dtype!(d, T => write!(f, "{}", self.view::<T>().map_err(bad)?),
                    _ => Err(fmt::Error))),
        }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor<{}, {}>({self})",
            self.dtype(),
            format_dims(self.shape())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_display() {
        let t = Tensor::from(vec!["a", "b\n"]);
        assert_eq!(t.dtype(), DType::String);
        assert_eq!(t.to_strings().unwrap(), vec!["a", "b\n"]);
        assert_eq!(t.to_string(), "[b'a', b'b\\n']");
        assert_eq!(Tensor::from(3.5f32).to_string(), "3.5");
        assert_eq!(
            format!("{:?}", Tensor::from(vec![1i32, 2])),
            "Tensor<int32, [2]>([1, 2])"
        );
    }
}
