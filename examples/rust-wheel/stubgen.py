"""Writes the type stub (.pyi) of a Python package that binds a tvm-ffi plugin,
from what the imported package holds and the plugin's reflection says.

    python3 stubgen.py PACKAGE > FILE        writes the stub
    python3 stubgen.py PACKAGE --check FILE  exit status 1 (and a diff) when
                                             FILE differs from the stub

What it reads, for each name in the package's ``__all__``:
- a ``tvm_ffi.Function`` (a function the plugin exports): its signature, from
  the function's metadata (``type_schema``) in a ``tvm_ffi.Module`` the package
  holds (``Module.get_function_metadata``; a function without one takes and
  returns Any), and its doc (``Module.get_function_doc``).
- a class registered with ``tvm_ffi.register_object``: the type's reflection
  in the process's runtime (``__tvm_ffi_type_info__``): its doc, each field's
  name, doc, type (its ``type_schema``; without one, its static type index)
  and whether it is writable (an attribute) or read-only (a property), each
  method's name, doc, signature (its ``type_schema``) and whether it is
  static; ``__ffi_init__`` becomes ``__init__``.
Anything else in ``__all__`` is an error: the stub would not describe it.

Parameters are positional-only (``_0``, ``_1``...): a type schema carries
the parameters' types, not their names. tvm-ffi's own generator
(``tvm-ffi-stubgen``) reads the same schemas for types and global functions,
but not the functions a module exports, and writes no docs.
"""
import argparse
import difflib
import importlib
import pathlib
import sys

import tvm_ffi
from tvm_ffi import core

# tvm-ffi's static type indices (c_api.h, TVMFFITypeIndex) -> the Python type
# the package converts a value of that index to.
STATIC_TYPES = {-1: "Any", 0: "None", 1: "int", 2: "bool", 3: "float", 4: "Any", 5: "tvm_ffi.dtype",
                6: "tvm_ffi.Device", 8: "str", 9: "bytes", 11: "str", 12: "bytes",
                64: "tvm_ffi.Object", 65: "str", 66: "bytes", 68: "tvm_ffi.Function", 69: "tvm_ffi.Shape",
                70: "tvm_ffi.Tensor", 71: "tvm_ffi.Array[Any]", 72: "tvm_ffi.Map[Any, Any]",
                73: "tvm_ffi.Module"}


def field_type(index, classes):
    """The annotation of a field whose static type index is `index` (a field
    without a type schema); a type of this package is named by its class, any
    other object type is an Object."""
    if index in STATIC_TYPES:
        return STATIC_TYPES[index]
    for name, cls in classes.items():
        if cls.__tvm_ffi_type_info__.type_index == index:
            return name
    return "tvm_ffi.Object" if index >= 64 else "Any"


# A type schema's origin (as tvm_ffi.core.TypeSchema folds it) -> the
# annotation; containers take their arguments in brackets.
ORIGINS = {"int": "int", "float": "float", "bool": "bool", "str": "str", "bytes": "bytes", "None": "None",
           "Any": "Any", "Object": "tvm_ffi.Object", "Tensor": "tvm_ffi.Tensor", "dtype": "tvm_ffi.dtype",
           "Device": "tvm_ffi.Device", "ffi.Shape": "tvm_ffi.Shape", "ffi.Module": "tvm_ffi.Module",
           "Array": "tvm_ffi.Array", "List": "tvm_ffi.List", "Map": "tvm_ffi.Map", "Dict": "tvm_ffi.Dict",
           "Callable": "tvm_ffi.Function"}


def annotation(schema, classes):
    """The annotation of a `tvm_ffi.core.TypeSchema`: a type of this package
    by its class, any other object type as an Object."""
    args = [annotation(a, classes) for a in schema.args or ()]
    if schema.origin == "Optional":
        return f"{args[0]} | None"
    if schema.origin == "Union":
        return " | ".join(args)
    for name, cls in classes.items():
        if cls.__tvm_ffi_type_info__.type_key == schema.origin:
            return name
    base = ORIGINS.get(schema.origin, "tvm_ffi.Object" if "." in schema.origin else "Any")
    if base in ("tvm_ffi.Array", "tvm_ffi.List") and not args:
        args = ["Any"]
    if base in ("tvm_ffi.Map", "tvm_ffi.Dict") and not args:
        args = ["Any", "Any"]
    return f"{base}[{', '.join(args)}]" if args and base.startswith("tvm_ffi.") else base


def schema_of(metadata):
    """The `tvm_ffi.core.TypeSchema` in a reflection record's metadata, or None."""
    text = (metadata or {}).get("type_schema")
    return core.TypeSchema.from_json_str(text) if text else None


def signature(schema, classes, first):
    """`(params) -> ret` of a function schema (None: not known), the
    parameters positional-only after `first` (`"self"`, or `""`)."""
    named = (schema.named_args or {}) if schema is not None else {}
    ret = annotation(named["return"][0], classes) if named.get("return") else "Any"
    head = [first] if first else []
    if "params" not in named:
        return f"({', '.join(head + ['*args: Any'])}) -> {ret}"
    params = [f"_{i}: {annotation(p, classes)}" for i, p in enumerate(named["params"])]
    return f"({', '.join(head + params + (['/'] if params else []))}) -> {ret}"


def docstring(text, indent):
    """`text` as a docstring at `indent`, or no line when there is no doc."""
    if not text:
        return []
    lines = text.replace('"""', "'''").splitlines()
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}'] + [f"{indent}{line}".rstrip() for line in lines[1:]] + [f'{indent}"""']


def class_stub(name, cls, classes):
    info = cls.__tvm_ffi_type_info__
    lines = [f"class {name}(tvm_ffi.Object):"]
    body = docstring(cls.__doc__ or "", "    ")
    body.append(f"    # {info.type_key}: its fields and methods as the runtime's reflection lists them")
    for field in info.fields:
        schema = schema_of(field.metadata)
        if schema is not None:
            hint = annotation(schema, classes)
        else:
            hint = field_type(field.field_static_type_index, classes)
        if field.frozen:
            body += ["    @property", f"    def {field.name}(self) -> {hint}:"]
            body += docstring(field.doc, "        ") or ["        ..."]
        else:
            body.append(f"    {field.name}: {hint}")
            body += docstring(field.doc, "    ")
    for method in info.methods:
        schema = schema_of(method.metadata)
        if method.name == "__ffi_init__":
            # Python calls it as Gain(...): the object is made, not passed.
            params = signature(schema, classes, "self").split(" -> ")[0]
            body.append(f"    def __init__{params} -> None:")
        elif method.is_static:
            body += ["    @staticmethod", f"    def {method.name}{signature(schema, classes, '')}:"]
        else:
            # The schema's first parameter is the object itself.
            if schema is not None and "params" in (schema.named_args or {}):
                schema.named_args["params"] = schema.named_args["params"][1:]
            body.append(f"    def {method.name}{signature(schema, classes, 'self')}:")
        body += docstring(method.doc, "        ") or ["        ..."]
    return lines + body


def module_text(package, name, what):
    """What `what` ("metadata" or "doc") a `tvm_ffi.Module` held by `package`
    gives for its exported function `name`, or None."""
    for value in vars(package).values():
        if isinstance(value, tvm_ffi.Module):
            text = getattr(value, f"get_function_{what}")(name)
            if text:
                return text
    return None


def generate(package_name):
    """The stub of the imported package `package_name`, as text."""
    package = importlib.import_module(package_name)
    names = getattr(package, "__all__", None)
    if names is None:
        sys.exit(f"stubgen: {package_name} has no __all__: the stub describes the names it lists")
    classes, functions = {}, []
    for name in sorted(names):
        value = getattr(package, name)
        if isinstance(value, type) and issubclass(value, core.Object) and hasattr(value, "__tvm_ffi_type_info__"):
            classes[name] = value
        elif isinstance(value, tvm_ffi.Function):
            functions.append(name)
        else:
            sys.exit(f"stubgen: {package_name}.{name} is of type {type(value).__name__}, "
                     "expected a tvm_ffi.Function or a class registered with tvm_ffi.register_object")
    out = [f"# The type stub of {package_name}, generated from its plugin's reflection by",
           "# examples/rust-wheel/stubgen.py: do not edit; run it again after changing the plugin.",
           "from typing import Any", "", "import tvm_ffi", ""]
    out.append(f"__all__ = [{', '.join(repr(n) for n in sorted(names))}]")
    for name in functions:
        schema = schema_of(module_text(package, name, "metadata"))
        doc = docstring(module_text(package, name, "doc"), "    ")
        out += [""] + ([f"def {name}{signature(schema, classes, '')}:"] + doc if doc else
                       [f"def {name}{signature(schema, classes, '')}: ..."])
    for name, cls in classes.items():
        out += ["", ""] + class_stub(name, cls, classes)
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", help="the package to import")
    parser.add_argument("--check", metavar="FILE", type=pathlib.Path, help="compare FILE with the stub")
    args = parser.parse_args()
    text = generate(args.package)
    if args.check is None:
        sys.stdout.write(text)
        return 0
    have = args.check.read_text()
    if have == text:
        print(f"{args.check}: the same as the stub generated from {args.package}'s reflection")
        return 0
    sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), text.splitlines(True), str(args.check),
                                               "generated"))
    print(f"{args.check}: differs from the stub generated from {args.package}'s reflection "
          f"(write it with: python3 stubgen.py {args.package} > {args.check})")
    return 1


if __name__ == "__main__":
    sys.exit(main())
