/* xffi/dlpack.h: the DLPack 1.x ABI that xffi tensors are built on.
 *
 * When the official <dlpack/dlpack.h> (version 1.x) is on the include path it
 * is used. Otherwise xffi declares the same ABI itself: the same type names,
 * field names, enumerator values and include guard, so whichever header a
 * translation unit includes first wins and the other one becomes a no-op.
 * tests/c/tensor/test_dlpack_layout.c checks these declarations field by field
 * against the official header shipped in the apache-tvm-ffi wheel. */
#ifndef XFFI_DLPACK_H
#define XFFI_DLPACK_H

#if !defined(XFFI_NO_SYSTEM_DLPACK) && defined(__has_include)
#  if __has_include(<dlpack/dlpack.h>)
#    include <dlpack/dlpack.h>
#  endif
#endif

#if defined(DLPACK_DLPACK_H_) && defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION < 1
#  error \
      "xffi needs DLPack 1.x; an older <dlpack/dlpack.h> is on the include path (define XFFI_NO_SYSTEM_DLPACK to use xffi's own declarations)"
#endif

#ifndef DLPACK_DLPACK_H_
#  define DLPACK_DLPACK_H_
#  define XFFI_OWN_DLPACK 1

#  include <stddef.h>
#  include <stdint.h>

#  define DLPACK_MAJOR_VERSION 1
#  define DLPACK_MINOR_VERSION 3

#  ifdef __cplusplus
#    define DLPACK_EXTERN_C extern "C"
#  else
#    define DLPACK_EXTERN_C
#  endif
#  define DLPACK_DLL

#  ifdef __cplusplus
extern "C" {
#  endif

/* The version of a DLManagedTensorVersioned. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Where a tensor's memory lives. */
#  ifdef __cplusplus
typedef enum : int32_t {
#  else
typedef enum {
#  endif
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
  kDLTrn = 18
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/* The kind of scalar in a DLDataType. */
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
  kDLFloat8_e3m4 = 7U,
  kDLFloat8_e4m3 = 8U,
  kDLFloat8_e4m3b11fnuz = 9U,
  kDLFloat8_e4m3fn = 10U,
  kDLFloat8_e4m3fnuz = 11U,
  kDLFloat8_e5m2 = 12U,
  kDLFloat8_e5m2fnuz = 13U,
  kDLFloat8_e8m0fnu = 14U,
  kDLFloat6_e2m3fn = 15U,
  kDLFloat6_e3m2fn = 16U,
  kDLFloat4_e2m1fn = 17U
} DLDataTypeCode;

/* A scalar type: code (DLDataTypeCode), bits per lane, lanes per element. */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* A borrowed description of an n-dimensional array. */
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

/* The legacy (pre-1.0) managed tensor: no version and no flags. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#  define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#  define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#  define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* The DLPack 1.x managed tensor. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* ---- The DLPack 1.3 exchange API (a C table of functions a framework can
 * publish so that others exchange tensors without going through Python
 * capsules). Declared so code written against the official header compiles
 * against these declarations too; xffi itself does not use them. ---- */

/* Allocates a managed tensor like prototype; errors go to SetError. 0 on success. */
typedef int (*DLPackManagedTensorAllocator)(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                                            void (*SetError)(void *error_ctx, const char *kind, const char *message));
/* Exports a framework's Python tensor object as a managed tensor, with no stream sync. */
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void *py_object, DLManagedTensorVersioned **out);
/* Fills a borrowed DLTensor view of a framework's Python tensor object. */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);
/* The framework's current stream (work queue) for a device. */
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id, void **out_current_stream);
/* Wraps a managed tensor as a framework's Python tensor object. */
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned *tensor, void **out_py_object);

/* The versioned header of an exchange API table; prev_api links older tables. */
typedef struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;

/* The exchange API table. */
typedef struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  DLPackManagedTensorAllocator managed_tensor_allocator;
  DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
  DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#  ifdef __cplusplus
}
#  endif

#endif /* DLPACK_DLPACK_H_ */
#endif /* XFFI_DLPACK_H */
