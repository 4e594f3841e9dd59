//! Reading TFRecord files without a graph: TensorFlow's `io::RecordReader` and
//! `tf.compat.v1.io.tf_record_iterator`.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use weir_graph::{Error, Result};

use crate::io::crc::masked_crc32c;
use crate::io::input::ChunkedInput;
use crate::io::options::TfRecordOptions;

/// Bytes of framing before a record's data: u64 length + masked CRC32C of the length.
pub const HEADER_LEN: usize = 12;
/// Bytes of framing after a record's data: masked CRC32C of the data.
pub const FOOTER_LEN: usize = 4;

/// Reads records one by one from a TFRecord stream (TensorFlow's `io::RecordReader`), checking
/// both CRCs of every record. Record values are slices of the reader's chunk buffers, not copies.
///
/// Damage is DataLoss naming the file, the byte offset and what was wrong: each message starts
/// with TensorFlow 2.21's exact words ("corrupted record at 43", "truncated record at 149'
/// failed with Read less bytes than requested", its stray quote included) and goes on with what
/// was found and the file's name; records before it are delivered, and a
/// failed read leaves the reader where it was, so the next read fails the same way. End of file
/// inside the 12-byte header is a normal end, as in TensorFlow 2.21.
///
/// ```
/// use weir_ops::io::{RecordReader, RecordWriter, Compression};
///
/// let mut w = RecordWriter::new(Vec::new(), Compression::Gzip)?;
/// w.write(b"abc")?;
/// w.write(b"")?;
/// let bytes = w.into_inner()?;
/// let mut r = RecordReader::from_reader(std::io::Cursor::new(bytes), "mem", Compression::Gzip);
/// assert_eq!(r.read_record()?.unwrap().as_ref(), b"abc");
/// assert_eq!(r.offset(), 19);
/// assert_eq!(r.read_record()?.unwrap().len(), 0);
/// assert!(r.read_record()?.is_none());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct RecordReader {
    input: ChunkedInput,
}

impl RecordReader {
    /// Opens the file `path`; NotFound `"<path>; No such file or directory"` if it does not exist.
    pub fn open(
        path: impl AsRef<Path>,
        options: impl Into<TfRecordOptions>,
    ) -> Result<RecordReader> {
        let options = options.into();
        let path = path.as_ref().to_string_lossy();
        Ok(RecordReader {
            input: ChunkedInput::open(&path, options.compression, options.input_buffer_size)?,
        })
    }

    /// Reads records from any byte stream; `name` stands for the file in error messages.
    pub fn from_reader(
        r: impl Read + Send + 'static,
        name: &str,
        options: impl Into<TfRecordOptions>,
    ) -> RecordReader {
        let options = options.into();
        RecordReader {
            input: ChunkedInput::new(
                Box::new(r),
                None,
                options.compression,
                options.input_buffer_size,
                Arc::from(name),
            ),
        }
    }

    pub(crate) fn from_input(input: ChunkedInput) -> RecordReader {
        RecordReader { input }
    }

    /// The file name used in messages.
    pub fn name(&self) -> &str {
        self.input.name()
    }

    /// The byte offset (in the uncompressed stream) where the next record starts.
    pub fn offset(&self) -> u64 {
        self.input.offset()
    }

    /// The next record, or `None` at the end of the file.
    pub fn read_record(&mut self) -> Result<Option<Bytes>> {
        let start = self.input.offset();
        if self.input.fill(HEADER_LEN)? < HEADER_LEN {
            return Ok(None);
        }
        // Checked already by the read-ahead thread, header and data, if it says so.
        let prechecked = self.input.prechecked_here();
        let header = &self.input.available()[..HEADER_LEN];
        let len_bytes: [u8; 8] = header[..8].try_into().expect("8 bytes");
        let stored = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
        if !prechecked && masked_crc32c(&len_bytes) != stored {
            let hint = if start == 0 {
                " (Is this even a TFRecord file?)"
            } else {
                ""
            };
            return Err(Error::data_loss(format!(
                "corrupted record at {start}{hint}: length CRC mismatch in \"{}\"",
                self.name()
            )));
        }
        let len = u64::from_le_bytes(len_bytes);
        if len > (usize::MAX - HEADER_LEN - FOOTER_LEN) as u64 {
            return Err(Error::data_loss(format!(
                "record size too large at {start}: length {len} in \"{}\"",
                self.name()
            )));
        }
        let len = len as usize;
        let total = HEADER_LEN + len + FOOTER_LEN;
        let avail = self.input.fill(total)?;
        if avail < total {
            return Err(Error::data_loss(format!(
                "truncated record at {start}' failed with Read less bytes than requested: the record needs {total} bytes, the file has {avail} left in \"{}\"",
                self.name()
            )));
        }
        let rest = &self.input.available()[HEADER_LEN..total];
        let (data, footer) = rest.split_at(len);
        let stored = u32::from_le_bytes(footer.try_into().expect("4 bytes"));
        if !prechecked && masked_crc32c(data) != stored {
            return Err(Error::data_loss(format!(
                "corrupted record at {}: data CRC mismatch in \"{}\"",
                start + HEADER_LEN as u64,
                self.name()
            )));
        }
        let record = self.input.slice(HEADER_LEN, len);
        self.input.consume(total);
        Ok(Some(record))
    }
}

/// `tf.compat.v1.io.tf_record_iterator(path, options)`: the records of a TFRecord file.
///
/// Yields each record, then ends; on damage it yields the DataLoss error once and ends.
pub fn tf_record_iterator(
    path: impl AsRef<Path>,
    options: impl Into<TfRecordOptions>,
) -> Result<TfRecordIterator> {
    Ok(TfRecordIterator {
        reader: RecordReader::open(path, options)?,
        done: false,
    })
}

/// The iterator of [`tf_record_iterator`].
pub struct TfRecordIterator {
    reader: RecordReader,
    done: bool,
}

impl TfRecordIterator {
    /// The underlying reader (its offset, its name).
    pub fn reader(&self) -> &RecordReader {
        &self.reader
    }
}

impl Iterator for TfRecordIterator {
    type Item = Result<Bytes>;

    fn next(&mut self) -> Option<Result<Bytes>> {
        if self.done {
            return None;
        }
        match self.reader.read_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl std::iter::FusedIterator for TfRecordIterator {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::options::Compression;
    use crate::io::tfrecord::RecordWriter;
    use std::io::Cursor;

    fn framed(records: &[&[u8]]) -> Vec<u8> {
        let mut w = RecordWriter::new(Vec::new(), Compression::None).unwrap();
        for r in records {
            w.write(r).unwrap();
        }
        w.into_inner().unwrap()
    }

    fn reader(data: Vec<u8>, chunk: usize) -> RecordReader {
        RecordReader::from_reader(
            Cursor::new(data),
            "mem",
            TfRecordOptions::default().input_buffer_size(chunk),
        )
    }

    #[test]
    fn offsets_follow_framing() {
        let data = framed(&[b"abc", b"", b"hello world"]);
        let mut r = reader(data, 1024);
        let mut offsets = vec![];
        loop {
            let off = r.offset();
            match r.read_record().unwrap() {
                Some(_) => offsets.push(off),
                None => break,
            }
        }
        assert_eq!(offsets, vec![0, 19, 35]);
    }

    #[test]
    fn records_larger_than_a_chunk() {
        let big = vec![5u8; 10_000];
        let data = framed(&[&big, b"x", &big]);
        let mut r = reader(data, 1024);
        assert_eq!(r.read_record().unwrap().unwrap().len(), 10_000);
        assert_eq!(r.read_record().unwrap().unwrap().as_ref(), b"x");
        assert_eq!(r.read_record().unwrap().unwrap().as_ref(), &big[..]);
        assert!(r.read_record().unwrap().is_none());
    }

    #[test]
    fn damage_is_data_loss_and_sticky() {
        let mut data = framed(&[b"abc", b"defg"]);
        data[19 + 12] ^= 1; // first data byte of record 1
        let mut r = reader(data, 1024);
        assert_eq!(r.read_record().unwrap().unwrap().as_ref(), b"abc");
        let e = r.read_record().unwrap_err();
        assert!(e.is_data_loss());
        assert!(
            e.message()
                .starts_with("corrupted record at 31: data CRC mismatch"),
            "{e}"
        );
        assert_eq!(r.read_record().unwrap_err().message(), e.message());
        assert_eq!(r.offset(), 19);
    }

    #[test]
    fn length_crc_at_zero_asks_if_tfrecord() {
        let mut data = framed(&[b"abc"]);
        data[0] ^= 1;
        let e = reader(data, 1024).read_record().unwrap_err();
        assert!(
            e.message()
                .starts_with("corrupted record at 0 (Is this even a TFRecord file?)"),
            "{e}"
        );
    }

    #[test]
    fn huge_length_is_truncation_not_allocation() {
        let len = 1u64 << 40;
        let mut data = len.to_le_bytes().to_vec();
        data.extend_from_slice(&masked_crc32c(&len.to_le_bytes()).to_le_bytes());
        data.extend_from_slice(b"abc");
        let e = reader(data, 1024).read_record().unwrap_err();
        assert!(e.is_data_loss());
        assert!(e.message().starts_with("truncated record at 0"), "{e}");
        let len = u64::MAX;
        let mut data = len.to_le_bytes().to_vec();
        data.extend_from_slice(&masked_crc32c(&len.to_le_bytes()).to_le_bytes());
        let e = reader(data, 1024).read_record().unwrap_err();
        assert!(e.message().starts_with("record size too large at 0"), "{e}");
    }

    #[test]
    fn eof_inside_header_is_a_normal_end() {
        let mut data = framed(&[b"abc"]);
        data.extend_from_slice(&[1, 2, 3, 4, 5]);
        let mut r = reader(data, 1024);
        assert!(r.read_record().unwrap().is_some());
        assert!(r.read_record().unwrap().is_none());
        assert!(reader(vec![], 1024).read_record().unwrap().is_none());
    }
}

#[cfg(test)]
mod read_ahead_tests {
    use super::*;
    use crate::io::tfrecord::RecordWriter;
    use crate::io::Compression;

    /// Every record and every error as a reader gives them, with how many records the
    /// read-ahead thread had checked.
    fn read_all(mut r: RecordReader) -> (Vec<std::result::Result<Bytes, String>>, usize) {
        let (mut out, mut prechecked) = (Vec::new(), 0);
        loop {
            prechecked += usize::from(r.input.prechecked_here());
            match r.read_record() {
                Ok(Some(b)) => out.push(Ok(b)),
                Ok(None) => break,
                Err(e) => {
                    out.push(Err(format!("{:?}: {}", e.code(), e.message())));
                    break;
                }
            }
        }
        (out, prechecked)
    }

    /// A file read ahead with the framing checked on the thread gives the records, the errors
    /// and their offsets of a plain read, undamaged or damaged anywhere; and the thread did
    /// check most records.
    #[test]
    fn checks_on_the_read_ahead_thread_change_nothing_a_reader_sees() {
        let records: Vec<Vec<u8>> = (0..400usize)
            .map(|i| match i {
                // Longer than a chunk and than the room kept in front of one.
                150 => vec![3u8; 70_000],
                _ => (0..(i * 53) % 700).map(|j| (i + j) as u8).collect(),
            })
            .collect();
        let mut w = RecordWriter::new(Vec::new(), Compression::None).unwrap();
        for r in &records {
            w.write(r).unwrap();
        }
        let file = w.into_inner().unwrap();
        let path =
            std::env::temp_dir().join(format!("weir-precheck-{}.tfrecord", std::process::id()));
        let damage = [
            None,
            Some(5),
            Some(20_003),
            Some(file.len() / 2),
            Some(file.len() - 2),
        ];
        for at in damage {
            let mut bytes = file.clone();
            if let Some(at) = at {
                bytes[at] ^= 0x10;
            }
            std::fs::write(&path, &bytes).unwrap();
            let p = path.to_str().unwrap();
            let (plain, _) = read_all(RecordReader::open(p, Compression::None).unwrap());
            let input = ChunkedInput::open_tfrecord_read_ahead(p, Compression::None, 4096).unwrap();
            assert!(input.is_read_ahead());
            let (ahead, prechecked) = read_all(RecordReader::from_input(input));
            assert_eq!(plain, ahead, "damage at {at:?}");
            if at.is_none() {
                assert_eq!(ahead.len(), records.len());
                assert!(
                    prechecked > records.len() / 2,
                    "{prechecked} records prechecked"
                );
            } else {
                assert!(ahead.last().unwrap().is_err(), "damage at {at:?}");
            }
        }
        std::fs::remove_file(&path).unwrap();
    }
}
