#pragma once

#include <ATen/Tensor.h>

namespace tuneframe::lora {

// y = x (Q * scale)^T + bias for a frozen weight stored quantized (quantized_weight.h), in the
// input's dtype: Q is widened to that dtype with its per-channel scale for one GEMM (the bias in
// it) and dropped at once; autograd keeps only Q and the scales for backward and widens again
// there (bitsandbytes' and QLoRA's trick), so a step never holds a full-precision copy of a layer
// it is not running, with or without gradient checkpointing. Gradients reach the input (and a
// bias that requires them); Q and the scales get none.
at::Tensor quantized_linear(const at::Tensor& input, const at::Tensor& values,
                            const at::Tensor& scale, const at::Tensor& bias);

} // namespace tuneframe::lora
