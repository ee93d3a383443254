#include "engine/lora/lora_injection.h"

#include "engine/core/error.h"

#include <torch/torch.h>

namespace tuneframe::lora {

using core::Error;
using core::ErrorCode;

bool matches_target(const std::string& module_name, const std::string& target) {
    if (target.empty()) {
        return false;
    }
    if (module_name == target) {
        return true;
    }
    return module_name.size() > target.size() &&
           module_name.compare(module_name.size() - target.size(), target.size(), target) == 0 &&
           module_name[module_name.size() - target.size() - 1] == '.';
}

bool is_adapter_tensor(const std::string& name) {
    for (const char* part : {"lora_A.", "lora_B."}) {
        const std::size_t at = name.find(part);
        if (at != std::string::npos && (at == 0 || name[at - 1] == '.')) {
            return true;
        }
    }
    return false;
}

std::vector<NamedLoRALinear> linear_layers(torch::nn::Module& model) {
    std::vector<NamedLoRALinear> layers;
    for (const auto& item : model.named_modules()) {
        if (auto linear = std::dynamic_pointer_cast<LoRALinearImpl>(item.value())) {
            layers.emplace_back(item.key(), LoRALinear(linear));
        }
    }
    return layers;
}

std::vector<NamedLoRALinear> adapted_layers(torch::nn::Module& model) {
    std::vector<NamedLoRALinear> layers;
    for (auto& [name, layer] : linear_layers(model)) {
        if (layer->has_adapter()) {
            layers.emplace_back(name, layer);
        }
    }
    return layers;
}

std::vector<std::string> inject_lora(torch::nn::Module& model, const LoRAConfig& config) {
    if (config.target_modules.empty()) {
        throw Error(ErrorCode::BadInput, "no LoRA target modules were given.",
                    "Name the layers to adapt, e.g. to_q, to_k, to_v, to_out.0.");
    }
    const auto modules = model.named_modules();
    std::vector<std::string> adapted;
    for (const std::string& target : config.target_modules) {
        std::size_t matched = 0;
        for (const auto& item : modules) {
            if (!matches_target(item.key(), target)) {
                continue;
            }
            auto linear = std::dynamic_pointer_cast<LoRALinearImpl>(item.value());
            if (!linear) {
                throw Error(ErrorCode::BadInput,
                            "LoRA target '" + target + "' matches '" + item.key() +
                                "', which is not a Linear layer.",
                            "Target Linear layers only (to_q, to_k, to_v, to_out.0, "
                            "ff.net.0.proj, ff.net.2, ...).");
            }
            ++matched;
            if (!linear->has_adapter()) {
                linear->add_adapter({config.rank, config.alpha, config.dropout, config.init});
                adapted.push_back(item.key());
            }
        }
        if (matched == 0) {
            throw Error(ErrorCode::BadInput,
                        "LoRA target '" + target + "' matches no module of the model.",
                        "Use module names as they appear in the checkpoint keys (to_q, "
                        "attn1.to_out.0, ff.net.0.proj, ...).");
        }
    }
    return adapted;
}

void set_lora_weight(torch::nn::Module& model, double weight) {
    for (auto& [name, layer] : adapted_layers(model)) {
        layer->set_adapter_weight(weight);
    }
}

void merge_lora(torch::nn::Module& model) {
    for (auto& [name, layer] : adapted_layers(model)) {
        layer->merge();
    }
}

void unmerge_lora(torch::nn::Module& model) {
    for (auto& [name, layer] : adapted_layers(model)) {
        layer->unmerge();
    }
}

void remove_lora(torch::nn::Module& model) {
    for (auto& [name, layer] : adapted_layers(model)) {
        layer->remove_adapter();
    }
}

std::vector<at::Tensor> lora_parameters(torch::nn::Module& model) {
    std::vector<at::Tensor> parameters;
    for (const auto& item : model.named_parameters()) {
        if (is_adapter_tensor(item.key())) {
            parameters.push_back(item.value());
        }
    }
    return parameters;
}

void freeze_all_but_lora(torch::nn::Module& model) {
    for (auto& item : model.named_parameters()) {
        item.value().set_requires_grad(is_adapter_tensor(item.key()));
    }
}

} // namespace tuneframe::lora
