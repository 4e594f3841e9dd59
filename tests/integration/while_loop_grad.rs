//! Gradients through `tf.while_loop`: a backward loop that pops each forward iteration's values
//! from stacks, as TensorFlow 1 builds it. Every expected value is what TensorFlow 2.21 gave for
//! the same graph (`tf.compat.v1`, control flow v1), within float32 rounding.

use weir::ops::math::floormod;
use weir::ops::nn::relu;
use weir::prelude::*;

fn close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (a, b) in got.iter().zip(want) {
        assert!(
            (a - b).abs() <= 2e-5 * b.abs().max(1.0),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

fn i32s(g: &Graph, v: i32) -> Result<Output> {
    constant(g, v)
}

#[test]
fn the_gradient_of_a_variable_squared_three_times() -> Result<()> {
    // v <- v * v, three times from x = 1.5: x^8, and 8 x^7.
    let g = Graph::new();
    let x = constant(&g, 1.5f32)?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 3)?),
        |v| Ok(vec![add(&v[0], &i32s(&g, 1)?)?, mul(&v[1], &v[1])?]),
        &[i32s(&g, 0)?, x.clone()],
    )?;
    let dx = gradients(&[out[1].clone()], &[x], None)?[0]
        .clone()
        .unwrap();
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().fetch(&out[1]).fetch(&dx))?;
    close(&[r[0].to_scalar::<f32>()?], &[25.628_906], "value");
    close(&[r[1].to_scalar::<f32>()?], &[136.6875], "gradient");
    Ok(())
}

#[test]
fn values_read_from_outside_get_the_sum_of_every_iteration_s_gradient() -> Result<()> {
    // v <- v * w + x three times, w = sum(x): x reaches v through the initial zeros' path, w
    // and its own use in every iteration.
    let g = Graph::new();
    let x = constant(&g, vec![1.0f32, 2.0, 0.5])?;
    let w = reduce_sum(&x, Axes::All)?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 3)?),
        |v| Ok(vec![add(&v[0], &i32s(&g, 1)?)?, add(&mul(&v[1], &w)?, &x)?]),
        &[i32s(&g, 0)?, zeros(&g, DType::F32, &[3])?],
    )?;
    let y = reduce_sum(&mul(&out[1], &out[1])?, Axes::All)?;
    let dx = gradients(std::slice::from_ref(&y), &[x], None)?[0]
        .clone()
        .unwrap();
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().fetch(&y).fetch(&dx))?;
    close(&[r[0].to_scalar::<f32>()?], &[1_472.953_1], "value");
    close(
        &r[1].to_vec::<f32>()?,
        &[1968.125, 2529.25, 1687.5625],
        "gradient",
    );
    Ok(())
}

/// h <- tanh(h W + xs[i]) over the rows of xs; loss = sum(h^2).
fn rnn(g: &Graph) -> Result<(Variable, Output, Output)> {
    let xs = Tensor::from_vec(&[4, 2], vec![0.5f32, -1.0, 1.0, 0.25, -0.5, 2.0, 0.1, 0.2])?;
    let xs = constant(g, xs)?;
    let w0 = Tensor::from_vec(&[2, 2], vec![0.3f32, -0.2, 0.4, 0.1])?;
    let w = Variable::builder(constant(g, w0)?).name("W").build()?;
    let h0 = constant(g, Tensor::from_vec(&[1, 2], vec![0.1f32, -0.3])?)?;
    let n = gather(&shape(&xs)?, &i32s(g, 0)?, 0)?;
    let wv = w.value();
    let out = while_loop(
        |v| less(&v[0], &n),
        |v| {
            let row = expand_dims(&gather(&xs, &v[0], 0)?, 0)?;
            let h = tanh(&add(&matmul(&v[1], &wv)?, &row)?)?;
            Ok(vec![add(&v[0], &i32s(g, 1)?)?, h])
        },
        &[i32s(g, 0)?, h0.clone()],
    )?;
    let loss = reduce_sum(&mul(&out[1], &out[1])?, Axes::All)?;
    Ok((w, h0, loss))
}

#[test]
fn a_recurrent_network_trains_through_its_loop_as_in_tensorflow() -> Result<()> {
    let g = Graph::new();
    let (w, h0, loss) = rnn(&g)?;
    let grads = gradients(std::slice::from_ref(&loss), &[w.value(), h0], None)?;
    let (gw, gh0) = (grads[0].clone().unwrap(), grads[1].clone().unwrap());
    let step = GradientDescentOptimizer::new(0.5).minimize(&loss, None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&w.initializer())?;
    let r = sess.run(&RunArgs::new().fetch(&loss).fetch(&gw).fetch(&gh0))?;
    close(&[r[0].to_scalar::<f32>()?], &[0.258_610_43], "loss");
    close(
        &r[1].to_vec::<f32>()?,
        &[-0.116_482_24, -0.120_460_75, 0.625_409_84, 0.542_783_4],
        "dW",
    );
    close(
        &r[2].to_vec::<f32>()?,
        &[-0.001_455_411_4, -0.000_979_749_1],
        "dh0",
    );
    let mut losses = Vec::new();
    for _ in 0..3 {
        let r = sess.run(&RunArgs::new().fetch(&loss).target(&step))?;
        losses.push(r[0].to_scalar::<f32>()?);
    }
    close(
        &losses,
        &[0.258_610_43, 0.017_493_943, 0.000_111_768_61],
        "losses",
    );
    close(
        &sess.eval(w.value())?.to_vec::<f32>()?,
        &[0.353_631_8, -0.126_984_27, -0.026_013_775, -0.238_708_54],
        "W after",
    );
    Ok(())
}

#[test]
fn adam_trains_a_variable_read_in_every_iteration() -> Result<()> {
    // acc <- acc * 0.5 + V * i for i in 0..4; loss = sum(acc^2).
    let g = Graph::new();
    let v = Variable::builder(constant(&g, vec![1.0f32, -0.5])?)
        .name("V")
        .build()?;
    let vv = v.value();
    let out = while_loop(
        |x| less(&x[0], &i32s(&g, 4)?),
        |x| {
            let i = cast(&x[0], DType::F32)?;
            let acc = add(&mul(&x[1], &constant(&g, 0.5f32)?)?, &mul(&vv, &i)?)?;
            Ok(vec![add(&x[0], &i32s(&g, 1)?)?, acc])
        },
        &[i32s(&g, 0)?, zeros(&g, DType::F32, &[2])?],
    )?;
    let loss = reduce_sum(&mul(&out[1], &out[1])?, Axes::All)?;
    let gv = gradients(std::slice::from_ref(&loss), std::slice::from_ref(&vv), None)?[0]
        .clone()
        .unwrap();
    let step = AdamOptimizer::new(0.1).minimize(&loss, None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    close(&sess.eval(&gv)?.to_vec::<f32>()?, &[36.125, -18.0625], "dV");
    let mut losses = Vec::new();
    for _ in 0..3 {
        let r = sess.run(&RunArgs::new().fetch(&loss).target(&step))?;
        losses.push(r[0].to_scalar::<f32>()?);
    }
    close(&losses, &[22.578_125, 17.520_624, 13.210_447], "losses");
    close(
        &sess.eval(&vv)?.to_vec::<f32>()?,
        &[0.701_587_26, -0.204_872_25],
        "V after",
    );
    Ok(())
}

#[test]
fn a_cond_in_the_body_is_differentiated_along_the_branch_each_iteration_took() -> Result<()> {
    // v <- v * x on even iterations, v + x * x on odd ones, five times from x = 2.
    let g = Graph::new();
    let x = constant(&g, 2.0f32)?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 5)?),
        |v| {
            let even = equal(&floormod(&v[0], &i32s(&g, 2)?)?, &i32s(&g, 0)?)?;
            let y = cond(&even, || mul(&v[1], &x), || add(&v[1], &mul(&x, &x)?))?;
            Ok(vec![add(&v[0], &i32s(&g, 1)?)?, y])
        },
        &[i32s(&g, 0)?, x.clone()],
    )?;
    let dx = gradients(std::slice::from_ref(&out[1]), &[x], None)?[0]
        .clone()
        .unwrap();
    let r = Session::new(&g)?.run(&RunArgs::new().fetch(&out[1]).fetch(&dx))?;
    close(&[r[0].to_scalar::<f32>()?], &[40.0], "value");
    close(&[r[1].to_scalar::<f32>()?], &[76.0], "gradient");
    Ok(())
}

#[test]
fn a_recurrent_network_switching_its_activation_trains_as_in_tensorflow() -> Result<()> {
    // h <- tanh(h W + xs[i]) on even steps, relu(h W + xs[i]) * 0.5 on odd ones.
    let g = Graph::new();
    let xs = Tensor::from_vec(
        &[5, 2],
        vec![0.5f32, -1.0, 1.0, 0.25, -0.5, 2.0, 0.1, 0.2, 0.3, 0.3],
    )?;
    let xs = constant(&g, xs)?;
    let w0 = Tensor::from_vec(&[2, 2], vec![0.3f32, -0.2, 0.4, 0.1])?;
    let w = Variable::builder(constant(&g, w0)?).name("W").build()?;
    let wv = w.value();
    let h0 = constant(&g, Tensor::from_vec(&[1, 2], vec![0.1f32, -0.3])?)?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 5)?),
        |v| {
            let pre = add(
                &matmul(&v[1], &wv)?,
                &expand_dims(&gather(&xs, &v[0], 0)?, 0)?,
            )?;
            let even = equal(&floormod(&v[0], &i32s(&g, 2)?)?, &i32s(&g, 0)?)?;
            let h = cond(
                &even,
                || tanh(&pre),
                || mul(&relu(&pre)?, &constant(&g, 0.5f32)?),
            )?;
            Ok(vec![add(&v[0], &i32s(&g, 1)?)?, h])
        },
        &[i32s(&g, 0)?, h0],
    )?;
    let loss = reduce_sum(&mul(&out[1], &out[1])?, Axes::All)?;
    let gw = gradients(std::slice::from_ref(&loss), std::slice::from_ref(&wv), None)?[0]
        .clone()
        .unwrap();
    let step = GradientDescentOptimizer::new(0.5).minimize(&loss, None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&w.initializer())?;
    let r = sess.run(&RunArgs::new().fetch(&loss).fetch(&gw))?;
    close(&[r[0].to_scalar::<f32>()?], &[0.238_863_9], "loss");
    close(
        &r[1].to_vec::<f32>()?,
        &[0.103_962_11, 0.040_427_45, 0.173_865_59, 0.248_806_27],
        "dW",
    );
    let mut losses = Vec::new();
    for _ in 0..3 {
        losses.push(sess.run(&RunArgs::new().fetch(&loss).target(&step))?[0].to_scalar::<f32>()?);
    }
    close(
        &losses,
        &[0.238_863_9, 0.196_453_66, 0.178_562_79],
        "losses",
    );
    close(
        &sess.eval(&wv)?.to_vec::<f32>()?,
        &[0.168_526_92, -0.263_293_56, 0.230_113_28, -0.149_181_72],
        "W after",
    );
    Ok(())
}

#[test]
fn a_loop_in_a_loop_is_differentiated_iteration_by_iteration() -> Result<()> {
    // Three outer iterations of two inner ones of w * x: x^7, and 7 x^6.
    let g = Graph::new();
    let x = constant(&g, 2.0f32)?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 3)?),
        |v| {
            let inner = while_loop(
                |w| less(&w[0], &i32s(&g, 2)?),
                |w| Ok(vec![add(&w[0], &i32s(&g, 1)?)?, mul(&w[1], &x)?]),
                &[i32s(&g, 0)?, v[1].clone()],
            )?;
            Ok(vec![add(&v[0], &i32s(&g, 1)?)?, inner[1].clone()])
        },
        &[i32s(&g, 0)?, x.clone()],
    )?;
    let dx = gradients(std::slice::from_ref(&out[1]), &[x], None)?[0]
        .clone()
        .unwrap();
    let r = Session::new(&g)?.run(&RunArgs::new().fetch(&out[1]).fetch(&dx))?;
    close(&[r[0].to_scalar::<f32>()?], &[128.0], "value");
    close(&[r[1].to_scalar::<f32>()?], &[448.0], "gradient");

    // An inner loop of i + 1 steps of h <- tanh(h * w + xs[i] * (j + 1)) per outer step i.
    let g = Graph::new();
    let xs = constant(
        &g,
        Tensor::from_vec(&[3, 2], vec![0.5f32, -1.0, 1.0, 0.25, -0.5, 2.0])?,
    )?;
    let w = constant(&g, vec![0.3f32, -0.2])?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 3)?),
        |v| {
            let xt = gather(&xs, &v[0], 0)?;
            let steps = add(&v[0], &i32s(&g, 1)?)?;
            let inner = while_loop(
                |u| less(&u[0], &steps),
                |u| {
                    let j1 = cast(&add(&u[0], &i32s(&g, 1)?)?, DType::F32)?;
                    let h = tanh(&add(&mul(&u[1], &w)?, &mul(&xt, &j1)?)?)?;
                    Ok(vec![add(&u[0], &i32s(&g, 1)?)?, h])
                },
                &[i32s(&g, 0)?, v[1].clone()],
            )?;
            Ok(vec![add(&v[0], &i32s(&g, 1)?)?, inner[1].clone()])
        },
        &[i32s(&g, 0)?, constant(&g, vec![0.1f32, 0.2])?],
    )?;
    let loss = reduce_sum(&mul(&out[1], &out[1])?, Axes::All)?;
    let grads = gradients(std::slice::from_ref(&loss), &[w, xs], None)?;
    let r = Session::new(&g)?.run(
        &RunArgs::new()
            .fetch(&loss)
            .fetch(grads[0].as_ref().unwrap())
            .fetch(grads[1].as_ref().unwrap()),
    )?;
    close(&[r[0].to_scalar::<f32>()?], &[1.883_076_4], "loss");
    close(&r[1].to_vec::<f32>()?, &[0.170_663_61, 7.285_564e-5], "dw");
    close(
        &r[2].to_vec::<f32>()?,
        &[
            -2.188_895_2e-6,
            -1.069_382_4e-12,
            -0.000_200_259_54,
            -1.453_833_7e-10,
            -0.716_660_7,
            0.000_218_807_34,
        ],
        "dxs",
    );
    Ok(())
}

#[test]
fn map_fn_scan_and_foldl_are_differentiated_through_their_tensor_arrays() -> Result<()> {
    let g = Graph::new();
    let elems = constant(&g, vec![1.0f32, 2.0, -0.5, 3.0])?;
    let w = constant(&g, 0.5f32)?;
    let m = map_fn(
        |x| Ok(vec![add(&mul(&x[0], &x[0])?, &mul(&w, &x[0])?)?]),
        std::slice::from_ref(&elems),
    )?;
    let loss = reduce_sum(&mul(&m[0], &m[0])?, Axes::All)?;
    let gm = gradients(
        std::slice::from_ref(&loss),
        &[elems.clone(), w.clone()],
        None,
    )?;
    let s = ScanFn::new().initializer(&[constant(&g, 0.5f32)?]).build(
        |a, x| Ok(vec![add(&mul(&a[0], &x[0])?, &constant(&g, 1.0f32)?)?]),
        std::slice::from_ref(&elems),
    )?;
    let ls = reduce_sum(&s[0], Axes::All)?;
    let gs = gradients(
        std::slice::from_ref(&ls),
        std::slice::from_ref(&elems),
        None,
    )?;
    let f = Foldl::new().initializer(&[constant(&g, 0.0f32)?]).build(
        |a, x| Ok(vec![add(&a[0], &mul(&mul(&x[0], &x[0])?, &w)?)?]),
        std::slice::from_ref(&elems),
    )?;
    let gf = gradients(std::slice::from_ref(&f[0]), &[elems, w], None)?;
    let fetch = [
        loss,
        gm[0].clone().unwrap(),
        gm[1].clone().unwrap(),
        ls,
        gs[0].clone().unwrap(),
        f[0].clone(),
        gf[0].clone().unwrap(),
        gf[1].clone().unwrap(),
    ];
    let mut args = RunArgs::new();
    for t in &fetch {
        args = args.fetch(t);
    }
    let r = Session::new(&g)?.run(&args)?;
    let v = |i: usize| r[i].to_vec::<f32>().unwrap();
    close(&v(0), &[137.5], "map_fn loss");
    close(&v(1), &[7.5, 45.0, 0.0, 136.5], "map_fn d elems");
    close(&v(2), &[86.0], "map_fn d w");
    close(&v(3), &[2.5], "scan sum");
    close(&v(4), &[-0.5, -1.5, 16.0, -1.0], "scan d elems");
    close(&v(5), &[7.125], "foldl");
    close(&v(6), &[1.0, 2.0, -0.5, 3.0], "foldl d elems");
    close(&v(7), &[14.25], "foldl d w");
    Ok(())
}

#[test]
fn a_loop_writing_a_tensor_array_is_differentiated_as_in_tensorflow() -> Result<()> {
    // h <- tanh(h * xs[i] + 0.1), each h written to an array; loss = sum(stack^2) + sum(h).
    let g = Graph::new();
    let xs = constant(
        &g,
        Tensor::from_vec(&[3, 2], vec![0.5f32, -1.0, 1.0, 0.25, -0.5, 2.0])?,
    )?;
    let ta_in = TensorArray::new(DType::F32)
        .size(3)
        .build(&g)?
        .unstack(&xs)?;
    let ta_out = TensorArray::new(DType::F32).size(3).build(&g)?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 3)?),
        |v| {
            let h = tanh(&add(
                &mul(&v[1], &ta_in.read(&v[0])?)?,
                &constant(&g, 0.1f32)?,
            )?)?;
            let ta = ta_out.with_flow(&v[2]).write(&v[0], &h)?;
            Ok(vec![add(&v[0], &i32s(&g, 1)?)?, h, ta.flow().clone()])
        },
        &[
            i32s(&g, 0)?,
            constant(&g, vec![0.2f32, -0.4])?,
            ta_out.flow().clone(),
        ],
    )?;
    let stacked = ta_out.with_flow(&out[2]).stack()?;
    let loss = add(
        &reduce_sum(&mul(&stacked, &stacked)?, Axes::All)?,
        &reduce_sum(&out[1], Axes::All)?,
    )?;
    let gx = gradients(std::slice::from_ref(&loss), std::slice::from_ref(&xs), None)?[0]
        .clone()
        .unwrap();
    let r = Session::new(&g)?.run(&RunArgs::new().fetch(&loss).fetch(&gx))?;
    close(&[r[0].to_scalar::<f32>()?], &[1.051_272], "loss");
    close(
        &r[1].to_vec::<f32>()?,
        &[
            0.097_567_8,
            -0.549_134_25,
            0.022_276_469,
            1.518_297_8,
            0.262_719_7,
            0.320_079_4,
        ],
        "d xs",
    );
    Ok(())
}

#[test]
fn split_concat_write_and_read_pass_gradients_through_tensor_arrays() -> Result<()> {
    // loss = sum(concat(split(x, [2, 3]))^2) + sum(concat([a, b]) * [1..5]) + read(1) of a
    // written pair: dx = 2x, da = [1, 2], db = [3, 4, 5] + ones.
    let g = Graph::new();
    let x = constant(&g, vec![1.0f32, 2.0, 3.0, 4.0, 5.0])?;
    let (a, b) = (
        constant(&g, vec![1.0f32, -1.0])?,
        constant(&g, vec![0.5f32, 0.25, 2.0])?,
    );
    let split = TensorArray::new(DType::F32)
        .size(2)
        .infer_shape(false)
        .build(&g)?
        .split(&x, constant(&g, vec![2i64, 3])?)?;
    let y = split.concat()?;
    let pair = TensorArray::new(DType::F32)
        .size(2)
        .infer_shape(false)
        .clear_after_read(false)
        .build(&g)?
        .write(0, &a)?
        .write(1, &b)?;
    let joined = pair.concat()?;
    let weights = constant(&g, vec![1.0f32, 2.0, 3.0, 4.0, 5.0])?;
    let loss = add_n(&[
        reduce_sum(&mul(&y, &y)?, Axes::All)?,
        reduce_sum(&mul(&joined, &weights)?, Axes::All)?,
        reduce_sum(&pair.read(1)?, Axes::All)?,
    ])?;
    let grads = gradients(std::slice::from_ref(&loss), &[x, a, b], None)?;
    let mut args = RunArgs::new();
    for gr in &grads {
        args = args.fetch(gr.as_ref().unwrap());
    }
    let r = Session::new(&g)?.run(&args)?;
    close(&r[0].to_vec::<f32>()?, &[2.0, 4.0, 6.0, 8.0, 10.0], "dx");
    close(&r[1].to_vec::<f32>()?, &[1.0, 2.0], "da");
    close(&r[2].to_vec::<f32>()?, &[4.0, 5.0, 6.0], "db");
    Ok(())
}
