/* tests/c/helpers/dlpack_layout_probe.h: the list of every DLPack size, alignment,
 * field offset, field size and constant, expanded into a table of numbers.
 *
 * Included by two translation units that see different declarations of the
 * same names: test_dlpack_layout.c (xffi's own, XFFI_NO_SYSTEM_DLPACK) and
 * dlpack_layout_official.c (the official <dlpack/dlpack.h> of the
 * apache-tvm-ffi wheel). Both share one include guard, so they can never meet
 * in one translation unit; the tables they build are compared at run time.
 * Define DLPACK_PROBE_FUNCTION to the name of the function to define before
 * including this file. */
#include <stddef.h>

typedef struct dlpack_layout_entry {
  const char *what;
  long long value;
} dlpack_layout_entry;

#define DLPACK_PROBE_STRUCT(T) {"sizeof(" #T ")", (long long)sizeof(T)}, {"alignof(" #T ")", (long long)_Alignof(T)},
#define DLPACK_PROBE_FIELD(T, f) \
  {"offsetof(" #T ", " #f ")", (long long)offsetof(T, f)}, {"sizeof(" #T "." #f ")", (long long)sizeof(((T *)0)->f)},
#define DLPACK_PROBE_CONST(c) {#c, (long long)(c)},

static const dlpack_layout_entry dlpack_probe_table[] = {
    DLPACK_PROBE_STRUCT(DLPackVersion) DLPACK_PROBE_FIELD(DLPackVersion, major) DLPACK_PROBE_FIELD(DLPackVersion, minor)

        DLPACK_PROBE_STRUCT(DLDeviceType) DLPACK_PROBE_STRUCT(DLDevice) DLPACK_PROBE_FIELD(
            DLDevice, device_type) DLPACK_PROBE_FIELD(DLDevice, device_id)

            DLPACK_PROBE_STRUCT(DLDataTypeCode) DLPACK_PROBE_STRUCT(DLDataType) DLPACK_PROBE_FIELD(
                DLDataType, code) DLPACK_PROBE_FIELD(DLDataType, bits) DLPACK_PROBE_FIELD(DLDataType, lanes)

                DLPACK_PROBE_STRUCT(DLTensor) DLPACK_PROBE_FIELD(DLTensor, data) DLPACK_PROBE_FIELD(DLTensor, device)
                    DLPACK_PROBE_FIELD(DLTensor, ndim) DLPACK_PROBE_FIELD(DLTensor, dtype) DLPACK_PROBE_FIELD(
                        DLTensor, shape) DLPACK_PROBE_FIELD(DLTensor, strides) DLPACK_PROBE_FIELD(DLTensor, byte_offset)

                        DLPACK_PROBE_STRUCT(DLManagedTensor) DLPACK_PROBE_FIELD(
                            DLManagedTensor,
                            dl_tensor) DLPACK_PROBE_FIELD(DLManagedTensor,
                                                          manager_ctx) DLPACK_PROBE_FIELD(DLManagedTensor, deleter)

                            DLPACK_PROBE_STRUCT(DLManagedTensorVersioned) DLPACK_PROBE_FIELD(
                                DLManagedTensorVersioned,
                                version) DLPACK_PROBE_FIELD(DLManagedTensorVersioned, manager_ctx)
                                DLPACK_PROBE_FIELD(DLManagedTensorVersioned, deleter) DLPACK_PROBE_FIELD(
                                    DLManagedTensorVersioned,
                                    flags) DLPACK_PROBE_FIELD(DLManagedTensorVersioned, dl_tensor)

                                    DLPACK_PROBE_STRUCT(DLPackExchangeAPIHeader) DLPACK_PROBE_FIELD(
                                        DLPackExchangeAPIHeader,
                                        version) DLPACK_PROBE_FIELD(DLPackExchangeAPIHeader, prev_api)
                                        DLPACK_PROBE_STRUCT(DLPackExchangeAPI) DLPACK_PROBE_FIELD(DLPackExchangeAPI, header) DLPACK_PROBE_FIELD(
                                            DLPackExchangeAPI,
                                            managed_tensor_allocator) DLPACK_PROBE_FIELD(DLPackExchangeAPI, managed_tensor_from_py_object_no_sync)
                                            DLPACK_PROBE_FIELD(DLPackExchangeAPI, managed_tensor_to_py_object_no_sync) DLPACK_PROBE_FIELD(
                                                DLPackExchangeAPI,
                                                dltensor_from_py_object_no_sync) DLPACK_PROBE_FIELD(DLPackExchangeAPI, current_work_stream)

                                                DLPACK_PROBE_CONST(
                                                    DLPACK_MAJOR_VERSION) DLPACK_PROBE_CONST(DLPACK_FLAG_BITMASK_READ_ONLY)
                                                    DLPACK_PROBE_CONST(
                                                        DLPACK_FLAG_BITMASK_IS_COPIED) DLPACK_PROBE_CONST(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)

                                                        DLPACK_PROBE_CONST(kDLCPU) DLPACK_PROBE_CONST(kDLCUDA) DLPACK_PROBE_CONST(
                                                            kDLCUDAHost) DLPACK_PROBE_CONST(kDLOpenCL)
                                                            DLPACK_PROBE_CONST(kDLVulkan) DLPACK_PROBE_CONST(kDLMetal) DLPACK_PROBE_CONST(
                                                                kDLVPI) DLPACK_PROBE_CONST(kDLROCM) DLPACK_PROBE_CONST(kDLROCMHost)
                                                                DLPACK_PROBE_CONST(kDLExtDev) DLPACK_PROBE_CONST(
                                                                    kDLCUDAManaged) DLPACK_PROBE_CONST(kDLOneAPI)
                                                                    DLPACK_PROBE_CONST(kDLWebGPU) DLPACK_PROBE_CONST(
                                                                        kDLHexagon) DLPACK_PROBE_CONST(kDLMAIA) DLPACK_PROBE_CONST(kDLTrn)

                                                                        DLPACK_PROBE_CONST(kDLInt) DLPACK_PROBE_CONST(
                                                                            kDLUInt) DLPACK_PROBE_CONST(kDLFloat)
                                                                            DLPACK_PROBE_CONST(
                                                                                kDLOpaqueHandle) DLPACK_PROBE_CONST(kDLBfloat)
                                                                                DLPACK_PROBE_CONST(kDLComplex) DLPACK_PROBE_CONST(
                                                                                    kDLBool) DLPACK_PROBE_CONST(kDLFloat8_e3m4)
                                                                                    DLPACK_PROBE_CONST(kDLFloat8_e4m3) DLPACK_PROBE_CONST(
                                                                                        kDLFloat8_e4m3b11fnuz)
                                                                                        DLPACK_PROBE_CONST(kDLFloat8_e4m3fn) DLPACK_PROBE_CONST(
                                                                                            kDLFloat8_e4m3fnuz)
                                                                                            DLPACK_PROBE_CONST(
                                                                                                kDLFloat8_e5m2)
                                                                                                DLPACK_PROBE_CONST(
                                                                                                    kDLFloat8_e5m2fnuz)
                                                                                                    DLPACK_PROBE_CONST(
                                                                                                        kDLFloat8_e8m0fnu)
                                                                                                        DLPACK_PROBE_CONST(
                                                                                                            kDLFloat6_e2m3fn)
                                                                                                            DLPACK_PROBE_CONST(
                                                                                                                kDLFloat6_e3m2fn)
                                                                                                                DLPACK_PROBE_CONST(
                                                                                                                    kDLFloat4_e2m1fn)};

/* Gives the table and its length to the other translation unit. */
size_t DLPACK_PROBE_FUNCTION(const dlpack_layout_entry **out);
size_t DLPACK_PROBE_FUNCTION(const dlpack_layout_entry **out) {
  *out = dlpack_probe_table;
  return sizeof(dlpack_probe_table) / sizeof(dlpack_probe_table[0]);
}
