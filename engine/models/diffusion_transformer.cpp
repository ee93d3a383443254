#include "engine/models/diffusion_transformer.h"

#include <algorithm>

namespace tuneframe::models {

void DiffusionTransformerImpl::set_checkpointed_blocks(std::int64_t count) {
    checkpointed_blocks_ = std::clamp<std::int64_t>(count, 0, num_blocks());
}

} // namespace tuneframe::models
