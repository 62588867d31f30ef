/* tests/cross_language/cross.h: C helpers for the Rust cross-language tests (see cross.c). */
#ifndef XFFI_TESTS_CROSS_H
#define XFFI_TESTS_CROSS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <xffi/xffi.h>

int32_t cross_node_type_index(void);
int cross_node_new(xffi_object **out, int64_t value);
int64_t cross_node_value(const xffi_object *node);
int cross_node_contents_deleted(void);
int cross_node_memory_freed(void);
int cross_array_of_one(xffi_object **out, xffi_object *obj);
void cross_release(xffi_object *obj);
int cross_map_put_new_node(xffi_object *map_in, xffi_object **map_out, const char *key, int64_t value);
int cross_call_in_threads(int64_t *out_sum, xffi_object *func, int num_threads, char *message, size_t message_size);
int cross_drop_on_thread(xffi_object *obj);
int cross_weak_is_alive(xffi_weak *weak);
int cross_make_failing_function(xffi_object **out);
int cross_call_expect_error(xffi_object *func, char *kind, char *message, size_t size);
int cross_make_c_add(xffi_object **out);
int cross_make_c_add_direct(xffi_object **out);
int cross_call_loop(int64_t *out_sum, xffi_object *func, int64_t iterations);

#endif
