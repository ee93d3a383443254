#include "engine/core/kernels/attention.h"
#include "engine/core/kernels/kept_attention.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::core {
namespace {

struct Inputs {
    at::Tensor query, key, value;
};

Inputs random_inputs(std::int64_t head_dim, std::uint64_t seed) {
    torch::manual_seed(seed);
    return {torch::randn({2, 3, 40, head_dim}), torch::randn({2, 3, 40, head_dim}),
            torch::randn({2, 3, 40, head_dim})};
}

std::vector<at::Tensor> leaves(const Inputs& in) {
    return {in.query.detach().requires_grad_(true), in.key.detach().requires_grad_(true),
            in.value.detach().requires_grad_(true)};
}

double max_abs(const at::Tensor& a, const at::Tensor& b) {
    return (a - b).abs().max().item<double>();
}

// A checkpoint's two runs: the first without grad, the recomputation with it.
at::Tensor first_run(KeptAttention& kept, const Inputs& in) {
    torch::NoGradGuard no_grad;
    return kept.attend(in.query, in.key, in.value);
}

TEST(KeptAttention, TheRecomputationHandsBackTheFirstRunsOutput) {
    if (!KeptAttention::available()) {
        GTEST_SKIP() << "LibTorch " TORCH_VERSION " has no fused attention backward to call "
                        "(2.6+); its recomputation runs attention again";
    }
    KeptAttention kept;
    const Inputs first = random_inputs(16, 1);
    const at::Tensor out = first_run(kept, first);
    EXPECT_EQ(kept.kept_count(), 1U);
    EXPECT_LT(max_abs(out, core::scaled_dot_product_attention(first.query, first.key, first.value)),
              1e-6);

    // Other q, k, v in the recomputation: had attention run again, the output would follow
    // them. Real recomputations pass the same values; this only shows the kernel is skipped.
    const std::vector<at::Tensor> other = leaves(random_inputs(16, 2));
    const at::Tensor again = kept.attend(other[0], other[1], other[2]);
    EXPECT_EQ(kept.kept_count(), 0U);
    EXPECT_TRUE(torch::equal(again, out));
    EXPECT_TRUE(again.requires_grad());
}

TEST(KeptAttention, GradientsEqualThoseOfAttentionRunAgain) {
    const Inputs in = random_inputs(16, 3);
    const at::Tensor upstream = torch::randn({2, 3, 40, 16});

    const std::vector<at::Tensor> plain = leaves(in);
    (core::scaled_dot_product_attention(plain[0], plain[1], plain[2]) * upstream).sum().backward();

    KeptAttention kept;
    first_run(kept, in);
    const std::vector<at::Tensor> recomputed = leaves(in);
    (kept.attend(recomputed[0], recomputed[1], recomputed[2]) * upstream).sum().backward();
    for (std::size_t i = 0; i < 3; ++i) {
        ASSERT_TRUE(recomputed[i].grad().defined()) << i;
        EXPECT_GT(plain[i].grad().abs().sum().item<double>(), 0.0) << i;
        EXPECT_LT(max_abs(recomputed[i].grad(), plain[i].grad()), 1e-6) << i;
    }
}

TEST(KeptAttention, AHeadSizeTheFusedKernelsPadIsRunAgain) {
    // 12 is not a multiple of 8: not kept, so the recomputation follows its inputs.
    KeptAttention kept;
    first_run(kept, random_inputs(12, 4));
    const Inputs other = random_inputs(12, 5);
    const at::Tensor again = kept.attend(other.query, other.key, other.value);
    EXPECT_LT(
        max_abs(again, core::scaled_dot_product_attention(other.query, other.key, other.value)),
        1e-6);
    EXPECT_EQ(kept.kept_count(), 0U);
}

TEST(KeptAttention, MoreRecomputedAttentionsThanKeptOnesIsAnError) {
    KeptAttention kept;
    const std::vector<at::Tensor> in = leaves(random_inputs(16, 6));
    EXPECT_THROW(kept.attend(in[0], in[1], in[2]), std::exception);
}

} // namespace
} // namespace tuneframe::core
