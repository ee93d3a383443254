#include "tests/support/test_paths.h"

#include "common/remove_tree.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace tuneframe::test {

namespace {

std::filesystem::path golden_set(const char* variable, const char* default_path) {
    const char* configured = std::getenv(variable);
    std::filesystem::path path = configured && *configured ? configured : default_path;
    std::error_code error;
    if (!std::filesystem::exists(path / "MANIFEST.md", error)) {
        return {};
    }
    return std::filesystem::canonical(path);
}

} // namespace

std::filesystem::path golden_dir() {
    return golden_set("TUNEFRAME_GOLDEN_DIR", "../shared/golden");
}

std::filesystem::path golden_wan_dir() {
    return golden_set("TUNEFRAME_GOLDEN_WAN_DIR", "../shared/golden-wan");
}

bool running_in_ci() {
    const char* ci = std::getenv("CI");
    return ci && *ci && std::string(ci) != "0" && std::string(ci) != "false";
}

TemporaryDirectory::TemporaryDirectory() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tuneframe-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        throw std::runtime_error("cannot create a temporary folder");
    }
    path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
    std::error_code ignored;
    remove_tree(path_, ignored);
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream stream(path, std::ios::binary | std::ios::trunc);
    stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!stream) {
        throw std::runtime_error("cannot write " + path.string());
    }
}

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    std::ostringstream buffer;
    buffer << stream.rdbuf();
    return buffer.str();
}

namespace {

// The pipeline in the folder `variable` names (or in its `arch` subfolder).
std::filesystem::path pipeline_from(const char* variable, const std::string& arch = {}) {
    const char* value = std::getenv(variable);
    if (!value || !*value) {
        throw std::runtime_error(std::string(variable) +
                                 " is not set: register the test with "
                                 "tuneframe_requires_tiny_pipeline() (or _wan_pipelines()) and "
                                 "run it through ctest");
    }
    const std::filesystem::path folder =
        arch.empty() ? std::filesystem::path(value) : std::filesystem::path(value) / arch;
    if (!std::filesystem::is_regular_file(folder / "model_index.json")) {
        throw std::runtime_error(folder.string() +
                                 " holds no pipeline: the init fixture did not run or failed");
    }
    return folder;
}

} // namespace

std::filesystem::path tiny_pipeline() {
    return pipeline_from("TUNEFRAME_TINY_PIPELINE");
}

std::filesystem::path tiny_i2v_pipeline() {
    return pipeline_from("TUNEFRAME_TINY_I2V_PIPELINE");
}

std::filesystem::path tiny_wan_pipeline(const std::string& arch) {
    const std::filesystem::path folder = pipeline_from("TUNEFRAME_TINY_MODELS_DIR", arch);
    return folder;
}

} // namespace tuneframe::test
