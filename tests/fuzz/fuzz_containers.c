/* Fuzz target: sequences of Array, List, Map and Dict operations checked
 * against a reference model after every step.
 *
 * Values come from a small domain of ids so that keys repeat: ints, short
 * strings (inline), long strings (String objects) given either as borrowed C
 * strings or as String objects (the same key either way), and the floats
 * 0.0, -0.0 and two NaNs (four keys: tvm-ffi compares floats by bits). The
 * order follows tvm-ffi's rules: a set of an existing key keeps its place in
 * a small map and moves it to the end once the map is dense (it became so
 * when a 5th key came; only a fresh empty map is small again). Snapshots (extra
 * references taken along the way) check copy-on-write: a shared Array or Map
 * never changes under its other holders. Indices go out of range on purpose:
 * the model predicts IndexError and KeyError. Malformed keys and values
 * (fuzz_malformed_value) must give ValueError and change nothing. */
#include <math.h>

#include "fuzz_common.h"

enum { IDS = 52, MAX_SEQ = 64, MAX_MAP = IDS };

/* Canonical key of an id: every id is its own key (floats by bits). */
static int canon(int id) { return id; }

typedef struct domain {
  xffi_object *strings[IDS]; /* String objects for the long-string ids */
  char text[IDS][40];
} domain;

static xffi_any value_of(domain *d, int id, int as_object) {
  if (id < 16) return xffi_any_int(id);
  if (id < 48) {
    if (id >= 32 && as_object) return xffi_any_object(d->strings[id]);
    return xffi_any_c_str(d->text[id]);
  }
  if (id == 48) return xffi_any_float(0.0);
  if (id == 49) return xffi_any_float(-0.0);
  double nan = NAN;
  if (id == 51) nan = -nan;
  return xffi_any_float(nan);
}

/* The canonical id a stored value stands for, or -1. */
static int id_of(domain *d, const xffi_any *v) {
  if (v->type_index == XFFI_TYPE_INT) return v->v_int64 >= 0 && v->v_int64 < 16 ? (int)v->v_int64 : -1;
  if (v->type_index == XFFI_TYPE_FLOAT) {
    if (isnan(v->v_float64)) return signbit(v->v_float64) ? 51 : 50;
    return v->v_float64 == 0.0 ? (signbit(v->v_float64) ? 49 : 48) : -1;
  }
  xffi_byte_array s;
  if (v->type_index == XFFI_TYPE_RAW_STR || v->type_index == XFFI_TYPE_BYTE_ARRAY_PTR) return -1; /* never stored */
  if (xffi_any_to_str(&s, v) != XFFI_OK) {
    xffi_error_set_raised(NULL);
    return -1;
  }
  for (int id = 16; id < 48; ++id)
    if (strlen(d->text[id]) == s.size && memcmp(d->text[id], s.data, s.size) == 0) {
      /* short strings are stored inline, long ones as String objects */
      FUZZ_CHECK(v->type_index == (id < 32 ? XFFI_TYPE_SMALL_STR : XFFI_TYPE_STRING));
      return id;
    }
  return -1;
}

typedef struct seq_model {
  int ids[MAX_SEQ];
  int64_t size;
} seq_model;

typedef struct map_model {
  int keys[MAX_MAP], vals[MAX_MAP]; /* insertion order */
  int size;
  int dense; /* tvm-ffi's dense layout: an overwrite moves the key to the end */
} map_model;

static int map_find(const map_model *m, int key) {
  for (int i = 0; i < m->size; ++i)
    if (m->keys[i] == canon(key)) return i;
  return -1;
}

static void map_model_erase(map_model *m, int at) {
  memmove(&m->keys[at], &m->keys[at + 1], (size_t)(m->size - at - 1) * sizeof(int));
  memmove(&m->vals[at], &m->vals[at + 1], (size_t)(m->size - at - 1) * sizeof(int));
  m->size--;
}

static void map_model_set(map_model *m, int key, int val) {
  int at = map_find(m, key);
  if (at >= 0 && m->dense) {
    map_model_erase(m, at);
    at = -1;
  } else if (at < 0 && m->size == 4) {
    m->dense = 1;
  }
  if (at < 0) {
    at = m->size++;
    m->keys[at] = canon(key);
  }
  m->vals[at] = canon(val);
}

static void check_seq(domain *d, const xffi_object *seq, const seq_model *m) {
  const xffi_any *items = NULL;
  int64_t size = -1;
  FUZZ_CHECK(xffi_array_items(&items, &size, seq) == XFFI_OK);
  FUZZ_CHECK(size == m->size);
  for (int64_t i = 0; i < size; ++i) FUZZ_CHECK(id_of(d, &items[i]) == canon(m->ids[i]));
}

static void check_map(domain *d, const xffi_object *map, const map_model *m) {
  int64_t length = -1, cursor = 0;
  FUZZ_CHECK(xffi_map_length(&length, map) == XFFI_OK && length == m->size);
  xffi_map_item item;
  int i = 0;
  while (xffi_map_next(&item, map, &cursor) == XFFI_OK && item.key) {
    FUZZ_CHECK(i < m->size);
    FUZZ_CHECK(id_of(d, item.key) == m->keys[i] && id_of(d, item.value) == m->vals[i]);
    ++i;
  }
  FUZZ_NOTHING_RAISED();
  FUZZ_CHECK(i == m->size);
}

/* A changing sequence operation on the Array (via in/out reference) or the List. */
static void seq_step(domain *d, fuzz_input *in, xffi_object **seq, seq_model *m, int is_list) {
  uint8_t op = fuzz_u8(in) % 8;
  int id = fuzz_u8(in) % IDS, as_object = fuzz_u8(in) & 1;
  int64_t index = (int8_t)fuzz_u8(in) % 70;
  xffi_any v = value_of(d, id, as_object);
  const char *fn = NULL;
  int status, expect_ok = 1;
  const char *kind = XFFI_KIND_INDEX;
  switch (op) {
    case 0: /* push */
      if (m->size == MAX_SEQ) return;
      status = is_list ? xffi_list_push(*seq, &v) : xffi_array_push(seq, &v);
      fn = is_list ? "xffi_list_push" : "xffi_array_push";
      if (status == XFFI_OK) m->ids[m->size++] = id;
      break;
    case 1: { /* pop */
      xffi_any out = xffi_any_none();
      status = is_list ? xffi_list_pop(&out, *seq) : xffi_array_pop(&out, seq);
      fn = is_list ? "xffi_list_pop" : "xffi_array_pop";
      expect_ok = m->size > 0;
      if (status == XFFI_OK) FUZZ_CHECK(id_of(d, &out) == canon(m->ids[--m->size]));
      xffi_any_release(&out);
      break;
    }
    case 2: /* set */
      status = is_list ? xffi_list_set(*seq, index, &v) : xffi_array_set(seq, index, &v);
      fn = is_list ? "xffi_list_set" : "xffi_array_set";
      expect_ok = index >= 0 && index < m->size;
      if (status == XFFI_OK) m->ids[index] = id;
      break;
    case 3: /* insert */
      if (m->size == MAX_SEQ) return;
      status = is_list ? xffi_list_insert(*seq, index, &v) : xffi_array_insert(seq, index, &v);
      fn = is_list ? "xffi_list_insert" : "xffi_array_insert";
      expect_ok = index >= 0 && index <= m->size;
      if (status == XFFI_OK) {
        memmove(&m->ids[index + 1], &m->ids[index], (size_t)(m->size - index) * sizeof(int));
        m->ids[index] = id;
        m->size++;
      }
      break;
    case 4: /* erase */
      status = is_list ? xffi_list_erase(*seq, index) : xffi_array_erase(seq, index);
      fn = is_list ? "xffi_list_erase" : "xffi_array_erase";
      expect_ok = index >= 0 && index < m->size;
      if (status == XFFI_OK) {
        memmove(&m->ids[index], &m->ids[index + 1], (size_t)(m->size - index - 1) * sizeof(int));
        m->size--;
      }
      break;
    case 5: /* clear (rarely: it empties everything) */
      if (id % 4) return;
      status = is_list ? xffi_list_clear(*seq) : xffi_array_clear(seq);
      fn = "clear";
      if (status == XFFI_OK) m->size = 0;
      break;
    case 6: { /* get */
      xffi_any out = xffi_any_none();
      status = xffi_array_get(&out, *seq, index);
      fn = "xffi_array_get";
      expect_ok = index >= 0 && index < m->size;
      if (status == XFFI_OK) FUZZ_CHECK(id_of(d, &out) == canon(m->ids[index]));
      xffi_any_release(&out);
      break;
    }
    default: { /* slice [index, end) into a new Array or List */
      int64_t end = index + (int64_t)(fuzz_u8(in) % 8) - 2;
      xffi_object *part = NULL;
      status = is_list ? xffi_list_slice(&part, *seq, index, end) : xffi_array_slice(&part, *seq, index, end);
      fn = is_list ? "xffi_list_slice" : "xffi_array_slice";
      expect_ok = index >= 0 && index <= end && end <= m->size;
      if (status == XFFI_OK) {
        FUZZ_CHECK(part->type_index == (is_list ? XFFI_TYPE_LIST : XFFI_TYPE_ARRAY));
        seq_model sm;
        sm.size = end - index;
        memcpy(sm.ids, &m->ids[index], (size_t)sm.size * sizeof(int));
        check_seq(d, part, &sm);
        xffi_object_dec_ref(part);
      } else {
        FUZZ_CHECK(part == NULL);
      }
      break;
    }
  }
  if (expect_ok) {
    FUZZ_CHECK(status == XFFI_OK);
    FUZZ_NOTHING_RAISED();
  } else {
    FUZZ_CHECK(status == XFFI_FAIL);
    fuzz_expect_raised(kind, fn);
  }
}

/* Every map operation that takes a key or value, given a malformed one:
 * ValueError naming the function, and the map unchanged (the caller checks
 * it against the model). */
static void malformed_step(fuzz_input *in, xffi_object **map, int is_dict) {
  xffi_byte_array null_data;
  xffi_any bad = fuzz_malformed_value(in, &null_data), good = xffi_any_int(1), out = xffi_any_none();
  const xffi_any *found = (const xffi_any *)0x1;
  int has = -1, status;
  const char *fn;
  switch (fuzz_u8(in) % 7) {
    case 0:
      status = is_dict ? xffi_dict_set(*map, &bad, &good) : xffi_map_set(map, &bad, &good);
      fn = is_dict ? "xffi_dict_set" : "xffi_map_set";
      break;
    case 1:
      status = is_dict ? xffi_dict_set(*map, &good, &bad) : xffi_map_set(map, &good, &bad);
      fn = is_dict ? "xffi_dict_set" : "xffi_map_set";
      break;
    case 2:
      status = is_dict ? xffi_map_get(&out, *map, &bad) : xffi_map_get(&out, *map, &bad);
      fn = is_dict ? "xffi_map_get" : "xffi_map_get";
      break;
    case 3:
      status = is_dict ? xffi_map_lookup(&found, *map, &bad) : xffi_map_lookup(&found, *map, &bad);
      fn = is_dict ? "xffi_map_lookup" : "xffi_map_lookup";
      FUZZ_CHECK(found == (const xffi_any *)0x1);
      break;
    case 4:
      status = is_dict ? xffi_map_contains(&has, *map, &bad) : xffi_map_contains(&has, *map, &bad);
      fn = is_dict ? "xffi_map_contains" : "xffi_map_contains";
      FUZZ_CHECK(has == -1);
      break;
    case 5:
      status = is_dict ? xffi_dict_pop(&out, *map, &bad) : xffi_map_erase(map, &bad);
      fn = is_dict ? "xffi_dict_pop" : "xffi_map_erase";
      break;
    default: {
      xffi_object *made = (xffi_object *)0x1;
      xffi_any keys[2] = {good, bad}, values[2] = {good, good};
      status = is_dict ? xffi_dict_new(&made, keys, values, 2) : xffi_map_new(&made, keys, values, 2);
      fn = is_dict ? "xffi_dict_new" : "xffi_map_new";
      FUZZ_CHECK(made == NULL);
      break;
    }
  }
  FUZZ_CHECK(status == XFFI_FAIL && out.type_index == XFFI_TYPE_NONE);
  xffi_object *err = xffi_error_move_raised();
  FUZZ_CHECK(err != NULL && xffi_error_is_kind(err, XFFI_KIND_VALUE));
  const char *msg = xffi_error_cell_of_unchecked(err)->message.data;
  FUZZ_CHECK(strncmp(msg, fn, strlen(fn)) == 0 && strstr(msg, " is malformed: ") != NULL);
  xffi_object_dec_ref(err);
}

/* A changing map operation on the Map (via in/out reference) or the Dict. */
static void map_step(domain *d, fuzz_input *in, xffi_object **map, map_model *m, int is_dict) {
  uint8_t op = fuzz_u8(in) % 8;
  if (op == 7) {
    malformed_step(in, map, is_dict);
    return;
  }
  int key = fuzz_u8(in) % IDS, val = fuzz_u8(in) % IDS, as_object = fuzz_u8(in) & 1;
  xffi_any k = value_of(d, key, as_object), v = value_of(d, val, !as_object);
  int at = map_find(m, key);
  int status = XFFI_OK, expect_ok = 1;
  const char *fn = NULL;
  switch (op) {
    case 0:
    case 1: /* set */
      status = is_dict ? xffi_dict_set(*map, &k, &v) : xffi_map_set(map, &k, &v);
      if (status == XFFI_OK) map_model_set(m, key, val);
      break;
    case 2: /* erase */
      status = is_dict ? xffi_dict_erase(*map, &k) : xffi_map_erase(map, &k);
      fn = is_dict ? "xffi_dict_erase" : "xffi_map_erase";
      expect_ok = at >= 0;
      if (status == XFFI_OK) map_model_erase(m, at);
      break;
    case 3: { /* get / pop */
      xffi_any out = xffi_any_none();
      if (is_dict && (val & 1)) {
        status = xffi_dict_pop(&out, *map, &k);
        fn = "xffi_dict_pop";
      } else {
        status = xffi_map_get(&out, *map, &k);
        fn = "xffi_map_get";
      }
      expect_ok = at >= 0;
      if (status == XFFI_OK) {
        FUZZ_CHECK(id_of(d, &out) == m->vals[at]);
        if (is_dict && (val & 1)) map_model_erase(m, at);
      }
      xffi_any_release(&out);
      break;
    }
    case 4: { /* lookup and contains */
      const xffi_any *found = (const xffi_any *)0x1;
      int has = -1;
      FUZZ_CHECK(xffi_map_lookup(&found, *map, &k) == XFFI_OK);
      FUZZ_CHECK(xffi_map_contains(&has, *map, &k) == XFFI_OK);
      FUZZ_CHECK(has == (at >= 0) && (found != NULL) == (at >= 0));
      if (found) FUZZ_CHECK(id_of(d, found) == m->vals[at]);
      break;
    }
    case 5: { /* copy into the other kind and compare */
      xffi_object *copy = NULL;
      FUZZ_CHECK((is_dict ? xffi_map_copy(&copy, *map) : xffi_dict_copy(&copy, *map)) == XFFI_OK);
      FUZZ_CHECK(copy->type_index == (is_dict ? XFFI_TYPE_MAP : XFFI_TYPE_DICT));
      check_map(d, copy, m);
      xffi_object_dec_ref(copy);
      break;
    }
    default: /* clear (rarely) */
      if (key % 4) return;
      /* A shared Map is replaced by a fresh (small) one; otherwise the
       * storage, and so the layout, stays. */
      int fresh = !is_dict && xffi_object_strong_count(*map) > 1;
      status = is_dict ? xffi_dict_clear(*map) : xffi_map_clear(map);
      if (status == XFFI_OK) {
        m->size = 0;
        if (fresh) m->dense = 0;
      }
      break;
  }
  if (expect_ok) {
    FUZZ_CHECK(status == XFFI_OK);
    FUZZ_NOTHING_RAISED();
  } else {
    FUZZ_CHECK(status == XFFI_FAIL);
    fuzz_expect_raised(XFFI_KIND_KEY, fn);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size};
  domain d;
  for (int id = 0; id < IDS; ++id) {
    d.strings[id] = NULL;
    if (id >= 16 && id < 32)
      snprintf(d.text[id], sizeof(d.text[id]), "s%d", id);
    else
      snprintf(d.text[id], sizeof(d.text[id]), "a longer string, number %d", id);
    if (id >= 32 && id < 48) FUZZ_CHECK(xffi_string_from_c_str(&d.strings[id], d.text[id]) == XFFI_OK);
  }
  xffi_object *array = NULL, *list = NULL, *map = NULL, *dict = NULL;
  FUZZ_CHECK(xffi_array_new(&array, NULL, 0) == XFFI_OK);
  FUZZ_CHECK(xffi_list_new(&list, NULL, 0) == XFFI_OK);
  FUZZ_CHECK(xffi_map_new(&map, NULL, NULL, 0) == XFFI_OK);
  FUZZ_CHECK(xffi_dict_new(&dict, NULL, NULL, 0) == XFFI_OK);
  seq_model am = {{0}, 0}, lm = {{0}, 0};
  map_model mm = {{0}, {0}, 0, 0}, dm = {{0}, {0}, 0, 0};
  /* Snapshots: another holder's reference and what it must keep seeing. */
  xffi_object *array_snap = NULL, *map_snap = NULL;
  seq_model array_snap_model = {{0}, 0};
  map_model map_snap_model = {{0}, {0}, 0, 0};

  while (in.n) {
    uint8_t which = fuzz_u8(&in);
    switch (which % 6) {
      case 0:
        seq_step(&d, &in, &array, &am, 0);
        check_seq(&d, array, &am);
        break;
      case 1:
        seq_step(&d, &in, &list, &lm, 1);
        check_seq(&d, list, &lm);
        break;
      case 2:
        map_step(&d, &in, &map, &mm, 0);
        check_map(&d, map, &mm);
        break;
      case 3:
        map_step(&d, &in, &dict, &dm, 1);
        check_map(&d, dict, &dm);
        break;
      case 4: /* take (or drop) a snapshot of the Array */
        xffi_object_dec_ref(array_snap);
        array_snap = NULL;
        if (which & 8) {
          xffi_object_inc_ref(array);
          array_snap = array;
          array_snap_model = am;
        }
        break;
      default: /* of the Map */
        xffi_object_dec_ref(map_snap);
        map_snap = NULL;
        if (which & 8) {
          xffi_object_inc_ref(map);
          map_snap = map;
          map_snap_model = mm;
        }
        break;
    }
    if (array_snap) check_seq(&d, array_snap, &array_snap_model);
    if (map_snap) check_map(&d, map_snap, &map_snap_model);
  }
  /* The plain containers are uniquely held again: strong count 1. */
  xffi_object_dec_ref(array_snap);
  xffi_object_dec_ref(map_snap);
  xffi_object *all[] = {array, list, map, dict};
  for (int i = 0; i < 4; ++i) {
    FUZZ_CHECK(xffi_object_strong_count(all[i]) == 1);
    xffi_object_dec_ref(all[i]);
  }
  for (int id = 32; id < 48; ++id) {
    FUZZ_CHECK(xffi_object_strong_count(d.strings[id]) == 1); /* every copy held by a container was released */
    xffi_object_dec_ref(d.strings[id]);
  }
  FUZZ_NOTHING_RAISED();
  return 0;
}
