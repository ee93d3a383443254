#pragma once

// Whether a job's LoRA rank fits the layers its targets name, read from the transformer's
// config alone, so that `run` refuses a rank the model cannot take before an hour of latent
// caching and `estimate` (the studio's form) says so while the job is edited. The adapter layer
// checks it again when it is built.

#include "common/training_job.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tuneframe::lora {

// The narrower side of the Linear layers `target` names in a CogVideoX transformer block
// (to_q, to_k, to_v, to_out.0, the feed-forward and the norms' projections); nullopt for a name
// not known here.
std::optional<std::int64_t>
narrowest_target_width(const std::string& target,
                       const models::cogvideox::CogVideoXTransformer3DConfig& config);

// Throws a BadInput core::Error naming `origin`, the target and the widest rank that fits.
void check_lora_rank_fits(const common::LoraSettings& lora,
                          const models::cogvideox::CogVideoXTransformer3DConfig& config,
                          const std::string& origin);

} // namespace tuneframe::lora
