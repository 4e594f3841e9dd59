//! Bad input, tried hard, through every image decoder: random bytes behind each format's magic
//! bytes, and damaged copies of the test images (PNG chunks re-checksummed, so the damage
//! reaches the decoders behind the CRCs). Every input must end in an image or a typed error:
//! never a panic, and never an allocation sized by a header before the data backs it.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use weir_graph::{Code, DType, Result, Tensor};
use weir_ops::image::{DecodeBmp, DecodeGif, DecodeImage, DecodeJpeg, DecodePng, ExtractJpegShape};

use super::image_codecs::file;

const MAGICS: [&[u8]; 7] = [
    b"",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF89a",
    b"GIF87a",
    b"BM",
    b"RIFF\x00\x00\x00\x00WEBPVP8 ",
];

const FILES: [&str; 14] = [
    "png/rgb8.png",
    "png/pal4_trns.png",
    "png/rgb8_interlaced.png",
    "png/rgba16.png",
    "png/gray2_trns.png",
    "png/rgb16_gama.png",
    "gif/anim.gif",
    "gif/interlaced_tall.gif",
    "bmp/bgr24.bmp",
    "bmp/bgra32_topdown.bmp",
    "jpeg/rgb420_q90.jpg",
    "jpeg/rgb420_prog.jpg",
    "jpeg/gray_q90.jpg",
    "jpeg/cmyk.jpg",
];

type Decoder = Box<dyn Fn(&[u8]) -> Result<Tensor>>;

fn decoders() -> Vec<(String, Decoder)> {
    let mut v: Vec<(String, Decoder)> = vec![];
    for c in [0, 1, 3, 4] {
        for dt in [DType::U8, DType::U16] {
            let d = DecodePng::new().channels(c).dtype(dt);
            v.push((format!("png {c} {dt}"), Box::new(move |b| d.decode(b))));
        }
    }
    for c in [0, 1, 3] {
        for ratio in [1, 2, 8] {
            let d = DecodeJpeg::new()
                .channels(c)
                .ratio(ratio)
                .try_recover_truncated(ratio == 2);
            v.push((format!("jpeg {c} {ratio}"), Box::new(move |b| d.decode(b))));
        }
    }
    let crop = DecodeJpeg::new();
    v.push((
        "crop".into(),
        Box::new(move |b| crop.decode_cropped(b, [1, 2, 3, 4])),
    ));
    v.push(("gif".into(), Box::new(|b| DecodeGif::new().decode(b))));
    for c in [0, 3, 4] {
        let d = DecodeBmp::new().channels(c);
        v.push((format!("bmp {c}"), Box::new(move |b| d.decode(b))));
    }
    for (dt, expand) in [(DType::U8, true), (DType::F32, false), (DType::U16, true)] {
        let d = DecodeImage::new().dtype(dt).expand_animations(expand);
        v.push((
            format!("image {dt} {expand}"),
            Box::new(move |b| d.decode(b)),
        ));
    }
    v.push((
        "shape".into(),
        Box::new(|b| ExtractJpegShape::new().extract(b)),
    ));
    v
}

/// Runs every decoder on `data`: each gives a consistent tensor or a typed error.
fn check_all(data: &[u8]) -> std::result::Result<(), TestCaseError> {
    for (name, d) in decoders() {
        match d(data) {
            Ok(t) => {
                let n: usize = t.shape().iter().product();
                prop_assert_eq!(n, t.num_elements(), "{}", name);
                prop_assert!(
                    t.rank() == 3 || t.rank() == 4 || name == "shape",
                    "{}: {:?}",
                    name,
                    t.shape()
                );
            }
            Err(e) => prop_assert!(
                matches!(
                    e.code(),
                    Code::InvalidArgument | Code::Unimplemented | Code::ResourceExhausted
                ),
                "{}: {}",
                name,
                e
            ),
        }
    }
    Ok(())
}

/// A damage applied to an encoded image.
#[derive(Clone, Debug)]
enum Mutation {
    Flip {
        at: usize,
        xor: u8,
    },
    Truncate {
        keep: usize,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Delete {
        at: usize,
        len: usize,
    },
    /// Header fields (sizes, counts) are where decoders trust input most: overwrite 4 bytes
    /// near the start with a large or odd value.
    Overwrite {
        at: usize,
        value: u32,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, xor)| Mutation::Flip { at, xor }),
        any::<usize>().prop_map(|keep| Mutation::Truncate { keep }),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..20))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1..40usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (
            0..64usize,
            prop_oneof![
                Just(u32::MAX),
                Just(0x7fff_ffff),
                Just(65535),
                Just(0),
                any::<u32>()
            ]
        )
            .prop_map(|(at, value)| Mutation::Overwrite { at, value }),
    ]
}

fn apply(data: &mut Vec<u8>, m: &Mutation) {
    if data.is_empty() {
        return;
    }
    match m {
        Mutation::Flip { at, xor } => {
            let i = at % data.len();
            data[i] ^= xor;
        }
        Mutation::Truncate { keep } => data.truncate(keep % data.len()),
        Mutation::Insert { at, bytes } => {
            let i = at % (data.len() + 1);
            data.splice(i..i, bytes.iter().copied());
        }
        Mutation::Delete { at, len } => {
            let i = at % data.len();
            let end = (i + len).min(data.len());
            data.drain(i..end);
        }
        Mutation::Overwrite { at, value } => {
            let i = at % data.len();
            for (k, b) in value.to_be_bytes().iter().enumerate() {
                if let Some(d) = data.get_mut(i + k) {
                    *d = *b;
                }
            }
        }
    }
}

/// Recomputes the CRC of every whole chunk of a PNG, so damage inside chunks gets past the
/// checksums to the decoder.
fn fix_png_crcs(data: &mut [u8]) {
    if !data.starts_with(b"\x89PNG\r\n\x1a\n") {
        return;
    }
    let mut pos = 8;
    while pos + 12 <= data.len() {
        let len =
            u32::from_be_bytes([data[pos], data[pos + 1], data[pos + 2], data[pos + 3]]) as usize;
        let Some(end) = pos.checked_add(12).and_then(|p| p.checked_add(len)) else {
            return;
        };
        if end > data.len() {
            return;
        }
        let crc = crc32(&data[pos + 4..pos + 8 + len]);
        data[pos + 8 + len..end].copy_from_slice(&crc.to_be_bytes());
        pos = end;
    }
}

/// CRC-32 (IEEE), PNG's chunk checksum.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_behind_every_magic_decode_or_fail_typed(
        magic in 0..MAGICS.len(),
        body in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let mut data = MAGICS[magic].to_vec();
        data.extend_from_slice(&body);
        check_all(&data)?;
    }

    #[test]
    fn damaged_images_decode_or_fail_typed(
        which in 0..FILES.len(),
        muts in prop::collection::vec(mutation(), 1..4),
        fix_crcs in any::<bool>(),
    ) {
        let mut data = file(FILES[which]);
        for m in &muts {
            apply(&mut data, m);
        }
        if fix_crcs {
            fix_png_crcs(&mut data);
        }
        check_all(&data)?;
    }
}

fn png_header(w: u32, h: u32, interlace: u8, idat: &[u8]) -> Vec<u8> {
    let chunk = |kind: &[u8], body: &[u8]| {
        let mut c = (body.len() as u32).to_be_bytes().to_vec();
        c.extend_from_slice(kind);
        c.extend_from_slice(body);
        let mut crc_in = kind.to_vec();
        crc_in.extend_from_slice(body);
        c.extend_from_slice(&crc32(&crc_in).to_be_bytes());
        c
    };
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, interlace]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend(chunk(b"IHDR", &ihdr));
    out.extend(chunk(b"IDAT", idat));
    out.extend(chunk(b"IEND", b""));
    out
}

/// Headers that claim enormous images fail fast, without allocating for the claim.
#[test]
fn huge_claims_are_refused_quickly() {
    let start = Instant::now();
    let tiny_zlib = [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01];
    let e = DecodePng::new()
        .decode(&png_header(100_000, 100_000, 0, &tiny_zlib))
        .unwrap_err();
    assert_eq!(e.message(), "PNG size too large for int: 100000 by 100000");
    for interlace in [0, 1] {
        let e = DecodePng::new()
            .dtype(DType::U16)
            .decode(&png_header(20_000, 20_000, interlace, &tiny_zlib))
            .unwrap_err();
        assert_eq!(e.message(), "Invalid PNG data, size 65");
    }
    // A GIF frame claiming 65535 x 65535 pixels, with three bytes of data.
    let mut gif = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff".to_vec();
    gif.extend_from_slice(b"\x2c\x00\x00\x00\x00\xff\xff\xff\xff\x00\x02\x02\x4c\x01\x00\x3b");
    let e = DecodeGif::new().decode(&gif).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    // Two thin frames make a 65535 x 65535 canvas: refused before it is allocated.
    let mut canvas = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff".to_vec();
    for (w, h) in [(65535u16, 1u16), (1, 65535)] {
        canvas.extend_from_slice(b"\x2c\x00\x00\x00\x00");
        canvas.extend_from_slice(&w.to_le_bytes());
        canvas.extend_from_slice(&h.to_le_bytes());
        // 65535 pixels of index 0 need real LZW data: a run of codes.
        canvas.push(0);
        canvas.extend(lzw_zeros(65535));
    }
    canvas.push(0x3b);
    let e = DecodeGif::new().decode(&canvas).unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e}");
    let e = DecodeImage::new()
        .expand_animations(false)
        .decode(&canvas)
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e}");
    // A JPEG frame header of 65500 x 65500 with no data behind it.
    let mut jpeg =
        b"\xff\xd8\xff\xc0\x00\x11\x08\xff\xdc\xff\xdc\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01"
            .to_vec();
    jpeg.extend_from_slice(b"\xff\xda\x00\x0c\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00\xff\xd9");
    let e = DecodeJpeg::new().decode(&jpeg).unwrap_err();
    assert_eq!(
        e.message(),
        "jpeg::Uncompress failed. Invalid JPEG data or crop window."
    );
    assert_eq!(
        ExtractJpegShape::new()
            .extract(&jpeg)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![65500, 65500, 3]
    );
    // BMPs claiming 10000 x 10000 and 30000 x 30000 pixels.
    for (side, want) in [
        (10000i32, "Input size should match (header_size + row_size * abs_height) but they differ by -299999990"),
        (30000, "Total possible pixel bytes must be less than 2^30"),
    ] {
        let mut bmp = vec![0u8; 64];
        bmp[..2].copy_from_slice(b"BM");
        bmp[10] = 54;
        bmp[18..22].copy_from_slice(&side.to_le_bytes());
        bmp[22..26].copy_from_slice(&side.to_le_bytes());
        bmp[28] = 24;
        assert_eq!(DecodeBmp::new().decode(&bmp).unwrap_err().message(), want);
    }
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

/// LZW data (minimum code size 2) for `n` pixels of index 0, as sub-blocks and a terminator:
/// a clear code and then single-pixel codes, each 3 bits (the table is cleared before it grows).
fn lzw_zeros(n: usize) -> Vec<u8> {
    let mut bits: Vec<bool> = vec![];
    let mut push = |code: u32| (0..3).for_each(|i| bits.push(code >> i & 1 == 1));
    for i in 0..n {
        if i % 2 == 0 {
            push(4); // clear: the next code adds no entry, keeping codes at 3 bits
        }
        push(0);
    }
    push(5);
    let bytes: Vec<u8> = bits
        .chunks(8)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |acc, (i, &b)| acc | (u8::from(b) << i))
        })
        .collect();
    let mut out = vec![2u8];
    for block in bytes.chunks(255) {
        out.push(block.len() as u8);
        out.extend_from_slice(block);
    }
    out.push(0);
    out
}
