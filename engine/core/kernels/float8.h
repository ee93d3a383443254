#pragma once

// fp8 storage for the version that has it: LibTorch 2.1 added the float8 dtypes
// (at::kFloat8_e4m3fn) and the copy kernels that convert to and from them on the CPU and on
// CUDA; 1.13, our CPU build, has neither. Everything that names an fp8 dtype goes through here.

#include <c10/core/ScalarType.h>
#include <torch/version.h>

#include <string>

namespace tuneframe::core {

constexpr bool kHasFloat8 = TORCH_VERSION_MAJOR > 2 ||
                            (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1);

// The largest finite e4m3fn value: 1.75 * 2^8. The "fn" variant has no infinities, so an
// out-of-range value would become NaN; quantizers scale into [-448, 448] first.
constexpr double kFloat8E4M3Max = 448.0;

// at::kFloat8_e4m3fn; an Unsupported error naming the LibTorch version it needs where the
// linked one has no fp8. `what` names the feature that asked ("fp8 base weights").
c10::ScalarType float8_e4m3_dtype(const std::string& what);

} // namespace tuneframe::core
