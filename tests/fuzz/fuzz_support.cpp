#include "tests/fuzz/fuzz_support.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace tuneframe::fuzz {
namespace {

class ScratchFolder {
public:
    ScratchFolder() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tuneframe-fuzz-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw std::runtime_error("cannot create a scratch folder from " + pattern);
        }
        path_ = pattern;
    }
    ~ScratchFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

} // namespace

std::vector<std::string_view> split_parts(std::string_view input, std::size_t max_parts) {
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < max_parts) {
        const std::size_t cut = input.find(kPartSeparator);
        if (cut == std::string_view::npos) {
            break;
        }
        parts.push_back(input.substr(0, cut));
        input.remove_prefix(cut + kPartSeparator.size());
    }
    parts.push_back(input);
    return parts;
}

const std::filesystem::path& scratch_folder() {
    static const ScratchFolder folder;
    return folder.path();
}

void clear_scratch_folder() {
    for (const auto& entry : std::filesystem::directory_iterator(scratch_folder())) {
        std::filesystem::remove_all(entry.path());
    }
}

std::filesystem::path write_scratch_file(const std::string& name, std::string_view bytes) {
    const std::filesystem::path path = scratch_folder() / name;
    // A new file rather than a truncated one: ext4 flushes a file truncated and rewritten when
    // it is closed (auto_da_alloc), which cost nine tenths of the executions.
    std::filesystem::remove(path);
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
        // A harness that silently parsed a stale file would fuzz nothing.
        std::abort();
    }
    return path;
}

} // namespace tuneframe::fuzz
