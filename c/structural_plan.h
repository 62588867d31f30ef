/* c/structural_plan.h: a reflected type's field plan for structural
 * equality and hashing (private; c/structural_plan.c). The fields those
 * walks visit (ancestors' first, none flagged XFFI_FIELD_SEQ_HASH_IGNORE),
 * each with where it is stored and how to read it, built once per type on
 * first use, so that a walk steps through an object's fields as a loop over
 * an array instead of searching the type's fields level by level. */
#ifndef XFFI_STRUCTURAL_PLAN_H
#define XFFI_STRUCTURAL_PLAN_H

#include <stdint.h>

#include <xffi/reflection.h>

#include "internal.h"

/* How a plan's field is read: in place for the storage xffi's own getters
 * imply (what XFFI_FIELD_SPEC and py_class register), else by its getter. */
enum {
  XFFI_PLAN_READ_ANY,    /* an xffi_any at the offset: a view in place */
  XFFI_PLAN_READ_OBJECT, /* an object pointer (NULL: None): no reference taken */
  XFFI_PLAN_READ_INT,    /* an int64_t */
  XFFI_PLAN_READ_FLOAT,  /* a double */
  XFFI_PLAN_READ_GETTER  /* anything else: the getter gives an owned value */
};

typedef struct xffi_plan_field {
  const xffi_field_info *field; /* borrowed: the registry keeps field records for the process's life */
  int64_t offset;               /* bytes from the object's start */
  int32_t read;                 /* XFFI_PLAN_READ_* */
  int32_t region;               /* the definition region the field opens (structural_region.h) */
} xffi_plan_field;

typedef struct xffi_field_plan {
  int32_t count;       /* fields to visit */
  int32_t seen_fields; /* the type's fields at all levels when built: fields are only appended */
  const struct xffi_field_plan *replaced; /* a stale plan readers may still hold: kept reachable */
  xffi_plan_field fields[];
} xffi_field_plan;

/* The plan of type (a borrowed registered record; built, cached and
 * immortal on first use; rebuilt when fields were appended since).
 * Lock-free once built; safe from any thread. NULL with MemoryError raised
 * when memory runs out. */
const xffi_field_plan *xffi_field_plan_of(const xffi_type_info *type) XFFI_INTERNAL;

#endif /* XFFI_STRUCTURAL_PLAN_H */
