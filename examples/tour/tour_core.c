/* The tour, part 1: objects, a user-defined type hierarchy, is-instance, Any,
 * errors and strings. */
#include <stdlib.h>
#include <string.h>
#include <xffi/xffi.h>
#include <xffi/sys/object.h>
#include <xffi/sys/string.h>
#include <xffi/sys/type.h>

#include "tour.h"

/* A user-defined object: the 24-byte header first, then the fields. */
typedef struct shape_object {
  xffi_object header;
  const char *name;
  double area;
} shape_object;

static int shapes_alive;

/* Whoever allocates an object sets its deleter, so it is freed correctly
 * whichever library or language drops the last reference. */
static void shape_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) shapes_alive--;
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static xffi_object *shape_new(int32_t type_index, const char *name, double area) {
  shape_object *s = malloc(sizeof *s);
  if (!s) return NULL;
  xffi_object_init(&s->header, type_index, shape_deleter);
  s->name = name;
  s->area = area;
  shapes_alive++;
  return &s->header;
}

static void types_and_objects(void) {
  tour_heading("Objects and a user-defined type hierarchy");
  int32_t shape_t, polygon_t, square_t, circle_t;
  xffi_type_register(&shape_t, "tour.Shape", XFFI_TYPE_OBJECT);
  xffi_type_register(&polygon_t, "tour.Polygon", shape_t);
  xffi_type_register(&square_t, "tour.Square", polygon_t);
  xffi_type_register(&circle_t, "tour.Circle", shape_t);
  const xffi_type_info *square_info, *polygon_info, *shape_info;
  xffi_type_info_get(&square_info, square_t);
  xffi_type_info_get(&polygon_info, polygon_t);
  xffi_type_info_get(&shape_info, shape_t);
  printf("  registered %s (index %d, depth %d), ancestors:", square_info->type_key.data, (int)square_t,
         (int)square_info->type_depth);
  for (int d = 0; d < square_info->type_depth; ++d) printf(" %s", square_info->type_ancestors[d]->type_key.data);
  printf("\n");

  xffi_object *square = shape_new(square_t, "square", 4.0);
  xffi_object *circle = shape_new(circle_t, "circle", 3.14159);
  printf("  square is a Polygon: %s, a Shape: %s;  circle is a Polygon: %s\n",
         xffi_object_is_a_type_unchecked(square, polygon_info) ? "yes" : "no",
         xffi_object_is_a_type_unchecked(square, shape_info) ? "yes" : "no",
         xffi_object_is_a_type_unchecked(circle, polygon_info) ? "yes" : "no");

  xffi_object_inc_ref(square);
  printf("  square: strong %u, weak %u after one inc-ref\n", xffi_object_strong_count(square),
         xffi_object_weak_count(square));
  xffi_weak *watch = NULL;
  xffi_weak_new(&watch, square);
  xffi_object_dec_ref(square);
  xffi_object_dec_ref(square);
  xffi_object *again = NULL;
  xffi_weak_lock(&again, watch);
  printf("  after the last dec-ref a weak lock gives %s; the square's deleter ran: %s\n",
         again ? "the object" : "nothing", shapes_alive == 1 /* only the circle */ ? "yes" : "no");
  xffi_weak_release(watch);
  xffi_object_dec_ref(circle);
}

static void any_values(void) {
  tour_heading("Any: one 16-byte value for everything");
  xffi_any values[5];
  values[0] = xffi_any_int(42);
  values[1] = xffi_any_float(2.5);
  values[2] = xffi_any_bool(1);
  xffi_any_from_str(&values[3], "short", 5);                             /* inline, no allocation */
  xffi_any_from_str(&values[4], "a string longer than seven bytes", 32); /* a String object */
  for (int i = 0; i < 5; ++i) {
    printf("  values[%d] holds %-6s ", i, xffi_any_kind_name(&values[i]));
    tour_print_any(&values[i]);
    printf("\n");
  }
  double f;
  xffi_any_to_float(&f, &values[0]);
  printf("  int 42 read as float: %.1f (int converts to float)\n", f);
  int64_t n;
  if (xffi_any_to_int(&n, &values[4]) != XFFI_OK) tour_show_error("a String read as int", 34);
  for (int i = 0; i < 5; ++i) xffi_any_release(&values[i]);
}

static int parse_positive(int64_t *out, const char *text) {
  char *end;
  long long v = strtoll(text, &end, 10);
  if (*text == '\0' || *end != '\0')
    return xffi_error_raise(XFFI_KIND_VALUE, "parse_positive: '%s' is not a number", text);
  if (v <= 0) return xffi_error_raise(XFFI_KIND_VALUE, "parse_positive: expected a positive number, got %lld", v);
  *out = v;
  return XFFI_OK;
}

static int load_setting(int64_t *out, const char *text) {
  if (parse_positive(out, text) != XFFI_OK) return xffi_error_pass("load_setting at tour_core.c");
  return XFFI_OK;
}

static void errors(void) {
  tour_heading("Errors: objects in a thread-local slot, never an abort");
  int64_t v = 0;
  if (load_setting(&v, "12") == XFFI_OK) printf("  load_setting(\"12\") = %lld\n", (long long)v);
  if (load_setting(&v, "-3") != XFFI_OK) tour_show_error("load_setting(\"-3\")", 34);
  if (xffi_type_register(&(int32_t){0}, "", XFFI_TYPE_OBJECT) != XFFI_OK)
    tour_show_error("registering an empty type key", 34);
  if (xffi_string_new(&(xffi_object *){NULL}, NULL, 5) != XFFI_OK) tour_show_error("a string from NULL data", 34);
}

static void strings(void) {
  tour_heading("Strings and bytes");
  xffi_object *a = NULL, *b = NULL, *raw = NULL;
  xffi_string_from_c_str(&a, "hello, xffi");
  xffi_string_new(&b, "hello, world", 12);
  xffi_bytes_new(&raw, "\x00\x01\x02", 3);
  xffi_byte_array va = xffi_string_cell_of_unchecked(a), vb = xffi_string_cell_of_unchecked(b);
  printf("  \"%s\" vs \"%s\": compare %s, hashes %016llx / %016llx\n", va.data, vb.data,
         xffi_bytes_compare(va, vb) < 0 ? "<" : ">=", (unsigned long long)xffi_bytes_hash(va.data, va.size),
         (unsigned long long)xffi_bytes_hash(vb.data, vb.size));
  printf("  a Bytes object of %zu bytes keeps its NULs; its type is %s\n", xffi_string_cell_of_unchecked(raw).size,
         xffi_type_key(raw->type_index));
  xffi_object_dec_ref(a);
  xffi_object_dec_ref(b);
  xffi_object_dec_ref(raw);
}

void tour_core(void) {
  types_and_objects();
  any_values();
  errors();
  strings();
}
