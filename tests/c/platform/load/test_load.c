/* Loading libxffi does no work: no heap allocation while the dynamic loader
 * maps it and runs its initialisers, no initialiser of its own, and the first
 * calls initialise lazily.
 *
 * "No allocation" means: dlopen of libxffi.so costs exactly the allocations
 * that dlopen of libtest_load_baseline.so costs, an empty library with
 * libxffi's shape (SONAME, libc and ld-linux as dependencies, TLS of both
 * models; see load_baseline_lib.c). The loader itself allocates for any such
 * library, so the count is not 0, and the test requires it to be above 0:
 * otherwise the counter is not seeing the loader and proves nothing. The
 * negative control, libtest_load_ctor_control.so, is the baseline plus a
 * constructor that allocates once, and must come out one allocation and one
 * initialiser above the baseline.
 *
 * Allocations are counted by an exported malloc family in plain builds, and
 * by the sanitizer allocator's hooks under ASan/TSan (whose runtime owns
 * malloc); the comparison is strict in every build. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

#if defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer) || \
      __has_feature(hwaddress_sanitizer)
#    define LOAD_SANITIZER_ALLOCATOR 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(__SANITIZE_HWADDRESS__)
#  undef LOAD_SANITIZER_ALLOCATOR
#  define LOAD_SANITIZER_ALLOCATOR 1
#endif

/* Every heap allocation in the process, whoever makes it: this program, libc,
 * the dynamic loader (dlopen), or a constructor of the library being loaded. */
static _Atomic long allocations;

#ifndef LOAD_SANITIZER_ALLOCATOR
/* This program's malloc family counts calls, then defers to glibc. The
 * default visibility matters: the project builds with hidden visibility, and
 * a hidden malloc stays out of the executable's dynamic symbol table, so
 * libc, the loader and loaded libraries would never call it (every count
 * would be 0). Exported, it interposes malloc for the whole process. */
#  define LOAD_EXPORT __attribute__((visibility("default")))
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);
void *memalign(size_t alignment, size_t size); /* <malloc.h>, not C11 */
LOAD_EXPORT void *malloc(size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_malloc(size);
}
LOAD_EXPORT void *calloc(size_t count, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_calloc(count, size);
}
LOAD_EXPORT void *realloc(void *ptr, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_realloc(ptr, size);
}
LOAD_EXPORT void *memalign(size_t alignment, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_memalign(alignment, size);
}
LOAD_EXPORT void *aligned_alloc(size_t alignment, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_memalign(alignment, size);
}
LOAD_EXPORT int posix_memalign(void **out, size_t alignment, size_t size) {
  atomic_fetch_add(&allocations, 1);
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void *p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
LOAD_EXPORT void free(void *ptr) { __libc_free(ptr); }
static int install_counter(void) { return 1; }
#  define COUNTER_KIND "exported malloc family"
#else
/* A sanitizer's runtime owns malloc (its interceptors would lose to ours,
 * and its free would then reject glibc's blocks), so count through the
 * sanitizer allocator's own hooks instead: it calls them on every allocation
 * in the process, the loader's included. Declared here because GCC ships no
 * <sanitizer/allocator_interface.h>. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void count_allocation(const volatile void *ptr, size_t size) {
  (void)ptr;
  (void)size;
  atomic_fetch_add(&allocations, 1);
}
static void ignore_free(const volatile void *ptr) { (void)ptr; }
static int install_counter(void) {
  return __sanitizer_install_malloc_and_free_hooks(count_allocation, ignore_free) > 0;
}
#  define COUNTER_KIND "sanitizer allocator hooks"
#endif

/* The name of the function at `offset` in the ELF image `file` (from its
 * .symtab, which holds local symbols such as constructors), or "?". */
static const char *function_name(const unsigned char *file, ElfW(Addr) offset) {
  const ElfW(Ehdr) *eh = (const void *)file;
  const ElfW(Shdr) *sh = (const void *)(file + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
    const ElfW(Sym) *sym = (const void *)(file + sh[i].sh_offset);
    const ElfW(Shdr) *strtab = &sh[sh[i].sh_link];
    const char *names = (const char *)(file + strtab->sh_offset);
    size_t count = sh[i].sh_size / sizeof(ElfW(Sym));
    for (size_t k = 0; k < count; k++) {
      int is_function = ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC; /* the same macro for ELF32 */
      if (is_function && sym[k].st_value == offset && sym[k].st_name < strtab->sh_size) {
        return names + sym[k].st_name;
      }
    }
  }
  return "?";
}

/* Sanitizers give every instrumented translation unit a constructor
 * (asan.module_ctor and the like): the toolchain's, not the library's. */
static int is_sanitizer_initialiser(const char *name) {
  const char *dot = strchr(name, '.');
  return dot && strncmp(dot, ".module_ctor", 12) == 0;
}

typedef struct {
  long count;           /* initialisers the loader runs, sanitizers' aside */
  long sanitizer_count; /* sanitizers' module constructors */
  char names[160];      /* the counted ones, by name */
} initialiser_list;

/* What the loader runs when it loads the library `handle` from `path`:
 * DT_INIT (crti's _init), and every entry of the init arrays, named from
 * the file's symbol table. Every library built by this toolchain has some
 * (crtbegin's frame_dummy), so only the comparison with the baseline says
 * whether a library adds its own. count is -1 if they cannot be read. */
static initialiser_list find_initialisers(void *handle, const char *path) {
  initialiser_list found;
  memset(&found, 0, sizeof(found));
  found.count = -1;
  struct link_map *map = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return found;
  long dynamic_array_entries = 0, count = 0;
  for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
    if (d->d_tag == DT_INIT) {
      count += 1;
      snprintf(found.names, sizeof(found.names), "_init");
    }
    if (d->d_tag == DT_INIT_ARRAYSZ || d->d_tag == DT_PREINIT_ARRAYSZ) {
      dynamic_array_entries += (long)(d->d_un.d_val / sizeof(void *));
    }
  }
  int fd = open(path, O_RDONLY);
  if (fd < 0) return found;
  struct stat st;
  void *image = fstat(fd, &st) == 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (image == MAP_FAILED) return found;
  const unsigned char *file = image;
  const ElfW(Ehdr) *eh = image;
  if ((size_t)st.st_size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > (size_t)st.st_size) {
    munmap(image, (size_t)st.st_size);
    return found;
  }
  const ElfW(Shdr) *sh = (const void *)(file + eh->e_shoff);
  long file_array_entries = 0;
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_INIT_ARRAY && sh[i].sh_type != SHT_PREINIT_ARRAY) continue;
    /* The loaded copy holds the relocated addresses. */
    const ElfW(Addr) *entry = (const ElfW(Addr) *)(map->l_addr + sh[i].sh_addr);
    size_t entries = sh[i].sh_size / sizeof(ElfW(Addr));
    file_array_entries += (long)entries;
    for (size_t k = 0; k < entries; k++) {
      const char *name = function_name(file, entry[k] - map->l_addr);
      if (is_sanitizer_initialiser(name)) {
        found.sanitizer_count++;
        continue;
      }
      count++;
      size_t used = strlen(found.names);
      snprintf(found.names + used, sizeof(found.names) - used, "%s%s", used ? " " : "", name);
    }
  }
  munmap(image, (size_t)st.st_size);
  /* The sections found in the file are the arrays the loader runs. */
  if (file_array_entries == dynamic_array_entries) found.count = count;
  return found;
}

typedef struct {
  long allocations;              /* during dlopen */
  initialiser_list initialisers; /* see find_initialisers */
  char error[200];               /* dlerror(), empty when the load worked */
} load_cost;

/* Loads `path` in a child forked from this process, so that every library
 * starts from the same loader state (a first dlopen in a process costs more
 * than later ones, and dlclose does not undo everything), and reports what
 * the load cost. */
static load_cost measure_load(const char *path) {
  load_cost cost;
  memset(&cost, 0, sizeof(cost));
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    long before = atomic_load(&allocations);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cost.allocations = atomic_load(&allocations) - before;
    if (handle) {
      cost.initialisers = find_initialisers(handle, path);
    } else {
      snprintf(cost.error, sizeof(cost.error), "%s", dlerror());
    }
    ssize_t written = write(fds[1], &cost, sizeof(cost));
    _exit(written == (ssize_t)sizeof(cost) ? 0 : 1);
  }
  close(fds[1]);
  ssize_t got = read(fds[0], &cost, sizeof(cost));
  close(fds[0]);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  assert_int_equal(got, (ssize_t)sizeof(cost));
  if (cost.error[0]) fail_msg("dlopen %s: %s", path, cost.error);
  return cost;
}

static void test_dlopen_allocates_and_initialises_exactly_what_an_empty_library_like_it_does(void **state) {
  (void)state;
  load_cost baseline = measure_load(XFFI_TEST_BASELINE_LIB);
  load_cost xffi = measure_load(XFFI_TEST_SHARED_LIB);
  load_cost control = measure_load(XFFI_TEST_CTOR_CONTROL_LIB);
  print_message("counting with the %s\n", COUNTER_KIND);
  print_message("dlopen allocations: baseline %ld, libxffi %ld, control (constructor allocates once) %ld\n",
                baseline.allocations, xffi.allocations, control.allocations);
  const initialiser_list *base = &baseline.initialisers, *mine = &xffi.initialisers, *ctrl = &control.initialisers;
  print_message(
      "initialisers: baseline %ld (%s), libxffi %ld (%s), control %ld (%s); sanitizer module constructors "
      "left aside: %ld, %ld, %ld\n",
      base->count, base->names, mine->count, mine->names, ctrl->count, ctrl->names, base->sanitizer_count,
      mine->sanitizer_count, ctrl->sanitizer_count);

  /* The counter sees the loader's allocations, and the control's. */
  if (baseline.allocations <= 0) fail_msg("the counter saw no allocation in dlopen: it is not counting the loader");
  if (control.allocations != baseline.allocations + 1) {
    fail_msg("the control's constructor allocates once, but its dlopen made %ld allocations, the baseline's %ld",
             control.allocations, baseline.allocations);
  }
  /* libxffi adds none. */
  if (xffi.allocations != baseline.allocations) {
    fail_msg("dlopen of libxffi made %ld allocations, of an empty library like it %ld", xffi.allocations,
             baseline.allocations);
  }

  /* No constructor of libxffi's own: the same initialisers as the baseline
   * (the toolchain's), where the control's constructor shows up as one more. */
  if (base->count < 0 || mine->count < 0 || ctrl->count < 0) fail_msg("could not read the initialisers");
  if (ctrl->count != base->count + 1) {
    fail_msg("the control runs %ld initialisers (%s), the baseline %ld (%s): its constructor is not seen", ctrl->count,
             ctrl->names, base->count, base->names);
  }
  if (mine->count != base->count) {
    fail_msg("libxffi runs %ld initialisers (%s), an empty library %ld (%s)", mine->count, mine->names, base->count,
             base->names);
  }
}

static void test_built_in_type_lookup_after_load_allocates_nothing(void **state) {
  (void)state;
  void *lib = dlopen(XFFI_TEST_SHARED_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail_msg("dlopen: %s", dlerror());
  /* Built-in types need no initialisation at all: looking one up allocates nothing. */
  int (*info_get)(const xffi_type_info **, int32_t) = NULL;
  void *symbol = dlsym(lib, "xffi_type_info_get");
  assert_non_null(symbol);
  memcpy(&info_get, &symbol, sizeof(symbol)); /* POSIX: object to function pointer */
  const xffi_type_info *info = NULL;
  long before = atomic_load(&allocations);
  assert_int_equal(info_get(&info, XFFI_TYPE_STRING), XFFI_OK);
  long cost = atomic_load(&allocations) - before;
  assert_string_equal(info->type_key.data, "ffi.String");
  assert_int_equal(cost, 0);
  dlclose(lib);
}

int main(void) {
  if (!install_counter()) {
    fprintf(stderr, "test_load: cannot install the allocation counter (%s)\n", COUNTER_KIND);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dlopen_allocates_and_initialises_exactly_what_an_empty_library_like_it_does),
      cmocka_unit_test(test_built_in_type_lookup_after_load_allocates_nothing),
  };
  return cmocka_run_group_tests_name("load", tests, NULL, NULL);
}
