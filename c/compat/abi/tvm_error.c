/* c/compat/abi/tvm_error.c: tvm-ffi's error functions (TVMFFIError*), over xffi's one
 * thread-local raised slot (c/runtime/error.c). xffi's own API and every TVMFFI*
 * caller served by this library read and write the same slot, so an error
 * raised on either side is seen on the other with no copying, and xffi's
 * own code never calls a TVMFFI* name (another runtime could interpose it).
 * Errors handed to and from a second runtime in the process:
 * c/runtime/error_foreign.c. */
#include <string.h>

#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "platform/platform.h"
#include "compat/abi/backtrace.h"

/* WebAssembly has no return addresses to read. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__wasm__)
#  define RETURN_ADDRESS() __builtin_return_address(0)
#else
#  define RETURN_ADDRESS() NULL
#endif

void TVMFFIErrorMoveFromRaised(void **result) {
  /* No place to put it: the error stays raised rather than leaking. */
  if (!result) return;
  *result = xffi_error_move_raised();
}

void TVMFFIErrorSetRaised(void *error) {
  if (!error) { /* tvm-ffi's meaning: the slot is emptied */
    xffi_error_set_raised(NULL);
    return;
  }
  /* The caller keeps its reference; the slot takes one of its own
   * (xffi_error_set_raised steals, and drops it again for a non-Error). */
  xffi_object_inc_ref_inline(error);
  xffi_error_set_raised(error);
}

/* Raises kind with message (size bytes), its backtrace starting at the
 * frame that returns to caller. */
static void raise_with_backtrace(const char *function, const char *kind, const char *message, size_t size,
                                 void *caller) {
  if (!kind) {
    xffi_error_raise(XFFI_KIND_VALUE, "%s: kind is NULL (message: %.*s)", function, (int)(size > 512 ? 512 : size),
                     message);
    return;
  }
  xffi_byte_array k = {kind, strlen(kind)}, m = {message, size};
  const xffi_byte_array *bt = xffi_backtrace_capture(caller, NULL, 0, NULL, 0);
  xffi_object *err = xffi_error_create_quiet(k, m, *bt, NULL, NULL);
  if (!err) {
    xffi_error_raise_out_of_memory();
    return;
  }
  xffi_error_set_raised(err);
}

void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message) {
  if (!message) message = "";
  raise_with_backtrace(__func__, kind, message, strlen(message), RETURN_ADDRESS());
}

void TVMFFIErrorSetRaisedFromCStrParts(const char *kind, const char **message_parts, int32_t num_parts) {
  void *caller = RETURN_ADDRESS();
  if (num_parts < 0) {
    xffi_error_raise(XFFI_KIND_VALUE, "%s: num_parts is %d, expected >= 0", __func__, (int)num_parts);
    return;
  }
  if (!message_parts && num_parts) {
    xffi_error_raise(XFFI_KIND_VALUE, "%s: message_parts is NULL but num_parts is %d", __func__, (int)num_parts);
    return;
  }
  size_t size = 0;
  for (int32_t i = 0; i < num_parts; ++i) {
    size_t n = message_parts[i] ? strlen(message_parts[i]) : 0;
    if (n > SIZE_MAX - 1 - size) {
      xffi_error_raise_out_of_memory();
      return;
    }
    size += n;
  }
  char *message = xffi_alloc(size + 1);
  if (!message) {
    xffi_error_raise_out_of_memory();
    return;
  }
  size_t at = 0;
  for (int32_t i = 0; i < num_parts; ++i) {
    if (!message_parts[i]) continue; /* tvm-ffi skips NULL parts */
    size_t n = strlen(message_parts[i]);
    memcpy(message + at, message_parts[i], n);
    at += n;
  }
  message[size] = '\0';
  raise_with_backtrace(__func__, kind, message, size, caller);
  xffi_free(message);
}

/* A byte array argument that must be given and hold data when sized;
 * ValueError naming it otherwise. */
static int check_text(const char *function, const char *argument, const xffi_byte_array *text) {
  if (!text) return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s is NULL", function, argument);
  if (!text->data && text->size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s->data is NULL but %s->size is %zu", function, argument, argument,
                            text->size);
  return XFFI_OK;
}

/* TVMFFIErrorCreate and ...WithCauseAndExtraContext. Bad arguments raise
 * (xffi's addition: tvm-ffi crashes on them); running out of memory returns
 * -1 with nothing raised, as tvm-ffi documents. */
static int create_error(const char *function, const xffi_byte_array *kind, const xffi_byte_array *message,
                        const xffi_byte_array *backtrace, xffi_object *cause, xffi_object *extra_context, void **out) {
  if (!out) return xffi_error_raise(XFFI_KIND_VALUE, "%s: out is NULL", function);
  *out = NULL;
  if (check_text(function, "kind", kind) || check_text(function, "message", message)) return XFFI_FAIL;
  xffi_byte_array empty = {"", 0};
  if (backtrace && check_text(function, "backtrace", backtrace)) return XFFI_FAIL;
  if (cause && cause->type_index != XFFI_TYPE_ERROR)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: cause_chain expected ffi.Error or NULL, got %s", function,
                            xffi_type_key(cause->type_index));
  xffi_object *err = xffi_error_create_quiet(*kind, *message, backtrace ? *backtrace : empty, cause, extra_context);
  if (!err) return XFFI_FAIL;
  *out = err;
  return XFFI_OK;
}

int TVMFFIErrorCreate(const xffi_byte_array *kind, const xffi_byte_array *message, const xffi_byte_array *backtrace,
                      void **out) {
  return create_error(__func__, kind, message, backtrace, NULL, NULL, out);
}

int TVMFFIErrorCreateWithCauseAndExtraContext(const xffi_byte_array *kind, const xffi_byte_array *message,
                                              const xffi_byte_array *backtrace, void *cause_chain, void *extra_context,
                                              void **out) {
  return create_error(__func__, kind, message, backtrace, cause_chain, extra_context, out);
}
