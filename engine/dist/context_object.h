#pragma once

#include <torch/csrc/autograd/custom_function.h>

#include <cstdint>

namespace tuneframe::dist {

// A long-lived object (an exchange over a process group) handed from an autograd function's
// forward to its backward. saved_data holds IValues, so the pointer travels as an integer; the
// object must outlive every graph built while it is in use, as a model's exchanges do.
template <typename T>
void keep_in_context(torch::autograd::AutogradContext* ctx, const char* key, T* object) {
    ctx->saved_data[key] = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(object));
}

template <typename T>
T* kept_in_context(torch::autograd::AutogradContext* ctx, const char* key) {
    return reinterpret_cast<T*>(static_cast<std::intptr_t>(ctx->saved_data[key].toInt()));
}

} // namespace tuneframe::dist
