#include "engine/models/transformer_memory.h"

#include <algorithm>

namespace tuneframe::models {

std::int64_t TransformerMemory::checkpointed_blocks(bool gradient_checkpointing,
                                                    std::optional<std::int64_t> limit) const {
    if (!gradient_checkpointing) {
        return 0;
    }
    return std::clamp<std::int64_t>(limit.value_or(num_blocks()), 0, num_blocks());
}

} // namespace tuneframe::models
