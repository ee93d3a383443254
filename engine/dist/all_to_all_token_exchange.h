#pragma once

#include "engine/dist/communicator.h"
#include "engine/models/token_exchange.h"

namespace tuneframe::dist {

// TokenExchange over a sequence-parallel group: all-to-all for the token <-> head trades,
// all-gather for the output, each wrapped in an autograd function whose backward runs the
// reverse collective. On Gloo, bf16/fp16 activations travel as float32.
class AllToAllTokenExchange : public models::TokenExchange {
public:
    explicit AllToAllTokenExchange(Communicator& group)
        : group_(group) {}

    int size() const override { return group_.size(); }
    int rank() const override { return group_.rank(); }
    at::Tensor tokens_to_heads(const at::Tensor& x,
                               const std::vector<std::int64_t>& lengths) override;
    at::Tensor heads_to_tokens(const at::Tensor& x,
                               const std::vector<std::int64_t>& lengths) override;
    at::Tensor gather_tokens(const at::Tensor& x,
                             const std::vector<std::int64_t>& lengths) override;

    // The plain collectives, without autograd (the autograd functions call these).
    at::Tensor exchange_to_heads(const at::Tensor& x, const std::vector<std::int64_t>& lengths);
    at::Tensor exchange_to_tokens(const at::Tensor& x, const std::vector<std::int64_t>& lengths);
    at::Tensor gather(const at::Tensor& x, const std::vector<std::int64_t>& lengths);

private:
    at::Tensor all_to_all(const at::Tensor& rows, const std::vector<std::int64_t>& send,
                          const std::vector<std::int64_t>& receive);

    Communicator& group_;
};

} // namespace tuneframe::dist
