#pragma once

#include <filesystem>

namespace tuneframe::core {

// <run>/pid while the engine runs, so a restarted studio can tell a live run from a dead one.
// Written atomically; removed again when the owner ends.
class PidFile {
public:
    explicit PidFile(std::filesystem::path path);
    ~PidFile();
    PidFile(const PidFile&) = delete;
    PidFile& operator=(const PidFile&) = delete;

private:
    std::filesystem::path path_;
};

} // namespace tuneframe::core
