// The block ops behind the fused CUDA kernels, on the CPU: their ATen paths equal the
// compositions the models used before (bit for bit), and the first-use check that guards every
// fused kernel refuses one that disagrees, in its output or only in a gradient, and falls back.
#include "engine/core/kernels/fused_kernel_checks.h"
#include "engine/core/kernels/gated_residual.h"
#include "engine/core/kernels/head_norm_rotary.h"
#include "engine/core/kernels/layer_norm_modulate.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace tuneframe::core {
namespace {

using torch::indexing::Slice;

// A candidate whose output equals `reference`'s and whose gradients are scaled: the check must
// see a kernel that is wrong only in backward.
template <typename Args>
std::function<at::Tensor(const Args&)>
wrong_backward(std::function<at::Tensor(const Args&)> reference) {
    return [reference](const Args& args) {
        const at::Tensor out = reference(args);
        return out.detach() + (out - out.detach()) * 1.5;
    };
}

template <typename Args>
std::function<at::Tensor(const Args&)>
wrong_output(std::function<at::Tensor(const Args&)> reference, double by) {
    return [reference, by](const Args& args) {
        return reference(args) + by;
    };
}

LayerNormModulateArgs adaln_args(torch::Dtype dtype, torch::Dtype modulation,
                                 std::int64_t text_rows, bool affine) {
    torch::manual_seed(5);
    const auto in = [](torch::Dtype type) {
        return torch::TensorOptions().dtype(type);
    };
    LayerNormModulateArgs args;
    args.x = torch::randn({2, 19, 24}).to(dtype);
    if (affine) {
        args.weight = (1 + 0.1 * torch::randn({24})).to(dtype).requires_grad_();
        args.bias = (0.1 * torch::randn({24})).to(dtype).requires_grad_();
    }
    const auto vector = [&] {
        return (0.3 * torch::randn({2, 24}, in(torch::kFloat32))).to(modulation);
    };
    args.video = {vector().requires_grad_(), vector().requires_grad_()};
    args.text = {vector().requires_grad_(), vector().requires_grad_()};
    args.text_rows = text_rows;
    args.x.requires_grad_();
    return args;
}

// diffusers' CogVideoXLayerNormZero as the block computed it with two streams.
at::Tensor two_stream_adaln(const LayerNormModulateArgs& a) {
    const auto modulate = [](const at::Tensor& x, const Modulation& m) {
        return x * (1 + m.scale.unsqueeze(1)) + m.shift.unsqueeze(1);
    };
    const at::Tensor text = a.x.index({Slice(), Slice(0, a.text_rows)});
    const at::Tensor video = a.x.index({Slice(), Slice(a.text_rows)});
    const std::int64_t width = a.x.size(2);
    return torch::cat({modulate(at::layer_norm(text, {width}, a.weight, a.bias, a.eps), a.text),
                       modulate(at::layer_norm(video, {width}, a.weight, a.bias, a.eps), a.video)},
                      1);
}

TEST(LayerNormModulate, EqualsTheTwoStreamBlockBitForBit) {
    for (const torch::Dtype dtype : {torch::kFloat32, torch::kBFloat16}) {
        for (const std::int64_t text_rows : {5, 1, 18}) {
            const LayerNormModulateArgs args = adaln_args(dtype, dtype, text_rows, true);
            EXPECT_TRUE(torch::equal(layer_norm_modulate(args), two_stream_adaln(args)))
                << dtype << ", " << text_rows << " text rows";
        }
    }
}

// Wan's block: FP32LayerNorm (no affine) over bf16 tokens, float32 modulation, cast back.
TEST(LayerNormModulate, ComputesInFloat32OverBf16TokensWithFloat32Modulation) {
    const LayerNormModulateArgs args = adaln_args(torch::kBFloat16, torch::kFloat32, 0, false);
    const at::Tensor wan = (at::layer_norm(args.x.to(torch::kFloat32), {24}, {}, {}, args.eps) *
                                (1 + args.video.scale.unsqueeze(1)) +
                            args.video.shift.unsqueeze(1))
                               .to(torch::kBFloat16);
    const at::Tensor out = layer_norm_modulate(args);
    EXPECT_EQ(out.scalar_type(), torch::kBFloat16);
    EXPECT_TRUE(torch::equal(out, wan));
}

TEST(GatedResidual, EqualsTheTwoStreamBlockBitForBit) {
    torch::manual_seed(6);
    for (const torch::Dtype dtype : {torch::kFloat32, torch::kBFloat16}) {
        const at::Tensor x = torch::randn({2, 19, 24}).to(dtype);
        const at::Tensor y = torch::randn({2, 19, 24}).to(dtype);
        const at::Tensor video = torch::randn({2, 1, 24}).to(dtype);
        const at::Tensor text = torch::randn({2, 1, 24}).to(dtype);
        const at::Tensor expected =
            torch::cat({x.index({Slice(), Slice(0, 7)}) + text * y.index({Slice(), Slice(0, 7)}),
                        x.index({Slice(), Slice(7)}) + video * y.index({Slice(), Slice(7)})},
                       1);
        EXPECT_TRUE(torch::equal(gated_residual({x, y, video, text, 7}), expected)) << dtype;
        EXPECT_TRUE(torch::equal(gated_residual({x, y, video, {}, 0}), x + video * y)) << dtype;
    }
    // Wan: float32 gates over bf16 tokens, the sum in float32, cast back.
    const at::Tensor x = torch::randn({1, 9, 24}).to(torch::kBFloat16);
    const at::Tensor y = torch::randn({1, 9, 24}).to(torch::kBFloat16);
    const at::Tensor gate = torch::randn({1, 1, 24});
    EXPECT_TRUE(torch::equal(gated_residual({x, y, gate, {}, 0}),
                             (x.to(torch::kFloat32) + y * gate).to(torch::kBFloat16)));
}

// The q/k norm and rotary as the attention computed them: LayerNorm on the transposed
// [B, heads, T, d] view, then diffusers' apply_rotary_emb on the video rows.
at::Tensor transposed_norm_and_rotary(const HeadNormRotaryArgs& a, std::int64_t head_dim) {
    const std::int64_t batch = a.x.size(0);
    at::Tensor q = at::layer_norm(a.x.view({batch, -1, a.heads, head_dim}).transpose(1, 2),
                                  {head_dim}, a.weight, a.bias, a.eps);
    const at::Tensor text = q.index({Slice(), Slice(), Slice(0, a.text_rows)});
    const at::Tensor video = q.index({Slice(), Slice(), Slice(a.text_rows)});
    std::vector<std::int64_t> pairs = video.sizes().vec();
    pairs.back() /= 2;
    pairs.push_back(2);
    const auto parts = video.reshape(pairs).unbind(-1);
    const at::Tensor rotated = torch::stack({-parts[1], parts[0]}, -1).flatten(3);
    const at::Tensor cos = a.cos.unsqueeze(0).unsqueeze(0);
    const at::Tensor sin = a.sin.unsqueeze(0).unsqueeze(0);
    return torch::cat({text, (video.to(torch::kFloat32) * cos + rotated.to(torch::kFloat32) * sin)
                                 .to(video.scalar_type())},
                      2);
}

TEST(HeadNormRotary, EqualsTheTransposedNormAndRotaryBitForBit) {
    torch::manual_seed(7);
    for (const torch::Dtype dtype : {torch::kFloat32, torch::kBFloat16}) {
        HeadNormRotaryArgs args;
        args.x = torch::randn({2, 13, 3 * 8}).to(dtype);
        args.heads = 3;
        args.weight = (1 + 0.1 * torch::randn({8})).to(dtype);
        args.bias = (0.1 * torch::randn({8})).to(dtype);
        args.cos = torch::randn({9, 8});
        args.sin = torch::randn({9, 8});
        args.text_rows = 4;
        const at::Tensor out = head_norm_rotary(args);
        EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{2, 3, 13, 8}));
        EXPECT_TRUE(torch::equal(out, transposed_norm_and_rotary(args, 8))) << dtype;
        // In the projection's layout: [B, T, H, d] memory seen as [B, H, T, d].
        EXPECT_EQ(out.stride(1), 8);
        EXPECT_EQ(out.stride(2), 3 * 8);
    }
}

TEST(FusedKernelChecks, RefusesAKernelThatDisagreesOnceAndWarns) {
    FusedKernelChecks checks;
    std::vector<std::string> warned;
    checks.set_reporter([&warned](const std::string& warning) { warned.push_back(warning); });
    int runs = 0;
    const auto failing = [&runs]() -> KernelCheckResult {
        ++runs;
        return std::string("its output: it differs by up to 0.5");
    };
    EXPECT_FALSE(checks.allows("layer_norm_modulate[width 64] on cuda:0", failing));
    EXPECT_FALSE(checks.allows("layer_norm_modulate[width 64] on cuda:0", failing));
    EXPECT_EQ(runs, 1);
    ASSERT_EQ(warned.size(), 1u);
    EXPECT_NE(warned[0].find("layer_norm_modulate[width 64] on cuda:0"), std::string::npos);
    EXPECT_NE(warned[0].find("differs by up to 0.5"), std::string::npos);
    EXPECT_NE(warned[0].find("ATen path"), std::string::npos);

    EXPECT_TRUE(checks.allows("layer_norm_modulate[width 128] on cuda:0",
                              [] { return KernelCheckResult(); }));
    EXPECT_FALSE(checks.allows("gated_residual[width 64] on cuda:0", []() -> KernelCheckResult {
        throw std::runtime_error("an illegal memory access");
    }));
    ASSERT_EQ(warned.size(), 2u);
    EXPECT_NE(warned[1].find("failed to run: an illegal memory access"), std::string::npos);
}

TEST(FusedKernelChecks, KeepsWarningsUntilAReporterComesAndCanBeSwitchedOff) {
    FusedKernelChecks checks;
    checks.allows("head_norm_rotary[head dim 64] on cuda:1",
                  [] { return KernelCheckResult("it has none"); });
    std::vector<std::string> warned;
    checks.set_reporter([&warned](const std::string& warning) { warned.push_back(warning); });
    EXPECT_EQ(warned.size(), 1u);
    EXPECT_EQ(checks.warnings(), warned);

    FusedKernelChecks off(false);
    bool ran = false;
    EXPECT_FALSE(off.allows("gated_residual[width 8] on cuda:0", [&ran] {
        ran = true;
        return KernelCheckResult();
    }));
    EXPECT_FALSE(ran);
}

// The check each op runs at first use, with injected kernels: the ATen path itself passes,
// a kernel wrong in its output or only in its gradients does not; and the dispatch falls back.
TEST(FusedKernelChecks, LayerNormModulateCheckCatchesWrongKernels) {
    for (const std::int64_t text_rows : {0, 5}) {
        const LayerNormModulateArgs like =
            adaln_args(torch::kBFloat16, torch::kBFloat16, text_rows, true);
        const LayerNormModulateFunction reference = layer_norm_modulate_reference;
        EXPECT_EQ(check_layer_norm_modulate(reference, like), std::nullopt);
        EXPECT_NE(check_layer_norm_modulate(wrong_output(reference, 0.25), like), std::nullopt);
        const KernelCheckResult backward =
            check_layer_norm_modulate(wrong_backward(reference), like);
        ASSERT_NE(backward, std::nullopt);
        EXPECT_NE(backward->find("gradient"), std::string::npos) << *backward;
        // The video modulation on the text rows too: the bug a segment mix-up would be.
        const LayerNormModulateFunction no_text = [](const LayerNormModulateArgs& args) {
            LayerNormModulateArgs all_video = args;
            all_video.text_rows = 0;
            return layer_norm_modulate_reference(all_video);
        };
        EXPECT_EQ(check_layer_norm_modulate(no_text, like).has_value(), text_rows > 0);
    }
    // Inside a no-grad forward (a checkpoint's first pass), the forward alone is compared.
    const torch::NoGradGuard no_grad;
    const LayerNormModulateArgs like = adaln_args(torch::kFloat32, torch::kFloat32, 5, false);
    EXPECT_EQ(check_layer_norm_modulate(
                  wrong_backward<LayerNormModulateArgs>(layer_norm_modulate_reference), like),
              std::nullopt);
}

TEST(FusedKernelChecks, GatedResidualCheckCatchesWrongKernels) {
    torch::manual_seed(8);
    GatedResidualArgs like{torch::randn({1, 10, 40}, torch::kBFloat16).requires_grad_(),
                           torch::randn({1, 10, 40}, torch::kBFloat16).requires_grad_(),
                           torch::randn({1, 1, 40}).requires_grad_(),
                           torch::randn({1, 1, 40}).requires_grad_(), 3};
    const GatedResidualFunction reference = gated_residual_reference;
    EXPECT_EQ(check_gated_residual(reference, like), std::nullopt);
    EXPECT_NE(check_gated_residual(wrong_output(reference, 0.25), like), std::nullopt);
    EXPECT_NE(check_gated_residual(wrong_backward(reference), like), std::nullopt);
}

TEST(FusedKernelChecks, HeadNormRotaryCheckCatchesWrongKernels) {
    torch::manual_seed(9);
    HeadNormRotaryArgs like;
    like.x = torch::randn({1, 12, 2 * 64}, torch::kBFloat16).requires_grad_();
    like.heads = 2;
    like.weight = torch::ones({64}, torch::kBFloat16).requires_grad_();
    like.bias = torch::zeros({64}, torch::kBFloat16).requires_grad_();
    like.cos = torch::randn({8, 64});
    like.sin = torch::randn({8, 64});
    like.text_rows = 4;
    const HeadNormRotaryFunction reference = head_norm_rotary_reference;
    EXPECT_EQ(check_head_norm_rotary(reference, like), std::nullopt);
    EXPECT_NE(check_head_norm_rotary(wrong_output(reference, 0.25), like), std::nullopt);
    EXPECT_NE(check_head_norm_rotary(wrong_backward(reference), like), std::nullopt);
    // Rotary with sin's sign flipped: the same magnitudes, the wrong direction.
    const HeadNormRotaryFunction flipped = [](const HeadNormRotaryArgs& args) {
        HeadNormRotaryArgs other = args;
        other.sin = -args.sin;
        return head_norm_rotary_reference(other);
    };
    EXPECT_NE(check_head_norm_rotary(flipped, like), std::nullopt);
}

// What the dispatch does with a refused kernel: the ATen path's result, and the warning.
TEST(FusedKernelChecks, ARefusedKernelFallsBackToTheAtenPath) {
    FusedKernelChecks checks;
    std::vector<std::string> warned;
    checks.set_reporter([&warned](const std::string& warning) { warned.push_back(warning); });
    const GatedResidualArgs args{torch::randn({1, 6, 16}), torch::randn({1, 6, 16}),
                                 torch::randn({1, 1, 16}), torch::randn({1, 1, 16}), 2};
    const GatedResidualFunction broken =
        wrong_output<GatedResidualArgs>(gated_residual_reference, 1.0);
    const auto run = [&](const GatedResidualArgs& call) {
        return checks.allows("gated_residual[injected] on cpu",
                             [&] { return check_gated_residual(broken, call); })
                   ? broken(call)
                   : gated_residual_reference(call);
    };
    EXPECT_TRUE(torch::equal(run(args), gated_residual_reference(args)));
    EXPECT_TRUE(torch::equal(run(args), gated_residual_reference(args)));
    EXPECT_EQ(warned.size(), 1u);
}

TEST(WithinBounds, AllowsRoundingAndRefusesRealErrors) {
    const at::Tensor expected = torch::linspace(-4, 4, 101).to(torch::kBFloat16);
    EXPECT_EQ(within_bounds(expected, expected), std::nullopt);
    const at::Tensor rounded =
        (expected.to(torch::kFloat32) * (1 + 1.0 / 256)).to(torch::kBFloat16);
    EXPECT_EQ(within_bounds(rounded, expected), std::nullopt);
    EXPECT_NE(within_bounds(expected + 0.2, expected), std::nullopt);
    EXPECT_NE(within_bounds(expected.to(torch::kFloat32), expected), std::nullopt);
    EXPECT_NE(within_bounds(expected.narrow(0, 0, 100), expected), std::nullopt);
    const at::Tensor exact = torch::linspace(-4, 4, 101);
    EXPECT_NE(within_bounds(exact + 1e-3, exact), std::nullopt);
    EXPECT_EQ(within_bounds(exact + 1e-5, exact), std::nullopt);
}

} // namespace
} // namespace tuneframe::core
