/* c/lib/tensor/dtype_tvm_text.c: tvm-ffi's dtype text (what its
 * TVMFFIDataTypeFromString and TVMFFIDataTypeToString read and write; those
 * names are in c/compat/abi/tvm_dtype.c): its grammar, aliases and error
 * messages, as the JSON graph and the printer write dtypes.
 *
 * Grammar: "" and "void" are the opaque {handle, 0 bits, 0 lanes}. Otherwise
 * a family name, optional bits, optional lanes "xN" (or "xvscalexN": N
 * scalable lanes, stored negated): int, uint, bool (8 bits), float,
 * bfloat (16), handle (64), float8_<variant>, float6_<variant>,
 * float4_e2m1fn (lanes also after '_'), custom[<name>]. Missing or zero
 * bits keep the family's default (32). Aliases are rewritten first: iN ->
 * intN, uN -> uintN, bfN -> bfloatN, fp8_/fp6_/fp4_ -> float8_/6_/4_,
 * fN -> floatN. Custom type names and codes come from the globals
 * dtype.get_custom_type_code / dtype.get_custom_type_name, as in tvm-ffi.
 * xffi_dtype_parse (c/lib/tensor/dtype.c) keeps xffi's own, stricter grammar. */
#include <stdio.h>
#include <string.h>

#include "lib/tensor/dtype_tvm_text.h"
#include "runtime/check.h"

enum { CUSTOM_CODE_BEGIN = 129 };

/* The family names by DLPack type code (tvm-ffi prints these); NULL: none. */
static const char *const code_names[] = {
    "int",
    "uint",
    "float",
    "handle",
    "bfloat",
    NULL /* complex */,
    "bool",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
};
enum { FIRST_NAMED_BITS_CODE = 7 }; /* float8_e3m4 and later spell their bits in the name */

/* A parse in progress: the normalised text (aliases rewritten), for the
 * messages, and a cursor. */
typedef struct parse {
  const char *text;
  size_t size;
  const char *at, *end;
} parse;

static int raise_unknown(const parse *p, const char *what) {
  return xffi_error_raise(XFFI_KIND_VALUE, "unknown %s `%.*s`", what, (int)p->size, p->text);
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int starts(const parse *p, size_t offset, const char *prefix) {
  size_t n = strlen(prefix);
  return p->size >= offset + n && memcmp(p->text + offset, prefix, n) == 0;
}

/* Decimal digits at the cursor (none: 0). Values past uint32 are an error. */
static int parse_digits(parse *p, uint32_t *out) {
  const char *start = p->at;
  uint64_t value = 0;
  int too_big = 0;
  while (p->at < p->end && is_digit(*p->at)) {
    if (!too_big) value = value * 10 + (uint64_t)(*p->at - '0');
    if (value > UINT32_MAX) too_big = 1;
    p->at++;
  }
  if (too_big)
    return xffi_error_raise(XFFI_KIND_VALUE, "Integer value in dtype string '%.*s' is out of range for uint32_t",
                            (int)(p->at - start), start);
  *out = (uint32_t)value;
  return XFFI_OK;
}

/* "xN" (or, when scalable is allowed, "xvscalexN") at the cursor; none: 1. */
static int parse_lanes(parse *p, int scalable, uint16_t *out) {
  int negate = 0;
  if (scalable && p->end - p->at >= 7 && memcmp(p->at, "xvscale", 7) == 0) {
    negate = 1;
    p->at += 7;
  }
  if (p->at >= p->end || *p->at != 'x') {
    *out = 1;
    return XFFI_OK;
  }
  p->at++;
  const char *digits = p->at;
  uint32_t lanes = 0;
  if (parse_digits(p, &lanes) != XFFI_OK) return XFFI_FAIL;
  if (p->at == digits || lanes == 0)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "Invalid lanes specification in dtype '%.*s'. Lanes must be a positive integer.",
                            (int)p->size, p->text);
  if (lanes > UINT16_MAX)
    return xffi_error_raise(XFFI_KIND_VALUE, "Lanes value %u is out of range for uint16_t in dtype '%.*s'",
                            (unsigned)lanes, (int)p->size, p->text);
  *out = (uint16_t)(negate ? (uint16_t)(0u - lanes) : lanes);
  return XFFI_OK;
}

typedef struct variant {
  const char *name;
  uint8_t code;
} variant;

/* float8_/float6_/float4_ followed by a variant name (longest names first,
 * as a shorter one is a prefix of a longer one), then optional lanes. */
static int parse_small_float(parse *p, size_t offset, const variant *variants, size_t count, uint8_t bits,
                             int underscore_lanes, const char *family, DLDataType *out) {
  for (size_t i = 0; i < count; ++i) {
    size_t n = strlen(variants[i].name), end = offset + n;
    if (!starts(p, offset, variants[i].name)) continue;
    if (!(end == p->size || p->text[end] == 'x' || (underscore_lanes && p->text[end] == '_'))) continue;
    p->at = p->text + end;
    if (underscore_lanes && p->at < p->end && *p->at == '_') p->at++;
    out->code = variants[i].code;
    out->bits = bits;
    if (parse_lanes(p, 0, &out->lanes) != XFFI_OK) return XFFI_FAIL;
    if (p->at != p->end) return raise_unknown(p, "dtype");
    return XFFI_OK;
  }
  return raise_unknown(p, family);
}

static const variant float8_variants[] = {
    {"e4m3b11fnuz", kDLFloat8_e4m3b11fnuz},
    {"e4m3fnuz", kDLFloat8_e4m3fnuz},
    {"e4m3fn", kDLFloat8_e4m3fn},
    {"e5m2fnuz", kDLFloat8_e5m2fnuz},
    {"e8m0fnu", kDLFloat8_e8m0fnu},
    {"e3m4", kDLFloat8_e3m4},
    {"e4m3", kDLFloat8_e4m3},
    {"e5m2", kDLFloat8_e5m2},
};
static const variant float6_variants[] = {{"e2m3fn", kDLFloat6_e2m3fn}, {"e3m2fn", kDLFloat6_e3m2fn}};
static const variant float4_variants[] = {{"e2m1fn", kDLFloat4_e2m1fn}};

/* custom[<name>] at the start: the code from dtype.get_custom_type_code. */
static int parse_custom(parse *p, DLDataType *out) {
  p->at = p->text + 6;
  if (p->at >= p->end || *p->at != '[')
    return xffi_error_raise(XFFI_KIND_VALUE, "expected opening brace after 'custom' type in%.*s", (int)p->size,
                            p->text);
  const char *name = ++p->at;
  while (p->at < p->end && *p->at != ']') p->at++;
  if (p->at >= p->end)
    return xffi_error_raise(XFFI_KIND_VALUE, "expected closing brace after 'custom' type in%.*s", (int)p->size,
                            p->text);
  size_t name_size = (size_t)(p->at - name);
  p->at++;
  xffi_object *lookup = NULL;
  if (xffi_function_global_lookup(&lookup, "dtype.get_custom_type_code") != XFFI_OK) return XFFI_FAIL;
  if (!lookup)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "custom dtype `%.*s` needs the global function dtype.get_custom_type_code, which is not "
                            "registered",
                            (int)p->size, p->text);
  xffi_any arg, result = xffi_any_none();
  int status = xffi_any_from_str(&arg, name, name_size);
  if (status == XFFI_OK) status = xffi_function_call(lookup, &arg, 1, &result);
  xffi_any_release(&arg);
  xffi_object_dec_ref(lookup);
  if (status != XFFI_OK) return XFFI_FAIL;
  if (result.type_index != XFFI_TYPE_INT || result.v_int64 < CUSTOM_CODE_BEGIN || result.v_int64 > 255) {
    xffi_any_release(&result);
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "dtype.get_custom_type_code returned no custom type code (%d..255) for `%.*s`",
                            CUSTOM_CODE_BEGIN, (int)name_size, name);
  }
  out->code = (uint8_t)result.v_int64;
  return XFFI_OK;
}

static int parse_dtype(parse *p, DLDataType *out) {
  out->bits = 32;
  out->lanes = 1;
  size_t skip;
  if (starts(p, 0, "int")) {
    out->code = kDLInt, skip = 3;
  } else if (starts(p, 0, "uint")) {
    out->code = kDLUInt, skip = 4;
  } else if (starts(p, 0, "bool")) {
    out->code = kDLBool, out->bits = 8, skip = 4;
  } else if (starts(p, 0, "float8_")) {
    return parse_small_float(p, 7, float8_variants, sizeof(float8_variants) / sizeof(variant), 8, 0, "float8 type",
                             out);
  } else if (starts(p, 0, "float6_")) {
    return parse_small_float(p, 7, float6_variants, 2, 6, 0, "float6 type", out);
  } else if (starts(p, 0, "float4_")) {
    return parse_small_float(p, 7, float4_variants, 1, 4, 1, "float4 type", out);
  } else if (starts(p, 0, "float")) {
    out->code = kDLFloat, skip = 5;
  } else if (starts(p, 0, "handle")) {
    out->code = kDLOpaqueHandle, out->bits = 64, skip = 6;
  } else if (starts(p, 0, "bfloat")) {
    out->code = kDLBfloat, out->bits = 16, skip = 6;
  } else if (starts(p, 0, "custom")) {
    if (parse_custom(p, out) != XFFI_OK) return XFFI_FAIL;
    skip = (size_t)(p->at - p->text);
  } else {
    return raise_unknown(p, "dtype");
  }
  p->at = p->text + skip;
  uint32_t bits = 0;
  if (parse_digits(p, &bits) != XFFI_OK) return XFFI_FAIL;
  if (bits > UINT8_MAX)
    return xffi_error_raise(XFFI_KIND_VALUE, "Bits value %u is out of range for uint8_t in dtype '%.*s'",
                            (unsigned)bits, (int)p->size, p->text);
  if (bits) out->bits = (uint8_t)bits;
  if (parse_lanes(p, 1, &out->lanes) != XFFI_OK) return XFFI_FAIL;
  if (p->at != p->end) return raise_unknown(p, "dtype");
  return XFFI_OK;
}

/* The canonical prefix an alias stands for, and how many bytes it replaces. */
static const char *alias_of(const char *s, size_t n, size_t *replaced) {
  if (n >= 2 && s[0] == 'i' && is_digit(s[1])) return *replaced = 1, "int";
  if (n >= 2 && s[0] == 'u' && is_digit(s[1])) return *replaced = 1, "uint";
  if (n >= 3 && s[0] == 'b' && s[1] == 'f' && is_digit(s[2])) return *replaced = 2, "bfloat";
  if (n >= 4 && memcmp(s, "fp8_", 4) == 0) return *replaced = 4, "float8_";
  if (n >= 4 && memcmp(s, "fp6_", 4) == 0) return *replaced = 4, "float6_";
  if (n >= 4 && memcmp(s, "fp4_", 4) == 0) return *replaced = 4, "float4_";
  if (n >= 2 && s[0] == 'f' && is_digit(s[1])) return *replaced = 1, "float";
  return *replaced = 0, NULL;
}

int xffi_dtype_from_tvm_text(const xffi_byte_array *str, DLDataType *out) {
  if (str->size == 0 || (str->size == 4 && memcmp(str->data, "void", 4) == 0)) {
    *out = (DLDataType){kDLOpaqueHandle, 0, 0};
    return XFFI_OK;
  }
  size_t replaced = 0;
  const char *canonical = alias_of(str->data, str->size, &replaced);
  char small[64];
  char *text = (char *)str->data;
  size_t size = str->size;
  if (canonical) {
    size_t prefix = strlen(canonical);
    if (size - replaced > SIZE_MAX - prefix) return xffi_error_raise_out_of_memory();
    size = prefix + size - replaced;
    text = size <= sizeof(small) ? small : xffi_alloc(size);
    if (!text) return xffi_error_raise_out_of_memory();
    memcpy(text, canonical, prefix);
    memcpy(text + prefix, str->data + replaced, str->size - replaced);
  }
  parse p = {text, size, text, text + size};
  DLDataType dtype = {0, 0, 0};
  int status = parse_dtype(&p, &dtype);
  if (text != str->data && text != small) xffi_free(text);
  if (status == XFFI_OK) *out = dtype;
  return status;
}

/* The name of a custom type code from dtype.get_custom_type_name, as an
 * owned value in *name. */
static int custom_type_name(uint8_t code, xffi_any *name) {
  xffi_object *lookup = NULL;
  if (xffi_function_global_lookup(&lookup, "dtype.get_custom_type_name") != XFFI_OK) return XFFI_FAIL;
  if (!lookup)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "custom dtype code %d needs the global function dtype.get_custom_type_name, which is not "
                            "registered",
                            (int)code);
  xffi_any arg = xffi_any_int(code);
  *name = xffi_any_none();
  int status = xffi_function_call(lookup, &arg, 1, name);
  xffi_object_dec_ref(lookup);
  if (status != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array text;
  if (xffi_any_to_str(&text, name) != XFFI_OK) {
    xffi_any_release(name);
    return XFFI_FAIL;
  }
  return XFFI_OK;
}

int xffi_dtype_to_tvm_text(const DLDataType *dtype, xffi_any *out) {
  DLDataType t = *dtype;
  if (t.code == kDLBool && t.bits == 8 && t.lanes == 1) return xffi_any_from_str(out, "bool", 4);
  if (t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0) return xffi_any_from_str(out, "", 0);
  /* custom[<name>] is at most the name plus what follows; names are short
   * but come from a callback, so a long one gets a heap buffer. */
  xffi_any name = xffi_any_none();
  xffi_byte_array family;
  if (t.code >= CUSTOM_CODE_BEGIN) {
    if (custom_type_name(t.code, &name) != XFFI_OK) return XFFI_FAIL;
    xffi_any_to_str(&family, &name);
  } else if (t.code < sizeof(code_names) / sizeof(code_names[0]) && code_names[t.code]) {
    family.data = code_names[t.code];
    family.size = strlen(family.data);
  } else {
    return xffi_error_raise(XFFI_KIND_VALUE, "DLDataType contains unknown type_code=%d", (int)t.code);
  }
  /* Bits follow the family name below float8 (bool only when not 8);
   * handle has neither bits nor lanes; custom names take no bits. */
  char tail[40] = "";
  int16_t lanes = (int16_t)t.lanes;
  size_t n = 0;
  if (t.code != kDLOpaqueHandle) {
    if (t.code < FIRST_NAMED_BITS_CODE && (t.code != kDLBool || t.bits != 8))
      n += (size_t)snprintf(tail, sizeof(tail), "%d", t.bits);
    if (lanes > 1)
      n += (size_t)snprintf(tail + n, sizeof(tail) - n, "x%d", lanes);
    else if (lanes < -1)
      n += (size_t)snprintf(tail + n, sizeof(tail) - n, "xvscalex%d", -lanes);
  }
  size_t custom = t.code >= CUSTOM_CODE_BEGIN ? 8 : 0; /* "custom[" and "]" */
  size_t size = custom + family.size + n;
  char *text = xffi_alloc(size + 1);
  if (!text) {
    xffi_any_release(&name);
    return xffi_error_raise_out_of_memory();
  }
  size_t at = 0;
  if (custom) memcpy(text, "custom[", 7), at = 7;
  memcpy(text + at, family.data, family.size), at += family.size;
  if (custom) text[at++] = ']';
  memcpy(text + at, tail, n);
  int status = xffi_any_from_str(out, text, size);
  xffi_free(text);
  xffi_any_release(&name);
  return status;
}
