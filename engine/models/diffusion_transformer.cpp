#include "engine/models/diffusion_transformer.h"

#include "engine/core/json_file.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/streaming_weights.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models {

void DiffusionTransformerImpl::set_checkpointed_blocks(std::int64_t count) {
    checkpointed_blocks_ = std::clamp<std::int64_t>(count, 0, num_blocks());
}

std::int64_t DiffusionTransformerImpl::quantize_base(lora::BaseQuantization quantization) {
    if (quantization == lora::BaseQuantization::None) {
        return 0;
    }
    std::int64_t quantized = 0;
    for (auto& [name, layer] : lora::linear_layers(*this)) {
        if (is_quantized_base_layer(name)) {
            layer->quantize_base(quantization);
            ++quantized;
        }
    }
    return quantized;
}

std::filesystem::path save_transformer_folder(const DiffusionTransformerImpl& transformer,
                                              const std::filesystem::path& folder,
                                              std::uint64_t max_shard_bytes) {
    std::filesystem::create_directories(folder);
    core::write_json_file(folder / "config.json", transformer.config_json());
    SaveWeightsOptions save;
    save.max_shard_bytes = max_shard_bytes;
    save.ignore = lora::is_adapter_tensor;
    return save_weights_sharded(transformer, folder, save);
}

void release_module(torch::nn::Module& module) {
    torch::NoGradGuard no_grad;
    for (auto& parameter : module.parameters()) {
        parameter.set_requires_grad(false);
        parameter.set_data(at::empty({0}, parameter.options()));
    }
    for (auto& buffer : module.buffers()) {
        buffer.set_data(at::empty({0}, buffer.options()));
    }
}

} // namespace tuneframe::models
