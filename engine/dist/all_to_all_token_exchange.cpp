#include "engine/dist/all_to_all_token_exchange.h"

#include "engine/dist/context_object.h"

#include <torch/torch.h>

namespace tuneframe::dist {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

AllToAllTokenExchange* exchange_of(AutogradContext* ctx) {
    return kept_in_context<AllToAllTokenExchange>(ctx, "exchange");
}

std::vector<std::int64_t> lengths_of(AutogradContext* ctx) {
    return ctx->saved_data["lengths"].toIntVector();
}

void remember(AutogradContext* ctx, AllToAllTokenExchange* exchange,
              const std::vector<std::int64_t>& lengths) {
    keep_in_context(ctx, "exchange", exchange);
    ctx->saved_data["lengths"] = lengths;
}

at::Tensor trade(AllToAllTokenExchange* exchange, const at::Tensor& x,
                 const std::vector<std::int64_t>& lengths, bool to_heads) {
    return to_heads ? exchange->exchange_to_heads(x, lengths)
                    : exchange->exchange_to_tokens(x, lengths);
}

// Tokens for heads (or back); the gradient makes the opposite trade.
struct TradeTokensAndHeads : torch::autograd::Function<TradeTokensAndHeads> {
    static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x,
                              AllToAllTokenExchange* exchange, std::vector<std::int64_t> lengths,
                              bool to_heads) {
        remember(ctx, exchange, lengths);
        ctx->saved_data["to_heads"] = to_heads;
        return trade(exchange, x, lengths, to_heads);
    }
    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        const bool to_heads = ctx->saved_data["to_heads"].toBool();
        return {trade(exchange_of(ctx), grads[0], lengths_of(ctx), !to_heads), at::Tensor(),
                at::Tensor(), at::Tensor()};
    }
};

struct GatherTokens : torch::autograd::Function<GatherTokens> {
    static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x,
                              AllToAllTokenExchange* exchange, std::vector<std::int64_t> lengths) {
        remember(ctx, exchange, lengths);
        return exchange->gather(x, lengths);
    }
    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        const std::vector<std::int64_t> lengths = lengths_of(ctx);
        const auto me = static_cast<std::size_t>(exchange_of(ctx)->rank());
        std::int64_t start = 0;
        for (std::size_t i = 0; i < me; ++i) {
            start += lengths[i];
        }
        return {grads[0].narrow(1, start, lengths[me]).contiguous(), at::Tensor(), at::Tensor()};
    }
};

} // namespace

at::Tensor AllToAllTokenExchange::all_to_all(const at::Tensor& rows,
                                             const std::vector<std::int64_t>& send,
                                             const std::vector<std::int64_t>& receive) {
    const bool widen = group_.backend() == "gloo" && rows.scalar_type() != at::kFloat &&
                       rows.scalar_type() != at::kDouble;
    const at::Tensor wire = widen ? rows.to(at::kFloat) : rows;
    const at::Tensor out = group_.all_to_all(wire, send, receive);
    return widen ? out.to(rows.scalar_type()) : out;
}

at::Tensor AllToAllTokenExchange::exchange_to_heads(const at::Tensor& x,
                                                    const std::vector<std::int64_t>& lengths) {
    const std::int64_t ranks = size();
    const std::int64_t batch = x.size(0);
    const std::int64_t heads = x.size(1) / ranks;
    const std::int64_t local = x.size(2);
    const std::int64_t dim = x.size(3);
    // [B, H, n, d] -> [ranks, B, H/ranks, n, d]: head group i goes to rank i.
    const at::Tensor rows =
        x.reshape({batch, ranks, heads, local, dim}).permute({1, 0, 2, 3, 4}).reshape({-1, dim});
    std::vector<std::int64_t> send(static_cast<std::size_t>(ranks), batch * heads * local);
    std::vector<std::int64_t> receive;
    for (std::int64_t length : lengths) {
        receive.push_back(batch * heads * length);
    }
    const at::Tensor received = all_to_all(rows, send, receive);
    std::vector<at::Tensor> pieces;
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        pieces.push_back(
            received.narrow(0, offset, receive[i]).view({batch, heads, lengths[i], dim}));
        offset += receive[i];
    }
    return at::cat(pieces, 2);
}

at::Tensor AllToAllTokenExchange::exchange_to_tokens(const at::Tensor& x,
                                                     const std::vector<std::int64_t>& lengths) {
    const std::int64_t ranks = size();
    const std::int64_t batch = x.size(0);
    const std::int64_t heads = x.size(1);
    const std::int64_t dim = x.size(3);
    const std::int64_t local = lengths[static_cast<std::size_t>(rank())];
    std::vector<at::Tensor> pieces;
    std::vector<std::int64_t> send;
    std::int64_t offset = 0;
    for (std::int64_t length : lengths) {
        pieces.push_back(x.narrow(2, offset, length).reshape({-1, dim}));
        send.push_back(batch * heads * length);
        offset += length;
    }
    std::vector<std::int64_t> receive(static_cast<std::size_t>(ranks), batch * heads * local);
    const at::Tensor received = all_to_all(at::cat(pieces, 0), send, receive);
    // [ranks, B, H/ranks, n, d] -> [B, H, n, d]
    return received.view({ranks, batch, heads, local, dim})
        .permute({1, 0, 2, 3, 4})
        .reshape({batch, ranks * heads, local, dim});
}

at::Tensor AllToAllTokenExchange::gather(const at::Tensor& x,
                                         const std::vector<std::int64_t>& lengths) {
    const std::int64_t longest = *std::max_element(lengths.begin(), lengths.end());
    at::Tensor padded = x;
    if (x.size(1) < longest) {
        padded =
            at::cat({x, at::zeros({x.size(0), longest - x.size(1), x.size(2)}, x.options())}, 1);
    }
    const bool widen = group_.backend() == "gloo" && x.scalar_type() != at::kFloat &&
                       x.scalar_type() != at::kDouble;
    at::Tensor everyone = group_.all_gather((widen ? padded.to(at::kFloat) : padded).unsqueeze(0));
    if (widen) {
        everyone = everyone.to(x.scalar_type());
    }
    std::vector<at::Tensor> pieces;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        pieces.push_back(everyone[static_cast<std::int64_t>(i)].narrow(1, 0, lengths[i]));
    }
    return at::cat(pieces, 1);
}

at::Tensor AllToAllTokenExchange::tokens_to_heads(const at::Tensor& x,
                                                  const std::vector<std::int64_t>& lengths) {
    return TradeTokensAndHeads::apply(x, this, lengths, true);
}

at::Tensor AllToAllTokenExchange::heads_to_tokens(const at::Tensor& x,
                                                  const std::vector<std::int64_t>& lengths) {
    return TradeTokensAndHeads::apply(x, this, lengths, false);
}

at::Tensor AllToAllTokenExchange::gather_tokens(const at::Tensor& x,
                                                const std::vector<std::int64_t>& lengths) {
    return GatherTokens::apply(x, this, lengths);
}

} // namespace tuneframe::dist
