/* The field-name index under concurrency: readers look fields up by name,
 * lock-free, while a writer keeps adding fields (each addition rebuilds the
 * index and may move the field array). Every field a reader has seen
 * counted must be found, at its offset. Run under ThreadSanitizer (label
 * threads). */
#include "test_util.h"
#include "thread_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <xffi/reflection.h>

enum { FIELDS = 300, READERS = 3 };

static char names[FIELDS][24];
static int32_t type_index;
static atomic_int writer_done;

static void *writer(void *arg) {
  (void)arg;
  for (int i = 0; i < FIELDS; ++i) {
    xffi_field_info f;
    memset(&f, 0, sizeof(f));
    f.name.data = names[i];
    f.name.size = strlen(names[i]);
    f.size = f.alignment = 8;
    f.offset = 24 + 8 * (int64_t)i;
    f.field_static_type_index = XFFI_TYPE_INT;
    CHECK(xffi_field_getter_for_type(&f.getter, XFFI_TYPE_INT) == XFFI_OK);
    CHECK(xffi_type_register_field(type_index, &f) == XFFI_OK);
  }
  atomic_store(&writer_done, 1);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  const xffi_type_info *info = NULL;
  CHECK(xffi_type_info_get(&info, type_index) == XFFI_OK);
  int done;
  do {
    done = atomic_load(&writer_done);
    int32_t seen = __atomic_load_n(&info->num_fields, __ATOMIC_ACQUIRE);
    for (int32_t i = seen - 1; i >= 0 && i >= seen - 16; --i) { /* the newest ones: the likeliest to race */
      const xffi_field_info *found = NULL;
      CHECK(xffi_type_find_field(&found, type_index, names[i]) == XFFI_OK);
      CHECK(found && found->offset == 24 + 8 * (int64_t)i);
    }
  } while (!done);
  return NULL;
}

static void test_lookups_while_fields_are_added(void **state) {
  (void)state;
  for (int i = 0; i < FIELDS; ++i) snprintf(names[i], sizeof(names[i]), "f%d", i);
  assert_int_equal(xffi_type_register(&type_index, "test.index_threads.Growing", XFFI_TYPE_OBJECT), XFFI_OK);
  assert_int_equal(run_writer_beside_readers(writer, reader, READERS), 0);
  assert_int_equal(atomic_load(&failures), 0);
  const xffi_field_info *found = NULL;
  assert_int_equal(xffi_type_find_field(&found, type_index, names[FIELDS - 1]), XFFI_OK);
  assert_non_null(found);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lookups_while_fields_are_added),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
