#pragma once

#include <filesystem>
#include <string>

namespace tuneframe::test {

// ../shared/golden, or TUNEFRAME_GOLDEN_DIR. Empty when absent; golden tests then skip, except
// under CI, where a missing golden set is a failure (tests call require_golden_dir()).
std::filesystem::path golden_dir();
bool running_in_ci();

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
