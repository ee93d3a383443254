#pragma once

#include <ATen/core/Generator.h>

#include <cstdint>

namespace tuneframe::models {

// What a draw is for; part of the key so the draws of one sample and step are independent.
enum class DrawPurpose : std::uint64_t {
    Noise = 1,
    Timestep = 2,
    Posterior = 3,
    CaptionDropout = 4,
    ImageNoise = 5,
    ImageDropout = 6,
    Flip = 7,
    Shuffle = 8,
    Expert = 9,   // which of a two-expert model's transformers a micro-batch trains
    Adapter = 10, // the initial adapters of a two-expert model's second transformer
};

// A CPU generator seeded from (job seed, global sample index, step, purpose). Every random
// number the trainer uses comes from one of these, so a run's numbers do not depend on the world
// size, the batch split or where a run was interrupted: resuming needs no generator state, and
// two ranks of batch 1 draw exactly what one rank of batch 2 draws.
at::Generator keyed_generator(std::uint64_t seed, std::uint64_t sample, std::uint64_t step,
                              DrawPurpose purpose);

// The 64-bit seed keyed_generator uses (SplitMix64 over the key), for draws outside ATen.
std::uint64_t keyed_seed(std::uint64_t seed, std::uint64_t sample, std::uint64_t step,
                         DrawPurpose purpose);

} // namespace tuneframe::models
