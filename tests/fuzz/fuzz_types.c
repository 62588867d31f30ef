/* Fuzz target: type registration sequences. Keys come from a bounded domain
 * (so they repeat and the process-wide registry stays small), parents are
 * registered types, built-ins, plain-value indices or arbitrary numbers. A
 * model that lives as long as the registry (the whole fuzzing process)
 * predicts every result: the same key and parent give the same index, the
 * same key with another parent is a ValueError, a parent that is not a
 * registered object type a TypeError; lookups by key and index, depths,
 * ancestor chains and is-instance agree with the model. Arbitrary byte
 * strings are looked up too (KeyError unless registered). */
#include "fuzz_common.h"

enum { KEYS = 96 };

static int32_t model_index[KEYS]; /* 0: never registered */
static int32_t model_parent[KEYS];

static const char *key_name(int k, char *buf, size_t size) {
  snprintf(buf, size, "fuzz.types.T%d", k);
  return buf;
}

/* A parent candidate: a model type, a built-in object type, or anything. */
static int32_t pick_parent(fuzz_input *in) {
  uint8_t pick = fuzz_u8(in);
  if (pick < 128) {
    int k = fuzz_u8(in) % KEYS;
    return model_index[k] ? model_index[k] : XFFI_TYPE_OBJECT;
  }
  if (pick < 200) return XFFI_TYPE_OBJECT + pick % (XFFI_TYPE_BUILTIN_END - XFFI_TYPE_OBJECT);
  return (int32_t)fuzz_i64(in);
}

static int is_registered_object_type(int32_t index) {
  if (index >= XFFI_TYPE_OBJECT && index < XFFI_TYPE_BUILTIN_END) return 1;
  for (int k = 0; k < KEYS; ++k)
    if (model_index[k] && model_index[k] == index) return 1;
  return 0;
}

static int model_key_of(int32_t index) {
  for (int k = 0; k < KEYS; ++k)
    if (model_index[k] == index) return k;
  return -1;
}

/* The model's depth of a registered index. */
static int32_t model_depth(int32_t index) {
  if (index == XFFI_TYPE_OBJECT) return 0;
  if (index < XFFI_TYPE_BUILTIN_END) return 1;
  return model_depth(model_parent[model_key_of(index)]) + 1;
}

static void check_type(int k) {
  char buf[64];
  const xffi_type_info *by_key = NULL, *by_index = NULL;
  FUZZ_CHECK(xffi_type_info_get_by_key(&by_key, key_name(k, buf, sizeof(buf))) == XFFI_OK);
  FUZZ_CHECK(xffi_type_info_get(&by_index, model_index[k]) == XFFI_OK && by_key == by_index);
  FUZZ_CHECK(by_key->type_index == model_index[k] && strcmp(by_key->type_key.data, buf) == 0);
  FUZZ_CHECK(by_key->type_key.size == strlen(buf) && strcmp(xffi_type_key(model_index[k]), buf) == 0);
  int32_t depth = model_depth(model_index[k]);
  FUZZ_CHECK(by_key->type_depth == depth);
  /* The ancestor chain, from the parent up. */
  int32_t at = model_parent[k];
  for (int32_t d = depth - 1; d >= 0; --d) {
    FUZZ_CHECK(by_key->type_ancestors[d]->type_index == at);
    int pk = model_key_of(at);
    at = pk >= 0 ? model_parent[pk] : XFFI_TYPE_OBJECT;
  }
  /* An instance is an instance of itself, its ancestors and Object, and of no other model type. */
  xffi_object obj;
  xffi_object_init(&obj, model_index[k], NULL);
  for (int j = 0; j < KEYS; ++j) {
    if (!model_index[j]) continue;
    int expect = 0;
    for (int32_t d = 0; d < depth; ++d) expect |= by_key->type_ancestors[d]->type_index == model_index[j];
    expect |= j == k;
    int is = -1;
    FUZZ_CHECK(xffi_object_is_a(&is, &obj, model_index[j]) == XFFI_OK && is == expect);
    FUZZ_CHECK(xffi_object_is_a_unchecked(&obj, model_index[j]) == expect);
  }
  FUZZ_CHECK(xffi_object_is_a_unchecked(&obj, XFFI_TYPE_OBJECT));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size};
  char buf[64];
  while (in.n) {
    uint8_t op = fuzz_u8(&in);
    if (op < 160) { /* register */
      int k = fuzz_u8(&in) % KEYS;
      int32_t parent = pick_parent(&in);
      /* The runtime's own types (ffi.EnumState, ...: c/type_runtime.c) take
       * dynamic indices too; the model knows only its keys, so a registration
       * under one of them is left out. */
      const xffi_type_info *foreign = NULL;
      if (!is_registered_object_type(parent) && parent >= XFFI_TYPE_DYNAMIC_BEGIN &&
          xffi_type_info_get(&foreign, parent) == XFFI_OK)
        continue;
      xffi_error_set_raised(NULL); /* the lookup's IndexError, when parent is no type */
      int32_t out = -7;
      int status = xffi_type_register(&out, key_name(k, buf, sizeof(buf)), parent);
      if (!is_registered_object_type(parent)) {
        FUZZ_CHECK(status == XFFI_FAIL && out == -7);
        fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_type_register");
      } else if (model_index[k] && model_parent[k] != parent) {
        FUZZ_CHECK(status == XFFI_FAIL && out == -7);
        fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_type_register");
      } else if (parent != XFFI_TYPE_OBJECT && parent < XFFI_TYPE_BUILTIN_END) {
        /* Built-in object types other than Object take no subtypes (tvm-ffi's child slots). */
        FUZZ_CHECK(status == XFFI_FAIL && out == -7);
        fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_type_register");
      } else {
        FUZZ_CHECK(status == XFFI_OK && out >= XFFI_TYPE_DYNAMIC_BEGIN);
        if (model_index[k]) FUZZ_CHECK(out == model_index[k]);
        FUZZ_CHECK(out < xffi_type_count());
        model_index[k] = out;
        model_parent[k] = parent;
        check_type(k);
      }
    } else if (op < 200) { /* look up an arbitrary key */
      fuzz_bytes(&in, buf, 40);
      const xffi_type_info *info = (const xffi_type_info *)0x1;
      int status = xffi_type_info_get_by_key(&info, buf);
      if (status == XFFI_OK) {
        FUZZ_CHECK(strcmp(info->type_key.data, buf) == 0);
      } else {
        FUZZ_CHECK(info == (const xffi_type_info *)0x1);
        fuzz_expect_raised(XFFI_KIND_KEY, "xffi_type_info_get_by_key");
      }
    } else { /* look up an arbitrary index */
      int32_t index = (int32_t)fuzz_i64(&in);
      const xffi_type_info *info = NULL;
      if (xffi_type_info_get(&info, index) == XFFI_OK) {
        FUZZ_CHECK(info->type_index == index && index >= 0 && index < xffi_type_count());
        FUZZ_CHECK(strcmp(xffi_type_key(index), info->type_key.data) == 0);
      } else {
        fuzz_expect_raised(XFFI_KIND_INDEX, "xffi_type_info_get");
        FUZZ_CHECK(strcmp(xffi_type_key(index), "<unregistered type>") == 0);
        FUZZ_CHECK(!is_registered_object_type(index));
      }
    }
  }
  FUZZ_NOTHING_RAISED();
  return 0;
}
