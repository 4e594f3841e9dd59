//! PNG decoding as TensorFlow's `png_io.cc` does it on libpng: the `png` crate supplies the raw
//! (unfiltered, deinterlaced) samples, and this module applies the libpng transformations
//! TensorFlow asks for, in libpng's order and with its integer arithmetic, so every output
//! sample equals TensorFlow's:
//!
//! 1. expansion: palette to RGB (and its tRNS to alpha, always), gray of 1, 2 or 4 bits scaled
//!    to 8, tRNS to alpha when alpha is wanted;
//! 2. alpha stripped when it is not wanted;
//! 3. RGB to gray (`png_set_rgb_to_gray(1, 0.299, 0.587)`: coefficients 9797, 19234 and 13737
//!    over 2^15, truncating at 8 bits and rounding at 16, through libpng's gamma tables when the
//!    file has a significant gAMA or an sRGB chunk);
//! 4. gray to RGB;
//! 5. 16 to 8 bits by dropping the low byte;
//! 6. an alpha filler of `2^bit_depth - 1` (so 15 for a 4-bit palette, as libpng gives);
//! 7. 8 to 16 bits by `v * 257`.

use std::io::Cursor;

use png::{ColorType, Transformations};
use weir_graph::{Error, Result};

use super::Pixels;

/// libpng's default `png_set_user_limits`: larger dimensions fail in the header.
const USER_LIMIT: u32 = 1_000_000;

/// Fixed-point 1.0 of libpng's gamma values.
const FP_1: f64 = 100_000.0;

/// A PNG whose header has been read: TensorFlow's `png::CommonInitDecode` done.
pub(super) struct PngDecoder<'a> {
    reader: png::Reader<Cursor<&'a [u8]>>,
    plan: Plan,
    /// The size of the encoded input, for error messages.
    input_len: usize,
}

/// The transformations TensorFlow's `CommonInitDecode` configures, resolved for one file.
struct Plan {
    width: usize,
    height: usize,
    color_type: ColorType,
    bit_depth: u8,
    /// Channels of the output.
    channels: usize,
    /// 16-bit output samples.
    out16: bool,
    palette: Vec<[u8; 3]>,
    /// The tRNS alpha of each palette entry (255 past the chunk's end).
    palette_alpha: Option<[u8; 256]>,
    trns_gray: Option<u16>,
    trns_rgb: Option<[u16; 3]>,
    /// `png_set_tRNS_to_alpha` (palettes expand their tRNS regardless).
    trns_to_alpha: bool,
    strip_alpha: bool,
    rgb_to_gray: bool,
    gray_to_rgb: bool,
    strip_16: bool,
    filler: Option<u16>,
    synthesize_16: bool,
    gamma: Option<Gamma>,
}

/// libpng's tables for `png_do_rgb_to_gray` with gamma, indexed by the sample (8-bit) or by the
/// sample shifted right by `shift` (16-bit).
struct Gamma {
    shift: u32,
    table: Vec<u16>,
    to_1: Vec<u16>,
    from_1: Vec<u16>,
}

fn init_error() -> Error {
    Error::invalid_argument("Invalid PNG. Failed to initialize decoder.")
}

impl<'a> PngDecoder<'a> {
    /// Reads the header and chunks up to the image data, and plans the conversion to
    /// `channels` (0 keeps the file's; 1 to 4) samples of 8 or 16 bits.
    pub(super) fn new(data: &'a [u8], channels: usize, out16: bool) -> Result<PngDecoder<'a>> {
        let mut decoder =
            png::Decoder::new_with_limits(Cursor::new(data), png::Limits { bytes: 1 << 26 });
        decoder.set_transformations(Transformations::IDENTITY);
        decoder.set_ignore_text_chunk(true);
        decoder.set_ignore_iccp_chunk(true);
        let reader = decoder.read_info().map_err(|_| init_error())?;
        let info = reader.info();
        if info.width > USER_LIMIT || info.height > USER_LIMIT {
            return Err(init_error());
        }
        let plan = Plan::new(info, channels, out16)?;
        Ok(PngDecoder {
            reader,
            plan,
            input_len: data.len(),
        })
    }

    /// The image's width.
    pub(super) fn width(&self) -> usize {
        self.plan.width
    }

    /// The image's height.
    pub(super) fn height(&self) -> usize {
        self.plan.height
    }

    /// The number of channels decoding produces.
    pub(super) fn channels(&self) -> usize {
        self.plan.channels
    }

    /// Decodes the pixels (TensorFlow's `png::CommonFinishDecode`), reading on to IEND as
    /// `png_read_end` does.
    pub(super) fn finish(mut self) -> Result<Pixels> {
        let data_error =
            || Error::invalid_argument(format!("Invalid PNG data, size {}", self.input_len));
        let plan = &self.plan;
        let n = plan.width * plan.height * plan.channels;
        // DEFLATE expands at most 1032 times: a header claiming more pixels than the rest of
        // the file can hold fails as libpng would at the end of the data, before any buffer is
        // sized by it.
        let raw_len = self.reader.output_buffer_size().ok_or_else(data_error)?;
        if raw_len > self.input_len.saturating_mul(1100).saturating_add(4096) {
            return Err(data_error());
        }
        // Grows with the rows actually decoded: a header's size is never trusted up front.
        let mut out: Vec<u16> = Vec::with_capacity(n.min(1 << 22));
        if self.reader.info().interlaced {
            let size = raw_len;
            let mut raw = vec![0u8; size];
            self.reader.next_frame(&mut raw).map_err(|_| data_error())?;
            let stride = size / plan.height.max(1);
            for row in raw.chunks_exact(stride.max(1)).take(plan.height) {
                plan.row(row, &mut out);
            }
        } else {
            for _ in 0..plan.height {
                match self.reader.next_row() {
                    Ok(Some(row)) => plan.row(row.data(), &mut out),
                    _ => return Err(data_error()),
                }
            }
        }
        self.reader.finish().map_err(|_| data_error())?;
        if out.len() != n {
            return Err(data_error());
        }
        Ok(if plan.out16 {
            Pixels::U16(out)
        } else {
            Pixels::U8(out.into_iter().map(|v| v as u8).collect())
        })
    }
}

impl Plan {
    fn new(info: &png::Info<'_>, channels: usize, out16: bool) -> Result<Plan> {
        let color_type = info.color_type;
        let bit_depth = info.bit_depth as u8;
        let has_alpha = matches!(color_type, ColorType::GrayscaleAlpha | ColorType::Rgba);
        let palette: Vec<[u8; 3]> = match &info.palette {
            Some(p) => p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
            None if color_type == ColorType::Indexed => return Err(init_error()),
            None => Vec::new(),
        };
        let trns = info.trns.as_deref();
        let mut palette_alpha = None;
        let (mut trns_gray, mut trns_rgb) = (None, None);
        match (color_type, trns) {
            (ColorType::Indexed, Some(t)) if !t.is_empty() && t.len() <= palette.len() => {
                let mut a = [255u8; 256];
                a[..t.len()].copy_from_slice(t);
                palette_alpha = Some(a);
            }
            // The `png` crate keeps only the low bytes of a tRNS colour below 16 bits.
            (ColorType::Grayscale, Some(t)) if bit_depth == 16 && t.len() >= 2 => {
                trns_gray = Some(u16::from_be_bytes([t[0], t[1]]));
            }
            (ColorType::Grayscale, Some(t)) if !t.is_empty() => trns_gray = Some(u16::from(t[0])),
            (ColorType::Rgb, Some(t)) if bit_depth == 16 && t.len() >= 6 => {
                let v = |i: usize| u16::from_be_bytes([t[i], t[i + 1]]);
                trns_rgb = Some([v(0), v(2), v(4)]);
            }
            (ColorType::Rgb, Some(t)) if t.len() >= 3 => {
                trns_rgb = Some([t[0].into(), t[1].into(), t[2].into()]);
            }
            _ => {}
        }
        let has_trns = palette_alpha.is_some() || trns_gray.is_some() || trns_rgb.is_some();
        let channels = match channels {
            0 if color_type == ColorType::Indexed => 3 + usize::from(has_trns),
            0 => color_type.samples(),
            c => c,
        };
        let want_alpha = channels % 2 == 0;
        let (mut trns_to_alpha, mut strip_alpha, mut filler) = (false, false, None);
        if want_alpha {
            if has_alpha {
            } else if has_trns {
                trns_to_alpha = true;
            } else {
                filler = Some(((1u32 << bit_depth) - 1) as u16);
            }
        } else if has_alpha || has_trns {
            strip_alpha = true;
        }
        let is_gray = matches!(color_type, ColorType::Grayscale | ColorType::GrayscaleAlpha);
        let want_gray = channels < 3;
        let rgb_to_gray = want_gray && !is_gray;
        let strip_16 = bit_depth == 16 && !out16;
        let gamma = if rgb_to_gray {
            Gamma::for_file(info, bit_depth, strip_16)
        } else {
            None
        };
        Ok(Plan {
            width: info.width as usize,
            height: info.height as usize,
            color_type,
            bit_depth,
            channels,
            out16,
            palette,
            palette_alpha,
            trns_gray,
            trns_rgb,
            trns_to_alpha,
            strip_alpha,
            rgb_to_gray,
            gray_to_rgb: !want_gray && is_gray,
            strip_16,
            filler,
            synthesize_16: bit_depth <= 8 && out16,
            gamma,
        })
    }

    /// Converts one raw row (samples packed big-endian at the file's depth), appending the
    /// output samples to `out`.
    fn row(&self, raw: &[u8], out: &mut Vec<u16>) {
        let depth = self.bit_depth as usize;
        let in_samples = self.color_type.samples();
        let sample = |i: usize| -> u16 {
            match depth {
                16 => u16::from_be_bytes([raw[2 * i], raw[2 * i + 1]]),
                8 => u16::from(raw[i]),
                d => {
                    let bit = i * d;
                    let byte = raw[bit / 8];
                    u16::from((byte >> (8 - d - bit % 8)) & ((1 << d) - 1) as u8)
                }
            }
        };
        for x in 0..self.width {
            let mut px = [0u16; 4];
            for (c, p) in px.iter_mut().enumerate().take(in_samples) {
                *p = sample(x * in_samples + c);
            }
            self.pixel(px, out);
        }
    }

    /// Runs libpng's row transformations on one pixel of raw samples.
    fn pixel(&self, raw: [u16; 4], out: &mut Vec<u16>) {
        // (samples, count, whether the last is alpha, bits per sample)
        let (mut s, mut n, mut alpha, mut bits) = (raw, self.color_type.samples(), false, 8u32);
        match self.color_type {
            ColorType::Indexed => {
                let i = usize::from(raw[0]);
                let rgb = self.palette.get(i).copied().unwrap_or([0, 0, 0]);
                s = [rgb[0].into(), rgb[1].into(), rgb[2].into(), 0];
                n = 3;
                if let Some(a) = &self.palette_alpha {
                    s[3] = u16::from(a[i & 255]);
                    n = 4;
                    alpha = true;
                }
            }
            ColorType::Grayscale => {
                let d = u32::from(self.bit_depth);
                bits = d.max(8);
                if d < 8 {
                    s[0] = raw[0] * (255 / ((1u16 << d) - 1));
                }
                if let (true, Some(t)) = (self.trns_to_alpha, self.trns_gray) {
                    let mask = ((1u32 << d) - 1) as u16;
                    s[1] = if raw[0] == t & mask {
                        0
                    } else {
                        mask_max(bits)
                    };
                    n = 2;
                    alpha = true;
                }
            }
            ColorType::Rgb => {
                bits = u32::from(self.bit_depth);
                if let (true, Some(t)) = (self.trns_to_alpha, self.trns_rgb) {
                    let m = mask_max(bits);
                    let hit = (0..3).all(|c| raw[c] == t[c] & m);
                    s[3] = if hit { 0 } else { m };
                    n = 4;
                    alpha = true;
                }
            }
            ColorType::GrayscaleAlpha | ColorType::Rgba => {
                bits = u32::from(self.bit_depth);
                alpha = true;
            }
        }
        if self.strip_alpha && alpha {
            n -= 1;
            alpha = false;
        }
        let color = n - usize::from(alpha) == 3;
        if self.rgb_to_gray && color {
            s[0] = self.gray(s[0], s[1], s[2], bits);
            if alpha {
                s[1] = s[3];
            }
            n -= 2;
        } else if self.gray_to_rgb && !color {
            let a = s[1];
            s = [s[0], s[0], s[0], a];
            n += 2;
        }
        if self.strip_16 && bits == 16 {
            s.iter_mut().take(n).for_each(|v| *v >>= 8);
            bits = 8;
        }
        if let (Some(f), false) = (self.filler, alpha) {
            s[n] = if bits == 8 { f & 0xff } else { f };
            n += 1;
        }
        if self.synthesize_16 {
            s.iter_mut().take(n).for_each(|v| *v = (*v & 0xff) * 257);
        }
        out.extend_from_slice(&s[..n]);
    }

    /// `png_do_rgb_to_gray` of one pixel at `bits` (8 or 16) bits per sample.
    fn gray(&self, r: u16, g: u16, b: u16, bits: u32) -> u16 {
        const RC: u32 = 9797;
        const GC: u32 = 19234;
        const BC: u32 = 32768 - RC - GC;
        let mix = |r: u32, g: u32, b: u32, round: u32| (RC * r + GC * g + BC * b + round) >> 15;
        let (r32, g32, b32) = (u32::from(r), u32::from(g), u32::from(b));
        match &self.gamma {
            None if bits == 8 && (r != g || r != b) => mix(r32, g32, b32, 0) as u16,
            None if bits == 8 => r,
            None => mix(r32, g32, b32, 16384) as u16,
            Some(t) => {
                let at = |table: &[u16], v: u32| table[(v >> t.shift) as usize];
                if r == g && r == b {
                    at(&t.table, r32)
                } else {
                    let lin = mix(
                        at(&t.to_1, r32).into(),
                        at(&t.to_1, g32).into(),
                        at(&t.to_1, b32).into(),
                        16384,
                    );
                    at(&t.from_1, lin)
                }
            }
        }
    }
}

/// The largest sample value of `bits` bits.
fn mask_max(bits: u32) -> u16 {
    ((1u32 << bits) - 1) as u16
}

/// `png_gamma_significant`: further than 0.05 from 1.
fn significant(g: f64) -> bool {
    !(95_000.0..=105_000.0).contains(&g)
}

/// `png_reciprocal`: 1/a in libpng's fixed point.
fn reciprocal(a: f64) -> f64 {
    (1e10 / a + 0.5).floor()
}

impl Gamma {
    /// The tables libpng builds for RGB-to-gray when the file's gamma (gAMA, or sRGB's) is
    /// significant; `None` when it uses none.
    fn for_file(info: &png::Info<'_>, bit_depth: u8, strip_16: bool) -> Option<Gamma> {
        let g = f64::from(info.gamma()?.into_scaled());
        if !(16.0..=625_000_000.0).contains(&g) {
            return None;
        }
        let screen = reciprocal(g);
        if !significant(g) && !significant(screen) {
            return None;
        }
        let reciprocal2 = ((1e15 / g) / screen + 0.5).floor();
        let (to_1, from_1) = (screen, reciprocal(screen));
        if bit_depth <= 8 {
            let t8 = |gv: f64| -> Vec<u16> {
                (0..256u32)
                    .map(|i| {
                        if i == 0 || i == 255 || !significant(gv) {
                            i as u16
                        } else {
                            (255.0 * (f64::from(i) / 255.0).powf(gv / FP_1) + 0.5).floor() as u16
                        }
                    })
                    .collect()
            };
            return Some(Gamma {
                shift: 0,
                table: t8(reciprocal2),
                to_1: t8(to_1),
                from_1: t8(from_1),
            });
        }
        let sig_bit = info.sbit.as_deref().map_or(0, |s| {
            let n = if matches!(info.color_type, ColorType::Rgb | ColorType::Rgba) {
                3
            } else {
                1
            };
            s.iter().take(n).copied().max().unwrap_or(0)
        });
        let mut shift = if sig_bit > 0 && sig_bit < 16 {
            16 - u32::from(sig_bit)
        } else {
            0
        };
        if strip_16 {
            shift = shift.max(5);
        }
        let shift = shift.min(8);
        let table = if strip_16 {
            let product2 = (g * 1e-5 * screen + 0.5).floor();
            table_16_to_8(shift, product2)
        } else {
            table_16(shift, reciprocal2)
        };
        Some(Gamma {
            shift,
            table,
            to_1: table_16(shift, to_1),
            from_1: table_16(shift, from_1),
        })
    }
}

/// `png_build_16bit_table`, flattened: entry `v >> shift` for a 16-bit `v`.
fn table_16(shift: u32, gv: f64) -> Vec<u16> {
    let max = (1u32 << (16 - shift)) - 1;
    let max_by_2 = 1u32 << (15 - shift);
    (0..=max)
        .map(|ig| {
            if significant(gv) {
                (65535.0 * (f64::from(ig) / f64::from(max)).powf(gv / FP_1) + 0.5).floor() as u16
            } else if shift != 0 {
                ((ig * 65535 + max_by_2) / max) as u16
            } else {
                ig as u16
            }
        })
        .collect()
}

/// `png_build_16to8_table`, flattened like [`table_16`].
fn table_16_to_8(shift: u32, gv: f64) -> Vec<u16> {
    let max = 1u32 << (16 - shift);
    let mut table = vec![65535u16; max as usize];
    let mut last = 0u32;
    for i in 0..255u32 {
        let out = i * 257;
        let v = out + 128;
        let bound = if v > 0 && v < 65535 {
            (65535.0 * (f64::from(v) / 65535.0).powf(gv / FP_1) + 0.5).floor() as u32
        } else {
            v
        };
        let bound = (bound * max + 32768) / 65535 + 1;
        while last < bound && last < max {
            table[last as usize] = out as u16;
            last += 1;
        }
    }
    table
}
