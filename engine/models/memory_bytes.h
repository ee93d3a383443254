#pragma once

#include "engine/core/error.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

// The memory arithmetic of `estimate`, `inspect` and the families' TransformerMemory multiplies
// config values (depth, widths, heads, text length, VAE scales) that come from a model folder's
// config.json with job values (batch, buckets, rank). It runs in long double, which holds every
// product of such values without wrapping, and each figure comes back to an integer here: a
// negative figure (a saving larger than what it saves on) counts nothing, and one at or past 2^63
// bytes, or not finite, is refused instead of wrapping or being cast out of range.
namespace tuneframe::models {

// 2^63: past any memory, and what a signed 64-bit count still holds.
inline constexpr long double kMemoryFigureLimit = 9223372036854775808.0L;

// `bytes` as an unsigned count; `what` names the figure ("the activations") for the refusal.
inline std::uint64_t memory_bytes(long double bytes, const std::string& what) {
    if (std::isnan(bytes) || bytes >= kMemoryFigureLimit) {
        char figure[32];
        std::snprintf(figure, sizeof figure, "%.3Lg", bytes);
        throw core::Error(core::ErrorCode::BadInput,
                          "The memory estimate of " + what + " comes to " + figure +
                              " bytes, more than any machine holds (2^63).",
                          "Check the model folder's config.json files (depth, widths, heads, "
                          "text length, VAE channels): use the ones that came with the "
                          "checkpoint; or lower the job's batch_size, buckets or lora.rank.");
    }
    return bytes <= 0 ? 0 : static_cast<std::uint64_t>(bytes);
}

// The same for a count kept signed (parameters, elements): below 2^63, never negative.
inline std::int64_t memory_count(long double count, const std::string& what) {
    return static_cast<std::int64_t>(memory_bytes(count, what));
}

// a + b, refused as memory_bytes refuses when the sum reaches 2^63.
inline std::uint64_t add_memory_bytes(std::uint64_t a, std::uint64_t b, const std::string& what) {
    return memory_bytes(static_cast<long double>(a) + static_cast<long double>(b), what);
}

} // namespace tuneframe::models
