#pragma once

#include <ATen/Tensor.h>

#include <optional>
#include <string>

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

// Which of LibTorch's fused attention kernels the process may use on CUDA, as
// torch.backends.cuda.enable_*_sdp does (a process-wide LibTorch setting): "auto" allows every
// kernel again, LibTorch's default, and leaves the choice to it; "flash", "efficient" or "cudnn"
// allow that kernel alone, so a shape it cannot run fails instead of silently falling back; "math"
// the unfused implementation. LibTorch 1.13 only has "auto" and "math"; cuDNN attention needs 2.x.
void select_attention_backend(const std::string& name);

} // namespace tuneframe::core
