/* c/lib/walk/structural_plan.h: a reflected type's field plan for structural
 * equality and hashing (private; c/lib/walk/structural_plan.c). The fields those
 * walks visit (ancestors' first, none flagged XFFI_FIELD_SEQ_HASH_IGNORE),
 * each with where it is stored and how to read it, built once per type on
 * first use, so that a walk steps through an object's fields as a loop over
 * an array instead of searching the type's fields level by level. */
#ifndef XFFI_STRUCTURAL_PLAN_H
#define XFFI_STRUCTURAL_PLAN_H

#include <stdint.h>
#include <string.h>

#include <xffi/reflection.h>

#include "lib/reflection/field_storage.h"
#include "runtime/internal.h"
#include "lib/walk/recursive_walk.h"

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
  int32_t count;                          /* fields to visit */
  int32_t seen_fields;                    /* the type's fields at all levels when built: fields are only appended */
  const struct xffi_field_plan *replaced; /* a stale plan readers may still hold: kept reachable */
  xffi_plan_field fields[];
} xffi_field_plan;

/* The plan of type (a borrowed registered record; built, cached and
 * immortal on first use; rebuilt when fields were appended since).
 * Lock-free once built; safe from any thread. NULL with MemoryError raised
 * when memory runs out. */
const xffi_field_plan *xffi_field_plan_of(const xffi_type_info *type) XFFI_INTERNAL;

/* Field pf of obj (borrowed): *out is a view in place when the storage is
 * known and the walk borrows obj (pinned 0; *slot may receive a plain
 * value), else *slot receives a new reference read by the getter (pinned:
 * obj's storage may change under a hook, the reference stays). */
static inline int xffi_plan_read(const xffi_plan_field *pf, const xffi_object *obj, int pinned, xffi_any *slot,
                                 const xffi_any **out) {
  const char *addr = (const char *)obj + pf->offset;
  *out = slot;
  switch (pinned ? XFFI_PLAN_READ_GETTER : pf->read) {
    case XFFI_PLAN_READ_ANY: *out = (const xffi_any *)(const void *)addr; return XFFI_OK;
    case XFFI_PLAN_READ_OBJECT: {
      xffi_object *value;
      memcpy(&value, addr, sizeof(value));
      *slot = value ? xffi_any_object(value) : xffi_any_none();
      return XFFI_OK;
    }
    case XFFI_PLAN_READ_INT: {
      int64_t value;
      memcpy(&value, addr, sizeof(value));
      *slot = xffi_any_int(value);
      return XFFI_OK;
    }
    case XFFI_PLAN_READ_FLOAT: {
      double value;
      memcpy(&value, addr, sizeof(value));
      *slot = xffi_any_float(value);
      return XFFI_OK;
    }
    default: return xffi_field_read(slot, obj, pf->field);
  }
}

/* Reads ahead (xffi_walk_read_ahead) the objects held by obj's (borrowed)
 * fields stored in place: the walk visits them next. */
XFFI_READ_AHEAD_FN void xffi_plan_read_ahead(const xffi_field_plan *plan, const xffi_object *obj) {
  for (int32_t i = 0; i < plan->count; ++i) {
    const xffi_plan_field *pf = &plan->fields[i];
    const char *addr = (const char *)obj + pf->offset;
    if (pf->read == XFFI_PLAN_READ_ANY)
      xffi_walk_read_ahead((const xffi_any *)(const void *)addr, 1);
    else if (pf->read == XFFI_PLAN_READ_OBJECT) {
      xffi_object *value;
      memcpy(&value, addr, sizeof(value));
      if (value) XFFI_READ_AHEAD(value);
    }
  }
}

/* Whether xffi_plan_read of pf gives a reference in *slot (to release). */
static inline int xffi_plan_read_owns(const xffi_plan_field *pf, int pinned) {
  return pinned || pf->read == XFFI_PLAN_READ_GETTER;
}

#endif /* XFFI_STRUCTURAL_PLAN_H */
