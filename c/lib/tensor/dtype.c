/* c/lib/tensor/dtype.c: data types and devices to and from text. */
#include <stdio.h>
#include <string.h>

#include <xffi/dtype.h>

#include "runtime/check.h"
#include "runtime/internal.h"

/* Type codes with a fixed width: the whole name is the type. */
typedef struct fixed_dtype {
  const char *name;
  uint8_t code;
  uint8_t bits;
} fixed_dtype;

static const fixed_dtype fixed_dtypes[] = {
    {"bool", kDLBool, 8},
    {"handle", kDLOpaqueHandle, 64},
    {"float8_e3m4", kDLFloat8_e3m4, 8},
    {"float8_e4m3", kDLFloat8_e4m3, 8},
    {"float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8},
    {"float8_e4m3fn", kDLFloat8_e4m3fn, 8},
    {"float8_e4m3fnuz", kDLFloat8_e4m3fnuz, 8},
    {"float8_e5m2", kDLFloat8_e5m2, 8},
    {"float8_e5m2fnuz", kDLFloat8_e5m2fnuz, 8},
    {"float8_e8m0fnu", kDLFloat8_e8m0fnu, 8},
    {"float6_e2m3fn", kDLFloat6_e2m3fn, 6},
    {"float6_e3m2fn", kDLFloat6_e3m2fn, 6},
    {"float4_e2m1fn", kDLFloat4_e2m1fn, 4},
};

/* Type codes written as name + bit width. */
typedef struct sized_dtype {
  const char *name;
  uint8_t code;
  const char *allowed; /* for messages */
} sized_dtype;

static const sized_dtype sized_dtypes[] = {
    {"int", kDLInt, "1..64"},
    {"uint", kDLUInt, "1..64"},
    {"float", kDLFloat, "16, 32 or 64"},
    {"bfloat", kDLBfloat, "16"},
    {"complex", kDLComplex, "32, 64 or 128"},
};

static int sized_bits_ok(uint8_t code, unsigned bits) {
  switch (code) {
    case kDLInt:
    case kDLUInt: return bits >= 1 && bits <= 64;
    case kDLFloat: return bits == 16 || bits == 32 || bits == 64;
    case kDLBfloat: return bits == 16;
    case kDLComplex: return bits == 32 || bits == 64 || bits == 128;
    default: return 0;
  }
}

/* Parses a run of decimal digits at *p (at least one, at most max in value).
 * Returns 1 and advances *p, or 0 if there is no digit or the value is too big. */
static int parse_decimal(unsigned long *out, const char **p, unsigned long max) {
  const char *s = *p;
  unsigned long v = 0;
  if (*s < '0' || *s > '9') return 0;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (unsigned long)(*s - '0');
    if (v > max) return 0;
    s++;
  }
  *p = s;
  *out = v;
  return 1;
}

/* Parses the optional "x<lanes>" suffix at s, which must end the text. */
static int parse_lanes(const char *fn, uint16_t *lanes, const char *s, const char *text) {
  unsigned long v = 1;
  if (*s == 'x') {
    s++;
    if (!parse_decimal(&v, &s, 65535) || v == 0)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: \"%s\": lanes after 'x' must be 1..65535", fn, text);
  }
  if (*s != '\0') return xffi_error_raise(XFFI_KIND_VALUE, "%s: \"%s\": unexpected \"%s\" after the type", fn, text, s);
  *lanes = (uint16_t)v;
  return XFFI_OK;
}

int xffi_dtype_parse(DLDataType *out, const char *text) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(text);
  /* Fixed-width names first: the longest match wins ("float8_e4m3fn" over "float8_e4m3"). */
  const fixed_dtype *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < sizeof(fixed_dtypes) / sizeof(fixed_dtypes[0]); i++) {
    size_t n = strlen(fixed_dtypes[i].name);
    if (n > best_len && strncmp(text, fixed_dtypes[i].name, n) == 0 && (text[n] == '\0' || text[n] == 'x')) {
      best = &fixed_dtypes[i];
      best_len = n;
    }
  }
  if (best) {
    uint16_t lanes;
    if (parse_lanes(__func__, &lanes, text + best_len, text) != XFFI_OK) return XFFI_FAIL;
    *out = xffi_dtype_make(best->code, best->bits, lanes);
    return XFFI_OK;
  }
  /* Then name + bits; "uint" before "int" is not needed since matching is by
   * exact prefix followed by a digit. */
  for (size_t i = 0; i < sizeof(sized_dtypes) / sizeof(sized_dtypes[0]); i++) {
    const sized_dtype *d = &sized_dtypes[i];
    size_t n = strlen(d->name);
    if (strncmp(text, d->name, n) != 0 || text[n] < '0' || text[n] > '9') continue;
    const char *s = text + n;
    unsigned long bits;
    if (!parse_decimal(&bits, &s, 255) || !sized_bits_ok(d->code, (unsigned)bits)) {
      const char *digits = text + n;
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: \"%s\": %s takes %s bits, got %.*s", __func__, text, d->name,
                              d->allowed, (int)strspn(digits, "0123456789"), digits);
    }
    uint16_t lanes;
    if (parse_lanes(__func__, &lanes, s, text) != XFFI_OK) return XFFI_FAIL;
    *out = xffi_dtype_make(d->code, (uint8_t)bits, lanes);
    return XFFI_OK;
  }
  return xffi_error_raise(XFFI_KIND_VALUE,
                          "%s: \"%s\" is not a data type (expected e.g. \"float32\", \"int8x4\", "
                          "\"bool\", \"bfloat16\", \"float8_e4m3fn\")",
                          __func__, text);
}

/* Writes formatted text to buf or raises a ValueError if it does not fit. */
static int write_or_raise(const char *function, char *buf, size_t buf_size, int written) {
  if (written < 0 || (size_t)written >= buf_size) {
    if (buf_size > 0) buf[0] = '\0';
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: buf_size %zu is too small, %d bytes needed", function, buf_size,
                            written + 1);
  }
  return XFFI_OK;
}

int xffi_dtype_to_str(char *buf, size_t buf_size, DLDataType dtype) {
  XFFI_CHECK_ARG_NOT_NULL(buf);
  if (buf_size > 0) buf[0] = '\0';
  if (dtype.bits == 0 || dtype.lanes == 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: dtype has %u bits and %u lanes, both must be non-zero", __func__,
                            (unsigned)dtype.bits, (unsigned)dtype.lanes);
  const char *name = NULL;
  int with_bits = 0;
  for (size_t i = 0; i < sizeof(fixed_dtypes) / sizeof(fixed_dtypes[0]); i++) {
    if (fixed_dtypes[i].code == dtype.code) {
      if (fixed_dtypes[i].bits != dtype.bits)
        return xffi_error_raise(XFFI_KIND_VALUE, "%s: type code %u (%s) has %u bits, got %u", __func__,
                                (unsigned)dtype.code, fixed_dtypes[i].name, (unsigned)fixed_dtypes[i].bits,
                                (unsigned)dtype.bits);
      name = fixed_dtypes[i].name;
    }
  }
  for (size_t i = 0; !name && i < sizeof(sized_dtypes) / sizeof(sized_dtypes[0]); i++) {
    if (sized_dtypes[i].code == dtype.code) {
      if (!sized_bits_ok(dtype.code, dtype.bits))
        return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s takes %s bits, got %u", __func__, sized_dtypes[i].name,
                                sized_dtypes[i].allowed, (unsigned)dtype.bits);
      name = sized_dtypes[i].name;
      with_bits = 1;
    }
  }
  if (!name) return xffi_error_raise(XFFI_KIND_VALUE, "%s: unknown type code %u", __func__, (unsigned)dtype.code);
  char bits[8] = "";
  char lanes[8] = "";
  if (with_bits) snprintf(bits, sizeof(bits), "%u", (unsigned)dtype.bits);
  if (dtype.lanes != 1) snprintf(lanes, sizeof(lanes), "x%u", (unsigned)dtype.lanes);
  int n = snprintf(buf, buf_size, "%s%s%s", name, bits, lanes);
  return write_or_raise(__func__, buf, buf_size, n);
}

/* Device names, indexed by DLDeviceType (NULL: no such type). */
static const char *const device_names[] = {
    NULL,   "cpu",       "cuda",    "cuda_host",    "opencl", NULL,     NULL,      "vulkan", "metal", "vpi",
    "rocm", "rocm_host", "ext_dev", "cuda_managed", "oneapi", "webgpu", "hexagon", "maia",   "trn",
};

const char *xffi_device_type_name(int32_t device_type) {
  if (device_type < 0 || (size_t)device_type >= sizeof(device_names) / sizeof(device_names[0])) return NULL;
  return device_names[device_type];
}

int xffi_device_parse(DLDevice *out, const char *text) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(text);
  size_t name_len = strcspn(text, ":");
  int32_t type = -1;
  for (size_t i = 0; i < sizeof(device_names) / sizeof(device_names[0]); i++) {
    if (device_names[i] && strlen(device_names[i]) == name_len && strncmp(text, device_names[i], name_len) == 0) {
      type = (int32_t)i;
      break;
    }
  }
  if (type < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: \"%s\": unknown device \"%.*s\" (expected e.g. \"cpu\", \"cuda:0\")",
                            __func__, text, (int)name_len, text);
  unsigned long id = 0;
  if (text[name_len] == ':') {
    const char *s = text + name_len + 1;
    if (!parse_decimal(&id, &s, INT32_MAX) || *s != '\0')
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: \"%s\": the id after ':' must be a number 0..%d", __func__, text,
                              (int)INT32_MAX);
  }
  *out = xffi_device_make(type, (int32_t)id);
  return XFFI_OK;
}

int xffi_device_to_str(char *buf, size_t buf_size, DLDevice device) {
  XFFI_CHECK_ARG_NOT_NULL(buf);
  if (buf_size > 0) buf[0] = '\0';
  const char *name = xffi_device_type_name((int32_t)device.device_type);
  if (!name) return xffi_error_raise(XFFI_KIND_VALUE, "%s: unknown device type %d", __func__, (int)device.device_type);
  int n = snprintf(buf, buf_size, "%s:%d", name, (int)device.device_id);
  return write_or_raise(__func__, buf, buf_size, n);
}
