/* The tour, printing: values and raised errors, shared by every part. */
#include <stdio.h>
#include <string.h>
#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/xffi.h>
#include <xffi/sys/array.h>
#include <xffi/sys/error.h>

#include "tour.h"

void tour_print_any(const xffi_any *v) {
  xffi_byte_array s;
  switch (v->type_index) {
    case XFFI_TYPE_INT: printf("%lld", (long long)v->v_int64); return;
    case XFFI_TYPE_FLOAT: printf((double)(int64_t)v->v_float64 == v->v_float64 ? "%.1f" : "%g", v->v_float64); return;
    case XFFI_TYPE_BOOL: printf("%s", v->v_int64 ? "true" : "false"); return;
    case XFFI_TYPE_NONE: printf("None"); return;
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_LIST: {
      printf(v->type_index == XFFI_TYPE_ARRAY ? "Array[" : "List[");
      for (int64_t i = 0; i < xffi_seq_size_unchecked(v->v_obj); ++i) {
        if (i) printf(", ");
        tour_print_any(&xffi_seq_items_unchecked(v->v_obj)[i]);
      }
      printf("]");
      return;
    }
    case XFFI_TYPE_MAP:
    case XFFI_TYPE_DICT: {
      printf(v->type_index == XFFI_TYPE_MAP ? "Map{" : "Dict{");
      int64_t cursor = 0;
      xffi_map_item item;
      for (int first = 1; xffi_map_next(&item, v->v_obj, &cursor) == XFFI_OK && item.key; first = 0) {
        if (!first) printf(", ");
        tour_print_any(item.key);
        printf(": ");
        tour_print_any(item.value);
      }
      printf("}");
      return;
    }
    default:
      if (xffi_any_to_str(&s, v) == XFFI_OK) {
        printf("\"%.*s\"", (int)s.size, s.data);
        return;
      }
      xffi_object_dec_ref(xffi_error_move_raised()); /* not a string: print its kind instead */
      printf("<%s>", xffi_any_kind_name(v));
  }
}

void tour_show_error(const char *what, int width) {
  xffi_object *err = xffi_error_move_raised();
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  printf("  %-*s -> %s: %s\n", width, what, cell->kind.data, cell->message.data);
  const char *line = cell->backtrace.data;
  while (*line) { /* one frame a line, most recent first */
    const char *end = strchr(line, '\n');
    int n = end ? (int)(end - line) : (int)strlen(line);
    printf("  %-*s      passed through %.*s\n", width, "", n, line);
    line += n + (end != NULL);
  }
  xffi_object_dec_ref(err);
}
