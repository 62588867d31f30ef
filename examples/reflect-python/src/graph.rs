//! `rustdemo.Tree`: a `#[xffi(default)]` type, so other runtimes can make it
//! (from `Default`, then its fields set): tvm-ffi's JSON graph reads and
//! writes it in Python as in Rust. `Tree.sample()` builds a small tree with
//! a shared subtree, `Tree.sample_graph()` is the graph text Rust writes for
//! it, and `Tree.equals_sample(text)` reads a graph text in Rust and says
//! whether it is structurally equal to the sample.
use xffi::{
    Any, Array, ObjectRef, from_json, json_parse, json_stringify, structural_equal, to_json,
};

/// A node of a labelled tree: a name, a weight, optional children, any
/// payload. Read-only to other languages once made.
#[derive(xffi::Object, Default)]
#[xffi(type_key = "rustdemo.Tree", structural_eq = "tree", default)]
pub struct Tree {
    /// The node's name (a Rust String).
    #[xffi(get)]
    name: String,
    /// A weight.
    #[xffi(get)]
    weight: f64,
    /// The left child, if any.
    #[xffi(get)]
    left: Option<ObjectRef<Tree>>,
    /// The right child, if any.
    #[xffi(get)]
    right: Option<ObjectRef<Tree>>,
    /// Anything (None by default).
    #[xffi(get, default = Any::none())]
    payload: Any,
}

fn node(
    name: &str,
    weight: f64,
    left: Option<ObjectRef<Tree>>,
    right: Option<ObjectRef<Tree>>,
) -> xffi::Result<ObjectRef<Tree>> {
    ObjectRef::new(Tree {
        name: name.into(),
        weight,
        left,
        right,
        payload: Any::none(),
    })
}

#[xffi::methods]
impl Tree {
    /// A tree whose two children are one shared leaf, with a payload.
    fn sample() -> xffi::Result<ObjectRef<Tree>> {
        let leaf = node("leaf", 0.5, None, None)?;
        let payload: Array<Any> = vec![Any::from(1i64), Any::from("two"), Any::from(&leaf)]
            .into_iter()
            .collect();
        ObjectRef::new(Tree {
            name: "root".into(),
            weight: 2.0,
            left: Some(leaf.clone()),
            right: Some(leaf),
            payload: Any::from(&payload),
        })
    }
    /// The JSON graph text Rust writes for `sample()`.
    fn sample_graph() -> xffi::Result<String> {
        json_stringify(&to_json(&Tree::sample()?, &Any::none())?, 0)
    }
    /// Whether the graph `text` reads (in Rust) to a value structurally
    /// equal to `sample()`, whose children are one shared object.
    fn equals_sample(text: String) -> xffi::Result<bool> {
        let tree: ObjectRef<Tree> = from_json(&json_parse(&text)?)?.get()?;
        let shared = match (&tree.left, &tree.right) {
            (Some(l), Some(r)) => l.ptr_eq(r),
            _ => false,
        };
        Ok(shared && structural_equal(&tree, &Tree::sample()?)?)
    }
}
