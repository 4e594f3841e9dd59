//! The README's example, kept compiling and correct.

use weir::prelude::*;

#[test]
fn readme_example() -> Result<()> {
    let g = Graph::new();
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(2)]))
        .name("x")
        .build(&g)?;
    let w = Variable::builder(constant(&g, Tensor::from_vec(&[2, 1], vec![2.0f32, 3.0])?)?)
        .name("w")
        .build()?;
    let y = (x.matmul(&w)? + 1.0)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let out = sess.run(
        &RunArgs::new()
            .feed(&x, Tensor::from_vec(&[1, 2], vec![1.0f32, 1.0])?)
            .fetch(&y),
    )?;
    assert_eq!(out[0].to_string(), "[[6]]");
    Ok(())
}
