#pragma once

#include <nvtx3/nvToolsExt.h>

namespace ks::collect {

// NVTX injection (NVTX_INJECTION64_PATH): fills the NVTX callback tables of the process so that
// nvtxRangePush/Pop, nvtxRangeStart/End, nvtxMark and their domain and Ex forms become recorder
// ranges and marks ("user_annotation" slices, like torch's record_function). With the CUPTI
// collector running, every pushed range also becomes the CUSTOM2 external correlation of the
// kernels launched inside it (record/rangehooks.h). No GPU or CUPTI is needed.
//
// Returns 1 when the tables were filled (NVTX keeps the injection), 0 otherwise.
int initializeNvtxInjection(NvtxGetExportTableFunc_t getExportTable);

} // namespace ks::collect
