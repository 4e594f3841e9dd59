//! The WAV codec of `DecodeWav` and `EncodeWav`, as TensorFlow's `wav_io` reads and writes
//! 16-bit PCM files, quirks included: chunks before `"fmt "` are skipped only for a fixed list
//! of ids (`JUNK`, `bext`, ...), chunks after it of any id; odd-sized chunks are not padded; a
//! data chunk that is not whole frames leaves its tail to be read as the next chunk's header.
//! Every length field is checked against the bytes present before anything is allocated.

use weir_graph::{Error, Result};

/// Decoded 16-bit PCM audio: interleaved samples in [-1, 1).
#[derive(Debug, PartialEq)]
pub(super) struct Decoded {
    pub(super) samples: Vec<f32>,
    pub(super) frames: u32,
    pub(super) channels: u16,
    pub(super) sample_rate: u32,
}

/// A read position in a WAV file, moved as TensorFlow's `IncrementOffset` moves it.
struct Reader<'a> {
    data: &'a [u8],
    offset: i64,
}

fn too_short() -> Error {
    Error::invalid_argument("Data too short when trying to read string")
}

impl<'a> Reader<'a> {
    /// The offset `n` bytes on, if that is inside the data.
    fn ahead(&self, n: i64) -> Result<i64> {
        let size = self.data.len() as i64;
        if self.offset > size {
            return Err(Error::invalid_argument(format!(
                "Initial offset is outside data range: {}",
                self.offset
            )));
        }
        let end = self.offset + n;
        if end > size {
            return Err(too_short());
        }
        Ok(end)
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.ahead(n as i64)?;
        let s = &self.data[self.offset as usize..end as usize];
        self.offset = end;
        Ok(s)
    }

    fn u16(&mut self) -> Result<u16> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn expect(&mut self, text: &str) -> Result<()> {
        let found = self.bytes(text.len())?;
        if found != text.as_bytes() {
            return Err(Error::invalid_argument(format!(
                "Header mismatch: Expected {text} but found {}",
                String::from_utf8_lossy(found)
            )));
        }
        Ok(())
    }
}

/// The chunk ids TensorFlow skips between `"WAVE"` and `"fmt "`.
const SKIPPED_BEFORE_FMT: &[&[u8]] = &[
    b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link", b"axml",
];

/// Decodes a 16-bit PCM WAV file: TensorFlow's `DecodeLin16WaveAsFloatVector`.
pub(super) fn decode(wav: &[u8]) -> Result<Decoded> {
    let bad = |m: String| Err(Error::invalid_argument(m));
    let mut r = Reader {
        data: wav,
        offset: 0,
    };
    r.expect("RIFF")?;
    r.u32()?; // The RIFF size, which TensorFlow does not check.
    r.expect("WAVE")?;
    let mut id = r.bytes(4)?;
    while id != b"fmt " {
        if !SKIPPED_BEFORE_FMT.contains(&id) {
            return bad(format!("Unexpected field {}", String::from_utf8_lossy(id)));
        }
        let size = r.u32()?;
        r.offset = r.ahead(i64::from(size))?;
        id = r.bytes(4)?;
    }
    let fmt_size = r.u32()?;
    if fmt_size != 16 && fmt_size != 18 {
        return bad(format!(
            "Bad format chunk size for WAV: Expected 16 or 18, but got{fmt_size}"
        ));
    }
    let format = r.u16()?;
    if format != 1 {
        return bad(format!(
            "Bad audio format for WAV: Expected 1 (PCM), but got{format}"
        ));
    }
    let channels = r.u16()?;
    if channels < 1 {
        return bad(format!(
            "Bad number of channels for WAV: Expected at least 1, but got {channels}"
        ));
    }
    let sample_rate = r.u32()?;
    let bytes_per_second = r.u32()?;
    let block_align = r.u16()?;
    let bits = r.u16()?;
    if bits != 16 {
        return bad(format!(
            "Can only read 16-bit WAV files, but received {bits}"
        ));
    }
    let want_align = (u32::from(bits) * u32::from(channels)).div_ceil(8);
    if u32::from(block_align) != want_align {
        return bad(format!(
            "Bad bytes per sample in WAV header: Expected {want_align} but got {block_align}"
        ));
    }
    let want_rate = u64::from(block_align) * u64::from(sample_rate);
    if u64::from(bytes_per_second) != want_rate {
        return bad(format!(
            "Bad bytes per second in WAV header: Expected {want_rate} but got {bytes_per_second} (sample_rate={sample_rate}, bytes_per_sample={block_align})"
        ));
    }
    if fmt_size == 18 {
        r.offset += 2; // cbSize, unused (and not checked against the end here).
    }
    let mut found: Option<(Vec<f32>, u32)> = None;
    while r.offset < wav.len() as i64 {
        let id = r.bytes(4)?;
        let size = r.u32()?;
        if size > i32::MAX as u32 {
            return bad(format!(
                "WAV data chunk '{}' is too large: {size} bytes, but the limit is {}",
                String::from_utf8_lossy(id),
                i32::MAX
            ));
        }
        if id != b"data" {
            r.offset += i64::from(size);
            continue;
        }
        if found.is_some() {
            return bad("More than one data chunk found in WAV".to_string());
        }
        let frames = size / u32::from(block_align);
        let count = frames * u32::from(channels);
        // A slice of the file, so checked against its end before anything is allocated.
        let raw = r.bytes(2 * count as usize)?;
        let samples = raw
            .chunks_exact(2)
            .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) * (1.0 / 32768.0))
            .collect();
        found = Some((samples, frames));
    }
    match found {
        Some((samples, frames)) => Ok(Decoded {
            samples,
            frames,
            channels,
            sample_rate,
        }),
        None => bad("No data chunk found in WAV".to_string()),
    }
}

/// TensorFlow's `FloatToInt16Sample`: scaled by 2^15, rounded half away from zero, clipped;
/// NaN becomes 0.
fn to_i16(x: f32) -> i16 {
    let v = (x * 32768.0).round();
    if v.is_nan() {
        0
    } else {
        v.clamp(-32768.0, 32767.0) as i16
    }
}

/// Encodes `audio` (`frames` x `channels`, interleaved) as a 16-bit PCM WAV file: TensorFlow's
/// `EncodeAudioAsS16LEWav`, with `sample_rate` as the kernel passes it (an int32 widened to
/// an unsigned 64-bit number, so negative rates are huge).
pub(crate) fn encode(
    audio: &[f32],
    sample_rate: i32,
    channels: usize,
    frames: usize,
) -> Result<Vec<u8>> {
    let bad = |m: String| Err(Error::invalid_argument(m));
    if audio.is_empty() && frames > 0 {
        return bad("audio is null".to_string());
    }
    let rate = sample_rate as i64 as u64;
    if rate == 0 || rate > u64::from(u32::MAX) {
        return bad(format!("sample_rate must be in (0, 2^32), got: {rate}"));
    }
    if channels == 0 || channels > usize::from(u16::MAX) {
        return bad(format!(
            "num_channels must be in (0, 2^16), got: {channels}"
        ));
    }
    let samples = frames * channels;
    let file_size = 44 + samples as u64 * 2;
    if file_size > u64::from(u32::MAX) {
        return bad("Provided channels and frames cannot be encoded as a WAV.".to_string());
    }
    let block_align = 2 * channels as u64;
    let mut out = Vec::with_capacity(file_size as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&((file_size - 8) as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt \x10\0\0\0\x01\0"); // 16-byte format chunk, PCM.
    out.extend_from_slice(&(channels as u16).to_le_bytes());
    out.extend_from_slice(&(rate as u32).to_le_bytes());
    out.extend_from_slice(&(rate.wrapping_mul(block_align) as u32).to_le_bytes());
    out.extend_from_slice(&(block_align as u16).to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&((samples * 2) as u32).to_le_bytes());
    for &x in &audio[..samples] {
        out.extend_from_slice(&to_i16(x).to_le_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: Result<Decoded>) -> String {
        r.unwrap_err().message().to_string()
    }

    #[test]
    fn round_trips_and_clips() {
        let audio = [0.0f32, 0.5, -0.5, 1.5, -2.0, f32::NAN];
        let wav = encode(&audio, 8000, 2, 3).unwrap();
        assert_eq!(wav.len(), 44 + 12);
        assert_eq!(&wav[..4], b"RIFF");
        let d = decode(&wav).unwrap();
        assert_eq!((d.frames, d.channels, d.sample_rate), (3, 2, 8000));
        assert_eq!(
            d.samples,
            vec![0.0, 0.5, -0.5, 32767.0 / 32768.0, -1.0, 0.0]
        );
    }

    #[test]
    fn rounds_half_away_from_zero() {
        let h = 1.0f32 / 32768.0;
        let got: Vec<i16> = [0.5 * h, -0.5 * h, 1.5 * h, 0.49 * h]
            .into_iter()
            .map(to_i16)
            .collect();
        assert_eq!(got, vec![1, -1, 2, 0]);
    }

    #[test]
    fn encode_errors_use_tensorflow_wording() {
        let e = encode(&[0.0], 0, 1, 1).unwrap_err();
        assert_eq!(e.message(), "sample_rate must be in (0, 2^32), got: 0");
        let e = encode(&[0.0], -1, 1, 1).unwrap_err();
        assert_eq!(
            e.message(),
            "sample_rate must be in (0, 2^32), got: 18446744073709551615"
        );
        assert_eq!(encode(&[], 1, 0, 3).unwrap_err().message(), "audio is null");
        let e = encode(&[], 1, 70000, 0).unwrap_err();
        assert_eq!(e.message(), "num_channels must be in (0, 2^16), got: 70000");
    }

    #[test]
    fn lying_lengths_are_errors_not_allocations() {
        let mut wav = encode(&[0.25; 4], 16000, 1, 4).unwrap();
        wav[40..44].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
        assert_eq!(
            msg(decode(&wav)),
            "Data too short when trying to read string"
        );
        wav[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            msg(decode(&wav)),
            "WAV data chunk 'data' is too large: 4294967295 bytes, but the limit is 2147483647"
        );
        assert_eq!(
            msg(decode(b"")),
            "Data too short when trying to read string"
        );
        assert_eq!(
            msg(decode(b"RIFX\0\0\0\0WAVE")),
            "Header mismatch: Expected RIFF but found RIFX"
        );
    }

    #[test]
    fn skips_chunks_tensorflow_skips() {
        let wav = encode(&[0.5, -0.5], 16000, 1, 2).unwrap();
        // A LIST chunk between "fmt " and "data".
        let mut with_list = wav[..36].to_vec();
        with_list.extend_from_slice(b"LIST\x04\0\0\0abcd");
        with_list.extend_from_slice(&wav[36..]);
        assert_eq!(decode(&with_list).unwrap().samples, vec![0.5, -0.5]);
        // Before "fmt ", only the listed ids.
        let mut junk = wav[..12].to_vec();
        junk.extend_from_slice(b"JUNK\x02\0\0\0xy");
        junk.extend_from_slice(&wav[12..]);
        assert_eq!(decode(&junk).unwrap().frames, 2);
        junk[12..16].copy_from_slice(b"LIST");
        assert_eq!(msg(decode(&junk)), "Unexpected field LIST");
    }
}
