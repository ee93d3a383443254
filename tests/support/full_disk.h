#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace tuneframe::test {

// A tmpfs of `bytes` mounted over `folder` (created if missing) for the life of this object, so a
// test fills a real drive, at a size it chooses, with real ENOSPC errors. Mounting takes root
// (CAP_SYS_ADMIN, as CI's containers run the tests); elsewhere mounted() is false, why_not()
// says why and the test skips.
class SmallDisk {
public:
    SmallDisk(std::filesystem::path folder, std::uint64_t bytes);
    ~SmallDisk();
    SmallDisk(const SmallDisk&) = delete;
    SmallDisk& operator=(const SmallDisk&) = delete;

    bool mounted() const { return mounted_; }
    const std::string& why_not() const { return why_not_; }
    const std::filesystem::path& folder() const { return folder_; }
    // Grows or shrinks the drive in place (remount), its files kept.
    bool resize(std::uint64_t bytes);
    // Writes a filler file until the drive is full, leaving `keep` bytes or less free; returns
    // its path (remove it to give the space back).
    std::filesystem::path fill(std::uint64_t keep = 0) const;

private:
    std::filesystem::path folder_;
    bool mounted_ = false;
    std::string why_not_;
};

// Runs `body` in a forked child whose files cannot grow past `bytes` (RLIMIT_FSIZE, with SIGXFSZ
// ignored so that such a write fails with EFBIG), and returns what `body` returned, or a line
// saying how the child ended instead. For the part of a test that must meet a full disk at an
// exact size, as a non-root user too. `body` must not use threads the parent started.
std::string with_file_size_limit(std::uint64_t bytes, const std::function<std::string()>& body);

} // namespace tuneframe::test
