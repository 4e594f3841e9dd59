//! crop_to_bounding_box, pad_to_bounding_box and resize_image_with_crop_or_pad: values against
//! TensorFlow's definitions (offsets rounded down), batched images, TensorFlow's errors, and
//! zero_fraction.

use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::image::{crop_to_bounding_box, pad_to_bounding_box, resize_image_with_crop_or_pad};
use weir_ops::nn::zero_fraction;
use weir_session::Session;

/// An `h x w x 1` image holding 1, 2, ... row by row (no zeros, so padding shows).
fn image(g: &Graph, h: usize, w: usize) -> Output {
    let v: Vec<i32> = (1..=(h * w) as i32).collect();
    constant(g, Tensor::from_vec(&[h, w, 1], v).unwrap()).unwrap()
}

fn eval(g: &Graph, o: &Output) -> (Vec<usize>, Vec<i32>) {
    let t = Session::new(g).unwrap().eval(o).unwrap();
    (t.shape().to_vec(), t.to_vec::<i32>().unwrap())
}

#[test]
fn crop_takes_the_window_at_the_offsets() {
    let g = Graph::new();
    let y = crop_to_bounding_box(image(&g, 4, 5), 1, 2, 2, 2).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 2, 1]));
    assert_eq!(eval(&g, &y), (vec![2, 2, 1], vec![8, 9, 13, 14]));
}

#[test]
fn pad_places_the_image_in_a_zero_canvas() {
    let g = Graph::new();
    let y = pad_to_bounding_box(image(&g, 2, 2), 1, 0, 4, 3).unwrap();
    assert_eq!(
        eval(&g, &y),
        (vec![4, 3, 1], vec![0, 0, 0, 1, 2, 0, 3, 4, 0, 0, 0, 0])
    );
}

#[test]
fn crop_or_pad_centres_each_dimension_rounding_offsets_down() {
    let g = Graph::new();
    // Height 5 -> 2: crop from row 1 (3 // 2). Width 2 -> 5: pad 1 before, 2 after.
    let y = resize_image_with_crop_or_pad(image(&g, 5, 2), 2, 5).unwrap();
    assert_eq!(
        eval(&g, &y),
        (vec![2, 5, 1], vec![0, 3, 4, 0, 0, 0, 5, 6, 0, 0])
    );
    // Same size: unchanged.
    let same = resize_image_with_crop_or_pad(image(&g, 3, 3), 3, 3).unwrap();
    assert_eq!(eval(&g, &same).1, (1..=9).collect::<Vec<i32>>());
}

#[test]
fn batched_images_are_cropped_and_padded_alike() {
    let g = Graph::new();
    let v: Vec<f32> = (0..2 * 4 * 4 * 3).map(|i| i as f32).collect();
    let x = constant(&g, Tensor::from_vec(&[2, 4, 4, 3], v.clone()).unwrap()).unwrap();
    let y = resize_image_with_crop_or_pad(&x, 2, 6).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 2, 6, 3]));
    let t = Session::new(&g).unwrap().eval(&y).unwrap();
    let got = t.to_vec::<f32>().unwrap();
    for n in 0..2 {
        for r in 0..2 {
            for c in 0..6 {
                for ch in 0..3 {
                    let at = ((n * 2 + r) * 6 + c) * 3 + ch;
                    let want = if (1..5).contains(&c) {
                        v[((n * 4 + r + 1) * 4 + c - 1) * 3 + ch]
                    } else {
                        0.0
                    };
                    assert_eq!(got[at], want, "n{n} r{r} c{c} ch{ch}");
                }
            }
        }
    }
}

#[test]
fn bad_boxes_are_refused_in_tensorflows_words() {
    let g = Graph::new();
    let x = image(&g, 4, 4);
    for (r, msg) in [
        (
            crop_to_bounding_box(&x, 0, -1, 2, 2),
            "offset_width must be >= 0.",
        ),
        (
            crop_to_bounding_box(&x, 0, 0, 0, 2),
            "target_height must be > 0.",
        ),
        (
            crop_to_bounding_box(&x, 0, 3, 2, 2),
            "width must be >= target + offset.",
        ),
        (
            crop_to_bounding_box(&x, 3, 0, 2, 2),
            "height must be >= target + offset.",
        ),
        (
            pad_to_bounding_box(&x, -1, 0, 5, 5),
            "offset_height must be >= 0",
        ),
        (
            pad_to_bounding_box(&x, 0, 2, 5, 5),
            "width must be <= target - offset",
        ),
        (
            resize_image_with_crop_or_pad(&x, 2, 0),
            "target_width must be > 0.",
        ),
    ] {
        let e = r.err().unwrap();
        assert!(e.is_invalid_argument());
        assert_eq!(e.message(), msg);
    }
    let flat = placeholder(&g, DType::F32, Shape::known(&[4, 4])).unwrap();
    let e = crop_to_bounding_box(&flat, 0, 0, 2, 2).err().unwrap();
    assert_eq!(
        e.message(),
        "'image' (shape (4, 4)) must have either 3 or 4 dimensions."
    );
}

#[test]
fn zero_fraction_is_the_share_of_zeros() {
    let g = Graph::new();
    let x = constant(
        &g,
        Tensor::from_vec(&[2, 4], vec![0.0f32, 1.0, -0.0, 2.0, 0.0, 0.0, 3.0, 0.0]).unwrap(),
    )
    .unwrap();
    let f = zero_fraction(&x).unwrap();
    assert_eq!(f.name(), "zero_fraction/fraction:0");
    let v = Session::new(&g).unwrap().eval(&f).unwrap();
    assert_eq!(
        (v.dtype(), v.to_scalar::<f32>().unwrap()),
        (DType::F32, 0.625)
    );
    let ints = constant(&g, Tensor::from(vec![0i32, 5])).unwrap();
    let f = zero_fraction(&ints).unwrap();
    assert_eq!(
        Session::new(&g)
            .unwrap()
            .eval(&f)
            .unwrap()
            .to_scalar::<f32>()
            .unwrap(),
        0.5
    );
}
