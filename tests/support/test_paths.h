#pragma once

#include <filesystem>
#include <string>

namespace tuneframe::test {

// ../shared/golden, or TUNEFRAME_GOLDEN_DIR. Empty when absent; golden tests then skip, except
// under CI, where a missing golden set is a failure (tests call require_golden_dir()).
std::filesystem::path golden_dir();
// ../shared/golden-wan (the Wan 2.1 / 2.2 set), or TUNEFRAME_GOLDEN_WAN_DIR; as golden_dir().
std::filesystem::path golden_wan_dir();
bool running_in_ci();

// The tiny pipelines the `init_cogvideox-tiny*` fixtures write once per test run
// (TUNEFRAME_TINY_PIPELINE / TUNEFRAME_TINY_I2V_PIPELINE, set by tuneframe_requires_tiny_pipeline
// in tests/CMakeLists.txt). Throws std::runtime_error when the test was not registered for them.
std::filesystem::path tiny_pipeline();
std::filesystem::path tiny_i2v_pipeline();
// The tiny Wan pipeline `arch` ("wan2.1-tiny", "wan2.1-tiny-i2v", "wan2.2-tiny-ti2v",
// "wan2.2-tiny-a14b") the fixtures write (tuneframe_requires_tiny_wan_pipelines).
std::filesystem::path tiny_wan_pipeline(const std::string& arch);

// A fresh folder under the system temp folder, removed with everything in it when destroyed.
class TemporaryDirectory {
public:
    TemporaryDirectory();
    ~TemporaryDirectory();
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

void write_bytes(const std::filesystem::path& path, const std::string& bytes);
std::string read_bytes(const std::filesystem::path& path);

} // namespace tuneframe::test
