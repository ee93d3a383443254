#pragma once

#include <filesystem>
#include <system_error>

namespace tuneframe {

// Removes `path` and, when it is a folder, everything under it, without following symbolic
// links; a path that does not exist is not an error (std::filesystem::remove_all's contract).
// Not remove_all itself: PyTorch's wheels carry and export their own copy of std::filesystem,
// a program linked to them may bind to it, and that copy's remove_all jumps to address 0
// (PyTorch 2.11, seen on the GPU host). This goes through the C library alone.
void remove_tree(const std::filesystem::path& path, std::error_code& error);
// As above; throws std::filesystem::filesystem_error naming the path.
void remove_tree(const std::filesystem::path& path);

} // namespace tuneframe
