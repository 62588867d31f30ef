/* The checks every field registration passes (c/reflection_layout.c,
 * c/type_reflection.c): a field twice, an offset outside the object or in
 * its header, a misaligned offset, a missing getter, a writable field
 * without a setter (xffi's forms only), metadata that comes after fields too
 * small for them, and a batch that is kept whole or not at all. */
#include "test_util.h"

#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

/* Object fields are pointer-sized: the texts of the messages that name their size. */
#if UINTPTR_MAX > 0xFFFFFFFFu
#  define PTR_SIZE "8"
#  define HALF_PTR_OFFSET "28"
#  define HALF_PTR_SIZE "4"
#else
#  define PTR_SIZE "4"
#  define HALF_PTR_OFFSET "26"
#  define HALF_PTR_SIZE "2"
#endif

static int32_t new_type(const char *key) {
  int32_t index = -1;
  assert_int_equal(xffi_type_register(&index, key, XFFI_TYPE_OBJECT), XFFI_OK);
  return index;
}

static xffi_field_info int_field(const char *name, int64_t offset) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name.data = name;
  f.name.size = strlen(name);
  f.size = 8;
  f.alignment = 8;
  f.offset = offset;
  f.field_static_type_index = XFFI_TYPE_INT;
  assert_int_equal(xffi_field_getter_for_type(&f.getter, XFFI_TYPE_INT), XFFI_OK);
  f.default_value_or_factory = xffi_any_none();
  return f;
}

static const xffi_type_info *info_of(int32_t type_index) {
  const xffi_type_info *info = NULL;
  assert_int_equal(xffi_type_info_get(&info, type_index), XFFI_OK);
  return info;
}

static int32_t num_fields(int32_t type_index) { return info_of(type_index)->num_fields; }

static void test_layout_errors_name_the_field_and_keep_nothing(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.Layout");
  xffi_field_info f = int_field("x", 24);
  f.offset = 8;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'x' of test.validate.Layout: offset 8 lies in the "
               "object header (the first 24 bytes)");
  f.offset = 28;
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_type_register_field: field 'x' of test.validate.Layout: offset 28 is not a multiple of its "
               "alignment 8");
  f.offset = 24;
  f.alignment = 3;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "field 'x' of test.validate.Layout: alignment 3 is not a positive power of two");
  f.alignment = 0;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "alignment 0 is not a positive power of two");
  f.alignment = 8;
  f.size = -1;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "field 'x' of test.validate.Layout: size -1 is negative");
  f.size = 8;
  f.getter = NULL;
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "field 'x' of test.validate.Layout: info->getter is NULL");
  xffi_field_info unnamed = int_field("", 24);
  assert_int_equal(TVMFFITypeRegisterField(t, &unnamed), -1);
  assert_raised(XFFI_KIND_VALUE, "info->name is empty: a field of test.validate.Layout needs a name");
  assert_int_equal(num_fields(t), 0);
}

/* A C++ object whose first base is polymorphic: that base's members lie
 * before the Object header (TVM's relax PyExprMutator registers builder_
 * at -64). */
typedef struct before_header_object {
  int64_t builder;
  int64_t base_rest[7];
  xffi_object header;
  int64_t own;
} before_header_object;

_Static_assert(offsetof(before_header_object, header) - offsetof(before_header_object, builder) == 64,
               "builder lies 64 bytes before the header");

static void test_fields_before_the_header_are_accepted_from_the_abi_only(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.BeforeHeader");
  xffi_field_info builder = int_field("builder_", -64);
  /* xffi's own form keeps refusing what lies before the header. */
  assert_int_equal(xffi_type_register_field(t, &builder), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_type_register_field: field 'builder_' of test.validate.BeforeHeader: offset -64 lies in the "
               "object header (the first 24 bytes)");
  /* tvm-ffi's ABI takes it, as the wheel does; a field that reaches into
   * the header, or a misaligned one, is still refused. */
  xffi_field_info straddle = int_field("straddle", -8);
  straddle.size = 16;
  assert_int_equal(TVMFFITypeRegisterField(t, &straddle), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'straddle' of test.validate.BeforeHeader: offset -8 + size 16 reaches "
               "into the object header (the first 24 bytes)");
  xffi_field_info misaligned = int_field("misaligned", -60);
  assert_int_equal(TVMFFITypeRegisterField(t, &misaligned), -1);
  assert_raised(XFFI_KIND_VALUE, "offset -60 is not a multiple of its alignment 8");
  assert_int_equal(num_fields(t), 0);
  assert_int_equal(TVMFFITypeRegisterField(t, &builder), 0);
  xffi_field_info own = int_field("own", 24);
  assert_int_equal(TVMFFITypeRegisterField(t, &own), 0);
  assert_int_equal(num_fields(t), 2);
  /* The field reads the bytes 64 before the header, as tvm-ffi's accessors do. */
  before_header_object obj;
  memset(&obj, 0, sizeof(obj));
  obj.builder = 4242;
  obj.own = 7;
  obj.header.ref_counts = 1;
  obj.header.type_index = t;
  xffi_any value = xffi_any_none();
  assert_int_equal(xffi_object_get_field(&value, &obj.header, "builder_"), XFFI_OK);
  assert_int_equal(value.type_index, XFFI_TYPE_INT);
  assert_int_equal(value.v_int64, 4242);
  assert_int_equal(xffi_object_get_field(&value, &obj.header, "own"), XFFI_OK);
  assert_int_equal(value.v_int64, 7);
}

static void test_a_field_twice_is_refused(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.Twice");
  xffi_field_info f = int_field("x", 24);
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_OK);
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_OK); /* the same record again: a no-op */
  assert_int_equal(num_fields(t), 1);
  f.offset = 32;
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_type_register_field: info->name 'x' is already a field of test.validate.Twice, registered with "
               "offset 24, not 32");
  assert_int_equal(num_fields(t), 1);
}

static void test_offset_outside_the_total_size_either_order(void **state) {
  (void)state;
  /* Metadata first: a field past its total size is refused. */
  int32_t t = new_type("test.validate.SizedFirst");
  xffi_type_metadata md = {{NULL, 0}, NULL, 40, XFFI_SEQ_HASH_UNSUPPORTED};
  assert_int_equal(xffi_type_register_metadata(t, &md), XFFI_OK);
  xffi_field_info inside = int_field("a", 32), past = int_field("b", 40);
  assert_int_equal(TVMFFITypeRegisterField(t, &inside), 0);
  assert_int_equal(TVMFFITypeRegisterField(t, &past), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'b' of test.validate.SizedFirst: offset 40 + size 8 "
               "lies outside the object's total size 40");
  past.offset = (INT64_MAX / 8) * 8; /* offset + size would overflow: still refused */
  assert_int_equal(TVMFFITypeRegisterField(t, &past), -1);
  assert_raised(XFFI_KIND_VALUE, "lies outside the object's total size 40");
  assert_int_equal(num_fields(t), 1);
  /* Fields first: metadata too small for them is refused, and can come again. */
  int32_t u = new_type("test.validate.SizedLater");
  xffi_field_info late = int_field("c", 48);
  assert_int_equal(TVMFFITypeRegisterField(u, &late), 0);
  assert_int_equal(TVMFFITypeRegisterMetadata(u, &md), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterMetadata: total_size 40 of test.validate.SizedLater is too small: "
               "its field 'c' lies at offset 48, size 8");
  assert_null(info_of(u)->metadata);
  md.total_size = 56;
  assert_int_equal(TVMFFITypeRegisterMetadata(u, &md), 0);
  /* A total size of 0 says nothing about the layout: no check. */
  int32_t v = new_type("test.validate.Unsized");
  md.total_size = 0;
  assert_int_equal(TVMFFITypeRegisterMetadata(v, &md), 0);
  xffi_field_info far = int_field("d", 4096);
  assert_int_equal(TVMFFITypeRegisterField(v, &far), 0);
}

/* A read-only field with a setter is what tvm-ffi's C++ registration sends
 * (construction sets it): accepted. A writable field without a setter is
 * refused from xffi's form, accepted from TVMFFITypeRegisterField. */
static void test_setters_and_the_writable_flag(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.ReadOnly");
  xffi_field_info f = int_field("x", 24);
  xffi_field_setter setter;
  assert_int_equal(xffi_field_setter_for_type(&setter, XFFI_TYPE_INT), XFFI_OK);
  memcpy(&f.setter, &setter, sizeof(setter));
  assert_int_equal(xffi_type_register_field(t, &f), XFFI_OK);
  xffi_field_info g = int_field("y", 32);
  g.flags = XFFI_FIELD_WRITABLE;
  assert_int_equal(xffi_type_register_field(t, &g), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_type_register_field: field 'y' of test.validate.ReadOnly: is writable "
               "(XFFI_FIELD_WRITABLE) but info->setter is NULL");
  assert_int_equal(num_fields(t), 1);
  assert_int_equal(TVMFFITypeRegisterField(t, &g), 0);
  assert_int_equal(num_fields(t), 2);
}

/* A refused field's default is released: nothing leaks. */
static void test_refused_field_releases_its_default(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.Default");
  xffi_object *def = NULL;
  const char text[] = "a default long enough for the heap";
  assert_int_equal(xffi_string_new(&def, text, sizeof(text) - 1), XFFI_OK);
  xffi_field_info f = int_field("x", 12);
  f.flags = XFFI_FIELD_HAS_DEFAULT;
  f.default_value_or_factory = xffi_any_object(def);
  assert_int_equal(TVMFFITypeRegisterField(t, &f), -1);
  assert_raised(XFFI_KIND_VALUE, "lies in the object header");
  assert_int_equal(xffi_object_strong_count(def), 1);
  xffi_object_dec_ref(def);
}

/* ---- The runtime's own types take no field records ---- */

static int32_t index_of(const char *key) {
  int32_t index = -1;
  xffi_byte_array bytes = {key, strlen(key)};
  assert_int_equal(TVMFFITypeKeyToIndex(&bytes, &index), 0);
  return index;
}

/* A field at offset 4096 on ffi.Shape was accepted and get_field read far
 * past the Shape; an int at offset 24 on ffi.String overwrote its data
 * pointer. tvm-ffi's runtime reflects fields on two of its static types
 * (ffi.Module.imports_, ffi.VisitInterrupt.value) and on the types it
 * defines (ffi.EnumState, ffi.reflection.AccessPath, ...): those records
 * are the runtime's own, and nobody else adds any, on any way in. */
static void test_fields_on_the_runtimes_own_types_are_refused(void **state) {
  (void)state;
  xffi_field_info far = int_field("past_the_end", 4096);
  assert_int_equal(TVMFFITypeRegisterField(XFFI_TYPE_SHAPE, &far), -1);
  expect_error(XFFI_KIND_TYPE,
               "TVMFFITypeRegisterField: ffi.Shape (index 69) is one of the runtime's own types: its layout is the "
               "runtime's, and it takes no field records from outside (register a type derived from it instead)");
  xffi_field_info over_data = int_field("data_pointer", 24);
  assert_int_equal(TVMFFITypeRegisterField(XFFI_TYPE_STRING, &over_data), -1);
  assert_raised(XFFI_KIND_TYPE, "TVMFFITypeRegisterField: ffi.String (index 65) is one of the runtime's own types");
  assert_int_equal(xffi_type_register_field(XFFI_TYPE_ERROR, &over_data), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_type_register_field: ffi.Error (index 67) is one of the runtime's own types");
  xffi_reflect_field_spec spec = {"count", NULL, NULL, 24, 8, XFFI_TYPE_INT, 0, {0}};
  assert_int_equal(xffi_reflect_fields(XFFI_TYPE_ARRAY, &spec, 1), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_reflect_fields: ffi.Array (index 71) is one of the runtime's own types");
  /* ffi.Object (every object would inherit it), a value type, a static type
   * the runtime reflects, and types the runtime defines at run time. */
  const int32_t owned[] = {XFFI_TYPE_OBJECT,
                           XFFI_TYPE_INT,
                           XFFI_TYPE_MODULE,
                           XFFI_TYPE_VISIT_INTERRUPT,
                           index_of("ffi.reflection.AccessPath"),
                           index_of("ffi.IntEnum"),
                           index_of("ffi.StructuralVisitor")};
  for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); ++i) {
    int32_t before = num_fields(owned[i]);
    xffi_field_info extra = int_field("extra", 48);
    assert_int_equal(TVMFFITypeRegisterField(owned[i], &extra), -1);
    assert_raised(XFFI_KIND_TYPE, "is one of the runtime's own types");
    assert_int_equal(num_fields(owned[i]), before);
  }
  /* The runtime's own records are there, the alias ffi.IntEnum.value
   * (ffi.Enum._int_index's storage) among them. */
  assert_int_equal(num_fields(XFFI_TYPE_MODULE), 1);
  assert_int_equal(num_fields(index_of("ffi.IntEnum")), 1);
  assert_int_equal(info_of(index_of("ffi.IntEnum"))->fields[0].offset, info_of(index_of("ffi.Enum"))->fields[0].offset);
  /* Reading by the refused name finds nothing: no read past the Shape. */
  xffi_object *shape = NULL;
  const int64_t dims[] = {2, 3};
  assert_int_equal(xffi_shape_new(&shape, dims, 2), XFFI_OK);
  xffi_any got;
  assert_int_equal(xffi_object_get_field(&got, shape, "past_the_end"), XFFI_FAIL);
  assert_raised(XFFI_KIND_ATTRIBUTE, "'ffi.Shape' has no field 'past_the_end'");
  xffi_object_dec_ref(shape);
  /* A refused record's default is released, here too. */
  xffi_object *def = NULL;
  const char text[] = "a default long enough for the heap";
  assert_int_equal(xffi_string_new(&def, text, sizeof(text) - 1), XFFI_OK);
  over_data.flags = XFFI_FIELD_HAS_DEFAULT;
  over_data.default_value_or_factory = xffi_any_object(def);
  assert_int_equal(TVMFFITypeRegisterField(XFFI_TYPE_STRING, &over_data), -1);
  assert_raised(XFFI_KIND_TYPE, "is one of the runtime's own types");
  assert_int_equal(xffi_object_strong_count(def), 1);
  xffi_object_dec_ref(def);
  /* A type derived from ffi.Object takes fields as before. */
  int32_t own = new_type("test.validate.NotBuiltin");
  xffi_field_info fine = int_field("x", 24);
  assert_int_equal(TVMFFITypeRegisterField(own, &fine), 0);
}

/* ---- Overlapping field records ---- */

/* A getter of the registrant's own (not one of xffi's): a 4-byte int. */
static int get_int32(void *field_addr, xffi_any *result) {
  int32_t value;
  memcpy(&value, field_addr, sizeof(value));
  *result = xffi_any_int(value);
  return XFFI_OK;
}

static xffi_field_info object_field(const char *name, int64_t offset) {
  xffi_field_info f = int_field(name, offset);
  f.field_static_type_index = XFFI_TYPE_OBJECT;
  f.size = (int64_t)sizeof(xffi_object *); /* what xffi's object accessors touch: 4 bytes on 32-bit targets */
  assert_int_equal(xffi_field_getter_for_type(&f.getter, XFFI_TYPE_OBJECT), XFFI_OK);
  xffi_field_setter setter;
  assert_int_equal(xffi_field_setter_for_type(&setter, XFFI_TYPE_OBJECT), XFFI_OK);
  memcpy(&f.setter, &setter, sizeof(setter));
  f.flags = XFFI_FIELD_WRITABLE;
  return f;
}

static int32_t new_child(const char *key, int32_t parent) {
  int32_t index = -1;
  assert_int_equal(xffi_type_register(&index, key, parent), XFFI_OK);
  return index;
}

/* An int field at the offset of an object field let xffi_object_set_field
 * write an integer over an object pointer, which the object's release then
 * followed. Records that share a byte are refused, within a type, within one
 * table, against the ancestors' records and against the descendants' (a C++
 * library may register a child's fields before its parent's). */
static void test_overlapping_fields_are_refused(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.Overlap");
  xffi_field_info pointer = object_field("pointer", 24);
  assert_int_equal(TVMFFITypeRegisterField(t, &pointer), 0);
  xffi_field_info same = int_field("integer", 24);
  xffi_field_setter int_setter;
  assert_int_equal(xffi_field_setter_for_type(&int_setter, XFFI_TYPE_INT), XFFI_OK);
  memcpy(&same.setter, &int_setter, sizeof(int_setter));
  same.flags = XFFI_FIELD_WRITABLE;
  assert_int_equal(TVMFFITypeRegisterField(t, &same), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'integer' of test.validate.Overlap (offset 24, size 8) overlaps field "
               "'pointer' of test.validate.Overlap (offset 24, size " PTR_SIZE
               "): fields may not share bytes (only an exact "
               "alias of an inherited field may)");
  /* The pointer's second half: a field of the registrant's own getter. */
  xffi_field_info partial = int_field("partial", 24 + (int64_t)sizeof(void *) / 2);
  partial.getter = get_int32;
  partial.size = (int64_t)sizeof(void *) / 2;
  partial.alignment = partial.size;
  assert_int_equal(xffi_type_register_field(t, &partial), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "field 'partial' of test.validate.Overlap (offset " HALF_PTR_OFFSET
                                 ", size " HALF_PTR_SIZE ") overlaps field 'pointer'");
  /* An alias within the type itself has no use: refused too. */
  xffi_field_info alias = object_field("pointer_again", 24);
  assert_int_equal(TVMFFITypeRegisterField(t, &alias), -1);
  assert_raised(XFFI_KIND_VALUE, "overlaps field 'pointer' of test.validate.Overlap");
  assert_int_equal(num_fields(t), 1);
  /* Adjacent records share no byte, nor does a zero-size one of the
   * registrant's own accessors. */
  xffi_field_info next = int_field("next", 32), empty = int_field("empty", 24);
  empty.getter = get_int32;
  empty.size = 0;
  assert_int_equal(TVMFFITypeRegisterField(t, &next), 0);
  assert_int_equal(TVMFFITypeRegisterField(t, &empty), 0);
  assert_int_equal(num_fields(t), 3);
}

/* xffi's own accessors touch a fixed number of bytes: a record that says
 * fewer (or none) would let its int setter write over half of the object
 * pointer beside it, without any two records overlapping on paper. */
static void test_a_size_its_accessors_do_not_have_is_refused(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.Sized");
  xffi_field_info pointer = object_field("pointer", 32);
  assert_int_equal(TVMFFITypeRegisterField(t, &pointer), 0);
  xffi_field_info half = int_field("half", 24);
  half.size = 4;
  assert_int_equal(TVMFFITypeRegisterField(t, &half), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'half' of test.validate.Sized: size 4 differs from the 8 bytes its "
               "getter reads");
  half.size = 0;
  assert_int_equal(TVMFFITypeRegisterField(t, &half), -1);
  assert_raised(XFFI_KIND_VALUE, "size 0 differs from the 8 bytes its getter reads");
  /* Its own getter, xffi's Any setter (16 bytes) with size 8. */
  half.getter = get_int32;
  half.size = 8;
  xffi_field_setter any_setter;
  assert_int_equal(xffi_field_setter_for_type(&any_setter, XFFI_TYPE_ANY), XFFI_OK);
  memcpy(&half.setter, &any_setter, sizeof(any_setter));
  assert_int_equal(TVMFFITypeRegisterField(t, &half), -1);
  assert_raised(XFFI_KIND_VALUE, "size 8 differs from the 16 bytes its setter writes");
  assert_int_equal(num_fields(t), 1);
}

/* One table is kept whole or not at all: an overlap inside it refuses it. */
static void test_an_overlap_inside_one_table_refuses_the_table(void **state) {
  (void)state;
  int32_t t = new_type("test.validate.OverlapTable");
  xffi_reflect_field_spec specs[3] = {
      {"a", NULL, NULL, 24, 8, XFFI_TYPE_INT, 0, {0}},
      {"b", NULL, NULL, 32, sizeof(xffi_object *), XFFI_TYPE_OBJECT, 0, {0}},
      {"c", NULL, NULL, 32, 8, XFFI_TYPE_FLOAT, 0, {0}},
  };
  assert_int_equal(xffi_reflect_fields(t, specs, 3), XFFI_FAIL);
  expect_error(XFFI_KIND_VALUE,
               "xffi_reflect_fields: field 'c' of test.validate.OverlapTable (offset 32, size 8) overlaps field 'b' of "
               "test.validate.OverlapTable (offset 32, size " PTR_SIZE
               "): fields may not share bytes (only an exact alias of an "
               "inherited field may)");
  assert_int_equal(num_fields(t), 0);
  specs[2].offset = 40;
  assert_int_equal(xffi_reflect_fields(t, specs, 3), XFFI_OK);
  assert_int_equal(num_fields(t), 3);
}

/* Against the ancestors' and the descendants' records, in either order; an
 * exact alias of an inherited record (as tvm-ffi's ffi.IntEnum.value is of
 * ffi.Enum._int_index) shares the storage safely and is accepted. */
static void test_overlaps_across_parent_and_child_either_order(void **state) {
  (void)state;
  int32_t parent = new_type("test.validate.OverlapParent");
  int32_t child = new_child("test.validate.OverlapChild", parent);
  int32_t grandchild = new_child("test.validate.OverlapGrandchild", child);
  xffi_field_info pointer = object_field("pointer", 24);
  assert_int_equal(TVMFFITypeRegisterField(parent, &pointer), 0);
  xffi_field_info over = int_field("over", 24);
  assert_int_equal(TVMFFITypeRegisterField(grandchild, &over), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'over' of test.validate.OverlapGrandchild (offset 24, size 8) overlaps "
               "field 'pointer' of test.validate.OverlapParent (offset 24, size " PTR_SIZE
               "): fields may not share bytes (only "
               "an exact alias of an inherited field may)");
  xffi_field_info alias = object_field("alias", 24);
  assert_int_equal(TVMFFITypeRegisterField(grandchild, &alias), 0);
  /* An alias differing in anything but its name is an overlap. */
  xffi_field_info typed = object_field("typed", 24);
  typed.field_static_type_index = XFFI_TYPE_ARRAY;
  assert_int_equal(TVMFFITypeRegisterField(child, &typed), -1);
  assert_raised(XFFI_KIND_VALUE, "overlaps field 'pointer' of test.validate.OverlapParent");
  /* The child first: its field at 32, then the parent's at 32. */
  xffi_field_info childs = int_field("childs", 32);
  assert_int_equal(TVMFFITypeRegisterField(child, &childs), 0);
  xffi_field_info late = object_field("late", 32);
  assert_int_equal(TVMFFITypeRegisterField(parent, &late), -1);
  expect_error(XFFI_KIND_VALUE,
               "TVMFFITypeRegisterField: field 'late' of test.validate.OverlapParent (offset 32, size " PTR_SIZE
               ") overlaps "
               "field 'childs' of test.validate.OverlapChild (offset 32, size 8): fields may not share bytes (only an "
               "exact alias of an inherited field may)");
  /* A sibling's records are in other objects: no overlap with them. */
  int32_t sibling = new_child("test.validate.OverlapSibling", parent);
  xffi_field_info beside = object_field("beside", 32);
  assert_int_equal(TVMFFITypeRegisterField(sibling, &beside), 0);
  assert_int_equal(num_fields(parent), 1);
  assert_int_equal(num_fields(child), 1);
  assert_int_equal(num_fields(grandchild), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_errors_name_the_field_and_keep_nothing),
      cmocka_unit_test(test_fields_before_the_header_are_accepted_from_the_abi_only),
      cmocka_unit_test(test_a_field_twice_is_refused),
      cmocka_unit_test(test_offset_outside_the_total_size_either_order),
      cmocka_unit_test(test_setters_and_the_writable_flag),
      cmocka_unit_test(test_refused_field_releases_its_default),
      cmocka_unit_test(test_fields_on_the_runtimes_own_types_are_refused),
      cmocka_unit_test(test_overlapping_fields_are_refused),
      cmocka_unit_test(test_a_size_its_accessors_do_not_have_is_refused),
      cmocka_unit_test(test_an_overlap_inside_one_table_refuses_the_table),
      cmocka_unit_test(test_overlaps_across_parent_and_child_either_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
