//! The TFRecord format: framed records with masked CRC32C, optionally inside one GZIP or ZLIB
//! stream. Usable without a graph.

pub(crate) mod precheck;
mod reader;
mod writer;

pub use reader::{tf_record_iterator, RecordReader, TfRecordIterator, FOOTER_LEN, HEADER_LEN};
pub use writer::{RecordWriter, TfRecordWriter};
