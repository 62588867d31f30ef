/* c/lib/module/module_bin.c: the module tree a library embeds under
 * __tvm_ffi__library_bin, read as tvm-ffi writes it:
 *
 *   <nbytes: u64> then nbytes bytes of
 *   <indptr: vec<u64>> <child_indices: vec<u64>>   (the import tree, CSR)
 *   per module: <kind: str> [<payload: str> unless kind is "_lib"]
 *
 * all integers little-endian, a vec or str being a u64 count then its items.
 * Module i imports child_indices[indptr[i] .. indptr[i+1]); module 0 is the
 * root. "_lib" stands for the library's own module; any other kind is made
 * by the global ffi.Module.load_from_bytes.<kind> from the payload (Bytes).
 * The bytes come from a library file: every count and index is checked
 * against what is left, and a bad one is a RuntimeError naming it. */
#include <string.h>

#include <xffi/function.h>
#include <xffi/string.h>

#include "runtime/internal.h"
#include "lib/module/module_internal.h"

typedef struct bin_reader {
  const unsigned char *data;
  size_t left;
} bin_reader;

static int malformed(const char *what) {
  return xffi_error_raise(XFFI_KIND_RUNTIME, "%s is malformed: %s", XFFI_LIBRARY_BIN_SYMBOL, what);
}

static uint64_t load_u64_le(const unsigned char *p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

static int read_u64(uint64_t *out, bin_reader *r, const char *what) {
  if (r->left < 8) return malformed(what);
  *out = load_u64_le(r->data);
  r->data += 8;
  r->left -= 8;
  return XFFI_OK;
}

/* A vec<u64>: *out borrows the items (read with load_u64_le). */
static int read_vec(const unsigned char **out, uint64_t *out_count, bin_reader *r, const char *what) {
  uint64_t count = 0;
  if (read_u64(&count, r, what) != XFFI_OK) return XFFI_FAIL;
  if (count > r->left / 8) return malformed(what);
  *out = r->data;
  *out_count = count;
  r->data += count * 8;
  r->left -= (size_t)count * 8;
  return XFFI_OK;
}

/* A str: *out borrows the bytes. */
static int read_str(xffi_byte_array *out, bin_reader *r, const char *what) {
  uint64_t size = 0;
  if (read_u64(&size, r, what) != XFFI_OK) return XFFI_FAIL;
  if (size > r->left) return malformed(what);
  out->data = (const char *)r->data;
  out->size = (size_t)size;
  r->data += size;
  r->left -= (size_t)size;
  return XFFI_OK;
}

/* Makes a module of kind from payload with ffi.Module.load_from_bytes.<kind>:
 * *out a new reference. */
static int load_from_bytes(xffi_object **out, xffi_byte_array kind, xffi_byte_array payload) {
  *out = NULL;
  static const char head[] = "ffi.Module.load_from_bytes.";
  char name[256];
  if (kind.size > sizeof name - sizeof head || memchr(kind.data, '\0', kind.size))
    return malformed("a module kind is too long or holds a NUL");
  memcpy(name, head, sizeof head - 1);
  memcpy(name + sizeof head - 1, kind.data, kind.size);
  name[sizeof head - 1 + kind.size] = '\0';
  xffi_object *loader;
  if (xffi_function_global_lookup(&loader, name) != XFFI_OK) return XFFI_FAIL;
  if (!loader)
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "Library binary was created using {%s} but a loader of that name is not registered "
                            "(expected the global function %s)",
                            name + sizeof head - 1, name);
  xffi_object *bytes;
  int status = xffi_bytes_new(&bytes, payload.data, payload.size);
  xffi_any result = xffi_any_none();
  if (status == XFFI_OK) {
    xffi_any arg = xffi_any_object(bytes);
    status = xffi_function_call(loader, &arg, 1, &result);
    xffi_object_dec_ref(bytes);
  }
  xffi_object_dec_ref(loader);
  if (status != XFFI_OK) return XFFI_FAIL;
  if (!xffi_any_is_object(&result) || !xffi_module_is_readable(result.v_obj)) {
    const char *got = xffi_any_kind_name(&result);
    xffi_any_release(&result);
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected a Module made by this runtime, got %s", name, got);
  }
  *out = result.v_obj;
  return XFFI_OK;
}

int xffi_module_tree_from_bin(xffi_object **out, int *out_lib_used, const unsigned char *bin, xffi_object *lib) {
  *out = NULL;
  *out_lib_used = 0;
  uint64_t nbytes = load_u64_le(bin);
  bin_reader r = {bin + 8, nbytes > SIZE_MAX - 8 ? SIZE_MAX - 8 : (size_t)nbytes};
  const unsigned char *indptr, *children;
  uint64_t indptr_count, child_count;
  if (read_vec(&indptr, &indptr_count, &r, "the import tree's index pointers") != XFFI_OK) return XFFI_FAIL;
  if (read_vec(&children, &child_count, &r, "the import tree's child indices") != XFFI_OK) return XFFI_FAIL;
  if (indptr_count < 2) return malformed("the import tree has no module");
  size_t count = (size_t)indptr_count - 1;
  uint64_t previous = 0;
  for (size_t i = 0; i <= count; ++i) {
    uint64_t at = load_u64_le(indptr + 8 * i);
    if (at < previous || at > child_count) return malformed("an index pointer is out of order or out of range");
    previous = at;
  }
  for (uint64_t j = 0; j < child_count; ++j)
    if (load_u64_le(children + 8 * j) >= count) return malformed("a child index is out of range");
  xffi_object **modules = xffi_alloc_zeroed(count, sizeof *modules);
  if (!modules) return xffi_error_raise_out_of_memory();
  int status = XFFI_OK;
  for (size_t i = 0; i < count && status == XFFI_OK; ++i) {
    xffi_byte_array kind, payload;
    status = read_str(&kind, &r, "a module kind");
    if (status != XFFI_OK) break;
    if (kind.size == 4 && memcmp(kind.data, "_lib", 4) == 0) {
      xffi_object_inc_ref(lib);
      modules[i] = lib;
      *out_lib_used = 1;
      continue;
    }
    status = read_str(&payload, &r, "a module's bytes");
    if (status == XFFI_OK) status = load_from_bytes(&modules[i], kind, payload);
  }
  for (size_t i = 0; i < count && status == XFFI_OK; ++i) {
    uint64_t begin = load_u64_le(indptr + 8 * i), end = load_u64_le(indptr + 8 * (i + 1));
    for (uint64_t j = begin; j < end && status == XFFI_OK; ++j)
      status = xffi_module_import(modules[i], modules[load_u64_le(children + 8 * j)]);
  }
  if (status == XFFI_OK) {
    *out = modules[0];
    modules[0] = NULL;
  } else {
    *out_lib_used = 0; /* imports point down the tree only: releasing frees it */
  }
  for (size_t i = 0; i < count; ++i)
    if (modules[i]) xffi_object_dec_ref(modules[i]);
  xffi_free(modules);
  return status;
}
