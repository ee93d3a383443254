// Loading and saving Wan transformers: diffusers folders (single file and shards), the original
// Wan-AI / ComfyUI layout with and without "model.diffusion_model.", fp8 files (with ComfyUI's
// scales), and files that are not a Wan transformer.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_checkpoint.h"
#include "engine/core/safetensors/safetensors_writer.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/wan/original_keys.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "tests/engine/wan_transformer/tiny_wan.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;
using core::DType;
using core::Error;
using core::ErrorCode;

// A tensor to write as it is (fp32) or as fp8 bytes.
struct FileTensor {
    std::string name;
    at::Tensor values; // float32, or uint8 bytes for the fp8 types
    DType dtype = DType::F32;
};

void write_file(const fs::path& path, const std::vector<FileTensor>& tensors) {
    std::vector<at::Tensor> keep;
    std::vector<core::TensorToWrite> records;
    for (const FileTensor& tensor : tensors) {
        keep.push_back(tensor.values.contiguous());
        records.push_back(
            {tensor.name, tensor.dtype, keep.back().sizes().vec(), keep.back().data_ptr()});
    }
    core::write_safetensors(path, records);
}

at::Tensor decode_every_byte(DType dtype) {
    test::TemporaryDirectory folder;
    write_file(folder / "all.safetensors",
               {{"all", torch::arange(256, torch::kInt64).to(torch::kUInt8), dtype}});
    return core::read_tensors(folder / "all.safetensors").at("all");
}

// Every fp8 byte's value, as the reader decodes it.
const at::Tensor& float8_values(DType dtype) {
    static const at::Tensor e4m3 = decode_every_byte(DType::F8_E4M3);
    static const at::Tensor e5m2 = decode_every_byte(DType::F8_E5M2);
    return dtype == DType::F8_E4M3 ? e4m3 : e5m2;
}

// The fp8 bytes nearest `values` (round to nearest; finite values only).
at::Tensor to_float8(const at::Tensor& values, DType dtype) {
    at::Tensor table = float8_values(dtype);
    table = torch::where(torch::isfinite(table), table, torch::full_like(table, 1e30));
    const at::Tensor distance = (values.reshape({-1, 1}) - table.reshape({1, -1})).abs();
    return distance.argmin(1).to(torch::kUInt8).reshape(values.sizes());
}

TEST(Float8Files, DecodeEveryByte) {
    const at::Tensor e4m3 = float8_values(DType::F8_E4M3);
    EXPECT_EQ(e4m3.scalar_type(), torch::kFloat32);
    EXPECT_EQ(e4m3[0x00].item<float>(), 0.0f);
    EXPECT_EQ(e4m3[0x38].item<float>(), 1.0f);
    EXPECT_EQ(e4m3[0x3C].item<float>(), 1.5f);
    EXPECT_EQ(e4m3[0x7E].item<float>(), 448.0f);
    EXPECT_EQ(e4m3[0xFE].item<float>(), -448.0f);
    EXPECT_EQ(e4m3[0x01].item<float>(), std::ldexp(1.0f, -9)); // the smallest subnormal
    EXPECT_EQ(e4m3[0x08].item<float>(), std::ldexp(1.0f, -6)); // the smallest normal
    EXPECT_TRUE(std::isnan(e4m3[0x7F].item<float>()));
    EXPECT_TRUE(std::isnan(e4m3[0xFF].item<float>()));
    const at::Tensor positive = e4m3.narrow(0, 0, 0x7F);
    EXPECT_TRUE(torch::all(positive.narrow(0, 1, 0x7E) > positive.narrow(0, 0, 0x7E)).item<bool>());

    const at::Tensor e5m2 = float8_values(DType::F8_E5M2);
    EXPECT_EQ(e5m2[0x3C].item<float>(), 1.0f);
    EXPECT_EQ(e5m2[0x7B].item<float>(), 57344.0f);
    EXPECT_EQ(e5m2[0x01].item<float>(), std::ldexp(1.0f, -16));
    EXPECT_TRUE(std::isinf(e5m2[0x7C].item<float>()));
    EXPECT_LT(e5m2[0xFC].item<float>(), 0);
    EXPECT_TRUE(std::isnan(e5m2[0x7D].item<float>()));
}

TEST(Float8Files, ViewsDecodeAsReadsDo) {
    test::TemporaryDirectory folder;
    const at::Tensor bytes = torch::randint(0, 0x7E, {5, 7}, torch::kInt64).to(torch::kUInt8);
    write_file(folder / "w.safetensors",
               {{"pad", torch::ones({3}, torch::kUInt8), DType::U8}, // misaligns what follows
                {"w", bytes, DType::F8_E4M3}});
    const core::SafetensorsFile file(folder / "w.safetensors");
    const at::Tensor viewed = core::view_tensor(file, file.at("w"));
    EXPECT_EQ(viewed.sizes(), (c10::IntArrayRef{5, 7}));
    EXPECT_TRUE(
        torch::equal(viewed, float8_values(DType::F8_E4M3).index({bytes.to(torch::kLong)})));
    EXPECT_EQ(core::to_scalar_type(DType::F8_E5M2), torch::kFloat32);
}

// A model's tensors as the original Wan layout names them, under `prefix`.
std::vector<FileTensor> original_tensors(const WanTransformer3DModel& model,
                                         const std::string& prefix = "") {
    std::vector<FileTensor> tensors;
    for (const auto& item : model->named_parameters()) {
        const auto name = original_name(item.key());
        EXPECT_TRUE(name) << item.key();
        tensors.push_back({prefix + name.value_or(item.key()), item.value().detach()});
    }
    return tensors;
}

void expect_same_weights(const WanTransformer3DModel& got, const WanTransformer3DModel& expected) {
    const auto want = expected->named_parameters();
    ASSERT_EQ(got->named_parameters().size(), want.size());
    for (const auto& item : got->named_parameters()) {
        EXPECT_TRUE(torch::equal(item.value(), want[item.key()])) << item.key();
    }
}

class OriginalLayout : public ::testing::TestWithParam<std::string> {};

TEST_P(OriginalLayout, LoadsTheSameModel) {
    for (const bool image_to_video : {false, true}) {
        SCOPED_TRACE(image_to_video ? "I2V" : "T2V");
        const auto config = test::tiny_wan_config(image_to_video);
        auto model = test::seeded_wan_model(config);
        test::TemporaryDirectory folder;
        write_file(folder / "wan.safetensors", original_tensors(model, GetParam()));
        TransformerLoadOptions options;
        options.num_attention_heads = 4;
        auto loaded = load_wan_transformer(folder / "wan.safetensors", options);
        EXPECT_EQ(loaded->config().to_json(), config.to_json());
        expect_same_weights(loaded, model);
        const TransformerInputs inputs = test::seeded_wan_inputs(config);
        torch::NoGradGuard no_grad;
        EXPECT_TRUE(torch::equal(loaded->forward(inputs), model->forward(inputs)));
    }
}

INSTANTIATE_TEST_SUITE_P(Prefixes, OriginalLayout, ::testing::Values("", "model.diffusion_model."),
                         [](const auto& info) {
                             return info.param.empty() ? std::string("Bare")
                                                       : std::string("ComfyUIPrefix");
                         });

TEST(OriginalLayout, TakesTheHeadsFromWanAIsConfig) {
    const auto config = test::tiny_wan_config();
    const auto model = test::seeded_wan_model(config);
    test::TemporaryDirectory folder;
    write_file(folder / "diffusion_pytorch_model.safetensors", original_tensors(model));
    core::write_json_file(folder / "config.json",
                          {{"_class_name", "WanModel"}, {"dim", 64}, {"num_heads", 4}});
    auto loaded = load_wan_transformer(folder.path());
    EXPECT_EQ(loaded->config().num_attention_heads, 4);
    expect_same_weights(loaded, model);

    // Without a count, heads are 128 wide as in every released model: 64 does not divide.
    try {
        load_wan_transformer(folder / "diffusion_pytorch_model.safetensors");
        FAIL() << "a 64-wide model loaded without a head count";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::BadInput);
        EXPECT_NE(error.hint().find("num_attention_heads"), std::string::npos);
    }
}

TEST(OriginalLayout, RealSizedNamesMapBothWays) {
    EXPECT_EQ(diffusers_name("model.diffusion_model.blocks.39.cross_attn.k_img.weight"),
              "blocks.39.attn2.add_k_proj.weight");
    EXPECT_EQ(diffusers_name("blocks.0.norm3.bias"), "blocks.0.norm2.bias");
    EXPECT_EQ(diffusers_name("blocks.7.ffn.2.weight"), "blocks.7.ffn.net.2.weight");
    EXPECT_EQ(diffusers_name("head.modulation"), "scale_shift_table");
    EXPECT_EQ(diffusers_name("blocks.3.modulation"), "blocks.3.scale_shift_table");
    EXPECT_EQ(diffusers_name("img_emb.proj.3.weight"),
              "condition_embedder.image_embedder.ff.net.2.weight");
    EXPECT_EQ(diffusers_name("blocks.2.attn1.to_out.0.weight"), "blocks.2.attn1.to_out.0.weight");
    EXPECT_EQ(original_name("blocks.2.attn1.to_out.0.weight"), "blocks.2.self_attn.o.weight");
    EXPECT_EQ(original_name("blocks.2.attn2.norm_added_k.weight"),
              "blocks.2.cross_attn.norm_k_img.weight");
    EXPECT_EQ(scaled_weight_name("model.diffusion_model.blocks.0.self_attn.q.scale_weight"),
              "blocks.0.self_attn.q.weight");
    EXPECT_TRUE(is_ignored_key("scaled_fp8"));
    EXPECT_TRUE(is_ignored_key("blocks.0.ffn.0.scale_input"));
    EXPECT_FALSE(is_ignored_key("blocks.0.ffn.0.weight"));
}

TEST(Float8Files, LoadWithinFp8Rounding) {
    const auto config = test::tiny_wan_config(true);
    auto model = test::seeded_wan_model(config);
    // ComfyUI's scaled fp8: the blocks' 2-D weights as e4m3 with a per-tensor scale_weight (and
    // a scale_input and the marker, which only fp8 matmuls read); one layer plain e5m2 without
    // a scale; everything else float32.
    std::vector<FileTensor> tensors = {
        {"scaled_fp8", torch::zeros({0}, torch::kUInt8), DType::F8_E4M3}};
    std::map<std::string, at::Tensor> expected;
    for (const FileTensor& tensor : original_tensors(model)) {
        const std::string& name = tensor.name;
        const bool block_weight = name.rfind("blocks.", 0) == 0 && tensor.values.dim() == 2;
        if (name == "blocks.0.ffn.0.weight") {
            const at::Tensor bytes = to_float8(tensor.values, DType::F8_E5M2);
            tensors.push_back({name, bytes, DType::F8_E5M2});
            expected[name] = float8_values(DType::F8_E5M2).index({bytes.to(torch::kLong)});
        } else if (block_weight) {
            const at::Tensor scale = tensor.values.abs().max() / 448.0;
            const at::Tensor bytes = to_float8(tensor.values / scale, DType::F8_E4M3);
            const std::string layer = name.substr(0, name.size() - 7); // ".weight"
            tensors.push_back({name, bytes, DType::F8_E4M3});
            tensors.push_back({layer + ".scale_weight", scale.reshape({})});
            tensors.push_back({layer + ".scale_input", torch::ones({})});
            expected[name] = float8_values(DType::F8_E4M3).index({bytes.to(torch::kLong)}) * scale;
        } else {
            tensors.push_back(tensor);
        }
    }
    test::TemporaryDirectory folder;
    write_file(folder / "wan_fp8_scaled.safetensors", tensors);
    TransformerLoadOptions options;
    options.num_attention_heads = 4;
    auto loaded = load_wan_transformer(folder / "wan_fp8_scaled.safetensors", options);
    EXPECT_EQ(loaded->dtype(), torch::kFloat32); // the unquantized tensors' dtype

    const auto whole = model->named_parameters();
    std::size_t quantized = 0;
    for (const auto& item : loaded->named_parameters()) {
        const at::Tensor& original = whole[item.key()];
        const auto name = *original_name(item.key());
        if (!expected.count(name)) {
            EXPECT_TRUE(torch::equal(item.value(), original)) << item.key();
            continue;
        }
        ++quantized;
        EXPECT_TRUE(torch::equal(item.value(), expected.at(name))) << item.key();
        // Within half a step of 3 (e4m3) or 2 (e5m2) mantissa bits, or of the subnormal step.
        const double mantissa = name == "blocks.0.ffn.0.weight" ? 0.125 : 0.0625;
        const at::Tensor step = original.abs() * mantissa + original.abs().max() / 448.0 / 512.0;
        EXPECT_TRUE(torch::all((item.value() - original).abs() <= step * 1.0001).item<bool>())
            << item.key();
    }
    EXPECT_EQ(quantized, 3u * 12u); // per block: q, k, v, o twice, add_k, add_v, ffn.0, ffn.2
    const TransformerInputs inputs = test::seeded_wan_inputs(config);
    torch::NoGradGuard no_grad;
    const at::Tensor reference = model->forward(inputs);
    const double error = (loaded->forward(inputs) - reference).abs().max().item<double>();
    EXPECT_LT(error, 0.1 * reference.abs().max().item<double>());
    EXPECT_GT(error, 0); // the rounding is real

    // A file of fp8 weights alone loads in bf16 unless told otherwise.
    options.dtype = torch::kBFloat16;
    EXPECT_EQ(load_wan_transformer(folder / "wan_fp8_scaled.safetensors", options)->dtype(),
              torch::kBFloat16);
}

// The BadInput error loading `path` throws.
Error load_error(const fs::path& path) {
    try {
        load_wan_transformer(path);
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::BadInput) << error.what();
        return error;
    }
    ADD_FAILURE() << path << " loaded";
    return Error(ErrorCode::None, "");
}

bool says(const Error& error, const std::string& text) {
    return std::string(error.what()).find(text) != std::string::npos;
}

TEST(WanTransformerLoading, RefusesWhatIsNotAWanTransformer) {
    test::TemporaryDirectory folder;
    write_file(folder / "cogvideox.safetensors",
               {{"patch_embed.proj.weight", torch::zeros({4, 16, 2, 2})},
                {"transformer_blocks.0.attn1.to_q.weight", torch::zeros({4, 4})}});
    const Error cogvideox = load_error(folder / "cogvideox.safetensors");
    EXPECT_TRUE(says(cogvideox, "cogvideox.safetensors"));
    EXPECT_TRUE(says(cogvideox, "a CogVideoX transformer"));
    EXPECT_NE(cogvideox.hint().find("Wan"), std::string::npos);

    write_file(folder / "random.safetensors",
               {{"foo", torch::zeros({2})}, {"bar", torch::zeros({3})}});
    const Error random = load_error(folder / "random.safetensors");
    EXPECT_TRUE(says(random, "random.safetensors"));
    EXPECT_TRUE(says(random, "2 tensor(s) such as 'bar', 'foo'"));

    write_file(folder / "lora.safetensors",
               {{"diffusion_model.blocks.0.self_attn.q.lora_down.weight", torch::zeros({2, 4})}});
    EXPECT_TRUE(says(load_error(folder / "lora.safetensors"), "a LoRA adapter"));

    EXPECT_TRUE(says(load_error(folder / "missing.safetensors"), "does not exist"));
    fs::create_directories(folder / "pipeline" / "transformer");
    core::write_json_file(folder / "pipeline" / "transformer" / "config.json",
                          test::tiny_wan_config().to_json());
    EXPECT_NE(load_error(folder / "pipeline").hint().find("transformer/ folder"),
              std::string::npos);
    core::write_json_file(folder / "pipeline" / "transformer" / "config.json",
                          {{"_class_name", "CogVideoXTransformer3DModel"}});
    EXPECT_TRUE(says(load_error(folder / "pipeline" / "transformer"), "CogVideoX"));
}

TEST(WanTransformerLoading, ListsTheTensorsAFileLacks) {
    const auto model = test::seeded_wan_model(test::tiny_wan_config());
    std::vector<FileTensor> tensors;
    for (FileTensor& tensor : original_tensors(model)) {
        if (tensor.name != "blocks.2.self_attn.norm_k.weight") {
            tensors.push_back(tensor);
        }
    }
    tensors.push_back({"blocks.1.extra.weight", torch::zeros({2})});
    test::TemporaryDirectory folder;
    write_file(folder / "wan.safetensors", tensors);
    try {
        TransformerLoadOptions options;
        options.num_attention_heads = 4;
        load_wan_transformer(folder / "wan.safetensors", options);
        FAIL();
    } catch (const Error& error) {
        EXPECT_TRUE(says(error, "1 missing key(s): blocks.2.attn1.norm_k.weight"));
        EXPECT_TRUE(says(error, "1 unexpected key(s): blocks.1.extra.weight"));
    }
}

TEST(WanTransformerLoading, SavedFoldersLoadBack) {
    const auto config = test::tiny_wan_config(true);
    auto model = test::seeded_wan_model(config);
    lora::LoRAConfig adapters;
    adapters.rank = 2;
    lora::inject_lora(*model, adapters); // not saved
    test::TemporaryDirectory folder;
    for (const std::uint64_t shard_bytes : {std::uint64_t{5'000'000'000}, std::uint64_t{100'000}}) {
        SCOPED_TRACE(shard_bytes);
        const fs::path out = folder / std::to_string(shard_bytes);
        const fs::path written = save_wan_transformer(model, out, shard_bytes);
        EXPECT_EQ(written.filename().string().find(".index.json") != std::string::npos,
                  shard_bytes < 1'000'000);
        for (const std::string& name : core::SafetensorsCheckpoint(out).names()) {
            EXPECT_FALSE(lora::is_adapter_tensor(name)) << name;
        }
        EXPECT_EQ(WanTransformer3DConfig::from_file((out / "config.json").string()).to_json(),
                  config.to_json());
        auto loaded = load_wan_transformer(out);
        for (const auto& item : loaded->named_parameters()) {
            EXPECT_TRUE(torch::equal(item.value(), model->named_parameters()[item.key()]))
                << item.key();
        }
        TransformerLoadOptions options;
        options.dtype = torch::kBFloat16;
        EXPECT_EQ(load_wan_transformer(out, options)->dtype(), torch::kBFloat16);
    }
}

TEST(WanTransformerLoading, SkipsNormAddedQAsDiffusersDoes) {
    const auto config = test::tiny_wan_config(true);
    const auto model = test::seeded_wan_model(config);
    test::TemporaryDirectory folder;
    std::vector<FileTensor> tensors;
    for (const auto& item : model->named_parameters()) {
        tensors.push_back({item.key(), item.value().detach()});
    }
    tensors.push_back({"blocks.0.attn2.norm_added_q.weight", torch::ones({64})});
    write_file(folder / "diffusion_pytorch_model.safetensors", tensors);
    core::write_json_file(folder / "config.json", config.to_json());
    expect_same_weights(load_wan_transformer(folder.path()), model);
}

} // namespace
} // namespace tuneframe::models::wan
