/* c/serialization_write.c: xffi_to_json (ffi.ToJSONGraph and
 * ffi.ToJSONGraphString), tvm-ffi's JSON graph format:
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
 * The walk uses a heap stack; Lists and Dicts being written sit in an
 * identity table, so one that contains itself is an error. Reflected
 * objects (field records, enums, __data_to_json__) are not written yet:
 * they are a TypeError naming the type. */
#include <string.h>

#include <xffi/array.h>
#include <xffi/json.h>
#include <xffi/map.h>
#include <xffi/shape.h>
#include <xffi/string.h>
#include <xffi/tvm_ffi.h>

#include "map_key.h"
#include "recursive_walk.h"
#include "serialization_keys.h"

static const char *const FN = "ffi.ToJSONGraph";

/* A container whose children are being numbered. */
typedef struct graph_frame {
  const xffi_any *value; /* borrowed: held by its parent or the caller */
  int64_t size, position;
  const xffi_any *items; /* Array/List elements */
  int64_t map_cursor;
  xffi_map_item item; /* Map/Dict: the entry being numbered */
  xffi_object *data;  /* owned: the child indices so far (an Array) */
} graph_frame;

typedef struct graph_writer {
  xffi_object *nodes;     /* owned Array of node Maps */
  xffi_object *index_of;  /* owned Map: value -> its node index */
  xffi_walk_vec frames;   /* graph_frame */
  xffi_walk_table active; /* Lists and Dicts being written */
} graph_writer;

/* Appends node {"type": type_key, "data": data} (data borrowed; NULL for
 * none) for value (borrowed); *index receives its index. */
static int add_node(graph_writer *w, const xffi_any *value, const char *type_key, const xffi_any *data,
                    int64_t *index) {
  xffi_any keys[2] = {xffi_any_c_str("type"), xffi_any_c_str("data")};
  xffi_any values[2] = {xffi_any_c_str(type_key), data ? *data : xffi_any_none()};
  xffi_object *node;
  if (xffi_map_new(&node, keys, values, data ? 2 : 1) != XFFI_OK) return XFFI_FAIL;
  xffi_any node_view = xffi_any_object(node);
  int64_t count;
  int status = xffi_array_length(&count, w->nodes);
  if (status == XFFI_OK) status = xffi_array_push(&w->nodes, &node_view);
  xffi_object_dec_ref(node);
  if (status != XFFI_OK) return XFFI_FAIL;
  xffi_any index_value = xffi_any_int(count);
  if (xffi_map_set(&w->index_of, value, &index_value) != XFFI_OK) return XFFI_FAIL;
  *index = count;
  return XFFI_OK;
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
static int add_leaf(graph_writer *w, const xffi_any *v, int64_t *index) {
  int32_t t = v->type_index;
  xffi_any data = xffi_any_none();
  int status = XFFI_OK;
  const char *key;
  switch (t) {
    case XFFI_TYPE_NONE: return add_node(w, v, XFFI_GRAPH_KEY_NONE, NULL, index);
    case XFFI_TYPE_BOOL: return add_node(w, v, XFFI_GRAPH_KEY_BOOL, v, index);
    case XFFI_TYPE_INT: return add_node(w, v, XFFI_GRAPH_KEY_INT, v, index);
    case XFFI_TYPE_FLOAT: return add_node(w, v, XFFI_GRAPH_KEY_FLOAT, v, index);
    case XFFI_TYPE_DTYPE:
      key = XFFI_GRAPH_KEY_DTYPE;
      status = TVMFFIDataTypeToString(&v->v_dtype, &data);
      break;
    case XFFI_TYPE_DEVICE: {
      key = XFFI_GRAPH_KEY_DEVICE;
      xffi_any pair[2] = {xffi_any_int(v->v_device.device_type), xffi_any_int(v->v_device.device_id)};
      xffi_object *array;
      status = xffi_array_new(&array, pair, 2);
      if (status == XFFI_OK) data = xffi_any_object(array);
      break;
    }
    case XFFI_TYPE_SHAPE: {
      key = XFFI_GRAPH_KEY_SHAPE;
      xffi_shape_cell cell;
      xffi_object *array = NULL;
      status = xffi_shape_cell_of(&cell, v->v_obj);
      if (status == XFFI_OK) status = xffi_array_new_with_capacity(&array, (int64_t)cell.size);
      for (size_t i = 0; status == XFFI_OK && i < cell.size; ++i) {
        xffi_any dim = xffi_any_int(cell.data[i]);
        status = xffi_array_push(&array, &dim);
      }
      if (array) data = xffi_any_object(array);
      break;
    }
    default:
      if (xffi_walk_is_str(t)) {
        key = XFFI_GRAPH_KEY_STR;
        xffi_byte_array s = map_text_of(v);
        status = xffi_any_from_str(&data, s.data, s.size);
      } else if (xffi_walk_is_bytes(t)) {
        key = XFFI_GRAPH_KEY_BYTES;
        status = base64_encode(&data, map_text_of(v));
      } else {
        return xffi_error_raise(
            XFFI_KIND_TYPE, "%s: cannot write a value of type `%s`: %s", FN, xffi_any_kind_name(v),
            t >= XFFI_TYPE_STATIC_OBJECT_BEGIN ? "reflected objects are not written yet" : "it has no JSON graph form");
      }
  }
  if (status == XFFI_OK) status = add_node(w, v, key, &data, index);
  xffi_any_release(&data);
  return status;
}

static int is_container(int32_t t) {
  return t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_LIST || t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT;
}

/* Starts numbering container v (borrowed). */
static int open_frame(graph_writer *w, const xffi_any *v) {
  int32_t t = v->type_index;
  if (w->frames.count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep(FN);
  if (t == XFFI_TYPE_LIST || t == XFFI_TYPE_DICT) {
    if (xffi_walk_table_find(&w->active, v->v_obj, NULL) != NULL)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: Cycle detected during serialization: a %s contains itself", FN,
                              t == XFFI_TYPE_LIST ? "List" : "Dict");
    if (xffi_walk_table_put(&w->active, v->v_obj, NULL) == NULL) return XFFI_FAIL;
  }
  graph_frame *f = (graph_frame *)xffi_walk_vec_push(&w->frames);
  if (f == NULL) return XFFI_FAIL;
  f->value = v;
  int status;
  if (t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT) {
    status = xffi_map_length(&f->size, v->v_obj);
    f->size *= 2;
  } else {
    status = xffi_array_items(&f->items, &f->size, v->v_obj);
  }
  if (status == XFFI_OK) status = xffi_array_new_with_capacity(&f->data, f->size);
  return status;
}

static const char *container_key(int32_t t) {
  switch (t) {
    case XFFI_TYPE_ARRAY: return XFFI_GRAPH_KEY_ARRAY;
    case XFFI_TYPE_LIST: return XFFI_GRAPH_KEY_LIST;
    case XFFI_TYPE_MAP: return XFFI_GRAPH_KEY_MAP;
    default: return XFFI_GRAPH_KEY_DICT;
  }
}

/* Numbers v if it is new: a leaf at once, a container by opening its frame
 * (*pending set; its index comes when the frame closes). */
static int visit(graph_writer *w, const xffi_any *v, int64_t *index, int *pending) {
  *pending = 0;
  const xffi_any *known;
  if (xffi_map_lookup(&known, w->index_of, v) != XFFI_OK) return XFFI_FAIL;
  if (known != NULL) {
    *index = known->v_int64;
    return XFFI_OK;
  }
  if (!is_container(v->type_index)) return add_leaf(w, v, index);
  *pending = 1;
  return open_frame(w, v);
}

/* Advances the top frame by one child, or closes it: *closed and *index
 * then say the closed container's node index. */
static int step(graph_writer *w, int *closed, int64_t *index) {
  graph_frame *f = (graph_frame *)xffi_walk_vec_top(&w->frames);
  *closed = 0;
  if (f->position == f->size) {
    const xffi_any *v = f->value;
    xffi_any data = xffi_any_object(f->data);
    f->data = NULL;
    if (v->type_index == XFFI_TYPE_LIST || v->type_index == XFFI_TYPE_DICT)
      xffi_walk_table_remove(&w->active, v->v_obj, NULL);
    w->frames.count--;
    int status = add_node(w, v, container_key(v->type_index), &data, index);
    xffi_any_release(&data);
    *closed = 1;
    return status;
  }
  const xffi_any *child;
  if (f->items != NULL) {
    child = &f->items[f->position];
  } else if (f->position % 2 == 0) {
    if (xffi_map_next(&f->item, f->value->v_obj, &f->map_cursor) != XFFI_OK) return XFFI_FAIL;
    if (f->item.key == NULL) return xffi_error_raise(XFFI_KIND_VALUE, "%s: map changed while written", FN);
    child = f->item.key;
  } else {
    child = f->item.value;
  }
  f->position++;
  int pending;
  int64_t child_index;
  if (visit(w, child, &child_index, &pending) != XFFI_OK) return XFFI_FAIL;
  if (pending) return XFFI_OK;
  xffi_any index_value = xffi_any_int(child_index);
  return xffi_array_push(&f->data, &index_value);
}

/* Numbers value and everything under it; *root receives its index. */
static int write_graph(graph_writer *w, const xffi_any *value, int64_t *root) {
  int pending;
  if (visit(w, value, root, &pending) != XFFI_OK) return XFFI_FAIL;
  while (w->frames.count > 0) {
    int closed;
    int64_t index;
    if (step(w, &closed, &index) != XFFI_OK) return XFFI_FAIL;
    if (!closed) continue;
    if (w->frames.count == 0) {
      *root = index;
      break;
    }
    graph_frame *parent = (graph_frame *)xffi_walk_vec_top(&w->frames);
    xffi_any index_value = xffi_any_int(index);
    if (xffi_array_push(&parent->data, &index_value) != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

int xffi_to_json(xffi_any *out, const xffi_any *value, const xffi_any *metadata) {
  if (out == NULL || value == NULL)
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_to_json: %s is NULL", out == NULL ? "out" : "value");
  graph_writer w;
  memset(&w, 0, sizeof(w));
  w.frames.item_size = sizeof(graph_frame);
  int64_t root = 0;
  int status = xffi_array_new_with_capacity(&w.nodes, 0);
  if (status == XFFI_OK) status = xffi_map_new(&w.index_of, NULL, NULL, 0);
  if (status == XFFI_OK) status = write_graph(&w, value, &root);
  for (size_t i = 0; i < w.frames.count; ++i) {
    graph_frame *f = (graph_frame *)xffi_walk_vec_at(&w.frames, i);
    if (f->data) xffi_object_dec_ref(f->data);
  }
  xffi_walk_vec_free(&w.frames);
  xffi_walk_table_free(&w.active);
  if (w.index_of) xffi_object_dec_ref(w.index_of);
  if (status == XFFI_OK) {
    int has_metadata = metadata != NULL && metadata->type_index != XFFI_TYPE_NONE;
    xffi_any keys[3] = {xffi_any_c_str("root_index"), xffi_any_c_str("nodes"), xffi_any_c_str("metadata")};
    xffi_any values[3] = {xffi_any_int(root), xffi_any_object(w.nodes), has_metadata ? *metadata : xffi_any_none()};
    xffi_object *graph;
    status = xffi_map_new(&graph, keys, values, has_metadata ? 3 : 2);
    if (status == XFFI_OK) *out = xffi_any_object(graph);
  }
  if (w.nodes) xffi_object_dec_ref(w.nodes);
  return status;
}
