/* c/lib/module/module_registry.c: the process-wide tables of the module side:
 * - context symbols (TVMFFIEnvModRegisterContextSymbol): (name, address)
 *   pairs written into the `void*` variable `name` of every library loaded
 *   afterwards;
 * - the system library (TVMFFIEnvModRegisterSystemLibSymbol): name ->
 *   address (c/runtime/name_table.h), and one Module per prefix
 *   (ffi.SystemLib), made once and kept for the process's life;
 * - the modules kept alive (ffi.ModuleGlobalsAdd / Remove).
 * Each table has its own lock and grows by doubling; names are copied. Like
 * tvm-ffi's, the tables live as long as the process. Nothing here runs at
 * load: the tables start empty and static. */
#include <string.h>

#include "runtime/internal.h"
#include "lib/module/module_internal.h"
#include "lib/module/module_cxx.h"
#include "runtime/name_table.h"
#include "platform/platform.h"

typedef struct named_address {
  char *name;
  void *address;
} named_address;

typedef struct name_table {
  xffi_mutex lock;
  named_address *entries;
  size_t count, capacity;
} name_table;

static name_table context_symbols = {XFFI_MUTEX_INITIALIZER, NULL, 0, 0};

/* Room for one more entry (the table's lock held). */
static int table_reserve(name_table *t) {
  if (t->count < t->capacity) return 1;
  if (t->capacity > SIZE_MAX / 4 / sizeof *t->entries) return 0;
  size_t grown = t->capacity ? t->capacity * 2 : 16;
  named_address *bigger = xffi_realloc(t->entries, grown * sizeof *bigger);
  if (!bigger) return 0;
  t->entries = bigger;
  t->capacity = grown;
  return 1;
}

static char *copy_name(const char *name) {
  size_t len = strlen(name);
  char *copy = xffi_alloc(len + 1);
  if (copy) memcpy(copy, name, len + 1);
  return copy;
}

int xffi_context_symbol_register(const char *name, void *symbol) {
  char *copy = copy_name(name);
  if (!copy) return xffi_error_raise_out_of_memory();
  xffi_mutex_lock(&context_symbols.lock);
  int room = table_reserve(&context_symbols);
  if (room) context_symbols.entries[context_symbols.count++] = (named_address){copy, symbol};
  xffi_mutex_unlock(&context_symbols.lock);
  if (room) return XFFI_OK;
  xffi_free(copy);
  return xffi_error_raise_out_of_memory();
}

int xffi_context_symbols_visit(int (*visit)(void *payload, const char *name, void *address), void *payload) {
  xffi_mutex_lock(&context_symbols.lock);
  size_t count = context_symbols.count;
  xffi_mutex_unlock(&context_symbols.lock);
  /* Entries are only appended, never moved out of [0, count) except by a
   * growth, so read each under the lock but visit it unlocked (dlsym may
   * wait for a loader that runs constructors calling back in here; a
   * visitor may register more). */
  for (size_t i = 0; i < count; ++i) {
    xffi_mutex_lock(&context_symbols.lock);
    named_address entry = context_symbols.entries[i];
    xffi_mutex_unlock(&context_symbols.lock);
    int status = visit(payload, entry.name, entry.address);
    if (status != 0) return status;
  }
  return 0;
}

/* The system library's table (c/runtime/name_table.h: registering n symbols costs
 * O(n) whatever the names). */
static xffi_mutex system_symbols_lock = XFFI_MUTEX_INITIALIZER;
static xffi_name_table system_symbols; /* guarded by system_symbols_lock */

int xffi_system_lib_register(const char *name, void *symbol) {
  void *previous;
  xffi_mutex_lock(&system_symbols_lock);
  /* tvm-ffi: a later address for a known name wins. */
  int stored = xffi_name_table_put(&system_symbols, name, strlen(name), symbol, &previous);
  xffi_mutex_unlock(&system_symbols_lock);
  return stored ? XFFI_OK : xffi_error_raise_out_of_memory();
}

void *xffi_system_lib_symbol(const char *name) {
  xffi_mutex_lock(&system_symbols_lock);
  void *address = xffi_name_table_find(&system_symbols, name, strlen(name));
  xffi_mutex_unlock(&system_symbols_lock);
  return address;
}

/* ---- The system-library modules, one per prefix ---- */

typedef struct module_list {
  xffi_mutex lock;
  xffi_object **modules; /* strong references */
  size_t count, capacity;
} module_list;

static module_list system_modules = {XFFI_MUTEX_INITIALIZER, NULL, 0, 0};
static module_list kept_modules = {XFFI_MUTEX_INITIALIZER, NULL, 0, 0};

static int list_reserve(module_list *list) {
  if (list->count < list->capacity) return 1;
  if (list->capacity > SIZE_MAX / 4 / sizeof *list->modules) return 0;
  size_t grown = list->capacity ? list->capacity * 2 : 4;
  xffi_object **bigger = xffi_realloc(list->modules, grown * sizeof *bigger);
  if (!bigger) return 0;
  list->modules = bigger;
  list->capacity = grown;
  return 1;
}

/* The system module of prefix already made, as a new reference, or NULL
 * (the list's lock held). */
static xffi_object *system_module_find(const char *prefix, size_t prefix_len) {
  for (size_t i = 0; i < system_modules.count; ++i) {
    const char *path;
    xffi_module_path(&path, system_modules.modules[i]);
    if (strlen(path) == prefix_len && memcmp(path, prefix, prefix_len) == 0) {
      xffi_object_inc_ref(system_modules.modules[i]);
      return system_modules.modules[i];
    }
  }
  return NULL;
}

int xffi_system_lib_module(xffi_object **out, const char *prefix, size_t prefix_len) {
  *out = NULL;
  /* Made under the lock, so each prefix has one module (making one reads
   * only the symbol tables, whose locks are others). */
  xffi_mutex_lock(&system_modules.lock);
  xffi_object *module = system_module_find(prefix, prefix_len);
  int status = XFFI_OK;
  if (!module) {
    if (!list_reserve(&system_modules)) {
      status = xffi_error_raise_out_of_memory();
    } else {
      status = xffi_module_new_library(&module, XFFI_MODULE_SYSTEM_LIBRARY, NULL, prefix, 0);
      if (status == XFFI_OK) {
        system_modules.modules[system_modules.count++] = module;
        xffi_object_inc_ref(module);
      }
    }
  }
  xffi_mutex_unlock(&system_modules.lock);
  *out = module;
  return status;
}

/* ---- Modules kept alive ---- */

int xffi_module_globals_add(xffi_object *module) {
  int status = XFFI_OK;
  xffi_mutex_lock(&kept_modules.lock);
  size_t i = 0;
  while (i < kept_modules.count && kept_modules.modules[i] != module) ++i;
  if (i == kept_modules.count) {
    if (list_reserve(&kept_modules)) {
      xffi_object_inc_ref(module);
      kept_modules.modules[kept_modules.count++] = module;
    } else {
      status = XFFI_FAIL;
    }
  }
  xffi_mutex_unlock(&kept_modules.lock);
  return status == XFFI_OK ? XFFI_OK : xffi_error_raise_out_of_memory();
}

int xffi_module_globals_remove(xffi_object *module) {
  xffi_object *removed = NULL;
  xffi_mutex_lock(&kept_modules.lock);
  for (size_t i = 0; i < kept_modules.count; ++i) {
    if (kept_modules.modules[i] == module) {
      removed = module;
      kept_modules.modules[i] = kept_modules.modules[--kept_modules.count];
      break;
    }
  }
  xffi_mutex_unlock(&kept_modules.lock);
  /* Released unlocked: the module may die here and close its library. */
  if (removed) xffi_object_dec_ref(removed);
  return XFFI_OK;
}
