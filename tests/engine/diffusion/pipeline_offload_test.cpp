// Validation on a GPU moves the transformer being trained to the host while T5 and the VAE run,
// and the memory table reads each stage's peak between two stage announcements. A GPU-less
// machine sees the moves on the host-backed device (host_backed_device.h): at every announcement
// the borrowed transformer must be on the host, or a stage's peak would count it arriving or
// leaving, and afterwards it must be back where training left it.
#include "engine/diffusion/cogvideox_pipeline.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "tests/engine/trainer/host_backed_device.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::diffusion {
namespace {

TEST(PipelineOffload, TheBorrowedTransformerIsOnTheHostAtEveryStageBoundary) {
    const c10::Device device = test::host_backed_device();
    const PipelineFolder folder = PipelineFolder::open(test::tiny_pipeline());
    auto transformer = models::cogvideox::load_cogvideox_transformer(folder.transformer, {});
    transformer->to(device);
    transformer->eval();
    PipelineOptions options;
    options.placement = {torch::kFloat32, device};
    options.offload_idle = true;
    CogVideoXPipeline borrowing(folder, options);
    borrowing.use_transformer(transformer);

    SampleRequest request;
    request.prompt = "a red ball bounces on a blue floor";
    request.frames = 9;
    request.height = 32;
    request.width = 48;
    request.steps = 2;
    std::vector<std::string> seen;
    const std::vector<SampleResult> results =
        borrowing.generate_all({request}, {}, [&](const char* stage, const auto&) {
            seen.push_back(stage);
            EXPECT_EQ(transformer->parameters().front().device(), c10::Device(c10::kCPU))
                << "at '" << stage << "'";
        });
    EXPECT_EQ(seen, (std::vector<std::string>{"text", "denoise", "decode", ""}));
    for (const at::Tensor& parameter : transformer->parameters()) {
        ASSERT_EQ(parameter.device(), device);
    }
    // The same video as the whole pipeline on the CPU, to float rounding: on this device
    // LibTorch 2.6 picks other kernels than on the CPU (2.2e-6 apart there; within 1e-6 on 1.13).
    CogVideoXPipeline on_cpu(folder, {});
    const double difference =
        (results[0].video - on_cpu.generate(request).video).abs().max().item<double>();
    EXPECT_LT(difference, 1e-4);
}

} // namespace
} // namespace tuneframe::diffusion
