/* Example 2's plugin: a C shared library a Rust program loads as an xffi
 * Module (examples/mixed/rust-host). It uses the xffi runtime of the process
 * it is loaded into: it is linked against the shared libxffi (-lxffi), never
 * the static one, and with -z nodelete, because it registers a global
 * function whose code lives here (see examples/mixed/README.md).
 *
 * When loaded it registers the type "cplugin.Box" and the global function
 * "cplugin.make_box". It exports, with XFFI_EXPORT_FUNCTION:
 *   make_box(label: str, payload: any) -> cplugin.Box   a C object holding both
 *   box_label(box) -> str, box_payload(box) -> any       what the box holds
 *   box_payload_is(box, type_key: str) -> bool           payload's type, by key
 *   call_global(name: str, arg: any) -> any              calls a global function
 *   probe_type_index(key: str) -> int                    -1 if no such type
 *   probe_has_global(name: str) -> bool
 *   registered_names() -> Array[str]                     [type key, global name]
 *   stats() -> Array[int]    [boxes made, box deleters run, global's finalizer runs]
 *   fail(message: str)                                   raises ValueError(message) */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xffi/xffi.h>
#include <xffi/sys/object.h>
#include <xffi/sys/type.h>

XFFI_DEFINE_ABI_MARKER(); /* once per library: xffi_module_load checks it */

#define BOX_KEY "cplugin.Box"
#define GLOBAL_NAME "cplugin.make_box"

typedef struct box_object {
  xffi_object header;
  xffi_object *label; /* a String, owned */
  xffi_any payload;   /* owned */
} box_object;

static int32_t box_type = -1;
static atomic_llong boxes_made, boxes_deleted, global_finalized;

static void box_deleter(void *self, int flags) {
  box_object *box = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    xffi_object_dec_ref(box->label);
    xffi_any_release(&box->payload);
    atomic_fetch_add(&boxes_deleted, 1);
  }
  if (flags & XFFI_DELETE_MEMORY) free(box);
}

/* The object argument at index, if it is a Box (else a TypeError). */
static int box_arg(box_object **out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  xffi_object *obj = NULL;
  if (xffi_arg_to_object(&obj, args, num_args, index, box_type, fn) != XFFI_OK) return XFFI_FAIL;
  *out = (box_object *)obj;
  return XFFI_OK;
}

static int make_box(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_byte_array label;
  if (xffi_arg_check_signature(args, num_args, "s*", "make_box") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&label, args, num_args, 0, "make_box") != XFFI_OK) return XFFI_FAIL;
  box_object *box = malloc(sizeof *box);
  if (!box) return xffi_error_raise_out_of_memory();
  box->payload = xffi_any_none();
  if (xffi_string_new(&box->label, label.data, label.size) != XFFI_OK) {
    free(box);
    return XFFI_FAIL;
  }
  if (xffi_any_copy(&box->payload, &args[1]) != XFFI_OK) { /* a new reference to a Rust object, say */
    xffi_object_dec_ref(box->label);
    free(box);
    return XFFI_FAIL;
  }
  xffi_object_init(&box->header, box_type, box_deleter);
  atomic_fetch_add(&boxes_made, 1);
  *result = xffi_any_object(&box->header); /* the one reference passes to the caller */
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(make_box, make_box);

static int box_label(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  box_object *box;
  if (xffi_arg_check_signature(args, num_args, "o", "box_label") != XFFI_OK) return XFFI_FAIL;
  if (box_arg(&box, args, num_args, 0, "box_label") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object_new_ref(box->label);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(box_label, box_label);

static int box_payload(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  box_object *box;
  if (xffi_arg_check_signature(args, num_args, "o", "box_payload") != XFFI_OK) return XFFI_FAIL;
  if (box_arg(&box, args, num_args, 0, "box_payload") != XFFI_OK) return XFFI_FAIL;
  return xffi_any_copy(result, &box->payload);
}
XFFI_EXPORT_FUNCTION(box_payload, box_payload);

static int box_payload_is(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  box_object *box;
  xffi_byte_array key;
  if (xffi_arg_check_signature(args, num_args, "os", "box_payload_is") != XFFI_OK) return XFFI_FAIL;
  if (box_arg(&box, args, num_args, 0, "box_payload_is") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&key, args, num_args, 1, "box_payload_is") != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *type = NULL;
  /* key.data is NUL-terminated for strings (small, String objects, C strings). */
  if (xffi_type_info_get_by_key(&type, key.data) != XFFI_OK) return XFFI_FAIL;
  *result =
      xffi_any_bool(xffi_any_is_object(&box->payload) && xffi_object_is_a_type_unchecked(box->payload.v_obj, type));
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(box_payload_is, box_payload_is);

static int call_global(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_byte_array name;
  xffi_object *f = NULL;
  if (xffi_arg_check_signature(args, num_args, "s*", "call_global") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&name, args, num_args, 0, "call_global") != XFFI_OK) return XFFI_FAIL;
  if (xffi_function_global_lookup_bytes(&f, name) != XFFI_OK) return XFFI_FAIL;
  if (!f) return xffi_error_raise(XFFI_KIND_KEY, "call_global: no global function named '%s'", name.data);
  int status = xffi_function_call(f, &args[1], 1, result);
  xffi_object_dec_ref(f);
  return status;
}
XFFI_EXPORT_FUNCTION(call_global, call_global);

static int probe_type_index(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_byte_array key;
  if (xffi_arg_check_signature(args, num_args, "s", "probe_type_index") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&key, args, num_args, 0, "probe_type_index") != XFFI_OK) return XFFI_FAIL;
  const xffi_type_info *type = NULL;
  if (xffi_type_info_get_by_key(&type, key.data) != XFFI_OK) {
    xffi_object_dec_ref(xffi_error_move_raised()); /* KeyError: not registered here */
    *result = xffi_any_int(-1);
    return XFFI_OK;
  }
  *result = xffi_any_int(type->type_index);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(probe_type_index, probe_type_index);

static int probe_has_global(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_byte_array name;
  xffi_object *f = NULL;
  if (xffi_arg_check_signature(args, num_args, "s", "probe_has_global") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&name, args, num_args, 0, "probe_has_global") != XFFI_OK) return XFFI_FAIL;
  if (xffi_function_global_lookup_bytes(&f, name) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(f != NULL);
  xffi_object_dec_ref(f);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(probe_has_global, probe_has_global);

static int registered_names(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_arg_check_signature(args, num_args, "", "registered_names") != XFFI_OK) return XFFI_FAIL;
  xffi_any names[2] = {xffi_any_c_str(BOX_KEY), xffi_any_c_str(GLOBAL_NAME)};
  xffi_object *array = NULL;
  if (xffi_array_new(&array, names, 2) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(array);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(registered_names, registered_names);

static int stats(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_arg_check_signature(args, num_args, "", "stats") != XFFI_OK) return XFFI_FAIL;
  xffi_any counts[3] = {xffi_any_int(atomic_load(&boxes_made)), xffi_any_int(atomic_load(&boxes_deleted)),
                        xffi_any_int(atomic_load(&global_finalized))};
  xffi_object *array = NULL;
  if (xffi_array_new(&array, counts, 3) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(array);
  return XFFI_OK;
}
XFFI_EXPORT_FUNCTION(stats, stats);

static int fail(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle, (void)result;
  xffi_byte_array message;
  if (xffi_arg_check_signature(args, num_args, "s", "fail") != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&message, args, num_args, 0, "fail") != XFFI_OK) return XFFI_FAIL;
  return xffi_error_raise_str(XFFI_KIND_VALUE, message.data);
}
XFFI_EXPORT_FUNCTION(fail, fail);

/* The global function: make_box with the resource handle unused. */
static int global_make_box(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  return make_box(resource, args, num_args, result);
}

static void global_finalize(void *resource) {
  (void)resource;
  atomic_fetch_add(&global_finalized, 1);
}

/* Registration when the library is loaded. A constructor has nowhere to
 * report a failure: it leaves the error raised on the loading thread, and
 * the host sees that the type or the global function is missing. */
__attribute__((constructor)) static void plugin_load(void) {
  xffi_object *f = NULL;
  if (xffi_type_register(&box_type, BOX_KEY, XFFI_TYPE_OBJECT) != XFFI_OK) return;
  if (xffi_function_new(&f, global_make_box, NULL, global_finalize) != XFFI_OK) return;
  xffi_function_global_register(GLOBAL_NAME, f, 0);
  xffi_object_dec_ref(f);
}
