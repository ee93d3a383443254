#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_checkpoint.h"
#include "engine/core/safetensors/safetensors_writer.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

namespace tuneframe::core {
namespace {

using test::TemporaryDirectory;

class SafetensorsCheckpointTest : public ::testing::Test {
protected:
    void SetUp() override {
        write_safetensors(
            dir_ / "model-00001-of-00002.safetensors",
            {{"a.weight", DType::F32, {2}, values_}, {"b.weight", DType::F32, {1}, values_}});
        write_safetensors(dir_ / "model-00002-of-00002.safetensors",
                          {{"c.weight", DType::F32, {4}, values_}});
        write_index({{"a.weight", "model-00001-of-00002.safetensors"},
                     {"b.weight", "model-00001-of-00002.safetensors"},
                     {"c.weight", "model-00002-of-00002.safetensors"}});
    }

    void write_index(const nlohmann::json& weight_map) {
        write_json_file(index_path(),
                        {{"metadata", {{"total_size", 28}}}, {"weight_map", weight_map}});
    }

    std::filesystem::path index_path() const { return dir_ / "model.safetensors.index.json"; }

    std::string open_error(const std::filesystem::path& path, ErrorCode expected) {
        try {
            SafetensorsCheckpoint checkpoint(path);
        } catch (const Error& error) {
            EXPECT_EQ(error.code(), expected) << error.what();
            EXPECT_FALSE(error.hint().empty());
            return error.what();
        }
        ADD_FAILURE() << "opened " << path;
        return {};
    }

    TemporaryDirectory dir_;
    float values_[4] = {1, 2, 3, 4};
};

TEST_F(SafetensorsCheckpointTest, FolderWithIndexOpensEveryShard) {
    SafetensorsCheckpoint checkpoint(dir_.path());
    EXPECT_TRUE(checkpoint.sharded());
    EXPECT_EQ(checkpoint.source(), index_path());
    EXPECT_EQ(checkpoint.shards().size(), 2u);
    EXPECT_EQ(checkpoint.names(), (std::vector<std::string>{"a.weight", "b.weight", "c.weight"}));
    EXPECT_EQ(checkpoint.at("c.weight").shape, std::vector<std::int64_t>{4});
    EXPECT_EQ(checkpoint.shard_of("c.weight").path().filename(),
              "model-00002-of-00002.safetensors");
    EXPECT_EQ(checkpoint.find("d.weight"), nullptr);
}

TEST_F(SafetensorsCheckpointTest, SingleFileOpensUnsharded) {
    SafetensorsCheckpoint checkpoint(dir_ / "model-00002-of-00002.safetensors");
    EXPECT_FALSE(checkpoint.sharded());
    EXPECT_EQ(checkpoint.tensor_count(), 1u);
}

TEST_F(SafetensorsCheckpointTest, MissingShardIsNamed) {
    std::filesystem::remove(dir_ / "model-00002-of-00002.safetensors");
    std::string message = open_error(dir_.path(), ErrorCode::Io);
    EXPECT_NE(message.find("model-00002-of-00002.safetensors"), std::string::npos) << message;
    EXPECT_NE(message.find("missing"), std::string::npos) << message;
}

TEST_F(SafetensorsCheckpointTest, IndexThatDisagreesWithShardsIsRejected) {
    write_index({{"a.weight", "model-00001-of-00002.safetensors"},
                 {"b.weight", "model-00002-of-00002.safetensors"},
                 {"c.weight", "model-00002-of-00002.safetensors"}});
    std::string message = open_error(dir_.path(), ErrorCode::BadInput);
    EXPECT_NE(message.find("b.weight"), std::string::npos) << message;
}

TEST_F(SafetensorsCheckpointTest, TensorInTwoShardsIsRejected) {
    write_safetensors(
        dir_ / "model-00002-of-00002.safetensors",
        {{"a.weight", DType::F32, {2}, values_}, {"c.weight", DType::F32, {4}, values_}});
    write_index({{"a.weight", "model-00002-of-00002.safetensors"},
                 {"b.weight", "model-00001-of-00002.safetensors"},
                 {"c.weight", "model-00002-of-00002.safetensors"}});
    std::string message = open_error(dir_.path(), ErrorCode::BadInput);
    EXPECT_NE(message.find("a.weight"), std::string::npos) << message;
}

TEST_F(SafetensorsCheckpointTest, ShardNamesMustStayInTheFolder) {
    write_index({{"a.weight", "../elsewhere.safetensors"}});
    std::string message = open_error(dir_.path(), ErrorCode::BadInput);
    EXPECT_NE(message.find("a.weight"), std::string::npos) << message;
}

// Found while writing the safetensors_index fuzzer: a shard name too long for the file system made
// std::filesystem::exists throw filesystem_error, which escaped the reader.
TEST_F(SafetensorsCheckpointTest, ShardNameTooLongIsAnErrorNamingTheIndex) {
    write_index({{"a.weight", std::string(300, 'x') + ".safetensors"}});
    std::string message = open_error(dir_.path(), ErrorCode::Io);
    EXPECT_NE(message.find("model.safetensors.index.json"), std::string::npos) << message;
}

TEST_F(SafetensorsCheckpointTest, IndexWithoutWeightMapIsRejected) {
    write_json_file(index_path(), {{"metadata", nlohmann::json::object()}});
    std::string message = open_error(dir_.path(), ErrorCode::BadInput);
    EXPECT_NE(message.find("weight_map"), std::string::npos) << message;
}

TEST_F(SafetensorsCheckpointTest, FolderWithSeveralFilesAndNoIndexIsAmbiguous) {
    std::filesystem::remove(index_path());
    std::string message = open_error(dir_.path(), ErrorCode::BadInput);
    EXPECT_NE(message.find("no index"), std::string::npos) << message;
}

TEST_F(SafetensorsCheckpointTest, FolderWithoutWeightsSaysSo) {
    TemporaryDirectory empty;
    std::string message = open_error(empty.path(), ErrorCode::BadInput);
    EXPECT_NE(message.find("no .safetensors"), std::string::npos) << message;
    open_error(empty / "absent", ErrorCode::Io);
}

} // namespace
} // namespace tuneframe::core
