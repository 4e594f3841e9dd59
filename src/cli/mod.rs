//! The `weir` command line: argument parsing (clap) and dispatch to the subcommands.

mod convert;
mod graph;
mod records;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use weir::ops::io::Compression;
use weir::ops::parsing::CsvOptions;

use convert::spec::{parse_delim, parse_select_cols, parse_spec, SelectCols, Spec};

#[derive(Parser)]
#[command(
    name = "weir",
    version,
    about = "Look inside and prepare TensorFlow record files (TFRecord, tf.train.Example) and graphs (GraphDef)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count, verify and print the records of TFRecord files.
    #[command(subcommand)]
    Records(RecordsCommand),
    /// Convert other formats to TFRecord files of tf.train.Example.
    #[command(subcommand)]
    Convert(ConvertCommand),
    /// Look inside GraphDef files (.pb binary, .pbtxt text) and convert between the two.
    #[command(subcommand)]
    Graph(GraphCommand),
}

#[derive(Subcommand)]
enum GraphCommand {
    /// Print a GraphDef's inputs (placeholders), outputs (nodes nothing reads), variables and
    /// their parameter count, constant elements and op types, then whether weir can import it
    /// (exit status 1 when it cannot, with the reason on stderr).
    #[command(verbatim_doc_comment)]
    Summarize {
        /// A GraphDef: text if it ends in .pbtxt or .txt, binary otherwise.
        file: PathBuf,
    },
    /// Rewrite a GraphDef in the format OUTPUT's extension names (.pbtxt or .txt text,
    /// anything else binary), as tf.io.write_graph writes it.
    Convert {
        /// The GraphDef to read (.pbtxt/.txt text, otherwise binary).
        input: PathBuf,
        /// Where to write it; replaced atomically.
        output: PathBuf,
    },
}

#[derive(Subcommand)]
enum ConvertCommand {
    /// Convert CSV lines to tf.train.Examples, one per line, decoded by decode_csv.
    ///
    /// Each line (split as TextLineReader splits, so an empty line is a record with no field
    /// and fails) is decoded by decode_csv with the record_defaults of --columns; int columns
    /// become int64_list features, float columns float_list (float64 rounded to float32),
    /// strings bytes_list. Errors are decode_csv's for the failing line alone, prefixed with
    /// FILE:LINE; the output is then left untouched.
    #[command(verbatim_doc_comment)]
    Csv {
        /// The CSV file.
        input: PathBuf,
        /// The TFRecord file to write (replaced only when the whole input converted).
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
        /// Comma-separated `name:type[=default]`, one per column (per selected column with
        /// --select-cols); types int32, int64, float32, float64, string. A column without
        /// `=default` is required; `s:string=` has the empty string as default.
        #[arg(long, value_name = "SPEC", value_parser = parse_spec)]
        columns: Spec,
        /// The one-byte field delimiter (`\t` for tab).
        #[arg(long, value_name = "C", default_value = ",", value_parser = parse_delim)]
        field_delim: u8,
        /// Treat `"` as an ordinary character instead of RFC 4180 quoting.
        #[arg(long)]
        no_quote_delim: bool,
        /// A field equal to this takes the column default, like an empty field.
        #[arg(long, value_name = "S")]
        na_value: Option<String>,
        /// Decode only these columns (0-based, strictly increasing, comma-separated).
        #[arg(long, value_name = "I,J,...", value_parser = parse_select_cols)]
        select_cols: Option<SelectCols>,
        /// Skip this many lines at the start (they still count in line numbers).
        #[arg(long, value_name = "N", default_value_t = 0)]
        skip_header_lines: u64,
        /// The output's compression; by default guessed from the extension (.gz, .zlib).
        #[arg(long, value_enum)]
        compression: Option<Codec>,
    },
}

/// The codec of a record file, as `--compression` takes it.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Codec {
    /// No compression.
    None,
    /// The whole file is one gzip stream (TFRecordOptions GZIP).
    Gzip,
    /// The whole file is one zlib stream (TFRecordOptions ZLIB).
    Zlib,
}

impl Codec {
    /// The compression of `file`: the one given, or the one its extension suggests (`.gz`,
    /// `.zlib`).
    pub fn resolve(given: Option<Codec>, file: &std::path::Path) -> Compression {
        match given {
            Some(Codec::None) => Compression::None,
            Some(Codec::Gzip) => Compression::Gzip,
            Some(Codec::Zlib) => Compression::Zlib,
            None => Compression::from_extension(file),
        }
    }
}

#[derive(Subcommand)]
enum RecordsCommand {
    /// Print the number of records of each file (checking every CRC on the way).
    Count {
        /// TFRecord files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The files' compression; by default guessed from the extension (.gz, .zlib).
        #[arg(long, value_enum)]
        compression: Option<Codec>,
    },
    /// Check the framing and both CRCs of every record; exit status 1 on damage.
    Verify {
        /// TFRecord files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The files' compression; by default guessed from the extension (.gz, .zlib).
        #[arg(long, value_enum)]
        compression: Option<Codec>,
    },
    /// Print each record as one line of JSON: the tf.train.Example in protobuf's canonical JSON
    /// mapping (as Python's json_format.MessageToJson writes it), or base64 with --raw.
    Dump {
        /// A TFRecord file.
        file: PathBuf,
        /// Print at most this many records.
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Print each record's bytes as base64 instead of decoding it.
        #[arg(long)]
        raw: bool,
        /// Decode records as tf.train.SequenceExample instead of tf.train.Example.
        #[arg(long, conflicts_with = "raw")]
        sequence: bool,
        /// The file's compression; by default guessed from the extension (.gz, .zlib).
        #[arg(long, value_enum)]
        compression: Option<Codec>,
    },
}

/// Runs the command line; the exit status is 0 on success, 1 when a file is damaged, missing or
/// unreadable, and 2 for bad arguments.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Records(RecordsCommand::Count { files, compression }) => {
            records::count(&files, compression)
        }
        Command::Records(RecordsCommand::Verify { files, compression }) => {
            records::verify(&files, compression)
        }
        Command::Records(RecordsCommand::Dump {
            file,
            limit,
            raw,
            sequence,
            compression,
        }) => records::dump(&file, limit, raw, sequence, compression),
        Command::Graph(GraphCommand::Summarize { file }) => graph::summarize(&file),
        Command::Graph(GraphCommand::Convert { input, output }) => graph::convert(&input, &output),
        Command::Convert(ConvertCommand::Csv {
            input,
            output,
            columns,
            field_delim,
            no_quote_delim,
            na_value,
            select_cols,
            skip_header_lines,
            compression,
        }) => {
            let select_cols = select_cols.map(|s| s.0).unwrap_or_default();
            if !select_cols.is_empty() && select_cols.len() != columns.0.len() {
                let mut cli = Cli::command();
                // Building sets the subcommand's usage name to "weir convert csv".
                cli.build();
                let csv = cli
                    .find_subcommand_mut("convert")
                    .and_then(|c| c.find_subcommand_mut("csv"))
                    .expect("the convert csv subcommand exists");
                csv.error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!(
                        "Length of select_cols and record_defaults do not match: \
                             --select-cols has {} columns and --columns {}",
                        select_cols.len(),
                        columns.0.len()
                    ),
                )
                .exit();
            }
            let job = convert::CsvJob {
                compression: Codec::resolve(compression, &output),
                input,
                output,
                spec: columns,
                csv: CsvOptions {
                    field_delim,
                    use_quote_delim: !no_quote_delim,
                    na_value: na_value.map(String::into_bytes).unwrap_or_default(),
                    select_cols,
                },
                skip_header_lines,
            };
            convert::csv(&job)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("weir: {e}");
            ExitCode::FAILURE
        }
    }
}
