//! `weir`: look inside and prepare TensorFlow record files and graphs from the command line.
//!
//! `weir records count|verify|dump FILE...`, `weir convert csv IN.csv -o OUT --columns SPEC`,
//! `weir graph summarize|convert`; `weir --help` lists everything.

#[path = "../cli/mod.rs"]
mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
