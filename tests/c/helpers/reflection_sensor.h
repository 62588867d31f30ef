/* tests/c/helpers/reflection_sensor.h: a C struct reflected with the XFFI_REFLECT_*
 * macros, shared by the tests of registration, construction and records.
 * test.reflect.Sensor has count (int, writable), ratio (float, read-only),
 * label (String, writable, default "idle"); test.reflect.Probe derives from
 * it and adds depth (int, writable, default 3). */
#ifndef XFFI_TEST_REFLECTION_SENSOR_H
#define XFFI_TEST_REFLECTION_SENSOR_H

#include "test_util.h"

#include <xffi/reflection.h>

typedef struct sensor {
  xffi_object header;
  int64_t count;
  double ratio;
  xffi_object *label; /* a String, or NULL */
} sensor;

typedef struct probe {
  sensor base;
  int64_t depth;
} probe;

static int sensors_alive;

static inline void sensor_deleter(void *self, int flags) {
  sensor *s = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    if (s->label) xffi_object_dec_ref(s->label);
    sensors_alive--;
  }
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static int32_t sensor_index = -1, probe_index = -1;

/* The creators: an empty object, a new reference in *result. */
static inline int sensor_create(void **result) {
  sensor *s = calloc(1, sizeof(sensor));
  if (!s) return xffi_error_raise_out_of_memory();
  xffi_object_init(&s->header, sensor_index, sensor_deleter);
  sensors_alive++;
  *result = s;
  return XFFI_OK;
}

static inline int probe_create(void **result) {
  probe *p = calloc(1, sizeof(probe));
  if (!p) return xffi_error_raise_out_of_memory();
  xffi_object_init(&p->base.header, probe_index, sensor_deleter);
  sensors_alive++;
  *result = p;
  return XFFI_OK;
}

/* Registers both types once (each test binary is one process). */
static inline void register_sensor_types(void) {
  if (sensor_index >= 0) return;
  assert_int_equal(xffi_type_register(&sensor_index, "test.reflect.Sensor", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(sensor_index, sensor, sensor_create, XFFI_SEQ_HASH_TREE_NODE, "a sensor"),
                   XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD(sensor_index, sensor, count, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, "readings"),
                   XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD_READONLY(sensor_index, sensor, ratio, XFFI_TYPE_FLOAT, "calibration"), XFFI_OK);
  xffi_any idle = xffi_any_none();
  assert_int_equal(xffi_any_from_str(&idle, "idle", 4), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_FIELD_DEFAULT(sensor_index, sensor, label, XFFI_TYPE_STRING, XFFI_FIELD_WRITABLE,
                                              "what it shows", idle),
                   XFFI_OK);
  xffi_any_release(&idle);
  assert_int_equal(xffi_type_register(&probe_index, "test.reflect.Probe", sensor_index), XFFI_OK);
  assert_int_equal(XFFI_REFLECT_TYPE(probe_index, probe, probe_create, XFFI_SEQ_HASH_TREE_NODE, NULL), XFFI_OK);
  assert_int_equal(
      XFFI_REFLECT_FIELD_DEFAULT(probe_index, probe, depth, XFFI_TYPE_INT, XFFI_FIELD_WRITABLE, NULL, xffi_any_int(3)),
      XFFI_OK);
}

/* A new test.reflect.Probe (a new reference, as an Any) with these field
 * values; a NULL label leaves the creator's. Registers the types first. */
static inline xffi_any probe_new(int64_t count, double ratio, const char *label, int64_t depth) {
  register_sensor_types();
  void *made = NULL;
  assert_int_equal(probe_create(&made), XFFI_OK);
  probe *p = made;
  p->base.count = count;
  p->base.ratio = ratio;
  if (label) assert_int_equal(xffi_string_new(&p->base.label, label, strlen(label)), XFFI_OK);
  p->depth = depth;
  return xffi_any_object(&p->base.header);
}

#endif /* XFFI_TEST_REFLECTION_SENSOR_H */
