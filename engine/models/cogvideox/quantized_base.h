#pragma once

#include "engine/lora/quantized_weight.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"

#include <torch/nn/module.h>

#include <cstdint>
#include <string>

// Which Linear weights of a CogVideoX transformer a quantized base (the job's
// lora.base_quantization) stores in int8 or fp8: every Linear inside transformer_blocks, that is
// norm1.linear and norm2.linear (adaLN), attn1.to_q/to_k/to_v/to_out.0, ff.net.0.proj and
// ff.net.2; they hold over 98% of the weights of 2b and 5b. The patch, text, time and ofs
// embeddings, norm_out and proj_out stay in the compute dtype: together they are about 1%, they
// are the model's input and output ends where an error is least diluted, and dtype() reads the
// text projection.
namespace tuneframe::models::cogvideox {

bool is_quantized_base_layer(const std::string& module_name);

// Quantizes those layers of a loaded transformer in place, one layer at a time, so the peak is
// the full-precision model plus one layer; returns how many were quantized. LoRA adapters may be
// injected before or after.
std::int64_t quantize_transformer_base(torch::nn::Module& transformer,
                                       lora::BaseQuantization quantization);

// Weight elements those layers hold, and their output channels (one float32 scale each).
struct QuantizedBaseCount {
    std::int64_t weights = 0;
    std::int64_t channels = 0;
};
QuantizedBaseCount quantized_base_count(const CogVideoXTransformer3DConfig& config);

// How many bytes a quantized base saves on the weights held in `dtype_bytes`: its layers take
// one byte per element plus a float32 scale per output channel. 0 for None.
std::int64_t quantized_base_saving_bytes(const CogVideoXTransformer3DConfig& config,
                                         std::int64_t dtype_bytes,
                                         lora::BaseQuantization quantization);

} // namespace tuneframe::models::cogvideox
