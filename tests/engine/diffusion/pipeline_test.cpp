// Sampling on a freshly initialised tiny pipeline: seeds, samplers, guidance and the checks a
// user's request goes through.
#include "engine/core/error.h"
#include "engine/diffusion/classifier_free_guidance.h"
#include "engine/diffusion/cogvideox_pipeline.h"
#include "engine/models/cogvideox/init_model.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::diffusion {
namespace {

TEST(DynamicGuidance, OscillatesAsDiffusersComputesIt) {
    // cogvideox-spec.md 5.1: G = 6, 50 steps, trailing timesteps 999, 979, 959, ...
    const double expected[] = {2.29, 2.54, 6.97, 6.42, 2.79, 4.27};
    for (int i = 0; i < 6; ++i) {
        EXPECT_NEAR(dynamic_guidance_scale(6.0, 50, 999 - 20 * i), expected[i], 0.005) << i;
    }
    // At t = 0 the base is 1: cos(pi) = -1 gives the full scale.
    EXPECT_DOUBLE_EQ(dynamic_guidance_scale(6.0, 50, 0), 7.0);
}

TEST(DynamicGuidance, GuidanceMixesUnconditionalFirst) {
    const at::Tensor prediction = torch::tensor({1.0f, 3.0f}).reshape({2, 1});
    EXPECT_FLOAT_EQ(apply_guidance(prediction, 6.0).item<float>(), 1.0f + 6.0f * 2.0f);
}

class TinyPipeline : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        directory_ = new test::TemporaryDirectory();
        models::cogvideox::InitModelOptions options;
        options.arch = "cogvideox-tiny";
        options.out = directory_->path() / "tiny";
        models::cogvideox::init_model(options);
    }
    static void TearDownTestSuite() {
        delete directory_;
        directory_ = nullptr;
    }

    static SampleRequest small_request() {
        SampleRequest r;
        r.prompt = "a red ball bounces on a blue floor";
        r.frames = 9;
        r.height = 32;
        r.width = 48;
        r.steps = 3;
        return r;
    }

    static CogVideoXPipeline pipeline() {
        return CogVideoXPipeline(PipelineFolder::open(directory_->path() / "tiny"), {});
    }

    static test::TemporaryDirectory* directory_;
};

test::TemporaryDirectory* TinyPipeline::directory_ = nullptr;

TEST_F(TinyPipeline, TheSameSeedGivesTheSameVideoAndAnotherSeedAnother) {
    for (SamplerKind kind : {SamplerKind::Ddim, SamplerKind::Dpm}) {
        SampleRequest r = small_request();
        r.sampler = sampler_name(kind);
        const at::Tensor first = pipeline().generate(r).video;
        const at::Tensor again = pipeline().generate(r).video;
        r.seed = 43;
        const at::Tensor other = pipeline().generate(r).video;
        EXPECT_TRUE(first.equal(again)) << sampler_name(kind);
        EXPECT_FALSE(first.equal(other)) << sampler_name(kind);
        EXPECT_EQ(first.sizes(), (at::IntArrayRef{1, 9, 3, 32, 48}));
        EXPECT_GE(first.min().item<float>(), 0.0f);
        EXPECT_LE(first.max().item<float>(), 1.0f);
    }
}

TEST_F(TinyPipeline, DpmDrawsNoiseEachStepSoItDiffersFromDdim) {
    SampleRequest r = small_request();
    r.sampler = "ddim";
    const at::Tensor ddim = pipeline().generate(r).video;
    r.sampler = "dpm";
    const SampleResult dpm = pipeline().generate(r);
    EXPECT_EQ(dpm.sampler, "dpm");
    EXPECT_FALSE(ddim.equal(dpm.video));
}

TEST_F(TinyPipeline, GuidanceOffSkipsTheNegativePromptAndDynamicGuidanceChangesTheResult) {
    SampleRequest r = small_request();
    r.record_tensors = true;
    r.guidance = 1.0;
    const SampleResult unguided = pipeline().generate(r);
    EXPECT_EQ(unguided.tensors.count("negative_prompt_embeds"), 0u);
    r.guidance = 6.0;
    const SampleResult guided = pipeline().generate(r);
    ASSERT_EQ(guided.tensors.count("negative_prompt_embeds"), 1u);
    r.dynamic_cfg = true;
    const SampleResult dynamic = pipeline().generate(r);
    EXPECT_FALSE(guided.video.equal(unguided.video));
    EXPECT_FALSE(guided.video.equal(dynamic.video));
    // The first step's latents equal the initial noise stepped once; both runs start alike.
    EXPECT_TRUE(guided.tensors.at("prompt_embeds").equal(dynamic.tensors.at("prompt_embeds")));
}

TEST_F(TinyPipeline, ReportsEveryStep) {
    SampleRequest r = small_request();
    std::vector<int> steps;
    pipeline().generate(r, [&](const char* stage, int done, int) {
        if (std::string(stage) == "denoise") {
            steps.push_back(done);
        }
    });
    EXPECT_EQ(steps, (std::vector<int>{0, 1, 2, 3}));
}

TEST_F(TinyPipeline, RejectsSizesTheModelCannotMake) {
    auto expect_bad = [](SampleRequest r, const std::string& fragment) {
        try {
            pipeline().generate(r);
            ADD_FAILURE() << "no error for " << fragment;
        } catch (const core::Error& error) {
            EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
            EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
            EXPECT_FALSE(error.hint().empty());
        }
    };
    SampleRequest r = small_request();
    r.frames = 6;
    expect_bad(r, "8k+1 frames");
    r.frames = 13; // 4 latent frames would decode to 16
    expect_bad(r, "8k+1 frames");
    r = small_request();
    r.width = 40;
    expect_bad(r, "multiples of 16");
    r = small_request();
    r.image = torch::rand({1, 3, 32, 48});
    expect_bad(r, "text-to-video model");
}

// What generate_all's stage hook and progress saw, in order: "stage:NAME[on the device]" and
// "STAGE DONE/TOTAL".
struct StageLog {
    std::vector<std::string> lines;
    SampleProgress progress() {
        return [this](const char* stage, int done, int total) {
            lines.push_back(std::string(stage) + " " + std::to_string(done) + "/" +
                            std::to_string(total));
        };
    }
    StageHook stages() {
        return [this](const char* stage, const std::vector<std::string>& on_device) {
            std::string line = std::string("stage:") + stage + "[";
            for (const std::string& name : on_device) {
                line += name;
            }
            lines.push_back(line + "]");
        };
    }
};

TEST_F(TinyPipeline, SeveralRequestsShareEachStageAndGiveTheVideosOfOneCallEach) {
    SampleRequest first = small_request();
    first.steps = 2;
    SampleRequest second = small_request();
    second.prompt = "a blue square slides to the left";
    second.seed = 7;
    second.steps = 2;
    second.sampler = "dpm";
    const at::Tensor alone_first = pipeline().generate(first).video;
    const at::Tensor alone_second = pipeline().generate(second).video;

    StageLog log;
    PipelineOptions options;
    options.offload_idle = true; // ignored without a borrowed transformer
    CogVideoXPipeline shared(PipelineFolder::open(directory_->path() / "tiny"), options);
    const std::vector<SampleResult> results =
        shared.generate_all({first, second}, log.progress(), log.stages());

    ASSERT_EQ(results.size(), 2u);
    EXPECT_TRUE(results[0].video.equal(alone_first));
    EXPECT_TRUE(results[1].video.equal(alone_second));
    // T5 encodes both prompts (each with its negative) in one stage, the transformer denoises
    // both, then the VAE decodes both: each component is loaded once.
    const std::vector<std::string> expected = {"stage:text[text_encoder]",
                                               "encode_prompt 0/2",
                                               "encode_prompt 2/2",
                                               "encode_prompt 0/2",
                                               "encode_prompt 2/2",
                                               "stage:denoise[transformer]",
                                               "denoise 0/2",
                                               "denoise 1/2",
                                               "denoise 2/2",
                                               "denoise 0/2",
                                               "denoise 1/2",
                                               "denoise 2/2",
                                               "stage:decode[vae]",
                                               "decode 0/1",
                                               "decode 1/1",
                                               "decode 0/1",
                                               "decode 1/1",
                                               "stage:[]"};
    EXPECT_EQ(log.lines, expected);
}

TEST_F(TinyPipeline, ABorrowedTransformerIsOnTheDeviceOnlyWhileItDenoises) {
    const PipelineFolder folder = PipelineFolder::open(directory_->path() / "tiny");
    models::cogvideox::TransformerLoadOptions load;
    auto transformer = models::cogvideox::load_cogvideox_transformer(folder.transformer, load);
    transformer->eval();
    PipelineOptions options;
    options.offload_idle = true;
    CogVideoXPipeline borrowing(folder, options);
    borrowing.use_transformer(transformer);
    std::vector<std::string> seen;
    const SampleRequest r = small_request();
    const std::vector<SampleResult> results = borrowing.generate_all(
        {r}, {}, [&](const char* stage, const std::vector<std::string>& on_device) {
            seen.push_back(stage);
            const bool transformer_there =
                std::find(on_device.begin(), on_device.end(), "transformer") != on_device.end();
            EXPECT_EQ(transformer_there, std::string(stage) == "denoise") << stage;
        });
    EXPECT_EQ(seen, (std::vector<std::string>{"text", "denoise", "decode", ""}));
    EXPECT_TRUE(results[0].video.equal(pipeline().generate(r).video));
}

TEST_F(TinyPipeline, AMissingComponentIsNamed) {
    test::TemporaryDirectory empty;
    std::filesystem::create_directories(empty.path() / "transformer");
    try {
        PipelineFolder::open(empty.path());
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("transformer/config.json"), std::string::npos)
            << error.what();
    }
}

} // namespace
} // namespace tuneframe::diffusion
