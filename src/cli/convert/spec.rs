//! The `--columns` SPEC of `weir convert csv`: `name:type[=default]`, comma-separated, one entry
//! per decoded column (per selected column with `--select-cols`), which becomes decode_csv's
//! `record_defaults` and the Examples' feature names.

use bytes::Bytes;
use weir::ops::parsing::numbers::{parse_f32, parse_f64, parse_i32, parse_i64};
use weir::Tensor;

/// A column's dtype, as decode_csv's record_defaults fix it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// `tf.int32`; written as an int64_list.
    Int32,
    /// `tf.int64`; written as an int64_list.
    Int64,
    /// `tf.float32`; written as a float_list.
    Float32,
    /// `tf.float64`; written as a float_list (rounded to float32, as tf.train.FloatList holds).
    Float64,
    /// `tf.string`; written as a bytes_list.
    String,
}

const TYPES: &str = "int32, int64, float32, float64, string";

/// One column of the SPEC: the feature name, the dtype and the default (`None`: required).
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The feature name in each Example.
    pub name: String,
    /// The column's dtype.
    pub ty: ColumnType,
    /// The default as decode_csv takes it: a one-element tensor, or an empty one (required).
    pub default: Tensor,
}

/// A parsed SPEC: the columns in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec(pub Vec<Column>);

fn parse_type(s: &str) -> Option<ColumnType> {
    Some(match s {
        "int32" => ColumnType::Int32,
        "int64" => ColumnType::Int64,
        "float32" => ColumnType::Float32,
        "float64" => ColumnType::Float64,
        "string" => ColumnType::String,
        _ => return None,
    })
}

fn parse_default(name: &str, ty: ColumnType, text: Option<&str>) -> Result<Tensor, String> {
    let Some(text) = text else {
        return Ok(match ty {
            ColumnType::Int32 => Tensor::from(Vec::<i32>::new()),
            ColumnType::Int64 => Tensor::from(Vec::<i64>::new()),
            ColumnType::Float32 => Tensor::from(Vec::<f32>::new()),
            ColumnType::Float64 => Tensor::from(Vec::<f64>::new()),
            ColumnType::String => Tensor::from(Vec::<Bytes>::new()),
        });
    };
    let bad = |what: &str| {
        if text.is_empty() {
            format!(
                "column '{name}': an empty default is only allowed for strings \
                 (leave out '=' to make the column required)"
            )
        } else {
            format!("column '{name}': default '{text}' is not a valid {what}")
        }
    };
    // The same number syntax decode_csv accepts in a field.
    let b = text.as_bytes();
    Ok(match ty {
        ColumnType::Int32 => Tensor::from(vec![parse_i32(b).ok_or_else(|| bad("int32"))?]),
        ColumnType::Int64 => Tensor::from(vec![parse_i64(b).ok_or_else(|| bad("int64"))?]),
        ColumnType::Float32 => Tensor::from(vec![parse_f32(b).ok_or_else(|| bad("float32"))?]),
        ColumnType::Float64 => Tensor::from(vec![parse_f64(b).ok_or_else(|| bad("float64"))?]),
        ColumnType::String => Tensor::from(vec![Bytes::copy_from_slice(b)]),
    })
}

fn parse_column(entry: &str) -> Result<Column, String> {
    let (name, rest) = entry
        .split_once(':')
        .ok_or_else(|| format!("'{entry}' is not name:type[=default]"))?;
    if name.is_empty() {
        return Err(format!("'{entry}' has an empty column name"));
    }
    let (ty_text, default) = match rest.split_once('=') {
        Some((t, d)) => (t, Some(d)),
        None => (rest, None),
    };
    let ty = parse_type(ty_text).ok_or_else(|| {
        format!("column '{name}': unknown type '{ty_text}' (expected one of {TYPES})")
    })?;
    let default = parse_default(name, ty, default)?;
    Ok(Column {
        name: name.to_string(),
        ty,
        default,
    })
}

/// Parses a SPEC; the error says which entry is wrong and why (clap prints it, exit status 2).
pub fn parse_spec(s: &str) -> Result<Spec, String> {
    if s.is_empty() {
        return Err("the column SPEC is empty".to_string());
    }
    let mut cols: Vec<Column> = Vec::new();
    for entry in s.split(',') {
        if entry.is_empty() {
            return Err(format!("empty entry in '{s}'"));
        }
        let c = parse_column(entry)?;
        if cols.iter().any(|o| o.name == c.name) {
            return Err(format!("column name '{}' appears twice", c.name));
        }
        cols.push(c);
    }
    Ok(Spec(cols))
}

/// `--select-cols`: the column indices decode_csv keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectCols(pub Vec<usize>);

/// Parses `--select-cols`: comma-separated column indices, strictly increasing (what
/// `tf.io.decode_csv` checks in Python before the kernel runs).
pub fn parse_select_cols(s: &str) -> Result<SelectCols, String> {
    let mut v: Vec<usize> = Vec::new();
    for part in s.split(',') {
        let i = part.trim().parse::<usize>().map_err(|_| {
            if part.trim().starts_with('-') {
                "select_cols contains negative values.".to_string()
            } else {
                format!("'{part}' is not a column index")
            }
        })?;
        if v.last().is_some_and(|&l| l >= i) {
            return Err("select_cols is not strictly increasing.".to_string());
        }
        v.push(i);
    }
    Ok(SelectCols(v))
}

/// Parses `--field-delim`: exactly one byte, as decode_csv requires (`\t` may be given as the
/// two characters `\t`, since shells make a literal tab awkward).
pub fn parse_delim(s: &str) -> Result<u8, String> {
    match s.as_bytes() {
        [b] => Ok(*b),
        b"\\t" => Ok(b'\t'),
        _ => Err("field_delim should be only 1 char".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Column {
        fn required(&self) -> bool {
            self.default.num_elements() == 0
        }
    }

    #[test]
    fn parses_names_types_and_defaults() {
        let s = parse_spec("id:int64,x:float32=0.5,n:int32=-3,d:float64=1e300,s:string=,t:string")
            .unwrap();
        let names: Vec<_> = s.0.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["id", "x", "n", "d", "s", "t"]);
        assert_eq!(s.0[0].ty, ColumnType::Int64);
        assert!(s.0[0].required());
        assert_eq!(s.0[0].default.dtype(), weir::DType::I64);
        assert_eq!(s.0[1].default.to_vec::<f32>().unwrap(), vec![0.5]);
        assert_eq!(s.0[2].default.to_vec::<i32>().unwrap(), vec![-3]);
        assert_eq!(s.0[3].default.to_vec::<f64>().unwrap(), vec![1e300]);
        assert!(!s.0[4].required());
        assert_eq!(s.0[4].default.to_strings().unwrap(), vec![""]);
        assert!(s.0[5].required());
        assert_eq!(s.0[5].default.dtype(), weir::DType::String);
    }

    #[test]
    fn string_default_keeps_everything_after_the_first_equals() {
        let s = parse_spec("s:string=a=b :c").unwrap();
        assert_eq!(s.0[0].default.to_strings().unwrap(), vec!["a=b :c"]);
    }

    #[test]
    fn rejects_bad_specs_with_a_reason() {
        let err = |s: &str| parse_spec(s).unwrap_err();
        assert_eq!(
            err("a:int8"),
            "column 'a': unknown type 'int8' (expected one of int32, int64, float32, float64, string)"
        );
        assert_eq!(err("a"), "'a' is not name:type[=default]");
        assert_eq!(err(":int32"), "':int32' has an empty column name");
        assert_eq!(err("a:int32,,b:int32"), "empty entry in 'a:int32,,b:int32'");
        assert_eq!(err(""), "the column SPEC is empty");
        assert_eq!(err("a:int32,a:string"), "column name 'a' appears twice");
        assert_eq!(
            err("a:int32=x"),
            "column 'a': default 'x' is not a valid int32"
        );
        assert_eq!(
            err("a:int32=3000000000"),
            "column 'a': default '3000000000' is not a valid int32"
        );
        assert!(err("a:float32=").contains("empty default is only allowed for strings"));
        assert_eq!(
            err("a:int32=1,b:"),
            "column 'b': unknown type '' (expected one of int32, int64, float32, float64, string)"
        );
    }

    #[test]
    fn select_cols_and_delimiters() {
        assert_eq!(parse_select_cols("0,2,5").unwrap().0, vec![0, 2, 5]);
        assert_eq!(
            parse_select_cols("2,1").unwrap_err(),
            "select_cols is not strictly increasing."
        );
        assert_eq!(
            parse_select_cols("1,1").unwrap_err(),
            "select_cols is not strictly increasing."
        );
        assert_eq!(
            parse_select_cols("-1").unwrap_err(),
            "select_cols contains negative values."
        );
        assert_eq!(
            parse_select_cols("a").unwrap_err(),
            "'a' is not a column index"
        );
        assert_eq!(parse_delim(";").unwrap(), b';');
        assert_eq!(parse_delim("\t").unwrap(), b'\t');
        assert_eq!(parse_delim("\\t").unwrap(), b'\t');
        assert_eq!(
            parse_delim("ab").unwrap_err(),
            "field_delim should be only 1 char"
        );
        assert!(parse_delim("").is_err());
    }
}
