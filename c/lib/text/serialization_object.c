/* c/lib/text/serialization_object.c: the parts of tvm-ffi's JSON graph that concern
 * reflected objects (c/lib/text/serialization_object.h has the format): a type's
 * form, enum indices both ways, whether a type can be made, defaults. */
#include <stdatomic.h>
#include <string.h>

#include <xffi/function.h>
#include <xffi/map.h>

#include "runtime/check.h"
#include "lib/reflection/field_storage.h"
#include "lib/walk/recursive_walk.h"
#include "lib/text/serialization_object.h"
#include "runtime/type_internal.h"
#include "lib/reflection/runtime_types.h"

/* The records of ffi.Enum and ffi.IntEnum, found once: built-in types,
 * registered once and never changed, so a plain cache is enough. */
static const xffi_type_info *_Atomic enum_type, *_Atomic int_enum_type;

static const xffi_type_info *find_cached(const xffi_type_info *_Atomic *cache, const char *key) {
  const xffi_type_info *type = atomic_load_explicit(cache, memory_order_acquire);
  if (!type) {
    type = xffi_type_find_by_key(key, strlen(key));
    if (type) atomic_store_explicit(cache, type, memory_order_release);
  }
  return type;
}

/* Whether type is base or derives from it (base may be NULL: no). */
static int derives_from(const xffi_type_info *type, const xffi_type_info *base) {
  if (!base || type->type_depth < base->type_depth) return 0;
  return type == base || type->type_ancestors[base->type_depth] == base;
}

/* The column of an attribute, found once it exists: columns live at fixed
 * addresses once made, and one made later is found on the next call. */
static const xffi_type_attr_column *cached_column(const xffi_type_attr_column *_Atomic *cache, const char *name) {
  const xffi_type_attr_column *column = atomic_load_explicit(cache, memory_order_acquire);
  if (!column) {
    column = xffi_walk_column(name);
    if (column) atomic_store_explicit(cache, column, memory_order_release);
  }
  return column;
}

static const xffi_type_attr_column *_Atomic to_json_column, *_Atomic from_json_column, *_Atomic new_column,
    *_Atomic enum_column;

xffi_graph_form xffi_graph_form_of(const xffi_type_info *type, int writing, xffi_object **hook) {
  *hook = NULL;
  if (type->type_index >= XFFI_TYPE_DYNAMIC_BEGIN) {
    if (derives_from(type, find_cached(&int_enum_type, "ffi.IntEnum"))) return XFFI_GRAPH_INT_ENUM;
    if (derives_from(type, find_cached(&enum_type, "ffi.Enum"))) return XFFI_GRAPH_STR_ENUM;
  }
  const xffi_any *attr = xffi_walk_type_attr(writing ? cached_column(&to_json_column, "__data_to_json__")
                                                     : cached_column(&from_json_column, "__data_from_json__"),
                                             type->type_index);
  if (attr && attr->type_index == XFFI_TYPE_FUNCTION) {
    *hook = attr->v_obj;
    return XFFI_GRAPH_HOOK;
  }
  return XFFI_GRAPH_FIELDS;
}

int xffi_graph_has_creator(const xffi_type_info *type) {
  const xffi_type_metadata *metadata = __atomic_load_n(&type->metadata, __ATOMIC_ACQUIRE);
  if (metadata && metadata->creator) return 1;
  const xffi_any *make = xffi_walk_type_attr(cached_column(&new_column, "__ffi_new__"), type->type_index);
  return make && make->type_index == XFFI_TYPE_FUNCTION;
}

int xffi_graph_enum_index(xffi_any *out, const xffi_object *obj, int as_int) {
  const xffi_type_info *type = find_cached(&enum_type, "ffi.Enum");
  const char *name = as_int ? "_int_index" : "_str_index";
  int32_t count = type ? __atomic_load_n(&type->num_fields, __ATOMIC_ACQUIRE) : 0;
  for (int32_t i = 0; i < count; ++i) {
    const xffi_field_info *field = &type->fields[i];
    if (field->name.size == strlen(name) && memcmp(field->name.data, name, field->name.size) == 0)
      return xffi_field_read(out, obj, field);
  }
  return xffi_error_raise(XFFI_KIND_RUNTIME, "ffi.ToJSONGraph: ffi.Enum has no field %s", name);
}

static int raise_no_member(const xffi_type_info *type, const xffi_any *index) {
  if (index->type_index == XFFI_TYPE_INT)
    return xffi_error_raise(XFFI_KIND_VALUE, "Enum `%s` has no instance with index %lld", type->type_key.data,
                            (long long)index->v_int64);
  xffi_byte_array text = {"", 0};
  if (xffi_any_to_str(&text, index) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    xffi_object_dec_ref(err);
  }
  return xffi_error_raise(XFFI_KIND_VALUE, "Enum `%s` has no instance with index %.*s", type->type_key.data,
                          (int)text.size, text.data);
}

int xffi_graph_enum_member(xffi_any *out, const xffi_type_info *type, const xffi_any *index) {
  const xffi_any *state = xffi_walk_type_attr(cached_column(&enum_column, "__ffi_enum__"), type->type_index);
  const xffi_type_info *state_type = xffi_type_find_by_key("ffi.EnumState", 13);
  if (!state || !xffi_any_is_object(state) || !state_type || state->v_obj->type_index != state_type->type_index)
    return raise_no_member(type, index);
  const enum_state_object *enum_state = (const enum_state_object *)state->v_obj;
  const xffi_any *member = NULL;
  if (enum_state->indexes && xffi_map_lookup(&member, enum_state->indexes, index) != XFFI_OK) return XFFI_FAIL;
  if (!member || !xffi_any_is_object(member) || member->v_obj->type_index != type->type_index)
    return raise_no_member(type, index);
  *out = xffi_any_object_new_ref(member->v_obj);
  return XFFI_OK;
}

int xffi_graph_field_default(xffi_object *obj, const xffi_field_info *field) {
  if (!(field->flags & XFFI_FIELD_DEFAULT_FROM_FACTORY))
    return xffi_field_assign(obj, field, &field->default_value_or_factory);
  if (field->default_value_or_factory.type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE, "its default factory is not a Function");
  xffi_any made = xffi_any_none();
  int status = xffi_function_call(field->default_value_or_factory.v_obj, NULL, 0, &made);
  if (status == XFFI_OK) status = xffi_field_assign(obj, field, &made);
  xffi_any_release(&made);
  return status;
}
