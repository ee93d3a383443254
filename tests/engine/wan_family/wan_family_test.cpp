// The Wan family behind the model seam: folders are recognised and opened as their variant,
// bad folders and jobs are refused before any weights load, naming the file and the fix, and
// the memory arithmetic and parameter counts agree with the models they describe.
#include "common/training_job.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/model_family.h"
#include "engine/models/wan/transformer_wan.h"
#include "engine/models/wan/wan_architectures.h"
#include "engine/train/job_model_check.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;

std::int64_t built_parameters(const WanTransformer3DConfig& config) {
    const WanTransformer3DModel model(config);
    std::int64_t count = 0;
    for (const at::Tensor& parameter : model->parameters()) {
        count += parameter.numel();
    }
    return count;
}

// The error `action` throws; fails the test when it throws none.
core::Error error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const core::Error& error) {
        return error;
    }
    ADD_FAILURE() << "no error";
    return core::Error(core::ErrorCode::Internal, "");
}

void expect_mentions(const core::Error& error, const std::string& text) {
    EXPECT_NE((std::string(error.what()) + " " + error.hint()).find(text), std::string::npos)
        << error.what() << " / " << error.hint();
}

TEST(WanFamily, ParameterCountsFromTheConfigEqualTheBuiltModels) {
    for (const WanArchitecture& architecture : wan_architectures()) {
        if (architecture.info.tiny) {
            for (const WanTransformer3DConfig& config : architecture.experts) {
                EXPECT_EQ(config.parameter_count(), built_parameters(config))
                    << architecture.info.name;
            }
        }
    }
    // The image branch with FLF2V's position table, and no cross-attention norm.
    WanTransformer3DConfig odd = find_wan_architecture("wan2.1-tiny-i2v").experts.front();
    odd.pos_embed_seq_len = 8;
    odd.cross_attn_norm = false;
    EXPECT_EQ(odd.parameter_count(), built_parameters(odd));
    // The released 1.3B, as its model card counts it.
    const std::int64_t released =
        find_wan_architecture("wan2.1-t2v-1.3b").experts.front().parameter_count();
    EXPECT_GT(released, 1'400'000'000);
    EXPECT_LT(released, 1'450'000'000);
}

TEST(WanFamily, OpensEachTinyPipelineAsItsVariant) {
    struct Expect {
        const char* arch;
        std::vector<std::string> tasks;
        int experts;
        std::int64_t channels;
        std::int64_t spatial;
        models::ImageCondition condition;
    };
    const std::vector<Expect> cases = {
        {"wan2.1-tiny", {"t2v"}, 1, 16, 8, models::ImageCondition::None},
        {"wan2.1-tiny-i2v", {"i2v"}, 1, 16, 8, models::ImageCondition::FirstFrameThenZeros},
        {"wan2.2-tiny-ti2v", {"t2v", "i2v"}, 1, 48, 16, models::ImageCondition::FirstFrame},
        {"wan2.2-tiny-a14b", {"t2v"}, 2, 16, 8, models::ImageCondition::None},
    };
    for (const Expect& c : cases) {
        SCOPED_TRACE(c.arch);
        const auto folder = open_model_folder(test::tiny_wan_pipeline(c.arch));
        EXPECT_EQ(folder->family(), "wan");
        EXPECT_EQ(folder->tasks(), c.tasks);
        EXPECT_EQ(folder->experts(), c.experts);
        EXPECT_EQ(folder->geometry().latent_channels, c.channels);
        EXPECT_EQ(folder->geometry().spatial_scale, c.spatial);
        EXPECT_EQ(folder->image_condition(), c.condition);
        EXPECT_EQ(folder->text_length(), 512);
        EXPECT_EQ(folder->sampling_defaults().sampler, "unipc");
        EXPECT_EQ(folder->image_encoder_folders().empty(),
                  std::string(c.arch) != "wan2.1-tiny-i2v");
        EXPECT_EQ(folder->load_transformer({}, c.experts - 1)->class_name(),
                  "WanTransformer3DModel");
    }
}

TEST(WanFamily, ATwoExpertPipelineWithoutItsSecondTransformerIsRefused) {
    test::TemporaryDirectory directory;
    const fs::path copy = directory / "a14b";
    fs::copy(test::tiny_wan_pipeline("wan2.2-tiny-a14b"), copy, fs::copy_options::recursive);
    fs::remove_all(copy / "transformer_2");
    expect_mentions(error_of([&] { open_model_folder(copy); }), "transformer_2");

    // Listed nowhere, but the boundary says there are two experts.
    nlohmann::json index = core::read_json_file(copy / "model_index.json");
    index["transformer_2"] = {nullptr, nullptr};
    core::write_json_file(copy / "model_index.json", index);
    const core::Error error = error_of([&] { open_model_folder(copy); });
    EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
    expect_mentions(error, "transformer_2");
    expect_mentions(error, "boundary_ratio");
}

TEST(WanFamily, FoldersOfOtherKindsAreRefusedNamingTheClass) {
    test::TemporaryDirectory directory;
    const fs::path vace = directory / "vace";
    fs::copy(test::tiny_wan_pipeline("wan2.1-tiny"), vace, fs::copy_options::recursive);
    nlohmann::json index = core::read_json_file(vace / "model_index.json");
    index["_class_name"] = "WanVACEPipeline";
    core::write_json_file(vace / "model_index.json", index);
    const core::Error unsupported = error_of([&] { open_model_folder(vace); });
    EXPECT_EQ(unsupported.code(), core::ErrorCode::Unsupported);
    expect_mentions(unsupported, "WanVACEPipeline");

    index["_class_name"] = "FluxPipeline";
    index["transformer"] = {"diffusers", "FluxTransformer2DModel"};
    core::write_json_file(vace / "model_index.json", index);
    const core::Error unknown = error_of([&] { open_model_folder(vace); });
    EXPECT_EQ(unknown.code(), core::ErrorCode::BadInput);
    expect_mentions(unknown, "FluxPipeline");
    expect_mentions(unknown, "Wan");
    expect_mentions(unknown, "CogVideoX");

    // A Wan transformer of another shape in place of the pipeline's own.
    const auto wan21 = open_model_folder(test::tiny_wan_pipeline("wan2.1-tiny"));
    const core::Error shaped = error_of([&] {
        wan21->with_transformer(test::tiny_wan_pipeline("wan2.2-tiny-ti2v") / "transformer");
    });
    expect_mentions(shaped, "48 input channels");
    // A CogVideoX transformer is not one a Wan folder loads.
    EXPECT_THROW(wan21->with_transformer(test::tiny_pipeline() / "transformer"), core::Error);
}

TEST(WanFamily, AJobIsCheckedAgainstTheModelsShapesAndSamplers) {
    const auto ti2v = open_model_folder(test::tiny_wan_pipeline("wan2.2-tiny-ti2v"));
    common::TrainingJob job;
    job.lora.rank = 4;
    job.dataset.frame_buckets = {9};
    job.dataset.resolution_buckets = {{64, 64}};
    EXPECT_NO_THROW(train::check_job_against_model(job, *ti2v, "job.json"));
    job.task = "i2v"; // TI2V trains both tasks
    EXPECT_NO_THROW(train::check_job_against_model(job, *ti2v, "job.json"));

    job.dataset.resolution_buckets = {{48, 64}}; // the 16x VAE and 2x2 patches: multiples of 32
    core::Error error = error_of([&] { train::check_job_against_model(job, *ti2v, "job.json"); });
    EXPECT_EQ(error.field(), "dataset.resolution_buckets");
    expect_mentions(error, "32");

    job.dataset.resolution_buckets = {{64, 64}};
    job.validation.prompts = {"a ball"};
    job.validation.images = {"first.png"};
    job.validation.sampler = "dpm";
    error = error_of([&] { train::check_job_against_model(job, *ti2v, "job.json"); });
    EXPECT_EQ(error.field(), "validation.sampler");
    expect_mentions(error, "unipc");
    job.validation.sampler = "euler";
    job.validation.frames = 10;
    error = error_of([&] { train::check_job_against_model(job, *ti2v, "job.json"); });
    EXPECT_EQ(error.field(), "validation.frames");

    const auto t2v = open_model_folder(test::tiny_wan_pipeline("wan2.1-tiny"));
    job.validation.frames = 0;
    error = error_of([&] { train::check_job_against_model(job, *t2v, "job.json"); });
    EXPECT_EQ(error.field(), "task"); // the T2V model has no image branch
}

TEST(WanFamily, MemoryArithmeticCountsTheVideoTokensAndTheAdapters) {
    const auto tiny = open_model_folder(test::tiny_wan_pipeline("wan2.1-tiny"));
    const auto memory = tiny->transformer_memory();
    // 81 frames -> 21 latent frames; 480 x 832 / (8 x 2) -> 30 x 52 patches; 512 text tokens.
    EXPECT_EQ(memory->tokens({81, 480, 832, 1}), 21 * 30 * 52 + 512);
    // Two blocks of 8 attention projections 32 wide; rank 4 clamps nowhere.
    EXPECT_EQ(memory->adapter_parameters({"to_q", "to_k", "to_v", "to_out.0"}, 4),
              2 * 8 * 4 * (32 + 32));
    EXPECT_EQ(memory->narrowest_target_width("ffn.net.0.proj"), 32);
    EXPECT_FALSE(memory->narrowest_target_width("proj_out").has_value());
    EXPECT_GT(memory->training_activation_bytes(2, 1, 1000, {2, false}, 1), 0u);
    EXPECT_EQ(memory->quantized_base_saving_bytes(2, lora::BaseQuantization::None), 0);
    EXPECT_GT(memory->quantized_base_saving_bytes(2, lora::BaseQuantization::Int8), 0);
}

TEST(WanFamily, ATransformerAloneIsFoundByItsFamily) {
    const fs::path folder = test::tiny_wan_pipeline("wan2.1-tiny") / "transformer";
    EXPECT_EQ(load_transformer_at(folder, {})->class_name(), "WanTransformer3DModel");
    EXPECT_EQ(load_transformer_at(test::tiny_pipeline() / "transformer", {})->class_name(),
              "CogVideoXTransformer3DModel");
    const core::Error error =
        error_of([&] { load_transformer_at(test::tiny_wan_pipeline("wan2.1-tiny") / "vae", {}); });
    EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
    expect_mentions(error, "Wan");
}

} // namespace
} // namespace tuneframe::models::wan
