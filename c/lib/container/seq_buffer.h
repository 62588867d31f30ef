/* c/lib/container/seq_buffer.h: the separate element buffers of Lists (and of Arrays that
 * outgrew their inline room), which tvm-ffi's C++ code may replace.
 *
 * tvm-ffi 0.1.15's inline ListObj::Reserve grows a List it did not make by
 * moving the elements to a buffer from ::operator new, calling the list's
 * data_deleter on the old buffer, and keeping that data_deleter for the new
 * one. So a deleter xffi sets sees its own buffers and, later, C++'s. Each
 * buffer xffi makes therefore starts with a private prefix naming the cell it
 * belongs to, and its deleter (xffi_seq_buffer_free), when it runs on the
 * buffer its cell still holds, points the cell at xffi_seq_foreign_free
 * before freeing: the deleter of whatever C++ puts there next. A foreign
 * buffer is given back as C++'s default ::operator delete does (the C
 * library's free: libstdc++'s, libc++'s and MSVC's default operator
 * new/delete are malloc/free), never to the allocator installed with
 * xffi_allocator_install. xffi grows any buffer, its own or foreign, by
 * moving the elements to a new buffer of its own, as tvm-ffi does. (valgrind still calls that free "mismatched" with
 * ::operator new: C cannot call ::operator delete.) */
#ifndef XFFI_SEQ_BUFFER_H
#define XFFI_SEQ_BUFFER_H

#include "runtime/internal.h"

/* The prefix: the owning cell's address, padded to 16 bytes so the elements
 * keep the alignment of the block (as xffi_alloc's). */
#define XFFI_SEQ_BUFFER_PREFIX 16
/* The largest byte size a buffer may have. */
#define XFFI_SEQ_BUFFER_MAX_BYTES (SIZE_MAX - XFFI_SEQ_BUFFER_PREFIX)

/* A new buffer of xffi's for bytes bytes of elements, belonging to cell
 * (borrowed: the cell must be the buffer's only holder, and the buffer is
 * only ever freed through its data_deleter, xffi_seq_buffer_free). NULL when
 * out of memory (nothing raised). */
void *xffi_seq_buffer_new(xffi_seq_cell *cell, size_t bytes);

/* The data_deleter of xffi's buffers: frees data (a buffer of xffi's) and,
 * if its cell still holds it, makes xffi_seq_foreign_free the cell's
 * data_deleter (see the top of this file). */
void xffi_seq_buffer_free(void *data);

/* The data_deleter of a buffer C++ put into a cell of xffi's: frees it with
 * the C library's free (NULL ignored). */
void xffi_seq_foreign_free(void *data);

#endif
