// WanPipeline's behaviour around the numbers, on the tiny golden pipelines: batched requests give
// each request's own video, borrowed transformers are used as they are and left alone, the
// samplers and shifts a request chooses, the stages it announces, and the input it refuses.
#include "engine/core/error.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/wan/lora_keys.h"
#include "engine/models/wan/pipeline_wan.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/engine/wan_pipeline/wan_pipeline_case.h"
#include "tests/support/test_paths.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

using test::WanPipelineCase;
using Stages = std::vector<std::pair<std::string, std::vector<std::string>>>;

class WanPipelineTest : public test::WanGoldenTest {
protected:
    // The message and hint of the BadInput error `sample` throws.
    template <typename Sample>
    std::string refusal(Sample&& sample) {
        try {
            sample();
        } catch (const core::Error& error) {
            EXPECT_EQ(error.code(), core::ErrorCode::BadInput) << error.what();
            return std::string(error.what()) + " | " + error.hint();
        }
        ADD_FAILURE() << "no error";
        return {};
    }

    static SampleRequest quick(SampleRequest request, int steps = 2) {
        request.steps = steps;
        request.record_tensors = false;
        return request;
    }
};

void expect_same_videos(const std::vector<SampleResult>& batched, WanPipeline& pipeline,
                        const std::vector<SampleRequest>& requests) {
    ASSERT_EQ(batched.size(), requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const SampleResult alone = pipeline.generate(requests[i]);
        EXPECT_TRUE(batched[i].video.equal(alone.video)) << "request " << i;
        EXPECT_EQ(batched[i].frames, alone.frames);
    }
}

TEST_F(WanPipelineTest, GenerateAllGivesEachRequestItsOwnVideoAcrossBothExperts) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan22_a14b_style");
    SampleRequest first = c.request();
    first.record_tensors = false;
    SampleRequest second = quick(first, 2);
    second.prompt = "A lighthouse at night.";
    second.initial_latents = at::Tensor();
    second.seed = 5;
    second.frames = 9; // another length in the same batch
    SampleRequest third = quick(first, 3);
    third.guidance = 1.0; // no guidance: one forward per step
    const std::vector<SampleRequest> requests = {first, second, third};
    WanPipeline pipeline(c.folder, {});
    const std::vector<SampleResult> batched = pipeline.generate_all(requests);
    expect_same_videos(batched, pipeline, requests);
    EXPECT_EQ(batched[1].frames, 9);
}

TEST_F(WanPipelineTest, GenerateAllMixesTextAndImageRequestsOfTI2V) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan22_ti2v");
    const std::vector<SampleRequest> requests = {quick(c.request("i2v.")), quick(c.request()),
                                                 quick(c.request("i2v."), 1)};
    WanPipeline pipeline(c.folder, {});
    Stages stages;
    const std::vector<SampleResult> batched =
        pipeline.generate_all(requests, {}, [&](const char* stage, const auto& on_device) {
            stages.emplace_back(stage, on_device);
        });
    expect_same_videos(batched, pipeline, requests);
    const Stages expected = {{"text", {"text_encoder"}},
                             {"image", {"vae"}},
                             {"denoise", {"transformer"}},
                             {"decode", {"vae"}},
                             {"", {}}};
    EXPECT_EQ(stages, expected);
}

TEST_F(WanPipelineTest, Wan21ImageToVideoAnnouncesClipAndTheVae) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan21_i2v");
    WanPipeline pipeline(c.folder, {});
    Stages stages;
    std::vector<std::string> progress;
    pipeline.generate_all(
        {quick(c.request(), 1)},
        [&](const char* stage, int done, int total) {
            progress.push_back(std::string(stage) + " " + std::to_string(done) + "/" +
                               std::to_string(total));
        },
        [&](const char* stage, const auto& on_device) { stages.emplace_back(stage, on_device); });
    const Stages expected = {{"text", {"text_encoder"}},
                             {"image", {"image_encoder", "vae"}},
                             {"denoise", {"transformer"}},
                             {"decode", {"vae"}},
                             {"", {}}};
    EXPECT_EQ(stages, expected);
    const std::vector<std::string> steps = {"encode_prompt 0/2", "encode_prompt 2/2", "denoise 0/1",
                                            "denoise 1/1",       "decode 0/1",        "decode 1/1"};
    EXPECT_EQ(progress, steps);
}

TEST_F(WanPipelineTest, BorrowedTransformersAreUsedAsTheyAreAndLeftAlone) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan22_a14b_style");
    std::vector<DiffusionTransformer> experts;
    std::vector<std::vector<at::Tensor>> before;
    for (const auto& folder : c.folder.transformers) {
        WanTransformer3DModel model = load_wan_transformer(folder);
        model->eval();
        std::vector<at::Tensor> parameters;
        for (const at::Tensor& parameter : model->parameters()) {
            parameters.push_back(parameter.detach().clone());
        }
        before.push_back(parameters);
        experts.push_back(model.ptr());
    }
    SamplerOptions options;
    options.offload_idle = true;
    WanPipeline borrowing(c.folder, options);
    borrowing.use_transformers(experts);
    Stages stages;
    const SampleResult borrowed = borrowing
                                      .generate_all({quick(c.request(), 4)}, {},
                                                    [&](const char* stage, const auto& on_device) {
                                                        stages.emplace_back(stage, on_device);
                                                    })
                                      .front();
    const Stages expected = {{"text", {"text_encoder"}},
                             {"denoise", {"transformer", "transformer_2"}},
                             {"decode", {"vae"}},
                             {"", {}}};
    EXPECT_EQ(stages, expected);
    for (std::size_t e = 0; e < experts.size(); ++e) {
        const auto parameters = experts[e]->parameters();
        ASSERT_EQ(parameters.size(), before[e].size());
        for (std::size_t i = 0; i < parameters.size(); ++i) {
            EXPECT_EQ(parameters[i].device(), c10::Device(c10::kCPU));
            EXPECT_TRUE(parameters[i].equal(before[e][i])) << "expert " << e;
        }
    }
    WanPipeline loading(c.folder, {});
    EXPECT_TRUE(borrowed.video.equal(loading.generate(quick(c.request(), 4)).video));

    // Borrowing swaps in these weights: another expert gives another video.
    WanPipeline swapped(c.folder, {});
    swapped.use_transformers({experts[1], experts[0]});
    EXPECT_FALSE(swapped.generate(quick(c.request(), 4)).video.equal(borrowed.video));
}

TEST_F(WanPipelineTest, BorrowingNeedsOneWanTransformerPerExpert) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan22_a14b_style");
    WanPipeline pipeline(c.folder, {});
    const DiffusionTransformer one = load_wan_transformer(c.folder.transformers[0]).ptr();
    EXPECT_THROW(pipeline.use_transformers({one}), core::Error);
    EXPECT_THROW(pipeline.use_transformers({one, nullptr}), core::Error);
}

TEST_F(WanPipelineTest, TheRequestChoosesTheSamplerAndTheShift) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan21_t2v");
    WanPipeline pipeline(c.folder, {});
    SampleRequest request = quick(c.request(), 3);
    request.record_tensors = true;
    const SampleResult folder_own = pipeline.generate(request);

    request.flow_shift = 3.0; // the folder's own
    const SampleResult same_shift = pipeline.generate(request);
    EXPECT_TRUE(same_shift.video.equal(folder_own.video));
    request.flow_shift = 6.0;
    const SampleResult shifted = pipeline.generate(request);
    EXPECT_FALSE(shifted.tensors.at("sigmas").equal(folder_own.tensors.at("sigmas")));

    request.flow_shift.reset();
    request.sampler = "euler";
    const SampleResult euler = pipeline.generate(request);
    EXPECT_EQ(euler.sampler, "euler");
    EXPECT_EQ(euler.tensors.at("timesteps").scalar_type(), torch::kFloat);
    const at::Tensor sigmas = euler.tensors.at("sigmas");
    ASSERT_EQ(sigmas.numel(), 4);
    EXPECT_EQ(sigmas[-1].item<float>(), 0.0F);
    EXPECT_FALSE(euler.video.equal(folder_own.video));
    EXPECT_GE(euler.video.min().item<float>(), 0.0F);
    EXPECT_LE(euler.video.max().item<float>(), 1.0F);
}

// A transformer with random adapters on its attention (lora_B is zero when fresh).
WanTransformer3DModel with_random_lora(const std::filesystem::path& folder) {
    WanTransformer3DModel model = load_wan_transformer(folder);
    torch::manual_seed(3);
    lora::LoRAConfig config;
    config.rank = 4;
    config.alpha = 8;
    lora::inject_lora(*model, config);
    torch::NoGradGuard no_grad;
    for (auto& item : model->named_parameters()) {
        if (item.key().find("lora_B") != std::string::npos) {
            item.value().normal_(0.0, 0.2);
        }
    }
    model->eval();
    return model;
}

TEST_F(WanPipelineTest, TheLoRAGoesIntoTheHighNoiseTransformerAsInDiffusers) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan22_a14b_style");
    const test::TemporaryDirectory folder;
    WanTransformer3DModel adapted = with_random_lora(c.folder.transformers[0]);
    lora::save_lora_weights(*adapted, folder / "pytorch_lora_weights.safetensors");
    const SampleRequest request = quick(c.request(), 4);

    SamplerOptions options;
    options.lora = folder / "pytorch_lora_weights.safetensors";
    WanPipeline with_lora(c.folder, options);
    const at::Tensor video = with_lora.generate(request).video;

    WanPipeline borrowing(c.folder, {});
    WanTransformer3DModel low_noise = load_wan_transformer(c.folder.transformers[1]);
    low_noise->eval();
    borrowing.use_transformers({adapted.ptr(), low_noise.ptr()});
    const test::Difference difference = test::compare(video, borrowing.generate(request).video);
    test::expect_within("LoRA loaded vs adapters in place", difference, 1e-5);

    // The same adapter in the original Wan layout ComfyUI reads.
    lora::LoRASaveOptions original;
    original.scheme = wan_key_scheme();
    lora::save_lora_weights(*adapted, folder / "wan_lora.safetensors", original);
    options.lora = folder / "wan_lora.safetensors";
    WanPipeline with_wan_lora(c.folder, options);
    const test::Difference layouts = test::compare(with_wan_lora.generate(request).video, video);
    test::expect_within("LoRA in the original Wan layout", layouts, 1e-5);

    WanPipeline plain(c.folder, {});
    EXPECT_GT((video - plain.generate(request).video).abs().max().item<double>(), 1e-3);
    options.lora_weight = 0.0;
    WanPipeline switched_off(c.folder, options);
    EXPECT_TRUE(
        switched_off.generate(request).video.allclose(plain.generate(request).video, 0.0, 1e-6));
}

TEST_F(WanPipelineTest, SamplesInBfloat16) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan21_i2v");
    SamplerOptions options;
    options.placement = {torch::kBFloat16, c10::Device(c10::kCPU)};
    WanPipeline pipeline(c.folder, options);
    SampleRequest request = c.request();
    request.record_tensors = true;
    const SampleResult result = pipeline.generate(request);
    EXPECT_EQ(result.video.scalar_type(), torch::kFloat);
    EXPECT_EQ(result.tensors.at("final_latents").scalar_type(), torch::kFloat);
    EXPECT_EQ(result.tensors.at("step0.transformer_input").scalar_type(), torch::kBFloat16);
    // One forward's inputs and outputs within the project's bf16 bound...
    for (const char* name : {"prompt_embeds", "image_embeds", "condition",
                             "step0.transformer_input", "step0.noise_pred_cond"}) {
        const test::Difference difference =
            test::compare(result.tensors.at(name).to(torch::kFloat), c.outputs.at(name));
        test::expect_within(std::string("pipeline_wan21_i2v bf16 ") + name, difference,
                            test::bf16_bound(difference));
    }
    // ...and the video within what three guided steps and the bf16 VAE add to that (0.09 here;
    // a dtype mix-up gives noise).
    const test::Difference difference =
        test::compare(result.video, c.outputs.at("video").permute({0, 1, 4, 2, 3}));
    test::expect_within("pipeline_wan21_i2v bf16 video", difference, 0.15);
}

TEST_F(WanPipelineTest, RefusesRequestsTheModelCannotSample) {
    const WanPipelineCase t2v = WanPipelineCase::open(golden_, "pipeline_wan21_t2v");
    const WanPipelineCase i2v = WanPipelineCase::open(golden_, "pipeline_wan21_i2v");
    const WanPipelineCase ti2v = WanPipelineCase::open(golden_, "pipeline_wan22_ti2v");
    const WanPipelineCase a14b = WanPipelineCase::open(golden_, "pipeline_wan22_a14b_style");
    WanPipeline text(t2v.folder, {});
    WanPipeline image(i2v.folder, {});
    WanPipeline both(ti2v.folder, {});
    WanPipeline experts(a14b.folder, {});
    auto expect_refusal = [&](WanPipeline& pipeline, const SampleRequest& request,
                              const std::string& says) {
        const std::string message = refusal([&] { pipeline.generate(request); });
        EXPECT_NE(message.find(says), std::string::npos) << message;
    };

    SampleRequest r = quick(i2v.request());
    r.image = at::Tensor();
    expect_refusal(image, r, "needs an image");
    r = quick(t2v.request());
    r.image = i2v.image("image");
    expect_refusal(text, r, "takes no image");
    r = quick(ti2v.request("i2v."));
    r.image = r.image[0]; // [3, H, W]
    expect_refusal(both, r, "[1, 3, height, width]");

    r = quick(t2v.request());
    r.frames = 10;
    expect_refusal(text, r, "4k+1 frames, not 10");
    r = quick(t2v.request());
    r.width = 40; // Wan 2.1: multiples of 8 x 2
    expect_refusal(text, r, "multiple of 16");
    r = quick(ti2v.request());
    r.height = 48; // Wan 2.2's VAE: multiples of 16 x 2
    expect_refusal(both, r, "multiple of 32");
    r = quick(t2v.request());
    r.frames = 13; // 4 latent frames; the recorded latents hold 3
    expect_refusal(text, r, "[1, 16, 4, 4, 4]");

    r = quick(t2v.request());
    r.sampler = "ddim";
    expect_refusal(text, r, "'unipc', 'euler'");
    r = quick(t2v.request());
    r.guidance_2 = 2.0;
    expect_refusal(text, r, "--guidance-2");
    r = quick(i2v.request());
    r.max_sequence_length = 24;
    expect_refusal(image, r, "512");
    r = quick(t2v.request());
    r.steps = 0;
    expect_refusal(text, r, "at least one step");

    // A14B's guidance_2 is its low-noise expert's.
    r = quick(a14b.request());
    r.guidance_2 = 7.0;
    EXPECT_NO_THROW(experts.generate(r));
}

} // namespace
} // namespace tuneframe::models::wan
