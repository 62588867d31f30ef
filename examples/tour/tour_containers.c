/* The tour, containers: Array (a value, copy-on-write), List (shared and
 * mutable), Map (a value) and Dict (shared), nesting, and their errors. */
#include <stdio.h>
#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/xffi.h>

#include "tour.h"

static void show(const char *label, xffi_object *obj) {
  xffi_any v = xffi_any_object(obj);
  printf("  %-28s ", label);
  tour_print_any(&v);
  printf("\n");
}

void tour_containers(void) {
  tour_heading("Containers: Array and List");
  xffi_any items[3] = {xffi_any_int(1), xffi_any_c_str("two"), xffi_any_float(3.0)};
  xffi_object *array = NULL;
  if (xffi_array_new(&array, items, 3) != XFFI_OK) return;
  show("a = Array(1, \"two\", 3.0)", array);

  /* An Array is a value: changing a shared one copies it first. */
  xffi_object *b = array;
  xffi_object_inc_ref(b);
  xffi_any four = xffi_any_int(4);
  xffi_array_push(&b, &four);
  show("b = a; push(&b, 4): a", array);
  show("                    b", b);
  printf("  %-28s %s\n", "b is a new array?", b != array ? "yes (a was shared)" : "no");
  xffi_object *before = b;
  xffi_array_push(&b, &four);
  printf("  %-28s %s\n", "push(&b, 4) again in place?", b == before ? "yes (b is unique)" : "no");

  /* A List is shared: every holder sees the change. */
  xffi_object *list = NULL;
  xffi_list_new(&list, items, 2);
  xffi_object *alias = list;
  xffi_object_inc_ref(alias);
  xffi_any yes = xffi_any_bool(1);
  xffi_list_push(list, &yes);
  show("list after push(list, true)", alias);
  xffi_object_dec_ref(alias);

  xffi_any got = xffi_any_none();
  if (xffi_array_get(&got, array, 10) != XFFI_OK) tour_show_error("xffi_array_get(a, 10)", 28);
  if (xffi_list_pop(&got, b) != XFFI_OK) tour_show_error("xffi_list_pop(b)", 28);

  tour_heading("Containers: Map and Dict");
  xffi_object *dict = NULL;
  xffi_dict_new(&dict, NULL, NULL, 0);
  const char *names[] = {"zeta", "alpha", "a name longer than seven"};
  for (int i = 0; i < 3; ++i) {
    xffi_any k = xffi_any_c_str(names[i]), v = xffi_any_int(i);
    xffi_dict_set(dict, &k, &v);
  }
  show("dict (insertion order)", dict);
  xffi_object *key_obj = NULL;
  xffi_string_from_c_str(&key_obj, "alpha");
  xffi_any key = xffi_any_object(key_obj);
  const xffi_any *found = NULL;
  xffi_map_lookup(&found, dict, &key);
  printf("  %-28s %lld (a String object finds a small-string key)\n", "dict[String(\"alpha\")]",
         found ? (long long)found->v_int64 : -1LL);
  xffi_object_dec_ref(key_obj);
  xffi_any one = xffi_any_int(1), one_f = xffi_any_float(1.0);
  xffi_dict_set(dict, &one, &one);
  int has = 0;
  xffi_map_contains(&has, dict, &one_f);
  printf("  %-28s %s (int, bool and float keys are distinct)\n", "1.0 in dict after dict[1]=1?", has ? "yes" : "no");
  xffi_dict_erase(dict, &one);
  xffi_any missing = xffi_any_c_str("beta");
  if (xffi_map_get(&got, dict, &missing) != XFFI_OK) tour_show_error("xffi_map_get(dict, \"beta\")", 28);

  /* A Map is a value, like an Array; and everything nests. */
  xffi_object *map = NULL;
  xffi_map_copy(&map, dict);
  xffi_any k_arr = xffi_any_c_str("array"), v_arr = xffi_any_object(array);
  xffi_any k_list = xffi_any_c_str("list"), v_list = xffi_any_object(list);
  xffi_map_set(&map, &k_arr, &v_arr);
  xffi_map_set(&map, &k_list, &v_list);
  show("nested map", map);
  size_t bytes = 0;
  xffi_map_memory_bytes(&bytes, map);
  printf("  %-28s %zu bytes for %d entries\n", "memory of the map", bytes, 5);

  xffi_object_dec_ref(map);
  xffi_object_dec_ref(dict);
  xffi_object_dec_ref(list);
  xffi_object_dec_ref(b);
  xffi_object_dec_ref(array);
}
