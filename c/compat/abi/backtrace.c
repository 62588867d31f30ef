/* c/compat/abi/backtrace.c: TVMFFIBacktrace, the native stack of the calling thread as
 * text in the format tvm_ffi's Python error handling parses into traceback
 * entries, one frame a line, innermost (most recent) first:
 *     File "<module path>", line 0, in <symbol>+0x<offset>
 * (line 0: without debug information no line is known). It runs on the
 * error path only: capturing walks the stack (c/platform/platform_unwind.c), and
 * nothing is done until an error is raised. The text lives in one buffer
 * per thread, reused by the thread's next call and freed when it exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xffi/tvm_ffi.h>

#include "runtime/internal.h"
#include "platform/platform.h"
#include "compat/abi/backtrace.h"

/* At most this many frames, as tvm-ffi (TVM_TRACEBACK_LIMIT lowers it):
 * 4 KiB of return addresses on the stack. */
#define BACKTRACE_FRAMES_MAX 512

typedef struct backtrace_buffer {
  char *text;
  size_t size;
  size_t capacity;
} backtrace_buffer;

static _Thread_local backtrace_buffer thread_buffer;
static _Thread_local xffi_byte_array thread_result;
static xffi_once buffer_key_once = XFFI_ONCE_INITIALIZER;
static xffi_thread_key buffer_key;
static int buffer_key_ok;

static void buffer_release(void *text) { xffi_free(text); }
static void buffer_key_create(void) { buffer_key_ok = xffi_thread_key_create(&buffer_key, buffer_release) == 0; }

/* Appends text to the thread's buffer; 0 when out of memory (the buffer
 * keeps what it had). */
static int buffer_append(backtrace_buffer *b, const char *text, size_t size) {
  if (b->size + size + 1 > b->capacity) {
    size_t capacity = b->capacity ? b->capacity * 2 : 1024;
    while (capacity < b->size + size + 1) capacity *= 2;
    char *grown = xffi_realloc(b->text, capacity);
    if (!grown) return 0;
    if (grown != b->text) {
      xffi_call_once(&buffer_key_once, buffer_key_create);
      /* The key frees the buffer when the thread exits (without a key it
       * stays until process exit: one buffer per thread). */
      if (buffer_key_ok) xffi_thread_key_set(buffer_key, grown);
    }
    b->text = grown;
    b->capacity = capacity;
  }
  memcpy(b->text + b->size, text, size);
  b->size += size;
  b->text[b->size] = '\0';
  return 1;
}

static int append_frame(backtrace_buffer *b, const char *file, long line, const char *func, size_t offset) {
  char head[64];
  int n = snprintf(head, sizeof(head), "\", line %ld, in ", line);
  if (n < 0) return 0;
  if (!buffer_append(b, "  File \"", 8) || !buffer_append(b, file, strlen(file)) ||
      !buffer_append(b, head, (size_t)n) || !buffer_append(b, func, strlen(func)))
    return 0;
  if (offset) {
    char tail[32];
    n = snprintf(tail, sizeof(tail), "+0x%zx", offset);
    if (n < 0 || !buffer_append(b, tail, (size_t)n)) return 0;
  }
  return buffer_append(b, "\n", 1);
}

static int starts_with(const char *s, const char *prefix) { return s && strncmp(s, prefix, strlen(prefix)) == 0; }

/* Frames where a backtrace taken inside an FFI call stops: the call's entry
 * and the Python interpreter (whose frames Python reports itself). */
static int is_ffi_boundary(const char *symbol) {
  return starts_with(symbol, "TVMFFIFunctionCall") || starts_with(symbol, "xffi_function_call") ||
         starts_with(symbol, "_Py") || starts_with(symbol, "PyObject") || starts_with(symbol, "slot_tp_call");
}

/* The runtime's own error-raising frames, which say nothing about the error. */
static int is_runtime_error_frame(const char *symbol) {
  return starts_with(symbol, "TVMFFIBacktrace") || starts_with(symbol, "TVMFFIErrorSetRaisedFromCStr") ||
         starts_with(symbol, "xffi_error_") || starts_with(symbol, "__libc_");
}

static size_t frame_limit(void) {
  const char *env = getenv("TVM_TRACEBACK_LIMIT");
  if (env && *env) {
    char *end = NULL;
    long value = strtol(env, &end, 10);
    if (*end == '\0' && value >= 0 && value < BACKTRACE_FRAMES_MAX) return (size_t)value;
  }
  return BACKTRACE_FRAMES_MAX;
}

const xffi_byte_array *xffi_backtrace_capture(void *first_kept, const char *filename, int lineno, const char *func,
                                              int cross_ffi_boundary) {
  backtrace_buffer *b = &thread_buffer;
  b->size = 0;
  if (b->text) b->text[0] = '\0';
  size_t limit = frame_limit(), written = 0;
  if (filename && func && limit) {
    if (append_frame(b, filename, lineno, func, 0)) written++;
  }
  void *frames[BACKTRACE_FRAMES_MAX];
  size_t count = xffi_platform_stack(frames, BACKTRACE_FRAMES_MAX);
  /* Frames up to first_kept (the return address into the runtime's caller)
   * are the runtime's own; when it is not found (a tail call hid it), every
   * frame is kept and the name filter below drops the runtime's. */
  size_t start = 0;
  if (first_kept) {
    for (size_t i = 0; i < count; ++i) {
      if (frames[i] == first_kept) {
        start = i;
        break;
      }
    }
  }
  /* Given the caller's own location, the caller's frame is already written. */
  if (filename && func && start < count && frames[start] == first_kept) start++;
  for (size_t i = start; i < count && written < limit; ++i) {
    xffi_frame_description d;
    if (!xffi_platform_describe_frame(frames[i], &d) || !d.module) continue;
    if (!cross_ffi_boundary && is_ffi_boundary(d.symbol)) break;
    if (is_runtime_error_frame(d.symbol)) continue;
    if (!append_frame(b, d.module, 0, d.symbol ? d.symbol : "<unknown>", d.offset)) break;
    written++;
  }
  thread_result.data = b->text ? b->text : "";
  thread_result.size = b->size;
  return &thread_result;
}

/* WebAssembly has no return addresses to read. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__wasm__)
#  define RETURN_ADDRESS() __builtin_return_address(0)
#else
#  define RETURN_ADDRESS() NULL
#endif

const xffi_byte_array *TVMFFIBacktrace(const char *filename, int lineno, const char *func, int cross_ffi_boundary) {
  return xffi_backtrace_capture(RETURN_ADDRESS(), filename, lineno, func, cross_ffi_boundary);
}
