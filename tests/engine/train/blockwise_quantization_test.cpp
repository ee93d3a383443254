// bitsandbytes' dynamic 8-bit map and block-wise quantisation, as the 8-bit AdamW uses them.
#include "engine/train/optim/blockwise_quantization.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace tuneframe::train {
namespace {

// How many map values fall in [10^-k, 10^(1-k)) for k = 1..6, largest decade first.
std::vector<std::int64_t> per_decade(const at::Tensor& map, bool negative) {
    std::vector<std::int64_t> counts;
    const at::Tensor values = negative ? -map : map;
    for (int k = 1; k <= 6; ++k) {
        const double low = std::pow(10.0, -k);
        const double high = std::pow(10.0, 1 - k);
        counts.push_back(((values >= low) & (values < high)).sum().item<std::int64_t>());
    }
    return counts;
}

TEST(DynamicQuantizationMap, SignedMapMirrorsAroundOneZero) {
    const at::Tensor map = dynamic_quantization_map(true);
    ASSERT_EQ(map.numel(), 256);
    EXPECT_EQ(map.scalar_type(), torch::kFloat32);
    EXPECT_TRUE((map.slice(0, 1) > map.slice(0, 0, 255)).all().item<bool>()) << "sorted, unique";
    EXPECT_EQ(map[127].item<float>(), 0.0f);
    EXPECT_EQ(map[255].item<float>(), 1.0f);
    // The smallest magnitude: the mean of linspace(0.1, 1, 2) in the 1e-6 decade.
    EXPECT_EQ(map[128].item<float>(), static_cast<float>(1e-6) * 0.55f);
    EXPECT_EQ(map[126].item<float>(), -map[128].item<float>());
    EXPECT_EQ(per_decade(map, false), (std::vector<std::int64_t>{64, 32, 16, 8, 4, 2}));
    EXPECT_EQ(per_decade(map, true), (std::vector<std::int64_t>{64, 32, 16, 8, 4, 2}));
    EXPECT_EQ(((map > 0) & (map < 1e-6)).sum().item<std::int64_t>(), 1);
}

TEST(DynamicQuantizationMap, UnsignedSpendsTheSignBitOnFractions) {
    const at::Tensor map = dynamic_quantization_map(false);
    ASSERT_EQ(map.numel(), 256);
    EXPECT_TRUE((map.slice(0, 1) > map.slice(0, 0, 255)).all().item<bool>());
    EXPECT_EQ(map[0].item<float>(), 0.0f);
    EXPECT_EQ(map[255].item<float>(), 1.0f);
    EXPECT_EQ(per_decade(map, false), (std::vector<std::int64_t>{128, 64, 32, 16, 8, 4}));
    EXPECT_EQ(((map > 0) & (map < 1e-6)).sum().item<std::int64_t>(), 2);
}

struct RoundTrip {
    at::Tensor codes;
    at::Tensor absmax;
    at::Tensor restored;
};

RoundTrip round_trip(const at::Tensor& values, bool is_signed, std::int64_t block_size) {
    const at::Tensor map = dynamic_quantization_map(is_signed);
    RoundTrip result;
    result.codes = torch::empty(values.sizes(), torch::kUInt8);
    result.absmax = torch::empty({(values.numel() + block_size - 1) / block_size});
    quantize_blockwise(values, map, block_size, is_signed, result.codes, result.absmax);
    result.restored =
        dequantize_blockwise(result.codes, result.absmax, map, block_size).view(values.sizes());
    return result;
}

TEST(BlockwiseQuantization, PicksTheNearestCode) {
    torch::manual_seed(3);
    const at::Tensor values = torch::rand({3, 100}) * torch::logspace(-6, 0, 100);
    const RoundTrip trip = round_trip(values, /*is_signed=*/false, 256);
    ASSERT_EQ(trip.absmax.numel(), 2);
    // Every other code of the same block would be at least as far away.
    const at::Tensor map = dynamic_quantization_map(false);
    const at::Tensor flat = values.reshape({-1});
    const at::Tensor scale = trip.absmax.repeat_interleave(256).slice(0, 0, flat.numel());
    const at::Tensor candidates = map.unsqueeze(0) * scale.unsqueeze(1);
    const at::Tensor best = (candidates - flat.unsqueeze(1)).abs().amin(1);
    const at::Tensor error = (trip.restored.reshape({-1}) - flat).abs();
    EXPECT_TRUE((error <= best * (1 + 1e-6) + 1e-12).all().item<bool>())
        << "worst excess " << (error - best).max().item<double>();
    // The block's largest value is stored exactly (it maps to 1).
    EXPECT_EQ(trip.restored.reshape({-1}).slice(0, 0, 256).max().item<float>(),
              flat.slice(0, 0, 256).max().item<float>());
}

TEST(BlockwiseQuantization, BlocksAreIndependent) {
    // One huge value in the first block must not cost the second block its precision.
    at::Tensor values = torch::full({8}, 1e-3);
    values[0] = 1e3;
    const RoundTrip trip = round_trip(values, true, 4);
    EXPECT_EQ(trip.absmax[0].item<float>(), 1e3f);
    EXPECT_FLOAT_EQ(trip.absmax[1].item<float>(), 1e-3f);
    EXPECT_TRUE(torch::allclose(trip.restored.slice(0, 4), values.slice(0, 4), 0, 1e-9));
    // In the first block 1e-3 is 1e-6 of the absmax: the bottom of the map.
    EXPECT_NEAR(trip.restored[1].item<float>(), 1e-3, 0.5e-3);
}

TEST(BlockwiseQuantization, KeepsTheSignOfSmallMoments) {
    const at::Tensor values = torch::tensor({1.0f, -1e-9f, 1e-9f, 0.0f, -0.5f});
    const RoundTrip trip = round_trip(values, /*is_signed=*/true, 256);
    EXPECT_LT(trip.restored[1].item<float>(), 0.0f) << "a negative momentum stays negative";
    EXPECT_GE(trip.restored[2].item<float>(), 0.0f);
    EXPECT_EQ(trip.restored[3].item<float>(), 0.0f);
    EXPECT_EQ(trip.restored[0].item<float>(), 1.0f);
    EXPECT_NEAR(trip.restored[4].item<float>(), -0.5f, 0.01f);
}

TEST(BlockwiseQuantization, ZeroBlocksAndTailBlocks) {
    at::Tensor values = torch::zeros({10});
    values[9] = -2.0f;
    const RoundTrip trip = round_trip(values, true, 4);
    ASSERT_EQ(trip.absmax.numel(), 3);
    EXPECT_EQ(trip.absmax[0].item<float>(), 0.0f);
    EXPECT_EQ(trip.absmax[2].item<float>(), 2.0f);
    EXPECT_TRUE(torch::isfinite(trip.restored).all().item<bool>());
    EXPECT_TRUE(torch::equal(trip.restored.slice(0, 0, 8), torch::zeros({8})));
    // -1 itself is not in the signed map; its nearest neighbour is -0.99297.
    EXPECT_NEAR(trip.restored[9].item<float>(), -2.0f, 2.0 * 0.008);
}

} // namespace
} // namespace tuneframe::train
