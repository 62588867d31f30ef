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
        // Read by syn, not by people: no rustfmt needed on the machine.
        .formatter(bindgen::Formatter::None)
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
    warn_about_stale_exceptions(items);
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
    let mut g = Generator { items, enum_types, code: String::new(), counts: BTreeMap::new() };
    g.code.push_str("// Generated by rust/xffi-systest/build.rs from the xffi headers: do not edit.\n");
    g.constants();
    g.records();
    g.aliases();
    g.functions(exported_fns);
    let count = |kind| g.counts.get(kind).copied().unwrap_or(0);
    let covered = format!(
        "/// How many items of each kind the generated checks cover.\n\
         pub fn covered() -> Covered {{ Covered {{ constants: {}, records: {}, fields: {}, aliases: {}, \
         functions: {}, inline_functions: {} }} }}\n",
        count("constants"),
        count("records"),
        count("fields"),
        count("aliases"),
        count("functions"),
        count("inline_functions")
    );
    g.code + &covered
}

/// An exception the headers no longer need is a warning, not an error: the
/// headers may change on another branch, and a stale entry hides nothing.
fn warn_about_stale_exceptions(items: &Items) {
    let declared = |name: &str| {
        items.consts.contains_key(name)
            || items.records.contains_key(name)
            || items.aliases.contains_key(name)
            || items.fns.contains_key(name)
            || items.statics.contains_key(name)
    };
    let listed = exceptions::UNCHECKED.iter().map(|(n, _)| *n).chain(exceptions::RENAMED.iter().map(|(n, _, _)| *n));
    for name in listed {
        let item = name.split('.').next().unwrap();
        if !declared(item) {
            println!("cargo:warning=exceptions.rs lists `{name}`, which the headers no longer declare");
        }
    }
}

fn unchecked(name: &str) -> bool {
    exceptions::UNCHECKED.iter().any(|(n, _)| *n == name)
}

/// Writes the check functions into `code`, counting what they cover.
struct Generator<'a> {
    items: &'a Items,
    enum_types: BTreeSet<String>,
    code: String,
    counts: BTreeMap<&'static str, usize>,
}

impl Generator<'_> {
    fn count(&mut self, kind: &'static str) {
        *self.counts.entry(kind).or_default() += 1;
    }

    /// A bindgen type as xffi-sys must spell it (see [`ToXffiSys`]).
    fn rust_type(&self, ty: &syn::Type) -> String {
        let mut ty = ty.clone();
        ToXffiSys { items: self.items, enum_types: &self.enum_types }.visit_type_mut(&mut ty);
        tokens(&ty)
    }

    /// Values, compared at run time (their types may differ: a macro has none).
    fn constants(&mut self) {
        self.code.push_str("/// Compares every constant and enum value of the headers with xffi-sys's.\n");
        self.code.push_str("pub fn check_constants(report: &mut Report) {\n");
        for (name, c) in &self.items.consts {
            // `_` is one of bindgen's own layout assertions.
            if name == "_" || unchecked(name) || is_compiler_or_anonymous(name) {
                continue;
            }
            let check = if matches!(&*c.ty, syn::Type::Reference(_)) { "text" } else { "int" };
            writeln!(self.code, "    report.{check}({name:?}, {}, c::{name});", rust_path(name)).unwrap();
            self.count("constants");
        }
        self.code.push_str("}\n");
    }

    /// Size, alignment, and each field's offset, size and alignment.
    fn records(&mut self) {
        self.code.push_str("/// Compares the size, alignment and every field of each struct and union.\n");
        self.code.push_str("pub fn check_records(report: &mut Report) {\n");
        for (name, record) in &self.items.records {
            if unchecked(name) || name.starts_with("__") {
                continue;
            }
            let rust = rust_path(name);
            self.count("records");
            if record.opaque {
                // Declared, never defined in C: only its existence can be checked.
                writeln!(self.code, "    report.opaque::<{rust}>({name:?});").unwrap();
                continue;
            }
            writeln!(self.code, "    report.layout::<{rust}, c::{name}>({name:?});").unwrap();
            for (field, _) in &record.fields {
                let full = format!("{name}.{field}");
                if unchecked(&full) {
                    continue;
                }
                let rust_field = match exceptions::RENAMED.iter().find(|(c, _, _)| *c == full) {
                    Some((_, r, _)) => r.to_string(),
                    None => field.clone(),
                };
                self.count("fields");
                writeln!(
                    self.code,
                    "    report.field({full:?}, offset_of!({rust}, {rust_field}), offset_of!(c::{name}, {field}), \
                     field_layout(|r: &{rust}| addr_of!(r.{rust_field})), \
                     field_layout(|r: &c::{name}| addr_of!(r.{field})));"
                )
                .unwrap();
            }
        }
        self.code.push_str("}\n");
    }

    /// Typedefs: the same type (checked by the compiler); enum types: the
    /// same size and alignment (their signedness is the compiler's choice).
    fn aliases(&mut self) {
        self.code.push_str("/// Typedefs: xffi-sys's is the same type (enum types: same size and alignment).\n");
        self.code.push_str("pub fn check_aliases(report: &mut Report) {\n");
        for (name, ty) in &self.items.aliases {
            if unchecked(name) || is_compiler_or_anonymous(name) {
                continue;
            }
            self.count("aliases");
            let rust = rust_path(name);
            if self.enum_types.contains(name) {
                writeln!(self.code, "    report.layout::<{rust}, c::{name}>({name:?});").unwrap();
            } else {
                let c_type = self.rust_type(ty);
                writeln!(self.code, "    let _: fn({rust}) -> {c_type} = SameType::same;").unwrap();
            }
        }
        self.code.push_str("}\n");
    }

    /// Functions and statics: xffi-sys's assigned to the C signature, so a
    /// difference does not compile. Static inline functions are Rust
    /// functions in xffi-sys (reimplemented), the others `extern "C"`.
    fn functions(&mut self, exported_fns: &BTreeSet<String>) {
        self.code.push_str("/// Functions and statics: xffi-sys's have the C signature (checked by the compiler).\n");
        self.code.push_str("pub fn check_functions() {\n");
        for (name, f) in &self.items.fns {
            if unchecked(name) {
                continue;
            }
            let args: Vec<String> = f
                .sig
                .inputs
                .iter()
                .map(|a| match a {
                    syn::FnArg::Typed(t) => self.rust_type(&t.ty),
                    syn::FnArg::Receiver(_) => unreachable!("no receivers in C"),
                })
                .chain(f.sig.variadic.iter().map(|_| "...".to_owned()))
                .collect();
            let ret = match &f.sig.output {
                syn::ReturnType::Default => String::new(),
                syn::ReturnType::Type(_, t) => format!(" -> {}", self.rust_type(t)),
            };
            let abi = if exported_fns.contains(name) {
                self.count("functions");
                "extern \"C\" "
            } else {
                self.count("inline_functions");
                ""
            };
            writeln!(self.code, "    let _: unsafe {abi}fn({}){ret} = {};", args.join(", "), rust_path(name)).unwrap();
        }
        for (name, s) in &self.items.statics {
            if unchecked(name) {
                continue;
            }
            self.count("functions");
            let ty = self.rust_type(&s.ty);
            writeln!(self.code, "    let _: *const {ty} = core::ptr::addr_of!({});", rust_path(name)).unwrap();
        }
        self.code.push_str("}\n");
    }
}
