// Reads every safetensors file of ../shared/golden and checks it against MANIFEST.md's tables
// (names, dtypes, shapes), as the architecture's decisions require: the manifest is the
// contract, the files are what the reader must understand.
#include "engine/core/safetensors/safetensors_checkpoint.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>

namespace tuneframe::core {
namespace {

struct ExpectedTensor {
    std::string dtype;
    std::vector<std::int64_t> shape;
};

using ManifestTables = std::map<std::string, std::map<std::string, ExpectedTensor>>;

std::string trim(const std::string& text) {
    auto first = text.find_first_not_of(' ');
    auto last = text.find_last_not_of(' ');
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

std::vector<std::int64_t> parse_shape(const std::string& text) {
    std::vector<std::int64_t> shape;
    std::regex number(R"(\d+)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
         it != std::sregex_iterator(); ++it) {
        shape.push_back(std::stoll(it->str()));
    }
    return shape;
}

// "`case/file.safetensors`:" opens a table; "| name | DTYPE | [shape] |" rows fill it.
ManifestTables read_manifest(const std::filesystem::path& manifest) {
    ManifestTables tables;
    std::ifstream stream(manifest);
    std::regex heading(R"(^`([^`]+\.safetensors)`:\s*$)");
    std::string current;
    for (std::string line; std::getline(stream, line);) {
        std::smatch match;
        if (std::regex_match(line, match, heading)) {
            current = match[1];
            tables[current];
            continue;
        }
        if (current.empty() || line.rfind("| ", 0) != 0) {
            if (!line.empty() && line[0] != '|') {
                current.clear();
            }
            continue;
        }
        std::vector<std::string> cells;
        std::size_t start = 1;
        for (std::size_t bar; (bar = line.find('|', start)) != std::string::npos; start = bar + 1) {
            cells.push_back(trim(line.substr(start, bar - start)));
        }
        if (cells.size() != 3 || cells[0] == "tensor" || cells[0] == "---") {
            continue;
        }
        tables[current][cells[0]] = {cells[1], parse_shape(cells[2])};
    }
    return tables;
}

class GoldenFiles : public ::testing::Test {
protected:
    void SetUp() override {
        golden_ = test::golden_dir();
        if (golden_.empty()) {
            if (test::running_in_ci()) {
                FAIL() << "the golden sets (../shared/golden) are missing; CI must have them";
            }
            GTEST_SKIP() << "no ../shared/golden here";
        }
    }
    std::filesystem::path golden_;
};

TEST_F(GoldenFiles, EveryManifestTableMatchesItsFile) {
    ManifestTables tables = read_manifest(golden_ / "MANIFEST.md");
    ASSERT_GE(tables.size(), 25u) << "the manifest parser found too few tables";
    std::size_t checked = 0;
    for (const auto& [relative, expected] : tables) {
        SCOPED_TRACE(relative);
        ASSERT_FALSE(expected.empty());
        SafetensorsFile file(golden_ / relative);
        std::set<std::string> names;
        for (const TensorInfo& tensor : file.tensors()) {
            names.insert(tensor.name);
            auto row = expected.find(tensor.name);
            if (row == expected.end()) {
                ADD_FAILURE() << "unexpected tensor " << tensor.name;
                continue;
            }
            EXPECT_EQ(dtype_name(tensor.dtype), row->second.dtype) << tensor.name;
            EXPECT_EQ(tensor.shape, row->second.shape) << tensor.name;
            ++checked;
        }
        for (const auto& [name, row] : expected) {
            EXPECT_TRUE(names.count(name)) << "missing tensor " << name;
        }
    }
    EXPECT_GE(checked, 300u);
}

// Model weights have no manifest table; each must open and hold finite float values.
TEST_F(GoldenFiles, EveryWeightFileIsReadable) {
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(golden_)) {
        if (entry.path().extension() != ".safetensors") {
            continue;
        }
        SCOPED_TRACE(entry.path().string());
        SafetensorsFile file(entry.path());
        EXPECT_FALSE(file.tensors().empty());
        for (const TensorInfo& tensor : file.tensors()) {
            if (tensor.dtype != DType::F32) {
                continue;
            }
            for (std::int64_t i = 0; i < tensor.numel(); ++i) {
                float value;
                std::memcpy(&value, file.data(tensor) + 4 * i, 4);
                ASSERT_TRUE(std::isfinite(value)) << tensor.name << "[" << i << "]";
            }
        }
        ++files;
    }
    EXPECT_GE(files, 40u);
}

TEST_F(GoldenFiles, LoraAdapterKeysMatchTheReferenceList) {
    SafetensorsFile file(golden_ / "lora_2b/pytorch_lora_weights.safetensors");
    std::ifstream stream(golden_ / "lora_2b/lora_keys.txt");
    std::vector<std::string> expected;
    for (std::string line; std::getline(stream, line);) {
        if (!trim(line).empty()) {
            expected.push_back(trim(line));
        }
    }
    std::vector<std::string> actual;
    for (const TensorInfo& tensor : file.tensors()) {
        actual.push_back(tensor.name);
    }
    std::sort(expected.begin(), expected.end());
    std::sort(actual.begin(), actual.end());
    EXPECT_EQ(actual, expected);
}

TEST_F(GoldenFiles, DiffusersComponentFoldersOpenAsCheckpoints) {
    for (const char* folder : {"transformer_2b/transformer", "t5/text_encoder",
                               "pipeline_t2v/pipeline/vae", "pipeline_i2v/pipeline/transformer"}) {
        SCOPED_TRACE(folder);
        SafetensorsCheckpoint checkpoint(golden_ / folder);
        EXPECT_FALSE(checkpoint.sharded());
        EXPECT_GT(checkpoint.tensor_count(), 10u);
    }
    // save_pretrained writes T5's tied embedding once, as shared.weight.
    SafetensorsCheckpoint t5(golden_ / "t5/text_encoder");
    EXPECT_NE(t5.find("shared.weight"), nullptr);
    EXPECT_EQ(t5.find("encoder.embed_tokens.weight"), nullptr);
}

} // namespace
} // namespace tuneframe::core
