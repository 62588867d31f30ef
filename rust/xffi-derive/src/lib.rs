//! `#[derive(xffi::Object)]` and `#[xffi::methods]`: a Rust struct as an
//! xffi object type whose marked fields and exported methods are reflected
//! (readable, writable and callable by name from C, C++, Python and Rust).
//! Use them through the `xffi` crate, which re-exports both; the README of
//! this crate describes the attributes, and `xffi::reflect` what the
//! generated code relies on.
use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, Fields, FnArg, ImplItem, ItemImpl, Lit, Meta, ReturnType, Token, Type};

/// Makes a struct an xffi object type with reflected fields; see the crate's
/// README, and the running example on its re-export `xffi::Object` in the
/// `xffi` crate's documentation.
#[proc_macro_derive(Object, attributes(xffi))]
pub fn derive_object(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    derive(input).unwrap_or_else(|e| e.to_compile_error()).into()
}

/// Exports the methods of an `impl` block as the type's reflected methods
/// (`&self` methods as instance methods, the others as static ones); see the
/// crate's README, and the running example on its re-export `xffi::methods`
/// in the `xffi` crate's documentation.
#[proc_macro_attribute]
pub fn methods(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(Span::call_site(), "#[xffi::methods] takes no arguments").to_compile_error().into();
    }
    let item = syn::parse_macro_input!(item as ItemImpl);
    methods_impl(item).unwrap_or_else(|e| e.to_compile_error()).into()
}

/// The `#[xffi(...)]` items of an attribute list, each as a Meta.
fn xffi_items(attrs: &[Attribute]) -> syn::Result<Vec<Meta>> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("xffi")) {
        let list = attr.meta.require_list()?;
        let items = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(list.tokens.clone())?;
        out.extend(items);
    }
    Ok(out)
}

fn doc_of(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) = &nv.value {
                lines.push(s.value().trim().to_owned());
            }
        }
    }
    lines.join("\n")
}

fn string_value(e: &Expr, what: &str) -> syn::Result<String> {
    match e {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Ok(s.value()),
        _ => Err(syn::Error::new(e.span(), format!("{what} must be a string literal"))),
    }
}

struct FieldSpec {
    ident: syn::Ident,
    ty: Type,
    doc: String,
    writable: bool,
    default: Option<Expr>,
    structural_flags: TokenStream2,
}

fn derive(input: DeriveInput) -> syn::Result<TokenStream2> {
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(input.generics.span(), "derive(xffi::Object): generic types cannot be xffi types"));
    }
    let mut type_key = None;
    let mut parent: Option<syn::Path> = None;
    let mut structural_kind = quote!(::xffi::sys::XFFI_SEQ_HASH_UNSUPPORTED);
    // `#[xffi(default)]`: other runtimes may create objects from
    // `Default::default()` and fill every reflected field (opt-in: a type
    // whose fields must agree with each other must not allow that).
    let mut creatable: Option<Span> = None;
    // `#[xffi(clone)]` (with `default`): `__ffi_shallow_copy__` is `Clone`.
    let mut clonable: Option<Span> = None;
    for item in xffi_items(&input.attrs)? {
        match &item {
            Meta::Path(p) if p.is_ident("default") => creatable = Some(p.span()),
            Meta::Path(p) if p.is_ident("clone") => clonable = Some(p.span()),
            Meta::NameValue(nv) if nv.path.is_ident("type_key") => {
                type_key = Some(string_value(&nv.value, "type_key")?)
            }
            Meta::NameValue(nv) if nv.path.is_ident("structural_eq") => {
                // tvm-ffi's py_class(structural_eq=...) names.
                let kind = match string_value(&nv.value, "structural_eq")?.as_str() {
                    "tree" => quote!(::xffi::sys::XFFI_SEQ_HASH_TREE_NODE),
                    "var" => quote!(::xffi::sys::XFFI_SEQ_HASH_FREE_VAR),
                    "dag" => quote!(::xffi::sys::XFFI_SEQ_HASH_DAG_NODE),
                    "const-tree" => quote!(::xffi::sys::XFFI_SEQ_HASH_CONST_TREE_NODE),
                    "singleton" => quote!(::xffi::sys::XFFI_SEQ_HASH_UNIQUE_INSTANCE),
                    _ => {
                        return Err(syn::Error::new(
                            nv.value.span(),
                            "structural_eq on the struct must be \"tree\", \"var\", \"dag\", \"const-tree\" or \"singleton\"",
                        ))
                    }
                };
                structural_kind = kind;
            }
            Meta::NameValue(nv) if nv.path.is_ident("parent") => match &nv.value {
                Expr::Path(p) => parent = Some(p.path.clone()),
                other => return Err(syn::Error::new(other.span(), "parent must be a type path")),
            },
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "unknown #[xffi(...)] item on the struct: expected type_key = \"...\", parent = Type, structural_eq = \"...\", default or clone",
                ))
            }
        }
    }
    if let (Some(span), None) = (clonable, creatable) {
        return Err(syn::Error::new(
            span,
            "#[xffi(clone)] needs #[xffi(default)] too: copies are filled through the setters a creatable type has",
        ));
    }
    let Some(type_key) = type_key else {
        return Err(syn::Error::new(
            name.span(),
            "derive(xffi::Object) needs #[xffi(type_key = \"...\")] on the struct (the type's registered key)",
        ));
    };
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(name.span(), "derive(xffi::Object) applies to structs only"));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(syn::Error::new(name.span(), "derive(xffi::Object) needs a struct with named fields"));
    };

    let mut base: Option<syn::Ident> = None;
    let mut specs = Vec::new();
    for field in &named.named {
        let ident = field.ident.clone().expect("named field");
        let (mut get, mut set, mut default, mut is_base) = (false, false, None, false);
        let mut structural_flags = None;
        for item in xffi_items(&field.attrs)? {
            match &item {
                Meta::NameValue(nv) if nv.path.is_ident("structural_eq") => {
                    // tvm-ffi's field(structural_eq=...) names.
                    structural_flags = Some(match string_value(&nv.value, "structural_eq")?.as_str() {
                        "ignore" => quote!(::xffi::sys::XFFI_FIELD_SEQ_HASH_IGNORE),
                        "def" | "def-pattern" => quote!(::xffi::sys::XFFI_FIELD_SEQ_HASH_DEF_PATTERN),
                        "def-simple" => quote!(::xffi::sys::XFFI_FIELD_SEQ_HASH_DEF_SIMPLE),
                        _ => {
                            return Err(syn::Error::new(
                                nv.value.span(),
                                "structural_eq on a field must be \"ignore\", \"def\", \"def-pattern\" or \"def-simple\"",
                            ))
                        }
                    })
                }
                Meta::Path(p) if p.is_ident("get") => get = true,
                Meta::Path(p) if p.is_ident("set") => set = true,
                Meta::Path(p) if p.is_ident("base") => is_base = true,
                Meta::NameValue(nv) if nv.path.is_ident("default") => default = Some(nv.value.clone()),
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "unknown #[xffi(...)] item on a field: expected get, set, default = expr, structural_eq = \"...\" or base",
                    ))
                }
            }
        }
        if is_base {
            if base.is_some() {
                return Err(syn::Error::new(ident.span(), "only one field can be the #[xffi(base)]"));
            }
            base = Some(ident);
            continue;
        }
        if (set || default.is_some() || structural_flags.is_some()) && !get {
            return Err(syn::Error::new(
                ident.span(),
                "#[xffi(set)], #[xffi(default)] and #[xffi(structural_eq)] need #[xffi(get)] too",
            ));
        }
        if get {
            let structural_flags = structural_flags.unwrap_or_else(|| quote!(0));
            specs.push(FieldSpec {
                ident,
                ty: field.ty.clone(),
                doc: doc_of(&field.attrs),
                writable: set,
                default,
                structural_flags,
            });
        }
    }

    let reflect_fn = format_ident!("__xffi_reflect_{}", name);
    let (parent_ty, has_base, base_check) = match (&parent, &base) {
        (None, None) => (quote!(::xffi::Object), false, quote!()),
        (Some(p), Some(b)) => (quote!(#p), true, quote!(::xffi::object_type!(@base #name, #p, #b);)),
        (Some(p), None) => return Err(syn::Error::new(
            p.span(),
            "a parent needs the field that holds it: mark the first field #[xffi(base)] (and the struct #[repr(C)])",
        )),
        (None, Some(b)) => {
            return Err(syn::Error::new(b.span(), "#[xffi(base)] needs #[xffi(parent = Type)] on the struct"))
        }
    };

    let mut decls = Vec::new();
    let mut setters = Vec::new();
    for f in &specs {
        let (ident, ty) = (&f.ident, &f.ty);
        let fname = ident.to_string();
        let doc = &f.doc;
        let writable = f.writable;
        let structural_flags = &f.structural_flags;
        let setter = if f.writable {
            let setter_fn = format_ident!("__xffi_set_{}", ident);
            let what = format!("{type_key}.{fname}");
            setters.push(quote! {
                unsafe extern "C" fn #setter_fn(
                    field_addr: *mut ::core::ffi::c_void,
                    value: *const ::xffi::sys::xffi_any,
                ) -> ::core::ffi::c_int {
                    // SAFETY: the setter contract: a live field of this type at field_addr.
                    unsafe { ::xffi::reflect::private::write_field::<#ty>(#what, field_addr, value) }
                }
            });
            quote!(::core::option::Option::Some(#setter_fn))
        } else if creatable.is_some() {
            // Read-only to everyone but the construction of a fresh object.
            let setter_fn = format_ident!("__xffi_init_{}", ident);
            let what = format!("{type_key}.{fname}");
            setters.push(quote! {
                unsafe extern "C" fn #setter_fn(
                    field_addr: *mut ::core::ffi::c_void,
                    value: *const ::xffi::sys::xffi_any,
                ) -> ::core::ffi::c_int {
                    // SAFETY: the setter contract of a read-only field: a live
                    // field of this type in an object under construction.
                    unsafe {
                        ::xffi::reflect::private::init_field::<#ty>(
                            #what,
                            ::xffi::object::registry::payload_offset::<#name>() + ::core::mem::offset_of!(#name, #ident),
                            field_addr,
                            value,
                        )
                    }
                }
            });
            quote!(::core::option::Option::Some(#setter_fn))
        } else {
            quote!(::core::option::Option::None)
        };
        let default = match &f.default {
            Some(e) => quote!(::core::option::Option::Some(::xffi::Any::from(#e))),
            None => quote!(::core::option::Option::None),
        };
        decls.push(quote! {
            ::xffi::reflect::private::FieldDecl {
                name: #fname,
                doc: #doc,
                writable: #writable,
                size: ::core::mem::size_of::<#ty>(),
                alignment: ::core::mem::align_of::<#ty>(),
                offset: ::xffi::object::registry::payload_offset::<#name>() + ::core::mem::offset_of!(#name, #ident),
                getter: <#ty as ::xffi::reflect::FieldStorage>::getter(),
                setter: #setter,
                static_type_index: <#ty as ::xffi::reflect::FieldType>::static_type_index(),
                default: #default,
                structural_flags: #structural_flags,
                type_schema: ::xffi::schema_of!(#ty),
            }
        });
    }
    let settable_checks = specs.iter().filter(|f| f.writable).map(|f| {
        let ty = &f.ty;
        quote_spanned_check(ty)
    });
    let init_checks = specs.iter().filter(|f| creatable.is_some() && !f.writable).map(|f| {
        let ty = &f.ty;
        quote::quote_spanned! {ty.span()=>
            const _: fn() = || {
                fn must_be_fillable<F: ::xffi::reflect::InitField>() {}
                must_be_fillable::<#ty>();
            };
        }
    });
    // The Default check is spanned at the attribute, where the error belongs.
    let (creator, default_check) = match creatable {
        Some(span) => (
            quote!(::core::option::Option::Some(::xffi::reflect::private::create_default::<#name>)),
            quote::quote_spanned! {span=>
                const _: fn() = || {
                    fn must_implement_default<T: ::core::default::Default>() {}
                    must_implement_default::<#name>();
                };
            },
        ),
        None => (quote!(::core::option::Option::None), quote!()),
    };
    let (shallow_copy, clone_check) = match clonable {
        Some(span) => (
            quote!(::xffi::reflect::private::register_shallow_copy::<#name>(type_index)?;),
            quote::quote_spanned! {span=>
                const _: fn() = || {
                    fn must_implement_clone<T: ::core::clone::Clone>() {}
                    must_implement_clone::<#name>();
                };
            },
        ),
        None => (quote!(), quote!()),
    };
    let doc = doc_of(&input.attrs);
    Ok(quote! {
        ::xffi::object_type!(@impl #name, #type_key, #parent_ty, #has_base,
            ::core::option::Option::Some(#reflect_fn as ::xffi::reflect::private::ReflectFn));
        #base_check
        #(#settable_checks)*
        #(#init_checks)*
        #default_check
        #clone_check
        #[doc(hidden)]
        #[allow(non_snake_case)]
        fn #reflect_fn(type_index: i32) -> ::xffi::Result<()> {
            #(#setters)*
            ::xffi::reflect::private::register_fields(type_index, #type_key, ::std::vec![#(#decls),*])?;
            {
                #[allow(unused_imports)]
                use ::xffi::reflect::private::{HasMethods as _, NoMethods as _};
                (&&::xffi::reflect::private::MethodsProbe::<#name>(::core::marker::PhantomData)).register_methods(type_index)?;
            }
            #shallow_copy
            ::xffi::reflect::private::register_metadata(
                type_index,
                #doc,
                ::core::mem::size_of::<::xffi::object::RustBox<#name>>(),
                #structural_kind,
                #creator,
            )
        }
    })
}

/// A compile-time check that a writable field's type is a SettableField,
/// spanned at the field's type so the error points there.
fn quote_spanned_check(ty: &Type) -> TokenStream2 {
    quote::quote_spanned! {ty.span()=>
        const _: fn() = || {
            fn must_be_settable<F: ::xffi::reflect::SettableField>() {}
            must_be_settable::<#ty>();
        };
    }
}

fn methods_impl(mut item: ItemImpl) -> syn::Result<TokenStream2> {
    if item.trait_.is_some() || !item.generics.params.is_empty() {
        return Err(syn::Error::new(item.span(), "#[xffi::methods] applies to an inherent impl of a non-generic type"));
    }
    let self_ty = item.self_ty.clone();
    let mut registrations = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else { continue };
        let items = xffi_items(&method.attrs)?;
        method.attrs.retain(|a| !a.path().is_ident("xffi"));
        let mut exported_name = method.sig.ident.to_string();
        let mut skip = false;
        for meta in items {
            match &meta {
                Meta::Path(p) if p.is_ident("skip") => skip = true,
                Meta::NameValue(nv) if nv.path.is_ident("name") => exported_name = string_value(&nv.value, "name")?,
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "unknown #[xffi(...)] item on a method: expected name = \"...\" or skip",
                    ))
                }
            }
        }
        if skip {
            continue;
        }
        let ident = &method.sig.ident;
        let mut params = Vec::new();
        let mut param_types = Vec::new();
        let mut args = Vec::new();
        let mut is_static = true;
        for (i, input) in method.sig.inputs.iter().enumerate() {
            match input {
                FnArg::Receiver(r) => {
                    if r.reference.is_none() || r.mutability.is_some() {
                        return Err(syn::Error::new(
                            r.span(),
                            "an exported instance method takes &self (objects are shared: no &mut self, no self by value)",
                        ));
                    }
                    is_static = false;
                    params.push(quote!(this: ::xffi::ObjectRef<Self>));
                    param_types.push(quote!(::xffi::ObjectRef<Self>));
                    args.push(quote!(&*this));
                }
                FnArg::Typed(pt) => {
                    let arg = format_ident!("arg{}", i);
                    let ty = &pt.ty;
                    params.push(quote!(#arg: #ty));
                    param_types.push(quote!(#ty));
                    args.push(quote!(#arg));
                }
            }
        }
        if params.len() > 6 {
            return Err(syn::Error::new(
                method.sig.span(),
                "an exported method takes at most 6 arguments (the object included)",
            ));
        }
        let call = quote!(Self::#ident(#(#args),*));
        let body = match &method.sig.output {
            ReturnType::Default => quote!({ #call; ::xffi::Result::Ok(()) }),
            ReturnType::Type(_, ty) if returns_result(ty) => quote!(#call),
            ReturnType::Type(..) => quote!(::xffi::Result::Ok(#call)),
        };
        // The schema's return type: a Result's Ok type (its error is raised,
        // not returned); `Any` when that type is not spelt out.
        let ret_schema = match &method.sig.output {
            ReturnType::Default => quote!(::xffi::schema_of!(())),
            ReturnType::Type(_, ty) if returns_result(ty) => match result_ok_type(ty) {
                Some(ok) => quote!(::xffi::schema_of!(#ok)),
                None => quote!(::xffi::schema_of!(::xffi::Any)),
            },
            ReturnType::Type(_, ty) => quote!(::xffi::schema_of!(#ty)),
        };
        let doc = doc_of(&method.attrs);
        registrations.push(quote! {
            ::xffi::reflect::private::register_method(
                type_index,
                #exported_name,
                #doc,
                #is_static,
                &::xffi::schema::function_schema(&[#(::xffi::schema_of!(#param_types)),*], &#ret_schema),
                ::xffi::Function::from_typed(move |#(#params),*| #body),
            )?;
        });
    }
    Ok(quote! {
        #item
        impl ::xffi::reflect::private::ExportedMethods for #self_ty {
            fn register_methods(type_index: i32) -> ::xffi::Result<()> {
                #(#registrations)*
                ::xffi::Result::Ok(())
            }
        }
    })
}

/// The `T` of a return type `...Result<T>` or `...Result<T, E>`, when written out.
fn result_ok_type(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let syn::PathArguments::AngleBracketed(args) = &p.path.segments.last()?.arguments else { return None };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// Whether a return type is a `Result` (its errors are passed on as they are).
fn returns_result(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Result"),
        _ => false,
    }
}
