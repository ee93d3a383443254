#include "engine/models/keyed_generator.h"

#include <ATen/CPUGeneratorImpl.h>

namespace tuneframe::models {
namespace {

// SplitMix64's finaliser: consecutive keys give unrelated seeds.
std::uint64_t mix(std::uint64_t value) {
    value += 0x9e3779b97f4a7c15ULL;
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return value ^ (value >> 31);
}

} // namespace

std::uint64_t keyed_seed(std::uint64_t seed, std::uint64_t sample, std::uint64_t step,
                         DrawPurpose purpose) {
    std::uint64_t key = mix(seed);
    key = mix(key ^ sample);
    key = mix(key ^ step);
    return mix(key ^ static_cast<std::uint64_t>(purpose));
}

at::Generator keyed_generator(std::uint64_t seed, std::uint64_t sample, std::uint64_t step,
                              DrawPurpose purpose) {
    return at::make_generator<at::CPUGeneratorImpl>(keyed_seed(seed, sample, step, purpose));
}

} // namespace tuneframe::models
