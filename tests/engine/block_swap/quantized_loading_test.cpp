// A transformer loaded with a quantized base (TransformerLoadOptions::quantization) is quantized
// tensor by tensor as it is read: the host's peak of live tensor bytes while loading stays near
// what the quantized model holds plus a few copies of one tensor, far below the model in full
// precision, and every tensor equals loading in full precision and then quantize_base(). Both
// families, through the seam's load_transformer_at.
#include "engine/core/device/cpu_allocation_tracker.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "engine/models/model_family.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "tests/engine/wan_transformer/tiny_wan.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models {
namespace {

namespace fs = std::filesystem;

// Twelve blocks whose Linear layers hold most of the weights, written as a diffusers folder.
void write_transformer(const std::string& family, const fs::path& folder) {
    if (family == "wan") {
        wan::WanTransformer3DConfig config = test::tiny_wan_config();
        config.num_layers = 12;
        wan::save_wan_transformer(test::seeded_wan_model(config), folder);
        return;
    }
    cogvideox::CogVideoXTransformer3DConfig config =
        cogvideox::find_architecture("cogvideox-5b").transformer;
    config.num_layers = 12;
    config.num_attention_heads = 4;
    config.attention_head_dim = 16;
    config.text_embed_dim = 24;
    config.time_embed_dim = 16;
    config.max_text_seq_length = 5;
    config.sample_height = 8;
    config.sample_width = 8;
    config.sample_frames = 9;
    torch::manual_seed(3);
    cogvideox::save_cogvideox_transformer(cogvideox::CogVideoXTransformer3DModel(config), folder);
}

std::int64_t bytes_of(const at::Tensor& tensor) {
    return tensor.numel() * static_cast<std::int64_t>(tensor.element_size());
}

class QuantizedLoading : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizedLoading, NeverHoldsTheFullPrecisionModelAndEqualsQuantizingAfter) {
    test::TemporaryDirectory dir;
    const fs::path folder = dir / "transformer";
    write_transformer(GetParam(), folder);

    TransformerLoadOptions full;
    full.dtype = torch::kFloat32;
    const DiffusionTransformer expected = load_transformer_at(folder, full);
    std::int64_t full_bytes = 0;
    std::int64_t largest = 0;
    for (const auto& tensor : expected->parameters()) {
        full_bytes += bytes_of(tensor);
        largest = std::max(largest, bytes_of(tensor));
    }
    expected->quantize_base(lora::BaseQuantization::Int8);

    TransformerLoadOptions quantized = full;
    quantized.quantization = lora::BaseQuantization::Int8;
    std::int64_t peak = 0;
    std::int64_t held = 0;
    DiffusionTransformer loaded;
    {
        core::CpuAllocationTracker tracker;
        const std::int64_t before = tracker.live_bytes();
        loaded = load_transformer_at(folder, quantized);
        peak = tracker.peak_bytes() - before;
        held = tracker.live_bytes() - before;
    }
    RecordProperty("peak_bytes", std::to_string(peak));
    RecordProperty("quantized_bytes", std::to_string(held));
    RecordProperty("full_precision_bytes", std::to_string(full_bytes));
    // One tensor converted, its float32 copy and the quantizer's temporaries, at a time.
    EXPECT_LE(peak, held + 6 * largest) << "held " << held << ", largest tensor " << largest;
    EXPECT_LT(peak, full_bytes / 2) << "full precision " << full_bytes;

    const auto want = expected->named_parameters();
    std::size_t quantized_layers = 0;
    for (const auto& item : loaded->named_parameters()) {
        ASSERT_TRUE(want.contains(item.key())) << item.key();
        EXPECT_EQ(item.value().scalar_type(), want[item.key()].scalar_type()) << item.key();
        EXPECT_TRUE(torch::equal(item.value(), want[item.key()])) << item.key();
        EXPECT_FALSE(item.value().requires_grad() && item.value().scalar_type() == torch::kInt8);
        quantized_layers += item.value().scalar_type() == torch::kInt8 ? 1 : 0;
    }
    EXPECT_GT(quantized_layers, 12u * 4);
    const auto want_buffers = expected->named_buffers();
    ASSERT_EQ(loaded->named_buffers().size(), want_buffers.size());
    for (const auto& item : loaded->named_buffers()) {
        ASSERT_TRUE(want_buffers.contains(item.key())) << item.key();
        EXPECT_TRUE(torch::equal(item.value(), want_buffers[item.key()])) << item.key();
    }
}

INSTANTIATE_TEST_SUITE_P(Families, QuantizedLoading, ::testing::Values("wan", "cogvideox"),
                         [](const auto& info) { return info.param; });

} // namespace
} // namespace tuneframe::models
