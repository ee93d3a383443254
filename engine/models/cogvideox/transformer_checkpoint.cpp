#include "engine/models/cogvideox/transformer_checkpoint.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_linear.h"
#include "engine/models/quantized_base_loading.h"
#include "engine/models/streaming_weights.h"

#include <torch/torch.h>

namespace tuneframe::models::cogvideox {

using core::Error;
using core::ErrorCode;

CogVideoXTransformer3DModel load_cogvideox_transformer(const std::filesystem::path& folder,
                                                       const TransformerLoadOptions& options) {
    const auto config_path = folder / "config.json";
    if (!std::filesystem::exists(config_path)) {
        throw Error(ErrorCode::BadInput, "'" + folder.string() + "' has no config.json.",
                    std::filesystem::exists(folder / "transformer" / "config.json")
                        ? "Point at its transformer/ folder."
                        : "Point at the transformer/ folder of a diffusers CogVideoX model.");
    }
    const auto config = CogVideoXTransformer3DConfig::from_file(config_path.string());
    const core::SafetensorsCheckpoint checkpoint(folder);
    const torch::Dtype dtype = options.dtype.value_or(stored_dtype(checkpoint));

    auto model = [&] {
        const lora::SkipInitGuard every_tensor_comes_from_the_file;
        return CogVideoXTransformer3DModel(config, dtype, options.quantization);
    }();
    const QuantizedBaseLoading quantized(*model, dtype);
    LoadWeightsOptions load;
    load.buffers_in_stored_dtype = !options.dtype.has_value();
    load.ignore = [&quantized](const std::string& name) {
        return lora::is_adapter_tensor(name) || quantized.computed(name);
    };
    load.store = [&quantized](const std::string& name, const at::Tensor& source) {
        return quantized.store(name, source);
    };
    load.model_name = "CogVideoXTransformer3DModel (" + config_path.string() + ")";
    load_weights_streaming(*model, checkpoint, load);
    if (options.device != torch::kCPU) {
        model->to(options.device);
    }
    model->eval();
    return model;
}

std::filesystem::path save_cogvideox_transformer(const CogVideoXTransformer3DModel& model,
                                                 const std::filesystem::path& folder,
                                                 std::uint64_t max_shard_bytes) {
    return save_transformer_folder(*model, folder, max_shard_bytes);
}

} // namespace tuneframe::models::cogvideox
