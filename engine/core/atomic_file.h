#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace tuneframe::core {

// Writes a file so that readers see either the old content or the new, never a mix: data goes
// to a temporary file beside the target, is fsynced, then renamed over it (and the folder is
// fsynced). Destroying an uncommitted AtomicFile removes the temporary file.
class AtomicFile {
public:
    explicit AtomicFile(std::filesystem::path target);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, std::size_t size);
    void write(std::string_view text) { write(text.data(), text.size()); }
    void commit();

    const std::filesystem::path& target() const { return target_; }

private:
    std::filesystem::path target_;
    std::filesystem::path temporary_;
    int fd_ = -1;
};

// Convenience for small files.
void write_file_atomically(const std::filesystem::path& target, std::string_view content);

// fsyncs a folder so a rename inside it survives a power loss.
void sync_directory(const std::filesystem::path& folder);

} // namespace tuneframe::core
