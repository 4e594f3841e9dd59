//! Writing TFRecord files: TensorFlow's `io::RecordWriter` and `tf.io.TFRecordWriter`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use flate2::write::{GzEncoder, ZlibEncoder};
use weir_graph::{Error, Result};

use crate::io::crc::masked_crc32c;
use crate::io::input::open_error;
use crate::io::options::{Compression, FlushMode, TfRecordOptions};

enum Sink<W: Write> {
    Plain(BufWriter<W>),
    Gzip(GzEncoder<BufWriter<W>>),
    Zlib(ZlibEncoder<BufWriter<W>>),
}

impl<W: Write> Sink<W> {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w,
            Sink::Zlib(w) => w,
        }
    }

    fn finish(self) -> std::io::Result<W> {
        let buffered = match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w.finish()?,
            Sink::Zlib(w) => w.finish()?,
        };
        buffered.into_inner().map_err(|e| e.into_error())
    }
}

/// Writes TFRecord framing (u64 length, masked CRC32C of the length, data, masked CRC32C of the
/// data) to any byte sink, compressing the whole stream with GZIP or ZLIB if asked: TensorFlow's
/// `io::RecordWriter`. Uncompressed output is byte-identical to TensorFlow's.
///
/// ```
/// use weir_ops::io::{tf_record_iterator, Compression, TfRecordOptions, TfRecordWriter};
///
/// let path = std::env::temp_dir().join(format!("weir-doc-{}.tfrecord.gz", std::process::id()));
/// let mut w = TfRecordWriter::create(&path, TfRecordOptions::new(Compression::Gzip))?;
/// w.write(b"record one")?;
/// w.close()?;
/// let records: Vec<_> = tf_record_iterator(&path, Compression::Gzip)?.collect::<Result<_, _>>()?;
/// assert_eq!(records[0].as_ref(), b"record one");
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct RecordWriter<W: Write> {
    sink: Option<Sink<W>>,
    flush_mode: FlushMode,
    name: String,
}

/// `tf.io.TFRecordWriter`: a [`RecordWriter`] on a file.
pub type TfRecordWriter = RecordWriter<File>;

impl RecordWriter<File> {
    /// Creates (or truncates) the file `path`; NotFound `"<path>; No such file or directory"` when
    /// its directory does not exist.
    pub fn create(
        path: impl AsRef<Path>,
        options: impl Into<TfRecordOptions>,
    ) -> Result<TfRecordWriter> {
        let name = path.as_ref().to_string_lossy().into_owned();
        let f = File::create(path.as_ref()).map_err(|e| open_error(&name, &e))?;
        let mut w = RecordWriter::with_options(f, options)?;
        w.name = name;
        Ok(w)
    }
}

impl<W: Write> RecordWriter<W> {
    /// A writer on `inner` with `options` (or just a [`Compression`]).
    pub fn new(inner: W, options: impl Into<TfRecordOptions>) -> Result<RecordWriter<W>> {
        RecordWriter::with_options(inner, options)
    }

    fn with_options(inner: W, options: impl Into<TfRecordOptions>) -> Result<RecordWriter<W>> {
        let o = options.into();
        let buffered = BufWriter::with_capacity(o.output_buffer_size, inner);
        let level = flate2::Compression::new(o.compression_level);
        let sink = match o.compression {
            Compression::None => Sink::Plain(buffered),
            Compression::Gzip => Sink::Gzip(GzEncoder::new(buffered, level)),
            Compression::Zlib => Sink::Zlib(ZlibEncoder::new(buffered, level)),
        };
        Ok(RecordWriter {
            sink: Some(sink),
            flush_mode: o.flush_mode,
            name: "<stream>".to_string(),
        })
    }

    fn io_error(&self, e: std::io::Error) -> Error {
        Error::from(e).with_prefix(&format!("\"{}\": ", self.name))
    }

    fn sink(&mut self) -> Result<&mut Sink<W>> {
        self.sink
            .as_mut()
            .ok_or_else(|| Error::failed_precondition("Writer is closed."))
    }

    /// Appends one record; FailedPrecondition "Writer is closed." after [`close`](Self::close).
    pub fn write(&mut self, record: impl AsRef<[u8]>) -> Result<()> {
        let data = record.as_ref();
        let len = (data.len() as u64).to_le_bytes();
        let mut header = [0u8; 12];
        header[..8].copy_from_slice(&len);
        header[8..].copy_from_slice(&masked_crc32c(&len).to_le_bytes());
        let footer = masked_crc32c(data).to_le_bytes();
        let sync = self.flush_mode == FlushMode::SyncFlush;
        let res = {
            let w = self.sink()?.writer();
            w.write_all(&header)
                .and_then(|_| w.write_all(data))
                .and_then(|_| w.write_all(&footer))
                .and_then(|_| if sync { w.flush() } else { Ok(()) })
        };
        res.map_err(|e| self.io_error(e))
    }

    /// Pushes buffered (and, when compressing, pending compressed) bytes to the sink, so what was
    /// written so far can be read back.
    pub fn flush(&mut self) -> Result<()> {
        let res = self.sink()?.writer().flush();
        res.map_err(|e| self.io_error(e))
    }

    /// Finishes the stream (writes the compression trailer) and flushes; closing twice is fine.
    pub fn close(&mut self) -> Result<()> {
        match self.sink.take() {
            Some(s) => s.finish().map(drop).map_err(|e| self.io_error(e)),
            None => Ok(()),
        }
    }

    /// Finishes the stream and returns the sink (a `Vec<u8>` written in memory, say).
    pub fn into_inner(mut self) -> Result<W> {
        let s = self
            .sink
            .take()
            .ok_or_else(|| Error::failed_precondition("Writer is closed."))?;
        s.finish().map_err(|e| self.io_error(e))
    }
}

impl<W: Write> Drop for RecordWriter<W> {
    fn drop(&mut self) {
        // Best effort, like TensorFlow's destructor; call `close` to see errors.
        if let Some(s) = self.sink.take() {
            let _ = s.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_is_tensorflows() {
        let mut w = RecordWriter::new(Vec::new(), Compression::None).unwrap();
        w.write(b"").unwrap();
        let out = w.into_inner().unwrap();
        assert_eq!(out.len(), 16);
        assert_eq!(&out[..8], &[0u8; 8]);
        assert_eq!(
            u32::from_le_bytes(out[8..12].try_into().unwrap()),
            127_402_793
        );
        assert_eq!(
            u32::from_le_bytes(out[12..16].try_into().unwrap()),
            2_726_488_792
        );
    }

    #[test]
    fn compressed_streams_have_their_magic() {
        let mut w = RecordWriter::new(Vec::new(), Compression::Gzip).unwrap();
        w.write(b"x").unwrap();
        assert_eq!(&w.into_inner().unwrap()[..2], &[0x1f, 0x8b]);
        let mut w = RecordWriter::new(Vec::new(), Compression::Zlib).unwrap();
        w.write(b"x").unwrap();
        assert_eq!(w.into_inner().unwrap()[0], 0x78);
    }

    #[test]
    fn write_after_close_fails() {
        let mut w = RecordWriter::new(Vec::new(), Compression::None).unwrap();
        w.close().unwrap();
        w.close().unwrap();
        let e = w.write(b"x").unwrap_err();
        assert!(e.is_failed_precondition());
        assert_eq!(e.message(), "Writer is closed.");
    }

    #[test]
    fn missing_directory_is_not_found() {
        let e = TfRecordWriter::create("/no/such/dir/x.tfrecord", Compression::None)
            .err()
            .unwrap();
        assert!(e.is_not_found());
        assert_eq!(
            e.message(),
            "/no/such/dir/x.tfrecord; No such file or directory"
        );
    }
}
