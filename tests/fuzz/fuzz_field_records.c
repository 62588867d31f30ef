/* Fuzz target: field records, overlapping or not, on a family of user types
 * (R; C derived from R; G from C; S, a sibling, from R) and on the runtime's
 * own types, one at a time (TVMFFITypeRegisterField) or in tables
 * (xffi_reflect_fields). A model that lives as long as the registry predicts
 * every answer: a runtime type refuses every record (TypeError); a name the
 * type has, an offset that is not a multiple of 8, a size other than what
 * xffi's accessors touch (0 included), or a record sharing a byte
 * with one of the type's own, its table's, its ancestors' or its
 * descendants' records is refused (ValueError; a table whole), unless it is
 * an exact alias of an ancestor's or descendant's record. Objects of the
 * family are then written by name with values of every kind and released by
 * a deleter that frees each object or Any slot the records describe: a
 * record let through over another's bytes would make it free what an integer
 * wrote, which AddressSanitizer reports. */
#include "fuzz_common.h"

#include <xffi/tvm_ffi.h>

enum { FAMILY = 4, NAMES = 48, MAX_RECORDS = FAMILY * NAMES, OBJECT_BYTES = 256 };

typedef struct model_record {
  int type; /* 0..FAMILY-1 */
  int name;
  int64_t offset, size;
  int32_t static_type;
} model_record;

static int32_t family[FAMILY];                      /* R, C, G, S */
static const int parent_of[FAMILY] = {-1, 0, 1, 0}; /* within the family */
static model_record records[MAX_RECORDS];
static int num_records;

static int is_ancestor(int a, int b) { /* a is a strict ancestor of b */
  for (int p = parent_of[b]; p >= 0; p = parent_of[p])
    if (p == a) return 1;
  return 0;
}

static void register_family(void) {
  if (family[0]) return;
  static const char *const keys[FAMILY] = {"fuzz.fields.R", "fuzz.fields.C", "fuzz.fields.G", "fuzz.fields.S"};
  for (int i = 0; i < FAMILY; ++i)
    FUZZ_CHECK(xffi_type_register(&family[i], keys[i], parent_of[i] < 0 ? XFFI_TYPE_OBJECT : family[parent_of[i]]) ==
               XFFI_OK);
}

static const int32_t static_types[] = {XFFI_TYPE_INT,   XFFI_TYPE_FLOAT,  XFFI_TYPE_OBJECT,
                                       XFFI_TYPE_ARRAY, XFFI_TYPE_STRING, XFFI_TYPE_ANY};

static int64_t storage_size(int32_t static_type) { return static_type == XFFI_TYPE_ANY ? 16 : 8; }

static void name_of(char *buf, size_t size, int name) { snprintf(buf, size, "f%d", name); }

/* Whether the model accepts r beside the records kept and batch[0..n). */
static int model_accepts(const model_record *r, const model_record *batch, int n) {
  for (int i = 0; i < num_records; ++i)
    if (records[i].type == r->type && records[i].name == r->name) return 0;
  for (int i = 0; i < n; ++i)
    if (batch[i].name == r->name) return 0;
  if (r->offset % 8 != 0) return 0;
  if (r->size != storage_size(r->static_type)) return 0; /* xffi's accessors touch their storage's size */
  for (int i = 0; i < num_records + n; ++i) {
    const model_record *o = i < num_records ? &records[i] : &batch[i - num_records];
    int related = o->type == r->type || is_ancestor(o->type, r->type) || is_ancestor(r->type, o->type);
    if (!related || !r->size || !o->size) continue;
    if (r->offset >= o->offset + o->size || o->offset >= r->offset + r->size) continue;
    int alias = o->type != r->type && o->offset == r->offset && o->size == r->size && o->static_type == r->static_type;
    if (!alias) return 0;
  }
  return 1;
}

/* The kept record of r's type with r's name, or NULL. */
static const model_record *known_record(const model_record *r) {
  for (int i = 0; i < num_records; ++i)
    if (records[i].type == r->type && records[i].name == r->name) return &records[i];
  return NULL;
}

/* Whether registering r again changes nothing: a kept record of its type and
 * name with the same offset, size and static type (the model's flags and
 * alignment are always the same), which the registry takes as a no-op. */
static int model_repeats(const model_record *r) {
  const model_record *k = known_record(r);
  return k && k->offset == r->offset && k->size == r->size && k->static_type == r->static_type;
}

static int32_t own_count(int type) {
  int32_t n = 0;
  for (int i = 0; i < num_records; ++i) n += records[i].type == type;
  return n;
}

static void check_counts(void) {
  for (int t = 0; t < FAMILY; ++t) {
    const xffi_type_info *info = NULL;
    FUZZ_CHECK(xffi_type_info_get(&info, family[t]) == XFFI_OK);
    FUZZ_CHECK(info->num_fields == own_count(t));
  }
}

static model_record pick_record(fuzz_input *in, int type) {
  model_record r;
  r.type = type;
  r.name = fuzz_u8(in) % NAMES;
  r.offset = 24 + 4 * (fuzz_u8(in) % 32);
  r.static_type = static_types[fuzz_u8(in) % (sizeof(static_types) / sizeof(static_types[0]))];
  r.size = fuzz_u8(in) < 24 ? 0 : storage_size(r.static_type);
  return r;
}

static xffi_field_info info_of(const model_record *r, char *name, size_t name_size) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  name_of(name, name_size, r->name);
  f.name.data = name;
  f.name.size = strlen(name);
  f.size = r->size;
  f.alignment = 8;
  f.offset = r->offset;
  f.flags = XFFI_FIELD_WRITABLE;
  f.field_static_type_index = r->static_type;
  FUZZ_CHECK(xffi_field_getter_for_type(&f.getter, r->static_type) == XFFI_OK);
  xffi_field_setter setter;
  FUZZ_CHECK(xffi_field_setter_for_type(&setter, r->static_type) == XFFI_OK);
  memcpy(&f.setter, &setter, sizeof(setter));
  f.default_value_or_factory = xffi_any_none();
  return f;
}

/* One record, on a family type or (sometimes) on one of the runtime's own. */
static void register_one(fuzz_input *in) {
  uint8_t pick = fuzz_u8(in);
  model_record r = pick_record(in, pick % FAMILY);
  char name[16];
  xffi_field_info f = info_of(&r, name, sizeof(name));
  if (pick >= 224) {
    static const int32_t runtime_types[] = {XFFI_TYPE_OBJECT, XFFI_TYPE_STRING, XFFI_TYPE_SHAPE,
                                            XFFI_TYPE_ARRAY,  XFFI_TYPE_MODULE, XFFI_TYPE_INT};
    int32_t target = runtime_types[pick % (sizeof(runtime_types) / sizeof(runtime_types[0]))];
    FUZZ_CHECK(TVMFFITypeRegisterField(target, &f) == -1);
    fuzz_expect_raised(XFFI_KIND_TYPE, "TVMFFITypeRegisterField");
    return;
  }
  int repeat = model_repeats(&r), expected = repeat || model_accepts(&r, NULL, 0);
  int status = TVMFFITypeRegisterField(family[r.type], &f);
  if (expected) {
    FUZZ_CHECK(status == 0);
    if (!repeat) records[num_records++] = r;
  } else {
    FUZZ_CHECK(status == -1);
    fuzz_expect_raised(XFFI_KIND_VALUE, "TVMFFITypeRegisterField");
  }
}

/* A table of 1 to 4 records on one family type, kept whole or not at all. */
static void register_table(fuzz_input *in) {
  int type = fuzz_u8(in) % FAMILY, count = 1 + fuzz_u8(in) % 4;
  model_record batch[4];
  xffi_reflect_field_spec specs[4];
  char names[4][16];
  /* A batch is taken whole when each record is new and accepted, or as a
   * no-op when each repeats a kept record (with no name twice in it). */
  int expected = 1, repeats = 1;
  for (int i = 0; i < count; ++i) {
    batch[i] = pick_record(in, type);
    batch[i].size = storage_size(batch[i].static_type); /* a spec's size is its storage's */
    if (expected) expected = model_accepts(&batch[i], batch, i);
    if (repeats) repeats = model_repeats(&batch[i]);
    for (int j = 0; j < i; ++j)
      if (batch[j].name == batch[i].name) repeats = 0;
    name_of(names[i], sizeof(names[i]), batch[i].name);
    memset(&specs[i], 0, sizeof(specs[i]));
    specs[i].name = names[i];
    specs[i].offset = batch[i].offset;
    specs[i].size = batch[i].size;
    specs[i].static_type_index = batch[i].static_type;
    specs[i].flags = XFFI_FIELD_WRITABLE;
  }
  int status = xffi_reflect_fields(family[type], specs, count);
  if (repeats) {
    FUZZ_CHECK(status == XFFI_OK);
  } else if (expected) {
    FUZZ_CHECK(status == XFFI_OK);
    for (int i = 0; i < count; ++i) records[num_records++] = batch[i];
  } else {
    FUZZ_CHECK(status == XFFI_FAIL);
    fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_reflect_fields");
  }
}

/* Releases each object or Any slot the object's records (its type's and its
 * ancestors') describe, each offset once (an alias shares its slot). */
static void family_deleter(void *self, int flags) {
  xffi_object *obj = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    const xffi_type_info *info = NULL;
    FUZZ_CHECK(xffi_type_info_get(&info, obj->type_index) == XFFI_OK);
    unsigned char released[OBJECT_BYTES] = {0};
    for (int32_t depth = info->type_depth; depth >= 0; --depth) {
      const xffi_type_info *level = depth == info->type_depth ? info : info->type_ancestors[depth];
      for (int32_t i = 0; i < level->num_fields; ++i) {
        const xffi_field_info *f = &level->fields[i];
        if (!f->size || released[f->offset]) continue;
        released[f->offset] = 1;
        char *slot = (char *)obj + f->offset;
        if (f->field_static_type_index == XFFI_TYPE_ANY) {
          xffi_any_release((xffi_any *)(void *)slot);
        } else if (f->field_static_type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN) {
          xffi_object *held;
          memcpy(&held, slot, sizeof(held));
          xffi_object_dec_ref(held);
        }
      }
    }
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

/* An object of a family type, written and read by name with values of every kind. */
static void exercise_object(fuzz_input *in) {
  int type = fuzz_u8(in) % FAMILY;
  xffi_object *obj = calloc(1, OBJECT_BYTES);
  FUZZ_CHECK(obj);
  xffi_object_init(obj, family[type], family_deleter);
  xffi_object *text = NULL, *array = NULL, *map = NULL;
  const char long_text[] = "a string long enough to be an object on the heap";
  FUZZ_CHECK(xffi_string_new(&text, long_text, sizeof(long_text) - 1) == XFFI_OK);
  FUZZ_CHECK(xffi_array_new(&array, NULL, 0) == XFFI_OK);
  FUZZ_CHECK(xffi_map_new(&map, NULL, NULL, 0) == XFFI_OK);
  int writes = fuzz_u8(in) % 16;
  for (int w = 0; w < writes; ++w) {
    char name[16];
    name_of(name, sizeof(name), fuzz_u8(in) % NAMES);
    xffi_any values[] = {xffi_any_int(fuzz_i64(in)), xffi_any_float(0.5),  xffi_any_object(text),
                         xffi_any_object(array),     xffi_any_object(map), xffi_any_none()};
    xffi_any value = values[fuzz_u8(in) % (sizeof(values) / sizeof(values[0]))];
    if (xffi_object_set_field(obj, name, &value) != XFFI_OK) xffi_error_set_raised(NULL);
    xffi_any got = xffi_any_none();
    if (xffi_object_get_field(&got, obj, name) == XFFI_OK)
      xffi_any_release(&got);
    else
      xffi_error_set_raised(NULL);
  }
  xffi_object_dec_ref(text);
  xffi_object_dec_ref(array);
  xffi_object_dec_ref(map);
  xffi_object_dec_ref(obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size};
  register_family();
  while (in.n) {
    uint8_t op = fuzz_u8(&in);
    if (num_records + 4 > MAX_RECORDS) op = 255; /* the model is full: only objects from now on */
    if (op < 128)
      register_one(&in);
    else if (op < 192)
      register_table(&in);
    else
      exercise_object(&in);
  }
  check_counts();
  FUZZ_NOTHING_RAISED();
  return 0;
}
