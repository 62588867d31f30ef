/* c/runtime/error.c: Error objects and the thread-local raised slot.
 *
 * An error is one allocation: header, cell, a private pointer to a separately
 * allocated backtrace (NULL until a frame is added; it grows geometrically,
 * so appending frames one by one is amortised linear), then the kind and the
 * message, each NUL-terminated. Raising a message costs one malloc. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "platform/platform.h"

typedef struct error_object {
  xffi_object header;
  xffi_error_cell cell;
  char *owned_backtrace;
  size_t backtrace_capacity; /* bytes owned_backtrace has room for, NUL included */
  /* Set (for good) the first time this runtime makes the error another
   * one's cause; read and written atomically. An error never cited is in
   * no chain, so making it cite another closes no cycle (xffi_error_set_cause). */
  int cited;
  char text[];
} error_object;

/* The raised slot holds one reference (declared in internal.h: the call
 * path reads it too). Default TLS model, so that the library may be loaded
 * with dlopen (see "Thread-local storage" in c/runtime/internal.h). */
_Thread_local xffi_object *xffi_raised_slot;
/* The raise clock's tick when xffi_raised_slot was last filled (internal.h).
 * Ticks on one atomic word are ordered as the thread's own operations on it
 * are (coherence): a tick taken after a call read the clock is greater than
 * what the call read, one taken before is not. */
_Atomic uint64_t xffi_raise_clock;
static _Thread_local uint64_t raised_at;

static void error_update_backtrace(void *self, const xffi_byte_array *backtrace, int32_t mode);

/* Marks cause (an Error or NULL, borrowed) as cited, when it is one of this
 * runtime's heap errors (the others carry no mark: they are always walked). */
static void mark_cited(xffi_object *cause) {
  if (cause && xffi_error_cell_of_unchecked(cause)->update_backtrace == error_update_backtrace)
    __atomic_store_n(&((error_object *)cause)->cited, 1, __ATOMIC_RELEASE);
}

static void error_deleter(void *self, int flags) {
  error_object *err = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    /* An error that owns other objects is parked while another release runs:
     * a deep cause chain uses bounded stack. One that owns none (most raised
     * errors) skips that bookkeeping. */
    if (err->cell.cause_chain || err->cell.extra_context) {
      if (xffi_release_begin(err, flags, error_deleter)) return;
      xffi_object_dec_ref_inline(err->cell.cause_chain);
      xffi_object_dec_ref_inline(err->cell.extra_context);
      xffi_release_end();
    }
    xffi_free(err->owned_backtrace);
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(err);
}

/* Allocates an error with room for kind and a message of message_size bytes;
 * the caller writes the message at the returned object's message.data.
 * NULL when out of memory, possibly with an error raised by the object
 * allocator (callers raise their own). */
static error_object *error_alloc(xffi_byte_array kind, size_t message_size) {
  size_t bytes = sizeof(error_object) + kind.size + 1 + message_size + 1;
  if (bytes < kind.size || bytes < message_size) return NULL;
  error_object *err = xffi_runtime_object_alloc(bytes, _Alignof(error_object), XFFI_TYPE_ERROR);
  if (!err) return NULL;
  xffi_object_init(&err->header, XFFI_TYPE_ERROR, error_deleter);
  char *kind_copy = err->text;
  char *message = kind_copy + kind.size + 1;
  memcpy(kind_copy, kind.data, kind.size);
  kind_copy[kind.size] = '\0';
  message[message_size] = '\0';
  err->cell.kind.data = kind_copy;
  err->cell.kind.size = kind.size;
  err->cell.message.data = message;
  err->cell.message.size = message_size;
  err->cell.backtrace.data = "";
  err->cell.backtrace.size = 0;
  err->cell.update_backtrace = error_update_backtrace;
  err->cell.cause_chain = NULL;
  err->cell.extra_context = NULL;
  err->owned_backtrace = NULL;
  err->backtrace_capacity = 0;
  err->cited = 0;
  return err;
}

static void error_update_backtrace(void *self, const xffi_byte_array *backtrace, int32_t mode) {
  error_object *err = self;
  size_t keep = mode == XFFI_BACKTRACE_APPEND ? err->cell.backtrace.size : 0;
  if (backtrace->size > SIZE_MAX - 1 - keep) return; /* cannot be held; the old backtrace stays */
  size_t need = keep + backtrace->size + 1;
  if (need <= err->backtrace_capacity) {
    /* memmove: the new text may be a piece of the old one. */
    memmove(err->owned_backtrace + keep, backtrace->data, backtrace->size);
  } else {
    /* Grow to at least twice the old room, so n appends copy O(n) bytes. */
    size_t capacity = err->backtrace_capacity > SIZE_MAX / 2 ? need : err->backtrace_capacity * 2;
    if (capacity < need) capacity = need;
    char *text = xffi_alloc(capacity);
    if (!text) return; /* the error keeps its old backtrace; callers check */
    memcpy(text, err->cell.backtrace.data, keep);
    memcpy(text + keep, backtrace->data, backtrace->size);
    xffi_free(err->owned_backtrace);
    err->owned_backtrace = text;
    err->backtrace_capacity = capacity;
  }
  err->owned_backtrace[keep + backtrace->size] = '\0';
  err->cell.backtrace.data = err->owned_backtrace;
  err->cell.backtrace.size = keep + backtrace->size;
}

/* The pre-made MemoryError: static, so reporting out-of-memory allocates
 * nothing. Its deleter never frees, and its backtrace is never updated (it is
 * shared by every thread). */
static void static_error_deleter(void *self, int flags) {
  (void)self;
  (void)flags;
}
static void static_error_update_backtrace(void *self, const xffi_byte_array *backtrace, int32_t mode) {
  (void)self;
  (void)backtrace;
  (void)mode;
}
static error_object out_of_memory = {
    {XFFI_REF_INITIAL, XFFI_TYPE_ERROR, 0, {static_error_deleter}},
    {{XFFI_KIND_MEMORY, sizeof(XFFI_KIND_MEMORY) - 1},
     {"out of memory", sizeof("out of memory") - 1},
     {"", 0},
     static_error_update_backtrace,
     NULL,
     NULL},
    NULL,
    0,
    0,
};

int xffi_error_new_bytes(xffi_object **out, xffi_byte_array kind, xffi_byte_array message) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (!kind.data && kind.size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: kind.data is NULL but kind.size is %zu", __func__, kind.size);
  if (!message.data && message.size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: message.data is NULL but message.size is %zu", __func__,
                            message.size);
  *out = NULL;
  error_object *err = error_alloc(kind, message.size);
  if (!err) return xffi_error_raise_out_of_memory();
  if (message.size) memcpy((char *)err->cell.message.data, message.data, message.size);
  *out = &err->header;
  return XFFI_OK;
}

xffi_object *xffi_error_create_quiet(xffi_byte_array kind, xffi_byte_array message, xffi_byte_array backtrace,
                                     xffi_object *cause, xffi_object *extra_context) {
  /* The object allocator raises when it fails: the raised slot (and when it
   * was filled) is put back as it was. */
  xffi_object *raised = xffi_raised_slot;
  uint64_t raised_tick = raised_at;
  xffi_raised_slot = NULL;
  error_object *err = error_alloc(kind, message.size);
  if (err && message.size) memcpy((char *)err->cell.message.data, message.data, message.size);
  if (err && backtrace.size) {
    error_update_backtrace(err, &backtrace, XFFI_BACKTRACE_REPLACE);
    if (err->cell.backtrace.size != backtrace.size) { /* out of memory */
      xffi_runtime_object_free(err);
      err = NULL;
    }
  }
  xffi_object_dec_ref_inline(xffi_raised_slot);
  xffi_raised_slot = raised;
  raised_at = raised_tick;
  if (!err) return NULL;
  xffi_object_inc_ref_inline(cause);
  xffi_object_inc_ref_inline(extra_context);
  mark_cited(cause);
  err->cell.cause_chain = cause;
  err->cell.extra_context = extra_context;
  return &err->header;
}

int xffi_error_new(xffi_object **out, const char *kind, const char *message) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(kind);
  XFFI_CHECK_ARG_NOT_NULL(message);
  xffi_byte_array k = {kind, strlen(kind)}, m = {message, strlen(message)};
  return xffi_error_new_bytes(out, k, m);
}

void xffi_error_set_raised(xffi_object *err) {
  if (XFFI_UNLIKELY(err && err->type_index != XFFI_TYPE_ERROR)) {
    /* Only Errors may sit in the slot: callers read it as an error cell. */
    int32_t got = err->type_index;
    xffi_object_dec_ref_inline(err);
    xffi_error_raise(XFFI_KIND_TYPE, "%s: err expected ffi.Error, got %s", __func__, xffi_type_key(got));
    return;
  }
  xffi_object *old = xffi_raised_slot;
  xffi_raised_slot = err;
  if (err) raised_at = atomic_fetch_add_explicit(&xffi_raise_clock, 1, memory_order_relaxed) + 1;
  xffi_object_dec_ref_inline(old);
}

void xffi_error_release_raised_before(uint64_t begun) {
  if (xffi_raised_slot && raised_at <= begun) xffi_object_dec_ref(xffi_error_move_raised());
}

xffi_object *xffi_error_move_raised(void) {
  xffi_object *err = xffi_raised_slot;
  xffi_raised_slot = NULL;
  return err;
}

xffi_object *xffi_error_peek_raised(void) { return xffi_raised_slot; }

int xffi_error_raise_out_of_memory(void) {
  xffi_object_inc_ref_inline(&out_of_memory.header);
  xffi_error_set_raised(&out_of_memory.header);
  return XFFI_FAIL;
}

int xffi_error_raise_str(const char *kind, const char *message) {
  if (!kind) kind = XFFI_KIND_RUNTIME;
  if (!message) message = "";
  xffi_byte_array k = {kind, strlen(kind)};
  size_t size = strlen(message);
  error_object *err = error_alloc(k, size);
  if (!err) return xffi_error_raise_out_of_memory();
  memcpy((char *)err->cell.message.data, message, size);
  xffi_error_set_raised(&err->header);
  return XFFI_FAIL;
}

int xffi_error_raise_v(const char *kind, const char *format, va_list args) {
  if (!kind) kind = XFFI_KIND_RUNTIME;
  if (!format) return xffi_error_raise_str(kind, "");
  va_list again;
  va_copy(again, args);
  int size = vsnprintf(NULL, 0, format, args);
  if (size < 0) {
    va_end(again);
    return xffi_error_raise_str(kind, format); /* an invalid format: keep it as it is */
  }
  xffi_byte_array k = {kind, strlen(kind)};
  error_object *err = error_alloc(k, (size_t)size);
  if (!err) {
    va_end(again);
    return xffi_error_raise_out_of_memory();
  }
  vsnprintf((char *)err->cell.message.data, (size_t)size + 1, format, again);
  va_end(again);
  xffi_error_set_raised(&err->header);
  return XFFI_FAIL;
}

int xffi_error_raise(const char *kind, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int status = xffi_error_raise_v(kind, format, args);
  va_end(args);
  return status;
}

static int is_error(const xffi_object *obj) { return obj && obj->type_index == XFFI_TYPE_ERROR; }

/* The error of an argument that must be an Error (obj borrowed): ValueError
 * when NULL, else TypeError naming what came. Written here rather than with
 * the checks of c/runtime/check.h so that this file stays a leaf. */
static int raise_not_error(const char *function, const char *argument, const xffi_object *obj) {
  if (!obj) return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s is NULL", function, argument);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s expected ffi.Error, got %s", function, argument,
                          xffi_type_key(obj->type_index));
}

int xffi_error_append_frame(xffi_object *err, const char *frame) {
  XFFI_CHECK_ARG_NOT_NULL(err);
  XFFI_CHECK_ARG_NOT_NULL(frame);
  if (!is_error(err)) return raise_not_error(__func__, "err", err);
  xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  if (cell->update_backtrace == static_error_update_backtrace) return XFFI_OK;
  size_t size = strlen(frame);
  int needs_newline = size == 0 || frame[size - 1] != '\n';
  /* One line per frame: add the newline here so callers need not. */
  char stack_line[256];
  char *line = size + 2 <= sizeof(stack_line) ? stack_line : xffi_alloc(size + 2);
  if (!line) return xffi_error_raise_out_of_memory();
  memcpy(line, frame, size);
  if (needs_newline) line[size++] = '\n';
  xffi_byte_array text = {line, size};
  size_t before = cell->backtrace.size;
  const char *before_data = cell->backtrace.data;
  cell->update_backtrace(err, &text, XFFI_BACKTRACE_APPEND);
  if (line != stack_line) xffi_free(line);
  if (cell->backtrace.data == before_data && cell->backtrace.size == before) return xffi_error_raise_out_of_memory();
  return XFFI_OK;
}

int xffi_error_pass(const char *frame) {
  xffi_object *err = xffi_raised_slot;
  /* A failure to record the frame must not replace the error being passed. */
  if (err && frame) {
    xffi_object_inc_ref_inline(err);
    if (xffi_error_append_frame(err, frame) != XFFI_OK)
      xffi_error_set_raised(err);
    else
      xffi_object_dec_ref_inline(err);
  }
  return XFFI_FAIL;
}

static const xffi_object *next_cause(const xffi_object *e) {
  return is_error(e) ? xffi_error_cell_of_unchecked((xffi_object *)e)->cause_chain : NULL;
}

/* Walks the chain from `from` (borrowed): 1 if it reaches target, 2 if it
 * loops without reaching it (possible only through cells written directly),
 * 0 if it ends. Brent's cycle finding: constant memory, O(chain) steps. */
static int cause_chain_reaches(const xffi_object *from, const xffi_object *target) {
  const xffi_object *tortoise = from;
  size_t power = 1, steps = 0;
  for (const xffi_object *hare = from; hare;) {
    if (hare == target) return 1;
    hare = next_cause(hare);
    if (hare && hare == tortoise) return 2;
    if (++steps == power) {
      tortoise = hare;
      power *= 2;
      steps = 0;
    }
  }
  return 0;
}

int xffi_error_set_cause(xffi_object *err, xffi_object *cause) {
  if (!is_error(err)) {
    int status = raise_not_error(__func__, "err", err);
    xffi_object_dec_ref_inline(cause);
    return status;
  }
  if (cause && !is_error(cause)) {
    int status = raise_not_error(__func__, "cause", cause);
    xffi_object_dec_ref_inline(cause);
    return status;
  }
  if (err == &out_of_memory.header || cause == err) {
    xffi_object_dec_ref_inline(cause);
    return xffi_error_raise(
        XFFI_KIND_VALUE, "%s: %s", __func__,
        cause == err ? "an error cannot be its own cause" : "the shared MemoryError takes no cause");
  }
  /* err is in cause's chain only if some error cites it: one that this
   * runtime never made a cause skips the walk, so a chain built by giving
   * each new error the chain so far costs linear time, not quadratic. */
  const error_object *own =
      xffi_error_cell_of_unchecked(err)->update_backtrace == error_update_backtrace ? (const error_object *)err : NULL;
  int reaches = own && !__atomic_load_n(&own->cited, __ATOMIC_ACQUIRE) ? 0 : cause_chain_reaches(cause, err);
  if (reaches) {
    xffi_object_dec_ref_inline(cause);
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s", __func__,
                            reaches == 1 ? "err is already in cause's chain; setting it would close a cycle"
                                         : "cause's chain already loops");
  }
  xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  xffi_object *old = cell->cause_chain;
  mark_cited(cause);
  cell->cause_chain = cause;
  xffi_object_dec_ref_inline(old);
  return XFFI_OK;
}

void **xffi_error_extra_context_slot(xffi_object *err) {
  if (!is_error(err) || err == &out_of_memory.header) return NULL;
  return &xffi_error_cell_of_unchecked(err)->extra_context;
}

int xffi_error_is_kind(xffi_object *err, const char *kind) {
  if (!is_error(err) || !kind) return 0;
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  return cell->kind.size == strlen(kind) && memcmp(cell->kind.data, kind, cell->kind.size) == 0;
}
