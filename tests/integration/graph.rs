//! The graph: names, scopes, control dependencies, lookup, collections, seeds, build-time
//! validation.

use std::sync::Arc;

use weir::graph::{graph_keys, CollectionItem};
use weir::prelude::*;

#[test]
fn names_are_made_unique_like_tensorflow() -> Result<()> {
    let g = Graph::new();
    let a = constant(&g, 1.0f32)?;
    let b = constant(&g, 2.0f32)?;
    let c = constant_named(&g, 3.0f32, "Const")?;
    assert_eq!(a.name(), "Const:0");
    assert_eq!(b.name(), "Const_1:0");
    assert_eq!(c.name(), "Const_2:0");
    let x = constant_named(&g, 1i32, "x")?;
    let x1 = constant_named(&g, 1i32, "x")?;
    assert_eq!(
        (x.name(), x1.name()),
        ("x:0".to_string(), "x_1:0".to_string())
    );
    // A user name that collides with a generated one is uniquified too.
    let x_1 = constant_named(&g, 1i32, "x_1")?;
    assert_eq!(x_1.name(), "x_1_1:0");
    Ok(())
}

#[test]
fn name_scopes_nest_and_are_unique() -> Result<()> {
    let g = Graph::new();
    {
        let _outer = g.name_scope("layer");
        let w = constant_named(&g, 1.0f32, "w")?;
        assert_eq!(w.name(), "layer/w:0");
        {
            let _inner = g.name_scope("inner");
            assert_eq!(constant(&g, 1.0f32)?.name(), "layer/inner/Const:0");
        }
    }
    let _again = g.name_scope("layer");
    assert_eq!(constant_named(&g, 1.0f32, "w")?.name(), "layer_1/w:0");
    Ok(())
}

#[test]
fn control_dependencies_apply_inside_the_guard_only() -> Result<()> {
    let g = Graph::new();
    let a = constant(&g, 1.0f32)?;
    let after = {
        let _deps = g.control_dependencies(&[a.op()])?;
        constant(&g, 2.0f32)?
    };
    let free = constant(&g, 3.0f32)?;
    assert_eq!(after.op().control_inputs(), vec![a.op()]);
    assert!(free.op().control_inputs().is_empty());
    let other = Graph::new();
    let foreign = constant(&other, 1.0f32)?;
    assert!(g.control_dependencies(&[foreign.op()]).is_err());
    Ok(())
}

#[test]
fn lookup_by_name() -> Result<()> {
    let g = Graph::new();
    let x = Placeholder::new(DType::F32).name("x").build(&g)?;
    assert_eq!(g.tensor_by_name("x:0")?, x);
    assert_eq!(g.operation_by_name("x").unwrap(), x.op());
    assert!(g.tensor_by_name("x").unwrap_err().is_invalid_argument());
    assert!(g.tensor_by_name("y:0").unwrap_err().is_not_found());
    assert!(g.tensor_by_name("x:1").unwrap_err().is_not_found());
    Ok(())
}

#[test]
fn collections_hold_ops_outputs_and_objects() -> Result<()> {
    let g = Graph::new();
    let c = constant(&g, 1.0f32)?;
    g.add_to_collection(graph_keys::SUMMARIES, c.clone())?;
    g.add_to_collection(graph_keys::INIT_OP, c.op())?;
    g.add_object_to_collection("mine", Arc::new(42u32));
    assert!(
        matches!(&g.get_collection(graph_keys::SUMMARIES)[..], [CollectionItem::Output(o)] if *o == c)
    );
    assert!(
        matches!(&g.get_collection(graph_keys::INIT_OP)[..], [CollectionItem::Operation(o)] if *o == c.op())
    );
    assert_eq!(*g.get_collection_of::<u32>("mine")[0], 42);
    assert!(g.get_collection("nothing").is_empty());
    assert_eq!(graph_keys::TABLE_INITIALIZERS, "table_initializer");
    let other = Graph::new();
    let foreign = constant(&other, 1.0f32)?;
    assert!(g.add_to_collection("x", foreign).is_err());
    Ok(())
}

#[test]
fn graph_seed_follows_get_seed_rules() {
    let g = Graph::new();
    assert_eq!(g.get_seed(None), (0, 0));
    assert_eq!(g.get_seed(Some(42)), (87654321, 42));
    g.set_random_seed(7);
    assert_eq!(g.get_seed(Some(3)), (7, 3));
    let (s1, s2) = g.get_seed(None);
    assert_eq!(s1, 7);
    assert_eq!(s2, g.num_nodes() as i64);
    let z = Graph::new();
    z.set_random_seed(0);
    assert_eq!(z.get_seed(Some(0)), (0, i32::MAX as i64));
}

#[test]
fn builders_validate_dtypes_and_shapes_naming_the_node() -> Result<()> {
    let g = Graph::new();
    let f = constant(&g, [1.0f32, 2.0])?;
    let i = constant(&g, [1i32, 2])?;
    let e = add(&f, &i).unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(e.node().unwrap().name, "AddV2");
    assert!(e.message().contains("does not match expected type"), "{e}");

    let a = constant(&g, Tensor::from_vec(&[2, 3], vec![0.0f32; 6])?)?;
    let b = constant(&g, Tensor::from_vec(&[4], vec![0.0f32; 4])?)?;
    let e = add(&a, &b).unwrap_err();
    assert!(e.message().contains("Dimensions must be equal"), "{e}");

    // An unknown dimension stays unknown.
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, Some(3)]))?;
    assert_eq!(add(&p, &a)?.shape(), Shape::known(&[2, 3]));
    let q = placeholder(&g, DType::F32, Shape::new(vec![None, None]))?;
    assert_eq!(add(&p, &q)?.shape(), Shape::new(vec![None, Some(3)]));

    let e = matmul(&a, &a).unwrap_err();
    assert!(e.message().contains("Dimensions must be equal"), "{e}");
    Ok(())
}

#[test]
fn inputs_from_another_graph_are_rejected() -> Result<()> {
    let g1 = Graph::new();
    let g2 = Graph::new();
    let a = constant(&g1, 1.0f32)?;
    let b = constant(&g2, 1.0f32)?;
    let e = add(&a, &b).unwrap_err();
    assert!(e.is_invalid_argument());
    assert!(e.message().contains("same graph"), "{e}");
    Ok(())
}

#[test]
fn unknown_op_type_and_missing_kernel_are_named() {
    let g = Graph::new();
    let e = g.new_operation("NoSuchOp").build().unwrap_err();
    assert!(e.is_not_found());
    assert!(e.message().contains("NoSuchOp"), "{e}");

    weir::graph::registry::register_op(weir::graph::OpDef::new("KernellessOpForTest"));
    let op = g.new_operation("KernellessOpForTest").build().unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.run_target(&op).unwrap_err();
    assert!(e.is_not_found());
    assert!(e.message().contains("KernellessOpForTest"), "{e}");
    assert_eq!(e.node().unwrap().name, "KernellessOpForTest");
}

#[test]
fn operator_overloading_reads_naturally() -> Result<()> {
    let g = Graph::new();
    let x = constant(&g, Tensor::from_vec(&[1, 2], vec![1.0f32, 2.0])?)?;
    let w = constant(&g, Tensor::from_vec(&[2, 1], vec![3.0f32, 4.0])?)?;
    let b = constant(&g, [0.5f32])?;
    let y = (x.matmul(&w)? + &b)?;
    let z = ((2.0 * &y)? - 1.0)?;
    let r = (&z / 2.0)?;
    let sess = Session::new(&g)?;
    assert_eq!(sess.eval(&r)?.to_vec::<f32>()?, vec![11.0]);
    let n = constant(&g, 3i32)?;
    assert!((&n * 2.5).is_err(), "2.5 does not fit int32");
    assert_eq!(sess.eval((&n * 2)?)?.to_scalar::<i32>()?, 6);
    Ok(())
}
