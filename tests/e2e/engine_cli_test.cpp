// Drives the real tuneframe-engine binary as the studio and users do.
#include "common/protocol.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/safetensors/safetensors_writer.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using test::run_process;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
        lines.push_back(line);
    }
    return lines;
}

TEST(EngineCli, PrintsItsVersion) {
    auto result = run_process({test::engine_path(), "--version"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.out, "tuneframe-engine " TUNEFRAME_VERSION "\n");
}

TEST(EngineCli, DevicesSaysHelloFirstThenDone) {
    auto result = run_process({test::engine_path(), "devices"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto lines = lines_of(result.out);
    ASSERT_EQ(lines.size(), 2u) << result.out;
    std::string error;
    auto hello = protocol::parse_line(lines[0], "type", &error);
    ASSERT_TRUE(hello) << error;
    EXPECT_EQ(hello->kind, "hello");
    EXPECT_EQ(hello->body["protocol"], protocol::kVersion);
    EXPECT_FALSE(hello->body["libtorch"].get<std::string>().empty());
    bool has_cpu = false;
    for (const auto& device : hello->body["devices"]) {
        has_cpu |= device["type"] == "cpu" && device["total_memory"].get<std::int64_t>() > 0;
    }
    EXPECT_TRUE(has_cpu) << lines[0];
    auto done = protocol::parse_line(lines[1], "type", &error);
    ASSERT_TRUE(done) << error;
    EXPECT_EQ(done->kind, "done");
}

TEST(EngineCli, InspectCountsParametersOfAShardedFolder) {
    test::TemporaryDirectory dir;
    std::vector<float> a(1000, 1.0f);
    std::vector<std::uint16_t> b(500, 0);
    core::write_safetensors(dir / "diffusion_pytorch_model-00001-of-00002.safetensors",
                            {{"a.weight", core::DType::F32, {10, 100}, a.data()}});
    core::write_safetensors(dir / "diffusion_pytorch_model-00002-of-00002.safetensors",
                            {{"b.weight", core::DType::BF16, {500}, b.data()}});
    core::write_json_file(dir / "diffusion_pytorch_model.safetensors.index.json",
                          {{"weight_map",
                            {{"a.weight", "diffusion_pytorch_model-00001-of-00002.safetensors"},
                             {"b.weight", "diffusion_pytorch_model-00002-of-00002.safetensors"}}}});
    core::write_json_file(dir / "config.json", {{"_class_name", "CogVideoXTransformer3DModel"}});

    auto result = run_process({test::engine_path(), "inspect", "--json", dir.path().string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto report = nlohmann::json::parse(result.out);
    EXPECT_EQ(report["parameters"], 1500);
    ASSERT_EQ(report["components"].size(), 1u);
    const auto& component = report["components"][0];
    EXPECT_EQ(component["class_name"], "CogVideoXTransformer3DModel");
    EXPECT_EQ(component["shards"], 2);
    EXPECT_EQ(component["parameters_by_dtype"]["BF16"], 500);
    EXPECT_EQ(component["tensors"][0]["name"], "a.weight");
    EXPECT_EQ(component["tensors"][0]["shape"], nlohmann::json({10, 100}));

    auto text = run_process({test::engine_path(), "inspect", dir.path().string()});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("1.5 K (1500)"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("(2 shards)"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("b.weight"), std::string::npos) << text.out;
}

TEST(EngineCli, InspectListsAGoldenPipelineByComponent) {
    auto golden = test::golden_dir();
    if (golden.empty()) {
        if (test::running_in_ci()) {
            FAIL() << "../shared/golden is missing";
        }
        GTEST_SKIP();
    }
    auto result = run_process({test::engine_path(), "inspect", "--json", "--summary",
                               (golden / "pipeline_t2v/pipeline").string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto report = nlohmann::json::parse(result.out);
    std::map<std::string, std::int64_t> parameters;
    for (const auto& component : report["components"]) {
        parameters[component["name"]] = component["parameters"];
        EXPECT_FALSE(component.contains("tensors")) << "--summary leaves tensors out";
    }
    EXPECT_EQ(parameters.size(), 5u);
    EXPECT_EQ(parameters.at("tokenizer"), 0);
    // The count must equal the sum of the file's own tensor sizes.
    core::SafetensorsFile transformer(
        golden / "pipeline_t2v/pipeline/transformer/diffusion_pytorch_model.safetensors");
    std::int64_t expected = 0;
    for (const auto& tensor : transformer.tensors()) {
        expected += tensor.numel();
    }
    EXPECT_EQ(parameters.at("transformer"), expected);
}

TEST(EngineCli, MalformedFileFailsWithTheFileNamed) {
    test::TemporaryDirectory dir;
    test::write_bytes(dir / "broken.safetensors", std::string("\x10\0\0\0\0\0\0\0{\"a\":", 13));
    auto result =
        run_process({test::engine_path(), "inspect", (dir / "broken.safetensors").string()});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("broken.safetensors"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("hint:"), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty());
}

// A model root whose model_index.json is missing is still read component by component: a
// broken transformer/ is an error naming its file, and an empty folder is no model at all.
TEST(EngineCli, InspectWithoutModelIndexReadsTheComponentsAndRefusesAnEmptyFolder) {
    test::TemporaryDirectory dir;
    fs::copy(test::tiny_pipeline(), dir / "model", fs::copy_options::recursive);
    fs::remove(dir / "model" / "model_index.json");
    const auto whole =
        run_process({test::engine_path(), "inspect", "--summary", (dir / "model").string()});
    EXPECT_EQ(whole.exit_code, 0) << whole.err;
    EXPECT_NE(whole.out.find("transformer (CogVideoXTransformer3DModel)"), std::string::npos)
        << whole.out;
    EXPECT_NE(whole.out.find("vae (AutoencoderKLCogVideoX)"), std::string::npos) << whole.out;

    for (const auto& entry : fs::directory_iterator(dir / "model" / "transformer")) {
        if (entry.path().extension() == ".safetensors") {
            fs::resize_file(entry.path(), 20);
        }
    }
    const auto broken = run_process({test::engine_path(), "inspect", (dir / "model").string()});
    EXPECT_EQ(broken.exit_code, 1);
    EXPECT_NE(broken.err.find("transformer"), std::string::npos) << broken.err;
    EXPECT_NE(broken.err.find(".safetensors"), std::string::npos) << broken.err;

    fs::create_directories(dir / "empty");
    const auto empty = run_process({test::engine_path(), "inspect", (dir / "empty").string()});
    EXPECT_EQ(empty.exit_code, 1);
    EXPECT_NE(empty.err.find("holds no model"), std::string::npos) << empty.err;
    EXPECT_NE(empty.err.find("hint:"), std::string::npos) << empty.err;
}

// A zero-frame input is a BadInput naming the file and the layout, not LibTorch's reshape error.
TEST(EngineCli, ForwardRefusesAnEmptyDimensionNamingTheTensor) {
    test::TemporaryDirectory dir;
    std::vector<float> text(4 * 32, 0.5f);
    std::vector<float> timestep(1, 500.0f);
    core::write_safetensors(dir / "inputs.safetensors",
                            {{"hidden_states", core::DType::F32, {1, 0, 16, 4, 6}, nullptr},
                             {"encoder_hidden_states", core::DType::F32, {1, 4, 32}, text.data()},
                             {"timestep", core::DType::F32, {1}, timestep.data()}});
    const auto result = run_process({test::engine_path(), "forward", "transformer", "--model",
                                     (test::tiny_pipeline() / "transformer").string(), "--inputs",
                                     (dir / "inputs.safetensors").string(), "--out",
                                     (dir / "out.safetensors").string(), "--device", "cpu"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("inputs.safetensors': tensor 'hidden_states' has shape [1, 0, 16, "
                              "4, 6]"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("[batch, frames, channels, height, width]"), std::string::npos)
        << result.err;
    EXPECT_FALSE(fs::exists(dir / "out.safetensors"));
}

// The architecture inspect reports for a component, by name.
nlohmann::json inspected_architecture(const fs::path& path, const std::string& component) {
    const auto result =
        run_process({test::engine_path(), "inspect", "--json", "--summary", path.string()});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    const nlohmann::json report = nlohmann::json::parse(result.out);
    for (const auto& entry : report["components"]) {
        if (entry["name"] == component) {
            return entry.value("architecture", nlohmann::json());
        }
    }
    ADD_FAILURE() << "no component " << component << " in " << result.out;
    return nullptr;
}

// Each tiny Wan pipeline's transformer, through its family: the variant, the sizes, the
// channels, the experts, the stored dtype and a memory estimate at the release's own size.
TEST(EngineCli, InspectDescribesTheTinyWanPipelines) {
    struct Expected {
        const char* arch;
        const char* variant;
        std::int64_t in_channels;
        std::int64_t latent_channels;
        std::int64_t experts;
        std::int64_t video_tokens; // at the release's size
        std::int64_t context_tokens;
    };
    // 81 x 480 x 832 through the 8x VAE: 21 x 30 x 52 tokens; 121 x 704 x 1280 through the 16x
    // one: 31 x 22 x 40. 512 text tokens, and 257 CLIP tokens for Wan 2.1 I2V.
    for (const Expected& expected : {Expected{"wan2.1-tiny", "t2v", 16, 16, 1, 32760, 512},
                                     Expected{"wan2.1-tiny-i2v", "i2v", 36, 16, 1, 32760, 769},
                                     Expected{"wan2.2-tiny-ti2v", "ti2v", 48, 48, 1, 27280, 512},
                                     Expected{"wan2.2-tiny-a14b", "t2v", 16, 16, 2, 32760, 512}}) {
        SCOPED_TRACE(expected.arch);
        const fs::path pipeline = test::tiny_wan_pipeline(expected.arch);
        const nlohmann::json a = inspected_architecture(pipeline, "transformer");
        ASSERT_TRUE(a.is_object()) << a;
        EXPECT_EQ(a["family"], "wan");
        EXPECT_EQ(a["variant"], expected.variant);
        EXPECT_EQ(a["layers"], 2);
        EXPECT_EQ(a["heads"], 2);
        EXPECT_EQ(a["head_dim"], 16);
        EXPECT_EQ(a["width"], 32);
        EXPECT_EQ(a["in_channels"], expected.in_channels);
        EXPECT_EQ(a["out_channels"], expected.latent_channels);
        EXPECT_EQ(a["latent_channels"], expected.latent_channels);
        EXPECT_EQ(a["experts"], expected.experts);
        EXPECT_EQ(a["dtype"], "F32");
        const nlohmann::json& memory = a["memory"];
        EXPECT_EQ(memory["video_tokens"], expected.video_tokens);
        EXPECT_EQ(memory["tokens"], expected.video_tokens + expected.context_tokens);
        EXPECT_EQ(memory["rank"], 32) << "clamped to the layers' width";
        EXPECT_LT(memory["lora_training_checkpointed"]["total"].get<std::int64_t>(),
                  memory["lora_training"]["total"].get<std::int64_t>());
        EXPECT_GT(memory["inference_cfg"]["activations"].get<std::int64_t>(), 0);
        if (expected.experts > 1) {
            EXPECT_EQ(inspected_architecture(pipeline, "transformer_2")["experts"], 2);
        }
        const auto text =
            run_process({test::engine_path(), "inspect", "--summary", pipeline.string()});
        ASSERT_EQ(text.exit_code, 0) << text.err;
        EXPECT_NE(text.out.find(std::string("  variant:      ") + expected.variant + " (wan"),
                  std::string::npos)
            << text.out;
        EXPECT_NE(text.out.find("LoRA training r32, checkpointing:"), std::string::npos)
            << text.out;
    }
}

// A transformer folder alone: what its config implies (Wan 2.1 I2V from its 36 channels and
// image branch), and --shape for the estimate.
TEST(EngineCli, InspectDescribesAWanTransformerFolder) {
    const fs::path transformer = test::tiny_wan_pipeline("wan2.1-tiny-i2v") / "transformer";
    const auto result = run_process({test::engine_path(), "inspect", "--json", "--summary",
                                     "--shape", "17x256x256", transformer.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const nlohmann::json a = nlohmann::json::parse(result.out)["components"][0]["architecture"];
    EXPECT_EQ(a["family"], "wan");
    EXPECT_EQ(a["variant"], "i2v");
    EXPECT_EQ(a["in_channels"], 36);
    EXPECT_EQ(a["experts"], 1);
    // 17 x 256 x 256 pixels: 5 x 16 x 16 tokens
    EXPECT_EQ(a["memory"]["video_tokens"], 5 * 16 * 16);
    EXPECT_EQ(a["memory"]["shape"], nlohmann::json({17, 256, 256}));
}

// ComfyUI's layout of the original Wan names under "model.diffusion_model.", in bf16: a
// transformer 128 wide (one head of the released width), 2 blocks.
void write_original_wan_file(const fs::path& file) {
    constexpr std::int64_t d = 128, ffn = 256, text = 32, freq = 32, channels = 16, blocks = 2;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes = {
        {"patch_embedding.weight", {d, channels, 1, 2, 2}},
        {"patch_embedding.bias", {d}},
        {"text_embedding.0.weight", {d, text}},
        {"text_embedding.0.bias", {d}},
        {"text_embedding.2.weight", {d, d}},
        {"text_embedding.2.bias", {d}},
        {"time_embedding.0.weight", {d, freq}},
        {"time_embedding.0.bias", {d}},
        {"time_embedding.2.weight", {d, d}},
        {"time_embedding.2.bias", {d}},
        {"time_projection.1.weight", {6 * d, d}},
        {"time_projection.1.bias", {6 * d}},
        {"head.head.weight", {channels * 4, d}},
        {"head.head.bias", {channels * 4}},
        {"head.modulation", {1, 2, d}}};
    for (std::int64_t i = 0; i < blocks; ++i) {
        const std::string block = "blocks." + std::to_string(i) + ".";
        for (const char* attention : {"self_attn.", "cross_attn."}) {
            for (const char* projection : {"q", "k", "v", "o"}) {
                shapes.push_back({block + attention + projection + ".weight", {d, d}});
                shapes.push_back({block + attention + projection + ".bias", {d}});
            }
            shapes.push_back({block + attention + "norm_q.weight", {d}});
            shapes.push_back({block + attention + "norm_k.weight", {d}});
        }
        shapes.push_back({block + "norm3.weight", {d}});
        shapes.push_back({block + "norm3.bias", {d}});
        shapes.push_back({block + "ffn.0.weight", {ffn, d}});
        shapes.push_back({block + "ffn.0.bias", {ffn}});
        shapes.push_back({block + "ffn.2.weight", {d, ffn}});
        shapes.push_back({block + "ffn.2.bias", {d}});
        shapes.push_back({block + "modulation", {1, 6, d}});
    }
    std::vector<std::vector<std::uint16_t>> data;
    std::vector<core::TensorToWrite> tensors;
    data.reserve(shapes.size());
    for (const auto& [name, shape] : shapes) {
        std::int64_t count = 1;
        for (const std::int64_t size : shape) {
            count *= size;
        }
        data.emplace_back(static_cast<std::size_t>(count), 0);
        tensors.push_back(
            {"model.diffusion_model." + name, core::DType::BF16, shape, data.back().data()});
    }
    core::write_safetensors(file, tensors);
}

TEST(EngineCli, InspectReadsAnOriginalWanFileByItsTensors) {
    test::TemporaryDirectory dir;
    const fs::path file = dir / "wan_t2v_tiny_comfyui.safetensors";
    write_original_wan_file(file);
    const nlohmann::json a = inspected_architecture(file, file.filename().string());
    ASSERT_TRUE(a.is_object()) << a;
    EXPECT_EQ(a["family"], "wan");
    EXPECT_EQ(a["name"], "custom");
    EXPECT_EQ(a["variant"], "t2v");
    EXPECT_EQ(a["layers"], 2);
    EXPECT_EQ(a["heads"], 1);
    EXPECT_EQ(a["head_dim"], 128);
    EXPECT_EQ(a["in_channels"], 16);
    EXPECT_EQ(a["out_channels"], 16);
    EXPECT_EQ(a["dtype"], "BF16");
    EXPECT_EQ(a["memory"]["tokens"], 32760 + 512);

    const auto text = run_process({test::engine_path(), "inspect", "--summary", file.string()});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("heads:        1 x 128 (width 128)"), std::string::npos) << text.out;
}

TEST(EngineCli, UsageErrorsExitWithTwo) {
    auto unknown = run_process({test::engine_path(), "frobnicate"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("frobnicate"), std::string::npos);
    auto option = run_process({test::engine_path(), "inspect", "--sumary", "x"});
    EXPECT_EQ(option.exit_code, 2);
    EXPECT_NE(option.err.find("--sumary"), std::string::npos) << option.err;
    auto missing = run_process({test::engine_path(), "inspect"});
    EXPECT_EQ(missing.exit_code, 2);
    auto help = run_process({test::engine_path(), "inspect", "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("usage: tuneframe-engine inspect"), std::string::npos);
}

} // namespace
} // namespace tuneframe
