/* Drives the snippets of the pinned sdist's examples/abi_overview/example_code.c
 * (the C code tvm-ffi's ABI overview documents) on whichever libtvm_ffi.so the
 * process loads. The example's own main() only returns 0, so this file
 * includes the example unchanged (its main renamed) and calls each snippet the
 * way the overview describes it: Any values, a C Function created, called,
 * registered as a global and fetched back, an error raised and handled,
 * a tensor allocated through the environment's allocator and sent through
 * DLPack and back. Each check prints one line; a failed check exits 1.
 *
 *   cc $(tvm-ffi-config --cflags) -I EXAMPLE_DIR abi_overview_drive.c \
 *      $(tvm-ffi-config --ldflags) $(tvm-ffi-config --libs) -o abi_overview_drive */
#define main abi_overview_example_main
#include "example_code.c"
#undef main

#include <stdlib.h>

static int failures = 0;

static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) failures++;
}

/* A C Function: returns args[0] + args[1] (ints). */
static int add_ints(void *self, const TVMFFIAny *args, int32_t num_args, TVMFFIAny *result) {
  (void)self;
  if (num_args != 2) return Error_RaiseException(self, args, num_args, result);
  *result = Any_AnyView_FromInt(Any_AnyView_GetInt(&args[0]) + Any_AnyView_GetInt(&args[1]));
  return 0;
}

static int deleted_handles = 0;
static void count_delete(void *self) {
  (void)self;
  deleted_handles++;
}

/* The environment allocator the overview's Tensor_Alloc needs: plain malloc. */
static void free_managed(DLManagedTensorVersioned *self) {
  free(self->dl_tensor.data);
  free(self->dl_tensor.shape);
  free(self);
}

static int malloc_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                            void (*set_error)(void *error_ctx, const char *kind, const char *message)) {
  int64_t count = 1;
  DLManagedTensorVersioned *managed = calloc(1, sizeof(*managed));
  int64_t *shape = calloc((size_t)prototype->ndim + 1, sizeof(int64_t));
  for (int i = 0; i < prototype->ndim; i++) count *= prototype->shape[i];
  void *data = malloc((size_t)count * (prototype->dtype.bits / 8) + 1);
  if (!managed || !shape || !data) {
    free(managed);
    free(shape);
    free(data);
    set_error(error_ctx, "RuntimeError", "out of memory");
    return -1;
  }
  for (int i = 0; i < prototype->ndim; i++) shape[i] = prototype->shape[i];
  managed->version.major = DLPACK_MAJOR_VERSION;
  managed->version.minor = DLPACK_MINOR_VERSION;
  managed->deleter = free_managed;
  managed->dl_tensor = *prototype;
  managed->dl_tensor.shape = shape;
  managed->dl_tensor.strides = NULL;
  managed->dl_tensor.byte_offset = 0;
  managed->dl_tensor.data = data;
  *out = managed;
  return 0;
}

static void drive_any(void) {
  TVMFFIAny i = Any_AnyView_FromInt(-7);
  TVMFFIAny f = Any_AnyView_FromFloat(2.5);
  check(Any_AnyView_GetInt(&i) == -7 && Any_AnyView_GetFloat(&i) == -7.0, "Any holds an int");
  check(Any_AnyView_GetFloat(&f) == 2.5 && Any_AnyView_GetInt(&f) == 2, "Any holds a float");
}

static void drive_function(void) {
  TVMFFIObject *add = Function_Construct(NULL, add_ints, count_delete);
  TVMFFIObject *fetched;
  check(CallFunction(add, 40, 2) == 42, "a C Function called through TVMFFIFunctionCall returns 42");
  check(Object_IsInstance(add->type_index, kTVMFFIObject, 0), "a Function is an Object");
  check(!Object_IsInstance(add->type_index, kTVMFFITensor, 1), "a Function is not a Tensor");
  Function_SetGlobal("abi_overview.add", add);
  fetched = Function_RetrieveGlobal("abi_overview.add");
  check(fetched == add && CallFunction(fetched, 1, 2) == 3, "the global abi_overview.add is the Function registered");
  Object_Destroy(fetched);
  {
    TVMFFIAny held = Any_AnyView_FromObjectPtr(add); /* owning: a new reference */
    TVMFFIObject *moved = NULL;
    check(Any_AnyView_GetObject(&held) == add, "an owning Any holds the Function");
    Object_MoveFromAny(&held, &moved);
    check(moved == add && held.type_index == kTVMFFINone, "moving out of the Any leaves it None");
    Object_Destroy(moved);
  }
  Object_Destroy(add);
  /* The global registry still holds it: its deleter has not run. */
  check(deleted_handles == 0, "the registry keeps the Function alive");
}

static void drive_error(void) {
  TVMFFIObject *raiser = Function_Construct(NULL, Error_RaiseException, NULL);
  TVMFFIAny result = (TVMFFIAny){0};
  TVMFFIObject *err = NULL;
  int rc = TVMFFIFunctionCall(raiser, NULL, 0, &result);
  check(rc == -1, "a Function that raises returns -1");
  TVMFFIErrorMoveFromRaised((void **)&err);
  check(err != NULL && err->type_index == kTVMFFIError, "the raised Error is in the thread's slot");
  if (err != NULL) {
    TVMFFIErrorCell *cell = (TVMFFIErrorCell *)((char *)err + sizeof(TVMFFIObject));
    check(cell->kind.size == 10 && memcmp(cell->kind.data, "ValueError", 10) == 0, "its kind is ValueError");
    PrintError(err);
    TVMFFIObjectDecRef(err);
  }
  TVMFFIErrorMoveFromRaised((void **)&err);
  check(err == NULL, "moving the error out cleared the slot");
  rc = TVMFFIFunctionCall(raiser, NULL, 0, &result);
  Error_HandleReturnCode(rc);
  Object_Destroy(raiser);
}

static void drive_tensor(void) {
  int64_t shape[1] = {4};
  DLTensor prototype = {NULL, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  TVMFFIObject *tensor;
  TVMFFIObject *back;
  DLTensor *view;
  DLManagedTensorVersioned *managed;
  check(TVMFFIEnvSetDLPackManagedTensorAllocator(malloc_allocator, 0, NULL) == 0, "the allocator is set");
  tensor = Tensor_Alloc(&prototype);
  view = Tensor_AccessDLTensor(tensor);
  check(view->ndim == 1 && view->shape[0] == 4 && view->dtype.bits == 32, "Tensor_Alloc made a float32[4]");
  for (int i = 0; i < 4; i++) ((float *)view->data)[i] = (float)i + 0.5f;
  {
    /* The overview's FromObjectPtr tags any object kTVMFFIObject; a Tensor's
     * own tag and a raw DLTensor* are what GetDLTensor reads. */
    TVMFFIAny any = Any_AnyView_FromObjectPtr(tensor);
    TVMFFIAny tagged = Any_AnyView_FromInt(0);
    TVMFFIAny raw = Any_AnyView_FromInt(0);
    tagged.type_index = kTVMFFITensor;
    tagged.v_obj = tensor;
    raw.type_index = kTVMFFIDLTensorPtr;
    raw.v_ptr = view;
    check(Any_AnyView_GetObject(&any) == tensor, "an owning Any holds the Tensor");
    check(Any_AnyView_GetDLTensor(&tagged) == view && Any_AnyView_GetDLTensor(&raw) == view,
          "an AnyView reads the Tensor's DLTensor");
    Any_AnyView_Destroy(&any);
  }
  managed = Tensor_ToDLPackVersioned(tensor);
  check(managed->dl_tensor.data == view->data && managed->version.major == DLPACK_MAJOR_VERSION,
        "the DLPack export shares the Tensor's data");
  back = Tensor_FromDLPack(managed); /* takes over managed */
  check(((float *)Tensor_AccessDLTensor(back)->data)[3] == 3.5f, "the Tensor imported from DLPack reads the data");
  Object_Destroy(back);
  Object_Destroy(tensor);
}

int main(void) {
  check(abi_overview_example_main() == 0, "the example's main returns 0");
  drive_any();
  drive_function();
  drive_error();
  drive_tensor();
  printf("%s\n", failures ? "abi_overview FAILED" : "abi_overview ok");
  return failures ? 1 : 0;
}
