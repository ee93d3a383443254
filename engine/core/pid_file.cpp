#include "engine/core/pid_file.h"

#include "engine/core/atomic_file.h"

#include <string>
#include <unistd.h>

namespace tuneframe::core {

PidFile::PidFile(std::filesystem::path path)
    : path_(std::move(path)) {
    write_file_atomically(path_, std::to_string(::getpid()) + "\n");
}

PidFile::~PidFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
}

} // namespace tuneframe::core
