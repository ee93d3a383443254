#include "common/remove_tree.h"

#include <cerrno>
#include <cstdio>
#include <ftw.h>
#include <sys/stat.h>

namespace tuneframe {
namespace {

// Children before their folder (FTW_DEPTH), links as links (FTW_PHYS). A non-zero return
// stops the walk and becomes nftw's result, which carries the errno out without a global.
int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
    return std::remove(path) == 0 ? 0 : errno;
}

} // namespace

void remove_tree(const std::filesystem::path& path, std::error_code& error) {
    error.clear();
    struct stat status {};
    if (::lstat(path.c_str(), &status) != 0) {
        if (errno != ENOENT) {
            error.assign(errno, std::generic_category());
        }
        return;
    }
    const int result = ::nftw(path.c_str(), remove_entry, 32, FTW_DEPTH | FTW_PHYS);
    if (result == -1) {
        error.assign(errno, std::generic_category());
    } else if (result != 0) {
        error.assign(result, std::generic_category());
    }
}

void remove_tree(const std::filesystem::path& path) {
    std::error_code error;
    remove_tree(path, error);
    if (error) {
        throw std::filesystem::filesystem_error("cannot remove", path, error);
    }
}

} // namespace tuneframe
