//! `Session.make_callable`: one step, its fetches, targets and fed tensors fixed up front, run
//! with new feed values on each call.

use std::sync::OnceLock;

use weir_graph::{Error, Operation, Output, Result, Tensor};

use crate::{RunArgs, SessionHandle};

/// A step of a session to run again and again with new feed values: TensorFlow's
/// `sess.make_callable(fetches, feed_list)`. The run plan is found on the first call and every
/// later call reuses it; calls may come from many threads at once.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::array::placeholder;
/// # use weir_ops::math::mul;
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::unknown())?;
/// let y = mul(&x, &x)?;
/// let sess = Session::new(&g)?;
/// let square = sess.make_callable(&[y], &[], &[x])?;
/// let out = square.call(&[Tensor::from(vec![3.0f32])])?;
/// assert_eq!(out[0].to_vec::<f32>()?, vec![9.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Callable {
    session: SessionHandle,
    run: PreparedRun,
}

/// A run whose feeds and fetches are fixed, remembering its plan after the first call: what a
/// [`Callable`] and a function of the graph called by a kernel share.
pub(crate) struct PreparedRun {
    feeds: usize,
    template: RunArgs,
    /// The template once a run has found its plan, which its clones carry.
    primed: OnceLock<RunArgs>,
}

impl PreparedRun {
    pub(crate) fn new(fetches: &[Output], targets: &[Operation], feed_list: &[Output]) -> Self {
        let mut template = RunArgs::new();
        for f in feed_list {
            // Each call replaces the value; the key is what the plan needs.
            template = template.feed(f, Tensor::scalar(0i32));
        }
        for f in fetches {
            template = template.fetch(f);
        }
        for t in targets {
            template = template.target(t);
        }
        PreparedRun {
            feeds: feed_list.len(),
            template,
            primed: OnceLock::new(),
        }
    }

    /// Runs in `session` with `feeds`, one value per fed tensor, in order.
    pub(crate) fn call(&self, session: &SessionHandle, feeds: &[Tensor]) -> Result<Vec<Tensor>> {
        self.call_with(session, feeds, None, None)
    }

    /// [`call`](Self::call), waiting on `cancellation` (a child of the session's close token)
    /// when given.
    pub(crate) fn call_with(
        &self,
        session: &SessionHandle,
        feeds: &[Tensor],
        cancellation: Option<weir_graph::CancellationToken>,
        deadline: Option<std::time::Instant>,
    ) -> Result<Vec<Tensor>> {
        if feeds.len() != self.feeds {
            return Err(Error::invalid_argument(format!(
                "The callable takes {} feed values, got {}",
                self.feeds,
                feeds.len()
            )));
        }
        let mut args = self.primed.get().unwrap_or(&self.template).clone();
        for (i, v) in feeds.iter().enumerate() {
            args.set_feed_value(i, v.clone());
        }
        args.cancellation = crate::run_args::RunCancellation(cancellation);
        if let Some(d) = deadline {
            // The caller's run's deadline: what is left of it bounds this run.
            let left = d.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(weir_graph::deadline_exceeded());
            }
            args.timeout = Some(left);
        }
        let out = session.run(&args)?;
        if self.primed.get().is_none() {
            // Keep the plan, not this call's values.
            for i in 0..self.feeds {
                args.set_feed_value(i, Tensor::scalar(0i32));
            }
            args.cancellation = crate::run_args::RunCancellation(None);
            args.timeout = self.template.timeout;
            let _ = self.primed.set(args);
        }
        Ok(out)
    }
}

impl SessionHandle {
    /// `sess.make_callable(fetches, feed_list)`: a [`Callable`] that runs the step fetching
    /// `fetches` and running `targets`, feeding the tensors of `feed_list` in that order.
    pub fn make_callable(
        &self,
        fetches: &[Output],
        targets: &[Operation],
        feed_list: &[Output],
    ) -> Result<Callable> {
        Ok(Callable {
            session: self.clone(),
            run: PreparedRun::new(fetches, targets, feed_list),
        })
    }
}

impl Callable {
    /// Runs the step with `feeds`, one value per tensor of the feed list, in order; returns
    /// the fetched values in the order of the fetches.
    pub fn call(&self, feeds: &[Tensor]) -> Result<Vec<Tensor>> {
        self.run.call(&self.session, feeds)
    }
}

#[cfg(test)]
mod tests {
    use weir_graph::{Code, DType, Graph, Shape, Tensor};
    use weir_ops::array::{constant, placeholder};
    use weir_ops::math::{add, mul};
    use weir_ops::state::Variable;

    use crate::Session;

    #[test]
    fn a_callable_runs_its_step_with_each_calls_feeds() {
        weir_ops::register_all_ops();
        let g = Graph::new();
        let x = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
        let y = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
        let sum = add(mul(&x, &x).unwrap(), &y).unwrap();
        let sess = Session::new(&g).unwrap();
        let f = sess
            .make_callable(&[sum.clone(), x.clone()], &[], &[x, y])
            .unwrap();
        for (a, b) in [
            (vec![1.0f32, 2.0], vec![10.0f32, 20.0]),
            (vec![3.0], vec![0.5]),
        ] {
            let out = f
                .call(&[Tensor::from(a.clone()), Tensor::from(b.clone())])
                .unwrap();
            let want: Vec<f32> = a.iter().zip(&b).map(|(a, b)| a * a + b).collect();
            assert_eq!(out[0].to_vec::<f32>().unwrap(), want);
            assert_eq!(out[1].to_vec::<f32>().unwrap(), a);
        }
        let e = f.call(&[Tensor::from(vec![1.0f32])]).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(e.message(), "The callable takes 2 feed values, got 1");
        // A fed value of the wrong dtype is refused as a run refuses it.
        let e = f
            .call(&[Tensor::from(vec![1i32]), Tensor::from(vec![1.0f32])])
            .unwrap_err();
        assert!(
            e.message().starts_with("Cannot feed value of dtype int32"),
            "{e}"
        );
        // Threads share one callable.
        std::thread::scope(|s| {
            for t in 0..4 {
                let f = &f;
                s.spawn(move || {
                    for k in 0..50 {
                        let v = (t * 100 + k) as f32;
                        let out = f
                            .call(&[Tensor::from(vec![v]), Tensor::from(vec![1.0f32])])
                            .unwrap();
                        assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![v * v + 1.0]);
                    }
                });
            }
        });
        sess.close();
        assert_eq!(
            f.call(&[Tensor::from(vec![1.0f32]), Tensor::from(vec![1.0f32])])
                .unwrap_err()
                .code(),
            Code::FailedPrecondition
        );
    }

    #[test]
    fn a_callable_with_a_target_and_no_feeds_runs_it_each_call() {
        weir_ops::register_all_ops();
        let g = Graph::new();
        let v = Variable::builder(constant(&g, 0i32).unwrap())
            .build()
            .unwrap();
        let bump = v.assign_add(constant(&g, 1i32).unwrap()).unwrap();
        let sess = Session::new(&g).unwrap();
        sess.run_target(&v.initializer()).unwrap();
        let f = sess.make_callable(&[], &[bump.op()], &[]).unwrap();
        for _ in 0..3 {
            assert!(f.call(&[]).unwrap().is_empty());
        }
        assert_eq!(sess.eval(v.value()).unwrap().to_scalar::<i32>().unwrap(), 3);
    }
}
