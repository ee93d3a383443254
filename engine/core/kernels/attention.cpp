#include "engine/core/kernels/attention.h"

#include "engine/core/error.h"

#include <ATen/Context.h>
#include <torch/torch.h>
#include <torch/version.h>

namespace tuneframe::core {

at::Tensor scaled_dot_product_attention(const at::Tensor& query, const at::Tensor& key,
                                        const at::Tensor& value,
                                        const std::optional<at::Tensor>& mask) {
    c10::optional<at::Tensor> attention_mask;
    if (mask) {
        attention_mask = mask->to(query.scalar_type());
    }
#if TORCH_VERSION_MAJOR >= 2
    return at::scaled_dot_product_attention(query, key, value, attention_mask);
#else
    return std::get<0>(at::_scaled_dot_product_attention(query, key, value, attention_mask));
#endif
}

void select_attention_backend(const std::string& name) {
#if TORCH_VERSION_MAJOR >= 2
    const bool known = name == "flash" || name == "efficient" || name == "cudnn" || name == "math";
    if (known || name == "auto") {
        const bool all = name == "auto"; // LibTorch's default: every kernel allowed
        at::Context& context = at::globalContext();
        context.setSDPUseFlash(all || name == "flash");
        context.setSDPUseMemEfficient(all || name == "efficient");
        context.setSDPUseCuDNN(all || name == "cudnn");
        context.setSDPUseMath(all || name == "math");
        return;
    }
#else
    if (name == "auto" || name == "math") {
        return; // the only implementation 1.13 has
    }
#endif
    throw Error(ErrorCode::Usage, "Unknown attention backend '" + name + "'.",
                "Use auto, flash, efficient, cudnn or math (LibTorch 1.13: auto or math).");
}

} // namespace tuneframe::core
