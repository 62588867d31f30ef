/* tests/c/helpers/registry_thread_util.h: what the thread tests that churn the
 * global registry share (each test binary gets its own counters): CHECK
 * (thread_check.h), and Functions that return their resource and count how
 * many were made and finalized. */
#ifndef XFFI_TEST_REGISTRY_THREAD_UTIL_H
#define XFFI_TEST_REGISTRY_THREAD_UTIL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <xffi/function.h>

#include "thread_check.h"

static atomic_long created, finalized;

static int return_resource(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args, (void)num_args;
  *result = xffi_any_int((int64_t)(intptr_t)resource);
  return XFFI_OK;
}

static void count_finalizer(void *resource) {
  (void)resource;
  atomic_fetch_add(&finalized, 1);
}

/* A new reference to a Function returning value, or NULL (out of memory). */
static xffi_object *make(intptr_t value) {
  xffi_object *f = NULL;
  if (xffi_function_new(&f, return_resource, (void *)value, count_finalizer) != XFFI_OK) return NULL;
  atomic_fetch_add(&created, 1);
  return f;
}

#endif /* XFFI_TEST_REGISTRY_THREAD_UTIL_H */
