#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/safetensors/safetensors_writer.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

namespace tuneframe::core {
namespace {

using test::read_bytes;
using test::TemporaryDirectory;
using test::write_bytes;

// A raw safetensors file: the 8-byte little-endian length, the header text, the data.
std::string raw_file(const std::string& header, const std::string& data = {}) {
    std::string bytes(8, '\0');
    std::uint64_t size = header.size();
    for (int i = 0; i < 8; ++i) {
        bytes[i] = static_cast<char>((size >> (8 * i)) & 0xff);
    }
    return bytes + header + data;
}

class SafetensorsFileTest : public ::testing::Test {
protected:
    std::filesystem::path write(const std::string& bytes) {
        auto path = dir_ / ("case-" + std::to_string(counter_++) + ".safetensors");
        write_bytes(path, bytes);
        return path;
    }

    // Opening must fail with `code`, naming the file and containing `fragment`.
    void expect_rejected(const std::string& bytes, const std::string& fragment,
                         ErrorCode code = ErrorCode::BadInput) {
        auto path = write(bytes);
        try {
            SafetensorsFile file(path);
            ADD_FAILURE() << "accepted a malformed file; expected: " << fragment;
        } catch (const Error& error) {
            EXPECT_EQ(error.code(), code) << error.what();
            EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos)
                << error.what();
            EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
                << "message: " << error.what() << "\nexpected to contain: " << fragment;
            EXPECT_FALSE(error.hint().empty());
        }
    }

    TemporaryDirectory dir_;
    int counter_ = 0;
};

TEST_F(SafetensorsFileTest, RoundTripsEveryDTypeWithMetadata) {
    const std::vector<DType> dtypes = {DType::Bool, DType::U8,  DType::I8,  DType::I16,
                                       DType::I32,  DType::I64, DType::F16, DType::BF16,
                                       DType::F32,  DType::F64};
    std::vector<std::vector<std::uint8_t>> buffers;
    std::vector<TensorToWrite> tensors;
    for (std::size_t i = 0; i < dtypes.size(); ++i) {
        std::vector<std::int64_t> shape = {2, static_cast<std::int64_t>(i % 3 + 1), 3};
        std::size_t bytes = dtype_size(dtypes[i]) * 2 * (i % 3 + 1) * 3;
        buffers.emplace_back(bytes);
        std::iota(buffers.back().begin(), buffers.back().end(), static_cast<std::uint8_t>(i * 7));
        if (dtypes[i] == DType::Bool) {
            for (auto& byte : buffers.back()) {
                byte &= 1;
            }
        }
        tensors.push_back(
            {"t." + std::string(dtype_name(dtypes[i])), dtypes[i], shape, buffers.back().data()});
    }
    std::vector<std::uint8_t> none;
    tensors.push_back({"scalar", DType::F32, {}, "\x00\x00\x80\x3f"});
    tensors.push_back({"empty", DType::F32, {0, 4}, none.data()});

    auto path = dir_ / "all.safetensors";
    write_safetensors(path, tensors, {{"format", "pt"}, {"note", "ünïcode ✓"}});

    SafetensorsFile file(path);
    EXPECT_EQ(file.metadata().at("format"), "pt");
    EXPECT_EQ(file.metadata().at("note"), "ünïcode ✓");
    ASSERT_EQ(file.tensors().size(), tensors.size());
    for (std::size_t i = 0; i < dtypes.size(); ++i) {
        const TensorInfo& info = file.at(tensors[i].name);
        EXPECT_EQ(info.dtype, dtypes[i]);
        EXPECT_EQ(info.shape, tensors[i].shape);
        ASSERT_EQ(info.nbytes(), buffers[i].size());
        EXPECT_EQ(std::memcmp(file.data(info), buffers[i].data(), buffers[i].size()), 0)
            << info.name;
    }
    const TensorInfo& scalar = file.at("scalar");
    EXPECT_TRUE(scalar.shape.empty());
    EXPECT_EQ(scalar.numel(), 1);
    float one = 0;
    std::memcpy(&one, file.data(scalar), 4);
    EXPECT_EQ(one, 1.0f);
    EXPECT_EQ(file.at("empty").numel(), 0);
    EXPECT_EQ(file.at("empty").nbytes(), 0u);
}

TEST_F(SafetensorsFileTest, HeaderIsPaddedSoDataIsAligned) {
    double value = 3.5;
    auto path = dir_ / "aligned.safetensors";
    write_safetensors(path, {{"x", DType::F64, {1}, &value}});
    const std::string bytes = read_bytes(path);
    std::uint64_t header = 0;
    std::memcpy(&header, bytes.data(), 8);
    EXPECT_EQ(header % 8, 0u);
    EXPECT_EQ(bytes.size(), 8 + header + 8);
    EXPECT_EQ(bytes[8 + header - 1], ' ') << "padding is spaces, as the format requires";
}

TEST_F(SafetensorsFileTest, WriterIsDeterministicWhateverTheOrder) {
    float a[2] = {1, 2};
    std::int64_t b[1] = {7};
    write_safetensors(dir_ / "one.safetensors",
                      {{"a", DType::F32, {2}, a}, {"b", DType::I64, {1}, b}});
    write_safetensors(dir_ / "two.safetensors",
                      {{"b", DType::I64, {1}, b}, {"a", DType::F32, {2}, a}});
    EXPECT_EQ(read_bytes(dir_ / "one.safetensors"), read_bytes(dir_ / "two.safetensors"));
}

TEST_F(SafetensorsFileTest, WriterRejectsDuplicateNamesAndKeepsTheOldFile) {
    float a = 1;
    auto path = dir_ / "keep.safetensors";
    write_safetensors(path, {{"a", DType::F32, {1}, &a}});
    const std::string before = read_bytes(path);
    EXPECT_THROW(write_safetensors(path, {{"x", DType::F32, {1}, &a}, {"x", DType::F32, {1}, &a}}),
                 Error);
    EXPECT_EQ(read_bytes(path), before);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_.path()),
                            std::filesystem::directory_iterator()),
              1)
        << "no temporary file may be left behind";
}

TEST_F(SafetensorsFileTest, WriterIntoAMissingFolderIsAnIoError) {
    float a = 1;
    try {
        write_safetensors(dir_ / "no/such/folder/x.safetensors", {{"a", DType::F32, {1}, &a}});
        FAIL() << "wrote into a missing folder";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::Io);
        EXPECT_NE(std::string(error.what()).find("no/such/folder"), std::string::npos);
    }
}

TEST_F(SafetensorsFileTest, FindAndAt) {
    float a = 1;
    auto path = dir_ / "lookup.safetensors";
    write_safetensors(path, {{"a", DType::F32, {1}, &a}});
    SafetensorsFile file(path);
    EXPECT_NE(file.find("a"), nullptr);
    EXPECT_EQ(file.find("b"), nullptr);
    try {
        file.at("b");
        FAIL();
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("'b'"), std::string::npos);
    }
}

TEST_F(SafetensorsFileTest, RejectsEmptyAndTooShortFiles) {
    expect_rejected("", "empty");
    expect_rejected("abc", "too short");
}

TEST_F(SafetensorsFileTest, RejectsHeaderLongerThanFile) {
    std::string bytes = raw_file("{}");
    bytes[0] = 100;
    expect_rejected(bytes, "truncated");
}

TEST_F(SafetensorsFileTest, RejectsHugeHeaderLength) {
    std::string bytes = raw_file("{}");
    bytes[4] = 1; // 2^32 + 2
    expect_rejected(bytes, "100 MB");
}

TEST_F(SafetensorsFileTest, RejectsNonJsonAndNonObjectHeaders) {
    expect_rejected(raw_file("{not json"), "not valid JSON");
    expect_rejected(raw_file("[1, 2]   "), "not a JSON object");
    expect_rejected(raw_file(R"({"a": 5})"), "not an object");
}

TEST_F(SafetensorsFileTest, RejectsDuplicateNames) {
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                             "xx"),
                    "appears twice");
}

TEST_F(SafetensorsFileTest, RejectsUnknownDTypeAsUnsupported) {
    expect_rejected(raw_file(R"({"a":{"dtype":"F8_E8M0","shape":[1],"data_offsets":[0,1]}})", "x"),
                    "F8_E8M0", ErrorCode::Unsupported);
}

TEST_F(SafetensorsFileTest, RejectsMissingFieldsAndBadShapes) {
    expect_rejected(raw_file(R"({"a":{"shape":[1],"data_offsets":[0,1]}})", "x"), "no dtype");
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","data_offsets":[0,1]}})", "x"), "no shape");
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})", "x"),
                    "not a size");
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}})", "x"),
                    "not a size");
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[1]}})", "x"), "data_offsets");
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0]}})", "x"),
                    "data_offsets");
}

TEST_F(SafetensorsFileTest, RejectsOffsetsOutsideTheData) {
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", "xx"),
                    "outside the data section");
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[2,1]}})", "xx"),
                    "outside the data section");
}

TEST_F(SafetensorsFileTest, RejectsSizeThatDoesNotMatchShape) {
    expect_rejected(raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "xxxx"),
                    "needs 8");
}

TEST_F(SafetensorsFileTest, RejectsShapesWhoseSizeOverflows) {
    expect_rejected(
        raw_file(R"({"a":{"dtype":"F64","shape":[4611686018427387904,4611686018427387904],)"
                 R"("data_offsets":[0,8]}})",
                 "xxxxxxxx"),
        "overflows");
}

// Issue #20: a 1-byte dtype of shape [2^32, 2^31, 0] needs no byte, but its element count
// overflowed int64 inside numel() (undefined behaviour) and LibTorch's strides would too.
TEST_F(SafetensorsFileTest, RejectsEmptyShapesWhoseOtherDimensionsOverflow) {
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[4294967296,2147483648,0],)"
                             R"("data_offsets":[0,0]}})"),
                    "overflows");
}

TEST(TensorInfoTest, NumelIsCheckedForHandMadeShapes) {
    TensorInfo empty{"empty", DType::U8, {4294967296, 2147483648, 0}, 0, 0};
    EXPECT_EQ(empty.numel(), 0);
    TensorInfo huge{"huge", DType::U8, {4294967296, 4294967296}, 0, 0};
    try {
        huge.numel();
        ADD_FAILURE() << "an overflowing element count was returned";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("'huge'"), std::string::npos) << error.what();
    }
}

TEST_F(SafetensorsFileTest, RejectsOverlapsHolesAndTrailingBytes) {
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                             R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                             "xxx"),
                    "overlap");
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}})",
                             "xxx"),
                    "unused bytes");
    expect_rejected(raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", "xxxx"),
                    "belong to no tensor");
}

TEST_F(SafetensorsFileTest, RejectsNonStringMetadata) {
    expect_rejected(raw_file(R"({"__metadata__":{"rank":4}})"), "not a string");
    expect_rejected(raw_file(R"({"__metadata__":[1]})"), "__metadata__");
}

TEST_F(SafetensorsFileTest, MissingFileAndFolderAreClearErrors) {
    try {
        SafetensorsFile file(dir_ / "absent.safetensors");
        FAIL();
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::Io);
        EXPECT_NE(std::string(error.what()).find("absent.safetensors"), std::string::npos);
    }
    try {
        SafetensorsFile file(dir_.path());
        FAIL();
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("folder"), std::string::npos);
    }
}

// Every truncation of a valid file must be rejected cleanly, never read out of bounds.
TEST_F(SafetensorsFileTest, EveryTruncationIsRejected) {
    float values[3] = {1, 2, 3};
    auto path = dir_ / "full.safetensors";
    write_safetensors(path, {{"v", DType::F32, {3}, values}}, {{"k", "v"}});
    const std::string bytes = read_bytes(path);
    for (std::size_t length = 0; length < bytes.size(); ++length) {
        auto cut = write(bytes.substr(0, length));
        EXPECT_THROW(SafetensorsFile file(cut), Error) << "length " << length;
    }
}

} // namespace
} // namespace tuneframe::core
