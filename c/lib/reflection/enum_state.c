/* c/lib/reflection/enum_state.c: ffi.EnumState, the registry object that the tvm_ffi
 * package keeps per enum class (in the "__ffi_enum__" type attribute): its
 * entries in registration order (a List), its integer and string indexes (a
 * Dict) and its extensible attribute columns (a Dict). Laid out as tvm-ffi
 * 0.1.15 lays it out (three object fields at offsets 24, 32, 40), so C++
 * code and the package read it directly. The type itself is registered by
 * c/compat/globals/type_runtime.c, which also registers ffi.EnumState's static method
 * __ffi_init__ (xffi_enum_state_methods). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/static_object.h"
#include "lib/reflection/enum_state.h"
#include "runtime/global_args.h"
#include "runtime/type_internal.h"
#include "lib/reflection/runtime_types.h"

#if UINTPTR_MAX > 0xFFFFFFFFu /* the offsets measured from tvm-ffi's 64-bit wheel */
_Static_assert(offsetof(enum_state_object, entries) == 24, "tvm-ffi's EnumStateObj layout");
_Static_assert(offsetof(enum_state_object, attrs) == 40, "tvm-ffi's EnumStateObj layout");
#endif

static void enum_state_deleter(void *self, int flags) {
  enum_state_object *state = (enum_state_object *)self;
  if (flags & XFFI_DELETE_CONTENTS) {
    /* Its containers may nest deeply: release them with bounded stack. */
    if (xffi_release_begin(&state->header, flags, enum_state_deleter)) return;
    xffi_object_dec_ref(state->entries);
    xffi_object_dec_ref(state->indexes);
    xffi_object_dec_ref(state->attrs);
    state->entries = state->indexes = state->attrs = NULL;
    xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

int xffi_enum_state_new(xffi_object **out) {
  static const char key[] = "ffi.EnumState";
  *out = NULL;
  if (xffi_type_builtins_ensure() != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *info = xffi_type_find_by_key(key, sizeof(key) - 1);
  if (!info) return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: %s is not registered", __func__, key);
  xffi_object *entries = NULL, *indexes = NULL, *attrs = NULL;
  if (xffi_list_new(&entries, NULL, 0) != XFFI_OK || xffi_dict_new(&indexes, NULL, NULL, 0) != XFFI_OK ||
      xffi_dict_new(&attrs, NULL, NULL, 0) != XFFI_OK)
    goto fail;
  enum_state_object *state =
      xffi_runtime_object_alloc(sizeof(enum_state_object), _Alignof(enum_state_object), info->type_index);
  if (!state) goto fail;
  xffi_object_init(&state->header, info->type_index, enum_state_deleter);
  state->entries = entries;
  state->indexes = indexes;
  state->attrs = attrs;
  *out = &state->header;
  return XFFI_OK;
fail:
  xffi_object_dec_ref(entries);
  xffi_object_dec_ref(indexes);
  xffi_object_dec_ref(attrs);
  return XFFI_FAIL;
}

/* ffi.EnumState.__ffi_init__(): a new, empty EnumState. */
static int enum_state_init(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *state;
  if (xffi_global_check_call("ffi.EnumState.__ffi_init__", args, num_args, 0, result) != XFFI_OK) return XFFI_FAIL;
  if (xffi_enum_state_new(&state) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(state); /* the new reference moves into the result */
  return XFFI_OK;
}

XFFI_BUILTIN_FUNCTION(enum_state_init_function, enum_state_init);

const xffi_runtime_method xffi_enum_state_methods[] = {
    {"__ffi_init__", &enum_state_init_function, 1,
     "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"ffi.Object\"}],\"params\":[]}}"}};
const int32_t xffi_enum_state_method_count = 1;
