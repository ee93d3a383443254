#pragma once

#include "engine/train/optim/optimizer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tuneframe::train {

// What a training job says about its optimizer, named as cogvideox-factory's options. An unset
// value takes the chosen optimizer's own default (torch, bitsandbytes, prodigyopt, came_pytorch);
// a value the chosen optimizer has no use for is ignored, as there.
struct OptimizerOptions {
    std::optional<double> lr;    // adam family 1e-3, prodigy 1 (a multiplier), came: required
    std::optional<double> beta1; // 0.9
    std::optional<double> beta2; // 0.999
    // came: the instability average (0.9999); prodigy: the d statistics' (sqrt(beta2)).
    std::optional<double> beta3;
    std::optional<double> weight_decay; // adamw, adamw8bit, adamw-cpu-offload 1e-2; others 0
    std::optional<double> epsilon;      // 1e-8; CAME has its own pair below
    double came_eps1 = 1e-30;
    double came_eps2 = 1e-16;
    bool prodigy_decouple = true;
    bool prodigy_use_bias_correction = false;
    bool prodigy_safeguard_warmup = false;
    std::int64_t min_8bit_size = 4096; // adamw8bit: smaller tensors keep float32 state
    // bf16/fp16 parameters: update a float32 master copy (see Optimizer).
    bool fp32_master_weights = true;
};

// "adamw, adam, adamw8bit, adamw-cpu-offload, prodigy, came", for help and error text.
std::string optimizer_names();

// Builds the optimizer called `name` over `parameters`. An unknown name is an Unsupported
// error naming "optimizer" and the accepted values; a bad value is a BadInput error naming its
// field ("lr", "beta2", "epsilon", ...).
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, NamedParameters parameters,
                                          const OptimizerOptions& options);

} // namespace tuneframe::train
