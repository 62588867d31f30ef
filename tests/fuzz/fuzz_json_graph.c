/* Fuzz target: the JSON graph loader (c/serialization_read.c) on arbitrary
 * bytes read as JSON. Checks: a graph either loads or raises an error from
 * ffi.FromJSONGraph (never crashes, leaks or recurses, whatever the node
 * indices, cycles or data); what loads writes (c/serialization_write.c),
 * and that graph loads back to a value that writes the same text again. */
#include "fuzz_common.h"

/* The compact text of value's graph (value borrowed): a new String. */
static xffi_object *graph_text(const xffi_any *value) {
  xffi_any graph = xffi_any_none();
  FUZZ_CHECK(xffi_to_json(&graph, value, NULL) == XFFI_OK);
  xffi_object *text = NULL;
  FUZZ_CHECK(xffi_json_stringify(&text, &graph, 0) == XFFI_OK);
  xffi_any_release(&graph);
  return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  xffi_any graph = xffi_any_none();
  if (xffi_json_parse(&graph, (const char *)data, size) != XFFI_OK) {
    fuzz_expect_raised(XFFI_KIND_VALUE, "ffi.json.Parse");
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
    xffi_object_dec_ref(err);
    return 0;
  }
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
