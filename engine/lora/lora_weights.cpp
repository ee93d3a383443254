#include "engine/lora/lora_weights.h"

#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/comfyui_lora_keys.h"
#include "engine/lora/lora_injection.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <regex>

namespace tuneframe::lora {
namespace {

using core::Error;
using core::ErrorCode;

constexpr const char* kA = ".lora_A.weight";
constexpr const char* kB = ".lora_B.weight";

bool key_ends_with(const std::string& text, const std::string& suffix) {
    return text.size() > suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string joined_list(const std::vector<std::string>& items) {
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < 12; ++i) {
        text += (i ? ", " : "") + items[i];
    }
    if (items.size() > 12) {
        text += " and " + std::to_string(items.size() - 12) + " more";
    }
    return text;
}

// The alpha settings a file's metadata carries, if any.
struct AlphaSettings {
    std::optional<double> alpha;
    std::map<std::string, double> pattern; // module-name suffix -> alpha
};

nlohmann::json parse_metadata(const core::SafetensorsFile& file, const std::string& key) {
    auto it = file.metadata().find(key);
    if (it == file.metadata().end()) {
        return nullptr;
    }
    try {
        return nlohmann::json::parse(it->second);
    } catch (const nlohmann::json::exception&) {
        throw Error(ErrorCode::BadInput,
                    "'" + file.path().string() + "': the metadata entry '" + key +
                        "' is not valid JSON.",
                    "Re-export the LoRA, or remove the broken metadata entry.");
    }
}

AlphaSettings read_alpha(const core::SafetensorsFile& file, const std::string& prefix) {
    AlphaSettings settings;
    auto read = [&](const nlohmann::json& config, const std::string& key_prefix) {
        auto alpha = config.find(key_prefix + "lora_alpha");
        if (alpha != config.end() && alpha->is_number()) {
            settings.alpha = alpha->get<double>();
        }
        auto pattern = config.find(key_prefix + "alpha_pattern");
        if (pattern != config.end() && pattern->is_object()) {
            for (const auto& [name, value] : pattern->items()) {
                if (value.is_number()) {
                    settings.pattern[name] = value.get<double>();
                }
            }
        }
    };
    // finetrainers / Tuneframe: a PEFT LoraConfig as JSON.
    if (nlohmann::json config = parse_metadata(file, "lora_config"); config.is_object()) {
        read(config, "");
    } else if (nlohmann::json packed = parse_metadata(file, "lora_adapter_metadata");
               packed.is_object()) {
        // newer diffusers: the LoraConfig's keys prefixed with the component name
        read(packed, packed.contains(prefix + ".lora_alpha") ? prefix + "." : "");
    }
    return settings;
}

struct FileAdapter {
    const core::TensorInfo* a = nullptr;
    const core::TensorInfo* b = nullptr;
    const core::TensorInfo* alpha = nullptr; // kohya files carry alpha per module
};

// A kohya-style scheme with the stem of every Linear layer of the model, to find the module a
// key names.
struct SchemeStems {
    const LoRAKeyScheme* scheme;
    std::map<std::string, std::string> modules; // stem -> module
};

// Groups the file's keys by module; anything that is neither `[prefix.]MODULE.lora_{A,B}.weight`
// nor a scheme's `STEM{down,up,alpha}` for a stem of the model's layers is reported.
std::map<std::string, FileAdapter> group_keys(const core::SafetensorsFile& file,
                                              const std::string& prefix,
                                              const std::vector<SchemeStems>& schemes,
                                              std::vector<std::string>& unknown) {
    std::map<std::string, FileAdapter> adapters;
    // Where a scheme's key goes: the slot of its module's adapter for the tensor it names.
    auto kohya = [&](const std::string& name) -> const core::TensorInfo** {
        for (const SchemeStems& stems : schemes) {
            const LoRAKeyScheme& scheme = *stems.scheme;
            for (const std::string* suffix : {&scheme.down, &scheme.up, &scheme.alpha}) {
                if (!key_ends_with(name, *suffix)) {
                    continue;
                }
                auto module = stems.modules.find(name.substr(0, name.size() - suffix->size()));
                if (module == stems.modules.end()) {
                    continue;
                }
                FileAdapter& adapter = adapters[module->second];
                return suffix == &scheme.down ? &adapter.a
                       : suffix == &scheme.up ? &adapter.b
                                              : &adapter.alpha;
            }
        }
        return nullptr;
    };
    for (const core::TensorInfo& tensor : file.tensors()) {
        std::string name = tensor.name;
        if (const core::TensorInfo** slot = kohya(name)) {
            *slot = &tensor;
            continue;
        }
        if (name.rfind(prefix + ".", 0) == 0) {
            name = name.substr(prefix.size() + 1);
        }
        if (key_ends_with(name, kA)) {
            adapters[name.substr(0, name.size() - std::strlen(kA))].a = &tensor;
        } else if (key_ends_with(name, kB)) {
            adapters[name.substr(0, name.size() - std::strlen(kB))].b = &tensor;
        } else {
            unknown.push_back(tensor.name);
        }
    }
    return adapters;
}

// Whether `key` is one of the tensors kohya-style files may carry beside their LoRA pairs that
// an adapter here cannot hold: a weight difference (ComfyUI's `.diff`), a bias difference
// (`.diff_b`, PEFT's lora_bias) or a DoRA magnitude (`.dora_scale`).
bool is_weight_difference(const std::string& key) {
    return key_ends_with(key, ".diff") || key_ends_with(key, ".diff_b") ||
           key_ends_with(key, ".dora_scale");
}

std::vector<std::string> first_keys(const core::SafetensorsFile& file, std::size_t count) {
    std::vector<std::string> keys;
    for (const core::TensorInfo& tensor : file.tensors()) {
        keys.push_back(tensor.name);
    }
    std::sort(keys.begin(), keys.end());
    keys.resize(std::min(keys.size(), count));
    return keys;
}

// A file none of whose keys names a layer of the model is for another model (another family,
// or a layout this family does not read): said as such rather than as a list of every key.
void refuse_foreign_file(const core::SafetensorsFile& file,
                         const std::map<std::string, FileAdapter>& adapters,
                         const std::map<std::string, LoRALinear>& layers,
                         const std::vector<LoRAKeyScheme>& schemes) {
    const bool any_layer = std::any_of(adapters.begin(), adapters.end(), [&](const auto& adapter) {
        return layers.count(adapter.first) > 0;
    });
    if (any_layer || file.tensors().empty()) {
        return;
    }
    std::string layouts = "the diffusers layout";
    for (const LoRAKeyScheme& scheme : schemes) {
        layouts += ", " + scheme.name;
    }
    std::string examples;
    for (const std::string& key : first_keys(file, 3)) {
        examples += (examples.empty() ? "'" : ", '") + key + "'";
    }
    throw Error(ErrorCode::BadInput,
                "'" + file.path().string() + "' holds no LoRA layer of this model: none of its " +
                    std::to_string(file.tensors().size()) + " tensors (such as " + examples +
                    ") names one of its layers in the layouts it reads (" + layouts +
                    "). It was made for another model.",
                "Use a LoRA trained for this base model's family and size.");
}

void refuse_weight_differences(const core::SafetensorsFile& file,
                               const std::vector<std::string>& unknown) {
    std::vector<std::string> differences;
    std::copy_if(unknown.begin(), unknown.end(), std::back_inserter(differences),
                 is_weight_difference);
    if (differences.empty()) {
        return;
    }
    throw Error(ErrorCode::BadInput,
                "'" + file.path().string() + "' holds " + std::to_string(differences.size()) +
                    " tensor(s) besides its low-rank layers that a LoRA adapter here cannot "
                    "apply: weight or bias differences ('.diff', '.diff_b') or DoRA magnitudes "
                    "('.dora_scale'): " +
                    joined_list(differences) + ".",
                "Use a version of the LoRA without them, or merge it into the base model with "
                "the tool it was made for and load that checkpoint instead.");
}

double alpha_for(const std::string& module, std::int64_t rank, const AlphaSettings& settings) {
    for (const auto& [pattern, alpha] : settings.pattern) {
        if (matches_target(module, pattern)) {
            return alpha;
        }
    }
    return settings.alpha.value_or(static_cast<double>(rank));
}

template <typename T>
T most_common(const std::vector<T>& values) {
    std::map<T, std::size_t> counts;
    for (const T& value : values) {
        ++counts[value];
    }
    T best{};
    std::size_t most = 0;
    for (const auto& [value, count] : counts) {
        if (count > most) {
            best = value;
            most = count;
        }
    }
    return best;
}

// "transformer_blocks.3.attn1.to_q" -> "attn1.to_q", "blocks.3.ffn.net.2" -> "ffn.net.2": a
// PEFT target naming every block's layer.
std::string target_name(const std::string& module) {
    static const std::regex block(R"(^[A-Za-z_]+\.\d+\.)");
    return std::regex_replace(module, block, "");
}

// kohya keeps A and B as trained and alpha beside them (a 0-d float32): its loaders scale by
// alpha / rank (comfyui_lora_keys.h).
void save_kohya(const std::vector<NamedLoRALinear>& layers, const std::filesystem::path& file,
                const LoRAKeyScheme& scheme, const LoRASaveOptions& options) {
    core::NamedTensors tensors;
    std::vector<double> alphas;
    for (const auto& [name, layer] : layers) {
        const std::string key = scheme.stem(name);
        if (key.empty()) {
            throw Error(ErrorCode::BadInput,
                        "The " + scheme.name + " LoRA layout has no name for the adapted layer '" +
                            name + "'.",
                        "Export it in the diffusers layout, or train adapters only on the layers "
                        "that layout names.");
        }
        tensors.emplace_back(key + scheme.down,
                             layer->lora_A->weight.detach().to(torch::kCPU, options.dtype));
        tensors.emplace_back(key + scheme.up,
                             layer->lora_B->weight.detach().to(torch::kCPU, options.dtype));
        tensors.emplace_back(key + scheme.alpha,
                             torch::tensor(static_cast<float>(layer->alpha()), torch::kFloat));
        alphas.push_back(layer->alpha());
    }
    nlohmann::json tuneframe = options.tuneframe;
    tuneframe["alpha"] = most_common(alphas);
    tuneframe["alpha_folded"] = false;
    core::write_tensors(file, tensors, {{"format", "pt"}, {"tuneframe", tuneframe.dump()}});
}

} // namespace

void save_lora_weights(torch::nn::Module& model, const std::filesystem::path& file,
                       const LoRASaveOptions& options) {
    const auto layers = adapted_layers(model);
    if (layers.empty()) {
        throw Error(ErrorCode::BadInput, "the model has no LoRA adapters to save.",
                    "Inject or load adapters first.");
    }
    core::NamedTensors tensors;
    std::vector<std::int64_t> ranks;
    std::vector<double> alphas;
    std::vector<std::string> targets;
    if (options.scheme) {
        save_kohya(layers, file, *options.scheme, options);
        return;
    }
    for (const auto& [name, layer] : layers) {
        const double fold = options.fold_alpha ? layer->alpha() / layer->rank() : 1.0;
        tensors.emplace_back(options.prefix + "." + name + kA,
                             layer->lora_A->weight.detach().to(torch::kCPU, options.dtype));
        tensors.emplace_back(
            options.prefix + "." + name + kB,
            (layer->lora_B->weight.detach().to(torch::kCPU) * fold).to(options.dtype));
        ranks.push_back(layer->rank());
        alphas.push_back(options.fold_alpha ? static_cast<double>(layer->rank()) : layer->alpha());
        const std::string target = target_name(name);
        if (std::find(targets.begin(), targets.end(), target) == targets.end()) {
            targets.push_back(target);
        }
    }
    const std::int64_t rank = most_common(ranks);
    const double alpha = most_common(alphas);
    nlohmann::json rank_pattern = nlohmann::json::object();
    nlohmann::json alpha_pattern = nlohmann::json::object();
    std::vector<double> trained_alphas;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (ranks[i] != rank) {
            rank_pattern[layers[i].first] = ranks[i];
        }
        if (alphas[i] != alpha) {
            alpha_pattern[layers[i].first] = alphas[i];
        }
        trained_alphas.push_back(layers[i].second->alpha());
    }
    const nlohmann::json lora_config = {
        {"peft_type", "LORA"},
        {"r", rank},
        {"lora_alpha", alpha},
        {"target_modules", targets},
        {"lora_dropout", 0.0},
        {"bias", "none"},
        {"init_lora_weights", true},
        {"use_rslora", false},
        {"use_dora", false},
        {"fan_in_fan_out", false},
        {"rank_pattern", rank_pattern},
        {"alpha_pattern", alpha_pattern},
    };
    nlohmann::json tuneframe = options.tuneframe;
    tuneframe["alpha"] = most_common(trained_alphas);
    tuneframe["alpha_folded"] = options.fold_alpha;
    core::write_tensors(
        file, tensors,
        {{"format", "pt"}, {"lora_config", lora_config.dump()}, {"tuneframe", tuneframe.dump()}});
}

LoadedLoRA load_lora_weights(torch::nn::Module& model, const std::filesystem::path& file,
                             const LoRALoadOptions& options) {
    const core::SafetensorsFile weights(file);
    const AlphaSettings alpha_settings = read_alpha(weights, options.prefix);
    std::map<std::string, LoRALinear> layers;
    std::vector<SchemeStems> schemes;
    for (const LoRAKeyScheme& scheme : options.schemes) {
        schemes.push_back({&scheme, {}});
    }
    for (auto& [name, layer] : linear_layers(model)) {
        layers.emplace(name, layer);
        for (SchemeStems& stems : schemes) {
            const std::string stem = stems.scheme->stem(name);
            if (!stem.empty()) {
                stems.modules.emplace(stem, name);
            }
        }
    }
    std::vector<std::string> problems;
    const auto adapters = group_keys(weights, options.prefix, schemes, problems);
    refuse_foreign_file(weights, adapters, layers, options.schemes);
    refuse_weight_differences(weights, problems);
    for (std::string& key : problems) {
        key += " (not a LoRA weight)";
    }
    for (const auto& [module, adapter] : adapters) {
        auto layer = layers.find(module);
        if (layer == layers.end()) {
            problems.push_back(module + " (no such Linear layer in the model)");
        } else if (!adapter.a || !adapter.b) {
            problems.push_back(module + " (lora_A or lora_B missing)");
        } else if (adapter.a->shape.size() != 2 || adapter.b->shape.size() != 2 ||
                   adapter.a->shape[0] != adapter.b->shape[1] ||
                   adapter.a->shape[1] != layer->second->in_features() ||
                   adapter.b->shape[0] != layer->second->out_features() ||
                   (layer->second->has_adapter() && layer->second->rank() != adapter.a->shape[0])) {
            problems.push_back(module + " (lora_A " + core::shape_string(adapter.a->shape) +
                               ", lora_B " + core::shape_string(adapter.b->shape) +
                               " do not fit the layer)");
        }
    }
    for (auto& [name, layer] : adapted_layers(model)) {
        if (!adapters.count(name)) {
            problems.push_back(name + " (the model has an adapter here, the file none)");
        }
    }
    if (!problems.empty()) {
        throw Error(ErrorCode::BadInput,
                    "'" + file.string() + "' does not fit this model: " + joined_list(problems) +
                        ".",
                    "Use a LoRA trained for this base model (same architecture and size).");
    }

    LoadedLoRA loaded;
    loaded.alpha_from_metadata = alpha_settings.alpha.has_value();
    std::vector<std::int64_t> ranks;
    torch::NoGradGuard no_grad;
    for (const auto& [module, adapter] : adapters) {
        LoRALinear layer = layers.at(module);
        const std::int64_t rank = adapter.a->shape[0];
        const double alpha = adapter.alpha
                                 ? core::read_tensor(weights, *adapter.alpha).item<double>()
                                 : alpha_for(module, rank, alpha_settings);
        if (!layer->has_adapter()) {
            layer->add_adapter({rank, alpha});
        }
        layer->set_alpha(alpha);
        layer->lora_A->weight.copy_(core::read_tensor(weights, *adapter.a));
        layer->lora_B->weight.copy_(core::read_tensor(weights, *adapter.b));
        layer->set_adapter_weight(options.weight);
        loaded.modules.push_back(module);
        ranks.push_back(rank);
    }
    if (!ranks.empty()) {
        loaded.rank = most_common(ranks);
        loaded.alpha = layers.at(loaded.modules.front())->alpha();
        loaded.alpha_from_metadata =
            loaded.alpha_from_metadata || adapters.begin()->second.alpha != nullptr;
    }
    return loaded;
}

} // namespace tuneframe::lora
