// Validation on a GPU moves the transformers being trained to the host while the text encoder
// and the VAE run, and the memory table reads each stage's peak between two announcements. A
// GPU-less machine sees the moves on the host-backed device (host_backed_device.h): at every
// announcement both borrowed experts must be on the host, and afterwards back where training
// left them.
#include "engine/models/wan/pipeline_wan.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "tests/engine/trainer/host_backed_device.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/engine/wan_pipeline/wan_pipeline_case.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

using WanPipelineOffload = test::WanGoldenTest;

TEST_F(WanPipelineOffload, BorrowedExpertsWaitOnTheHostAtEveryStageBoundary) {
    const c10::Device device = test::host_backed_device();
    const auto c = test::WanPipelineCase::open(golden_, "pipeline_wan22_a14b_style");
    std::vector<DiffusionTransformer> experts;
    for (const auto& folder : c.folder.transformers) {
        WanTransformer3DModel model = load_wan_transformer(folder);
        model->to(device);
        model->eval();
        experts.push_back(model.ptr());
    }
    SamplerOptions options;
    options.placement = {torch::kFloat32, device};
    options.offload_idle = true;
    WanPipeline borrowing(c.folder, options);
    borrowing.use_transformers(experts);

    SampleRequest request = c.request();
    request.record_tensors = false;
    std::vector<std::string> seen;
    const std::vector<SampleResult> results =
        borrowing.generate_all({request}, {}, [&](const char* stage, const auto&) {
            seen.push_back(stage);
            for (const DiffusionTransformer& expert : experts) {
                EXPECT_EQ(expert->parameters().front().device(), c10::Device(c10::kCPU))
                    << "at '" << stage << "'";
            }
        });
    EXPECT_EQ(seen, (std::vector<std::string>{"text", "denoise", "decode", ""}));
    for (const DiffusionTransformer& expert : experts) {
        for (const at::Tensor& parameter : expert->parameters()) {
            ASSERT_EQ(parameter.device(), device);
        }
    }
    EXPECT_EQ(results[0].video.device(), c10::Device(c10::kCPU));
    // The same video as the whole pipeline on the CPU, to float rounding (this device's
    // kernels are the CPU's, but LibTorch 2.6 may pick others for it).
    WanPipeline on_cpu(c.folder, {});
    const double difference =
        (results[0].video - on_cpu.generate(request).video).abs().max().item<double>();
    EXPECT_LT(difference, 1e-4);
}

} // namespace
} // namespace tuneframe::models::wan
