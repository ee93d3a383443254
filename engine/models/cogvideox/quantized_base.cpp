#include "engine/models/cogvideox/quantized_base.h"

#include "engine/lora/lora_injection.h"

namespace tuneframe::models::cogvideox {

bool is_quantized_base_layer(const std::string& module_name) {
    return module_name.rfind("transformer_blocks.", 0) == 0;
}

std::int64_t quantize_transformer_base(torch::nn::Module& transformer,
                                       lora::BaseQuantization quantization) {
    if (quantization == lora::BaseQuantization::None) {
        return 0;
    }
    std::int64_t quantized = 0;
    for (auto& [name, layer] : lora::linear_layers(transformer)) {
        if (is_quantized_base_layer(name)) {
            layer->quantize_base(quantization);
            ++quantized;
        }
    }
    return quantized;
}

QuantizedBaseCount quantized_base_count(const CogVideoXTransformer3DConfig& config) {
    const std::int64_t d = config.inner_dim();
    const std::int64_t e = config.time_embed_dim;
    QuantizedBaseCount count;
    // norm1, norm2: e -> 6d; to_q, to_k, to_v, to_out.0: d -> d; ff: d -> 4d -> d
    count.weights = config.num_layers * (2 * e * 6 * d + 4 * d * d + 2 * 4 * d * d);
    count.channels = config.num_layers * (2 * 6 * d + 4 * d + 4 * d + d);
    return count;
}

std::int64_t quantized_base_saving_bytes(const CogVideoXTransformer3DConfig& config,
                                         std::int64_t dtype_bytes,
                                         lora::BaseQuantization quantization) {
    if (quantization == lora::BaseQuantization::None) {
        return 0;
    }
    const QuantizedBaseCount count = quantized_base_count(config);
    return count.weights * (dtype_bytes - 1) - count.channels * 4;
}

} // namespace tuneframe::models::cogvideox
