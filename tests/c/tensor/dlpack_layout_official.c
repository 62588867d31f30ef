/* tests/c/tensor/dlpack_layout_official.c: the DLPack layout table as the official
 * <dlpack/dlpack.h> of the apache-tvm-ffi wheel declares it (compiled only
 * when tests/cmake/dlpack.cmake finds that header). */
#include <dlpack/dlpack.h>

#define DLPACK_PROBE_FUNCTION dlpack_layout_official
#include "dlpack_layout_probe.h"
