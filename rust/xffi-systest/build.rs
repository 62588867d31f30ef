//! Generates the systest: bindgen reads every public header (include/xffi/
//! and its sub-directories, globbed, so headers that move between tiers stay
//! covered), and for every item it finds this script writes Rust code that
//! compares xffi-sys's hand-written declaration with the C one:
//! - constants and enum values: equal values (a run-time check);
//! - structs and unions: size, alignment, and every field's offset, size and
//!   alignment (run-time checks);
//! - exported functions: xffi-sys's function assigned to a variable of the
//!   bindgen function-pointer type, so a different signature does not compile;
//!   static inline functions likewise, as Rust functions (xffi-sys
//!   reimplements them);
//! - typedefs: the same type (function pointers may be wrapped in Option on
//!   one side only), or for enum types the same size and alignment;
//! - extern statics: the same type.
//!
//! An item that xffi-sys lacks fails to compile ("cannot find ... in crate
//! `xffi_sys`", naming it), unless exceptions.rs lists it with a reason.
//! Generated files: OUT_DIR/c_bindings.rs (bindgen's view of the headers,
//! with bindgen's own layout assertions against clang) and OUT_DIR/systest.rs.
use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::visit_mut::VisitMut;

#[path = "exceptions.rs"]
mod exceptions;

fn main() {
    let include = PathBuf::from(env::var("DEP_XFFI_INCLUDE").expect("xffi-sys exports DEP_XFFI_INCLUDE"));
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let mut headers = Vec::new();
    collect_headers(&include.join("xffi"), &mut headers);
    headers.sort();
    assert!(!headers.is_empty(), "no headers under {}", include.join("xffi").display());
    println!("cargo:rerun-if-changed={}", include.join("xffi").display());
    println!("cargo:rerun-if-changed=exceptions.rs");
    for h in &headers {
        println!("cargo:rerun-if-changed={}", h.display());
    }

    // The file bindgen reads: every header, each self-contained.
    let mut wrapper = String::new();
    for h in &headers {
        writeln!(wrapper, "#include \"{}\"", h.display()).unwrap();
    }
    let wrapper_path = out.join("all_headers.h");
    std::fs::write(&wrapper_path, wrapper).unwrap();

    // Exported functions only, then with the static inline ones: the
    // difference tells which functions are inline.
    let exported = parse(&run_bindgen(&wrapper_path, &include, false));
    let everything_text = run_bindgen(&wrapper_path, &include, true);
    std::fs::write(out.join("c_bindings.rs"), &everything_text).unwrap();
    let everything = parse(&everything_text);
    let exported_fns: BTreeSet<String> = exported.fns.keys().cloned().collect();

    let code = generate(&everything, &exported_fns);
    std::fs::write(out.join("systest.rs"), code).unwrap();
}

fn collect_headers(dir: &Path, headers: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect_headers(&path, headers);
        } else if path.extension().is_some_and(|x| x == "h") {
            headers.push(path);
        }
    }
}

fn run_bindgen(wrapper: &Path, include: &Path, inline_functions: bool) -> String {
    bindgen::Builder::default()
        .header(wrapper.display().to_string())
        .clang_arg(format!("-I{}", include.display()))
        .clang_arg("-std=c11")
        // Only xffi's own items (not those of <stdint.h> and friends).
        .allowlist_file(format!("{}/.*", regex_escape(&include.display().to_string())))
        .prepend_enum_name(false)
        // Declarations of the static inline functions too (the C wrappers
        // bindgen writes for them are not compiled: only the signatures count).
        .wrap_static_fns(inline_functions)
        .wrap_static_fns_path(wrapper.with_file_name("static_fns"))
        // Macros cexpr cannot evaluate (UINT64_C(1) << 32) are evaluated by clang.
        .clang_macro_fallback()
        .generate()
        .unwrap_or_else(|e| panic!("bindgen failed on the xffi headers: {e}"))
        .to_string()
}

fn regex_escape(text: &str) -> String {
    text.chars().fold(String::new(), |mut s, c| {
        if "\\.+*?()|[]{}^$".contains(c) {
            s.push('\\');
        }
        s.push(c);
        s
    })
}

/// What bindgen declared, by kind.
#[derive(Default)]
struct Items {
    consts: BTreeMap<String, syn::ItemConst>,
    records: BTreeMap<String, Record>,
    aliases: BTreeMap<String, syn::Type>,
    fns: BTreeMap<String, syn::ForeignItemFn>,
    statics: BTreeMap<String, syn::ForeignItemStatic>,
}

struct Record {
    fields: Vec<(String, syn::Type)>,
    /// A declared but never defined struct (bindgen's `_unused: [u8; 0]`).
    opaque: bool,
}

fn parse(text: &str) -> Items {
    let file = syn::parse_file(text).expect("bindgen's output parses");
    let mut items = Items::default();
    for item in file.items {
        match item {
            syn::Item::Const(c) => {
                items.consts.insert(c.ident.to_string(), c);
            }
            syn::Item::Struct(s) => {
                let fields: Vec<_> = s
                    .fields
                    .iter()
                    .map(|f| (f.ident.as_ref().expect("named field").to_string(), f.ty.clone()))
                    .collect();
                let opaque = fields.iter().all(|(n, _)| n == "_unused");
                let fields = fields.into_iter().filter(|(n, _)| !n.starts_with("__bindgen_padding")).collect();
                items.records.insert(s.ident.to_string(), Record { fields, opaque });
            }
            syn::Item::Union(u) => {
                let fields = u.fields.named.iter().map(|f| (f.ident.as_ref().unwrap().to_string(), f.ty.clone()));
                items.records.insert(u.ident.to_string(), Record { fields: fields.collect(), opaque: false });
            }
            syn::Item::Type(t) => {
                items.aliases.insert(t.ident.to_string(), *t.ty);
            }
            syn::Item::ForeignMod(m) => {
                for fi in m.items {
                    match fi {
                        syn::ForeignItem::Fn(f) => {
                            items.fns.insert(f.sig.ident.to_string(), f);
                        }
                        syn::ForeignItem::Static(s) => {
                            items.statics.insert(s.ident.to_string(), s);
                        }
                        other => panic!("unexpected foreign item from bindgen: {}", other.to_token_stream()),
                    }
                }
            }
            // bindgen's layout assertions (`const _: () = ...`) and impls.
            _ => {}
        }
    }
    items
}

/// Turns a bindgen type into the type xffi-sys must use: records and enum
/// types become their xffi-sys names; other typedefs are expanded, so that
/// an xffi-sys typedef spelled differently (e.g. a function pointer without
/// Option, wrapped at the use) still compares equal structurally.
struct ToXffiSys<'a> {
    items: &'a Items,
    enum_types: &'a BTreeSet<String>,
}

impl VisitMut for ToXffiSys<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none() && p.path.leading_colon.is_none() && p.path.segments.len() == 1 {
                let name = p.path.segments[0].ident.to_string();
                if self.items.records.contains_key(&name) || self.enum_types.contains(&name) {
                    *ty = syn::parse_str(&rust_path(&name)).unwrap();
                    return;
                }
                if let Some(def) = self.items.aliases.get(&name) {
                    let mut def = def.clone();
                    self.visit_type_mut(&mut def);
                    *ty = def;
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The xffi-sys path of a header item (its own name unless renamed).
fn rust_path(name: &str) -> String {
    match exceptions::RENAMED.iter().find(|(c, _, _)| *c == name) {
        Some((_, rust, _)) => format!("xffi_sys::{rust}"),
        None => format!("xffi_sys::{name}"),
    }
}

fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

/// Names no xffi header declares: the compiler's own (`__builtin_va_list`)
/// and bindgen's for anonymous types (their members are checked through the
/// record that holds them).
fn is_compiler_or_anonymous(name: &str) -> bool {
    name.starts_with("__") || name.starts_with("_bindgen_ty_")
}

fn generate(items: &Items, exported_fns: &BTreeSet<String>) -> String {
    let known: BTreeSet<&str> = items
        .consts
        .keys()
        .chain(items.records.keys())
        .chain(items.aliases.keys())
        .chain(items.fns.keys())
        .chain(items.statics.keys())
        .map(String::as_str)
        .collect();
    for (name, _) in exceptions::UNCHECKED {
        if !known.contains(name) && !name.contains('.') {
            println!("cargo:warning=exceptions.rs lists `{name}`, which the headers no longer declare");
        }
    }
    let unchecked = |name: &str| exceptions::UNCHECKED.iter().any(|(n, _)| *n == name);

    // Enum types: the typedefs bindgen gives its enum constants.
    let enum_types: BTreeSet<String> = items
        .consts
        .values()
        .filter_map(|c| match &*c.ty {
            syn::Type::Path(p) if p.path.segments.len() == 1 => Some(p.path.segments[0].ident.to_string()),
            _ => None,
        })
        .filter(|n| items.aliases.contains_key(n))
        .collect();
    let map = |ty: &syn::Type| {
        let mut ty = ty.clone();
        ToXffiSys { items, enum_types: &enum_types }.visit_type_mut(&mut ty);
        tokens(&ty)
    };

    let mut code = String::new();
    code.push_str("// Generated by rust/xffi-systest/build.rs from the xffi headers: do not edit.\n");

    // Constants: values compared at run time (the types may differ: a macro has none).
    let mut n_consts = 0;
    code.push_str("/// Compares every constant and enum value of the headers with xffi-sys's.\n");
    code.push_str("pub fn check_constants(report: &mut Report) {\n");
    for (name, c) in &items.consts {
        if name == "_" || unchecked(name) || is_compiler_or_anonymous(name) {
            continue;
        }
        let check = if matches!(&*c.ty, syn::Type::Reference(_)) { "text" } else { "int" };
        writeln!(code, "    report.{check}({name:?}, {}, c::{name});", rust_path(name)).unwrap();
        n_consts += 1;
    }
    code.push_str("}\n");

    // Records: size, alignment, fields.
    let mut n_records = 0;
    let mut n_fields = 0;
    code.push_str("/// Compares the size, alignment and every field of each struct and union.\n");
    code.push_str("pub fn check_records(report: &mut Report) {\n");
    for (name, record) in &items.records {
        if unchecked(name) || name.starts_with("__") {
            continue;
        }
        let rust = rust_path(name);
        n_records += 1;
        if record.opaque {
            // Declared, never defined in C: only its existence can be checked.
            writeln!(code, "    report.opaque::<{rust}>({name:?});").unwrap();
            continue;
        }
        writeln!(code, "    report.layout::<{rust}, c::{name}>({name:?});").unwrap();
        for (field, _) in &record.fields {
            let full = format!("{name}.{field}");
            if unchecked(&full) {
                continue;
            }
            let rust_field = match exceptions::RENAMED.iter().find(|(c, _, _)| *c == full) {
                Some((_, r, _)) => r.to_string(),
                None => field.clone(),
            };
            n_fields += 1;
            writeln!(
                code,
                "    report.field({full:?}, offset_of!({rust}, {rust_field}), offset_of!(c::{name}, {field}), \
                 field_layout(|r: &{rust}| addr_of!(r.{rust_field})), field_layout(|r: &c::{name}| addr_of!(r.{field})));"
            )
            .unwrap();
        }
    }
    code.push_str("}\n");

    // Typedefs: compile-time checks.
    let mut n_aliases = 0;
    code.push_str("/// Typedefs: xffi-sys's is the same type (enum types: same size and alignment).\n");
    code.push_str("pub fn check_aliases(report: &mut Report) {\n");
    for (name, ty) in &items.aliases {
        if unchecked(name) || is_compiler_or_anonymous(name) {
            continue;
        }
        n_aliases += 1;
        let rust = rust_path(name);
        if enum_types.contains(name) {
            writeln!(code, "    report.layout::<{rust}, c::{name}>({name:?});").unwrap();
        } else {
            writeln!(code, "    let _: fn({rust}) -> {} = SameType::same;", map(ty)).unwrap();
        }
    }
    code.push_str("}\n");

    // Functions and statics: compile-time checks.
    let mut n_fns = 0;
    let mut n_inline = 0;
    code.push_str("/// Functions and statics: xffi-sys's have the C signature (checked by the compiler).\n");
    code.push_str("pub fn check_functions() {\n");
    for (name, f) in &items.fns {
        if unchecked(name) {
            continue;
        }
        let inline = !exported_fns.contains(name);
        let args: Vec<String> = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(t) => map(&t.ty),
                syn::FnArg::Receiver(_) => unreachable!("no receivers in C"),
            })
            .chain(f.sig.variadic.iter().map(|_| "...".to_owned()))
            .collect();
        let ret = match &f.sig.output {
            syn::ReturnType::Default => String::new(),
            syn::ReturnType::Type(_, t) => format!(" -> {}", map(t)),
        };
        let abi = if inline {
            n_inline += 1;
            ""
        } else {
            n_fns += 1;
            "extern \"C\" "
        };
        writeln!(code, "    let _: unsafe {abi}fn({}){ret} = {};", args.join(", "), rust_path(name)).unwrap();
    }
    for (name, s) in &items.statics {
        if unchecked(name) {
            continue;
        }
        n_fns += 1;
        writeln!(code, "    let _: *const {} = core::ptr::addr_of!({});", map(&s.ty), rust_path(name)).unwrap();
    }
    code.push_str("}\n");

    writeln!(
        code,
        "/// How many items of each kind the generated checks cover.\n\
         pub fn covered() -> Covered {{ Covered {{ constants: {n_consts}, records: {n_records}, \
         fields: {n_fields}, aliases: {n_aliases}, functions: {n_fns}, inline_functions: {n_inline} }} }}"
    )
    .unwrap();
    code
}
