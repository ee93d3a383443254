#include "engine/dist/gradients/gradient_buckets.h"

namespace tuneframe::dist {

std::vector<std::vector<std::size_t>> group_into_buckets(const std::vector<std::size_t>& order,
                                                         const std::vector<std::int64_t>& bytes,
                                                         std::int64_t bucket_bytes) {
    std::vector<std::vector<std::size_t>> buckets;
    std::int64_t filled = 0;
    for (std::size_t k : order) {
        if (buckets.empty() || (filled + bytes[k] > bucket_bytes && !buckets.back().empty())) {
            buckets.emplace_back();
            filled = 0;
        }
        buckets.back().push_back(k);
        filled += bytes[k];
    }
    return buckets;
}

std::vector<std::size_t> reverse_registration_order(std::size_t count) {
    std::vector<std::size_t> order;
    for (std::size_t k = count; k-- > 0;) {
        order.push_back(k);
    }
    return order;
}

} // namespace tuneframe::dist
