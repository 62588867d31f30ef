/* c/lib/reflection/type_reflection.c: a type's own fields, methods and metadata
 * (TVMFFITypeRegisterField/Method/Metadata and their xffi_type_register_*
 * forms).
 *
 * The registry keeps its own copy of everything it is given: texts are
 * copied, default values and methods are owned copies, a Function setter
 * gets a reference. Records are appended to arrays that double when full;
 * the array in the record is replaced by the bigger one, and the old one is
 * retired, not freed, because C++ inline code and the Python package read
 * fields/methods with no lock and may still hold it. The new count is
 * published after the record it counts. */
#include <string.h>

#include "runtime/check.h"
#include "lib/reflection/reflection_index.h"
#include "lib/reflection/reflection_layout.h"
#include "lib/reflection/pyclass.h"
#include "runtime/type_internal.h"
#include "lib/reflection/type_reflection.h"

/* Copies of up to three texts in one immortal block, NUL-terminated each.
 * Returns XFFI_FAIL (nothing raised) when out of memory. */
static int copy_texts(xffi_byte_array *texts[], size_t count) {
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) total += texts[i]->size + 1;
  char *block = xffi_alloc(total);
  if (!block) return XFFI_FAIL;
  for (size_t i = 0; i < count; ++i) {
    if (texts[i]->size) memcpy(block, texts[i]->data, texts[i]->size);
    block[texts[i]->size] = '\0';
    texts[i]->data = block;
    block += texts[i]->size + 1;
  }
  return XFFI_OK;
}

static int check_text(const char *function, const char *argument, const xffi_byte_array *text) {
  if (!text->data && text->size)
    return xffi_raise_arg(XFFI_KIND_VALUE, function, argument, "is NULL but its size is %zu", text->size);
  return XFFI_OK;
}

/* Under the lock: makes room for extra more records in *array (count used,
 * *capacity room), retiring the old array. XFFI_FAIL when out of memory. */
static int reserve(const void **array, int32_t count, int32_t extra, int32_t *capacity, size_t record_size) {
  if (extra <= *capacity - count) return XFFI_OK;
  if (extra > INT32_MAX / 2 - count) return XFFI_FAIL;
  int32_t new_capacity = *capacity ? *capacity : 4;
  while (new_capacity - count < extra) new_capacity *= 2;
  void *grown = xffi_alloc((size_t)new_capacity * record_size);
  if (!grown) return XFFI_FAIL;
  if (count) memcpy(grown, *array, (size_t)count * record_size);
  if (*array && xffi_type_retire((void *)*array) != XFFI_OK) {
    xffi_free(grown);
    return XFFI_FAIL;
  }
  __atomic_store_n(array, grown, __ATOMIC_RELEASE);
  *capacity = new_capacity;
  return XFFI_OK;
}

static int raise_no_type(const char *function, int32_t type_index) {
  return xffi_raise_arg(XFFI_KIND_INDEX, function, "type_index", "%d is not a registered type", (int)type_index);
}

static int same_name(const xffi_byte_array *a, const xffi_byte_array *b) {
  return a->size == b->size && (!a->size || memcmp(a->data, b->data, a->size) == 0);
}

/* Under the lock: xffi_field_overlap_check of fields[k] (a new field of
 * type) against every field one object of type or of a type derived from
 * it holds: type's own, the batch's earlier ones, its ancestors' and (their
 * registration order is free: a C++ library may register a child before
 * its parent) its descendants'. */
static int check_overlaps(const char *function, const xffi_type_info *type, const xffi_field_info *fields, int32_t k) {
  const xffi_field_info *info = &fields[k];
  for (int32_t i = 0; i < type->num_fields; ++i)
    if (xffi_field_overlap_check(function, type, info, type, &type->fields[i]) != XFFI_OK) return XFFI_FAIL;
  for (int32_t i = 0; i < k; ++i)
    if (xffi_field_overlap_check(function, type, info, type, &fields[i]) != XFFI_OK) return XFFI_FAIL;
  for (int32_t d = 0; d < type->type_depth; ++d) {
    const xffi_type_info *ancestor = type->type_ancestors[d];
    for (int32_t i = 0; i < ancestor->num_fields; ++i)
      if (xffi_field_overlap_check(function, type, info, ancestor, &ancestor->fields[i]) != XFFI_OK) return XFFI_FAIL;
  }
  int32_t depth = type->type_depth, count = xffi_type_count();
  for (int32_t t = 0; t < count; ++t) { /* a child's index may be below its parent's (a static one) */
    const xffi_type_entry *other = xffi_type_entry_at(t);
    if (!other || other->stored.info.type_depth <= depth || other->stored.ancestor_indices_[depth] != type->type_index)
      continue;
    const xffi_type_info *descendant = &other->stored.info;
    for (int32_t i = 0; i < descendant->num_fields; ++i)
      if (xffi_field_overlap_check(function, type, info, descendant, &descendant->fields[i]) != XFFI_OK)
        return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* What a field record registered again must repeat: offset, size,
 * alignment, flags and static type (getters, setters, texts and defaults
 * are not compared: each copy of a library has its own addresses). */
enum { FIELD_VALUES = 5 };
static void field_values(int64_t values[FIELD_VALUES], const xffi_field_info *info) {
  values[0] = info->offset;
  values[1] = info->size;
  values[2] = info->alignment;
  values[3] = info->flags;
  values[4] = info->field_static_type_index;
}

/* Under the lock: whether the batch fields[0..count) fits entry (a type the
 * runtime defines takes only the runtime's records; names new to the type
 * and to the batch, layouts valid, no overlaps). A batch whose every record
 * the type has already, with the same field_values, is a second copy of a
 * library registering its types: *again is set, and the type keeps its own
 * records. Raises otherwise. */
static int check_batch(const char *function, const xffi_type_entry *entry, const xffi_field_info *fields, int32_t count,
                       xffi_field_rules rules, int *again) {
  static const char *const names[FIELD_VALUES] = {"offset", "size", "alignment", "flags", "static type index"};
  const xffi_type_info *type = &entry->stored.info;
  if (entry->runtime_owned && rules != XFFI_FIELD_RULES_RUNTIME)
    return xffi_error_raise(XFFI_KIND_TYPE,
                            "%s: %s (index %d) is one of the runtime's own types: its layout is the runtime's, and it "
                            "takes no field records from outside (register a type derived from it instead)",
                            function, type->type_key.data, (int)type->type_index);
  int32_t known = 0;
  for (int32_t k = 0; k < count; ++k) {
    const xffi_field_info *info = &fields[k], *old = NULL;
    for (int32_t i = 0; i < type->num_fields && !old; ++i)
      if (same_name(&type->fields[i].name, &info->name)) old = &type->fields[i];
    int duplicate = old ? known != k : known != 0; /* a known name beside a new one */
    for (int32_t i = 0; i < k && !duplicate; ++i) duplicate = same_name(&fields[i].name, &info->name);
    const xffi_field_info *named = old || !known ? info : &fields[0];
    if (duplicate)
      return xffi_raise_arg(XFFI_KIND_VALUE, function, "info->name", "'%.*s' is already a field of %s",
                            (int)named->name.size, named->name.data, type->type_key.data);
    if (old) {
      int64_t had[FIELD_VALUES], here[FIELD_VALUES];
      field_values(had, old);
      field_values(here, info);
      for (int i = 0; i < FIELD_VALUES; ++i)
        if (had[i] != here[i])
          return xffi_raise_arg(XFFI_KIND_VALUE, function, "info->name",
                                "'%.*s' is already a field of %s, registered with %s %lld, not %lld",
                                (int)info->name.size, info->name.data, type->type_key.data, names[i], (long long)had[i],
                                (long long)here[i]);
      ++known;
      continue;
    }
    if (xffi_field_layout_check(function, type, info, rules) != XFFI_OK) return XFFI_FAIL;
    if (check_overlaps(function, type, fields, k) != XFFI_OK) return XFFI_FAIL;
  }
  *again = known == count;
  return XFFI_OK;
}

int xffi_type_mark_runtime_owned(const char *function, int32_t type_index) {
  xffi_type_lock();
  xffi_type_entry *entry = xffi_type_entry_at(type_index);
  if (entry) entry->runtime_owned = 1;
  xffi_type_unlock();
  return entry ? XFFI_OK : raise_no_type(function, type_index);
}

/* Drops what an owned value holds, out of line: registration runs once per
 * record, and every inline copy of the release grows the drop-in
 * libtvm_ffi.so, whose size is bounded. */
static void release_value(xffi_any *value) {
  if (xffi_any_is_object(value)) xffi_object_dec_ref(value->v_obj);
}

static void release_defaults(xffi_field_info *fields, int32_t count) {
  for (int32_t k = 0; k < count; ++k) release_value(&fields[k].default_value_or_factory);
}

/* The status of a batch of fields the type has already (check_batch). */
enum { KNOWN = 1 };

int xffi_type_register_fields_in(const char *function, int32_t type_index, const xffi_field_info *infos, int32_t count,
                                 xffi_field_rules rules) {
  if (!infos) return xffi_raise_null_arg(function, "info");
  if (count <= 0) return xffi_raise_arg(XFFI_KIND_VALUE, function, "count", "is %d (expected 1 or more)", (int)count);
  for (int32_t k = 0; k < count; ++k)
    if (check_text(function, "info->name", &infos[k].name) != XFFI_OK ||
        check_text(function, "info->doc", &infos[k].doc) != XFFI_OK ||
        check_text(function, "info->metadata", &infos[k].metadata) != XFFI_OK)
      return XFFI_FAIL;
  /* Copies first (they may fail), outside the lock. */
  xffi_field_info one, *fields = count == 1 ? &one : xffi_alloc((size_t)count * sizeof(xffi_field_info));
  if (!fields) return xffi_error_raise_out_of_memory();
  int32_t copied = 0;
  for (; copied < count; ++copied) {
    fields[copied] = infos[copied];
    fields[copied].default_value_or_factory = xffi_any_none();
    if ((infos[copied].flags & XFFI_FIELD_HAS_DEFAULT) &&
        xffi_any_copy(&fields[copied].default_value_or_factory, &infos[copied].default_value_or_factory) != XFFI_OK)
      break;
  }
  int status = copied == count ? XFFI_OK : XFFI_FAIL;
  int32_t texts_copied = 0;
  const xffi_field_info *told = NULL; /* the new records, for the process's other runtime */
  if (status == XFFI_OK) {
    xffi_type_lock();
    xffi_type_entry *entry = xffi_type_entry_at(type_index);
    if (!entry) status = raise_no_type(function, type_index);
    int again = 0;
    if (status == XFFI_OK) status = check_batch(function, entry, fields, count, rules, &again);
    if (again) status = KNOWN; /* nothing to add: the steps below are skipped, the copies released */
    if (status == XFFI_OK && reserve((const void **)&entry->stored.info.fields, entry->stored.info.num_fields, count,
                                     &entry->field_capacity, sizeof(xffi_field_info)) != XFFI_OK)
      status = xffi_error_raise_out_of_memory();
    for (; status == XFFI_OK && texts_copied < count; ++texts_copied) {
      xffi_byte_array *texts[] = {&fields[texts_copied].name, &fields[texts_copied].doc,
                                  &fields[texts_copied].metadata};
      if (copy_texts(texts, 3) != XFFI_OK) status = xffi_error_raise_out_of_memory();
    }
    xffi_field_index *index = NULL;
    if (status == XFFI_OK) {
      /* Past the published count, the records are invisible to readers
       * until the count grows: the index can be built from them in place. */
      int32_t base = entry->stored.info.num_fields;
      xffi_field_info *records = (xffi_field_info *)entry->stored.info.fields;
      memcpy(&records[base], fields, (size_t)count * sizeof(xffi_field_info));
      index = xffi_field_index_build(records, base + count);
      if (!index || (entry->field_index && xffi_type_retire((void *)entry->field_index) != XFFI_OK)) {
        xffi_free(index);
        status = xffi_error_raise_out_of_memory();
      }
    }
    if (status == XFFI_OK) {
      int32_t base = entry->stored.info.num_fields;
      for (int32_t k = 0; k < count; ++k) {
        const xffi_field_info *field = &fields[k];
        /* The setter, when it is a Function, stays alive as long as the record. */
        if ((field->flags & XFFI_FIELD_SETTER_IS_FUNCTION) && field->setter) xffi_object_inc_ref(field->setter);
      }
      /* The index first, then one count store: the records are complete
       * before either, so a lookup by name that finds a field finds all of
       * it, and every field a reader sees counted is in the index it loads
       * (count first left a window where a counted field was not found). */
      __atomic_store_n(&entry->field_index, index, __ATOMIC_RELEASE);
      __atomic_store_n(&entry->stored.info.num_fields, base + count, __ATOMIC_RELEASE);
      told = &entry->stored.info.fields[base];
    } else {
      /* Each name's block holds all three texts of its field. */
      for (int32_t k = 0; k < texts_copied; ++k) xffi_free((void *)fields[k].name.data);
    }
    xffi_type_unlock();
  }
  /* Outside the lock: a setter reads its field's type schema (JSON). */
  for (int32_t k = 0; status == XFFI_OK && k < count; ++k)
    if ((fields[k].flags & XFFI_FIELD_SETTER_IS_FUNCTION) && fields[k].setter)
      xffi_pyclass_setter_learn(fields[k].setter, fields[k].metadata);
  if (status != XFFI_OK) release_defaults(fields, copied);
  if (fields != &one) xffi_free(fields);
  if (status == KNOWN) return XFFI_OK;
  /* Immortal records, read by the other runtime outside the lock. */
  return status == XFFI_OK ? xffi_foreign_tell(XFFI_FOREIGN_FIELD, type_index, told, count) : status;
}

int xffi_type_register_field_in(const char *function, int32_t type_index, const xffi_field_info *info) {
  return xffi_type_register_fields_in(function, type_index, info, 1, XFFI_FIELD_RULES_TVM_FFI);
}

int xffi_type_register_method_in(const char *function, int32_t type_index, const xffi_method_info *info) {
  return xffi_type_register_method_checked_in(function, type_index, info, 0);
}

int xffi_type_register_method_checked_in(const char *function, int32_t type_index, const xffi_method_info *info,
                                         int unique) {
  if (!info) return xffi_raise_null_arg(function, "info");
  if (check_text(function, "info->name", &info->name) != XFFI_OK ||
      check_text(function, "info->doc", &info->doc) != XFFI_OK ||
      check_text(function, "info->metadata", &info->metadata) != XFFI_OK)
    return XFFI_FAIL;
  xffi_method_info method = *info;
  method.method = xffi_any_none();
  if (xffi_any_copy(&method.method, &info->method) != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array *texts[] = {&method.name, &method.doc, &method.metadata};

  xffi_type_lock();
  xffi_type_entry *entry = xffi_type_entry_at(type_index);
  const xffi_method_info *old = NULL;
  for (int32_t i = 0; entry && unique && i < entry->stored.info.num_methods && !old; ++i)
    if (same_name(&entry->stored.info.methods[i].name, &info->name)) old = &entry->stored.info.methods[i];
  if (!entry || old) {
    xffi_type_unlock();
    release_value(&method.method);
    if (!entry) return raise_no_type(function, type_index);
    /* The name again with the same flags (a second copy of a library
     * registering its types): the type keeps its own record and Function.
     * Records are never freed, so old is readable outside the lock. */
    if (old->flags == info->flags) return XFFI_OK;
    return xffi_raise_arg(XFFI_KIND_VALUE, function, "name",
                          "'%.*s' is already a method of %s, registered with flags %lld, not %lld",
                          (int)info->name.size, info->name.data, entry->stored.info.type_key.data,
                          (long long)old->flags, (long long)info->flags);
  }
  if (reserve((const void **)&entry->stored.info.methods, entry->stored.info.num_methods, 1, &entry->method_capacity,
              sizeof(xffi_method_info)) != XFFI_OK ||
      copy_texts(texts, 3) != XFFI_OK) {
    xffi_type_unlock();
    release_value(&method.method);
    return xffi_error_raise_out_of_memory();
  }
  const xffi_method_info *record = &entry->stored.info.methods[entry->stored.info.num_methods];
  ((xffi_method_info *)entry->stored.info.methods)[entry->stored.info.num_methods] = method;
  __atomic_store_n(&entry->stored.info.num_methods, entry->stored.info.num_methods + 1, __ATOMIC_RELEASE);
  xffi_type_unlock();
  return xffi_foreign_tell(XFFI_FOREIGN_METHOD, type_index, record, 1);
}

int xffi_type_register_metadata_in(const char *function, int32_t type_index, const xffi_type_metadata *metadata) {
  if (!metadata) return xffi_raise_null_arg(function, "metadata");
  if (check_text(function, "metadata->doc", &metadata->doc) != XFFI_OK) return XFFI_FAIL;
  xffi_type_metadata copy = *metadata;
  xffi_byte_array *texts[] = {&copy.doc};

  xffi_type_lock();
  xffi_type_entry *entry = xffi_type_entry_at(type_index);
  const xffi_type_metadata *old = entry ? entry->stored.info.metadata : NULL;
  if (!entry || old) {
    xffi_type_unlock();
    if (!entry) return raise_no_type(function, type_index);
    /* The same total size and structural kind again (a second copy of a
     * library registering its types): the type keeps its own, doc and
     * creator included. */
    int size_differs = old->total_size != copy.total_size;
    if (!size_differs && old->structural_eq_hash_kind == copy.structural_eq_hash_kind) return XFFI_OK;
    return xffi_error_raise(
        XFFI_KIND_RUNTIME, "%s: the metadata of %s (index %d) is already registered, with %s %d, not %d", function,
        entry->stored.info.type_key.data, (int)type_index, size_differs ? "total size" : "structural kind",
        (int)(size_differs ? old->total_size : old->structural_eq_hash_kind),
        (int)(size_differs ? copy.total_size : copy.structural_eq_hash_kind));
  }
  /* Metadata after the fields: they must fit the size it gives. */
  if (xffi_field_layout_check_total_size(function, &entry->stored.info, copy.total_size) != XFFI_OK) {
    xffi_type_unlock();
    return XFFI_FAIL;
  }
  if (copy_texts(texts, 1) != XFFI_OK) {
    xffi_type_unlock();
    return xffi_error_raise_out_of_memory();
  }
  entry->metadata_storage = copy;
  __atomic_store_n(&entry->stored.info.metadata, &entry->metadata_storage, __ATOMIC_RELEASE);
  xffi_type_unlock();
  return xffi_foreign_tell(XFFI_FOREIGN_METADATA, type_index, &entry->metadata_storage, 1);
}

/* ---- The xffi_* forms (xffi/reflection.h) ---- */

int xffi_type_register_field(int32_t type_index, const xffi_field_info *info) {
  return xffi_type_register_fields_in(__func__, type_index, info, 1, XFFI_FIELD_RULES_STRICT);
}

int xffi_type_register_method(int32_t type_index, const xffi_method_info *info) {
  return xffi_type_register_method_in(__func__, type_index, info);
}

int xffi_type_register_metadata(int32_t type_index, const xffi_type_metadata *metadata) {
  return xffi_type_register_metadata_in(__func__, type_index, metadata);
}
