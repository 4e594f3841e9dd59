//! Tests of run plans: step order around blocking steps, and when the inter-op pool is used.

use std::sync::{Arc, Once};

use weir_graph::registry::register_op;
use weir_graph::{
    ArgType, AttrKind, DType, Graph, Kernel, OpContext, OpDef, Output, Result, Shape,
};

use super::{build_plan, has_independent_expensive, PlanKey};

/// A source of a given static shape, and an expensive product whose estimate is
/// rows(a) * cols(a) * cols(b), as MatMul's is.
fn register_test_ops() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        register_op(
            OpDef::new("PlanTestSource")
                .output("y", ArgType::Fixed(DType::F32))
                .attr("shape", AttrKind::Shape, None)
                .shape_fn(|ctx| {
                    let s: Shape = ctx.attr("shape")?;
                    ctx.set_output(0, s);
                    Ok(())
                }),
        );
        register_op(
            OpDef::new("PlanTestPass")
                .input("x", ArgType::Fixed(DType::F32))
                .output("y", ArgType::Fixed(DType::F32))
                .shape_fn(|ctx| {
                    let s = ctx.input_shape(0).clone();
                    ctx.set_output(0, s);
                    Ok(())
                }),
        );
        register_op(
            OpDef::new("PlanTestProduct")
                .input("a", ArgType::Fixed(DType::F32))
                .input("b", ArgType::Fixed(DType::F32))
                .output("y", ArgType::Fixed(DType::F32))
                .shape_fn(|ctx| {
                    ctx.set_output(0, Shape::unknown());
                    Ok(())
                }),
        );
    });
}

/// A source that may wait (a dequeue, a reader).
struct Wait;
impl Kernel for Wait {
    fn compute(&self, _: &mut OpContext<'_>) -> Result<()> {
        Ok(())
    }
    fn may_block(&self) -> bool {
        true
    }
}

struct Source;
impl Kernel for Source {
    fn compute(&self, _: &mut OpContext<'_>) -> Result<()> {
        Ok(())
    }
}

struct Product;
impl Kernel for Product {
    fn compute(&self, _: &mut OpContext<'_>) -> Result<()> {
        Ok(())
    }
    fn is_expensive(&self) -> bool {
        true
    }
    fn work_estimate(&self, inputs: &[Shape]) -> Option<u64> {
        let (a, b) = (inputs[0].to_known()?, inputs[1].to_known()?);
        Some((a[0] * a[1] * b[1]) as u64)
    }
}

/// The first output of a test node.
fn out(b: weir_graph::OpBuilder) -> Output {
    b.build().unwrap().output(0).unwrap()
}

fn source(g: &Graph, shape: Shape) -> Output {
    out(g.new_operation("PlanTestSource").attr("shape", shape))
}

fn product(g: &Graph, a: &Output, b: &Output) -> Output {
    out(g.new_operation("PlanTestProduct").input(a).input(b))
}

/// Whether the plan for `key` runs in parallel; `wait` is the node whose kernel may block.
fn plan_parallel(g: &Graph, key: &PlanKey, feed_shapes: &[&[usize]], wait: usize) -> bool {
    build_plan(g, key, feed_shapes, true, |node| {
        Ok(if node.op_type() == "PlanTestProduct" {
            Arc::new(Product) as Arc<dyn Kernel>
        } else if node.id() == wait {
            Arc::new(Wait)
        } else {
            Arc::new(Source)
        })
    })
    .unwrap()
    .parallel
}

/// Whether a plan fetching two independent products of `a` and `b` runs them in parallel.
fn two_products_parallel(a: Shape, b: Shape) -> bool {
    products_parallel(a, b, None)
}

/// The same, with `a` fed a value of shape `fed_a` when given.
fn products_parallel(a: Shape, b: Shape, fed_a: Option<&[usize]>) -> bool {
    register_test_ops();
    let g = Graph::new();
    let (x, y) = (source(&g, a), source(&g, b));
    // The products see `x` through an op whose shape function passes it on, so a fed
    // shape has to be carried through inference to reach them.
    let passed = out(g.new_operation("PlanTestPass").input(&x));
    let (p, q) = (product(&g, &passed, &y), product(&g, &passed, &y));
    let key = PlanKey {
        feeds: fed_a.map(|_| (x.node_id(), 0)).into_iter().collect(),
        fetches: vec![(p.node_id(), 0), (q.node_id(), 0)],
        targets: vec![],
    };
    let feed_shapes: Vec<&[usize]> = fed_a.into_iter().collect();
    plan_parallel(&g, &key, &feed_shapes, usize::MAX)
}

/// Whether a plan with a waiting source `w` and a product of `w`'s shape with itself runs
/// in parallel; `chained`: the product reads `w`, else two other sources.
fn waiting_plan_parallel(chained: bool) -> bool {
    register_test_ops();
    let g = Graph::new();
    let big = || Shape::known(&[1024, 1024]);
    let w = source(&g, big());
    let p = if chained {
        product(&g, &w, &w)
    } else {
        product(&g, &source(&g, big()), &source(&g, big()))
    };
    let key = PlanKey {
        feeds: vec![],
        fetches: vec![(w.node_id(), 0), (p.node_id(), 0)],
        targets: vec![],
    };
    plan_parallel(&g, &key, &[], w.node_id())
}

/// The node ids of the plan's steps, in order, when node `wait` may block.
fn step_order(g: &Graph, key: &PlanKey, wait: usize) -> Vec<usize> {
    build_plan(g, key, &[], true, |node| {
        Ok(if node.id() == wait {
            Arc::new(Wait) as Arc<dyn Kernel>
        } else {
            Arc::new(Source)
        })
    })
    .unwrap()
    .steps
    .iter()
    .map(|s| s.node.id())
    .collect()
}

#[test]
fn a_step_that_may_block_comes_after_the_steps_that_do_not_need_it() {
    register_test_ops();
    let g = Graph::new();
    let w = source(&g, Shape::scalar());
    let after_w = out(g.new_operation("PlanTestPass").input(&w));
    let x = source(&g, Shape::scalar());
    let after_x = out(g.new_operation("PlanTestPass").input(&x));
    let key = PlanKey {
        feeds: vec![],
        fetches: vec![(after_w.node_id(), 0), (after_x.node_id(), 0)],
        targets: vec![],
    };
    let ids = |o: &[&Output]| o.iter().map(|o| o.node_id()).collect::<Vec<_>>();
    // Inline, a failure in x's branch must not wait behind w (TensorFlow runs both at once).
    assert_eq!(
        step_order(&g, &key, w.node_id()),
        ids(&[&x, &after_x, &w, &after_w])
    );
    // Without a step that may block, node ids give the order.
    assert_eq!(
        step_order(&g, &key, usize::MAX),
        ids(&[&w, &after_w, &x, &after_x])
    );
}

#[test]
fn a_step_that_may_block_beside_independent_work_goes_parallel() {
    // Inline, the wait would hold up the product (and a failure there could not cancel it).
    assert!(waiting_plan_parallel(false));
    // A product that needs the waiting step's output cannot run beside it anyway.
    assert!(!waiting_plan_parallel(true));
}

#[test]
fn independent_small_products_run_inline_and_large_or_unknown_ones_in_parallel() {
    // 128x128x10, as in a small network's backward pass: not worth a hand-off.
    assert!(!two_products_parallel(
        Shape::known(&[128, 128]),
        Shape::known(&[128, 10])
    ));
    assert!(two_products_parallel(
        Shape::known(&[1024, 1024]),
        Shape::known(&[1024, 1024])
    ));
    // An unknown batch dimension: no estimate, so the products count as expensive.
    assert!(two_products_parallel(
        Shape::new(vec![None, Some(128)]),
        Shape::known(&[128, 10])
    ));
    // Unless the run feeds it: the fed shape gives the estimate.
    let unknown_batch = || Shape::new(vec![None, Some(128)]);
    let b = || Shape::known(&[128, 10]);
    assert!(!products_parallel(unknown_batch(), b(), Some(&[128, 128])));
    assert!(products_parallel(
        unknown_batch(),
        b(),
        Some(&[100_000, 128])
    ));
}

#[test]
fn a_chain_of_expensive_steps_runs_inline() {
    // 0 (cheap) -> 1 (expensive) -> 2 (cheap) -> 3 (expensive) -> 4 (expensive)
    let deps = vec![vec![], vec![0], vec![1], vec![2], vec![3]];
    let exp = [false, true, false, true, true];
    assert!(!has_independent_expensive(&exp, &deps));
    // One expensive step alone.
    assert!(!has_independent_expensive(
        &[true, false],
        &[vec![], vec![0]]
    ));
}

#[test]
fn independent_expensive_steps_go_parallel() {
    // 0 -> 1 (expensive) and 0 -> 2 (expensive), joined by 3.
    let deps = vec![vec![], vec![0], vec![0], vec![1, 2]];
    assert!(has_independent_expensive(
        &[false, true, true, false],
        &deps
    ));
    // A later expensive step that misses one earlier expensive ancestor.
    let deps = vec![vec![], vec![0], vec![0], vec![2]];
    assert!(has_independent_expensive(&[true, true, false, true], &deps));
}

#[test]
fn many_expensive_steps_span_several_words() {
    let n = 150;
    let chain: Vec<Vec<usize>> = (0..n)
        .map(|i| if i == 0 { vec![] } else { vec![i - 1] })
        .collect();
    assert!(!has_independent_expensive(&vec![true; n], &chain));
    let mut split = chain.clone();
    split[140] = vec![];
    assert!(has_independent_expensive(&vec![true; n], &split));
}
