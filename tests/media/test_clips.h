// Test clips made at test time with VideoWriter, in one temporary folder removed at exit.
// Each frame shows its own index as a 3x2 grid of black/white cells (bit b at column b % 3,
// row b / 3), large enough to survive lossy coding, GIF's 8-bit palette and downscaling.
#pragma once

#include "media/frame.h"
#include "media/video_writer.h"

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace tuneframe::media::test {

constexpr int kClipWidth = 64;
constexpr int kClipHeight = 48;
constexpr int kClipFrames = 24;
constexpr int kClipGop = 8;

struct ClipSpec {
    std::string name; // file name, extension included; also the cache key
    int width = kClipWidth;
    int height = kClipHeight;
    int frames = kClipFrames;
    // Pixel noise of this amplitude on top of the cells, so frames cost many bytes and a file
    // cut in half still holds several whole frames.
    int noise = 0;
    WriterOptions options;
};

// gtest prints parameters with this instead of dumping their bytes.
void PrintTo(const ClipSpec& spec, std::ostream* out);

// One clip per container/codec pair the tests cover, including odd sizes and B-frames.
std::vector<ClipSpec> format_specs();
// gtest parameter name for a spec ("h264.mp4" -> "h264_mp4").
std::string spec_test_name(const ClipSpec& spec);

// The clip for spec, written on first use.
std::string clip_path(const ClipSpec& spec);
// A unique empty folder inside the test folder.
std::filesystem::path scratch_folder(const std::string& name);

// The frame showing index, width x height, upright.
Frame pattern_frame(int index, int width, int height, int noise = 0);
// The index a pattern frame shows; -1 when a cell is neither clearly black nor white.
int read_pattern(const Frame& frame);
// As read_pattern, for a frame cropped from a source of source_width x source_height scaled
// to scaled_width x scaled_height, whose top-left crop corner is (crop_x, crop_y).
int read_pattern_cropped(const Frame& frame, int scaled_width, int scaled_height, int crop_x,
                         int crop_y);

// Mean RGB of a square of side 2*radius+1 around (x, y).
struct Colour {
    double r = 0;
    double g = 0;
    double b = 0;
};
Colour mean_colour(const Frame& frame, int x, int y, int radius);

// Turns an RGB frame clockwise by a quarter turn (test-side, independent of media/).
Frame turn_clockwise(const Frame& frame);

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& bytes);

} // namespace tuneframe::media::test
