#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/tensor_io.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::core {
namespace {

using test::TemporaryDirectory;

TEST(TensorIo, RoundTripsEveryLibTorchTypeBitExactly) {
    TemporaryDirectory dir;
    torch::manual_seed(0);
    NamedTensors tensors = {
        {"f32", torch::randn({3, 5})},
        {"f64", torch::randn({2, 2}, torch::kFloat64)},
        {"bf16", torch::randn({4, 3}).to(torch::kBFloat16)},
        {"f16", torch::randn({7}).to(torch::kFloat16)},
        {"i64", torch::randint(-1000, 1000, {6}, torch::kInt64)},
        {"i32", torch::randint(-1000, 1000, {2, 3}, torch::kInt32)},
        {"i16", torch::randint(-1000, 1000, {2}, torch::kInt16)},
        {"i8", torch::randint(-100, 100, {5}, torch::kInt8)},
        {"u8", torch::randint(0, 255, {5}, torch::kUInt8)},
        {"bool", torch::rand({9}) > 0.5},
        {"scalar", torch::tensor(2.5)},
        {"empty", torch::empty({0, 3})},
    };
    write_tensors(dir / "t.safetensors", tensors, {{"k", "v"}});
    auto loaded = read_tensors(dir / "t.safetensors");
    ASSERT_EQ(loaded.size(), tensors.size());
    for (const auto& [name, original] : tensors) {
        const at::Tensor& back = loaded.at(name);
        EXPECT_EQ(back.scalar_type(), original.scalar_type()) << name;
        EXPECT_EQ(back.sizes(), original.sizes()) << name;
        EXPECT_TRUE(torch::equal(back, original)) << name;
    }
}

TEST(TensorIo, NonContiguousTensorsAreStoredInLogicalOrder) {
    TemporaryDirectory dir;
    at::Tensor base = torch::arange(12, torch::kFloat32).reshape({3, 4});
    at::Tensor transposed = base.t();
    ASSERT_FALSE(transposed.is_contiguous());
    write_tensors(dir / "t.safetensors", {{"t", transposed}, {"slice", base.index({1})}});
    auto loaded = read_tensors(dir / "t.safetensors");
    EXPECT_TRUE(torch::equal(loaded.at("t"), transposed));
    EXPECT_TRUE(torch::equal(loaded.at("slice"), torch::arange(4, 8, torch::kFloat32)));
}

TEST(TensorIo, ViewsShareTheMappingAndOutliveTheFileObject) {
    TemporaryDirectory dir;
    at::Tensor values = torch::randn({64});
    write_tensors(dir / "v.safetensors", {{"v", values}});
    at::Tensor view;
    const std::uint8_t* mapped = nullptr;
    {
        SafetensorsFile file(dir / "v.safetensors");
        view = view_tensor(file, file.at("v"));
        mapped = file.data(file.at("v"));
    }
    EXPECT_EQ(static_cast<const void*>(view.data_ptr()), static_cast<const void*>(mapped))
        << "a view is zero-copy";
    EXPECT_TRUE(torch::equal(view, values)) << "the mapping lives as long as the view";
}

TEST(TensorIo, ReadTensorOwnsItsMemory) {
    TemporaryDirectory dir;
    write_tensors(dir / "v.safetensors", {{"v", torch::ones({4})}});
    SafetensorsFile file(dir / "v.safetensors");
    at::Tensor copy = read_tensor(file, file.at("v"));
    copy.add_(1); // writing to a view of the read-only mapping would fault
    EXPECT_TRUE(torch::equal(copy, torch::full({4}, 2.0f)));
}

TEST(TensorIo, TypeMappingIsSymmetric) {
    for (DType dtype : {DType::Bool, DType::U8, DType::I8, DType::I16, DType::I32, DType::I64,
                        DType::F16, DType::BF16, DType::F32, DType::F64}) {
        EXPECT_EQ(from_scalar_type(to_scalar_type(dtype)), dtype) << dtype_name(dtype);
    }
    EXPECT_EQ(from_scalar_type(torch::kComplexFloat), DType::Invalid);
    TemporaryDirectory dir;
    EXPECT_THROW(
        write_tensors(dir / "c.safetensors", {{"c", torch::zeros({2}, torch::kComplexFloat)}}),
        Error);
}

} // namespace
} // namespace tuneframe::core
