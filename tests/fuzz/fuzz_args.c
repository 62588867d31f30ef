/* Fuzz target: calls with random argument arrays through the argument
 * checker. A signature (mostly of valid characters, sometimes not) and an
 * array of values of every kind go to xffi_arg_check_signature directly and through a
 * Function whose callee checks its arguments; a model predicts the result:
 * ValueError for an unknown signature character, TypeError for a count
 * mismatch or the first argument of the wrong kind (named by position),
 * ValueError if that first bad argument is malformed rather than mistyped, and
 * the error crosses the call unchanged with the result left None. */
#include "fuzz_common.h"

enum { MAX_ARGS = 8 };

static int accepts(char c, int kind) {
  switch (c) {
    case 'i':
    case 'b': return fuzz_kind_is_intlike(kind);
    case 'f': return fuzz_kind_is_intlike(kind) || kind == FK_FLOAT;
    case 's': return fuzz_kind_is_str(kind);
    case 'y': return fuzz_kind_is_bytes(kind);
    case 'p': return kind == FK_PTR || kind == FK_NONE;
    case 'o': return fuzz_kind_is_object(kind) || kind == FK_FOREIGN;
    case 'F': return kind == FK_FUNCTION;
    default: return 1; /* '*' */
  }
}

typedef struct callee_state {
  const char *signature;
  int calls;
} callee_state;

static int checking_callee(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  callee_state *st = resource;
  st->calls++;
  if (xffi_arg_check_signature(args, num_args, st->signature, "fuzz_callee") != XFFI_OK) {
    *result = xffi_any_int(99); /* a failing callee's leftovers must be released/reset by the caller */
    return XFFI_FAIL;
  }
  return xffi_any_from_str(result, "checked and called", 18);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size};
  fuzz_value_pool pool;
  fuzz_pool_init(&pool);
  char signature[MAX_ARGS + 2];
  int sig_len = fuzz_u8(&in) % (MAX_ARGS + 1);
  static const char valid[] = "ifbsypoF*";
  for (int i = 0; i < sig_len; ++i) {
    uint8_t c = fuzz_u8(&in);
    signature[i] = c < 240 ? valid[c % 9] : (char)(c == 240 ? 'x' : c);
    if (signature[i] == '\0') signature[i] = 'z';
  }
  signature[sig_len] = '\0';
  int32_t num_args = (int32_t)(fuzz_u8(&in) % (MAX_ARGS + 1));
  xffi_any args[MAX_ARGS];
  int kinds[MAX_ARGS];
  for (int32_t i = 0; i < num_args; ++i) {
    args[i] = fuzz_make_value(&in, &pool, &kinds[i]);
    /* One borrowed text buffer is shared by the pool: later string views reuse it. */
    if (kinds[i] == FK_RAW_STR || kinds[i] == FK_BYTE_ARRAY) {
      args[i] = xffi_any_int(0);
      kinds[i] = FK_INT;
    }
  }
  /* The model. */
  int unknown = 0;
  for (int i = 0; i < sig_len; ++i) unknown |= !strchr(valid, signature[i]);
  int bad_arg = -1;
  if (!unknown && num_args == sig_len)
    for (int32_t i = 0; i < num_args && bad_arg < 0; ++i)
      if (kinds[i] == FK_MALFORMED || !accepts(signature[i], kinds[i])) bad_arg = i;
  int malformed = bad_arg >= 0 && kinds[bad_arg] == FK_MALFORMED;
  const char *expect_kind = unknown || malformed                  ? XFFI_KIND_VALUE
                            : num_args != sig_len || bad_arg >= 0 ? XFFI_KIND_TYPE
                                                                  : NULL;

  int status = xffi_arg_check_signature(num_args ? args : NULL, num_args, signature, "fuzz_fn");
  if (!expect_kind) {
    FUZZ_CHECK(status == XFFI_OK);
  } else {
    FUZZ_CHECK(status == XFFI_FAIL);
    xffi_object *err = xffi_error_move_raised();
    FUZZ_CHECK(err != NULL && xffi_error_is_kind(err, expect_kind));
    const char *msg = xffi_error_cell_of_unchecked(err)->message.data;
    if (unknown) {
      FUZZ_CHECK(strstr(msg, "unknown character") != NULL);
    } else if (num_args != sig_len) {
      char want[64];
      snprintf(want, sizeof(want), "fuzz_fn: expected %d argument%s, got %d", sig_len, sig_len == 1 ? "" : "s",
               (int)num_args);
      FUZZ_CHECK(strcmp(msg, want) == 0);
    } else if (malformed) {
      char want[64];
      snprintf(want, sizeof(want), "fuzz_fn: argument %d is malformed: ", bad_arg);
      FUZZ_CHECK(strncmp(msg, want, strlen(want)) == 0);
    } else {
      char want[64];
      snprintf(want, sizeof(want), "fuzz_fn: argument %d: expected ", bad_arg);
      FUZZ_CHECK(strncmp(msg, want, strlen(want)) == 0);
    }
    xffi_object_dec_ref(err);
  }

  /* The same through a call: the callee's error reaches the caller as it is. */
  callee_state st = {signature, 0};
  xffi_object *fn = NULL;
  FUZZ_CHECK(xffi_function_new(&fn, checking_callee, &st, NULL) == XFFI_OK);
  xffi_any result = xffi_any_none();
  status = (fuzz_u8(&in) & 1) ? xffi_function_call(fn, args, num_args, &result)
                              : xffi_function_call_inline(fn, args, num_args, &result);
  FUZZ_CHECK(st.calls == 1);
  if (!expect_kind) {
    FUZZ_CHECK(status == XFFI_OK && result.type_index == XFFI_TYPE_STRING);
    xffi_any_release(&result);
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && result.type_index == XFFI_TYPE_NONE);
    xffi_object *err = xffi_error_move_raised();
    FUZZ_CHECK(err != NULL && xffi_error_is_kind(err, expect_kind));
    xffi_object_dec_ref(err);
  }
  /* Out-of-range argument indices are refused, never read. */
  int64_t iv;
  int32_t index = (int32_t)fuzz_i64(&in);
  if (index < 0 || index >= num_args) {
    FUZZ_CHECK(xffi_arg_to_int(&iv, num_args ? args : NULL, num_args, index, "fuzz_fn") == XFFI_FAIL);
    /* A negative index is the callee's own bug (ValueError); one past the end a missing argument. */
    fuzz_expect_raised(index < 0 ? XFFI_KIND_VALUE : XFFI_KIND_TYPE, "fuzz_fn");
  }
  /* Bad call shapes are refused before the callee runs. */
  FUZZ_CHECK(xffi_function_call(fn, NULL, num_args ? num_args : -1, &result) == XFFI_FAIL && st.calls == 1);
  fuzz_expect_raised(XFFI_KIND_VALUE, "xffi_function_call");
  xffi_object_dec_ref(fn);
  FUZZ_NOTHING_RAISED();
  fuzz_pool_release(&pool);
  return 0;
}
