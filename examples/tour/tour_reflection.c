/* The tour, part 5: reflection. A C struct made an xffi type in one line per
 * field; its fields read and written by name, with type checks; objects made
 * from positional and keyword arguments; printed by xffi_repr from its
 * reflected fields, as every language prints it. */
#include <stdlib.h>
#include <string.h>
#include <xffi/reflection.h>
#include <xffi/xffi.h>
#include <xffi/sys/object.h>

#include "tour.h"

typedef struct sensor {
  xffi_object header;
  xffi_object *name; /* a String */
  int64_t readings;
  double threshold;
} sensor;

static int32_t sensor_type = -1;

static void sensor_deleter(void *self, int flags) {
  sensor *s = self;
  if ((flags & XFFI_DELETE_CONTENTS) && s->name) xffi_object_dec_ref(s->name);
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

/* The creator: an empty sensor (a new reference), which construction fills. */
static int sensor_create(void **result) {
  sensor *s = calloc(1, sizeof *s);
  if (!s) return xffi_error_raise_out_of_memory();
  xffi_object_init(&s->header, sensor_type, sensor_deleter);
  *result = s;
  return XFFI_OK;
}

/* A method: args[0] is the sensor; whether args[1] passes its threshold. */
static int sensor_trips(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  double value;
  if (num_args != 2 || xffi_any_to_float(&value, &args[1]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(value > ((const sensor *)args[0].v_obj)->threshold);
  return XFFI_OK;
}

static int register_sensor(void) {
  xffi_any unnamed = xffi_any_none();
  int ok =
      xffi_type_register(&sensor_type, "tour.Sensor", XFFI_TYPE_OBJECT) == XFFI_OK &&
      XFFI_REFLECT_TYPE(sensor_type, sensor, sensor_create, XFFI_SEQ_HASH_TREE_NODE, "a sensor") == XFFI_OK &&
      xffi_any_from_str(&unnamed, "unnamed", 7) == XFFI_OK &&
      XFFI_REFLECT_FIELD_DEFAULT(sensor_type, sensor, name, XFFI_TYPE_STRING, 0, "its label", unnamed) == XFFI_OK &&
      XFFI_REFLECT_FIELD(sensor_type, sensor, readings, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, "so far") == XFFI_OK &&
      XFFI_REFLECT_FIELD_DEFAULT(sensor_type, sensor, threshold, XFFI_TYPE_FLOAT, XFFI_FIELD_WRITABLE, "alarm level",
                                 xffi_any_float(0.5)) == XFFI_OK &&
      XFFI_REFLECT_METHOD(sensor_type, "trips", sensor_trips, "value > threshold") == XFFI_OK;
  xffi_any_release(&unnamed);
  return ok;
}

/* Prints obj as xffi_repr writes it: Type(field=value, ...), from its
 * reflected fields (tvm-ffi's ffi.ReprPrint format). */
static void print_fields(xffi_object *obj) {
  xffi_object *text = NULL;
  xffi_any value = xffi_any_object(obj);
  xffi_byte_array chars;
  if (xffi_repr(&text, &value) != XFFI_OK || xffi_string_cell_of(&chars, text) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    if (err) xffi_object_dec_ref(err);
    printf("<unprintable %s>", xffi_type_key(obj->type_index));
  } else {
    printf("%.*s", (int)chars.size, chars.data);
  }
  if (text) xffi_object_dec_ref(text);
}

void tour_reflection(void) {
  tour_heading("Reflection: a C struct's fields by name");
  if (!register_sensor()) {
    tour_show_error("registering tour.Sensor", 0);
    return;
  }
  int32_t count = 0;
  xffi_type_count_fields(&count, sensor_type);
  printf("  tour.Sensor: %d fields, one line each (XFFI_REFLECT_FIELD)\n", (int)count);
  for (int32_t i = 0; i < count; ++i) {
    const xffi_field_info *f;
    xffi_type_field_at(&f, sensor_type, i);
    /* Offsets are left out: they depend on the pointer width. */
    printf("    %-9s %-10s %s  %s\n", f->name.data, xffi_type_key(f->field_static_type_index),
           (f->flags & XFFI_FIELD_WRITABLE) ? "read-write" : "read-only ",
           (f->flags & XFFI_FIELD_HAS_DEFAULT) ? "has a default" : "required");
  }

  /* Construction: positional arguments, then keyword ones after the marker. */
  xffi_any name = xffi_any_none(), key = xffi_any_none(), made = xffi_any_none();
  xffi_any_from_str(&name, "boiler", 6);
  xffi_any_from_str(&key, "threshold", 9);
  xffi_any args[] = {xffi_any_int(3), name, xffi_kwargs_marker(), key, xffi_any_float(90.0)};
  if (xffi_object_construct(&made, sensor_type, args, 5) != XFFI_OK) {
    tour_show_error("constructing", 0);
    xffi_any_release(&key);
    return;
  }
  printf("  constructed from (3, \"boiler\", threshold=90.0), required fields first:\n    ");
  print_fields(made.v_obj);
  printf("\n");

  xffi_any value = xffi_any_int(4);
  xffi_object_set_field(made.v_obj, "readings", &value);
  xffi_object_get_field(&value, made.v_obj, "readings");
  printf("  set readings by name, read back: %lld (the struct says %lld)\n", (long long)value.v_int64,
         (long long)((sensor *)made.v_obj)->readings);

  const xffi_method_info *trips;
  xffi_type_find_method(&trips, sensor_type, "trips");
  xffi_any call[] = {made, xffi_any_float(95.0)}, tripped = xffi_any_none();
  xffi_function_call(trips->method.v_obj, call, 2, &tripped);
  printf("  method trips(95.0): %s\n", tripped.v_int64 ? "true" : "false");

  printf("  and what goes wrong says what and where:\n");
  xffi_object_set_field(made.v_obj, "readings", &name);
  tour_show_error("    set readings = \"boiler\"", 32);
  xffi_object_set_field(made.v_obj, "name", &name);
  tour_show_error("    set name (read-only)", 32);
  xffi_object_get_field(&value, made.v_obj, "colour");
  tour_show_error("    get colour", 32);
  xffi_any missing[] = {xffi_kwargs_marker(), key, xffi_any_float(1.0)};
  xffi_object_construct(&value, sensor_type, missing, 3);
  tour_show_error("    construct without readings", 32);
  xffi_any_release(&key);
  xffi_any_release(&name);
  xffi_any_release(&made);
}
