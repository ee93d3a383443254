#include "engine/models/module_weights.h"

#include "engine/core/error.h"

#include <torch/torch.h>

#include <set>

namespace tuneframe::models {
namespace {

using core::Error;
using core::ErrorCode;

// "3 missing (a, b, c)" with at most a handful of names; the rest counted.
std::string describe_names(const std::vector<std::string>& names, const char* what) {
    constexpr std::size_t kShown = 6;
    std::string text = std::to_string(names.size()) + " " + what + " (";
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) {
        text += (i ? ", " : "") + names[i];
    }
    if (names.size() > kShown) {
        text += ", ...";
    }
    return text + ")";
}

bool starts_with_any(const std::string& name, const std::vector<std::string>& prefixes) {
    for (const std::string& prefix : prefixes) {
        if (name.rfind(prefix, 0) == 0) {
            return true;
        }
    }
    return false;
}

} // namespace

void check_placement(const WeightsPlacement& placement) {
    if (!c10::isFloatingType(placement.dtype)) {
        throw Error(ErrorCode::BadInput,
                    std::string("models run in a floating-point type, not ") +
                        c10::toString(placement.dtype) + ".",
                    "Use fp32, bf16 or (on CUDA) fp16.");
    }
    if (placement.dtype == c10::kHalf && placement.device.is_cpu()) {
        throw Error(ErrorCode::Unsupported, "fp16 runs only on CUDA devices, not on the CPU.",
                    "Use bf16 or fp32 on the CPU, or choose a CUDA device.");
    }
}

c10::ScalarType parse_dtype(const std::string& name) {
    if (name == "fp32" || name == "float32") {
        return c10::kFloat;
    }
    if (name == "bf16" || name == "bfloat16") {
        return c10::kBFloat16;
    }
    if (name == "fp16" || name == "float16") {
        return c10::kHalf;
    }
    throw Error(ErrorCode::BadInput, "unknown dtype '" + name + "'.", "Choose fp32, bf16 or fp16.");
}

c10::Device parse_device(const std::string& name) {
    c10::Device device = c10::kCPU;
    try {
        device = c10::Device(name);
    } catch (const c10::Error&) {
        throw Error(ErrorCode::BadInput, "unknown device '" + name + "'.",
                    "Choose cpu, cuda or cuda:N.");
    }
    if (device.is_cuda() && (!torch::cuda::is_available() ||
                             device.index() >= static_cast<int>(torch::cuda::device_count()))) {
        throw Error(ErrorCode::Unsupported, "device '" + name + "' is not available.",
                    "Run 'tuneframe-engine devices' to list the devices this build sees.");
    }
    return device;
}

void load_module_weights(torch::nn::Module& module, const core::SafetensorsCheckpoint& checkpoint,
                         const WeightLoadRules& rules) {
    struct Assignment {
        at::Tensor target;
        const core::TensorInfo* source;
    };
    std::vector<Assignment> assignments;
    std::vector<std::string> missing;
    std::vector<std::string> misshaped;
    std::set<std::string> used;
    auto plan = [&](const std::string& name, const at::Tensor& target) {
        const core::TensorInfo* info = checkpoint.find(name);
        if (!info) {
            auto alias = rules.aliases.find(name);
            info = alias != rules.aliases.end() ? checkpoint.find(alias->second) : nullptr;
        }
        if (!info) {
            missing.push_back(name);
            return;
        }
        used.insert(info->name);
        if (info->shape != target.sizes().vec() || !core::dtype_is_floating(info->dtype)) {
            misshaped.push_back(name + " " + std::string(core::dtype_name(info->dtype)) + " " +
                                core::shape_string(info->shape) + " in the file, " +
                                core::shape_string(target.sizes().vec()) + " in the model");
            return;
        }
        assignments.push_back({target, info});
    };
    for (const auto& item : module.named_parameters(true)) {
        plan(item.key(), item.value());
    }
    for (const auto& item : module.named_buffers(true)) {
        plan(item.key(), item.value());
    }
    std::set<std::string> tolerated;
    for (const auto& [parameter, alias] : rules.aliases) {
        tolerated.insert({parameter, alias});
    }
    std::vector<std::string> unexpected;
    for (const std::string& name : checkpoint.names()) {
        if (!used.count(name) && !tolerated.count(name) &&
            !starts_with_any(name, rules.ignored_prefixes)) {
            unexpected.push_back(name);
        }
    }
    if (!missing.empty() || !unexpected.empty() || !misshaped.empty()) {
        std::string problems;
        for (const auto& [names, what] :
             {std::pair{&missing, "missing"}, std::pair{&unexpected, "unexpected"},
              std::pair{&misshaped, "with another shape or type"}}) {
            if (!names->empty()) {
                problems += (problems.empty() ? "" : "; ") + describe_names(*names, what);
            }
        }
        throw Error(ErrorCode::BadInput,
                    "'" + checkpoint.source().string() +
                        "' does not fit the model its config.json describes: " + problems + ".",
                    "Check that config.json and the weights come from the same model; a partial "
                    "or foreign checkpoint cannot be loaded.");
    }
    torch::NoGradGuard no_grad;
    for (Assignment& assignment : assignments) {
        const auto& shard = checkpoint.shard_of(assignment.source->name);
        assignment.target.copy_(core::view_tensor(shard, *assignment.source));
    }
}

core::NamedTensors module_tensors(const torch::nn::Module& module) {
    core::NamedTensors tensors;
    for (const auto& item : module.named_parameters(true)) {
        tensors.emplace_back(item.key(), item.value().detach());
    }
    for (const auto& item : module.named_buffers(true)) {
        tensors.emplace_back(item.key(), item.value().detach());
    }
    return tensors;
}

} // namespace tuneframe::models
