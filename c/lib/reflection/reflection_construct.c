/* c/lib/reflection/reflection_construct.c: making an object of any reflected type from C
 * arguments (xffi_object_construct), as Python's constructor call does:
 * through the type's "__ffi_init__" attribute when it has one, else through
 * the constructor c/lib/reflection/auto_init.c generates from the reflected fields
 * (creator, then arguments bound to fields, then defaults). */
#include <string.h>
#include <xffi/function.h>
#include <xffi/reflection.h>

#include "runtime/check.h"
#include "runtime/global_args.h"
#include "lib/reflection/reflection_construct.h"
#include "runtime/type_internal.h"
#include "runtime/static_object.h"

xffi_any xffi_kwargs_marker(void) { return xffi_any_object(&xffi_kwargs_object); }

/* The type's own (not inherited) "__ffi_init__" Function, borrowed, or NULL. */
static xffi_object *init_attr_of(int32_t type_index) {
  static const char name[] = "__ffi_init__";
  const xffi_type_attr_column *column = xffi_type_attr_column_find(name, sizeof(name) - 1);
  if (!column) return NULL;
  int64_t offset = (int64_t)type_index - column->begin_index;
  int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
  const xffi_any *data = __atomic_load_n(&column->data, __ATOMIC_ACQUIRE);
  const xffi_any *entry =
      offset >= 0 && offset < size && data[offset].type_index != XFFI_TYPE_NONE
          ? &data[offset]
          : xffi_type_attr_provided(column, type_index); /* a type only the process's runtime knows */
  return entry && entry->type_index == XFFI_TYPE_FUNCTION ? entry->v_obj : NULL;
}

int xffi_object_construct(xffi_any *out, int32_t type_index, const xffi_any *args, int32_t num_args) {
  static const char fn[] = "xffi_object_construct";
  if (xffi_global_check_call(fn, args, num_args, XFFI_GLOBAL_ANY_COUNT, out) != XFFI_OK) return XFFI_FAIL;
  if (xffi_check_object_type_arg(fn, "type_index", type_index) != XFFI_OK) return XFFI_FAIL;
  xffi_any made = xffi_any_none();
  xffi_object *init = init_attr_of(type_index);
  if (!init) {
    /* The constructor ffi._RegisterFFIInit would register, made for this
     * call only: the type keeps no attribute it did not ask for. */
    xffi_object *generated = NULL;
    if (xffi_auto_init_function_new(&generated, fn, type_index) != XFFI_OK) return XFFI_FAIL;
    int status = xffi_function_call(generated, args, num_args, &made);
    xffi_object_dec_ref(generated);
    if (status != XFFI_OK) return XFFI_FAIL;
  } else {
    if (xffi_function_call(init, args, num_args, &made) != XFFI_OK) return XFFI_FAIL;
    int is_a = 0;
    if (xffi_any_is_object(&made)) xffi_object_is_a(&is_a, made.v_obj, type_index);
    if (!is_a) {
      xffi_error_raise(XFFI_KIND_TYPE, "%s: %s.__ffi_init__ returned %s, not a %s", fn, xffi_type_key(type_index),
                       xffi_any_kind_name(&made), xffi_type_key(type_index));
      xffi_any_release(&made);
      return XFFI_FAIL;
    }
  }
  *out = made; /* the new reference moves to the caller */
  return XFFI_OK;
}
