#pragma once

#include <ATen/Tensor.h>

#include <optional>

namespace tuneframe::core {

// softmax(q k^T / sqrt(head_dim) + mask) v over [B, heads, L, head_dim] tensors, through
// LibTorch's fused kernels where the linked version has them (2.x: flash and memory-efficient
// attention on CUDA) and its math implementation otherwise (1.13 only has the private
// `_scaled_dot_product_attention`). `mask` is additive and broadcastable to [B, heads, Lq, Lk].
// Call it qualified: on 2.x, argument-dependent lookup also finds at::scaled_dot_product_attention
// and an unqualified call is ambiguous.
at::Tensor scaled_dot_product_attention(const at::Tensor& query, const at::Tensor& key,
                                        const at::Tensor& value,
                                        const std::optional<at::Tensor>& mask = std::nullopt);

} // namespace tuneframe::core
