/* c/runtime/function_signature.c: a built-in's compact signature expanded to
 * tvm-ffi's metadata JSON (c/runtime/function_signature.h). */
#include "runtime/function_signature.h"

#include <string.h>

/* The text being written: stays NUL-terminated; failed is set once anything
 * did not fit or the signature was malformed. */
typedef struct writer {
  char *out;
  size_t capacity, length;
  int failed;
} writer;

static void put(writer *w, const char *text, size_t len) {
  if (w->failed || w->length + len + 1 > w->capacity) {
    w->failed = 1;
    return;
  }
  memcpy(w->out + w->length, text, len);
  w->length += len;
  w->out[w->length] = '\0';
}

static void put_str(writer *w, const char *text) { put(w, text, strlen(text)); }

/* The schema's quotes sit inside a JSON string, hence \". */
static const char *type_list(writer *w, const char *at, char close);

/* One type at *at: NAME or NAME<ARG,...>; returns where it ends. */
static const char *type_schema(writer *w, const char *at) {
  size_t len = strcspn(at, "<>(),");
  if (!len) {
    w->failed = 1;
    return at;
  }
  put_str(w, "{\\\"type\\\":\\\"");
  put(w, at, len);
  put_str(w, "\\\"");
  at += len;
  if (*at == '<') {
    if (at[1] == '>') w->failed = 1; /* a type's arguments are never an empty list */
    put_str(w, ",\\\"args\\\":[");
    at = type_list(w, at + 1, '>');
    put_str(w, "]");
  }
  put_str(w, "}");
  return at;
}

/* Types separated by ',' up to close (consumed); an empty list is allowed. */
static const char *type_list(writer *w, const char *at, char close) {
  if (*at == close) return at + 1;
  for (;;) {
    at = type_schema(w, at);
    if (w->failed) return at;
    if (*at == close) return at + 1;
    if (*at != ',') {
      w->failed = 1;
      return at;
    }
    put_str(w, ",");
    ++at;
  }
}

long xffi_signature_metadata(char *out, size_t capacity, const char *signature) {
  writer w = {out, capacity, 0, capacity == 0};
  if (!w.failed) out[0] = '\0';
  put_str(&w, "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"");
  if (strcmp(signature, "*") != 0) {
    put_str(&w, ",\\\"named_args\\\":{\\\"return\\\":[");
    const char *at = type_schema(&w, signature);
    if (*at != '(') w.failed = 1;
    put_str(&w, "],\\\"params\\\":[");
    if (!w.failed) at = type_list(&w, at + 1, ')');
    if (*at != '\0') w.failed = 1;
    put_str(&w, "]}");
  }
  put_str(&w, "}\"}");
  return w.failed ? -1 : (long)w.length;
}
