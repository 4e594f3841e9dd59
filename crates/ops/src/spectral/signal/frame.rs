//! `tf.signal.frame` and `tf.signal.overlap_and_add` for signals whose framed dims are known
//! when the graph is built (weir computes the frame count then, where TensorFlow's Python
//! builds it from shape ops).

use weir_graph::{Error, Output, Result, Shape, Tensor};

use crate::array::{constant, gather, reshape, slice, transpose, Pad};
use crate::math::reduce_sum;

/// The options of `tf.signal.frame(signal, frame_length, frame_step, pad_end=False,
/// pad_value=0, axis=-1)`.
#[derive(Clone, Debug)]
pub struct Frame {
    frame_length: usize,
    frame_step: usize,
    pad_end: bool,
    pad_value: f64,
    axis: i64,
}

/// `tf.signal.frame(signal, frame_length, frame_step)`: windows of `frame_length` samples every
/// `frame_step` along the last axis, dropping a partial last frame.
pub fn frame(signal: impl Into<Output>, frame_length: usize, frame_step: usize) -> Result<Output> {
    Frame::new(frame_length, frame_step).build(signal)
}

/// The dims of `x` with the given one known.
fn known_dims(x: &Output, what: &str) -> Result<Vec<usize>> {
    x.shape().to_known().ok_or_else(|| {
        Error::unimplemented(format!(
            "weir's {what} needs a signal of known shape, got {}",
            x.shape()
        ))
    })
}

impl Frame {
    /// TensorFlow's defaults: no end padding, the last axis.
    pub fn new(frame_length: usize, frame_step: usize) -> Frame {
        Frame {
            frame_length,
            frame_step,
            pad_end: false,
            pad_value: 0.0,
            axis: -1,
        }
    }

    /// Pads the end with `pad_value` so that every sample starts a frame's worth of frames.
    pub fn pad_end(mut self, pad_end: bool) -> Frame {
        self.pad_end = pad_end;
        self
    }

    /// The value end padding fills with.
    pub fn pad_value(mut self, v: f64) -> Frame {
        self.pad_value = v;
        self
    }

    /// The axis to frame (negative counts from the end).
    pub fn axis(mut self, axis: i64) -> Frame {
        self.axis = axis;
        self
    }

    /// Adds the nodes: the output has `axis` replaced by `[frames, frame_length]`.
    pub fn build(self, signal: impl Into<Output>) -> Result<Output> {
        let x = signal.into();
        let g = x.graph().clone();
        let rank = x.shape().rank().ok_or_else(|| {
            Error::unimplemented("weir's frame needs a signal of known rank".to_string())
        })?;
        if rank == 0 {
            return Err(Error::invalid_argument(
                "Shape () must have rank at least 1".to_string(),
            ));
        }
        let axis = if self.axis < 0 {
            self.axis + rank as i64
        } else {
            self.axis
        };
        if axis < 0 || axis >= rank as i64 {
            return Err(Error::invalid_argument(format!(
                "axis {} is out of range for a signal of rank {rank}",
                self.axis
            )));
        }
        let axis = axis as usize;
        let len = x.shape().dim(axis as isize).ok_or_else(|| {
            Error::unimplemented(format!(
                "weir's frame needs the length of axis {axis} known, got {}",
                x.shape()
            ))
        })? as i64;
        let (fl, fs) = (self.frame_length as i64, self.frame_step as i64);
        if fs == 0 {
            return Err(Error::invalid_argument(
                "frame_step must be positive".to_string(),
            ));
        }
        let _scope = g.name_scope("frame");
        let mut x = x;
        let frames = if self.pad_end {
            let frames = (len + fs - 1) / fs;
            let pad = (fl + fs * (frames - 1) - len).max(0);
            if pad > 0 {
                let mut paddings = vec![[0i64, 0]; rank];
                paddings[axis][1] = pad;
                x = Pad::new()
                    .constant_values(self.pad_value)
                    .build(&x, &paddings)?;
            }
            frames
        } else {
            // Python's floor division: a signal shorter than a frame has no frames.
            (1 + (len - fl).div_euclid(fs)).max(0)
        };
        let idx: Vec<i32> = (0..frames)
            .flat_map(|f| (0..fl).map(move |j| (f * fs + j) as i32))
            .collect();
        let idx = constant(&g, Tensor::from_vec(&[frames as usize, fl as usize], idx)?)?;
        gather(&x, &idx, axis as i64)
    }
}

/// `tf.signal.overlap_and_add(signal, frame_step)`: frames `[..., frames, frame_length]` summed
/// into `[..., (frames - 1) * frame_step + frame_length]`, frame `i` starting at sample
/// `i * frame_step`; built from pad, reshape, transpose, slice and sum as TensorFlow builds it.
pub fn overlap_and_add(signal: impl Into<Output>, frame_step: usize) -> Result<Output> {
    let x = signal.into();
    let g = x.graph().clone();
    let dims = known_dims(&x, "overlap_and_add")?;
    if dims.len() < 2 {
        return Err(Error::invalid_argument(format!(
            "Shape {} must have rank at least 2",
            x.shape()
        )));
    }
    if frame_step == 0 {
        return Err(Error::invalid_argument(
            "frame_step must be positive".to_string(),
        ));
    }
    let _scope = g.name_scope("overlap_and_add");
    let r = dims.len() - 2;
    let outer: Vec<i64> = dims[..r].iter().map(|&d| d as i64).collect();
    let full = |inner: &[i64]| -> Vec<i64> { outer.iter().chain(inner).copied().collect() };
    let (frames, fl, fs) = (dims[r] as i64, dims[r + 1] as i64, frame_step as i64);
    let out_len = fl + fs * (frames - 1);
    if fs == fl {
        return reshape(&x, full(&[out_len]));
    }
    let segments = (fl + fs - 1) / fs;
    let mut paddings = vec![[0i64, 0]; r + 2];
    paddings[r] = [0, segments];
    paddings[r + 1] = [0, segments * fs - fl];
    let x = crate::array::pad(&x, &paddings)?;
    let x = reshape(&x, full(&[frames + segments, segments, fs]))?;
    let mut perm: Vec<i64> = (0..r as i64).collect();
    perm.extend([r as i64 + 1, r as i64, r as i64 + 2]);
    let x = transpose(&x, perm)?;
    let x = reshape(&x, full(&[(frames + segments) * segments, fs]))?;
    let zeros = vec![0i64; r + 2];
    let x = slice(
        &x,
        zeros.clone(),
        full(&[(frames + segments - 1) * segments, fs]),
    )?;
    let x = reshape(&x, full(&[segments, frames + segments - 1, fs]))?;
    let x = reduce_sum(&x, -3i64)?;
    let x = reshape(&x, full(&[(frames + segments - 1) * fs]))?;
    let out = slice(&x, vec![0i64; r + 1], full(&[out_len]))?;
    debug_assert!(out
        .shape()
        .is_compatible_with(&Shape::from_i64(&full(&[out_len]))));
    Ok(out)
}
