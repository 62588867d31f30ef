/* Fuzz target: the JSON graph loaders on arbitrary bytes: the value path
 * (xffi_json_parse then xffi_from_json, c/serialization_read.c) and the text
 * reader (xffi_from_json_text, c/serialization_read_text.c). Checks: a graph
 * either loads or raises an error from ffi.FromJSONGraph (never crashes,
 * leaks or recurses, whatever the node indices, cycles or data); both paths
 * agree (the same text when written, or the same error; only a Map the
 * value path builds per node can refuse colliding keys the text reader never
 * puts in a Map); what loads writes (c/serialization_write.c; the text
 * emitter, c/serialization_write_text.c, byte for byte as the value path), and that
 * graph loads back to a value that writes the same text again.
 * Graphs may name the reflected type fuzz.graph.Item (registered here: an
 * int and a float written inline, a String and an Any written as nodes, a
 * default on the float and the String), so the loader's object path (the
 * creator, inline fields, defaults, field references, setters that refuse a
 * value) is fuzzed too; a seed names it. */
#include "fuzz_common.h"

#include <xffi/reflection.h>

typedef struct fuzz_item {
  xffi_object header;
  int64_t count;
  double weight;
  xffi_object *name; /* a String (owned), or NULL */
  xffi_any payload;  /* owned */
} fuzz_item;

static int32_t item_index = -1;

static void item_deleter(void *self, int flags) {
  fuzz_item *item = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    if (item->name) xffi_object_dec_ref(item->name);
    xffi_any_release(&item->payload);
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int item_create(void **result) {
  fuzz_item *item = calloc(1, sizeof(fuzz_item));
  if (!item) return xffi_error_raise_out_of_memory();
  xffi_object_init(&item->header, item_index, item_deleter);
  item->payload = xffi_any_none();
  *result = item;
  return XFFI_OK;
}

/* Registers fuzz.graph.Item once (the fuzzer is one process). */
static void register_item(void) {
  if (item_index >= 0) return;
  FUZZ_CHECK(xffi_type_register(&item_index, "fuzz.graph.Item", XFFI_TYPE_OBJECT) == XFFI_OK);
  FUZZ_CHECK(XFFI_REFLECT_TYPE(item_index, fuzz_item, item_create, XFFI_SEQ_HASH_TREE_NODE, NULL) == XFFI_OK);
  FUZZ_CHECK(XFFI_REFLECT_FIELD(item_index, fuzz_item, count, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL) == XFFI_OK);
  FUZZ_CHECK(XFFI_REFLECT_FIELD_DEFAULT(item_index, fuzz_item, weight, XFFI_TYPE_FLOAT, XFFI_FIELD_WRITABLE, NULL,
                                        xffi_any_float(0.5)) == XFFI_OK);
  xffi_any unnamed = xffi_any_none();
  FUZZ_CHECK(xffi_any_from_str(&unnamed, "unnamed", 7) == XFFI_OK);
  FUZZ_CHECK(XFFI_REFLECT_FIELD_DEFAULT(item_index, fuzz_item, name, XFFI_TYPE_STRING, XFFI_FIELD_WRITABLE, NULL,
                                        unnamed) == XFFI_OK);
  xffi_any_release(&unnamed);
  FUZZ_CHECK(XFFI_REFLECT_FIELD(item_index, fuzz_item, payload, XFFI_TYPE_ANY, XFFI_FIELD_WRITABLE, NULL) == XFFI_OK);
}

/* The compact text of value's graph (value borrowed): a new String. Both
 * writers give it byte for byte: the value path (xffi_to_json then
 * xffi_json_stringify) and the text emitter (xffi_to_json_text). */
static xffi_object *graph_text(const xffi_any *value) {
  xffi_any graph = xffi_any_none();
  FUZZ_CHECK(xffi_to_json(&graph, value, NULL) == XFFI_OK);
  xffi_object *text = NULL, *direct = NULL;
  FUZZ_CHECK(xffi_json_stringify(&text, &graph, 0) == XFFI_OK);
  xffi_any_release(&graph);
  FUZZ_CHECK(xffi_to_json_text(&direct, value, NULL) == XFFI_OK);
  xffi_byte_array a = xffi_string_cell_of_unchecked(text), b = xffi_string_cell_of_unchecked(direct);
  FUZZ_CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
  xffi_object_dec_ref(direct);
  return text;
}

/* A refusal of colliding keys by a Map (docs/map.md). */
static int is_map_refusal(const char *message) { return strstr(message, "docs/map.md") != NULL; }

/* The text reader's result for the input, checked against the value path's
 * (status, and its value or its error message, both borrowed). */
static void check_text_reader(const uint8_t *data, size_t size, int status, const xffi_any *value,
                              const char *message) {
  xffi_any by_text = xffi_any_none();
  int text_status = xffi_from_json_text(&by_text, (const char *)data, size);
  xffi_object *err = text_status == XFFI_OK ? NULL : xffi_error_move_raised();
  FUZZ_CHECK(text_status == XFFI_OK || err != NULL);
  if (status != XFFI_OK && is_map_refusal(message)) { /* the text reader may read it, or refuse it too */
  } else if (status != XFFI_OK) {
    FUZZ_CHECK(text_status != XFFI_OK);
    FUZZ_CHECK(strcmp(xffi_error_cell_of_unchecked(err)->message.data, message) == 0);
  } else if (text_status != XFFI_OK) {
    FUZZ_CHECK(is_map_refusal(xffi_error_cell_of_unchecked(err)->message.data));
  } else {
    xffi_object *a = graph_text(value), *b = graph_text(&by_text);
    xffi_byte_array sa = xffi_string_cell_of_unchecked(a), sb = xffi_string_cell_of_unchecked(b);
    FUZZ_CHECK(sa.size == sb.size && memcmp(sa.data, sb.data, sa.size) == 0);
    xffi_object_dec_ref(a);
    xffi_object_dec_ref(b);
  }
  if (err) xffi_object_dec_ref(err);
  xffi_any_release(&by_text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  register_item();
  xffi_any graph = xffi_any_none();
  if (xffi_json_parse(&graph, (const char *)data, size) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    FUZZ_CHECK(err != NULL);
    const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
    FUZZ_CHECK(strcmp(cell->kind.data, XFFI_KIND_VALUE) == 0 &&
               strncmp(cell->message.data, "ffi.json.Parse: ", 16) == 0);
    check_text_reader(data, size, XFFI_FAIL, NULL, cell->message.data);
    xffi_object_dec_ref(err);
    return 0;
  }
  xffi_any value = xffi_any_none();
  int status = xffi_from_json(&value, &graph);
  xffi_any_release(&graph);
  if (status != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    FUZZ_CHECK(err != NULL);
    const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
    /* The loader's own errors name it; a container's own refusal (a Map
     * key flood) passes through as the container raised it. */
    FUZZ_CHECK(strncmp(cell->message.data, "ffi.FromJSONGraph: ", 19) == 0 || strstr(cell->message.data, "Map"));
    check_text_reader(data, size, XFFI_FAIL, NULL, cell->message.data);
    xffi_object_dec_ref(err);
    return 0;
  }
  check_text_reader(data, size, XFFI_OK, &value, NULL);
  xffi_object *text = graph_text(&value);
  xffi_byte_array s = xffi_string_cell_of_unchecked(text);
  xffi_any again_graph = xffi_any_none(), again = xffi_any_none();
  FUZZ_CHECK(xffi_json_parse(&again_graph, s.data, s.size) == XFFI_OK);
  FUZZ_CHECK(xffi_from_json(&again, &again_graph) == XFFI_OK);
  xffi_object *text2 = graph_text(&again);
  xffi_byte_array s2 = xffi_string_cell_of_unchecked(text2);
  FUZZ_CHECK(s.size == s2.size && memcmp(s.data, s2.data, s.size) == 0);
  xffi_object_dec_ref(text2);
  xffi_object_dec_ref(text);
  xffi_any_release(&again);
  xffi_any_release(&again_graph);
  xffi_any_release(&value);
  return 0;
}
