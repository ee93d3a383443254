#include "engine/models/token_exchange.h"

namespace tuneframe::models {

std::vector<std::int64_t> even_parts(std::int64_t total, std::int64_t parts) {
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(parts), total / parts);
    for (std::int64_t i = 0; i < total % parts; ++i) {
        ++sizes[static_cast<std::size_t>(i)];
    }
    return sizes;
}

} // namespace tuneframe::models
