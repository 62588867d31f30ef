/* c/lib/text/serialization_write.c: the JSON graph encoder (xffi_graph_encode,
 * c/lib/text/serialization_write.h) of ffi.ToJSONGraph (xffi_to_json: its value
 * emitter, below) and ffi.ToJSONGraphString (c/lib/text/serialization_write_text.c),
 * tvm-ffi's JSON graph format:
 *
 *   {"root_index": R, "nodes": [{"type": <type key>, "data": ...}, ...],
 *    "metadata": ...}
 *
 * Each distinct value is one node; a container's data lists its children's
 * node indices (a Map's and a Dict's as key, value, key, value...). Nodes
 * are numbered after their children, in the order tvm-ffi numbers them, so
 * the text is byte for byte tvm-ffi's. Values equal as Map keys (AnyEqual:
 * strings by content, objects by identity) share one node.
 *
 * Reflected objects are written as c/lib/text/serialization_object.h says: an enum
 * member or a type with __data_to_json__ as one node, other objects like a
 * container whose children are the values of their non-inlined fields.
 *
 * The walk uses a heap stack; Lists, Dicts and objects being written sit in
 * an identity table, so one that contains itself is an error. */
#include <string.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/json.h>
#include <xffi/map.h>
#include <xffi/shape.h>
#include <xffi/string.h>
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "lib/reflection/field_storage.h"
#include "lib/container/map_key.h"
#include "lib/walk/recursive_walk.h"
#include "lib/text/serialization_keys.h"
#include "lib/text/serialization_object.h"
#include "lib/text/serialization_write.h"
#include "lib/tensor/dtype_tvm_text.h"
#include "lib/container/map_table.h" /* map_of */

static const char *const FN = "ffi.ToJSONGraph";

enum { FRAME_SEQ, FRAME_MAP, FRAME_OBJECT };

/* A container or object whose children are being numbered. */
typedef struct graph_frame {
  xffi_any held; /* owned: the container or object */
  int32_t kind;
  int64_t size, position;
  const xffi_any *items; /* Array/List elements */
  int64_t map_cursor;
  xffi_map_item item; /* Map/Dict: the entry being numbered */
  int value_held;     /* ... its value copied into child (its key may run others' code) */
  /* Object: the next field, the field whose value is being numbered, and
   * that value (owned). */
  const xffi_type_info *type;
  int32_t level, field_index;
  const xffi_field_info *field;
  xffi_any child;
  size_t entries_begin; /* its data so far: the encoder's entries from here on */
} graph_frame;

typedef struct graph_encoder {
  xffi_graph_emitter *emitter; /* borrowed */
  int64_t count;               /* nodes emitted */
  xffi_object *numbered;       /* owned Map: value -> its node index (AnyEqual, as tvm-ffi's) */
  xffi_walk_vec frames;        /* graph_frame */
  xffi_walk_vec entries;       /* xffi_graph_entry: the open frames' data, outermost first */
  xffi_walk_table active;      /* Lists, Dicts and objects being written */
} graph_encoder;

/* Emits node for value (borrowed); *index receives its index. */
static int add_node(graph_encoder *w, const xffi_any *value, const xffi_graph_node *node, int64_t *index) {
  if (w->emitter->emit(w->emitter, node) != XFFI_OK) return XFFI_FAIL;
  xffi_any index_value = xffi_any_int(w->count);
  if (xffi_map_set(&w->numbered, value, &index_value) != XFFI_OK) return XFFI_FAIL;
  *index = w->count++;
  return XFFI_OK;
}

/* A node whose data is data (borrowed; NULL for none). */
static int add_value_node(graph_encoder *w, const xffi_any *value, const char *type_key, const xffi_any *data,
                          int64_t *index) {
  xffi_graph_node node = {type_key, data ? XFFI_GRAPH_DATA_VALUE : XFFI_GRAPH_DATA_NONE, data, NULL, 0};
  return add_node(w, value, &node, index);
}

/* A node whose data is the ints numbers[0, count). */
static int add_ints_node(graph_encoder *w, const xffi_any *value, const char *type_key, const int64_t *numbers,
                         size_t count, int64_t *index) {
  xffi_graph_entry small[4];
  xffi_graph_entry *entries = count <= 4 ? small : (xffi_graph_entry *)xffi_alloc(count * sizeof(xffi_graph_entry));
  if (entries == NULL) return xffi_error_raise_out_of_memory();
  for (size_t i = 0; i < count; ++i) {
    entries[i].field = NULL;
    entries[i].value = xffi_any_int(numbers[i]);
  }
  xffi_graph_node node = {type_key, XFFI_GRAPH_DATA_INTS, NULL, entries, (int64_t)count};
  int status = add_node(w, value, &node, index);
  if (entries != small) xffi_free(entries);
  return status;
}

static const char BASE64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* *out receives a new string: bytes in standard base64 with padding. */
static int base64_encode(xffi_any *out, xffi_byte_array bytes) {
  size_t n = (bytes.size + 2) / 3 * 4;
  char *text = (char *)xffi_alloc(n + 1);
  if (text == NULL) return xffi_error_raise_out_of_memory();
  const unsigned char *p = (const unsigned char *)bytes.data;
  size_t j = 0;
  for (size_t i = 0; i < bytes.size; i += 3) {
    uint32_t b = (uint32_t)p[i] << 16;
    if (i + 1 < bytes.size) b |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < bytes.size) b |= p[i + 2];
    text[j++] = BASE64[(b >> 18) & 63];
    text[j++] = BASE64[(b >> 12) & 63];
    text[j++] = i + 1 < bytes.size ? BASE64[(b >> 6) & 63] : '=';
    text[j++] = i + 2 < bytes.size ? BASE64[b & 63] : '=';
  }
  int status = xffi_any_from_str(out, text, j);
  xffi_free(text);
  return status;
}

/* Numbers a value with no children: *index receives its node index. */
static int add_leaf(graph_encoder *w, const xffi_any *v, int64_t *index) {
  int32_t t = v->type_index;
  xffi_any data = xffi_any_none();
  int status = XFFI_OK;
  const char *key;
  switch (t) {
    case XFFI_TYPE_NONE: return add_value_node(w, v, XFFI_GRAPH_KEY_NONE, NULL, index);
    case XFFI_TYPE_BOOL: return add_value_node(w, v, XFFI_GRAPH_KEY_BOOL, v, index);
    case XFFI_TYPE_INT: return add_value_node(w, v, XFFI_GRAPH_KEY_INT, v, index);
    case XFFI_TYPE_FLOAT: return add_value_node(w, v, XFFI_GRAPH_KEY_FLOAT, v, index);
    case XFFI_TYPE_DTYPE:
      key = XFFI_GRAPH_KEY_DTYPE;
      status = xffi_dtype_to_tvm_text(&v->v_dtype, &data);
      break;
    case XFFI_TYPE_DEVICE: {
      int64_t pair[2] = {(int32_t)v->v_device.device_type, v->v_device.device_id}; /* an int32 in the format */
      return add_ints_node(w, v, XFFI_GRAPH_KEY_DEVICE, pair, 2, index);
    }
    case XFFI_TYPE_SHAPE: {
      xffi_shape_cell cell;
      if (xffi_shape_cell_of(&cell, v->v_obj) != XFFI_OK) return XFFI_FAIL;
      return add_ints_node(w, v, XFFI_GRAPH_KEY_SHAPE, cell.data, cell.size, index);
    }
    default:
      if (xffi_walk_is_str(t)) return add_value_node(w, v, XFFI_GRAPH_KEY_STR, v, index);
      if (!xffi_walk_is_bytes(t))
        return xffi_error_raise(XFFI_KIND_TYPE, "%s: cannot write a value of type `%s`: it has no JSON graph form", FN,
                                xffi_any_kind_name(v));
      key = XFFI_GRAPH_KEY_BYTES;
      status = base64_encode(&data, map_text_of(v));
  }
  if (status == XFFI_OK) status = add_value_node(w, v, key, &data, index);
  xffi_any_release(&data);
  return status;
}

static int is_container(int32_t t) {
  return t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_LIST || t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT;
}

/* Whether a value of type index t is a reflected object (not a string,
 * bytes, Shape or container, which have fixed forms). */
static int is_reflected(int32_t t) {
  return t >= XFFI_TYPE_STATIC_OBJECT_BEGIN && !xffi_walk_is_str(t) && !xffi_walk_is_bytes(t) && t != XFFI_TYPE_SHAPE &&
         !is_container(t);
}

/* Numbers object v (borrowed) of type, whose form is one node with no
 * children: an enum member's index or what __data_to_json__ returns. */
static int add_object_leaf(graph_encoder *w, const xffi_any *v, const xffi_type_info *type, xffi_graph_form form,
                           xffi_object *hook, int64_t *index) {
  xffi_any data = xffi_any_none();
  /* v is held across the hook, which may drop it from its container. */
  xffi_any held = xffi_any_object_new_ref(v->v_obj);
  int status = form == XFFI_GRAPH_HOOK ? xffi_function_call(hook, &held, 1, &data)
                                       : xffi_graph_enum_index(&data, held.v_obj, form == XFFI_GRAPH_INT_ENUM);
  if (status == XFFI_OK) status = add_value_node(w, &held, type->type_key.data, &data, index);
  xffi_any_release(&data);
  xffi_any_release(&held);
  return status;
}

/* Starts numbering v (borrowed: it may sit in the frame vector, which a
 * push moves), a container or an object walked by its fields (type). */
static int open_frame(graph_encoder *w, const xffi_any *v, const xffi_type_info *type) {
  int32_t t = v->type_index;
  if (w->frames.count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep(FN);
  if (t == XFFI_TYPE_LIST || t == XFFI_TYPE_DICT || type != NULL) {
    if (xffi_walk_table_find(&w->active, v->v_obj, NULL) != NULL) {
      if (type != NULL)
        return xffi_error_raise(XFFI_KIND_VALUE,
                                "%s: Cycle detected during serialization: an object of type `%s` contains itself", FN,
                                type->type_key.data);
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: Cycle detected during serialization: a %s contains itself", FN,
                              t == XFFI_TYPE_LIST ? "List" : "Dict");
    }
    if (xffi_walk_table_put(&w->active, v->v_obj, NULL) == NULL) return XFFI_FAIL;
  }
  xffi_any held = xffi_any_object_new_ref(v->v_obj);
  graph_frame *f = (graph_frame *)xffi_walk_vec_push(&w->frames);
  if (f == NULL) {
    xffi_any_release(&held);
    return XFFI_FAIL;
  }
  f->held = held;
  f->child = xffi_any_none();
  f->entries_begin = w->entries.count;
  if (type != NULL) {
    f->kind = FRAME_OBJECT;
    f->type = type;
    f->level = 1;
    return XFFI_OK;
  }
  if (t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT) {
    f->kind = FRAME_MAP;
    int status = xffi_map_length(&f->size, held.v_obj);
    f->size *= 2;
    return status;
  }
  f->kind = FRAME_SEQ;
  return xffi_array_items(&f->items, &f->size, held.v_obj);
}

static const char *frame_key(const graph_frame *f) {
  if (f->kind == FRAME_OBJECT) return f->type->type_key.data;
  switch (f->held.type_index) {
    case XFFI_TYPE_ARRAY: return XFFI_GRAPH_KEY_ARRAY;
    case XFFI_TYPE_LIST: return XFFI_GRAPH_KEY_LIST;
    case XFFI_TYPE_MAP: return XFFI_GRAPH_KEY_MAP;
    default: return XFFI_GRAPH_KEY_DICT;
  }
}

/* Appends an entry of the top frame's data: field (NULL in a container) and
 * value (stolen). */
static int put_entry(graph_encoder *w, const xffi_field_info *field, xffi_any value) {
  xffi_graph_entry *e = (xffi_graph_entry *)xffi_walk_vec_push_unset(&w->entries);
  if (e == NULL) {
    xffi_any_release(&value);
    return XFFI_FAIL;
  }
  e->field = field;
  e->value = value;
  return XFFI_OK;
}

/* Numbers v if it is new: a leaf at once, a container or an object with
 * fields by opening its frame (*pending set; its index comes when the
 * frame closes). */
static int visit(graph_encoder *w, const xffi_any *v, int64_t *index, int *pending) {
  *pending = 0;
  const xffi_any *known;
  if (xffi_map_lookup(&known, w->numbered, v) != XFFI_OK) return XFFI_FAIL;
  if (known != NULL) {
    *index = known->v_int64;
    return XFFI_OK;
  }
  int32_t t = v->type_index;
  if (is_reflected(t)) {
    const xffi_type_info *type = xffi_type_info_find(t);
    if (type == NULL) return xffi_error_raise(XFFI_KIND_TYPE, "%s: object of unregistered type index %d", FN, (int)t);
    xffi_object *hook;
    xffi_graph_form form = xffi_graph_form_of(type, 1, &hook);
    if (form != XFFI_GRAPH_FIELDS) return add_object_leaf(w, v, type, form, hook, index);
    if (!xffi_graph_has_creator(type))
      return xffi_error_raise(XFFI_KIND_TYPE,
                              "%s: Type `%s` does not support ToJSONGraph (no native creator or __ffi_new__ type attr)",
                              FN, type->type_key.data);
    *pending = 1;
    return open_frame(w, v, type);
  }
  if (!is_container(t)) return add_leaf(w, v, index);
  *pending = 1;
  return open_frame(w, v, NULL);
}

/* The value of a field of static type static_index written inline into
 * *out (a new reference), or 0 when the field's value gets a node. */
static int inline_field(const xffi_any *value, int32_t static_index, xffi_any *out, int *status) {
  *status = XFFI_OK;
  if (!xffi_graph_field_inlined(static_index)) return 0;
  if (static_index == XFFI_TYPE_NONE) {
    *out = xffi_any_none();
    return 1;
  }
  if (value->type_index != static_index) return 0; /* not what the field declares: give it a node */
  if (static_index == XFFI_TYPE_DTYPE)
    *status = xffi_dtype_to_tvm_text(&value->v_dtype, out);
  else
    *out = *value;
  return 1;
}

/* The next child of f (borrowed), or NULL when f has no more. */
static int next_child(graph_encoder *w, graph_frame *f, const xffi_any **child) {
  *child = NULL;
  if (f->kind == FRAME_OBJECT) {
    for (;;) {
      const xffi_field_info *field = xffi_walk_next_field(f->type, &f->level, &f->field_index, 0);
      if (field == NULL) return XFFI_OK;
      xffi_any_release(&f->child);
      f->child = xffi_any_none();
      if (xffi_field_read(&f->child, f->held.v_obj, field) != XFFI_OK) return XFFI_FAIL;
      xffi_any inlined;
      int status;
      if (!inline_field(&f->child, field->field_static_type_index, &inlined, &status)) {
        f->field = field;
        *child = &f->child;
        return XFFI_OK;
      }
      if (status != XFFI_OK || put_entry(w, field, inlined) != XFFI_OK) return XFFI_FAIL;
    }
  }
  /* A hook run for a child given earlier may have changed a List or Dict:
   * read it again, and refuse one whose size changed. */
  const xffi_object *obj = f->held.v_obj;
  int64_t size = f->kind == FRAME_SEQ ? xffi_seq_size_unchecked(obj) : 2 * (int64_t)map_of(obj)->size;
  if (f->kind == FRAME_SEQ) f->items = xffi_seq_items_unchecked(obj);
  if (size != f->size)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s changed while written", FN, f->kind == FRAME_SEQ ? "list" : "map");
  if (f->position == f->size) return XFFI_OK;
  if (f->kind == FRAME_SEQ) {
    *child = &f->items[f->position];
  } else if (f->position % 2 == 0) {
    if (xffi_map_next(&f->item, f->held.v_obj, &f->map_cursor) != XFFI_OK) return XFFI_FAIL;
    if (f->item.key == NULL) return xffi_error_raise(XFFI_KIND_VALUE, "%s: map changed while written", FN);
    /* Numbering an object key may run a hook (its own, or one below it)
     * that changes the map: its value is held across it. */
    int32_t t = f->item.key->type_index;
    f->value_held = t >= XFFI_TYPE_STATIC_OBJECT_BEGIN && !xffi_walk_is_str(t) && !xffi_walk_is_bytes(t);
    xffi_any_release(&f->child);
    if (f->value_held && xffi_any_copy(&f->child, f->item.value) != XFFI_OK) return XFFI_FAIL;
    *child = f->item.key;
  } else {
    *child = f->value_held ? &f->child : f->item.value;
  }
  f->position++;
  return XFFI_OK;
}

/* Releases the entries from begin on and drops them. */
static void pop_entries(graph_encoder *w, size_t begin) {
  for (size_t i = begin; i < w->entries.count; ++i)
    xffi_any_release(&((xffi_graph_entry *)xffi_walk_vec_at(&w->entries, i))->value);
  w->entries.count = begin;
}

/* Records a child's node index in the top frame's data. */
static int put_index(graph_encoder *w, int64_t index) {
  const graph_frame *f = (const graph_frame *)xffi_walk_vec_top(&w->frames);
  return put_entry(w, f->kind == FRAME_OBJECT ? f->field : NULL, xffi_any_int(index));
}

/* Advances the top frame by one child, or closes it: *closed and *index
 * then say the closed node's index. */
static int step(graph_encoder *w, int *closed, int64_t *index) {
  graph_frame *f = (graph_frame *)xffi_walk_vec_top(&w->frames);
  *closed = 0;
  const xffi_any *child;
  if (next_child(w, f, &child) != XFFI_OK) return XFFI_FAIL;
  if (child == NULL) {
    graph_frame done = *f;
    w->frames.count--;
    if (done.kind == FRAME_OBJECT || done.held.type_index == XFFI_TYPE_LIST || done.held.type_index == XFFI_TYPE_DICT)
      xffi_walk_table_remove(&w->active, done.held.v_obj, NULL);
    size_t count = w->entries.count - done.entries_begin;
    /* No entries may mean no buffer yet: no pointer into it then. */
    const xffi_graph_entry *entries =
        count ? (const xffi_graph_entry *)xffi_walk_vec_at(&w->entries, done.entries_begin) : NULL;
    xffi_graph_node node = {frame_key(&done), done.kind == FRAME_OBJECT ? XFFI_GRAPH_DATA_FIELDS : XFFI_GRAPH_DATA_INTS,
                            NULL, entries, (int64_t)count};
    int status = add_node(w, &done.held, &node, index);
    pop_entries(w, done.entries_begin);
    xffi_any_release(&done.held);
    xffi_any_release(&done.child);
    *closed = 1;
    return status;
  }
  int pending;
  int64_t child_index;
  if (visit(w, child, &child_index, &pending) != XFFI_OK) return XFFI_FAIL;
  if (pending) return XFFI_OK;
  return put_index(w, child_index);
}

int xffi_graph_encode(const xffi_any *value, xffi_graph_emitter *emitter, int64_t *root) {
  graph_encoder w;
  memset(&w, 0, sizeof(w));
  w.emitter = emitter;
  w.frames.item_size = sizeof(graph_frame);
  w.entries.item_size = sizeof(xffi_graph_entry);
  int pending;
  int status = xffi_map_new(&w.numbered, NULL, NULL, 0);
  if (status == XFFI_OK) status = visit(&w, value, root, &pending);
  while (status == XFFI_OK && w.frames.count > 0) {
    int closed;
    int64_t index;
    status = step(&w, &closed, &index);
    if (status != XFFI_OK || !closed) continue;
    if (w.frames.count == 0)
      *root = index;
    else
      status = put_index(&w, index);
  }
  for (size_t i = 0; i < w.frames.count; ++i) {
    graph_frame *f = (graph_frame *)xffi_walk_vec_at(&w.frames, i);
    xffi_any_release(&f->held);
    xffi_any_release(&f->child);
  }
  pop_entries(&w, 0);
  xffi_walk_vec_free(&w.frames);
  xffi_walk_vec_free(&w.entries);
  xffi_walk_table_free(&w.active);
  if (w.numbered) xffi_object_dec_ref(w.numbered);
  return status;
}

/* ---- The value emitter: ffi.ToJSONGraph, one Map per node ---- */

/* *out receives the String (borrowed from names) of text[0, size), which
 * owner (a field record, or a type key's static text with tag set) always
 * has: made once per owner. */
static int cached_text(xffi_walk_table *names, const void *owner, const void *tag, const char *text, size_t size,
                       const xffi_any **out) {
  xffi_walk_entry *e = xffi_walk_table_find(names, owner, tag);
  if (e == NULL) {
    xffi_any made;
    if (xffi_any_from_str(&made, text, size) != XFFI_OK) return XFFI_FAIL;
    e = xffi_walk_table_put(names, owner, tag);
    if (e == NULL) {
      xffi_any_release(&made);
      return XFFI_FAIL;
    }
    e->value = made;
  }
  *out = &e->value;
  return XFFI_OK;
}

int xffi_graph_node_data(xffi_any *out, const xffi_graph_node *node, xffi_walk_table *names) {
  xffi_object *data = NULL;
  int status = XFFI_OK;
  switch (node->data_kind) {
    case XFFI_GRAPH_DATA_NONE: *out = xffi_any_none(); return XFFI_OK;
    case XFFI_GRAPH_DATA_VALUE: return xffi_any_copy(out, node->data);
    case XFFI_GRAPH_DATA_INTS:
      status = xffi_array_new_with_capacity(&data, node->count);
      for (int64_t i = 0; status == XFFI_OK && i < node->count; ++i)
        status = xffi_array_push(&data, &node->entries[i].value);
      break;
    default:
      /* One set per field, in order, as tvm-ffi fills the Map (a repeated
       * name keeps its last value). */
      status = xffi_map_new(&data, NULL, NULL, 0);
      for (int64_t i = 0; status == XFFI_OK && i < node->count; ++i) {
        const xffi_any *name;
        const xffi_field_info *field = node->entries[i].field;
        status = cached_text(names, field, NULL, field->name.data, field->name.size, &name);
        if (status == XFFI_OK) status = xffi_map_set(&data, name, &node->entries[i].value);
      }
  }
  if (status != XFFI_OK) {
    if (data) xffi_object_dec_ref(data);
    return XFFI_FAIL;
  }
  *out = xffi_any_object(data);
  return XFFI_OK;
}

typedef struct value_emitter {
  xffi_graph_emitter base;
  xffi_object *nodes;    /* owned Array of node Maps */
  xffi_walk_table names; /* field records and type keys -> their Strings */
  xffi_any keys[2];      /* "type", "data": inline strings, nothing to free */
} value_emitter;

/* Appends {"type": ..., "data": ...} to the nodes. */
static int emit_value(xffi_graph_emitter *self, const xffi_graph_node *node) {
  value_emitter *e = (value_emitter *)self;
  const xffi_any *type_key;
  if (cached_text(&e->names, node->type_key, &e->names, node->type_key, strlen(node->type_key), &type_key) != XFFI_OK)
    return XFFI_FAIL;
  xffi_any values[2] = {*type_key, xffi_any_none()};
  if (xffi_graph_node_data(&values[1], node, &e->names) != XFFI_OK) return XFFI_FAIL;
  xffi_object *map = NULL;
  int status = xffi_map_new(&map, e->keys, values, node->data_kind == XFFI_GRAPH_DATA_NONE ? 1 : 2);
  xffi_any_release(&values[1]);
  if (status != XFFI_OK) return XFFI_FAIL;
  xffi_any map_view = xffi_any_object(map);
  status = xffi_array_push(&e->nodes, &map_view);
  xffi_object_dec_ref(map);
  return status;
}

int xffi_to_json(xffi_any *out, const xffi_any *value, const xffi_any *metadata) {
  if (out == NULL || value == NULL)
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_to_json: %s is NULL", out == NULL ? "out" : "value");
  value_emitter e;
  memset(&e, 0, sizeof(e));
  e.base.emit = emit_value;
  int64_t root = 0;
  int status = xffi_any_from_str(&e.keys[0], "type", 4);
  if (status == XFFI_OK) status = xffi_any_from_str(&e.keys[1], "data", 4);
  if (status == XFFI_OK) status = xffi_array_new_with_capacity(&e.nodes, 0);
  if (status == XFFI_OK) status = xffi_graph_encode(value, &e.base, &root);
  xffi_walk_table_free(&e.names);
  if (status == XFFI_OK) {
    int has_metadata = metadata != NULL && metadata->type_index != XFFI_TYPE_NONE;
    xffi_any keys[3] = {xffi_any_c_str("root_index"), xffi_any_c_str("nodes"), xffi_any_c_str("metadata")};
    xffi_any values[3] = {xffi_any_int(root), xffi_any_object(e.nodes), has_metadata ? *metadata : xffi_any_none()};
    xffi_object *graph;
    status = xffi_map_new(&graph, keys, values, has_metadata ? 3 : 2);
    if (status == XFFI_OK) *out = xffi_any_object(graph);
  }
  if (e.nodes) xffi_object_dec_ref(e.nodes);
  return status;
}
