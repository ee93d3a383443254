#include "engine/core/kernels/float8.h"

#include "engine/core/error.h"

namespace tuneframe::core {

c10::ScalarType float8_e4m3_dtype(const std::string& what) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
    (void)what;
    return c10::ScalarType::Float8_e4m3fn;
#else
    throw Error(ErrorCode::Unsupported,
                what + " need LibTorch 2.1 or newer (fp8 tensors); this engine was built with "
                       "LibTorch " TORCH_VERSION ".",
                "Use int8, which works with every LibTorch and on every device, or an engine "
                "built with LibTorch 2.1 or newer (fp8 saves memory on CUDA GPUs).");
#endif
}

} // namespace tuneframe::core
