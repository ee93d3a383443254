#include "engine/models/wan/transformer_checkpoint.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_linear.h"
#include "engine/models/quantized_base_loading.h"
#include "engine/models/streaming_weights.h"
#include "engine/models/wan/original_keys.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;
using core::Error;
using core::ErrorCode;

const char* const kWhatToLoad = "Point at a Wan 2.1 / 2.2 transformer: the transformer/ folder of "
                                "a diffusers model, or an original / ComfyUI .safetensors file.";

struct Source {
    std::size_t shard = 0;
    const core::TensorInfo* tensor = nullptr;
    std::string key; // as the file names it
    // ComfyUI fp8: the float32 scale the stored weight is multiplied by.
    std::size_t scale_shard = 0;
    const core::TensorInfo* scale = nullptr;
};

using Sources = std::map<std::string, Source>; // by diffusers name

Sources mapped_sources(const core::SafetensorsCheckpoint& checkpoint) {
    const std::string origin = checkpoint.source().string();
    Sources sources;
    std::map<std::string, std::pair<std::size_t, const core::TensorInfo*>> scales;
    const auto& shards = checkpoint.shards();
    for (std::size_t s = 0; s < shards.size(); ++s) {
        for (const core::TensorInfo& tensor : shards[s].tensors()) {
            if (is_ignored_key(tensor.name)) {
                continue;
            }
            if (const auto weight = scaled_weight_name(tensor.name)) {
                scales[diffusers_name(*weight)] = {s, &tensor};
                continue;
            }
            const std::string name = diffusers_name(tensor.name);
            const auto [it, added] = sources.emplace(name, Source{s, &tensor, tensor.name});
            if (!added) {
                throw Error(ErrorCode::BadInput,
                            "'" + origin + "' holds " + name + " twice (as '" + it->second.key +
                                "' and '" + tensor.name + "').",
                            "Keep one copy of the transformer in the file.");
            }
        }
    }
    for (const auto& [name, scale] : scales) {
        const auto it = sources.find(name);
        if (it == sources.end()) {
            throw Error(ErrorCode::BadInput,
                        "'" + origin + "' holds a scale for " + name + " but not the weight.",
                        "The file is incomplete; download it again.");
        }
        it->second.scale_shard = scale.first;
        it->second.scale = scale.second;
    }
    return sources;
}

// The stored dtype of the tensors that are not fp8: what a load without a dtype keeps.
torch::Dtype unquantized_dtype(const Sources& sources) {
    std::map<core::DType, std::size_t> counts;
    for (const auto& [name, source] : sources) {
        if (core::dtype_is_floating(source.tensor->dtype) &&
            !core::dtype_is_float8(source.tensor->dtype)) {
            ++counts[source.tensor->dtype];
        }
    }
    if (counts.empty()) {
        return torch::kBFloat16;
    }
    const auto most =
        std::max_element(counts.begin(), counts.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    return core::to_scalar_type(most->first);
}

std::string checkpoint_key_list(const std::vector<std::string>& items) {
    constexpr std::size_t shown = 12;
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < shown; ++i) {
        text += (i ? ", " : "") + items[i];
    }
    if (items.size() > shown) {
        text += " and " + std::to_string(items.size() - shown) + " more";
    }
    return text;
}

bool scale_fits(const core::TensorInfo& scale, const at::Tensor& target) {
    return scale.numel() == 1 || (target.dim() > 0 && scale.numel() == target.size(0));
}

void check_mapping(const std::map<std::string, at::Tensor>& expected, const Sources& sources,
                   const std::string& origin) {
    std::vector<std::string> missing;
    std::vector<std::string> unexpected;
    std::vector<std::string> misshaped;
    for (const auto& [name, tensor] : expected) {
        const auto it = sources.find(name);
        if (it == sources.end()) {
            missing.push_back(name);
            continue;
        }
        const core::TensorInfo& info = *it->second.tensor;
        if (info.shape != tensor.sizes().vec() || !core::dtype_is_floating(info.dtype) ||
            (it->second.scale && !scale_fits(*it->second.scale, tensor))) {
            misshaped.push_back(it->second.key + " (file " +
                                std::string(core::dtype_name(info.dtype)) + " " +
                                core::shape_string(info.shape) + ", model " + name + " " +
                                core::shape_string(tensor.sizes().vec()) + ")");
        }
    }
    for (const auto& [name, source] : sources) {
        if (!expected.count(name)) {
            unexpected.push_back(source.key);
        }
    }
    if (missing.empty() && unexpected.empty() && misshaped.empty()) {
        return;
    }
    std::string message = "'" + origin + "' does not match the Wan transformer its tensors imply:";
    for (const auto& [list, what] : {std::pair{&missing, "missing"},
                                     {&unexpected, "unexpected"},
                                     {&misshaped, "mis-shaped"}}) {
        if (!list->empty()) {
            message += " " + std::to_string(list->size()) + " " + what +
                       " key(s): " + checkpoint_key_list(*list) + ".";
        }
    }
    throw Error(ErrorCode::BadInput, message,
                "Check that the file is a whole Wan 2.1 / 2.2 transformer and that the download is "
                "complete.");
}

// Copies the mapped tensors into the model in file order, decoding fp8 and applying its scales
// (and quantizing a quantized base's weights as they come).
void copy_mapped(WanTransformer3DModelImpl& model, const core::SafetensorsCheckpoint& checkpoint,
                 const Sources& sources, torch::Dtype dtype) {
    const QuantizedBaseLoading quantized(model, dtype);
    std::map<std::string, at::Tensor> expected;
    for (const auto& item : model.named_parameters()) {
        if (!lora::is_adapter_tensor(item.key())) {
            expected[item.key()] = item.value();
        }
    }
    check_mapping(expected, sources, checkpoint.source().string());

    struct Copy {
        const std::string* name;
        const Source* source;
        at::Tensor target;
    };
    std::vector<Copy> copies;
    for (const auto& [name, source] : sources) {
        copies.push_back({&name, &source, expected.at(name)});
    }
    std::sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) {
        return std::pair{a.source->shard, a.source->tensor->begin} <
               std::pair{b.source->shard, b.source->tensor->begin};
    });
    torch::NoGradGuard no_grad;
    const auto& shards = checkpoint.shards();
    for (auto& [name, source, target] : copies) {
        at::Tensor value = core::view_tensor(shards[source->shard], *source->tensor);
        if (source->scale) {
            at::Tensor scale =
                core::read_tensor(shards[source->scale_shard], *source->scale).to(torch::kFloat32);
            std::vector<std::int64_t> per_row(static_cast<std::size_t>(value.dim()), 1);
            if (scale.numel() > 1) {
                per_row[0] = scale.numel();
            }
            value = value.to(torch::kFloat32) * scale.reshape(per_row);
        }
        if (!quantized.store(*name, value)) {
            target.copy_(value);
        }
    }
}

WanTransformer3DModel build(const WanTransformer3DConfig& config, torch::Dtype dtype,
                            const TransformerLoadOptions& options) {
    const lora::SkipInitGuard every_tensor_comes_from_the_file;
    return WanTransformer3DModel(config, dtype, options.quantization);
}

WanTransformer3DModel ready(WanTransformer3DModel model, const TransformerLoadOptions& options) {
    if (options.device != torch::kCPU) {
        model->to(options.device);
    }
    model->eval();
    return model;
}

// Original / ComfyUI layouts, and diffusers files that need renaming or skipping (fp8 scales,
// norm_added_q). `config` unset: inferred from the shapes.
WanTransformer3DModel load_mapped(const core::SafetensorsCheckpoint& checkpoint,
                                  const std::optional<WanTransformer3DConfig>& config,
                                  std::optional<std::int64_t> heads,
                                  const TransformerLoadOptions& options) {
    const std::string origin = checkpoint.source().string();
    const Sources sources = mapped_sources(checkpoint);
    std::vector<std::string> names;
    std::map<std::string, std::vector<std::int64_t>> shapes;
    for (const auto& [name, source] : sources) {
        names.push_back(name);
        shapes[name] = source.tensor->shape;
    }
    if (!looks_like_wan_transformer(names)) {
        throw Error(ErrorCode::BadInput,
                    "'" + origin + "' is not a Wan transformer checkpoint: it looks like " +
                        describe_checkpoint(checkpoint.names()) + ".",
                    kWhatToLoad);
    }
    const WanTransformer3DConfig resolved =
        config ? *config : infer_transformer_config(shapes, heads, origin);
    const torch::Dtype dtype = options.dtype.value_or(unquantized_dtype(sources));
    WanTransformer3DModel model = build(resolved, dtype, options);
    copy_mapped(*model, checkpoint, sources, dtype);
    return ready(model, options);
}

WanTransformer3DModel load_diffusers_folder(const fs::path& folder, const fs::path& config_path,
                                            const nlohmann::json& json,
                                            const TransformerLoadOptions& options) {
    const auto config = WanTransformer3DConfig::from_json(json, config_path.string());
    const core::SafetensorsCheckpoint checkpoint(folder);
    const std::vector<std::string> names = checkpoint.names();
    const bool plain = std::none_of(names.begin(), names.end(), [](const std::string& name) {
        return is_ignored_key(name) || scaled_weight_name(name);
    });
    if (!plain || !looks_like_wan_transformer(names)) {
        return load_mapped(checkpoint, config, std::nullopt, options);
    }
    const torch::Dtype dtype = options.dtype.value_or(stored_dtype(checkpoint));
    WanTransformer3DModel model = build(config, dtype, options);
    const QuantizedBaseLoading quantized(*model, dtype);
    LoadWeightsOptions load;
    load.buffers_in_stored_dtype = !options.dtype.has_value();
    load.ignore = [&quantized](const std::string& name) {
        return lora::is_adapter_tensor(name) || quantized.computed(name);
    };
    load.store = [&quantized](const std::string& name, const at::Tensor& source) {
        return quantized.store(name, source);
    };
    load.model_name = "WanTransformer3DModel (" + config_path.string() + ")";
    load_weights_streaming(*model, checkpoint, load);
    return ready(model, options);
}

} // namespace

WanTransformer3DModel load_wan_transformer(const fs::path& folder_or_file,
                                           const TransformerLoadOptions& options) {
    if (!fs::exists(folder_or_file)) {
        throw Error(ErrorCode::BadInput, "'" + folder_or_file.string() + "' does not exist.",
                    kWhatToLoad);
    }
    if (!fs::is_directory(folder_or_file)) {
        return load_mapped(core::SafetensorsCheckpoint(folder_or_file), std::nullopt,
                           options.num_attention_heads, options);
    }
    const fs::path config_path = folder_or_file / "config.json";
    if (!fs::exists(config_path)) {
        throw Error(ErrorCode::BadInput, "'" + folder_or_file.string() + "' has no config.json.",
                    fs::exists(folder_or_file / "transformer" / "config.json")
                        ? "Point at its transformer/ folder."
                        : kWhatToLoad);
    }
    const nlohmann::json json = core::read_json_file(config_path);
    const core::JsonFields fields(json, config_path.string());
    if (fields.optional<std::string>("_class_name", "") == "WanModel") {
        // Wan-AI's own release: original names, and the heads in its config.
        const auto heads = options.num_attention_heads ? options.num_attention_heads
                                                       : fields.maybe<std::int64_t>("num_heads");
        return load_mapped(core::SafetensorsCheckpoint(folder_or_file), std::nullopt, heads,
                           options);
    }
    return load_diffusers_folder(folder_or_file, config_path, json, options);
}

fs::path save_wan_transformer(const WanTransformer3DModel& model, const fs::path& folder,
                              std::uint64_t max_shard_bytes) {
    fs::create_directories(folder);
    core::write_json_file(folder / "config.json", model->config().to_json());
    SaveWeightsOptions save;
    save.max_shard_bytes = max_shard_bytes;
    save.ignore = lora::is_adapter_tensor;
    return save_weights_sharded(*model, folder, save);
}

} // namespace tuneframe::models::wan
