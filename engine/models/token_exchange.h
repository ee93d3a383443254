#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace tuneframe::models {

// Sequence parallelism as the transformer sees it (DeepSpeed-Ulysses): each rank of a group
// holds a run of one sample's tokens, and attention, the only layer that mixes tokens, trades
// tokens for heads around itself. The model knows nothing of process groups; engine/dist
// implements this over c10d. Every call is differentiable (its backward is the reverse
// exchange). `lengths[i]` is rank i's number of tokens.
class TokenExchange {
public:
    virtual ~TokenExchange() = default;
    virtual int size() const = 0;
    virtual int rank() const = 0;
    // [B, heads, lengths[rank], d] -> [B, heads / size, sum(lengths), d]: every rank's tokens in
    // rank order, this rank's share of the heads.
    virtual at::Tensor tokens_to_heads(const at::Tensor& x,
                                       const std::vector<std::int64_t>& lengths) = 0;
    // The inverse of tokens_to_heads.
    virtual at::Tensor heads_to_tokens(const at::Tensor& x,
                                       const std::vector<std::int64_t>& lengths) = 0;
    // [B, lengths[rank], C] -> [B, sum(lengths), C]. Its backward keeps this rank's part of the
    // incoming gradient: every rank computes the same loss from the gathered output.
    virtual at::Tensor gather_tokens(const at::Tensor& x,
                                     const std::vector<std::int64_t>& lengths) = 0;
};

// What a block's attention needs to run split: the exchange and every rank's token count
// (text and video together, in the order [text; video] of each rank).
struct SequenceSplit {
    std::shared_ptr<TokenExchange> exchange;
    std::vector<std::int64_t> lengths;
};

// `total` tokens in `parts` runs as even as can be; the first `total % parts` one longer.
std::vector<std::int64_t> even_parts(std::int64_t total, std::int64_t parts);

} // namespace tuneframe::models
