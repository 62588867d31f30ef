/* c/compat/globals/globals_container_device.c: ffi.Shape and ffi.ContainerFindFirstNonCPUDevice
 * (c/compat/globals/globals_container.h). */
#include "runtime/global_args.h"
#include "compat/globals/globals_container.h"

/* ---- ffi.Shape(d0, d1, ...): a Shape of those ints (bools count as ints,
 * as tvm-ffi's cast to int64 allows); anything else is a ValueError, the
 * kind tvm-ffi raises. ---- */

/* Shapes of up to this many dimensions are built without a heap buffer. */
#define SHAPE_STACK_DIMS 16

int xffi_global_shape(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.Shape";
  if (xffi_global_check_call(fn, args, num_args, XFFI_GLOBAL_ANY_COUNT, result) != XFFI_OK) return XFFI_FAIL;
  for (int32_t i = 0; i < num_args; ++i)
    if (args[i].type_index != XFFI_TYPE_INT && args[i].type_index != XFFI_TYPE_BOOL)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: argument %d: expected int (a dimension), got %s", fn, (int)i,
                              xffi_any_kind_name(&args[i]));
  int64_t on_stack[SHAPE_STACK_DIMS];
  int64_t *dims = on_stack;
  if (num_args > SHAPE_STACK_DIMS) dims = xffi_alloc((size_t)num_args * sizeof(int64_t));
  if (!dims) return xffi_error_raise_out_of_memory();
  for (int32_t i = 0; i < num_args; ++i) dims[i] = args[i].v_int64;
  xffi_object *shape = NULL;
  int status = xffi_shape_new(&shape, dims, num_args);
  if (dims != on_stack) xffi_free(dims);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(shape); /* the new reference moves into the result */
  return XFFI_OK;
}

/* ---- ffi.ContainerFindFirstNonCPUDevice(value) ----
 * The device of the first Tensor not on the CPU, searched depth first in
 * order: the elements of Arrays and Lists, the values (not keys) of Maps and
 * Dicts; a CPU device (type 1, id 0) when there is none, or when value is
 * no container. Python calls it to pick the stream of a call's device.
 *
 * Unlike tvm-ffi's recursion, the search keeps its own stack on the heap,
 * so any nesting depth is fine, and it visits each container once (a set of
 * the containers seen), so a List that contains itself, or a DAG of shared
 * containers, ends in time linear in the distinct containers. */

typedef struct search_frame {
  const xffi_object *container; /* borrowed: kept alive by its parent, or the argument */
  int64_t position;             /* next index (sequences) or xffi_map_next cursor (maps) */
} search_frame;

/* Searches up to this deep keep their frames on the C stack (no allocation). */
#define SEARCH_STACK_FRAMES 16

typedef struct device_search {
  search_frame *frames; /* on_stack, or owned heap memory once deeper */
  search_frame on_stack[SEARCH_STACK_FRAMES];
  int64_t depth, capacity;
  xffi_object *seen; /* a Dict whose keys are the containers pushed (identity), made on first need */
  DLDevice found;
  int has_found;
} device_search;

static int is_container(int32_t type_index) {
  return type_index == XFFI_TYPE_ARRAY || type_index == XFFI_TYPE_LIST || type_index == XFFI_TYPE_MAP ||
         type_index == XFFI_TYPE_DICT;
}

/* Looks at one value: records a non-CPU Tensor's device, pushes a container
 * not seen before. */
static int search_visit(device_search *s, const xffi_any *value) {
  int32_t t = value->type_index;
  if (t == XFFI_TYPE_TENSOR) {
    DLDevice device = xffi_tensor_cell_of_unchecked(value->v_obj)->device;
    if (device.device_type != kDLCPU) {
      s->found = device;
      s->has_found = 1;
    }
    return XFFI_OK;
  }
  if (!is_container(t)) return XFFI_OK;
  /* The first container needs no set: it is the only one so far. */
  if (s->depth > 0) {
    if (!s->seen) {
      xffi_any root = xffi_any_object((xffi_object *)s->frames[0].container), none = xffi_any_none();
      if (xffi_dict_new(&s->seen, &root, &none, 1) != XFFI_OK) return XFFI_FAIL;
    }
    const xffi_any *already;
    if (xffi_map_lookup(&already, s->seen, value) != XFFI_OK) return XFFI_FAIL;
    if (already) return XFFI_OK;
    xffi_any none = xffi_any_none();
    if (xffi_dict_set(s->seen, value, &none) != XFFI_OK) return XFFI_FAIL;
  }
  if (s->depth == s->capacity) {
    int64_t grown = s->capacity * 2;
    if ((uint64_t)grown > SIZE_MAX / sizeof(search_frame)) return xffi_error_raise_out_of_memory();
    search_frame *frames = s->frames == s->on_stack ? xffi_alloc((size_t)grown * sizeof *frames)
                                                    : xffi_realloc(s->frames, (size_t)grown * sizeof *frames);
    if (!frames) return xffi_error_raise_out_of_memory();
    if (s->frames == s->on_stack) memcpy(frames, s->on_stack, sizeof s->on_stack);
    s->frames = frames;
    s->capacity = grown;
  }
  s->frames[s->depth].container = value->v_obj;
  s->frames[s->depth].position = 0;
  s->depth += 1;
  return XFFI_OK;
}

/* Takes the next child value of the top frame into *child (borrowed), or
 * pops the frame and sets *child NULL when it has no more. */
static int search_next_child(device_search *s, const xffi_any **child) {
  search_frame *top = &s->frames[s->depth - 1];
  const xffi_object *c = top->container;
  *child = NULL;
  if (c->type_index == XFFI_TYPE_ARRAY || c->type_index == XFFI_TYPE_LIST) {
    if (top->position < xffi_seq_size_unchecked(c)) *child = &xffi_seq_items_unchecked(c)[top->position++];
  } else {
    xffi_map_item item;
    if (xffi_map_next(&item, c, &top->position) != XFFI_OK) return XFFI_FAIL;
    if (item.key) *child = item.value;
  }
  if (!*child) s->depth -= 1;
  return XFFI_OK;
}

int xffi_global_container_find_first_non_cpu_device(void *handle, const xffi_any *args, int32_t num_args,
                                                    xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.ContainerFindFirstNonCPUDevice", args, num_args, 1, result) != XFFI_OK)
    return XFFI_FAIL;
  device_search s;
  s.frames = s.on_stack;
  s.depth = 0;
  s.capacity = SEARCH_STACK_FRAMES;
  s.seen = NULL;
  s.found = (DLDevice){kDLCPU, 0};
  s.has_found = 0;
  int status = search_visit(&s, &args[0]);
  while (status == XFFI_OK && !s.has_found && s.depth > 0) {
    const xffi_any *child;
    status = search_next_child(&s, &child);
    if (status == XFFI_OK && child) status = search_visit(&s, child);
  }
  if (s.frames != s.on_stack) xffi_free(s.frames);
  if (s.seen) xffi_object_dec_ref(s.seen);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_device(s.found);
  return XFFI_OK;
}
