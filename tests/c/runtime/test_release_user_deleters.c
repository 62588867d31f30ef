/* tests/c/runtime/test_release_user_deleters.c: a user's C type whose deleter
 * releases its fields brackets that with xffi_object_release_begin/_end
 * (xffi/sys/object.h), so freeing the head of a 10^6-long chain uses bounded
 * stack: on a thread with a 256 KiB stack, with one deleter or with 100
 * distinct ones (more than any fixed table of deleters would hold), mixed
 * with the library's containers, and with weak references to links.
 * LeakSanitizer (the ASan build) checks that every link is freed. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "test_values.h"
#if XFFI_TEST_HAVE_THREADS
#  include <pthread.h>
#endif

#include <xffi/array.h>
#include <xffi/sys/object.h>

enum { DEPTH = 1000000, KINDS = 100 };
#define SMALL_STACK_BYTES ((size_t)256 * 1024)

/* A link of a chain: next is owned (NULL ends it). */
typedef struct link {
  xffi_object header;
  xffi_object *next;
} link;

static int32_t link_type = -1;
static long links_alive; /* links made minus links whose memory was freed */

/* The body every link deleter shares; deleter is the calling deleter itself. */
static void link_delete(void *self, int flags, xffi_deleter deleter) {
  if (flags & XFFI_DELETE_CONTENTS) {
    if (xffi_object_release_begin(self, flags, deleter)) return; /* parked: called again */
    link *l = self;
    xffi_object *next = l->next;
    l->next = NULL;
    if (next) xffi_object_dec_ref(next);
    xffi_object_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) {
    free(self);
    --links_alive;
  }
}

/* KINDS distinct deleter functions, all with the same body. */
/* clang-format off */
#define LINK_DELETER(n) \
  static void link_deleter_##n(void *self, int flags) { link_delete(self, flags, link_deleter_##n); }
#define TEN_DELETERS(t) \
  LINK_DELETER(t##0) LINK_DELETER(t##1) LINK_DELETER(t##2) LINK_DELETER(t##3) LINK_DELETER(t##4) \
  LINK_DELETER(t##5) LINK_DELETER(t##6) LINK_DELETER(t##7) LINK_DELETER(t##8) LINK_DELETER(t##9)
TEN_DELETERS(0)
TEN_DELETERS(1)
TEN_DELETERS(2)
TEN_DELETERS(3)
TEN_DELETERS(4)
TEN_DELETERS(5)
TEN_DELETERS(6)
TEN_DELETERS(7)
TEN_DELETERS(8)
TEN_DELETERS(9)
#define TEN_NAMES(t) \
  link_deleter_##t##0, link_deleter_##t##1, link_deleter_##t##2, link_deleter_##t##3, link_deleter_##t##4, \
  link_deleter_##t##5, link_deleter_##t##6, link_deleter_##t##7, link_deleter_##t##8, link_deleter_##t##9
static const xffi_deleter link_deleters[KINDS] = {
  TEN_NAMES(0), TEN_NAMES(1), TEN_NAMES(2), TEN_NAMES(3), TEN_NAMES(4),
  TEN_NAMES(5), TEN_NAMES(6), TEN_NAMES(7), TEN_NAMES(8), TEN_NAMES(9)};
/* clang-format on */

/* A new link (new reference) holding next (stolen; may be NULL), deleted by deleter. */
static xffi_object *link_new(xffi_object *next, xffi_deleter deleter) {
  link *l = calloc(1, sizeof *l);
  assert_non_null(l);
  xffi_object_init(&l->header, link_type, deleter);
  l->next = next;
  ++links_alive;
  return &l->header;
}

static void *drop_here(void *obj) {
  xffi_object_dec_ref(obj);
  return NULL;
}

/* Releases obj (stolen) on a new thread whose stack is SMALL_STACK_BYTES
 * (without threads, on this thread). */
static void drop_on_small_stack(xffi_object *obj) {
#if !XFFI_TEST_HAVE_THREADS
  drop_here(obj);
#else
  pthread_attr_t attr;
  pthread_t thread;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, SMALL_STACK_BYTES), 0);
  assert_int_equal(pthread_create(&thread, &attr, drop_here, obj), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
  pthread_attr_destroy(&attr);
#endif
}

static int setup(void **state) {
  (void)state;
  if (link_type < 0 && xffi_type_register(&link_type, "test.release.UserLink", XFFI_TYPE_OBJECT) != XFFI_OK) return -1;
  return 0;
}

static void test_a_deep_chain_of_one_user_type_releases_on_small_stack(void **state) {
  (void)state;
  xffi_object *head = NULL;
  for (int i = 0; i < DEPTH; ++i) head = link_new(head, link_deleters[0]);
  assert_int_equal(links_alive, DEPTH);
  drop_on_small_stack(head);
  assert_int_equal(links_alive, 0);
}

/* 100 distinct deleters: first in turn, link by link, then in runs of
 * 10^4 links each (a fixed table of deleters would have filled up before
 * the later runs, and each of them would recurse 10^4 deep). */
static void test_a_deep_chain_of_100_distinct_deleters_releases_on_small_stack(void **state) {
  (void)state;
  xffi_object *head = NULL;
  for (int i = 0; i < DEPTH; ++i) head = link_new(head, link_deleters[i % KINDS]);
  drop_on_small_stack(head);
  assert_int_equal(links_alive, 0);
  head = NULL;
  for (int i = 0; i < DEPTH; ++i) head = link_new(head, link_deleters[i / (DEPTH / KINDS)]);
  drop_on_small_stack(head);
  assert_int_equal(links_alive, 0);
}

/* Links and the library's Lists alternate: both brackets are one. */
static void test_user_links_and_library_lists_nest_on_small_stack(void **state) {
  (void)state;
  xffi_object *head = NULL;
  for (int i = 0; i < DEPTH / 2; ++i) head = list_holding(link_new(head, link_deleters[i % KINDS]));
  drop_on_small_stack(head);
  assert_int_equal(links_alive, 0);
}

/* A wide release: one List holding 10^5 chains of 10 links each (all parked
 * at once while the List's deleter runs), released twice on one thread so
 * the second reuses or regrows the parked room. */
static void test_many_parked_at_once(void **state) {
  (void)state;
  for (int round = 0; round < 2; ++round) {
    xffi_object *list = NULL;
    assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
    for (int c = 0; c < 100000; ++c) {
      xffi_object *chain = NULL;
      for (int i = 0; i < 10; ++i) chain = link_new(chain, link_deleters[(c + i) % KINDS]);
      xffi_any item = xffi_any_object(chain);
      assert_int_equal(xffi_list_push(list, &item), XFFI_OK);
      xffi_object_dec_ref(chain);
    }
    xffi_object_dec_ref(list);
    assert_int_equal(links_alive, 0);
  }
}

/* A parked link with a weak reference keeps its memory until the weak one
 * goes; its contents (the rest of the chain) are released with the chain. */
static void test_weak_references_to_parked_links(void **state) {
  (void)state;
  xffi_object *head = NULL, *watched = NULL;
  for (int i = 0; i < 1000; ++i) {
    head = link_new(head, link_deleters[i % KINDS]);
    if (i == 500) watched = head;
  }
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(&weak, watched), XFFI_OK);
  xffi_object_dec_ref(head);
  assert_int_equal(links_alive, 1); /* the watched link's memory */
  assert_null(((link *)watched)->next);
  xffi_object *locked = head;
  assert_int_equal(xffi_weak_lock(&locked, weak), XFFI_OK);
  assert_null(locked);
  xffi_weak_release(weak);
  assert_int_equal(links_alive, 0);
}

/* Bad input: NULL self or deleter is an unparked bracket (the release goes
 * on in place, release_end still follows); a stray release_end does nothing. */
static void test_null_arguments_and_a_stray_end_are_harmless(void **state) {
  (void)state;
  xffi_object_release_end(); /* nothing begun */
  assert_int_equal(xffi_object_release_begin(NULL, XFFI_DELETE_CONTENTS, link_deleters[0]), 0);
  xffi_object *one = link_new(NULL, link_deleters[1]);
  assert_int_equal(xffi_object_release_begin(one, XFFI_DELETE_CONTENTS, NULL), 0);
  xffi_object_release_end();
  xffi_object_release_end();
  xffi_object_release_end(); /* one too many */
  /* The bracket is balanced: a chain still releases (and parks) normally. */
  xffi_object_dec_ref(one);
  xffi_object *head = NULL;
  for (int i = 0; i < DEPTH; ++i) head = link_new(head, link_deleters[i % KINDS]);
  drop_on_small_stack(head);
  assert_int_equal(links_alive, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_deep_chain_of_one_user_type_releases_on_small_stack),
      cmocka_unit_test(test_a_deep_chain_of_100_distinct_deleters_releases_on_small_stack),
      cmocka_unit_test(test_user_links_and_library_lists_nest_on_small_stack),
      cmocka_unit_test(test_many_parked_at_once),
      cmocka_unit_test(test_weak_references_to_parked_links),
      cmocka_unit_test(test_null_arguments_and_a_stray_end_are_harmless),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
