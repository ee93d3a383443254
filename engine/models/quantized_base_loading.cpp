#include "engine/models/quantized_base_loading.h"

#include "engine/lora/lora_injection.h"

#include <torch/torch.h>

namespace tuneframe::models {

QuantizedBaseLoading::QuantizedBaseLoading(torch::nn::Module& model, c10::ScalarType dtype)
    : dtype_(dtype) {
    for (auto& [name, layer] : lora::linear_layers(model)) {
        if (layer->base_quantization() != lora::BaseQuantization::None) {
            weights_.emplace(name + ".weight", layer);
            scales_.emplace(name + ".weight_scale", layer);
        }
    }
}

bool QuantizedBaseLoading::computed(const std::string& name) const {
    return scales_.count(name) > 0;
}

bool QuantizedBaseLoading::store(const std::string& name, const at::Tensor& source) const {
    const auto layer = weights_.find(name);
    if (layer == weights_.end()) {
        return false;
    }
    torch::NoGradGuard no_grad;
    lora::LoRALinear target = layer->second;
    target->store_quantized_base(source.to(dtype_));
    return true;
}

} // namespace tuneframe::models
