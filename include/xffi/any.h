/* xffi/any.h: Any, the 16-byte tagged value that crosses every boundary.
 *
 * The same struct is used two ways, and each function says which:
 * - an owned value ("Any") holds a strong reference when it holds an object,
 *   and is released with xffi_any_release;
 * - a borrowed view ("view") refers to something owned elsewhere and may also
 *   hold borrowed C strings, byte arrays and DLTensor pointers.
 * Function arguments are views; a result is owned by the caller.
 *
 * Conversion rules of the checked accessors (xffi_any_to_*):
 * - int accepts int and bool (true is 1);
 * - bool accepts bool and int (non-zero is true);
 * - float accepts float, int and bool (converted to double);
 * - opaque pointer accepts a pointer and None (NULL);
 * - string accepts small strings, String objects and borrowed C strings;
 * - bytes accepts everything a string accepts plus small bytes, Bytes objects
 *   and borrowed byte arrays;
 * - object of type T accepts objects that are instances of T, and None (NULL).
 * Anything else is a TypeError "expected <what>, got <what came>".
 *
 * Malformed values (bits no constructor here makes) are a ValueError
 * "<function>: <argument> is malformed: <what>" at every function that takes
 * an Any: a RAW_STR, BYTE_ARRAY_PTR or DLTENSOR_PTR view with a NULL
 * pointer, a BYTE_ARRAY_PTR with NULL data and a non-zero size, an object
 * type index with a NULL object, SMALL_STR or SMALL_BYTES with small_len over
 * 7, a negative type index. */
#ifndef XFFI_ANY_H
#define XFFI_ANY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xffi/dlpack.h>
#include <xffi/export.h>
#include <xffi/object.h>
#include <xffi/sys/object.h>
#include <xffi/type.h>

XFFI_EXTERN_C_BEGIN

/* The longest string or byte run stored inline in an Any (no allocation). */
#define XFFI_SMALL_STR_MAX 7

/* 16 bytes, 8-byte aligned. small_len is the length of an inline small string
 * or small bytes value, and zero for every other kind. */
typedef struct xffi_any {
  int32_t type_index;
  uint32_t small_len;
  union {
    int64_t v_int64;
    double v_float64;
    void *v_ptr;
    const char *v_c_str;
    const xffi_byte_array *v_bytes_ptr;
    DLTensor *v_dltensor;
    xffi_object *v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
    char v_small[8];
  };
} xffi_any;

/* ---- Constructors (inline, no allocation). ----
 * All of them make values that own nothing, except xffi_any_object_new_ref:
 * as views they need no release; xffi_any_release on them is harmless. */

static inline xffi_any xffi_any_none(void) {
  xffi_any v;
  v.type_index = XFFI_TYPE_NONE;
  v.small_len = 0;
  v.v_int64 = 0;
  return v;
}
static inline xffi_any xffi_any_int(int64_t x) {
  xffi_any v = xffi_any_none();
  v.type_index = XFFI_TYPE_INT;
  v.v_int64 = x;
  return v;
}
static inline xffi_any xffi_any_bool(int x) {
  xffi_any v = xffi_any_none();
  v.type_index = XFFI_TYPE_BOOL;
  v.v_int64 = x != 0;
  return v;
}
static inline xffi_any xffi_any_float(double x) {
  xffi_any v = xffi_any_none();
  v.type_index = XFFI_TYPE_FLOAT;
  v.v_float64 = x;
  return v;
}
static inline xffi_any xffi_any_ptr(void *p) {
  xffi_any v = xffi_any_none();
  v.type_index = p ? XFFI_TYPE_OPAQUE_PTR : XFFI_TYPE_NONE;
  v.v_ptr = p;
  return v;
}
static inline xffi_any xffi_any_dtype(DLDataType dtype) {
  xffi_any v = xffi_any_none();
  v.type_index = XFFI_TYPE_DTYPE;
  v.v_dtype = dtype;
  return v;
}
static inline xffi_any xffi_any_device(DLDevice device) {
  xffi_any v = xffi_any_none();
  v.type_index = XFFI_TYPE_DEVICE;
  v.v_device = device;
  return v;
}
/* A view of a borrowed DLTensor (NULL gives None). */
static inline xffi_any xffi_any_dltensor(DLTensor *t) {
  xffi_any v = xffi_any_none();
  v.type_index = t ? XFFI_TYPE_DLTENSOR_PTR : XFFI_TYPE_NONE;
  v.v_dltensor = t;
  return v;
}
/* A view of a borrowed NUL-terminated string (NULL gives None). */
static inline xffi_any xffi_any_c_str(const char *s) {
  xffi_any v = xffi_any_none();
  v.type_index = s ? XFFI_TYPE_RAW_STR : XFFI_TYPE_NONE;
  v.v_c_str = s;
  return v;
}
/* A view of a borrowed byte run (NULL gives None). */
static inline xffi_any xffi_any_byte_array(const xffi_byte_array *b) {
  xffi_any v = xffi_any_none();
  v.type_index = b ? XFFI_TYPE_BYTE_ARRAY_PTR : XFFI_TYPE_NONE;
  v.v_bytes_ptr = b;
  return v;
}
/* A view of an object (borrowed: no reference is taken; NULL gives None). */
static inline xffi_any xffi_any_object(xffi_object *obj) {
  xffi_any v = xffi_any_none();
  if (obj) {
    v.type_index = obj->type_index;
    v.v_obj = obj;
  }
  return v;
}
/* An owned value holding obj: takes a new strong reference (NULL gives None). */
static inline xffi_any xffi_any_object_new_ref(xffi_object *obj) {
  xffi_object_inc_ref_inline(obj);
  return xffi_any_object(obj);
}

/* ---- Kinds. ---- */

/* Whether the value's type index is an object index (so it holds a reference
 * when owned). */
static inline int xffi_any_is_object(const xffi_any *v) { return v->type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN; }

/* A short name for what the value holds, for messages: "int", "None",
 * "String", a user type's key... Borrowed, immortal. NULL v gives "NULL". */
XFFI_API const char *xffi_any_kind_name(const xffi_any *v);

/* ---- Ownership. ---- */

/* Releases an owned value: drops its reference if it holds an object, and
 * resets it to None. NULL is allowed and ignored. */
static inline void xffi_any_release(xffi_any *v) {
  if (v && xffi_any_is_object(v)) xffi_object_dec_ref_inline(v->v_obj);
  if (v) *v = xffi_any_none();
}

/* Moves an owned value: *dst (which must hold nothing that needs releasing)
 * takes src's contents and reference, and src becomes None. */
static inline void xffi_any_move(xffi_any *dst, xffi_any *src) {
  *dst = *src;
  *src = xffi_any_none();
}

/* Makes an owned copy of a view: objects get a new reference; borrowed C
 * strings and byte arrays are copied into small values or new String/Bytes
 * objects; plain values (including opaque and DLTensor pointers, which never
 * imply ownership) are copied as they are. *out must hold
 * nothing that needs releasing; on failure it is left None.
 * Errors: ValueError for NULL arguments or a malformed view, TypeError for an
 * object rvalue, MemoryError. */
XFFI_API int xffi_any_copy(xffi_any *out, const xffi_any *view);

/* Makes an owned string value from bytes (borrowed, copied): inline when at
 * most 7 bytes, otherwise a new String object. Errors: ValueError for a NULL
 * out, or NULL data with size > 0; MemoryError. */
XFFI_API int xffi_any_from_str(xffi_any *out, const char *data, size_t size);

/* The same for bytes (small bytes inline, otherwise a new Bytes object). */
XFFI_API int xffi_any_from_bytes(xffi_any *out, const char *data, size_t size);

/* ---- Checked accessors (see the conversion rules at the top). ----
 * Each writes the converted value to *out and returns XFFI_OK, or raises a
 * TypeError "expected <kind>, got <kind>" and returns XFFI_FAIL leaving *out
 * unchanged. NULL arguments and malformed values are a ValueError. Nothing
 * is allocated. */
XFFI_API int xffi_any_to_int(int64_t *out, const xffi_any *v);
XFFI_API int xffi_any_to_bool(int *out, const xffi_any *v);
XFFI_API int xffi_any_to_float(double *out, const xffi_any *v);
XFFI_API int xffi_any_to_ptr(void **out, const xffi_any *v);
XFFI_API int xffi_any_to_dtype(DLDataType *out, const xffi_any *v);
XFFI_API int xffi_any_to_device(DLDevice *out, const xffi_any *v);
/* *out borrows the characters from v: valid while v (and what it borrows)
 * lives. For small strings that means while *v itself is unchanged. */
XFFI_API int xffi_any_to_str(xffi_byte_array *out, const xffi_any *v);
XFFI_API int xffi_any_to_bytes(xffi_byte_array *out, const xffi_any *v);
/* *out borrows the object (no reference taken); None gives NULL.
 * type_index is the expected object type (XFFI_TYPE_OBJECT for any object). */
XFFI_API int xffi_any_to_object(xffi_object **out, const xffi_any *v, int32_t type_index);

XFFI_EXTERN_C_END

#endif /* XFFI_ANY_H */
