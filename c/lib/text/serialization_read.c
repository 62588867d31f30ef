/* c/lib/text/serialization_read.c: xffi_from_json (ffi.FromJSONGraph and
 * ffi.FromJSONGraphString), the reader of tvm-ffi's JSON graph format
 * (c/lib/text/serialization_write.c has the format).
 *
 * Hostile graphs are expected: each node is checked as it is decoded, and
 * an error names the node, its type and the bad part (a node index out of
 * range, a node that leads back to itself, which the format cannot hold
 * and tvm-ffi's recursive reader would follow until its stack overflows,
 * data of the wrong type). Nodes are decoded once each (shared values stay
 * shared), with a heap stack, and nothing half-built outlives an error. */
#include <stdio.h>
#include <string.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/json.h>
#include <xffi/map.h>
#include <xffi/shape.h>
#include <xffi/string.h>
#include <xffi/sys/error.h>
#include <xffi/tvm_ffi.h>

#include "lib/container/map_table.h"
#include "lib/walk/recursive_walk.h"
#include "runtime/check.h"
#include "lib/reflection/field_storage.h"
#include "lib/reflection/reflection_construct.h"
#include "lib/text/serialization_keys.h"
#include "lib/text/serialization_object.h"
#include "lib/text/serialization_read.h"
#include "lib/tensor/dtype_tvm_text.h"
#include "runtime/type_internal.h"

static const char *const FN = "ffi.FromJSONGraph";

/* Drops the raised error (one this reader replaces with its own). */
static void drop_raised(void) {
  xffi_object *err = xffi_error_move_raised();
  if (err) xffi_object_dec_ref(err);
}

enum { NODE_NEW = 0, NODE_OPEN = 1, NODE_DONE = 2 };

/* A container or object node whose children are being decoded. */
typedef struct read_frame {
  int64_t node;
  int32_t type_index;
  const char *type_key;
  const xffi_any *refs; /* borrowed: the node's data, child node indices */
  int64_t size, position;
  xffi_object *built;            /* owned: the container or object so far (its only reference); NULL for Map/Dict */
  size_t first_key, first_value; /* Map/Dict: where its keys and values start on the reader's stacks */
  /* Object: its type, the next field, the field waiting for its node's
   * value, and the node's data (a Map from field names; borrowed). */
  const xffi_type_info *type;
  int32_t level, field_index;
  const xffi_field_info *field;
  const xffi_object *fields;
} read_frame;

typedef struct graph_reader {
  const xffi_any *nodes;      /* borrowed from the graph (ffi.FromJSONGraph), or NULL */
  xffi_graph_record *records; /* borrowed (the text reader's), or NULL */
  const xffi_any *refs;       /* borrowed: the records' array data */
  int64_t count;
  xffi_any *decoded; /* owned: each node's value once done */
  uint8_t *state;
  xffi_walk_vec frames; /* read_frame */
  /* xffi_any, owned: the open Maps' and Dicts' decoded keys and values,
   * outermost first; each is built once, at its final size, when it closes */
  xffi_walk_vec keys, values;
  xffi_any key_type, key_data; /* "type" and "data" as map lookups compare them */
} graph_reader;

/* key (a C string) as map lookups compare it, in *probe: short names are
 * inline strings (nothing to release), longer ones a new String. */
static int key_probe(xffi_any *probe, const char *key, size_t size) {
  xffi_any text;
  if (xffi_any_from_str(&text, key, size) != XFFI_OK) return XFFI_FAIL;
  if (xffi_map_key_normalize(FN, probe, &text) != XFFI_OK) {
    xffi_any_release(&text);
    return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* The borrowed value of probe (from key_probe) in map (a Map), or NULL. */
static const xffi_any *field(const xffi_object *map, const xffi_any *probe) {
  const xffi_any *v = NULL;
  if (xffi_map_lookup_probe(&v, map, probe) != XFFI_OK) {
    drop_raised();
    return NULL;
  }
  return v;
}

/* TypeError: the node's "data" (at NULL) or its field at must be what
 * expected says, got got (NULL: absent). */
static int bad_part(int64_t node, const char *type_key, const xffi_field_info *at, const char *expected,
                    const xffi_any *got) {
  const char *got_kind = got ? xffi_any_kind_name(got) : "nothing";
  if (at)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: node %lld (%s): field `%.*s` must be %s, got %s", FN, (long long)node,
                            type_key, (int)at->name.size, at->name.data, expected, got_kind);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: node %lld (%s): \"data\" must be %s, got %s", FN, (long long)node,
                          type_key, expected, got_kind);
}

static int bad_data(int64_t node, const char *type_key, const char *expected, const xffi_any *got) {
  return bad_part(node, type_key, NULL, expected, got);
}

static int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* *out receives new bytes decoded from standard base64 text (padded). */
static int base64_decode(xffi_any *out, xffi_byte_array text, int64_t node) {
  if (text.size % 4 != 0)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: node %lld (ffi.Bytes): base64 text of length %zu, not a multiple of 4", FN,
                            (long long)node, text.size);
  char *bytes = (char *)xffi_alloc(text.size / 4 * 3 + 1);
  if (bytes == NULL) return xffi_error_raise_out_of_memory();
  size_t n = 0;
  for (size_t i = 0; i < text.size; i += 4) {
    int v[4], pad = 0;
    for (int j = 0; j < 4; ++j) {
      char c = text.data[i + (size_t)j];
      int last_group = i + 4 == text.size;
      if (c == '=' && last_group && j >= 2 && (j == 3 || text.data[i + 3] == '=')) {
        v[j] = 0;
        pad++;
      } else if ((v[j] = base64_value(c)) < 0) {
        xffi_free(bytes);
        return xffi_error_raise(XFFI_KIND_VALUE, "%s: node %lld (ffi.Bytes): invalid base64 character at %zu", FN,
                                (long long)node, i + (size_t)j);
      }
    }
    uint32_t b = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    bytes[n++] = (char)(b >> 16);
    if (pad < 2) bytes[n++] = (char)(b >> 8);
    if (pad < 1) bytes[n++] = (char)b;
  }
  int status = xffi_any_from_bytes(out, bytes, n);
  xffi_free(bytes);
  return status;
}

/* Decodes a node with no children into *out (a new value) from data
 * (borrowed; NULL: absent): the node's "data", or (at not NULL) the value
 * of field at that an object node holds inline. */
static int decode_leaf(int64_t node, int32_t type_index, const char *type_key, const xffi_field_info *at,
                       const xffi_any *data, xffi_any *out) {
  int32_t t = data ? data->type_index : XFFI_TYPE_NONE;
  switch (type_index) {
    case XFFI_TYPE_NONE: *out = xffi_any_none(); return XFFI_OK;
    case XFFI_TYPE_BOOL:
      if (t != XFFI_TYPE_BOOL && t != XFFI_TYPE_INT) return bad_part(node, type_key, at, "a bool", data);
      *out = xffi_any_bool(data->v_int64 != 0);
      return XFFI_OK;
    case XFFI_TYPE_INT:
      if (t != XFFI_TYPE_INT) return bad_part(node, type_key, at, "an int", data);
      *out = *data;
      return XFFI_OK;
    case XFFI_TYPE_FLOAT:
      if (t == XFFI_TYPE_INT) {
        *out = xffi_any_float((double)data->v_int64);
        return XFFI_OK;
      }
      if (t != XFFI_TYPE_FLOAT) return bad_part(node, type_key, at, "a float", data);
      *out = *data;
      return XFFI_OK;
    case XFFI_TYPE_DTYPE: {
      if (!xffi_walk_is_str(t)) return bad_part(node, type_key, at, "a dtype string", data);
      xffi_byte_array s = map_text_of(data);
      DLDataType dtype;
      if (xffi_dtype_from_tvm_text(&s, &dtype) != XFFI_OK) {
        drop_raised();
        return xffi_error_raise(XFFI_KIND_VALUE, "%s: node %lld (%s): \"data\" `%.*s` is not a dtype", FN,
                                (long long)node, type_key, (int)s.size, s.data);
      }
      *out = xffi_any_dtype(dtype);
      return XFFI_OK;
    }
    case XFFI_TYPE_DEVICE: {
      const xffi_any *pair;
      int64_t n = 0;
      if (t != XFFI_TYPE_ARRAY || xffi_array_items(&pair, &n, data->v_obj) != XFFI_OK || n != 2 ||
          pair[0].type_index != XFFI_TYPE_INT || pair[1].type_index != XFFI_TYPE_INT || pair[0].v_int64 < INT32_MIN ||
          pair[0].v_int64 > INT32_MAX || pair[1].v_int64 < INT32_MIN || pair[1].v_int64 > INT32_MAX)
        return bad_part(node, type_key, at, "[device_type, device_id] (two 32-bit ints)", data);
      DLDevice device = {(DLDeviceType)pair[0].v_int64, (int32_t)pair[1].v_int64};
      *out = xffi_any_device(device);
      return XFFI_OK;
    }
    case XFFI_TYPE_STRING: {
      if (!xffi_walk_is_str(t)) return bad_part(node, type_key, at, "a string", data);
      if (t == XFFI_TYPE_STRING || t == XFFI_TYPE_SMALL_STR) return xffi_any_copy(out, data); /* shared, as immutable */
      xffi_byte_array s = map_text_of(data);
      return xffi_any_from_str(out, s.data, s.size);
    }
    case XFFI_TYPE_BYTES:
      if (!xffi_walk_is_str(t)) return bad_part(node, type_key, at, "a base64 string", data);
      return base64_decode(out, map_text_of(data), node);
    default: { /* XFFI_TYPE_SHAPE */
      const xffi_any *dims;
      int64_t n = 0;
      if (t != XFFI_TYPE_ARRAY || xffi_array_items(&dims, &n, data->v_obj) != XFFI_OK)
        return bad_part(node, type_key, at, "an array of ints", data);
      int64_t *values = (int64_t *)xffi_alloc((size_t)n * sizeof(int64_t) + 1);
      if (values == NULL) return xffi_error_raise_out_of_memory();
      for (int64_t i = 0; i < n; ++i) {
        if (dims[i].type_index != XFFI_TYPE_INT) {
          xffi_free(values);
          return bad_part(node, type_key, at, "an array of ints", data);
        }
        values[i] = dims[i].v_int64;
      }
      xffi_object *shape = NULL;
      int status = n > INT32_MAX
                       ? xffi_error_raise(XFFI_KIND_VALUE, "%s: node %lld: too many dimensions", FN, (long long)node)
                       : xffi_shape_new(&shape, values, (int32_t)n);
      xffi_free(values);
      if (status == XFFI_OK) *out = xffi_any_object(shape);
      return status;
    }
  }
}

/* The type index of a node's "type" for the kinds this reader knows, or -1;
 * *name receives the key's static text. */
static int32_t known_type(xffi_byte_array key, const char **name) {
#define KIND(key, index) \
  { key, sizeof(key) - 1, index }
  static const struct {
    const char *key;
    size_t size;
    int32_t index;
  } kinds[] = {
      KIND(XFFI_GRAPH_KEY_NONE, XFFI_TYPE_NONE),   KIND(XFFI_GRAPH_KEY_BOOL, XFFI_TYPE_BOOL),
      KIND(XFFI_GRAPH_KEY_INT, XFFI_TYPE_INT),     KIND(XFFI_GRAPH_KEY_FLOAT, XFFI_TYPE_FLOAT),
      KIND(XFFI_GRAPH_KEY_DTYPE, XFFI_TYPE_DTYPE), KIND(XFFI_GRAPH_KEY_DEVICE, XFFI_TYPE_DEVICE),
      KIND(XFFI_GRAPH_KEY_STR, XFFI_TYPE_STRING),  KIND(XFFI_GRAPH_KEY_BYTES, XFFI_TYPE_BYTES),
      KIND(XFFI_GRAPH_KEY_ARRAY, XFFI_TYPE_ARRAY), KIND(XFFI_GRAPH_KEY_LIST, XFFI_TYPE_LIST),
      KIND(XFFI_GRAPH_KEY_MAP, XFFI_TYPE_MAP),     KIND(XFFI_GRAPH_KEY_DICT, XFFI_TYPE_DICT),
      KIND(XFFI_GRAPH_KEY_SHAPE, XFFI_TYPE_SHAPE),
  };
#undef KIND
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i)
    if (kinds[i].size == key.size && memcmp(kinds[i].key, key.data, key.size) == 0) {
      *name = kinds[i].key;
      return kinds[i].index;
    }
  return -1;
}

static int is_container(int32_t t) {
  return t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_LIST || t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT;
}

/* Re-raises the raised error with the node, its type and (unless NULL) the
 * field named in front, keeping its kind. */
static int raise_in_node(int64_t node, const char *type_key, const xffi_field_info *at) {
  xffi_object *cause = xffi_error_move_raised();
  const char *kind = XFFI_KIND_RUNTIME, *message = "";
  if (cause && cause->type_index == XFFI_TYPE_ERROR) {
    kind = xffi_error_cell_of_unchecked(cause)->kind.data;
    message = xffi_error_cell_of_unchecked(cause)->message.data;
  }
  int status = at ? xffi_error_raise(kind, "%s: node %lld (%s): field `%.*s`: %s", FN, (long long)node, type_key,
                                     (int)at->name.size, at->name.data, message)
                  : xffi_error_raise(kind, "%s: node %lld (%s): %s", FN, (long long)node, type_key, message);
  if (cause) xffi_object_dec_ref(cause);
  return status;
}

/* Pushes a frame for node, which builds built (stolen; NULL for a Map or
 * Dict, built when it closes). */
static read_frame *push_frame(graph_reader *r, int64_t node, int32_t t, const char *type_key, xffi_object *built) {
  if (r->frames.count >= XFFI_WALK_MAX_DEPTH) {
    if (built) xffi_object_dec_ref(built);
    xffi_walk_raise_too_deep(FN);
    return NULL;
  }
  read_frame *f = (read_frame *)xffi_walk_vec_push(&r->frames);
  if (f == NULL) {
    if (built) xffi_object_dec_ref(built);
    return NULL;
  }
  f->node = node;
  f->type_index = t;
  f->type_key = type_key;
  f->built = built;
  f->first_key = r->keys.count;
  f->first_value = r->values.count;
  r->state[node] = NODE_OPEN;
  return f;
}

/* Starts decoding object node of type (data borrowed; NULL: absent): an
 * enum member or a __data_from_json__ type is done at once; an object with
 * fields is made empty and gets a frame (*opened set). */
static int start_object(graph_reader *r, int64_t node, const xffi_type_info *type, const xffi_any *data, int *opened) {
  const char *key = type->type_key.data;
  xffi_any none = xffi_any_none();
  xffi_object *hook;
  int status;
  switch (xffi_graph_form_of(type, 0, &hook)) {
    case XFFI_GRAPH_INT_ENUM:
      if (data == NULL || data->type_index != XFFI_TYPE_INT) return bad_data(node, key, "an int (an enum index)", data);
      status = xffi_graph_enum_member(&r->decoded[node], type, data);
      break;
    case XFFI_GRAPH_STR_ENUM:
      if (data == NULL || !xffi_walk_is_str(data->type_index))
        return bad_data(node, key, "a string (an enum index)", data);
      status = xffi_graph_enum_member(&r->decoded[node], type, data);
      break;
    case XFFI_GRAPH_HOOK: status = xffi_function_call(hook, data ? data : &none, 1, &r->decoded[node]); break;
    default: {
      xffi_object *built;
      if (xffi_reflection_new_empty(&built, type) != XFFI_OK) return raise_in_node(node, key, NULL);
      if (data == NULL || data->type_index != XFFI_TYPE_MAP) {
        xffi_object_dec_ref(built);
        return bad_data(node, key, "an object of field values", data);
      }
      read_frame *f = push_frame(r, node, type->type_index, key, built);
      if (f == NULL) return XFFI_FAIL;
      f->type = type;
      f->level = 1;
      f->fields = data->v_obj;
      *opened = 1;
      return XFFI_OK;
    }
  }
  if (status != XFFI_OK) return raise_in_node(node, key, NULL);
  r->state[node] = NODE_DONE;
  return XFFI_OK;
}

/* Starts decoding node (NODE_NEW): a leaf is done at once; a container
 * or an object with fields gets a frame (*opened set). */
static int start_node(graph_reader *r, int64_t node, int *opened) {
  *opened = 0;
  const xffi_any *type, *data, *refs = NULL;
  int64_t size = 0;
  int bare_refs = 0; /* the text reader's array data: refs[0, size) */
  xffi_graph_record *record = r->records ? &r->records[node] : NULL;
  if (record) {
    if (!(record->flags & XFFI_GRAPH_RECORD_OBJECT))
      return xffi_error_raise(XFFI_KIND_TYPE, "%s: node %lld must be an object, got %s", FN, (long long)node,
                              xffi_any_kind_name(&record->data));
    type = record->flags & XFFI_GRAPH_RECORD_TYPE ? &record->type : NULL;
    data = record->flags & XFFI_GRAPH_RECORD_DATA ? &record->data : NULL;
    if (record->flags & XFFI_GRAPH_RECORD_DATA_REFS) {
      refs = r->refs ? r->refs + record->refs_first : NULL;
      size = record->refs_count;
      bare_refs = 1;
    }
  } else {
    const xffi_any *n = &r->nodes[node];
    if (n->type_index != XFFI_TYPE_MAP)
      return xffi_error_raise(XFFI_KIND_TYPE, "%s: node %lld must be an object, got %s", FN, (long long)node,
                              xffi_any_kind_name(n));
    type = field(n->v_obj, &r->key_type);
    data = field(n->v_obj, &r->key_data);
  }
  if (type == NULL || !xffi_walk_is_str(type->type_index))
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: node %lld: \"type\" must be a string, got %s", FN, (long long)node,
                            type ? xffi_any_kind_name(type) : "nothing");
  xffi_byte_array key = map_text_of(type);
  const char *key_text = NULL;
  int32_t t = known_type(key, &key_text);
  /* Array data read as bare node indices is an Array again for the nodes
   * that take it as a value (a Shape, a Device, an object's hook). */
  if (bare_refs && !is_container(t)) {
    xffi_object *array;
    if (xffi_array_new(&array, refs, size) != XFFI_OK) return XFFI_FAIL;
    record->data = xffi_any_object(array);
    record->flags = (record->flags & ~XFFI_GRAPH_RECORD_DATA_REFS) | XFFI_GRAPH_RECORD_DATA;
    data = &record->data;
    bare_refs = 0;
  }
  if (t < 0) {
    const xffi_type_info *known =
        xffi_type_builtins_ensure() == XFFI_OK ? xffi_type_find_by_key(key.data, key.size) : NULL;
    if (!known) {
      drop_raised();
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: node %lld: unknown type key `%.*s`", FN, (long long)node,
                              (int)key.size, key.data);
    }
    int32_t index = known->type_index;
    const xffi_type_info *info = index >= XFFI_TYPE_STATIC_OBJECT_BEGIN ? xffi_type_info_find(index) : NULL;
    if (info == NULL)
      return xffi_error_raise(XFFI_KIND_TYPE, "%s: node %lld: a value of type `%.*s` has no JSON graph form", FN,
                              (long long)node, (int)key.size, key.data);
    return start_object(r, node, info, data, opened);
  }
  if (!is_container(t)) {
    if (decode_leaf(node, t, key_text, NULL, data, &r->decoded[node]) != XFFI_OK) return XFFI_FAIL;
    r->state[node] = NODE_DONE;
    return XFFI_OK;
  }
  if (!bare_refs &&
      (data == NULL || data->type_index != XFFI_TYPE_ARRAY || xffi_array_items(&refs, &size, data->v_obj) != XFFI_OK))
    return bad_data(node, key_text, "an array of node indices", data);
  if ((t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT) && size % 2 != 0)
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "%s: node %lld (%s): \"data\" must hold key, value pairs, got %lld entries (odd)", FN,
                            (long long)node, key_text, (long long)size);
  xffi_object *built = NULL;
  int status = XFFI_OK;
  if (t == XFFI_TYPE_ARRAY) status = xffi_array_new_with_capacity(&built, size);
  if (t == XFFI_TYPE_LIST) status = xffi_list_new_with_capacity(&built, size);
  if (status != XFFI_OK) return XFFI_FAIL;
  read_frame *f = push_frame(r, node, t,
                             t == XFFI_TYPE_ARRAY  ? XFFI_GRAPH_KEY_ARRAY
                             : t == XFFI_TYPE_LIST ? XFFI_GRAPH_KEY_LIST
                             : t == XFFI_TYPE_MAP  ? XFFI_GRAPH_KEY_MAP
                                                   : XFFI_GRAPH_KEY_DICT,
                             built);
  if (f == NULL) return XFFI_FAIL;
  f->refs = refs;
  f->size = size;
  *opened = 1;
  return XFFI_OK;
}

/* Adds child (borrowed) to frame f, the top one. */
static int add_child(graph_reader *r, read_frame *f, const xffi_any *child) {
  if (f->type != NULL)
    return xffi_field_assign(f->built, f->field, child) == XFFI_OK ? XFFI_OK
                                                                   : raise_in_node(f->node, f->type_key, f->field);
  switch (f->type_index) {
    case XFFI_TYPE_ARRAY: return xffi_array_push(&f->built, child);
    case XFFI_TYPE_LIST: return xffi_list_push(f->built, child);
    default: { /* a Map's or Dict's key (data[even]) or value waits on its stack */
      xffi_any *slot = (xffi_any *)xffi_walk_vec_push_unset(f->position % 2 == 1 ? &r->keys : &r->values);
      if (slot == NULL) return XFFI_FAIL;
      if (xffi_any_is_object(child)) xffi_object_inc_ref(child->v_obj);
      *slot = *child; /* decoded values are owned forms: no borrowed text */
      return XFFI_OK;
    }
  }
}

/* Makes Map/Dict frame f's container, into f->built, from its keys and
 * values (moved off the stacks, consumed even on failure), as tvm-ffi's
 * reader makes it: setting each pair in turn. */
static int build_map(graph_reader *r, read_frame *f) {
  int64_t n = (int64_t)(r->keys.count - f->first_key);
  /* An empty Map may be the first: the stacks may have no buffer yet. */
  xffi_any *keys = n > 0 ? (xffi_any *)xffi_walk_vec_at(&r->keys, f->first_key) : NULL;
  xffi_any *values = n > 0 ? (xffi_any *)xffi_walk_vec_at(&r->values, f->first_value) : NULL;
  r->keys.count = f->first_key;
  r->values.count = f->first_value;
  return xffi_map_do_build(FN, f->type_index, &f->built, keys, values, n, 1);
}

/* Sets the fields of object frame f up to the next whose value is a node:
 * *ref receives that node's reference (borrowed), NULL when no field is
 * left. A field absent from the data takes its default. */
static int next_field_ref(graph_reader *r, read_frame *f, const xffi_any **ref) {
  *ref = NULL;
  for (;;) {
    const xffi_field_info *at = xffi_walk_next_field(f->type, &f->level, &f->field_index, 0);
    if (at == NULL) return XFFI_OK;
    f->field = at;
    xffi_any name;
    if (key_probe(&name, at->name.data, at->name.size) != XFFI_OK) return XFFI_FAIL;
    const xffi_any *value = NULL;
    int status = xffi_map_lookup_probe(&value, f->fields, &name);
    xffi_any_release(&name);
    if (status != XFFI_OK) return XFFI_FAIL;
    if (value == NULL) {
      if (!(at->flags & XFFI_FIELD_HAS_DEFAULT))
        return xffi_error_raise(XFFI_KIND_TYPE, "%s: node %lld (%s): Required field `%.*s` not set in type `%s`", FN,
                                (long long)f->node, f->type_key, (int)at->name.size, at->name.data, f->type_key);
      if (xffi_graph_field_default(f->built, at) != XFFI_OK) return raise_in_node(f->node, f->type_key, at);
      continue;
    }
    int32_t static_index = at->field_static_type_index;
    if (!xffi_graph_field_inlined(static_index)) {
      *ref = value;
      return XFFI_OK;
    }
    xffi_any decoded = xffi_any_none();
    if (decode_leaf(f->node, static_index, f->type_key, at, value, &decoded) != XFFI_OK) return XFFI_FAIL;
    status = add_child(r, f, &decoded);
    xffi_any_release(&decoded);
    if (status != XFFI_OK) return XFFI_FAIL;
  }
}

/* The top frame's next child reference (borrowed; NULL when it has none). */
static int next_ref(graph_reader *r, read_frame *f, const xffi_any **ref) {
  if (f->type != NULL) return next_field_ref(r, f, ref);
  *ref = f->position == f->size ? NULL : &f->refs[f->position];
  return XFFI_OK;
}

/* The error for reference ref of frame f: at data[position] of a
 * container, or in a field of an object. */
static const char *ref_place(const read_frame *f, char *buffer, size_t size) {
  if (f->type != NULL)
    snprintf(buffer, size, "field `%.*s`", (int)f->field->name.size, f->field->name.data);
  else
    snprintf(buffer, size, "data[%lld]", (long long)f->position);
  return buffer;
}

/* Decodes node and everything it refers to. */
static int decode(graph_reader *r, int64_t root) {
  int opened;
  char place[96];
  if (start_node(r, root, &opened) != XFFI_OK) return XFFI_FAIL;
  while (r->frames.count > 0) {
    read_frame *f = (read_frame *)xffi_walk_vec_top(&r->frames);
    const xffi_any *ref;
    if (next_ref(r, f, &ref) != XFFI_OK) return XFFI_FAIL;
    if (ref == NULL) {
      if (f->built == NULL && build_map(r, f) != XFFI_OK) return XFFI_FAIL;
      r->decoded[f->node] = xffi_any_object(f->built);
      r->state[f->node] = NODE_DONE;
      r->frames.count--;
      if (r->frames.count == 0) break;
      read_frame *parent = (read_frame *)xffi_walk_vec_top(&r->frames);
      if (add_child(r, parent, &r->decoded[f->node]) != XFFI_OK) return XFFI_FAIL;
      continue;
    }
    if (ref->type_index != XFFI_TYPE_INT)
      return xffi_error_raise(XFFI_KIND_TYPE, "%s: node %lld (%s): %s must be a node index, got %s", FN,
                              (long long)f->node, f->type_key, ref_place(f, place, sizeof(place)),
                              xffi_any_kind_name(ref));
    int64_t child = ref->v_int64;
    if (child < 0 || child >= r->count)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: node %lld (%s): %s: node index %lld out of range (%lld nodes)", FN,
                              (long long)f->node, f->type_key, ref_place(f, place, sizeof(place)), (long long)child,
                              (long long)r->count);
    if (r->state[child] == NODE_OPEN)
      return xffi_error_raise(XFFI_KIND_VALUE,
                              "%s: node %lld (%s): %s refers back to node %lld, which contains it (the "
                              "format has no cycles)",
                              FN, (long long)f->node, f->type_key, ref_place(f, place, sizeof(place)),
                              (long long)child);
    f->position++;
    if (r->state[child] == NODE_DONE) {
      if (add_child(r, f, &r->decoded[child]) != XFFI_OK) return XFFI_FAIL;
      continue;
    }
    if (start_node(r, child, &opened) != XFFI_OK) return XFFI_FAIL;
    if (!opened && add_child(r, (read_frame *)xffi_walk_vec_top(&r->frames), &r->decoded[child]) != XFFI_OK)
      return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* Decodes r's graph (its nodes or records set) from node root (in range)
 * into *out (a new reference), and frees what r holds but its key probes. */
static int run(graph_reader *r, int64_t root, xffi_any *out) {
  r->decoded = (xffi_any *)xffi_alloc_zeroed((size_t)r->count, sizeof(xffi_any));
  r->state = (uint8_t *)xffi_alloc_zeroed((size_t)r->count, 1);
  r->frames.item_size = sizeof(read_frame);
  r->keys.item_size = r->values.item_size = sizeof(xffi_any);
  int status = r->decoded && r->state ? decode(r, root) : xffi_error_raise_out_of_memory();
  if (status == XFFI_OK) status = xffi_any_copy(out, &r->decoded[root]);
  for (size_t i = 0; i < r->frames.count; ++i) {
    read_frame *f = (read_frame *)xffi_walk_vec_at(&r->frames, i);
    if (f->built) xffi_object_dec_ref(f->built);
  }
  xffi_walk_vec_free(&r->frames);
  for (size_t i = 0; i < r->keys.count; ++i) xffi_any_release((xffi_any *)xffi_walk_vec_at(&r->keys, i));
  for (size_t i = 0; i < r->values.count; ++i) xffi_any_release((xffi_any *)xffi_walk_vec_at(&r->values, i));
  xffi_walk_vec_free(&r->keys);
  xffi_walk_vec_free(&r->values);
  if (r->decoded)
    for (int64_t i = 0; i < r->count; ++i) xffi_any_release(&r->decoded[i]);
  xffi_free(r->decoded);
  xffi_free(r->state);
  return status;
}

int xffi_from_json(xffi_any *out, const xffi_any *graph) {
  if (out == NULL || graph == NULL)
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_from_json: %s is NULL", out == NULL ? "out" : "graph");
  if (graph->type_index != XFFI_TYPE_MAP)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: Invalid JSON Object Graph, expected an object, got %s", FN,
                            xffi_any_kind_name(graph));
  graph_reader r;
  memset(&r, 0, sizeof(r));
  /* "type", "data", "nodes": inline strings; "root_index" a String */
  xffi_any key_root, key_nodes;
  if (key_probe(&key_root, "root_index", 10) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *root = field(graph->v_obj, &key_root);
  xffi_any_release(&key_root);
  if (root == NULL || root->type_index != XFFI_TYPE_INT)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: Invalid JSON Object Graph, expected `root_index` integer field", FN);
  if (key_probe(&key_nodes, "nodes", 5) != XFFI_OK || key_probe(&r.key_type, "type", 4) != XFFI_OK ||
      key_probe(&r.key_data, "data", 4) != XFFI_OK)
    return XFFI_FAIL;
  const xffi_any *nodes = field(graph->v_obj, &key_nodes);
  if (nodes == NULL || nodes->type_index != XFFI_TYPE_ARRAY ||
      xffi_array_items(&r.nodes, &r.count, nodes->v_obj) != XFFI_OK)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: Invalid JSON Object Graph, expected `nodes` array field", FN);
  if (root->v_int64 < 0 || root->v_int64 >= r.count)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: root_index %lld out of range (%lld nodes)", FN,
                            (long long)root->v_int64, (long long)r.count);
  int status = run(&r, root->v_int64, out);
  xffi_any_release(&r.key_type);
  xffi_any_release(&r.key_data);
  xffi_any_release(&key_nodes);
  return status;
}

int xffi_graph_decode_records(xffi_any *out, xffi_graph_record *records, const xffi_any *refs, int64_t count,
                              int64_t root) {
  graph_reader r;
  memset(&r, 0, sizeof(r));
  r.records = records;
  r.refs = refs;
  r.count = count;
  return run(&r, root, out);
}
