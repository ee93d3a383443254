#include "engine/lora/lora_rank_check.h"

#include "engine/core/error.h"

#include <algorithm>

namespace tuneframe::lora {

namespace {

bool ends_with_component(const std::string& target, const std::string& name) {
    return target == name || (target.size() > name.size() &&
                              target.compare(target.size() - name.size(), name.size(), name) == 0 &&
                              target[target.size() - name.size() - 1] == '.');
}

} // namespace

std::optional<std::int64_t>
narrowest_target_width(const std::string& target,
                       const models::cogvideox::CogVideoXTransformer3DConfig& config) {
    const std::int64_t inner = config.inner_dim();
    // Attention projections are inner -> inner; the feed-forward widens inner four times.
    for (const char* name : {"to_q", "to_k", "to_v", "to_out.0", "ff.net.0.proj", "ff.net.2"}) {
        if (ends_with_component(target, name)) {
            return inner;
        }
    }
    // The adaptive norms project the time embedding to six times the width.
    for (const char* name : {"norm1.linear", "norm2.linear"}) {
        if (ends_with_component(target, name)) {
            return std::min(config.time_embed_dim, 6 * inner);
        }
    }
    return std::nullopt;
}

void check_lora_rank_fits(const common::LoraSettings& lora,
                          const models::cogvideox::CogVideoXTransformer3DConfig& config,
                          const std::string& origin) {
    for (const std::string& target : lora.targets) {
        const std::optional<std::int64_t> width = narrowest_target_width(target, config);
        if (width && lora.rank > *width) {
            throw core::Error(core::ErrorCode::BadInput,
                              origin + ": LoRA rank " + std::to_string(lora.rank) +
                                  " does not fit the '" + target + "' layers of this model, " +
                                  std::to_string(*width) + " features wide.",
                              "Choose a LoRA rank of at most " + std::to_string(*width) +
                                  " (lora.rank).")
                .with_field("lora.rank");
        }
    }
}

} // namespace tuneframe::lora
