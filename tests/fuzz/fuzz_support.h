#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

// What the libFuzzer harnesses share. Several parsers under test take a path rather than bytes
// (a memory map, a regular-file check, a folder of shards), so a harness writes its input into
// a scratch folder of its own and hands the parser that.
namespace tuneframe::fuzz {

// Where one input is cut into several files: an index and its shards, videos.txt and
// prompt.txt. A line of its own, so hand-written seeds stay readable.
inline constexpr std::string_view kPartSeparator = "\n=====\n";

// The input as text, for parsers that take a string_view.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// The input cut at every kPartSeparator into at most max_parts parts (the last keeps the rest).
std::vector<std::string_view> split_parts(std::string_view input, std::size_t max_parts);

// A folder for this process alone (under $TMPDIR), created on first use and removed at exit.
const std::filesystem::path& scratch_folder();
// Removes everything inside scratch_folder(), so no file of one input survives into the next.
void clear_scratch_folder();
// Writes bytes to scratch_folder()/name, replacing what was there; returns the path.
std::filesystem::path write_scratch_file(const std::string& name, std::string_view bytes);

} // namespace tuneframe::fuzz
