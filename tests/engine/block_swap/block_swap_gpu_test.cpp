// Block swap on CUDA: a Wan transformer of 8 blocks, 512 wide, trained a few steps with its last
// 6 blocks swapped (pinned host copies, copied on a side stream one block ahead) gives the losses
// and adapters of the same training without swapping, with deterministic kernels (math attention,
// deterministic cuDNN), bit for bit, over a bf16 base and an fp8 one where LibTorch has it; and
// the device's peak drops by about the weights of the blocks that no longer stay. Runs only where
// LibTorch sees a CUDA device; elsewhere every test reports itself skipped. Activation offload
// (each block's saved input on the host between forward and backward) trains alike too, at a
// lower peak.
#include "engine/core/device/memory_stats.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/kernels/attention.h"
#include "engine/core/kernels/float8.h"
#include "engine/lora/lora_injection.h"
#include "tests/engine/block_swap/residency_recorder.h"
#include "tests/engine/wan_transformer/tiny_wan.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <iostream>
#include <map>

namespace tuneframe::models {
namespace {

constexpr std::int64_t kBlocks = 8;
constexpr std::int64_t kSwapped = 6;
constexpr double kMiB = 1024.0 * 1024.0;

wan::WanTransformer3DConfig config() {
    wan::WanTransformer3DConfig c = test::tiny_wan_config();
    c.num_attention_heads = 8;
    c.attention_head_dim = 64;
    c.ffn_dim = 2048;
    c.num_layers = kBlocks;
    c.text_dim = 64;
    return c;
}

struct Trained {
    std::vector<double> losses;
    std::map<std::string, at::Tensor> adapters; // on the host
    std::int64_t peak = 0;
    std::int64_t block_bytes = 0;
};

struct TrainOptions {
    std::int64_t swapped = 0;
    bool offload_activations = false;
    // Tokens per sample: (frames) x (height / 2) x (width / 2).
    std::int64_t frames = 4, height = 16, width = 16;
};

Trained train(lora::BaseQuantization quantization, const TrainOptions& options,
              const std::shared_ptr<test::ResidencyRecorder>& recorder = nullptr) {
    const std::int64_t swapped = options.swapped;
    const c10::Device cuda(c10::kCUDA, 0);
    wan::WanTransformer3DModel model = test::seeded_wan_model(config());
    model->to(torch::kBFloat16);
    model->quantize_base(quantization);
    torch::manual_seed(9);
    lora::LoRAConfig adapters;
    adapters.rank = 8;
    adapters.alpha = 8;
    adapters.target_modules = {"to_q", "to_k", "to_v", "to_out.0"};
    lora::inject_lora(*model, adapters);
    lora::freeze_all_but_lora(*model);
    model->set_gradient_checkpointing(true);
    model->set_offload_activations(options.offload_activations);
    model->train();
    Trained trained;
    for (const auto& item : model->block(0)->named_parameters()) {
        if (!lora::is_adapter_tensor(item.key())) {
            trained.block_bytes +=
                item.value().numel() * static_cast<std::int64_t>(item.value().element_size());
        }
    }
    if (recorder) {
        model->set_residency_observer(recorder, "transformer");
    }
    model->swap_blocks(swapped, cuda);
    model->to(cuda);
    if (swapped > 0) {
        // Moving the model leaves the swapped blocks' weights pinned on the host.
        const at::Tensor last = model->block(kBlocks - 1)->attn1->to_q->weight;
        EXPECT_TRUE(last.is_cpu());
        EXPECT_TRUE(last.is_pinned());
        EXPECT_TRUE(model->block(kBlocks - 1)->attn1->to_q->lora_A->weight.is_cuda());
        EXPECT_TRUE(model->block(0)->attn1->to_q->weight.is_cuda());
    }
    test::TinyShape shape;
    shape.frames = options.frames;
    shape.height = options.height;
    shape.width = options.width;
    TransformerInputs inputs = test::seeded_wan_inputs(config(), shape);
    inputs.hidden_states = inputs.hidden_states.to(cuda, torch::kBFloat16);
    inputs.encoder_hidden_states = inputs.encoder_hidden_states.to(cuda, torch::kBFloat16);
    inputs.timestep = inputs.timestep.to(cuda);
    torch::cuda::synchronize();
    core::reset_peak_memory(cuda);
    for (int step = 0; step < 3; ++step) {
        const at::Tensor output = model->forward(inputs);
        const at::Tensor loss = (output.to(torch::kFloat) - 0.25).square().mean();
        loss.backward();
        model->finish_gradients();
        trained.losses.push_back(loss.item<double>());
        torch::NoGradGuard no_grad;
        for (auto& parameter : model->parameters()) {
            if (parameter.requires_grad()) {
                parameter.sub_(parameter.grad() * 0.5);
                parameter.mutable_grad() = at::Tensor();
            }
        }
    }
    torch::cuda::synchronize();
    trained.peak = core::memory_stats(cuda).peak;
    for (const auto& item : model->named_parameters()) {
        if (item.value().requires_grad()) {
            trained.adapters[item.key()] = item.value().detach().cpu();
        }
    }
    return trained;
}

class GpuBlockSwap : public ::testing::Test {
protected:
    void SetUp() override {
        if (!core::cuda_usable()) {
            GTEST_SKIP() << "no CUDA device";
        }
        // The comparison is bit for bit: kernels whose results depend on scheduling are off.
        core::select_attention_backend("math");
        at::globalContext().setDeterministicCuDNN(true);
        at::globalContext().setBenchmarkCuDNN(false);
    }

    static void expect_same_training_and_a_lower_peak(lora::BaseQuantization quantization) {
        const Trained plain = train(quantization, {});
        auto recorder = std::make_shared<test::ResidencyRecorder>();
        TrainOptions swapping;
        swapping.swapped = kSwapped;
        const Trained swapped = train(quantization, swapping, recorder);
        std::cout << "[ " << lora::base_quantization_name(quantization) << " ] peak "
                  << plain.peak / kMiB << " MiB unswapped, " << swapped.peak / kMiB << " MiB with "
                  << kSwapped << " of " << kBlocks << " blocks swapped (a block "
                  << swapped.block_bytes / kMiB << " MiB)" << std::endl;
        EXPECT_EQ(swapped.losses, plain.losses);
        ASSERT_EQ(swapped.adapters.size(), plain.adapters.size());
        for (const auto& [name, tensor] : plain.adapters) {
            EXPECT_TRUE(torch::equal(swapped.adapters.at(name), tensor)) << name;
        }
        // Four of the six swapped blocks no longer stay; allocator rounding and the copies'
        // timing take some of it back.
        EXPECT_LT(swapped.peak, plain.peak - 3 * swapped.block_bytes)
            << "unswapped " << plain.peak << ", swapped " << swapped.peak;
        EXPECT_LE(recorder->most_resident(), 2);
        EXPECT_EQ(recorder->used(SwapPass::Forward).size(), 3u * kSwapped);
        EXPECT_EQ(recorder->used(SwapPass::Backward).size(), 3u * kSwapped);
    }
};

TEST_F(GpuBlockSwap, Bf16BaseTrainsAlikeAndPeaksLower) {
    expect_same_training_and_a_lower_peak(lora::BaseQuantization::None);
}

TEST_F(GpuBlockSwap, Fp8BaseTrainsAlikeAndPeaksLower) {
    if (!core::kHasFloat8) {
        GTEST_SKIP() << "this LibTorch has no fp8 dtype (LibTorch 2.1 or newer has)";
    }
    expect_same_training_and_a_lower_peak(lora::BaseQuantization::Float8);
}

// Each block's saved input (8 x 24 x 24 tokens, 512 wide, bf16: 4.5 MiB) on the host between
// forward and backward: the same bits, and backward starts without the eight of them on the GPU.
TEST_F(GpuBlockSwap, OffloadedActivationsTrainAlikeAndPeakLower) {
    TrainOptions keep;
    keep.frames = 8;
    keep.height = 48;
    keep.width = 48;
    TrainOptions offload = keep;
    offload.offload_activations = true;
    const Trained plain = train(lora::BaseQuantization::None, keep);
    auto recorder = std::make_shared<test::ResidencyRecorder>();
    const Trained offloaded = train(lora::BaseQuantization::None, offload, recorder);
    const std::int64_t input_bytes = 8 * 24 * 24 * 512 * 2;
    std::cout << "peak " << plain.peak / kMiB << " MiB keeping the blocks' inputs, "
              << offloaded.peak / kMiB << " MiB offloading them (one "
              << static_cast<double>(input_bytes) / kMiB << " MiB)" << std::endl;
    EXPECT_EQ(offloaded.losses, plain.losses);
    ASSERT_EQ(offloaded.adapters.size(), plain.adapters.size());
    for (const auto& [name, tensor] : plain.adapters) {
        EXPECT_TRUE(torch::equal(offloaded.adapters.at(name), tensor)) << name;
    }
    // Six of the eight inputs leave; allocator rounding takes some of it back.
    EXPECT_LT(offloaded.peak, plain.peak - 4 * input_bytes)
        << "kept " << plain.peak << ", offloaded " << offloaded.peak;
    EXPECT_EQ(recorder->most_resident("", ResidencyEventKind::ActivationFetched,
                                      ResidencyEventKind::ActivationDropped),
              2);
    EXPECT_EQ(recorder->count(ResidencyEventKind::ActivationStashed), 3u * kBlocks);
}

} // namespace
} // namespace tuneframe::models
