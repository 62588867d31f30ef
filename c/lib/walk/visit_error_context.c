/* c/lib/walk/visit_error_context.c: ffi.VisitErrorContext objects and how the
 * structural walks record one on an error (xffi/structural_visit.h).
 *
 * tvm-ffi's walks recurse, and each level that dispatched on a value adds
 * that value to the error's context as the error passes back through it.
 * xffi's walks keep their levels on heap stacks, so they call
 * xffi_visit_error_context_note for the value that failed and then for each
 * open level's value while they unwind (c/lib/walk/structural_visit.c,
 * c/lib/walk/structural_mutate.c); the record comes out the same, innermost first.
 * The error is changed in place, as tvm-ffi does: while it unwinds it is
 * the walk's alone to annotate. Finding paths from a record:
 * c/lib/walk/visit_error_paths.c. */
#include <stddef.h>
#include <string.h>

#include <xffi/array.h>
#include <xffi/structural_visit.h>

#include "runtime/check.h"
#include "runtime/type_internal.h"
#include "lib/reflection/runtime_types.h"
#include "lib/walk/visit_error_context.h"

_Static_assert(offsetof(visit_error_context, reverse_visit_pattern) == 24, "tvm-ffi's VisitErrorContextObj layout");
_Static_assert(offsetof(visit_error_context, prev_error_context) == 24 + sizeof(void *),
               "tvm-ffi's VisitErrorContextObj layout");

static const char context_key[] = "ffi.VisitErrorContext";

/* The type's index once known (registered on first use), else -1. */
static int32_t context_type = -1;

int32_t xffi_visit_error_context_type(void) {
  int32_t known = __atomic_load_n(&context_type, __ATOMIC_ACQUIRE);
  if (known >= 0) return known;
  if (xffi_type_builtins_ensure() != XFFI_OK) return -1;
  const xffi_type_info *info = xffi_type_find_by_key(context_key, sizeof(context_key) - 1);
  if (!info) return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: the type is not registered", context_key), -1;
  __atomic_store_n(&context_type, info->type_index, __ATOMIC_RELEASE);
  return info->type_index;
}

int xffi_visit_error_context_is(const xffi_object *obj) {
  if (!obj) return 0;
  int32_t known = __atomic_load_n(&context_type, __ATOMIC_ACQUIRE);
  if (known >= 0) return obj->type_index == known;
  /* Not asked for here yet: C++ code built with tvm-ffi's headers makes
   * contexts of the index it looked up by key, so the key decides. */
  const xffi_type_info *info = xffi_type_info_find(obj->type_index);
  return info && info->type_key.size == sizeof(context_key) - 1 &&
         memcmp(info->type_key.data, context_key, sizeof(context_key) - 1) == 0;
}

static void context_deleter(void *self, int flags) {
  visit_error_context *c = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    /* Parked while another release runs: a long prev_error_context chain
     * is released with bounded stack. */
    if (xffi_release_begin(c, flags, context_deleter)) return;
    if (c->reverse_visit_pattern) xffi_object_dec_ref(c->reverse_visit_pattern);
    if (c->prev_error_context) xffi_object_dec_ref(c->prev_error_context);
    xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

/* *out receives a new context whose pattern is [value] (borrowed, an
 * object) and whose prev_error_context is prev (stolen; NULL for none). On
 * failure prev is released and an error raised. */
static int context_new(xffi_object **out, const xffi_any *value, xffi_object *prev) {
  int32_t type = xffi_visit_error_context_type();
  xffi_object *pattern = NULL;
  if (type < 0 || xffi_list_new(&pattern, value, 1) != XFFI_OK) {
    if (prev) xffi_object_dec_ref(prev);
    return XFFI_FAIL;
  }
  visit_error_context *c = xffi_runtime_object_alloc(sizeof(visit_error_context), _Alignof(visit_error_context), type);
  if (!c) {
    xffi_object_dec_ref(pattern);
    if (prev) xffi_object_dec_ref(prev);
    return XFFI_FAIL;
  }
  xffi_object_init(&c->header, type, context_deleter);
  c->reverse_visit_pattern = pattern;
  c->prev_error_context = prev;
  *out = &c->header;
  return XFFI_OK;
}

int xffi_visit_error_context_new_empty(xffi_object **out) {
  int32_t type = xffi_visit_error_context_type();
  if (type < 0) return XFFI_FAIL;
  xffi_object *pattern = NULL;
  if (xffi_list_new(&pattern, NULL, 0) != XFFI_OK) return XFFI_FAIL;
  visit_error_context *c = xffi_runtime_object_alloc(sizeof(visit_error_context), _Alignof(visit_error_context), type);
  if (!c) {
    xffi_object_dec_ref(pattern);
    return XFFI_FAIL;
  }
  xffi_object_init(&c->header, type, context_deleter);
  c->reverse_visit_pattern = pattern;
  c->prev_error_context = NULL;
  *out = &c->header;
  return XFFI_OK;
}

/* Adds value (borrowed, an object) to the context in an error's
 * extra_context slot, making the context when there is none. */
static int note_in(void **slot, const xffi_any *value) {
  xffi_object *extra = *slot;
  if (extra && xffi_visit_error_context_is(extra)) {
    xffi_object *pattern = ((visit_error_context *)(void *)extra)->reverse_visit_pattern;
    if (pattern && pattern->type_index == XFFI_TYPE_LIST) return xffi_list_push(pattern, value);
  }
  /* A new context takes over the old extra_context as its prev_error_context;
   * if it cannot be made, the error keeps its extra_context as it was. */
  xffi_object *made = NULL;
  if (extra) xffi_object_inc_ref(extra); /* the context's reference, released if it fails */
  if (context_new(&made, value, extra) != XFFI_OK) return XFFI_FAIL;
  *slot = made;
  if (extra) xffi_object_dec_ref(extra); /* the slot's reference, now held by the context */
  return XFFI_OK;
}

void xffi_visit_error_context_note(const xffi_any *value) {
  if (!xffi_any_is_object(value)) return;
  xffi_object *err = xffi_error_peek_raised();
  void **slot = err ? xffi_error_extra_context_slot(err) : NULL;
  if (!slot) return;
  /* Recording is best effort: a failure to allocate must not replace the
   * error being recorded, which goes back in the raised slot. */
  xffi_object_inc_ref(err);
  (void)note_in(slot, value);
  if (xffi_error_peek_raised() != err)
    xffi_error_set_raised(err);
  else
    xffi_object_dec_ref(err);
}

int xffi_visit_error_context_of(xffi_object **out, xffi_object *err) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(err);
  if (err->type_index != XFFI_TYPE_ERROR)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: err expected ffi.Error, got %s", __func__,
                            xffi_type_key(err->type_index));
  xffi_object *extra = xffi_error_cell_of_unchecked(err)->extra_context;
  if (xffi_visit_error_context_is(extra)) {
    xffi_object_inc_ref(extra);
    *out = extra;
  }
  return XFFI_OK;
}
