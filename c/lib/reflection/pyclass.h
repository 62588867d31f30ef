/* c/lib/reflection/pyclass.h: objects of Python-defined types (py_class), private.
 *
 * A Python-defined type has no C struct: its layout is the list of its
 * reflected fields (its ancestors' and its own), each stored as its static
 * type index implies (xffi/reflection.h, "Field storage"). Such an object is
 * total_size zeroed bytes from the runtime's object allocator (so the
 * allocation header is there), which is every field's empty value (None,
 * NULL, 0); its deleter releases the Any and object fields it finds in the
 * type's records. c/lib/reflection/pyclass.c makes, copies and deletes them;
 * c/compat/globals/globals_pyclass.c registers the functions tvm-ffi's Python package asks
 * for. */
#ifndef XFFI_PYCLASS_H
#define XFFI_PYCLASS_H

#include <xffi/reflection.h>

#include "runtime/internal.h"
#include "runtime/type_internal.h"
#include "lib/reflection/field_storage.h"

/* The value of type_index in column (NULL allowed), or None: a lock-free
 * read that may race with registrations (c/runtime/type_attr.c publishes a grown
 * data array before the size covering it, and an entry's payload before its
 * tag). Borrowed: entries are never removed. */
static inline xffi_any xffi_type_attr_entry(const xffi_type_attr_column *column, int32_t type_index) {
  xffi_any value = xffi_any_none();
  if (!column) return value;
  int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
  const xffi_any *data = __atomic_load_n(&column->data, __ATOMIC_ACQUIRE);
  int64_t offset = (int64_t)type_index - column->begin_index;
  const xffi_any *entry = NULL;
  if (data && offset >= 0 && offset < size &&
      __atomic_load_n(&data[offset].type_index, __ATOMIC_ACQUIRE) != XFFI_TYPE_NONE)
    entry = &data[offset]; /* written once, before the tag just read */
  else
    entry = xffi_type_attr_provided(column, type_index); /* a type only the process's other runtime knows */
  if (entry) value = *entry;
  return value;
}

/* *out receives a new reference to an empty object of type_index (every
 * field None, NULL or 0), total_size bytes with the header. The caller
 * checked total_size >= sizeof(xffi_object). Errors: MemoryError or the
 * custom allocator's. */
int xffi_pyclass_new(xffi_object **out, int32_t type_index, int32_t total_size) XFFI_INTERNAL;

/* *out receives a new reference to a new object of type_index, total_size
 * bytes, whose fields (those of type_index's records) are copies of src's:
 * Any and object fields take their own references. src is borrowed and
 * must be an instance of type_index (checked by the caller). */
int xffi_pyclass_shallow_copy(xffi_object **out, const xffi_object *src, int32_t type_index,
                              int32_t total_size) XFFI_INTERNAL;

/* A kind of field setter Function made by the layer above
 * (ffi.MakeFieldSetter, c/compat/globals/globals_pyclass.c) that the library
 * looks through: setters of the kind are the Functions whose safe call is
 * call; storage and learn are what xffi_pyclass_setter_storage and
 * xffi_pyclass_setter_learn do for them. The maker registers its kind
 * before it makes its first setter, so no setter of the kind is ever
 * unknown here; kind is static (borrowed for the process). */
typedef struct xffi_field_setter_kind {
  xffi_safe_call call;
  int (*storage)(int32_t *out, const xffi_object *setter);
  void (*learn)(const xffi_object *setter, xffi_byte_array metadata);
} xffi_field_setter_kind;

/* Registers kind (the one kind there is; registering it again is harmless). */
void xffi_field_setter_kind_register(const xffi_field_setter_kind *kind) XFFI_INTERNAL;

/* 1 when setter (a Function, borrowed) was made by ffi.MakeFieldSetter,
 * with *out the static type index its field is stored as; else 0. DeepCopy
 * writes a copied value straight into such a field (c/lib/walk/deep_copy.c). */
int xffi_pyclass_setter_storage(int32_t *out, const xffi_object *setter) XFFI_INTERNAL;

/* Tells setter (a Function, borrowed; nothing happens unless
 * ffi.MakeFieldSetter made it) that a field registered with it has
 * metadata (its JSON text, borrowed): a type schema of Any, int, float,
 * bool or str lets the setter write the values that schema's converter
 * gives back unchanged without calling the converter (a setter registered
 * for fields of two schemas calls it always). Raises nothing. */
void xffi_pyclass_setter_learn(const xffi_object *setter, xffi_byte_array metadata) XFFI_INTERNAL;

/* *out receives a new reference to the Function tvm-ffi's "__ffi_init__"
 * attribute holds for type_index (c/lib/reflection/auto_init.c): it binds arguments to the
 * fields registered so far. function names the caller in errors.
 * Errors: MemoryError; ValueError for a type with more fields than one
 * constructor binds. */
int xffi_auto_init_function_new(xffi_object **out, const char *function, int32_t type_index) XFFI_INTERNAL;

#endif /* XFFI_PYCLASS_H */
