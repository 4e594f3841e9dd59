//! The codec ops in graphs and sessions: a `read_file` to `decode_image` pipeline, static
//! shapes, attrs and their checks, encoders round-tripping through the decoders, and
//! TensorFlow's errors (expected values printed by TensorFlow 2.21).

use weir_graph::{Bytes, Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::image::{
    decode_and_crop_jpeg, decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png,
    encode_jpeg, encode_jpeg_variable_quality, encode_png, extract_jpeg_shape, is_jpeg,
    DecodeImage, DecodeJpeg, DecodePng, DensityUnit, EncodeJpeg, EncodePng, ExtractJpegShape,
    JpegFormat,
};
use weir_ops::io::read_file;
use weir_session::{RunArgs, Session};

use super::image_codecs::{cases, expected_bytes, file, raw_bytes};

fn scalar_bytes(data: &[u8]) -> Tensor {
    Tensor::scalar(Bytes::from(data.to_vec()))
}

fn eval(g: &Graph, o: &Output) -> weir_graph::Result<Tensor> {
    Session::new(g).unwrap().eval(o)
}

fn feed_eval(g: &Graph, ph: &Output, data: &[u8], o: &Output) -> weir_graph::Result<Tensor> {
    let sess = Session::new(g).unwrap();
    let mut v = sess.run(&RunArgs::new().feed(ph, scalar_bytes(data)).fetch(o))?;
    Ok(v.remove(0))
}

fn pixels(h: usize, w: usize, c: usize, seed: u32) -> Vec<u8> {
    (0..h * w * c)
        .map(|i| ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) >> 13) as u8)
        .collect()
}

#[test]
fn read_file_then_decode_image_gives_tensorflow_s_pixels() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/images");
    let g = Graph::new();
    let path = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let image = decode_image(read_file(&path).unwrap()).unwrap();
    assert_eq!(image.op().name(), "decode_image/DecodeImage");
    let sess = Session::new(&g).unwrap();
    let mut checked = 0;
    for c in cases() {
        let name = c["file"].as_str().unwrap();
        let (op, attrs) = (c["op"].as_str().unwrap(), c["attrs"].to_string());
        // The cases where decode_image's defaults decode as the case's op did.
        let same = match op {
            "decode_png" => {
                name.starts_with("png/") && attrs == r#"{"channels":0,"dtype":"uint8"}"#
            }
            "decode_gif" => name.starts_with("gif/"),
            "decode_bmp" => name.starts_with("bmp/") && attrs == r#"{"channels":0}"#,
            _ => false,
        };
        if !same {
            continue;
        }
        let p = dir.join(name);
        let fed = Tensor::from_strings(&[p.to_str().unwrap()])
            .reshape(&[])
            .unwrap();
        let got = sess.run(&RunArgs::new().feed(&path, fed).fetch(&image));
        match c.get("message") {
            Some(m) => assert_eq!(got.unwrap_err().message(), m.as_str().unwrap()),
            None => assert_eq!(raw_bytes(&got.unwrap()[0]), expected_bytes(&c), "{name}"),
        }
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn decoders_in_a_session_match_their_graph_free_runs() {
    let g = Graph::new();
    let ph = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let png16 = DecodePng::new()
        .channels(3)
        .dtype(DType::U16)
        .build(&ph)
        .unwrap();
    let gif = decode_gif(&ph).unwrap();
    let bmp = decode_bmp(&ph).unwrap();
    let jpeg = decode_jpeg(&ph).unwrap();
    let data = file("png/pal4_trns.png");
    let want = DecodePng::new()
        .channels(3)
        .dtype(DType::U16)
        .decode(&data)
        .unwrap();
    assert_eq!(
        feed_eval(&g, &ph, &data, &png16)
            .unwrap()
            .to_vec::<u16>()
            .unwrap(),
        want.to_vec::<u16>().unwrap()
    );
    let anim = file("gif/anim.gif");
    assert_eq!(
        feed_eval(&g, &ph, &anim, &gif).unwrap().shape(),
        &[3, 6, 8, 3]
    );
    let b = file("bmp/bgra32_topdown.bmp");
    assert_eq!(feed_eval(&g, &ph, &b, &bmp).unwrap().shape(), &[3, 4, 4]);
    let j = file("jpeg/rgb420_q90.jpg");
    let got = feed_eval(&g, &ph, &j, &jpeg).unwrap();
    assert_eq!(
        got.to_vec::<u8>().unwrap(),
        DecodeJpeg::new()
            .decode(&j)
            .unwrap()
            .to_vec::<u8>()
            .unwrap()
    );
}

#[test]
fn static_shapes_are_tensorflow_s() {
    let g = Graph::new();
    let c = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let s = |o: Output| o.shape().to_string();
    assert_eq!(s(decode_png(&c).unwrap()), "[?,?,?]");
    assert_eq!(
        s(DecodePng::new().channels(3).build(&c).unwrap()),
        "[?,?,3]"
    );
    assert_eq!(s(decode_gif(&c).unwrap()), "[?,?,?,3]");
    assert_eq!(decode_image(&c).unwrap().shape(), Shape::unknown());
    let no_anim = DecodeImage::new().channels(3).expand_animations(false);
    assert_eq!(s(no_anim.build(&c).unwrap()), "[?,?,3]");
    let window = constant(&g, vec![1i32, 2, 3, 4]).unwrap();
    let crop = DecodeJpeg::new()
        .channels(3)
        .build_cropped(&c, &window)
        .unwrap();
    assert_eq!(s(crop), "[3,4,3]");
    assert_eq!(s(extract_jpeg_shape(&c).unwrap()), "[3]");
    let batch = placeholder(&g, DType::U8, Shape::known(&[2, 5, 4, 3])).unwrap();
    assert_eq!(s(encode_png(&batch).unwrap()), "[2]");
    let img = placeholder(&g, DType::U8, Shape::known(&[5, 4, 3])).unwrap();
    assert_eq!(encode_jpeg(&img).unwrap().shape(), Shape::scalar());
    // Build-time errors, as TensorFlow's shape functions give them.
    let two = constant(&g, Tensor::from_byte_strings(&[b"a", b"b"])).unwrap();
    let e = decode_png(&two).unwrap_err();
    assert!(
        e.message().contains("Shape must be rank 0 but is rank 1"),
        "{e}"
    );
    let e = DecodePng::new().channels(-1).build(&c).unwrap_err();
    assert!(
        e.message()
            .starts_with("channels must be non-negative, got -1"),
        "{e}"
    );
    let flat = placeholder(&g, DType::U8, Shape::known(&[5, 3])).unwrap();
    let e = encode_png(&flat).unwrap_err();
    assert!(
        e.message()
            .contains("Shape must be at least rank 3 but is rank 2"),
        "{e}"
    );
    let e = encode_png(constant(&g, Tensor::from_vec(&[1, 1, 1], vec![1.0f32]).unwrap()).unwrap());
    assert_eq!(e.unwrap_err().code(), Code::InvalidArgument);
}

#[test]
fn ops_carry_tensorflow_s_names_attrs_and_defaults() {
    let g = Graph::new();
    let c = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let j = decode_jpeg(&c).unwrap().op();
    assert_eq!(j.op_type(), "DecodeJpeg");
    assert_eq!(j.attr::<i64>("ratio").unwrap(), 1);
    assert!(j.attr::<bool>("fancy_upscaling").unwrap());
    assert!(!j.attr::<bool>("try_recover_truncated").unwrap());
    assert_eq!(j.attr::<f32>("acceptable_fraction").unwrap(), 1.0);
    assert_eq!(j.attr::<String>("dct_method").unwrap(), "");
    let e = encode_jpeg(placeholder(&g, DType::U8, Shape::unknown()).unwrap())
        .unwrap()
        .op();
    assert_eq!(e.attr::<i64>("quality").unwrap(), 95);
    assert_eq!(e.attr::<String>("density_unit").unwrap(), "in");
    assert_eq!(e.attr::<i64>("x_density").unwrap(), 300);
    assert!(e.attr::<bool>("chroma_downsampling").unwrap());
    let p = decode_png(&c).unwrap().op();
    assert_eq!(p.attr::<DType>("dtype").unwrap(), DType::U8);
    let s = extract_jpeg_shape(&c).unwrap().op();
    assert_eq!(s.attr::<DType>("output_type").unwrap(), DType::I32);
    let i = decode_image(&c).unwrap().op();
    assert!(i.attr::<bool>("expand_animations").unwrap());
    let png = encode_png(placeholder(&g, DType::U16, Shape::unknown()).unwrap())
        .unwrap()
        .op();
    assert_eq!(
        (
            png.attr::<i64>("compression").unwrap(),
            png.attr::<DType>("T").unwrap()
        ),
        (-1, DType::U16)
    );
}

#[test]
fn bad_attrs_fail_when_the_kernel_is_made() {
    let g = Graph::new();
    let data = constant(&g, scalar_bytes(&file("png/rgb8.png"))).unwrap();
    let checks: Vec<(Output, &str)> = vec![
        (
            DecodePng::new().channels(2).build(&data).unwrap(),
            "`channels` must be 0, 1, 3 or 4 but got 2",
        ),
        (
            DecodeJpeg::new().ratio(3).build(&data).unwrap(),
            "ratio must be 1, 2, 4, or 8, got 3",
        ),
        (
            DecodeJpeg::new().dct_method("FLOAT").build(&data).unwrap(),
            "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}",
        ),
        (
            EncodePng::new()
                .compression(10)
                .build(constant(&g, Tensor::from_vec(&[1, 1, 1], vec![0u8]).unwrap()).unwrap())
                .unwrap(),
            "compression should be in [-1,9], got 10",
        ),
        (
            EncodeJpeg::new()
                .quality(101)
                .build(constant(&g, Tensor::from_vec(&[1, 1, 1], vec![0u8]).unwrap()).unwrap())
                .unwrap(),
            "quality must be in [0,100], got 101",
        ),
    ];
    for (o, want) in checks {
        let e = eval(&g, &o).unwrap_err();
        assert_eq!((e.code(), e.message()), (Code::InvalidArgument, want));
    }
}

#[test]
fn run_time_errors_are_tensorflow_s() {
    let g = Graph::new();
    let any = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let image = decode_image(&any).unwrap();
    let sess = Session::new(&g).unwrap();
    let two = Tensor::from_byte_strings(&[b"a", b"b"]);
    let e = sess
        .run(&RunArgs::new().feed(&any, two).fetch(&image))
        .unwrap_err();
    assert_eq!(e.message(), "`contents` must be scalar but got shape[2]");
    let e = sess
        .run(&RunArgs::new().feed(&any, scalar_bytes(b"")).fetch(&image))
        .unwrap_err();
    assert_eq!(e.message(), "Input is empty.");
    let webp = b"RIFF\x10\x00\x00\x00WEBPVP8 \x00\x00";
    let e = sess
        .run(&RunArgs::new().feed(&any, scalar_bytes(webp)).fetch(&image))
        .unwrap_err();
    assert_eq!(e.code(), Code::Unimplemented, "{e}");

    let img = |shape: &[usize]| {
        constant(
            &g,
            Tensor::from_vec(shape, vec![0u8; shape.iter().product()]).unwrap(),
        )
        .unwrap()
    };
    let cases: Vec<(Output, Code, &str)> = vec![
        (
            encode_png(img(&[0, 3, 3])).unwrap(),
            Code::Internal,
            "PNG encoding failed at the following flattened batch indices: 0",
        ),
        (
            encode_png(img(&[2, 0, 3, 3])).unwrap(),
            Code::Internal,
            "PNG encoding failed at the following flattened batch indices: 0, 1",
        ),
        (
            encode_png(img(&[3, 3, 5])).unwrap(),
            Code::InvalidArgument,
            "image must have 1, 2, 3, or 4 channels, got 5",
        ),
        (
            encode_jpeg(img(&[3, 3, 4])).unwrap(),
            Code::InvalidArgument,
            "image must have 1 or 3 channels, got [3,3,4]",
        ),
        (
            EncodeJpeg::new()
                .format(JpegFormat::Rgb)
                .build(img(&[3, 3, 1]))
                .unwrap(),
            Code::InvalidArgument,
            "format rgb expects 3 channels, got [3,3,1]",
        ),
        (
            encode_jpeg(img(&[0, 3, 3])).unwrap(),
            Code::Internal,
            "JPEG encoding failed",
        ),
        (
            encode_jpeg_variable_quality(img(&[3, 3, 3]), constant(&g, vec![50i32, 2]).unwrap())
                .unwrap(),
            Code::InvalidArgument,
            "quality must be scalar: [2]",
        ),
    ];
    for (o, code, want) in cases {
        let e = eval(&g, &o).unwrap_err();
        assert_eq!((e.code(), e.message()), (code, want));
    }
}

#[test]
fn png_round_trips_every_channel_count_and_depth() {
    for channels in 1..=4 {
        for level in [-1, 0, 1, 9] {
            let data = pixels(7, 5, channels, channels as u32);
            let t = Tensor::from_vec(&[7, 5, channels], data.clone()).unwrap();
            let png = EncodePng::new().compression(level).encode(&t).unwrap();
            let bytes = png.to_scalar::<Bytes>().unwrap();
            let back = DecodePng::new().decode(&bytes).unwrap();
            assert_eq!(
                (back.shape(), back.to_vec::<u8>().unwrap()),
                (&[7, 5, channels][..], data)
            );
            let wide: Vec<u16> = (0..7 * 5 * channels)
                .map(|i| (i as u16).wrapping_mul(40503))
                .collect();
            let t16 = Tensor::from_vec(&[7, 5, channels], wide.clone()).unwrap();
            let png16 = EncodePng::new().compression(level).encode(&t16).unwrap();
            let back16 = DecodePng::new()
                .dtype(DType::U16)
                .decode(&png16.to_scalar::<Bytes>().unwrap())
                .unwrap();
            assert_eq!(back16.to_vec::<u16>().unwrap(), wide);
        }
    }
    // A batch in a session: one PNG per image.
    let g = Graph::new();
    let batch = constant(
        &g,
        Tensor::from_vec(&[2, 3, 2, 4], pixels(2, 3 * 2, 4, 7)).unwrap(),
    )
    .unwrap();
    let out = eval(&g, &encode_png(&batch).unwrap()).unwrap();
    assert_eq!(out.shape(), &[2]);
    let second = DecodePng::new()
        .decode(&out.as_slice::<Bytes>().unwrap()[1])
        .unwrap();
    assert_eq!(
        second.to_vec::<u8>().unwrap(),
        pixels(2, 3 * 2, 4, 7)[24..].to_vec()
    );
}

#[test]
fn jpeg_round_trips_within_quality_loss() {
    let smooth: Vec<u8> = (0..32 * 48)
        .flat_map(|i| {
            let (y, x) = (i / 48, i % 48);
            [(x * 5) as u8, (y * 7) as u8, ((x + y) * 3) as u8]
        })
        .collect();
    let t = Tensor::from_vec(&[32, 48, 3], smooth.clone()).unwrap();
    for enc in [
        EncodeJpeg::new(),
        EncodeJpeg::new().quality(75).progressive(true),
        EncodeJpeg::new()
            .chroma_downsampling(false)
            .optimize_size(true),
    ] {
        let jpeg = enc.encode(&t).unwrap().to_scalar::<Bytes>().unwrap();
        let back = DecodeJpeg::new().decode(&jpeg).unwrap();
        let diff: Vec<u32> = back
            .to_vec::<u8>()
            .unwrap()
            .iter()
            .zip(&smooth)
            .map(|(a, b)| u32::from(a.abs_diff(*b)))
            .collect();
        let mean = diff.iter().sum::<u32>() as f64 / diff.len() as f64;
        assert!(mean < 3.0, "mean {mean}");
        assert_eq!(
            ExtractJpegShape::new()
                .extract(&jpeg)
                .unwrap()
                .to_vec::<i32>()
                .unwrap(),
            vec![32, 48, 3]
        );
    }
    let gray = Tensor::from_vec(&[9, 13, 1], vec![77u8; 117]).unwrap();
    let jpeg = EncodeJpeg::new()
        .format(JpegFormat::Grayscale)
        .encode(&gray)
        .unwrap();
    let back = DecodeJpeg::new()
        .decode(&jpeg.to_scalar::<Bytes>().unwrap())
        .unwrap();
    assert_eq!(back.shape(), &[9, 13, 1]);
    assert!(back
        .to_vec::<u8>()
        .unwrap()
        .iter()
        .all(|&v| v.abs_diff(77) <= 1));
}

#[test]
fn jpeg_options_show_in_the_file() {
    let t = Tensor::from_vec(&[16, 16, 3], pixels(16, 16, 3, 3)).unwrap();
    let bytes = |e: EncodeJpeg| e.encode(&t).unwrap().to_scalar::<Bytes>().unwrap().to_vec();
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let plain = bytes(EncodeJpeg::new());
    // JFIF: density unit 1 (inch), 300 x 300.
    assert!(
        find(&plain, b"JFIF\x00\x01\x02\x01\x01\x2c\x01\x2c").is_some()
            || find(&plain, b"\x01\x01\x2c\x01\x2c").is_some()
    );
    let cm = bytes(
        EncodeJpeg::new()
            .density_unit(DensityUnit::Centimeter)
            .x_density(72)
            .y_density(96),
    );
    assert!(find(&cm, b"\x02\x00\x48\x00\x60").is_some());
    let xmp = bytes(EncodeJpeg::new().xmp_metadata("<x:xmpmeta/>"));
    assert!(find(&xmp, b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta/>").is_some());
    assert!(find(&bytes(EncodeJpeg::new().progressive(true)), b"\xff\xc2").is_some());
    // The sampling factors of the frame header: 4:2:0 samples luma 2x2, 4:4:4 all 1x1.
    let sampling = |jpeg: &[u8]| -> Vec<u8> {
        let sof = find(jpeg, b"\xff\xc0")
            .or_else(|| find(jpeg, b"\xff\xc2"))
            .unwrap();
        let n = usize::from(jpeg[sof + 9]);
        (0..n).map(|i| jpeg[sof + 11 + 3 * i]).collect()
    };
    assert_eq!(sampling(&plain), vec![0x22, 0x11, 0x11]);
    assert_eq!(
        sampling(&bytes(EncodeJpeg::new().chroma_downsampling(false))),
        vec![0x11; 3]
    );
}

#[test]
fn jpeg_helpers_in_a_session() {
    let g = Graph::new();
    let jpeg = file("jpeg/rgb420_q90.jpg");
    let c = constant(&g, scalar_bytes(&jpeg)).unwrap();
    let both = constant(
        &g,
        Tensor::from_byte_strings(&[&jpeg[..], &file("png/rgb8.png")[..]]),
    )
    .unwrap();
    assert_eq!(
        eval(&g, &is_jpeg(&both).unwrap())
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![true, false]
    );
    let shape = ExtractJpegShape::new()
        .output_type(DType::I64)
        .build(&c)
        .unwrap();
    assert_eq!(
        eval(&g, &shape).unwrap().to_vec::<i64>().unwrap(),
        vec![22, 37, 3]
    );
    let crop = decode_and_crop_jpeg(&c, constant(&g, vec![3i32, 5, 10, 20]).unwrap()).unwrap();
    let got = eval(&g, &crop).unwrap();
    assert_eq!(got.shape(), &[10, 20, 3]);
    let full = DecodeJpeg::new()
        .decode(&jpeg)
        .unwrap()
        .to_vec::<u8>()
        .unwrap();
    let want: Vec<u8> = (3..13)
        .flat_map(|y| full[(y * 37 + 5) * 3..(y * 37 + 25) * 3].to_vec())
        .collect();
    assert_eq!(got.to_vec::<u8>().unwrap(), want);
    let bad = decode_and_crop_jpeg(&c, constant(&g, vec![20i32, 0, 5, 5]).unwrap()).unwrap();
    assert_eq!(
        eval(&g, &bad).unwrap_err().message(),
        "jpeg::Uncompress failed. Invalid JPEG data or crop window."
    );
    let q = encode_jpeg_variable_quality(decode_jpeg(&c).unwrap(), constant(&g, 30i32).unwrap())
        .unwrap();
    let low = eval(&g, &q).unwrap().to_scalar::<Bytes>().unwrap();
    assert!(low.len() < jpeg.len() + 400);
    assert_eq!(
        DecodeJpeg::new().decode(&low).unwrap().shape(),
        &[22, 37, 3]
    );
}

#[test]
fn decode_image_converts_other_dtypes_as_tensorflow_s_python_does() {
    let g = Graph::new();
    let c = constant(&g, scalar_bytes(&file("png/gray8.png"))).unwrap();
    let f64s = DecodeImage::new().dtype(DType::F64).build(&c).unwrap();
    assert_eq!(f64s.op().op_type(), "ConvertImageDtype");
    let got = eval(&g, &f64s).unwrap().to_vec::<f64>().unwrap();
    let u16s = DecodeImage::new()
        .dtype(DType::U16)
        .decode(&file("png/gray8.png"))
        .unwrap();
    let scale = 1.0 / 65535.0;
    let want: Vec<f64> = u16s
        .to_vec::<u16>()
        .unwrap()
        .iter()
        .map(|&v| f64::from(v) * scale)
        .collect();
    assert_eq!(got, want);
}
