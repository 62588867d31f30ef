/* c/lib/reflection/pyclass.c: making, copying and deleting objects of Python-defined
 * types (c/lib/reflection/pyclass.h). Their memory is described only by the type's
 * reflected fields, so the deleter and the copy walk those records: the
 * ancestors' fields first, then the type's own. */
#include <string.h>

#include "runtime/check.h"
#include "lib/reflection/pyclass.h"
#include "runtime/type_internal.h"

/* The fields of one level of type's ancestry (depth type->type_depth is
 * the type itself); *count receives their number. Lock-free reads: counts
 * are published after their records. */
static const xffi_field_info *fields_at(const xffi_type_info *type, int32_t depth, int32_t *count) {
  const xffi_type_info *level = depth == type->type_depth ? type : type->type_ancestors[depth];
  *count = __atomic_load_n(&level->num_fields, __ATOMIC_ACQUIRE);
  return __atomic_load_n(&level->fields, __ATOMIC_ACQUIRE);
}

/* Releases what the fields of obj (of registered type) own, leaving them
 * None/NULL. */
static void release_fields(xffi_object *obj, const xffi_type_info *type) {
  for (int32_t depth = 0; depth <= type->type_depth; ++depth) {
    int32_t count;
    const xffi_field_info *fields = fields_at(type, depth, &count);
    for (int32_t i = 0; i < count; ++i) {
      char *addr = (char *)obj + fields[i].offset;
      switch (xffi_field_storage_of(&fields[i])) {
        case XFFI_FIELD_STORAGE_ANY: {
          xffi_any old;
          memcpy(&old, addr, sizeof(old));
          memset(addr, 0, sizeof(old));
          xffi_any_release(&old);
          break;
        }
        case XFFI_FIELD_STORAGE_OBJECT: {
          xffi_object *old;
          memcpy(&old, addr, sizeof(old));
          memset(addr, 0, sizeof(old));
          if (old) xffi_object_dec_ref(old);
          break;
        }
        case XFFI_FIELD_STORAGE_PLAIN: break;
      }
    }
  }
}

/* The deleter of every Python-defined object. Releasing a field may delete
 * a long chain of such objects: the bounded-stack protocol of c/runtime/internal.h
 * runs them one after another instead of nesting. */
static void pyclass_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) {
    if (xffi_release_begin(self, flags, pyclass_deleter)) return; /* parked: called again later */
    xffi_object *obj = self;
    const xffi_type_info *type = xffi_type_info_find(obj->type_index);
    if (type) release_fields(obj, type); /* types are never unregistered */
    xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

int xffi_pyclass_new(xffi_object **out, int32_t type_index, int32_t total_size) {
  void *body = xffi_runtime_object_alloc((size_t)total_size, 8, type_index);
  if (!body) return XFFI_FAIL; /* raised by the allocator */
  memset(body, 0, (size_t)total_size);
  xffi_object_init(body, type_index, pyclass_deleter);
  *out = body;
  return XFFI_OK;
}

int xffi_pyclass_shallow_copy(xffi_object **out, const xffi_object *src, int32_t type_index, int32_t total_size) {
  const xffi_type_info *type = xffi_type_info_find(type_index);
  if (!type) return xffi_raise_arg(XFFI_KIND_INDEX, __func__, "type_index", "%d is not registered", (int)type_index);
  xffi_object *copy;
  if (xffi_pyclass_new(&copy, type_index, total_size) != XFFI_OK) return XFFI_FAIL;
  for (int32_t depth = 0; depth <= type->type_depth; ++depth) {
    int32_t count;
    const xffi_field_info *fields = fields_at(type, depth, &count);
    for (int32_t i = 0; i < count; ++i) {
      const char *from = (const char *)src + fields[i].offset;
      char *to = (char *)copy + fields[i].offset;
      switch (xffi_field_storage_of(&fields[i])) {
        case XFFI_FIELD_STORAGE_ANY: {
          xffi_any value;
          memcpy(&value, from, sizeof(value));
          if (xffi_any_is_object(&value)) xffi_object_inc_ref(value.v_obj);
          memcpy(to, &value, sizeof(value));
          break;
        }
        case XFFI_FIELD_STORAGE_OBJECT: {
          xffi_object *value;
          memcpy(&value, from, sizeof(value));
          if (value) xffi_object_inc_ref(value);
          memcpy(to, &value, sizeof(value));
          break;
        }
        case XFFI_FIELD_STORAGE_PLAIN:
          if (fields[i].size > 0) memcpy(to, from, (size_t)fields[i].size);
          break;
      }
    }
  }
  *out = copy;
  return XFFI_OK;
}

/* The kind of setter ffi.MakeFieldSetter makes, once it has made one. */
static const xffi_field_setter_kind *setter_kind;

void xffi_field_setter_kind_register(const xffi_field_setter_kind *kind) {
  __atomic_store_n(&setter_kind, kind, __ATOMIC_RELEASE);
}

/* The registered kind when setter is one of its Functions, else NULL. */
static const xffi_field_setter_kind *kind_of(const xffi_object *setter) {
  const xffi_field_setter_kind *kind = __atomic_load_n(&setter_kind, __ATOMIC_ACQUIRE);
  if (!kind || !setter || setter->type_index != XFFI_TYPE_FUNCTION) return NULL;
  /* Every Function's cell (xffi's or tvm-ffi's) starts with its safe call. */
  const xffi_function_head *head = (const xffi_function_head *)(const void *)setter;
  return head->cell.safe_call == kind->call ? kind : NULL;
}

int xffi_pyclass_setter_storage(int32_t *out, const xffi_object *setter) {
  const xffi_field_setter_kind *kind = kind_of(setter);
  return kind ? kind->storage(out, setter) : 0;
}

void xffi_pyclass_setter_learn(const xffi_object *setter, xffi_byte_array metadata) {
  const xffi_field_setter_kind *kind = kind_of(setter);
  if (kind) kind->learn(setter, metadata);
}
