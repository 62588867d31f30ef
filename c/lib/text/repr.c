/* c/lib/text/repr.c: xffi_repr, the text of any value in tvm-ffi's ffi.ReprPrint
 * format (the format is documented in include/xffi/reflection.h).
 *
 * The walk keeps its own stacks on the heap: frames for the containers and
 * objects being printed, and above them the children each frame still has
 * to print (owned values, taken when the frame opens, as tvm-ffi does), so
 * the C stack does not grow with the value's depth. Text streams into one
 * buffer; an object printed once is remembered with the range of its text,
 * so a shared object is printed again by copying that range, and an object
 * met while it is still open is a cycle ("..."). The remembered objects are
 * held by a reference until the end, so no address is reused meanwhile.
 *
 * Only __ffi_repr__ hooks recurse: the hook gets a Function that prints a
 * value into a text of its own (kept: remembered ranges may point into it),
 * and hooks may nest at most MAX_HOOK_NESTING deep. */
#include <string.h>

#include <xffi/reflection.h>

#include "runtime/type_internal.h"
#include "runtime/check.h"
#include "lib/reflection/field_storage.h"
#include "lib/text/repr_text.h"
#include "runtime/static_object.h"

/* Hooks calling the printer calling hooks: each level is C recursion
 * (through the hook's language), so it is bounded well below any stack. */
#define MAX_HOOK_NESTING 256

static const char depth_marker[] = "<depth limit>";
static const char truncated_marker[] = "<truncated>";

enum { SEEN_OPEN = 1, SEEN_DONE = 2 };

/* What the printer knows of an object: open (being printed) or done, with
 * the range of its text. obj holds a reference; NULL marks a free slot. */
typedef struct seen_entry {
  xffi_object *obj;
  int32_t state;
  int32_t text;
  size_t start, end;
} seen_entry;

/* A value a frame still has to print (owned), with the field it comes from
 * (for objects; NULL in containers). */
typedef struct repr_child {
  xffi_any value;
  const xffi_field_info *field;
} repr_child;

enum { FRAME_TUPLE, FRAME_LIST, FRAME_MAP, FRAME_FIELDS };

typedef struct repr_frame {
  xffi_object *obj; /* borrowed: held by the parent's child or by the caller */
  int32_t kind;
  int32_t text; /* index of the text it writes to */
  size_t begin; /* its children: children[begin, begin + count) */
  size_t count;
  size_t next;  /* the next child to print */
  size_t start; /* where its text starts */
} repr_frame;

struct repr_printer;
/* The resource of the Function given to hooks: it outlives the printer if a
 * hook keeps it, so the printer is cut off when the print ends. */
typedef struct repr_callback {
  struct repr_printer *printer;
} repr_callback;

typedef struct repr_printer {
  int64_t max_depth;
  size_t max_bytes;
  int with_address;
  repr_text *texts; /* texts[0] is the result; hooks' prints follow */
  size_t num_texts, cap_texts;
  repr_frame *frames;
  size_t num_frames, cap_frames;
  repr_child *children;
  size_t num_children, cap_children;
  seen_entry *seen; /* open addressing, capacity a power of two */
  size_t seen_count, seen_capacity;
  int seen_shift;                     /* 64 - log2(seen_capacity) */
  const xffi_type_attr_column *hooks; /* "__ffi_repr__", or NULL */
  xffi_object *callback_function;     /* made at the first hook call */
  repr_callback *callback;
  int hook_nesting;
  int stopped; /* a text reached max_bytes: finish as soon as possible */
} repr_printer;

static const char fn_name[] = "ffi.ReprPrint";

/* ---- Growable arrays ---- */

static int reserve(void **data, size_t *capacity, size_t need, size_t item) {
  if (need <= *capacity) return XFFI_OK;
  size_t cap = *capacity ? *capacity : 16;
  while (cap < need) cap *= 2;
  if (cap > SIZE_MAX / item) return xffi_error_raise_out_of_memory();
  void *grown = xffi_realloc(*data, cap * item);
  if (!grown) return xffi_error_raise_out_of_memory();
  *data = grown;
  *capacity = cap;
  return XFFI_OK;
}

/* ---- Objects seen ---- */

static size_t seen_slot(const repr_printer *p, const xffi_object *obj) {
  size_t mask = p->seen_capacity - 1;
  /* Fibonacci hashing: the product's top bits mix all of the address (its
   * low bits would keep objects allocated one after another in adjacent
   * slots, and linear probing would walk their whole run). */
  uint64_t product = (uint64_t)(uintptr_t)obj * UINT64_C(0x9E3779B97F4A7C15);
  size_t i = (size_t)(product >> p->seen_shift) & mask;
  while (p->seen[i].obj && p->seen[i].obj != obj) i = (i + 1) & mask;
  return i;
}

static seen_entry *seen_find(const repr_printer *p, const xffi_object *obj) {
  if (!p->seen_count) return NULL;
  seen_entry *e = &p->seen[seen_slot(p, obj)];
  return e->obj ? e : NULL;
}

/* The entry of obj, added (with a reference to obj) if new. */
static seen_entry *seen_add(repr_printer *p, xffi_object *obj) {
  if ((p->seen_count + 1) * 2 > p->seen_capacity) {
    size_t capacity = p->seen_capacity ? p->seen_capacity * 2 : 64;
    seen_entry *old = p->seen;
    size_t old_capacity = p->seen_capacity;
    p->seen = xffi_alloc_zeroed(capacity, sizeof(seen_entry));
    if (!p->seen) {
      p->seen = old;
      xffi_error_raise_out_of_memory();
      return NULL;
    }
    p->seen_capacity = capacity;
    p->seen_shift = 64;
    for (size_t c = capacity; c > 1; c >>= 1) p->seen_shift--;
    for (size_t i = 0; i < old_capacity; ++i)
      if (old[i].obj) p->seen[seen_slot(p, old[i].obj)] = old[i];
    xffi_free(old);
  }
  seen_entry *e = &p->seen[seen_slot(p, obj)];
  if (!e->obj) {
    xffi_object_inc_ref(obj);
    e->obj = obj;
    p->seen_count++;
  }
  return e;
}

static int mark_open(repr_printer *p, xffi_object *obj) {
  seen_entry *e = seen_add(p, obj);
  if (!e) return XFFI_FAIL;
  e->state = SEEN_OPEN;
  return XFFI_OK;
}

static int mark_done(repr_printer *p, xffi_object *obj, int32_t text, size_t start) {
  seen_entry *e = seen_add(p, obj);
  if (!e) return XFFI_FAIL;
  e->state = SEEN_DONE;
  e->text = text;
  e->start = start;
  e->end = p->texts[text].size;
  return XFFI_OK;
}

/* ---- Type records ---- */

static int32_t load_count(const int32_t *count) {
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n(count, __ATOMIC_ACQUIRE); /* the count first, then the array */
#else
  return *count;
#endif
}

static int key_is(const xffi_type_info *info, const char *key) {
  size_t n = strlen(key);
  return info->type_key.size == n && memcmp(info->type_key.data, key, n) == 0;
}

static const xffi_field_info *field_named(const xffi_type_info *info, const char *name) {
  int32_t count = load_count(&info->num_fields);
  size_t n = strlen(name);
  for (int32_t i = 0; i < count; ++i)
    if (info->fields[i].name.size == n && memcmp(info->fields[i].name.data, name, n) == 0) return &info->fields[i];
  return NULL;
}

/* The record of ffi.Enum when info is it or derives from it, else NULL. */
static const xffi_type_info *enum_record(const xffi_type_info *info) {
  if (key_is(info, "ffi.Enum")) return info;
  for (int32_t d = 1; d < info->type_depth; ++d)
    if (key_is(info->type_ancestors[d], "ffi.Enum")) return info->type_ancestors[d];
  return NULL;
}

/* ---- Children ---- */

static int push_child(repr_printer *p, const xffi_any *value, const xffi_field_info *field) {
  if (reserve((void **)&p->children, &p->cap_children, p->num_children + 1, sizeof(repr_child)) != XFFI_OK)
    return XFFI_FAIL;
  repr_child *c = &p->children[p->num_children++];
  c->value = *value;
  if (xffi_any_is_object(value)) xffi_object_inc_ref(value->v_obj);
  c->field = field;
  return XFFI_OK;
}

static void pop_children(repr_printer *p, size_t begin) {
  while (p->num_children > begin) xffi_any_release(&p->children[--p->num_children].value);
}

/* The shown fields of one record, skipping names already taken by the
 * frame's children from `first` on (a field a subtype declares again). */
static int push_fields(repr_printer *p, xffi_object *obj, const xffi_type_info *record, size_t first) {
  int32_t count = load_count(&record->num_fields);
  const xffi_field_info *fields = record->fields;
  for (int32_t i = 0; i < count; ++i) {
    const xffi_field_info *f = &fields[i];
    if (f->flags & XFFI_FIELD_REPR_OFF) continue;
    int repeated = 0;
    for (size_t k = first; k < p->num_children && !repeated; ++k) {
      const xffi_byte_array *name = &p->children[k].field->name;
      repeated = name->size == f->name.size && memcmp(name->data, f->name.data, f->name.size) == 0;
    }
    if (repeated) continue;
    xffi_any value;
    if (xffi_field_read(&value, obj, f) != XFFI_OK) return XFFI_FAIL;
    int status = push_child(p, &value, f);
    xffi_any_release(&value);
    if (status != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

static int push_elements(repr_printer *p, xffi_object *seq) {
  const xffi_any *items;
  int64_t size;
  if (xffi_array_items(&items, &size, seq) != XFFI_OK) return XFFI_FAIL;
  if (reserve((void **)&p->children, &p->cap_children, p->num_children + (size_t)size, sizeof(repr_child)) != XFFI_OK)
    return XFFI_FAIL;
  for (int64_t i = 0; i < size; ++i) push_child(p, &items[i], NULL); /* room reserved: cannot fail */
  return XFFI_OK;
}

static int push_entries(repr_printer *p, xffi_object *map) {
  int64_t size;
  if (xffi_map_length(&size, map) != XFFI_OK) return XFFI_FAIL;
  if (reserve((void **)&p->children, &p->cap_children, p->num_children + 2 * (size_t)size, sizeof(repr_child)) !=
      XFFI_OK)
    return XFFI_FAIL;
  int64_t cursor = 0;
  xffi_map_item item;
  while (xffi_map_next(&item, map, &cursor) == XFFI_OK && item.key) {
    if (push_child(p, item.key, NULL) != XFFI_OK || push_child(p, item.value, NULL) != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* ---- Frames ---- */

/* Opens a frame for a container or an object printed by its fields: takes
 * its children, writes its opening text. */
static int open_frame(repr_printer *p, xffi_object *obj, int32_t text) {
  size_t begin = p->num_children;
  int32_t kind;
  int status;
  const xffi_type_info *info = NULL;
  switch (obj->type_index) {
    case XFFI_TYPE_ARRAY: kind = FRAME_TUPLE, status = push_elements(p, obj); break;
    case XFFI_TYPE_LIST: kind = FRAME_LIST, status = push_elements(p, obj); break;
    case XFFI_TYPE_MAP:
    case XFFI_TYPE_DICT: kind = FRAME_MAP, status = push_entries(p, obj); break;
    default:
      kind = FRAME_FIELDS;
      status = xffi_type_info_get(&info, obj->type_index);
      for (int32_t d = 1; status == XFFI_OK && d < info->type_depth; ++d)
        status = push_fields(p, obj, info->type_ancestors[d], begin);
      if (status == XFFI_OK) status = push_fields(p, obj, info, begin);
  }
  if (status == XFFI_OK) status = reserve((void **)&p->frames, &p->cap_frames, p->num_frames + 1, sizeof(repr_frame));
  if (status == XFFI_OK) status = mark_open(p, obj);
  if (status != XFFI_OK) {
    pop_children(p, begin);
    return XFFI_FAIL;
  }
  repr_text *t = &p->texts[text];
  repr_frame *f = &p->frames[p->num_frames++];
  *f = (repr_frame){obj, kind, text, begin, p->num_children - begin, 0, t->size};
  switch (kind) {
    case FRAME_TUPLE: return xffi_repr_put(t, "(", 1);
    case FRAME_LIST: return xffi_repr_put(t, "[", 1);
    case FRAME_MAP: return xffi_repr_put(t, "{", 1);
    default:
      status = xffi_repr_put(t, info->type_key.data, info->type_key.size);
      if (status == XFFI_OK && p->with_address) status = xffi_repr_put(t, "@", 1);
      if (status == XFFI_OK && p->with_address) status = xffi_repr_put_address(t, obj);
      if (status == XFFI_OK && f->count) status = xffi_repr_put(t, "(", 1);
      return status;
  }
}

/* What comes before child i of f: ", ", ": " or "name=". */
static int put_separator(repr_text *t, const repr_frame *f, const repr_child *child, size_t i) {
  if (f->kind == FRAME_MAP && i % 2) return xffi_repr_put(t, ": ", 2);
  if (i > 0 && (f->kind != FRAME_MAP || i % 2 == 0) && xffi_repr_put(t, ", ", 2) != XFFI_OK) return XFFI_FAIL;
  if (f->kind != FRAME_FIELDS) return XFFI_OK;
  if (xffi_repr_put(t, child->field->name.data, child->field->name.size) != XFFI_OK) return XFFI_FAIL;
  return xffi_repr_put(t, "=", 1);
}

static int close_frame(repr_printer *p) {
  repr_frame f = p->frames[p->num_frames - 1];
  repr_text *t = &p->texts[f.text];
  int status = XFFI_OK;
  switch (f.kind) {
    case FRAME_TUPLE: status = xffi_repr_put(t, f.count == 1 ? ",)" : ")", f.count == 1 ? 2 : 1); break;
    case FRAME_LIST: status = xffi_repr_put(t, "]", 1); break;
    case FRAME_MAP: status = xffi_repr_put(t, "}", 1); break;
    default: status = f.count ? xffi_repr_put(t, ")", 1) : XFFI_OK;
  }
  if (status == XFFI_OK && f.kind != FRAME_FIELDS && p->with_address) {
    status = xffi_repr_put(t, "@", 1);
    if (status == XFFI_OK) status = xffi_repr_put_address(t, f.obj);
  }
  if (status == XFFI_OK) status = mark_done(p, f.obj, f.text, f.start);
  pop_children(p, f.begin);
  p->num_frames--;
  return status;
}

/* ---- Leaves ---- */

static int print_value(repr_printer *p, const xffi_any *value, int32_t text);

static int callback_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  repr_printer *p = ((repr_callback *)resource)->printer;
  if (!p)
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "%s: the repr Function given to __ffi_repr__ was called after its print ended", fn_name);
  if (num_args != 1 || !args || !result)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: the repr Function given to __ffi_repr__ takes 1 argument, got %d",
                            fn_name, (int)num_args);
  xffi_any value;
  if (xffi_any_check(fn_name, "the argument of the repr Function", &args[0]) != XFFI_OK ||
      xffi_any_copy(&value, &args[0]) != XFFI_OK)
    return XFFI_FAIL;
  int status = reserve((void **)&p->texts, &p->cap_texts, p->num_texts + 1, sizeof(repr_text));
  int32_t text = (int32_t)p->num_texts;
  if (status == XFFI_OK) {
    p->texts[p->num_texts++] = (repr_text){NULL, 0, 0, p->max_bytes, 0};
    status = print_value(p, &value, text);
  }
  xffi_any_release(&value);
  if (status != XFFI_OK) return XFFI_FAIL;
  xffi_object *str;
  if (xffi_string_new(&str, p->texts[text].data ? p->texts[text].data : "", p->texts[text].size) != XFFI_OK)
    return XFFI_FAIL;
  *result = xffi_any_object(str);
  return XFFI_OK;
}

static void callback_free(void *resource) { xffi_free(resource); }

/* Prints obj through its type's __ffi_repr__ Function hook (borrowed). */
static int print_with_hook(repr_printer *p, xffi_object *obj, const xffi_any *hook, int32_t text) {
  if (hook->type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: the __ffi_repr__ attribute of %s must be a Function, got %s", fn_name,
                            xffi_type_key(obj->type_index), xffi_any_kind_name(hook));
  if (p->hook_nesting >= MAX_HOOK_NESTING)
    return xffi_repr_put(&p->texts[text], depth_marker, sizeof(depth_marker) - 1);
  if (!p->callback_function) {
    repr_callback *cb = xffi_alloc(sizeof(repr_callback));
    if (!cb) return xffi_error_raise_out_of_memory();
    cb->printer = p;
    if (xffi_function_new(&p->callback_function, callback_call, cb, callback_free) != XFFI_OK) {
      xffi_free(cb);
      return XFFI_FAIL;
    }
    p->callback = cb;
  }
  if (mark_open(p, obj) != XFFI_OK) return XFFI_FAIL;
  xffi_any args[2] = {xffi_any_object(obj), xffi_any_object(p->callback_function)};
  xffi_any result = xffi_any_none();
  p->hook_nesting++;
  int status = xffi_function_call(hook->v_obj, args, 2, &result);
  p->hook_nesting--;
  if (status != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array s;
  if (xffi_any_to_str(&s, &result) != XFFI_OK) {
    xffi_object *detail = xffi_error_move_raised(); /* replaced by a message naming the hook */
    if (detail) xffi_object_dec_ref(detail);
    status = xffi_error_raise(XFFI_KIND_TYPE, "%s: __ffi_repr__ of %s returned %s, expected a str", fn_name,
                              xffi_type_key(obj->type_index), xffi_any_kind_name(&result));
    xffi_any_release(&result);
    return status;
  }
  repr_text *t = &p->texts[text]; /* after the call: hooks' prints may move the texts */
  size_t start = t->size;
  status = xffi_repr_put(t, s.data, s.size);
  int32_t ti = obj->type_index;
  if (status == XFFI_OK && p->with_address &&
      (ti == XFFI_TYPE_ARRAY || ti == XFFI_TYPE_LIST || ti == XFFI_TYPE_MAP || ti == XFFI_TYPE_DICT)) {
    status = xffi_repr_put(t, "@", 1);
    if (status == XFFI_OK) status = xffi_repr_put_address(t, obj);
  }
  xffi_any_release(&result);
  return status == XFFI_OK ? mark_done(p, obj, text, start) : status;
}

/* "<type key>.<name>" of an enum singleton; enum is ffi.Enum's record. */
static int print_enum(repr_printer *p, xffi_object *obj, const xffi_type_info *info, const xffi_type_info *enum_info,
                      int32_t text) {
  const xffi_field_info *name_field = field_named(enum_info, "_str_index");
  if (!name_field) return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: ffi.Enum has no _str_index field", fn_name);
  xffi_any name;
  if (xffi_field_read(&name, obj, name_field) != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array s = {"", 0};
  if (name.type_index != XFFI_TYPE_NONE && xffi_any_to_str(&s, &name) != XFFI_OK) {
    xffi_any_release(&name);
    return XFFI_FAIL;
  }
  repr_text *t = &p->texts[text];
  size_t start = t->size;
  int status = xffi_repr_put(t, info->type_key.data, info->type_key.size);
  if (status == XFFI_OK) status = xffi_repr_put(t, ".", 1);
  if (status == XFFI_OK) status = xffi_repr_put(t, s.data, s.size);
  if (status == XFFI_OK && p->with_address) status = xffi_repr_put(t, "@", 1);
  if (status == XFFI_OK && p->with_address) status = xffi_repr_put_address(t, obj);
  xffi_any_release(&name);
  return status == XFFI_OK ? mark_done(p, obj, text, start) : status;
}

static int put_dims(repr_text *t, const int64_t *dims, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && xffi_repr_put(t, ", ", 2) != XFFI_OK) return XFFI_FAIL;
    if (xffi_repr_put_int(t, dims[i]) != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

static int print_tensor(repr_printer *p, xffi_object *obj, repr_text *t) {
  DLTensor *dl;
  if (xffi_tensor_cell_of(&dl, obj) != XFFI_OK) return XFFI_FAIL;
  if (xffi_repr_put_dtype(t, dl->dtype) != XFFI_OK || xffi_repr_put(t, "[", 1) != XFFI_OK ||
      put_dims(t, dl->shape, dl->ndim > 0 ? (size_t)dl->ndim : 0) != XFFI_OK || xffi_repr_put(t, "]@", 2) != XFFI_OK ||
      xffi_repr_put_device(t, dl->device) != XFFI_OK)
    return XFFI_FAIL;
  if (p->with_address && (xffi_repr_put(t, "@", 1) != XFFI_OK || xffi_repr_put_address(t, obj) != XFFI_OK))
    return XFFI_FAIL;
  return XFFI_OK;
}

/* Prints an object that needs no frame, or opens its frame. */
static int print_object(repr_printer *p, xffi_object *obj, int32_t text) {
  repr_text *t = &p->texts[text];
  seen_entry *e = seen_find(p, obj);
  if (e && e->state == SEEN_DONE) return xffi_repr_put_again(t, &p->texts[e->text], e->start, e->end);
  if (e && e->state == SEEN_OPEN) {
    if (xffi_repr_put(t, "...", 3) != XFFI_OK) return XFFI_FAIL;
    if (!p->with_address) return XFFI_OK;
    return xffi_repr_put(t, "@", 1) == XFFI_OK ? xffi_repr_put_address(t, obj) : XFFI_FAIL;
  }
  if (obj == &xffi_missing_object) return xffi_repr_put_str(t, "<MISSING>");
  if (obj == &xffi_kwargs_object) return xffi_repr_put_str(t, "<KWARGS>");
  xffi_any view = xffi_any_object(obj);
  xffi_byte_array s;
  switch (obj->type_index) {
    case XFFI_TYPE_BIGINT: return xffi_repr_put_bigint(t, &view);
    case XFFI_TYPE_STRING:
      return xffi_any_to_str(&s, &view) == XFFI_OK ? xffi_repr_put_py_string(t, s.data, s.size) : XFFI_FAIL;
    case XFFI_TYPE_BYTES:
      return xffi_any_to_bytes(&s, &view) == XFFI_OK ? xffi_repr_put_bytes(t, s.data, s.size) : XFFI_FAIL;
    case XFFI_TYPE_TENSOR: return print_tensor(p, obj, t);
    case XFFI_TYPE_SHAPE: {
      xffi_shape_cell cell;
      if (xffi_shape_cell_of(&cell, obj) != XFFI_OK || xffi_repr_put(t, "Shape(", 6) != XFFI_OK ||
          put_dims(t, cell.data, cell.size) != XFFI_OK)
        return XFFI_FAIL;
      return xffi_repr_put(t, ")", 1);
    }
    default: break;
  }
  const xffi_type_attr_column *hooks = p->hooks;
  if (hooks) {
    int64_t at = (int64_t)obj->type_index - hooks->begin_index;
    if (at >= 0 && at < hooks->size && hooks->data[at].type_index != XFFI_TYPE_NONE)
      return print_with_hook(p, obj, &hooks->data[at], text);
    const xffi_any *theirs =
        xffi_type_attr_provided(hooks, obj->type_index); /* a type only the process's runtime knows */
    if (theirs) return print_with_hook(p, obj, theirs, text);
  }
  const xffi_type_info *info;
  if (xffi_type_info_get(&info, obj->type_index) != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *enum_info = enum_record(info);
  if (enum_info) return print_enum(p, obj, info, enum_info, text);
  if ((int64_t)p->num_frames >= p->max_depth) return xffi_repr_put(t, depth_marker, sizeof(depth_marker) - 1);
  return open_frame(p, obj, text);
}

/* Prints value's text, or opens its frame; value is owned by the caller
 * and outlives the frame. */
static int print_leaf_or_open(repr_printer *p, const xffi_any *value, int32_t text) {
  repr_text *t = &p->texts[text];
  switch (value->type_index) {
    case XFFI_TYPE_NONE: return xffi_repr_put(t, "None", 4);
    case XFFI_TYPE_BOOL: return xffi_repr_put_str(t, value->v_int64 ? "True" : "False");
    case XFFI_TYPE_INT: return xffi_repr_put_int(t, value->v_int64);
    case XFFI_TYPE_FLOAT: return xffi_repr_put_float(t, value->v_float64);
    case XFFI_TYPE_DTYPE: return xffi_repr_put_dtype(t, value->v_dtype);
    case XFFI_TYPE_DEVICE: return xffi_repr_put_device(t, value->v_device);
    case XFFI_TYPE_SMALL_STR: return xffi_repr_put_py_string(t, value->v_small, value->small_len);
    case XFFI_TYPE_SMALL_BYTES: return xffi_repr_put_bytes(t, value->v_small, value->small_len);
    default: break;
  }
  if (value->type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN) return xffi_repr_put_str(t, xffi_type_key(value->type_index));
  if (!value->v_obj) return xffi_repr_put(t, "None", 4);
  return print_object(p, value->v_obj, text);
}

/* Writes the text of value (owned by the caller) to texts[text]. The
 * frames this call opens sit above those of the enclosing calls (a hook's
 * print runs inside the hook of an outer one) and are closed before it
 * returns, also on failure. */
static int print_value(repr_printer *p, const xffi_any *value, int32_t text) {
  size_t base = p->num_frames;
  int status = print_leaf_or_open(p, value, text);
  while (status == XFFI_OK && p->num_frames > base) {
    if (p->texts[text].truncated || p->stopped) {
      p->stopped = 1;
      break;
    }
    repr_frame *f = &p->frames[p->num_frames - 1];
    if (f->next == f->count) {
      status = close_frame(p);
      continue;
    }
    size_t i = f->next++;
    const repr_child *child = &p->children[f->begin + i];
    status = put_separator(&p->texts[text], f, child, i);
    if (status == XFFI_OK) status = print_leaf_or_open(p, &child->value, text);
  }
  if (p->texts[text].truncated) p->stopped = 1;
  while (p->num_frames > base) { /* stopped or failed: drop the open frames */
    pop_children(p, p->frames[p->num_frames - 1].begin);
    p->num_frames--;
  }
  return status;
}

/* ---- Entry points ---- */

static void printer_free(repr_printer *p) {
  pop_children(p, 0);
  for (size_t i = 0; i < p->seen_capacity; ++i)
    if (p->seen[i].obj) xffi_object_dec_ref(p->seen[i].obj);
  for (size_t i = 0; i < p->num_texts; ++i) xffi_repr_text_free(&p->texts[i]);
  if (p->callback) p->callback->printer = NULL; /* a hook may have kept the Function */
  if (p->callback_function) xffi_object_dec_ref(p->callback_function);
  xffi_free(p->seen), xffi_free(p->texts), xffi_free(p->frames), xffi_free(p->children);
}

/* The length of text cut to at most limit bytes, not inside a UTF-8 character. */
static size_t cut_at_character(const repr_text *t, size_t limit) {
  size_t n = t->size < limit ? t->size : limit;
  if (n < t->size)
    while (n > 0 && ((unsigned char)t->data[n] & 0xC0) == 0x80) --n;
  return n;
}

int xffi_repr_with(xffi_object **out, const xffi_any *value, const xffi_repr_options *options) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = NULL;
  XFFI_CHECK_ARG_NOT_NULL(value);
  xffi_repr_options defaults = {0, 0, 0};
  if (!options) options = &defaults;
  XFFI_CHECK_ARG(options->max_depth, options->max_depth >= 0, XFFI_KIND_VALUE,
                 "must be >= 0 (0 for the default), got %lld", (long long)options->max_depth);
  XFFI_CHECK_ARG(options->max_bytes, options->max_bytes >= 0, XFFI_KIND_VALUE,
                 "must be >= 0 (0 for the default), got %lld", (long long)options->max_bytes);
  if (xffi_any_check(__func__, "value", value) != XFFI_OK) return XFFI_FAIL;
  xffi_any root;
  if (xffi_any_copy(&root, value) != XFFI_OK) return XFFI_FAIL; /* a C string view becomes a string */
  repr_printer p;
  memset(&p, 0, sizeof(p));
  p.max_depth = options->max_depth ? options->max_depth : XFFI_REPR_DEFAULT_MAX_DEPTH;
  int64_t max_bytes = options->max_bytes ? options->max_bytes : XFFI_REPR_DEFAULT_MAX_BYTES;
  p.max_bytes = (uint64_t)max_bytes > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)max_bytes;
  p.with_address = options->with_address != 0;
  int status = xffi_type_attr_column_lookup(&p.hooks, "__ffi_repr__");
  if (status == XFFI_OK) status = reserve((void **)&p.texts, &p.cap_texts, 1, sizeof(repr_text));
  if (status == XFFI_OK) {
    p.texts[p.num_texts++] = (repr_text){NULL, 0, 0, p.max_bytes, 0};
    status = print_value(&p, &root, 0);
  }
  if (status == XFFI_OK) {
    repr_text *t = &p.texts[0];
    if (p.stopped || t->truncated) {
      t->size = cut_at_character(t, p.max_bytes);
      t->truncated = 0;
      t->limit = SIZE_MAX;
      status = xffi_repr_put(t, truncated_marker, sizeof(truncated_marker) - 1);
    }
    if (status == XFFI_OK) status = xffi_string_new(out, t->data ? t->data : "", t->size);
  }
  xffi_any_release(&root);
  printer_free(&p);
  return status;
}

int xffi_repr(xffi_object **out, const xffi_any *value) {
  const char *env = getenv("TVM_FFI_REPR_WITH_ADDR");
  xffi_repr_options options = {0, 0, env && strcmp(env, "1") == 0};
  return xffi_repr_with(out, value, &options);
}
