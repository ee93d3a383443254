#pragma once

#include <string>

namespace tuneframe::common {

// An exclusive flock(2) on a lock file (created if missing), held until destruction. The
// kernel drops it when the holder dies, so a killed studio or runner never leaves the lock
// behind, which a lock made of a file's existence would.
class FileLock {
public:
    enum class Wait { Block, DontBlock };
    FileLock(const std::string& path, Wait wait);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

    // False when DontBlock found it held elsewhere, or the file could not be opened (error()
    // says which).
    bool held() const { return held_; }
    const std::string& error() const { return error_; }

private:
    int fd_ = -1;
    bool held_ = false;
    std::string error_;
};

} // namespace tuneframe::common
