// The engine's fused CUDA kernels against their ATen paths: outputs and every gradient, within
// the bounds of the dtype, on awkward shapes (rows that fill no block or chunk, no text rows,
// widths that take the scalar path, strided inputs), and against a float32 truth. Runs only where
// LibTorch sees a CUDA device and the build has the kernels (TUNEFRAME_WITH_CUDA_KERNELS);
// elsewhere every test reports itself skipped.
#include "engine/core/device/runtime_info.h"
#include "engine/core/kernels/fused_kernel_checks.h"
#include "engine/core/kernels/gated_residual.h"
#include "engine/core/kernels/head_norm_rotary.h"
#include "engine/core/kernels/layer_norm_modulate.h"
#include "engine/lora/lora_linear.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sstream>
#include <string>
#include <vector>

namespace tuneframe::core {
namespace {

class GpuFusedKernels : public ::testing::Test {
protected:
    void SetUp() override {
        if (!cuda_usable()) {
            GTEST_SKIP() << "no CUDA device";
        }
#ifndef TUNEFRAME_CUDA_KERNELS
        GTEST_SKIP() << "built without the engine's CUDA kernels (TUNEFRAME_WITH_CUDA_KERNELS)";
#endif
    }
};

const c10::Device kCuda(c10::kCUDA, 0);

at::Tensor on_cuda(std::uint64_t stream, at::IntArrayRef sizes, c10::ScalarType type, double scale,
                   double offset = 0.0) {
    return check_input(stream, sizes, at::TensorOptions().dtype(type).device(kCuda), scale, offset);
}

// The float32 truth: `reference` on the inputs upcast, its output and gradients cast to the
// fused ones' dtypes, and `fused` within the bounds of its dtype of both it and the ATen path.
template <typename Function>
void expect_fused_matches(const Function& fused, const Function& reference,
                          const std::vector<at::Tensor>& inputs,
                          const std::vector<bool>& differentiable, const std::string& what) {
    EXPECT_EQ(compare_with_reference(fused, reference, inputs, differentiable), std::nullopt)
        << what << ": against the ATen path in the same dtypes";

    std::vector<at::Tensor> wide;
    for (const at::Tensor& input : inputs) {
        wide.push_back(input.defined() && input.is_floating_point() ? input.to(at::kFloat) : input);
    }
    const auto run = [&](const Function& function, const std::vector<at::Tensor>& values) {
        std::vector<at::Tensor> leaves;
        std::vector<at::Tensor> wanted;
        for (std::size_t i = 0; i < values.size(); ++i) {
            at::Tensor leaf = values[i].defined() ? values[i].detach().clone() : at::Tensor();
            if (leaf.defined() && differentiable[i]) {
                leaf.set_requires_grad(true);
                wanted.push_back(leaf);
            }
            leaves.push_back(leaf);
        }
        std::vector<at::Tensor> results{function(leaves)};
        if (!wanted.empty()) {
            const at::Tensor gradient =
                check_input(99, results[0].sizes(), results[0].options(), 1.0);
            for (const at::Tensor& g :
                 torch::autograd::grad({results[0]}, wanted, {gradient}, false, false, true)) {
                results.push_back(g);
            }
        }
        return results;
    };
    const std::vector<at::Tensor> actual = run(fused, inputs);
    const std::vector<at::Tensor> truth = run(reference, wide);
    ASSERT_EQ(actual.size(), truth.size()) << what;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const at::Tensor expected =
            truth[i].defined() ? truth[i].to(actual[i].scalar_type()) : truth[i];
        EXPECT_EQ(within_bounds(actual[i], expected), std::nullopt)
            << what << ": " << (i == 0 ? "output" : "gradient " + std::to_string(i - 1))
            << " against the float32 truth";
    }
}

struct AdaLNCase {
    c10::ScalarType x;
    c10::ScalarType modulation;
    std::int64_t batch;
    std::int64_t rows;
    std::int64_t text_rows;
    std::int64_t width;
    bool affine;
    bool broadcast; // one sample's modulation for the whole batch
};

std::string describe(const AdaLNCase& c) {
    std::ostringstream text;
    text << c.x << " x, " << c.modulation << " modulation, [" << c.batch << ", " << c.rows << ", "
         << c.width << "], " << c.text_rows << " text rows" << (c.affine ? ", affine" : "")
         << (c.broadcast ? ", broadcast" : "");
    return text.str();
}

TEST_F(GpuFusedKernels, LayerNormModulateMatchesItsAtenPath) {
    const std::vector<AdaLNCase> cases{
        {at::kBFloat16, at::kBFloat16, 1, 250, 26, 1920, true, false}, // 2b's width
        {at::kBFloat16, at::kBFloat16, 2, 37, 5, 3072, true, false},   // 5b's
        {at::kBFloat16, at::kBFloat16, 2, 37, 0, 512, true, true},
        {at::kBFloat16, at::kBFloat16, 1, 9, 9, 64, false, false}, // text rows only
        {at::kBFloat16, at::kFloat, 2, 37, 0, 1536, false, false}, // Wan's
        {at::kBFloat16, at::kFloat, 1, 41, 0, 5120, false, false}, // Wan 14B: two vectors
        {at::kFloat, at::kFloat, 2, 37, 5, 4096, true, false},
        {at::kFloat, at::kFloat, 1, 19, 3, 130, true, false}, // the scalar path
        {at::kHalf, at::kHalf, 2, 33, 4, 1920, true, false},
        {at::kHalf, at::kFloat, 1, 17, 0, 136, false, false},
    };
    for (const AdaLNCase& c : cases) {
        const std::int64_t samples = c.broadcast ? 1 : c.batch;
        const std::vector<at::Tensor> inputs{
            on_cuda(1, {c.batch, c.rows, c.width}, c.x, 2.0, 0.3),
            c.affine ? on_cuda(2, {c.width}, c.modulation, 0.2, 1.0) : at::Tensor(),
            c.affine ? on_cuda(3, {c.width}, c.modulation, 0.2) : at::Tensor(),
            on_cuda(4, {samples, 1, c.width}, c.modulation, 0.5),
            on_cuda(5, {samples, 1, c.width}, c.modulation, 0.3),
            c.text_rows ? on_cuda(6, {samples, 1, c.width}, c.modulation, 0.5) : at::Tensor(),
            c.text_rows ? on_cuda(7, {samples, 1, c.width}, c.modulation, 0.3) : at::Tensor()};
        const auto call = [&c](const LayerNormModulateFunction& function) {
            return [function, &c](const std::vector<at::Tensor>& in) {
                LayerNormModulateArgs args;
                args.x = in[0];
                args.weight = in[1];
                args.bias = in[2];
                args.video = {in[3], in[4]};
                args.text = {in[5], in[6]};
                args.text_rows = c.text_rows;
                return function(args);
            };
        };
        const TensorFunction fused = call(layer_norm_modulate_fused);
        const TensorFunction reference = call(layer_norm_modulate_reference);
        expect_fused_matches(fused, reference, inputs, std::vector<bool>(7, true), describe(c));
        // A LoRA run's frozen norm and modulation: only dx, from the kernel without sums.
        expect_fused_matches(fused, reference, inputs,
                             {true, false, false, false, false, false, false},
                             describe(c) + ", dx only");
    }
}

TEST_F(GpuFusedKernels, GatedResidualMatchesItsAtenPath) {
    const std::vector<AdaLNCase> cases{
        {at::kBFloat16, at::kBFloat16, 1, 250, 26, 1920, false, false},
        {at::kBFloat16, at::kBFloat16, 2, 37, 5, 3072, false, true},
        {at::kBFloat16, at::kFloat, 2, 37, 0, 1536, false, false},
        {at::kFloat, at::kFloat, 1, 19, 19, 130, false, false},
        {at::kHalf, at::kHalf, 2, 21, 3, 64, false, false},
    };
    for (const AdaLNCase& c : cases) {
        const std::int64_t samples = c.broadcast ? 1 : c.batch;
        const std::vector<at::Tensor> inputs{
            on_cuda(11, {c.batch, c.rows, c.width}, c.x, 1.0),
            on_cuda(12, {c.batch, c.rows, c.width}, c.x, 1.0),
            on_cuda(13, {samples, 1, c.width}, c.modulation, 0.5),
            c.text_rows ? on_cuda(14, {samples, 1, c.width}, c.modulation, 0.5) : at::Tensor()};
        const auto call = [&c](const GatedResidualFunction& function) {
            return [function, &c](const std::vector<at::Tensor>& in) {
                return function({in[0], in[1], in[2], in[3], c.text_rows});
            };
        };
        expect_fused_matches<TensorFunction>(call(gated_residual_fused),
                                             call(gated_residual_reference), inputs,
                                             {true, true, true, true}, describe(c));
        expect_fused_matches<TensorFunction>(
            call(gated_residual_fused), call(gated_residual_reference), inputs,
            {true, true, false, false}, describe(c) + ", no gates");
    }
}

struct HeadCase {
    c10::ScalarType x;
    c10::ScalarType weight;
    std::int64_t head_dim;
    std::int64_t rows;
    std::int64_t text_rows;
    bool rotary;
    bool strided; // x a slice of a wider projection
};

TEST_F(GpuFusedKernels, HeadNormRotaryMatchesItsAtenPath) {
    const std::vector<HeadCase> cases{
        {at::kBFloat16, at::kBFloat16, 64, 250, 26, true, false}, // 5b: rotary, text first
        {at::kBFloat16, at::kBFloat16, 64, 37, 5, false, true},   // 2b: no rotary
        {at::kBFloat16, at::kBFloat16, 128, 37, 0, true, false},  // Wan's head dim, no text
        {at::kBFloat16, at::kFloat, 128, 29, 3, true, true},
        {at::kFloat, at::kFloat, 64, 33, 7, true, false},
        {at::kFloat, at::kFloat, 256, 19, 2, true, true},
        {at::kHalf, at::kHalf, 128, 23, 4, true, false},
    };
    constexpr std::int64_t kHeads = 3;
    for (const HeadCase& c : cases) {
        std::ostringstream what;
        what << c.x << " x, " << c.weight << " weight, d " << c.head_dim << ", " << c.rows
             << " rows, " << c.text_rows << " text" << (c.rotary ? ", rotary" : "")
             << (c.strided ? ", strided" : "");
        const std::int64_t width = kHeads * c.head_dim;
        at::Tensor x = on_cuda(21, {2, c.rows, width + (c.strided ? 64 : 0)}, c.x, 2.0, 0.2);
        if (c.strided) {
            x = x.narrow(2, 0, width);
        }
        const std::int64_t video = c.rows - c.text_rows;
        const at::Tensor angles = on_cuda(24, {video, c.head_dim}, at::kFloat, 2.0);
        const std::vector<at::Tensor> inputs{x, on_cuda(22, {c.head_dim}, c.weight, 0.2, 1.0),
                                             on_cuda(23, {c.head_dim}, c.weight, 0.2),
                                             c.rotary ? angles.cos() : at::Tensor(),
                                             c.rotary ? angles.sin() : at::Tensor()};
        const auto call = [&c](const HeadNormRotaryFunction& function) {
            return [function, &c](const std::vector<at::Tensor>& in) {
                return function({in[0], kHeads, in[1], in[2], 1e-6, in[3], in[4], c.text_rows});
            };
        };
        expect_fused_matches<TensorFunction>(call(head_norm_rotary_fused),
                                             call(head_norm_rotary_reference), inputs,
                                             {true, true, true, false, false}, what.str());
        expect_fused_matches<TensorFunction>(
            call(head_norm_rotary_fused), call(head_norm_rotary_reference), inputs,
            {true, false, false, false, false}, what.str() + ", frozen norm");
    }
}

TEST_F(GpuFusedKernels, TheDispatchRunsThemAndTheirChecksPass) {
    LayerNormModulateArgs adaln;
    adaln.x = on_cuda(31, {1, 40, 1920}, at::kBFloat16, 1.0);
    adaln.video = {on_cuda(32, {1, 1920}, at::kBFloat16, 0.5),
                   on_cuda(33, {1, 1920}, at::kBFloat16, 0.5)};
    adaln.text = adaln.video;
    adaln.text_rows = 6;
    ASSERT_TRUE(layer_norm_modulate_fusable(adaln));
    EXPECT_EQ(within_bounds(layer_norm_modulate(adaln), layer_norm_modulate_reference(adaln)),
              std::nullopt);
    const GatedResidualArgs residual{adaln.x, adaln.x, adaln.video.scale, adaln.video.shift, 6};
    ASSERT_TRUE(gated_residual_fusable(residual));
    gated_residual(residual);
    HeadNormRotaryArgs head;
    head.x = on_cuda(34, {1, 40, 30 * 64}, at::kBFloat16, 1.0);
    head.heads = 30;
    ASSERT_TRUE(head_norm_rotary_fusable(head));
    head_norm_rotary(head);
    EXPECT_TRUE(FusedKernelChecks::process().warnings().empty())
        << FusedKernelChecks::process().warnings().front();
}

// A CogVideoX block (heads of 64, rotary, LoRA on q/k/v/to_out) in bf16 on CUDA, the fused
// kernels inside, against the same block in float32 on the CPU: the whole path agrees.
TEST_F(GpuFusedKernels, ABf16BlockOnCudaAgreesWithFloat32OnTheCpu) {
    torch::manual_seed(41);
    auto config = models::cogvideox::find_architecture("cogvideox-tiny").transformer;
    config.num_attention_heads = 2;
    config.attention_head_dim = 64;
    models::cogvideox::CogVideoXBlock block(config);
    auto& attention = *block->attn1;
    for (lora::LoRALinearImpl* layer :
         {attention.to_q.get(), attention.to_k.get(), attention.to_v.get(),
          attention.to_out[0]->as<lora::LoRALinearImpl>()}) {
        layer->add_adapter({8, 8});
        torch::NoGradGuard no_grad;
        layer->lora_B->weight.normal_(0.0, 0.1);
    }
    const std::int64_t text = 11;
    const std::int64_t video = 53;
    const at::Tensor tokens = torch::randn({2, text + video, config.inner_dim()});
    const at::Tensor temb = torch::randn({2, config.time_embed_dim});
    const at::Tensor angles = torch::randn({video, 64}) * 3;
    const models::cogvideox::RotaryEmbedding cpu_rotary{angles.cos(), angles.sin()};
    const at::Tensor probe = torch::randn(tokens.sizes());

    const auto step = [&](const c10::Device& device, c10::ScalarType dtype) {
        block->to(device);
        block->to(dtype); // the base only: adapters stay float32
        for (auto& parameter : block->parameters()) {
            parameter.mutable_grad() = at::Tensor();
        }
        const at::Tensor x = tokens.to(device, dtype).requires_grad_();
        const models::cogvideox::RotaryEmbedding rotary{cpu_rotary.cos.to(device),
                                                        cpu_rotary.sin.to(device)};
        const at::Tensor out = block->forward(x, text, temb.to(device, dtype), rotary);
        (out.to(at::kFloat) * probe.to(device)).sum().backward();
        std::vector<at::Tensor> results{out.to(at::kFloat).cpu(), x.grad().to(at::kFloat).cpu()};
        for (auto* layer : {attention.to_q.get(), attention.to_k.get(), attention.to_v.get()}) {
            results.push_back(layer->lora_A->weight.grad().cpu());
            results.push_back(layer->lora_B->weight.grad().cpu());
        }
        return results;
    };
    const std::vector<at::Tensor> expected = step(c10::Device(c10::kCPU), at::kFloat);
    const std::vector<at::Tensor> actual = step(kCuda, at::kBFloat16);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double scale = expected[i].abs().max().item<double>();
        EXPECT_LE((actual[i] - expected[i]).abs().max().item<double>(), 5e-2 * scale)
            << "result " << i;
    }
    EXPECT_TRUE(FusedKernelChecks::process().warnings().empty());
}

} // namespace
} // namespace tuneframe::core
