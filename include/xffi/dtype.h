/* xffi/dtype.h: DLPack data types and devices as text.
 *
 * Data types are written the way numpy, DLPack consumers and tvm-ffi write
 * them: a name with the bit width ("int8", "uint16", "float32", "bfloat16",
 * "complex64"), the fixed-width names "bool" (8 bits), "handle" (an opaque
 * 64-bit handle) and the narrow floats ("float8_e4m3fn", "float6_e3m2fn",
 * "float4_e2m1fn", ...), optionally followed by "x<lanes>" for a vector type
 * ("int8x4", "float32x8"). Devices are "<name>:<id>" ("cpu:0", "cuda:1");
 * the id may be left out ("cpu" is "cpu:0").
 *
 * Parsing is strict: the whole text must match, and widths are limited to
 * the ones a type code can have (int/uint 1..64, float 16/32/64, bfloat 16,
 * complex 32/64/128), so a typo is an error rather than a strange type. */
#ifndef XFFI_DTYPE_H
#define XFFI_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/dlpack.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

/* A buffer of this many bytes always holds the text of any data type or
 * device, NUL included ("float8_e4m3b11fnuzx65535" and "cuda_managed:-2147483648"
 * are the longest). */
#define XFFI_DTYPE_STR_MAX 32
#define XFFI_DEVICE_STR_MAX 32

/* Builds a DLDataType (no checks). */
static inline DLDataType xffi_dtype_make(uint8_t code, uint8_t bits, uint16_t lanes) {
  DLDataType t;
  t.code = code;
  t.bits = bits;
  t.lanes = lanes;
  return t;
}

/* Whether two data types are the same (code, bits and lanes). */
static inline int xffi_dtype_equal(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/* Builds a DLDevice (no checks). */
static inline DLDevice xffi_device_make(int32_t device_type, int32_t device_id) {
  DLDevice d;
  d.device_type = (DLDeviceType)device_type;
  d.device_id = device_id;
  return d;
}

/* The number of bytes of one element of dtype, rounded up for sub-byte types
 * (int4 is 1). */
static inline size_t xffi_dtype_nbytes(DLDataType dtype) { return ((size_t)dtype.bits * dtype.lanes + 7) / 8; }

/* Parses a data type from a NUL-terminated string (borrowed) into *out.
 * Errors: ValueError for a NULL argument, or for text that is not a data
 * type, naming the text and what is wrong ("xffi_dtype_parse: \"float31\":
 * float takes 16, 32 or 64 bits, got 31"); *out is then unchanged. */
XFFI_API int xffi_dtype_parse(DLDataType *out, const char *text);

/* Writes the text of dtype, NUL-terminated, to buf (buf_size bytes; at most
 * XFFI_DTYPE_STR_MAX are ever needed). Lanes of 1 are not written.
 * Errors: ValueError for a NULL buf, an unknown type code, zero bits or
 * lanes, bits the code cannot have, or a buffer too small (then buf holds ""
 * when buf_size > 0). */
XFFI_API int xffi_dtype_to_str(char *buf, size_t buf_size, DLDataType dtype);

/* The name of a device type ("cpu", "cuda", "cuda_host", "opencl", "vulkan",
 * "metal", "vpi", "rocm", "rocm_host", "ext_dev", "cuda_managed", "oneapi",
 * "webgpu", "hexagon", "maia", "trn"), or NULL for a type DLPack does not
 * define. Static storage: never free it. */
XFFI_API const char *xffi_device_type_name(int32_t device_type);

/* Parses a device ("cpu", "cpu:0", "cuda:1") from a NUL-terminated string
 * (borrowed) into *out. Errors: ValueError for a NULL argument, an unknown
 * device name, or an id that is not a non-negative 32-bit decimal number;
 * *out is then unchanged. */
XFFI_API int xffi_device_parse(DLDevice *out, const char *text);

/* Writes "<name>:<id>" for device, NUL-terminated, to buf (buf_size bytes; at
 * most XFFI_DEVICE_STR_MAX are ever needed).
 * Errors: ValueError for a NULL buf, an unknown device type, or a buffer too
 * small (then buf holds "" when buf_size > 0). */
XFFI_API int xffi_device_to_str(char *buf, size_t buf_size, DLDevice device);

XFFI_EXTERN_C_END

#endif /* XFFI_DTYPE_H */
