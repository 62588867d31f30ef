/* c/compat/abi/tvm_value.c: tvm-ffi's value functions: owning a view
 * (TVMFFIAnyViewToOwnedAny) and strings and bytes from byte arrays. */
#include <string.h>

#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/internal.h"

int TVMFFIAnyViewToOwnedAny(const xffi_any *any_view, xffi_any *out) {
  XFFI_CHECK_ARG_NOT_NULL(any_view);
  XFFI_CHECK_ARG_NOT_NULL(out);
  /* tvm-ffi converts in place: view and out may be the same Any. */
  xffi_any view = *any_view;
  if (view.type_index == XFFI_TYPE_OBJECT_RVALUE) {
    xffi_object **slot = view.v_ptr;
    if (!slot) {
      *out = xffi_any_none();
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: any_view is an object rvalue reference with a NULL slot", __func__);
    }
    xffi_object *obj = *slot;
    if (!obj) {
      *out = xffi_any_none();
      return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: RValueRef already moved", __func__);
    }
    /* Moved: the slot's reference becomes out's, and the slot is cleared so
     * that it cannot be moved (or released) twice. */
    *slot = NULL;
    *out = xffi_any_none();
    out->type_index = obj->type_index;
    out->v_obj = obj;
    return XFFI_OK;
  }
  return xffi_any_copy(out, &view);
}

/* TVMFFIStringFromByteArray and TVMFFIBytesFromByteArray: out is None first
 * (tvm-ffi's order), then a small value or a new object. */
static int text_from(const char *function, const xffi_byte_array *input, xffi_any *out, int is_bytes) {
  if (!out) return xffi_error_raise(XFFI_KIND_VALUE, "%s: out is NULL", function);
  *out = xffi_any_none();
  if (!input) return xffi_error_raise(XFFI_KIND_VALUE, "%s: input is NULL", function);
  if (!input->data && input->size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: input->data is NULL but input->size is %zu", function, input->size);
  int status =
      is_bytes ? xffi_any_from_bytes(out, input->data, input->size) : xffi_any_from_str(out, input->data, input->size);
  if (status != XFFI_OK) *out = xffi_any_none();
  return status;
}

int TVMFFIStringFromByteArray(const xffi_byte_array *input, xffi_any *out) {
  return text_from(__func__, input, out, 0);
}

int TVMFFIBytesFromByteArray(const xffi_byte_array *input, xffi_any *out) { return text_from(__func__, input, out, 1); }
