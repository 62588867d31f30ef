"""Writes the type stub (.pyi) of a Python package that binds a tvm-ffi plugin,
from what the imported package holds and the plugin's reflection says.

    python3 stubgen.py PACKAGE > FILE        writes the stub
    python3 stubgen.py PACKAGE --check FILE  exit status 1 (and a diff) when
                                             FILE differs from the stub

What it reads, for each name in the package's ``__all__``:
- a ``tvm_ffi.Function`` (a function of the plugin): its name. The plugin
  exports no signature for its functions, so the stub takes and returns Any.
- a class registered with ``tvm_ffi.register_object``: the type's reflection
  in the process's runtime (``__tvm_ffi_type_info__``): its doc, each field's
  name, doc and static type (int, float, bool, str, an object type) and whether
  it is writable (an attribute) or read-only (a property), each method's name,
  doc and whether it is static; ``__ffi_init__`` becomes ``__init__``. Methods
  carry no signature in the reflection either: their arguments are Any.
Anything else in ``__all__`` is an error: the stub would not describe it.

tvm-ffi's own generator (``tvm-ffi-stubgen``) reads the same reflection but
needs a ``type_schema`` in each field's and method's metadata, which xffi's
derive does not write; it stops with KeyError 'type_schema' on such a type.
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
    """The annotation of a field whose static type index is `index`; a type of
    this package is named by its class, any other object type is an Object."""
    if index in STATIC_TYPES:
        return STATIC_TYPES[index]
    for name, cls in classes.items():
        if cls.__tvm_ffi_type_info__.type_index == index:
            return name
    return "tvm_ffi.Object" if index >= 64 else "Any"


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
        annotation = field_type(field.field_static_type_index, classes)
        if field.frozen:
            body += ["    @property", f"    def {field.name}(self) -> {annotation}:"]
            body += docstring(field.doc, "        ") or ["        ..."]
        else:
            body.append(f"    {field.name}: {annotation}")
            body += docstring(field.doc, "    ")
    for method in info.methods:
        if method.name == "__ffi_init__":
            body.append("    def __init__(self, *args: Any) -> None:")
        elif method.is_static:
            body += ["    @staticmethod", f"    def {method.name}(*args: Any) -> Any:"]
        else:
            body.append(f"    def {method.name}(self, *args: Any) -> Any:")
        body += docstring(method.doc, "        ") or ["        ..."]
    return lines + body


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
        out += ["", f"def {name}(*args: Any) -> Any: ..."]
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
