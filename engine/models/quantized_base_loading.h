#pragma once

#include "engine/lora/lora_linear.h"

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <torch/nn/module.h>

#include <map>
#include <string>

namespace tuneframe::models {

// A checkpoint read into a transformer whose quantized-base layers were built already stored
// quantized (lora::QuantizedBaseGuard): each such weight is converted to the compute dtype and
// quantized as it is read, one tensor at a time, so the host never holds the layers in full
// precision (diffusion-pipe #149: a 14B loaded in bf16 before its fp8 cast runs the host out of
// memory). The values equal loading in the compute dtype and then quantize_base().
class QuantizedBaseLoading {
public:
    QuantizedBaseLoading(torch::nn::Module& model, c10::ScalarType dtype);

    // Tensors the quantization makes rather than the file holds (the layers' weight_scale).
    bool computed(const std::string& name) const;
    // Stores the file's `source` into weight `name` quantized; false when `name` is not a
    // quantized layer's weight (the caller copies it as usual).
    bool store(const std::string& name, const at::Tensor& source) const;

private:
    std::map<std::string, lora::LoRALinear> weights_; // by the weight's name
    std::map<std::string, lora::LoRALinear> scales_;  // by the scale's name
    c10::ScalarType dtype_;
};

} // namespace tuneframe::models
