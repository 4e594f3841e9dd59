//! `tf.data.experimental.make_csv_dataset`: batches of CSV rows from files matching a
//! pattern, with column names from the header and column types inferred from the first rows,
//! composed from `CsvDataset`, `parallel_interleave`, `shuffle`, `repeat`, `batch`, `map` and
//! `prefetch` exactly as TensorFlow's Python composes it.
//!
//! TensorFlow's element is `(features, label)` with `features` an `OrderedDict`; its flat
//! components, as `tf.nest` orders them, are the features sorted by name, then the label. A
//! weir dataset has flat components, so [`MakeCsvDataset::build`] returns them in that order
//! with their names.

use weir_graph::{DType, Error, Graph, Output, Result, Tensor};

use super::file_pipeline::{interleave_files, maybe_shuffle_and_repeat};
use super::{Dataset, AUTOTUNE};
use crate::data::CsvDataset;

mod probe;

use probe::ProbeFiles;

/// `tf.data.experimental.make_csv_dataset(file_pattern, batch_size, ...)`, with every argument
/// and TensorFlow's defaults (no `encoding`: files are read as UTF-8).
///
/// ```no_run
/// # use weir_graph::Graph;
/// # use weir_ops::data::MakeCsvDataset;
/// let g = Graph::new();
/// let (train, names) = MakeCsvDataset::new(&["data/train_*.csv"], 32)
///     .label_name("survived")
///     .num_epochs(Some(1))
///     .build(&g)?;
/// // names: the features sorted by name, then "survived"; each component is a [32] batch.
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MakeCsvDataset {
    file_pattern: Vec<String>,
    batch_size: i64,
    column_names: Option<Vec<String>>,
    column_defaults: Option<Vec<Tensor>>,
    /// Set by [`column_types`](Self::column_types): required columns of these dtypes.
    column_types: Vec<DType>,
    label_name: Option<String>,
    select_columns: Option<Vec<CsvColumn>>,
    field_delim: String,
    use_quote_delim: bool,
    na_value: String,
    header: bool,
    num_epochs: Option<i64>,
    shuffle: bool,
    shuffle_buffer_size: i64,
    shuffle_seed: Option<i64>,
    prefetch_buffer_size: Option<i64>,
    num_parallel_reads: Option<i64>,
    sloppy: bool,
    num_rows_for_inference: Option<usize>,
    compression_type: Option<String>,
    ignore_errors: bool,
}

/// A column named in `select_columns`: by its name or by its index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CsvColumn {
    /// The column with this header name.
    Name(String),
    /// The column at this index.
    Index(i64),
}

impl From<&str> for CsvColumn {
    fn from(s: &str) -> CsvColumn {
        CsvColumn::Name(s.to_string())
    }
}

impl From<i64> for CsvColumn {
    fn from(i: i64) -> CsvColumn {
        CsvColumn::Index(i)
    }
}

impl MakeCsvDataset {
    /// The files matching any of `file_pattern` (globs), in batches of `batch_size` rows.
    pub fn new(file_pattern: &[&str], batch_size: i64) -> MakeCsvDataset {
        MakeCsvDataset {
            file_pattern: file_pattern.iter().map(|s| s.to_string()).collect(),
            batch_size,
            column_names: None,
            column_defaults: None,
            column_types: Vec::new(),
            label_name: None,
            select_columns: None,
            field_delim: ",".into(),
            use_quote_delim: true,
            na_value: String::new(),
            header: true,
            num_epochs: None,
            shuffle: true,
            shuffle_buffer_size: 10_000,
            shuffle_seed: None,
            prefetch_buffer_size: None,
            num_parallel_reads: None,
            sloppy: false,
            num_rows_for_inference: Some(100),
            compression_type: None,
            ignore_errors: false,
        }
    }

    /// `column_names`: the columns' names, in file order (default: the header row's).
    pub fn column_names(mut self, names: &[&str]) -> Self {
        self.column_names = Some(names.iter().map(|s| s.to_string()).collect());
        self
    }

    /// `column_defaults`: one record default per (selected) column, as `CsvDataset` takes them
    /// (an empty tensor makes the column required); default: types inferred from the first
    /// `num_rows_for_inference` rows, each defaulting to 0 or "".
    pub fn column_defaults(mut self, defaults: Vec<Tensor>) -> Self {
        self.column_types.clear();
        self.column_defaults = Some(defaults);
        self
    }

    /// `column_defaults` given as dtypes: every column required (a dtype weir's tensors do
    /// not have fails when the dataset is built).
    pub fn column_types(mut self, dtypes: &[DType]) -> Self {
        self.column_types = dtypes.to_vec();
        self.column_defaults = Some(Vec::new());
        self
    }

    /// `label_name`: the column returned as the label, last.
    pub fn label_name(mut self, name: &str) -> Self {
        self.label_name = Some(name.to_string());
        self
    }

    /// `select_columns`: the columns to read, by name or index.
    pub fn select_columns(mut self, columns: Vec<CsvColumn>) -> Self {
        self.select_columns = Some(columns);
        self
    }

    /// `field_delim` (default ",").
    pub fn field_delim(mut self, d: &str) -> Self {
        self.field_delim = d.to_string();
        self
    }

    /// `use_quote_delim` (default true).
    pub fn use_quote_delim(mut self, q: bool) -> Self {
        self.use_quote_delim = q;
        self
    }

    /// `na_value` (default "").
    pub fn na_value(mut self, na: &str) -> Self {
        self.na_value = na.to_string();
        self
    }

    /// `header`: whether each file starts with a header row (default true).
    pub fn header(mut self, header: bool) -> Self {
        self.header = header;
        self
    }

    /// `num_epochs`: `None` (the default) repeats for ever and drops the last partial batch.
    pub fn num_epochs(mut self, epochs: Option<i64>) -> Self {
        self.num_epochs = epochs;
        self
    }

    /// `shuffle` (default true): the files' order, and the rows through a buffer.
    pub fn shuffle(mut self, shuffle: bool) -> Self {
        self.shuffle = shuffle;
        self
    }

    /// `shuffle_buffer_size` (default 10,000).
    pub fn shuffle_buffer_size(mut self, n: i64) -> Self {
        self.shuffle_buffer_size = n;
        self
    }

    /// `shuffle_seed`.
    pub fn shuffle_seed(mut self, seed: i64) -> Self {
        self.shuffle_seed = Some(seed);
        self
    }

    /// `prefetch_buffer_size` (default AUTOTUNE).
    pub fn prefetch_buffer_size(mut self, n: i64) -> Self {
        self.prefetch_buffer_size = Some(n);
        self
    }

    /// `num_parallel_reads`: files read at once (default 1; [`AUTOTUNE`] interleaves).
    pub fn num_parallel_reads(mut self, n: i64) -> Self {
        self.num_parallel_reads = Some(n);
        self
    }

    /// `sloppy`: accepted; weir keeps the deterministic order.
    pub fn sloppy(mut self, sloppy: bool) -> Self {
        self.sloppy = sloppy;
        self
    }

    /// `num_rows_for_inference` (default 100; `None` reads every row).
    pub fn num_rows_for_inference(mut self, n: Option<usize>) -> Self {
        self.num_rows_for_inference = n;
        self
    }

    /// `compression_type`: "" or "GZIP" (ZLIB files cannot be probed for columns, as in
    /// TensorFlow, unless names and defaults are given).
    pub fn compression_type(mut self, c: &str) -> Self {
        self.compression_type = Some(c.to_string());
        self
    }

    /// `ignore_errors`: drop rows that fail to parse (default false).
    pub fn ignore_errors(mut self, ignore: bool) -> Self {
        self.ignore_errors = ignore;
        self
    }

    /// The dataset, and the names of its components: the features sorted by name, then the
    /// label if there is one. Files are globbed and probed now, as TensorFlow's Python does
    /// when it builds the graph; its ValueErrors are InvalidArgument here.
    pub fn build(&self, g: &Graph) -> Result<(Dataset, Vec<String>)> {
        let filenames = self.file_names()?;
        let probe = ProbeFiles::new(self, &filenames)?;
        let mut column_names = match &self.column_names {
            Some(n) => n.clone(),
            None => {
                if !self.header {
                    return Err(Error::invalid_argument(
                        "Expected `column_names` or `header` arguments. Neither is provided.",
                    ));
                }
                probe.column_names()?
            }
        };
        let mut sorted = column_names.clone();
        sorted.sort();
        let dups: Vec<&String> = sorted
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| &w[0])
            .collect();
        if !dups.is_empty() {
            return Err(Error::invalid_argument(format!(
                "Either `column_names` argument or CSV header row contains duplicate column \
                 names: {}.",
                python_set(&dups)
            )));
        }
        let select = match &self.select_columns {
            Some(s) => Some(sorted_col_indices(s, &column_names)?),
            None => None,
        };
        let defaults = match &self.column_defaults {
            Some(_) if !self.column_types.is_empty() => self
                .column_types
                .iter()
                .map(|&d| Tensor::zeros(d, &[0]))
                .collect::<Result<Vec<_>>>()?,
            Some(d) => d.clone(),
            None => probe.infer_defaults(column_names.len(), select.as_deref())?,
        };
        if let Some(s) = &select {
            if defaults.len() != s.len() {
                return Err(Error::invalid_argument(format!(
                    "If specified, `column_defaults` and `select_columns` must have the same \
                     length: `column_defaults` has length {}, `select_columns` has length {}.",
                    defaults.len(),
                    s.len()
                )));
            }
            if column_names.len() > s.len() {
                column_names = s.iter().map(|&i| column_names[i].clone()).collect();
            }
        }
        if let Some(label) = &self.label_name {
            if !column_names.contains(label) {
                return Err(Error::invalid_argument(format!(
                    "`label_name` provided must be one of the columns: {}. Received: {label}.",
                    python_list(&column_names)
                )));
            }
        }
        self.pipeline(g, &filenames, &column_names, &defaults, select.as_deref())
    }

    fn file_names(&self) -> Result<Vec<String>> {
        if self.file_pattern.is_empty() {
            return Err(Error::invalid_argument(
                "Argument `file_pattern` should not be empty.",
            ));
        }
        let mut names = Vec::new();
        for p in &self.file_pattern {
            names.extend(crate::io::matching_paths(p)?);
        }
        if names.is_empty() {
            let shown = if self.file_pattern.len() == 1 {
                self.file_pattern[0].clone()
            } else {
                python_list(&self.file_pattern)
            };
            return Err(Error::invalid_argument(format!(
                "No files match `file_pattern` {shown}."
            )));
        }
        names.sort();
        Ok(names)
    }

    fn pipeline(
        &self,
        g: &Graph,
        filenames: &[String],
        column_names: &[String],
        defaults: &[Tensor],
        select: Option<&[usize]>,
    ) -> Result<(Dataset, Vec<String>)> {
        let files: Vec<&str> = filenames.iter().map(String::as_str).collect();
        let mut ds = Dataset::from_tensor_slices(&[crate::array::constant(g, files)?])?;
        if self.shuffle {
            let mut s = ds.shuffle_with(filenames.len() as i64);
            if let Some(seed) = self.shuffle_seed {
                s = s.seed(seed);
            }
            ds = s.build()?;
        }
        let csv = |x: &[Output]| -> Result<Dataset> {
            let fg = x[0].graph();
            let record_defaults = defaults
                .iter()
                .map(|t| crate::array::constant(fg, t.clone()))
                .collect::<Result<Vec<_>>>()?;
            let mut c = CsvDataset::new(&x[0], &record_defaults)
                .field_delim(&self.field_delim)
                .use_quote_delim(self.use_quote_delim)
                .na_value(&self.na_value)
                .header(self.header);
            if let Some(s) = select {
                c = c.select_cols(&s.iter().map(|&i| i as i64).collect::<Vec<_>>());
            }
            if let Some(ct) = &self.compression_type {
                c = c.compression_type(ct);
            }
            let d = c.build()?;
            if self.ignore_errors {
                d.ignore_errors()
            } else {
                Ok(d)
            }
        };
        ds = interleave_files(ds, self.num_parallel_reads.unwrap_or(1), self.sloppy, csv)?;
        ds = maybe_shuffle_and_repeat(
            ds,
            self.shuffle,
            self.shuffle_buffer_size,
            self.shuffle_seed,
            self.num_epochs,
        )?;
        ds = ds.batch_with(self.batch_size, self.num_epochs.is_none())?;
        // The components in tf.nest's order: features by name, then the label.
        let mut order: Vec<usize> = (0..column_names.len())
            .filter(|&i| Some(&column_names[i]) != self.label_name.as_ref())
            .collect();
        order.sort_by(|&a, &b| column_names[a].cmp(&column_names[b]));
        if let Some(label) = &self.label_name {
            order.extend(column_names.iter().position(|n| n == label));
        }
        let names = order.iter().map(|&i| column_names[i].clone()).collect();
        ds = ds.map(|x| Ok(order.iter().map(|&i| x[i].clone()).collect()))?;
        ds = ds.prefetch(self.prefetch_buffer_size.unwrap_or(AUTOTUNE))?;
        Ok((ds, names))
    }
}

/// `select_columns` as sorted column indices (TensorFlow's `_get_sorted_col_indices`).
fn sorted_col_indices(select: &[CsvColumn], names: &[String]) -> Result<Vec<usize>> {
    let n = names.len();
    let mut out = Vec::with_capacity(select.len());
    for c in select {
        match c {
            CsvColumn::Index(i) => {
                if *i < 0 || *i as usize >= n {
                    return Err(Error::invalid_argument(format!(
                        "Column index {i} specified in `select_columns` should be > 0  and <= \
                         {n}, which is the number of columns."
                    )));
                }
                out.push(*i as usize);
            }
            CsvColumn::Name(name) => match names.iter().position(|x| x == name) {
                Some(i) => out.push(i),
                None => {
                    let keys: Vec<String> = names.iter().map(|s| format!("'{s}'")).collect();
                    return Err(Error::invalid_argument(format!(
                        "Column {name} specified in `select_columns` must be of one of the \
                         columns: dict_keys([{}]).",
                        keys.join(", ")
                    )));
                }
            },
        }
    }
    let mut sorted = out;
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != select.len() {
        // TensorFlow looks for the duplicates among the columns it has already deduplicated,
        // so its message always names none.
        return Err(Error::invalid_argument(
            "The `select_columns` argument contains duplicate columns: set().",
        ));
    }
    Ok(sorted)
}

/// A Python list of strings as Python prints it.
fn python_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// A Python set of strings as Python prints it (one element: the common case).
fn python_set(items: &[&String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("{{{}}}", quoted.join(", "))
}
