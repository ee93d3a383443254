#include "engine/core/kernels/attention.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace tuneframe::core {
namespace {

// The definition, in float64.
at::Tensor reference_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                               const c10::optional<at::Tensor>& mask) {
    at::Tensor scores =
        torch::matmul(q.to(torch::kFloat64), k.to(torch::kFloat64).transpose(-2, -1)) /
        std::sqrt(static_cast<double>(q.size(-1)));
    if (mask) {
        scores = scores + mask->to(torch::kFloat64);
    }
    return torch::matmul(torch::softmax(scores, -1), v.to(torch::kFloat64));
}

struct Shape {
    std::int64_t batch, heads, query_length, key_length, head_dim;
};

class Attention : public ::testing::TestWithParam<Shape> {};

TEST_P(Attention, MatchesTheDefinition) {
    const Shape s = GetParam();
    torch::manual_seed(1);
    at::Tensor q = torch::randn({s.batch, s.heads, s.query_length, s.head_dim});
    at::Tensor k = torch::randn({s.batch, s.heads, s.key_length, s.head_dim});
    at::Tensor v = torch::randn({s.batch, s.heads, s.key_length, s.head_dim});
    at::Tensor out = core::scaled_dot_product_attention(q, k, v);
    EXPECT_EQ(out.sizes(), q.sizes());
    EXPECT_LT((out.to(torch::kFloat64) - reference_attention(q, k, v, c10::nullopt))
                  .abs()
                  .max()
                  .item<double>(),
              1e-5);
}

TEST_P(Attention, AppliesAnAdditiveMask) {
    const Shape s = GetParam();
    torch::manual_seed(2);
    at::Tensor q = torch::randn({s.batch, s.heads, s.query_length, s.head_dim});
    at::Tensor k = torch::randn({s.batch, s.heads, s.key_length, s.head_dim});
    at::Tensor v = torch::randn({s.batch, s.heads, s.key_length, s.head_dim});
    // Hide the last key from every query, as padding masks do.
    at::Tensor mask = torch::zeros({s.batch, 1, 1, s.key_length});
    mask.index_put_({torch::indexing::Slice(), 0, 0, s.key_length - 1}, -1e9);
    at::Tensor out = core::scaled_dot_product_attention(q, k, v, mask);
    EXPECT_LT(
        (out.to(torch::kFloat64) - reference_attention(q, k, v, mask)).abs().max().item<double>(),
        1e-5);
    using torch::indexing::Slice;
    at::Tensor without_last = core::scaled_dot_product_attention(
        q, k.index({Slice(), Slice(), Slice(0, s.key_length - 1)}),
        v.index({Slice(), Slice(), Slice(0, s.key_length - 1)}));
    EXPECT_LT((out - without_last).abs().max().item<double>(), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Attention,
                         ::testing::Values(Shape{1, 1, 1, 2, 8}, Shape{2, 3, 5, 7, 16},
                                           Shape{1, 2, 33, 17, 64}, Shape{2, 4, 10, 10, 24}));

} // namespace
} // namespace tuneframe::core
