/* c/lib/container/seq_buffer.c: element buffers of Lists and grown Arrays, shared with
 * tvm-ffi's C++ growth (why and how: c/lib/container/seq_buffer.h). */
#include "lib/container/seq_buffer.h"

_Static_assert(sizeof(xffi_seq_cell *) <= XFFI_SEQ_BUFFER_PREFIX, "the owner fits the prefix");

static char *block_of(void *data) { return (char *)data - XFFI_SEQ_BUFFER_PREFIX; }

void *xffi_seq_buffer_new(xffi_seq_cell *cell, size_t bytes) {
  if (bytes > XFFI_SEQ_BUFFER_MAX_BYTES) return NULL;
  char *block = xffi_alloc(XFFI_SEQ_BUFFER_PREFIX + bytes);
  if (!block) return NULL;
  *(xffi_seq_cell **)(void *)block = cell;
  return block + XFFI_SEQ_BUFFER_PREFIX;
}

void xffi_seq_buffer_free(void *data) {
  char *block = block_of(data);
  xffi_seq_cell *cell = *(xffi_seq_cell **)(void *)block;
  /* tvm-ffi's Reserve is about to put its own buffer in the cell and keep
   * this deleter: make it the one for that buffer. (xffi's own callers set
   * the deleter again afterwards.) */
  if (cell->data == data) cell->data_deleter = xffi_seq_foreign_free;
  xffi_free(block);
}

void xffi_seq_foreign_free(void *data) { free(data); }
