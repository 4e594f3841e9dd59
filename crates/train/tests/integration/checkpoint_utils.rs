//! `load_checkpoint`, `list_variables`, `load_variable` and `init_from_checkpoint`: a new
//! model starts from a trained one's checkpoint, with TensorFlow's name mapping rules and its
//! errors (the cases and messages were checked against TensorFlow 2.21 by hand).

use std::path::PathBuf;

use weir_graph::{DType, Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::state::{global_variables, global_variables_initializer, Variable};
use weir_session::Session;
use weir_train::{
    init_from_checkpoint, list_variables, load_checkpoint, load_variable, variable_scope,
    GetVariable, InitFromCheckpoint, Initializer, Saver,
};

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-ckpt-utils-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Saves old/w [[1,2],[3,4]], old/b [0.5,-0.5] and old/inner/v [7] to `dir/model.ckpt`.
fn trained(dir: &std::path::Path) -> Result<String> {
    let g = Graph::new();
    let _s = variable_scope(&g, "old")?;
    GetVariable::new("w")
        .shape(&[2, 2])
        .initializer(Initializer::Constant(Tensor::from_vec(
            &[2, 2],
            vec![1.0f32, 2.0, 3.0, 4.0],
        )?))
        .build(&g)?;
    GetVariable::new("b")
        .shape(&[2])
        .initializer(Initializer::Constant(Tensor::from(vec![0.5f32, -0.5])))
        .build(&g)?;
    {
        let _i = variable_scope(&g, "inner")?;
        GetVariable::new("v")
            .shape(&[1])
            .initializer(Initializer::Constant(Tensor::from(vec![7.0f32])))
            .build(&g)?;
    }
    drop(_s);
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    Saver::new(&g)?.save(&sess, dir.join("model.ckpt").to_str().unwrap(), None)
}

fn values(g: &Graph) -> Vec<(String, Vec<f32>)> {
    let sess = Session::new(g).unwrap();
    sess.run_target(&global_variables_initializer(g).unwrap())
        .unwrap();
    global_variables(g)
        .unwrap()
        .iter()
        .map(|v| (v.name(), sess.eval(v).unwrap().to_vec::<f32>().unwrap()))
        .collect()
}

fn get(g: &Graph, name: &str, shape: &[usize]) -> Variable {
    GetVariable::new(name)
        .shape(shape)
        .initializer(Initializer::Zeros)
        .build(g)
        .unwrap()
}

#[test]
fn the_reader_lists_and_reads_a_checkpoint_or_a_directorys_newest() {
    let dir = temp_dir("reader");
    let path = trained(&dir).unwrap();
    assert_eq!(
        list_variables(&dir).unwrap(),
        vec![
            ("old/b".to_string(), vec![2]),
            ("old/inner/v".to_string(), vec![1]),
            ("old/w".to_string(), vec![2, 2]),
        ]
    );
    let reader = load_checkpoint(&path).unwrap();
    assert!(reader.has_tensor("old/w"));
    assert_eq!(reader.get_variable_to_dtype_map()["old/b"], DType::F32);
    assert_eq!(
        reader.get_tensor("old/w").unwrap().to_vec::<f32>().unwrap(),
        vec![1.0, 2.0, 3.0, 4.0]
    );
    let e = reader.get_tensor("old/zz").unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert_eq!(
        load_variable(&dir, "old/b:0")
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![0.5, -0.5]
    );
    let empty = temp_dir("empty");
    let e = load_checkpoint(&empty).unwrap_err();
    assert!(
        e.message().starts_with("Couldn't find 'checkpoint' file"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&empty).ok();
}

#[test]
fn a_scope_maps_onto_a_scope_and_others_keep_their_initializers() {
    let dir = temp_dir("scope");
    trained(&dir).unwrap();
    let g = Graph::new();
    {
        let _s = variable_scope(&g, "new").unwrap();
        get(&g, "w", &[2, 2]);
        get(&g, "b", &[2]);
        let _i = variable_scope(&g, "inner").unwrap();
        get(&g, "v", &[1]);
    }
    GetVariable::new("unrelated")
        .shape(&[3])
        .initializer(Initializer::Constant(Tensor::from(vec![9.0f32; 3])))
        .build(&g)
        .unwrap();
    let set = init_from_checkpoint(&g, &dir, &[("old/", "new/")]).unwrap();
    assert_eq!(set.len(), 3);
    assert_eq!(
        values(&g),
        vec![
            ("new/w".to_string(), vec![1.0, 2.0, 3.0, 4.0]),
            ("new/b".to_string(), vec![0.5, -0.5]),
            ("new/inner/v".to_string(), vec![7.0]),
            ("unrelated".to_string(), vec![9.0; 3]),
        ]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_root_maps_every_variable_to_its_own_name_and_a_variable_takes_any_tensor() {
    let dir = temp_dir("root");
    trained(&dir).unwrap();
    let g = Graph::new();
    {
        let _s = variable_scope(&g, "old").unwrap();
        get(&g, "w", &[2, 2]);
    }
    let plain = Variable::builder(constant(&g, [0.0f32, 0.0]).unwrap())
        .name("plain")
        .build()
        .unwrap();
    InitFromCheckpoint::new(&dir)
        .map("/", "/")
        .variable("old/b", &plain)
        .apply(&g)
        .unwrap();
    assert_eq!(
        values(&g),
        vec![
            ("old/w".to_string(), vec![1.0, 2.0, 3.0, 4.0]),
            ("plain".to_string(), vec![0.5, -0.5]),
        ]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn mismatches_are_errors_in_tensorflows_words() {
    let dir = temp_dir("errors");
    trained(&dir).unwrap();
    let check = |build: &dyn Fn(&Graph) -> Vec<(&'static str, &'static str)>, want: &str| {
        let g = Graph::new();
        let map = build(&g);
        let e = init_from_checkpoint(&g, &dir, &map).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        assert!(e.message().starts_with(want), "{e}\nwanted: {want}");
    };
    check(
        &|g| {
            let _s = variable_scope(g, "new").unwrap();
            get(g, "w", &[3]);
            vec![("old/w", "new/w")]
        },
        "Shape of variable new/w:0 ((3,)) doesn't match with shape of tensor old/w ([2, 2]) from checkpoint reader.",
    );
    check(
        &|g| {
            let _s = variable_scope(g, "new").unwrap();
            get(g, "x", &[2]);
            vec![("old/", "new/")]
        },
        "Tensor old/x (x in old/) is not found in",
    );
    check(
        &|g| {
            let _s = variable_scope(g, "new").unwrap();
            get(g, "w", &[2, 2]);
            vec![("old/w", "new/")]
        },
        "Assignment map with scope only name new should map to scope only old/w. Should be 'scope/': 'other_scope/'.",
    );
    check(
        &|g| {
            get(g, "zz", &[2]);
            vec![("old/zz", "zz")]
        },
        "Tensor old/zz is not found in",
    );
    std::fs::remove_dir_all(&dir).ok();
}
