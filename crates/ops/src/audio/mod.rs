//! Audio: TensorFlow's `tf.audio` ops, `DecodeWav` and `EncodeWav`, which read and write
//! 16-bit PCM WAV files as float32 `[samples, channels]` tensors (the ops TensorFlow's
//! speech_commands input pipeline decodes its clips with), and the features that pipeline
//! computes from them: `AudioSpectrogram` and `Mfcc`.
//!
//! ```
//! use weir_graph::{DType, Graph, Shape};
//! use weir_ops::{array::placeholder, audio::DecodeWav};
//!
//! let g = Graph::new();
//! let file = placeholder(&g, DType::String, Shape::scalar())?;
//! let (audio, rate) = DecodeWav::new().desired_channels(1).desired_samples(16000).build(&file)?;
//! assert_eq!(audio.shape(), Shape::known(&[16000, 1]));
//! assert_eq!((rate.dtype(), rate.shape()), (DType::I32, Shape::scalar()));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod mfcc;
mod mfcc_mel;
mod spectrogram;
mod wav;
pub(crate) mod wav_io;

pub use mfcc::{mfcc, Mfcc};
pub use spectrogram::{audio_spectrogram, AudioSpectrogram};
pub use wav::{decode_wav, encode_wav, DecodeWav, EncodeWav};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    mfcc::register();
    spectrogram::register();
    wav::register();
}
