#include "engine/core/attention.h"

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

} // namespace tuneframe::core
