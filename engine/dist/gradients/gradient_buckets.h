#pragma once

#include <cstdint>
#include <vector>

namespace tuneframe::dist {

// Parameters (by index, in the order given: the order backward is expected to produce their
// gradients in) grouped into buckets of at most `bucket_bytes`; a parameter larger than that
// gets a bucket of its own. `bytes[k]`: parameter k's size on the wire.
std::vector<std::vector<std::size_t>> group_into_buckets(const std::vector<std::size_t>& order,
                                                         const std::vector<std::int64_t>& bytes,
                                                         std::int64_t bucket_bytes);

// Every index from `count - 1` down to 0: the reverse of registration, which is roughly the
// order backward reaches the parameters in.
std::vector<std::size_t> reverse_registration_order(std::size_t count);

} // namespace tuneframe::dist
