#include "engine/train/optim/optimizer_factory.h"

#include "engine/core/error.h"
#include "engine/train/optim/adam_optimizer.h"
#include "engine/train/optim/adamw_8bit_optimizer.h"
#include "engine/train/optim/adamw_cpu_offload_optimizer.h"
#include "engine/train/optim/came_optimizer.h"
#include "engine/train/optim/prodigy_optimizer.h"

#include <array>
#include <string_view>

namespace tuneframe::train {
namespace {

constexpr std::array<std::string_view, 6> kOptimizerNames{
    "adamw", "adam", "adamw8bit", "adamw-cpu-offload", "prodigy", "came",
};

AdamHyperParameters adam_hyper(const OptimizerOptions& options, bool decoupled) {
    AdamHyperParameters hyper;
    hyper.decoupled = decoupled;
    hyper.lr = options.lr.value_or(1e-3);
    hyper.beta1 = options.beta1.value_or(0.9);
    hyper.beta2 = options.beta2.value_or(0.999);
    hyper.eps = options.epsilon.value_or(1e-8);
    // torch.optim.AdamW and bitsandbytes' AdamW8bit default to 1e-2, torch.optim.Adam to 0.
    hyper.weight_decay = options.weight_decay.value_or(decoupled ? 1e-2 : 0.0);
    return hyper;
}

} // namespace

std::string optimizer_names() {
    std::string names;
    for (std::string_view name : kOptimizerNames) {
        names += (names.empty() ? "" : ", ") + std::string(name);
    }
    return names;
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& name, NamedParameters parameters,
                                          const OptimizerOptions& options) {
    const bool masters = options.fp32_master_weights;
    if (name == "adamw" || name == "adam") {
        return std::make_unique<AdamOptimizer>(std::move(parameters),
                                               adam_hyper(options, name == "adamw"), masters);
    }
    if (name == "adamw8bit") {
        return std::make_unique<AdamW8bitOptimizer>(
            std::move(parameters), adam_hyper(options, true), options.min_8bit_size, masters);
    }
    if (name == "adamw-cpu-offload") {
        return std::make_unique<AdamWCpuOffloadOptimizer>(std::move(parameters),
                                                          adam_hyper(options, true), masters);
    }
    if (name == "prodigy") {
        ProdigyHyperParameters hyper;
        hyper.lr = options.lr.value_or(hyper.lr);
        hyper.beta1 = options.beta1.value_or(hyper.beta1);
        hyper.beta2 = options.beta2.value_or(hyper.beta2);
        hyper.beta3 = options.beta3;
        hyper.eps = options.epsilon.value_or(hyper.eps);
        hyper.weight_decay = options.weight_decay.value_or(hyper.weight_decay);
        hyper.decouple = options.prodigy_decouple;
        hyper.use_bias_correction = options.prodigy_use_bias_correction;
        hyper.safeguard_warmup = options.prodigy_safeguard_warmup;
        return std::make_unique<ProdigyOptimizer>(std::move(parameters), hyper, masters);
    }
    if (name == "came") {
        if (!options.lr) {
            throw core::Error(core::ErrorCode::BadInput,
                              "lr is not set; CAME has no default learning rate.",
                              "Set lr, for example 1e-4.");
        }
        CAMEHyperParameters hyper;
        hyper.lr = *options.lr;
        hyper.beta1 = options.beta1.value_or(hyper.beta1);
        hyper.beta2 = options.beta2.value_or(hyper.beta2);
        hyper.beta3 = options.beta3.value_or(hyper.beta3);
        hyper.eps1 = options.came_eps1;
        hyper.eps2 = options.came_eps2;
        hyper.weight_decay = options.weight_decay.value_or(hyper.weight_decay);
        return std::make_unique<CAMEOptimizer>(std::move(parameters), hyper, masters);
    }
    throw core::Error(core::ErrorCode::Unsupported,
                      "optimizer is \"" + name + "\", which Tuneframe does not support.",
                      "Use one of: " + optimizer_names() + ".");
}

} // namespace tuneframe::train
