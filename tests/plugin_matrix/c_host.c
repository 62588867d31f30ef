/* tests/plugin_matrix/c_host.c: one check of the plugin matrix in a C host
 * linked to xffi's drop-in libtvm_ffi.so (the process's runtime), which loads
 * the plugin with xffi_module_load (run.py starts one process per check).
 *
 *     matrix_c_host {c|rust} PLUGIN.so CHECK
 *
 * The checks are python_client.py's, through xffi's C API. Exit status 0 and
 * "ok" when the check holds; 1 with the failed condition on stderr. */
#include <stdio.h>
#include <string.h>
#include <xffi/json.h>
#include <xffi/reflection.h>
#include <xffi/structural.h>
#include <xffi/sys/error.h>
#include <xffi/xffi.h>

#define CHECK(cond)                                                                                           \
  do {                                                                                                        \
    if (!(cond)) {                                                                                            \
      fprintf(stderr, "check failed: %s\n", #cond);                                                           \
      xffi_object *err_ = xffi_error_move_raised();                                                           \
      if (err_) {                                                                                             \
        fprintf(stderr, "raised: %s: %s\n", kind_of(err_), xffi_error_cell_of_unchecked(err_)->message.data); \
        xffi_object_dec_ref(err_);                                                                            \
      }                                                                                                       \
      return 1;                                                                                               \
    }                                                                                                         \
  } while (0)

static xffi_object *plugin;
static const char *key;

static const char *kind_of(xffi_object *err) { return xffi_error_cell_of_unchecked(err)->kind.data; }

/* Calls the plugin's function name with args; *out receives the result. */
static int call(xffi_any *out, const char *name, const xffi_any *args, int32_t num_args) {
  xffi_object *f = NULL;
  *out = xffi_any_none();
  if (xffi_module_lookup_function(&f, plugin, name) != XFFI_OK || !f) return XFFI_FAIL;
  int status = xffi_function_call(f, args, num_args, out);
  xffi_object_dec_ref(f);
  return status;
}

/* The raised error is of kind and its message contains text. */
static int raised(const char *kind, const char *text) {
  xffi_object *err = xffi_error_move_raised();
  int ok = err && xffi_error_is_kind(err, kind) && strstr(xffi_error_cell_of_unchecked(err)->message.data, text);
  if (err && !ok) fprintf(stderr, "raised: %s: %s\n", kind_of(err), xffi_error_cell_of_unchecked(err)->message.data);
  if (err) xffi_object_dec_ref(err);
  return ok;
}

static int str_is(const xffi_any *v, const char *text) {
  xffi_byte_array s;
  return xffi_any_to_str(&s, v) == XFFI_OK && s.size == strlen(text) && memcmp(s.data, text, s.size) == 0;
}

static int make_kernel(xffi_any *out) {
  xffi_any args[] = {xffi_any_int(3), xffi_any_c_str("k3")};
  return call(out, "make_kernel", args, 2);
}

static int check_functions(void) {
  xffi_any r, args[] = {xffi_any_int(2), xffi_any_int(40)};
  CHECK(call(&r, "add", args, 2) == XFFI_OK && r.type_index == XFFI_TYPE_INT && r.v_int64 == 42);
  return 0;
}

static int check_error(void) {
  xffi_any r, arg = xffi_any_c_str("bad input here");
  CHECK(call(&r, "fail", &arg, 1) == XFFI_FAIL);
  CHECK(raised(XFFI_KIND_VALUE, "bad input here"));
  return 0;
}

static int check_panic(void) {
  xffi_any r, arg = xffi_any_c_str("it broke");
  CHECK(call(&r, "panic_now", &arg, 1) == XFFI_FAIL);
  CHECK(raised(XFFI_KIND_RUNTIME, "it broke"));
  return 0;
}

static int function_value_fails(const char *maker, const char *kind, const char *text) {
  xffi_any f, r;
  CHECK(call(&f, maker, NULL, 0) == XFFI_OK && f.type_index == XFFI_TYPE_FUNCTION);
  CHECK(xffi_function_call(f.v_obj, NULL, 0, &r) == XFFI_FAIL);
  xffi_any_release(&f);
  CHECK(raised(kind, text));
  return 0;
}

static int check_function_value_error(void) {
  return function_value_fails("make_failing_function", XFFI_KIND_VALUE, "callback failed");
}

static int check_direct_function_value_error(void) {
  return function_value_fails("make_failing_direct_function", XFFI_KIND_VALUE, "direct function failed");
}

static int check_function_value_panic(void) {
  return function_value_fails("make_panicking_function", XFFI_KIND_RUNTIME, "callback panicked");
}

static int check_type_by_key(void) {
  const xffi_type_info *info = NULL;
  CHECK(xffi_type_info_get_by_key(&info, key) == XFFI_OK);
  CHECK(info->num_fields == 3 && strcmp(info->fields[0].name.data, "scale") == 0 &&
        strcmp(info->fields[1].name.data, "gain") == 0 && strcmp(info->fields[2].name.data, "label") == 0);
  return 0;
}

static int check_object_type(void) {
  const xffi_type_info *info = NULL;
  xffi_any k;
  CHECK(xffi_type_info_get_by_key(&info, key) == XFFI_OK);
  CHECK(make_kernel(&k) == XFFI_OK && k.type_index == info->type_index);
  xffi_any_release(&k);
  return 0;
}

static int check_fields(void) {
  xffi_any k, v;
  CHECK(make_kernel(&k) == XFFI_OK);
  CHECK(xffi_object_get_field(&v, k.v_obj, "scale") == XFFI_OK && v.v_int64 == 3);
  CHECK(xffi_object_get_field(&v, k.v_obj, "label") == XFFI_OK && str_is(&v, "k3"));
  xffi_any_release(&v);
  CHECK(xffi_object_get_field(&v, k.v_obj, "gain") == XFFI_OK && v.v_float64 == 1.0);
  v = xffi_any_float(2.5);
  CHECK(xffi_object_set_field(k.v_obj, "gain", &v) == XFFI_OK);
  CHECK(xffi_object_get_field(&v, k.v_obj, "gain") == XFFI_OK && v.v_float64 == 2.5);
  v = xffi_any_int(4);
  CHECK(xffi_object_set_field(k.v_obj, "scale", &v) == XFFI_FAIL);
  xffi_object_dec_ref(xffi_error_move_raised());
  CHECK(xffi_object_get_field(&v, k.v_obj, "scale") == XFFI_OK && v.v_int64 == 3);
  xffi_any_release(&k);
  return 0;
}

static int check_methods(void) {
  const xffi_type_info *info = NULL;
  const xffi_method_info *apply = NULL;
  xffi_any k, r, gain = xffi_any_float(2.0);
  xffi_any args[] = {xffi_any_int(3), xffi_any_c_str("made in c")};
  CHECK(xffi_type_info_get_by_key(&info, key) == XFFI_OK);
  CHECK(xffi_object_construct(&k, info->type_index, args, 2) == XFFI_OK);
  CHECK(xffi_object_set_field(k.v_obj, "gain", &gain) == XFFI_OK);
  CHECK(xffi_type_find_method(&apply, info->type_index, "apply") == XFFI_OK && apply);
  xffi_any call_args[] = {k, xffi_any_float(5.0)};
  CHECK(xffi_function_call(apply->method.v_obj, call_args, 2, &r) == XFFI_OK && r.v_float64 == 30.0);
  xffi_any_release(&k);
  return 0;
}

static int check_repr(void) {
  char expected[128];
  xffi_any k;
  xffi_object *text = NULL;
  xffi_byte_array chars;
  snprintf(expected, sizeof expected, "%s(scale=3, gain=1, label=\"k3\")", key);
  CHECK(make_kernel(&k) == XFFI_OK);
  CHECK(xffi_repr(&text, &k) == XFFI_OK && xffi_string_cell_of(&chars, text) == XFFI_OK);
  if (chars.size != strlen(expected) || memcmp(chars.data, expected, chars.size) != 0)
    fprintf(stderr, "repr: %.*s\n", (int)chars.size, chars.data);
  CHECK(chars.size == strlen(expected) && memcmp(chars.data, expected, chars.size) == 0);
  xffi_object_dec_ref(text);
  xffi_any_release(&k);
  return 0;
}

static int check_json_graph(void) {
  xffi_any k, back = xffi_any_none();
  xffi_object *text = NULL;
  xffi_byte_array chars;
  int equal = 0;
  CHECK(make_kernel(&k) == XFFI_OK);
  CHECK(xffi_to_json_text(&text, &k, NULL) == XFFI_OK && xffi_string_cell_of(&chars, text) == XFFI_OK);
  CHECK(xffi_from_json_text(&back, chars.data, chars.size) == XFFI_OK);
  CHECK(back.type_index == k.type_index && back.v_obj != k.v_obj);
  CHECK(xffi_structural_equal(&equal, &back, &k, 0) == XFFI_OK && equal);
  xffi_object_dec_ref(text);
  xffi_any_release(&back);
  xffi_any_release(&k);
  return 0;
}

/* The global function the plugin registers is in the host's registry (the
 * process's), callable by name; a second registration is refused. */
static int check_global_registered(void) {
  char name[64];
  xffi_object *f = NULL;
  xffi_any r, args[] = {xffi_any_int(6), xffi_any_int(7)};
  snprintf(name, sizeof name, "matrix.%s.product", strcmp(key, "matrix.CKernel") == 0 ? "c" : "rust");
  CHECK(xffi_function_global_lookup(&f, name) == XFFI_OK && !f);
  CHECK(call(&r, "register_product", NULL, 0) == XFFI_OK);
  CHECK(xffi_function_global_lookup(&f, name) == XFFI_OK && f);
  CHECK(xffi_function_call(f, args, 2, &r) == XFFI_OK && r.type_index == XFFI_TYPE_INT && r.v_int64 == 42);
  xffi_object_dec_ref(f);
  CHECK(call(&r, "register_product", NULL, 0) == XFFI_FAIL);
  CHECK(raised(XFFI_KIND_VALUE, "already registered"));
  return 0;
}

/* The body of the host's global function matrix.host.sub: a - b. */
static int host_sub(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  if (num_args != 2) return xffi_error_raise(XFFI_KIND_TYPE, "matrix.host.sub: expected 2 arguments");
  *result = xffi_any_int(args[0].v_int64 - args[1].v_int64);
  return XFFI_OK;
}

/* The plugin's global lookups find the host's functions. */
static int check_global_lookup(void) {
  xffi_object *sub = NULL;
  xffi_any r;
  CHECK(xffi_function_new(&sub, host_sub, NULL, NULL) == XFFI_OK);
  CHECK(xffi_function_global_register("matrix.host.sub", sub, 0) == XFFI_OK);
  xffi_object_dec_ref(sub);
  xffi_any args[] = {xffi_any_c_str("matrix.host.sub"), xffi_any_int(50), xffi_any_int(8)};
  CHECK(call(&r, "call_global", args, 3) == XFFI_OK && r.type_index == XFFI_TYPE_INT && r.v_int64 == 42);
  args[0] = xffi_any_c_str("matrix.host.none");
  CHECK(call(&r, "call_global", args, 3) == XFFI_FAIL);
  CHECK(raised(XFFI_KIND_KEY, "matrix.host.none"));
  return 0;
}

static const struct {
  const char *name;
  int (*run)(void);
} checks[] = {
    {"functions", check_functions},
    {"error", check_error},
    {"panic", check_panic},
    {"function_value_error", check_function_value_error},
    {"function_value_panic", check_function_value_panic},
    {"direct_function_value_error", check_direct_function_value_error},
    {"type_by_key", check_type_by_key},
    {"object_type", check_object_type},
    {"fields", check_fields},
    {"methods", check_methods},
    {"repr", check_repr},
    {"json_graph", check_json_graph},
    {"global_registered", check_global_registered},
    {"global_lookup", check_global_lookup},
};

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s {c|rust} PLUGIN.so CHECK\n", argv[0]);
    return 2;
  }
  key = strcmp(argv[1], "c") == 0 ? "matrix.CKernel" : "matrix.RustKernel";
  if (xffi_module_load(&plugin, argv[2]) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    fprintf(stderr, "cannot load %s: %s\n", argv[2], err ? xffi_error_cell_of_unchecked(err)->message.data : "?");
    return 1;
  }
  for (size_t i = 0; i < sizeof checks / sizeof checks[0]; ++i) {
    if (strcmp(checks[i].name, argv[3]) != 0) continue;
    int failed = checks[i].run();
    xffi_object_dec_ref(plugin);
    if (!failed) printf("ok\n");
    return failed;
  }
  fprintf(stderr, "unknown check %s\n", argv[3]);
  return 2;
}
