// WanPipeline against diffusers 0.40.0's WanPipeline and WanImageToVideoPipeline on the tiny
// whole pipelines of ../shared/golden-wan: Wan 2.1 text- and image-to-video (CLIP), Wan 2.2 TI2V
// in both modes (per-token timesteps, the first latent frame held at the image's) and the A14B
// expert switch. Every tensor a case recorded is compared: the schedule and the experts exactly,
// the rest within the MANIFEST's bound for whole pipelines.
#include "engine/models/wan/pipeline_wan.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/engine/wan_pipeline/wan_pipeline_case.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

using test::WanPipelineCase;

// MANIFEST.md's suggestion for whole pipelines (several steps; guidance amplifies differences).
double pipeline_bound(const test::Difference& difference) {
    return 1e-3 + 1e-3 * difference.max_ref;
}

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

// Timesteps are exact: the schedule, which expert ran, and what each forward was given.
bool exact(const std::string& name, const at::Tensor& expected) {
    return !expected.is_floating_point() || name == "timesteps" ||
           name.find(".timestep") != std::string::npos;
}

class WanPipelineGolden : public test::WanGoldenTest {
protected:
    // Every tensor recorded under `prefix` ("" leaves out the "i2v." call) against the run's.
    void expect_recorded(const WanPipelineCase& c, const SampleResult& result,
                         const std::string& prefix) {
        int compared = 0;
        for (const auto& [name, expected] : c.outputs) {
            if (!starts_with(name, prefix) || (prefix.empty() && starts_with(name, "i2v."))) {
                continue;
            }
            const std::string key = name.substr(prefix.size());
            const auto it = result.tensors.find(key);
            if (it == result.tensors.end()) {
                ADD_FAILURE() << c.dir.filename().string() << ": " << key << " was not recorded";
                continue;
            }
            const at::Tensor& actual = it->second;
            ASSERT_EQ(actual.sizes(), expected.sizes()) << name;
            ASSERT_EQ(actual.scalar_type(), expected.scalar_type()) << name;
            if (exact(key, expected)) {
                EXPECT_TRUE(actual.equal(expected)) << name << "\n" << actual << "\n" << expected;
            } else {
                const test::Difference difference = test::compare(actual, expected);
                test::expect_within(c.dir.filename().string() + " " + name, difference,
                                    pipeline_bound(difference));
            }
            ++compared;
        }
        EXPECT_GT(compared, 10);
        // The video handed back is the recorded one in the sampler's layout.
        ASSERT_TRUE(result.tensors.count("video"));
        EXPECT_TRUE(result.video.permute({0, 1, 3, 4, 2}).equal(result.tensors.at("video")));
        EXPECT_EQ(result.frames, result.video.size(1));
    }
};

TEST_F(WanPipelineGolden, Wan21TextToVideo) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan21_t2v");
    ASSERT_EQ(c.folder.variant(), WanVariant::TextToVideo);
    WanPipeline pipeline(c.folder, {});
    const SampleResult result = pipeline.generate(c.request());
    EXPECT_EQ(result.sampler, "unipc");
    expect_recorded(c, result, "");
}

TEST_F(WanPipelineGolden, Wan21ImageToVideoWithClip) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan21_i2v");
    ASSERT_EQ(c.folder.variant(), WanVariant::ImageToVideo);
    // The picture is 56x40 and the video 48x32: CLIP sees it as given, the VAE resized.
    const SampleRequest request = c.request();
    ASSERT_NE(request.image.size(3), request.width);
    WanPipeline pipeline(c.folder, {});
    expect_recorded(c, pipeline.generate(request), "");
}

TEST_F(WanPipelineGolden, Wan22TextImageToVideoWithoutAnImage) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan22_ti2v");
    ASSERT_EQ(c.folder.variant(), WanVariant::TextImageToVideo);
    WanPipeline pipeline(c.folder, {});
    expect_recorded(c, pipeline.generate(c.request()), "");
}

TEST_F(WanPipelineGolden, Wan22TextImageToVideoWithAnImage) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan22_ti2v");
    WanPipeline pipeline(c.folder, {});
    const SampleResult result = pipeline.generate(c.request("i2v."));
    expect_recorded(c, result, "i2v.");
    // The first latent frame's tokens were held at timestep 0 at every step.
    const at::Tensor timestep = result.tensors.at("step1.timestep"); // [1, tokens]
    EXPECT_EQ(timestep.index({0, 0}).item<float>(), 0.0F);
    EXPECT_GT(timestep.index({0, -1}).item<float>(), 0.0F);
}

TEST_F(WanPipelineGolden, Wan22A14BSwitchesExpertsAtTheBoundary) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan22_a14b_style");
    ASSERT_EQ(c.folder.experts(), 2);
    WanPipeline pipeline(c.folder, {});
    const SampleRequest request = c.request();
    ASSERT_TRUE(request.guidance_2);
    const SampleResult result = pipeline.generate(request);
    expect_recorded(c, result, "");
    const at::Tensor experts = result.tensors.at("expert");
    EXPECT_EQ(experts.index({0}).item<std::int64_t>(), 1);
    EXPECT_EQ(experts.index({-1}).item<std::int64_t>(), 2);
}

TEST_F(WanPipelineGolden, TheSeedDrawsDiffusersInitialLatents) {
    const WanPipelineCase c = WanPipelineCase::open(golden_, "pipeline_wan21_t2v");
    SampleRequest request = c.request();
    request.initial_latents = at::Tensor();
    WanPipeline pipeline(c.folder, {});
    const SampleResult result = pipeline.generate(request);
    // Text-to-video hands the transformer the latents themselves.
    EXPECT_TRUE(result.tensors.at("step0.transformer_input").equal(c.inputs.at("latents")));
    const test::Difference difference =
        test::compare(result.video, c.outputs.at("video").permute({0, 1, 4, 2, 3}));
    test::expect_within("pipeline_wan21_t2v seeded video", difference, pipeline_bound(difference));
}

} // namespace
} // namespace tuneframe::models::wan
