#include "test_clips.h"

#include "media/log_level.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <unistd.h>

namespace tuneframe::media::test {

namespace {

namespace fs = std::filesystem;

constexpr int kColumns = 3;
constexpr int kRows = 2;

class TestFolder {
public:
    TestFolder() {
        const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        path_ = fs::temp_directory_path() /
                ("tuneframe-media-" + std::to_string(::getpid()) + "-" + std::to_string(stamp));
        fs::create_directories(path_);
    }
    ~TestFolder() {
        if (std::getenv("TUNEFRAME_KEEP_TEST_CLIPS") != nullptr) {
            std::fprintf(stderr, "test clips kept in %s\n", path_.c_str());
            return;
        }
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

TestFolder& test_folder() {
    static TestFolder folder;
    return folder;
}

class QuietFFmpeg : public ::testing::Environment {
public:
    void SetUp() override { set_log_level(LogLevel::Quiet); }
};

[[maybe_unused]] ::testing::Environment* const quiet_environment =
    ::testing::AddGlobalTestEnvironment(new QuietFFmpeg);

// Cell c covers columns [c*w/3, (c+1)*w/3); sampling its middle half keeps clear of the
// ringing lossy codecs leave at cell edges.
double cell_mean(const Frame& frame, double x0, double x1, double y0, double y1) {
    const double margin_x = (x1 - x0) / 4;
    const double margin_y = (y1 - y0) / 4;
    double sum = 0;
    int count = 0;
    for (int y = static_cast<int>(y0 + margin_y); y < static_cast<int>(y1 - margin_y); ++y) {
        for (int x = static_cast<int>(x0 + margin_x); x < static_cast<int>(x1 - margin_x); ++x) {
            if (x < 0 || y < 0 || x >= frame.width || y >= frame.height) {
                continue;
            }
            const size_t at = (static_cast<size_t>(y) * frame.width + x) * 3;
            sum += (frame.rgb[at] + frame.rgb[at + 1] + frame.rgb[at + 2]) / 3.0;
            ++count;
        }
    }
    return count == 0 ? -1 : sum / count;
}

} // namespace

void PrintTo(const ClipSpec& spec, std::ostream* out) {
    *out << spec.name;
}

std::vector<ClipSpec> format_specs() {
    auto spec = [](std::string name, std::string codec, int b_frames = -1) {
        ClipSpec clip;
        clip.name = std::move(name);
        clip.options.codec = std::move(codec);
        clip.options.gop_size = kClipGop;
        clip.options.max_b_frames = b_frames;
        return clip;
    };
    auto odd = [](ClipSpec clip, std::string pixel_format) {
        clip.width = 33;
        clip.height = 17;
        clip.options.pixel_format = std::move(pixel_format);
        return clip;
    };
    return {
        spec("h264.mp4", "", 3),
        spec("h264.mov", "", 3),
        spec("h264.mkv", "", 3),
        spec("mpeg4.mkv", "mpeg4", 2),
        spec("vp9.webm", ""),
        spec("anim.gif", ""),
        spec("mpeg2.mpg", "mpeg2video", 2),
        odd(spec("odd.gif", ""), ""),
        odd(spec("odd_vp9.webm", ""), "yuv444p"),
        odd(spec("odd_ffv1.mkv", "ffv1"), "yuv444p"),
    };
}

std::string spec_test_name(const ClipSpec& spec) {
    std::string name = spec.name;
    for (char& c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
            c = '_';
        }
    }
    return name;
}

fs::path scratch_folder(const std::string& name) {
    static std::atomic<int> counter{0};
    const fs::path path = test_folder().path() / (name + "-" + std::to_string(counter++));
    fs::create_directories(path);
    return path;
}

std::string clip_path(const ClipSpec& spec) {
    static std::mutex mutex;
    static std::map<std::string, std::string> made;
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = made.find(spec.name);
    if (found != made.end()) {
        return found->second;
    }
    const std::string path = (test_folder().path() / spec.name).string();
    VideoWriter writer(path, spec.width, spec.height, spec.options);
    for (int i = 0; i < spec.frames; ++i) {
        writer.write(pattern_frame(i, spec.width, spec.height, spec.noise));
    }
    writer.finish();
    made.emplace(spec.name, path);
    return path;
}

Frame pattern_frame(int index, int width, int height, int noise) {
    uint32_t state = 2654435761U * static_cast<uint32_t>(index + 1);
    Frame frame;
    frame.width = width;
    frame.height = height;
    frame.index = index;
    frame.rgb.resize(static_cast<size_t>(width) * height * 3);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const int bit = (y * kRows / height) * kColumns + x * kColumns / width;
            int value = ((index >> bit) & 1) != 0 ? 255 - noise : noise;
            if (noise > 0) {
                state = state * 1664525U + 1013904223U;
                value += static_cast<int>(state >> 24) % (2 * noise + 1) - noise;
            }
            const size_t at = (static_cast<size_t>(y) * width + x) * 3;
            frame.rgb[at] = frame.rgb[at + 1] = frame.rgb[at + 2] = static_cast<uint8_t>(value);
        }
    }
    return frame;
}

int read_pattern_cropped(const Frame& frame, int scaled_width, int scaled_height, int crop_x,
                         int crop_y) {
    int index = 0;
    for (int bit = 0; bit < kColumns * kRows; ++bit) {
        const double cell_width = static_cast<double>(scaled_width) / kColumns;
        const double cell_height = static_cast<double>(scaled_height) / kRows;
        const double x0 = (bit % kColumns) * cell_width - crop_x;
        const double y0 = (bit / kColumns) * cell_height - crop_y;
        const double mean = cell_mean(frame, x0, x0 + cell_width, y0, y0 + cell_height);
        if (mean < 0) {
            return -1;
        }
        if (mean > 170) {
            index |= 1 << bit;
        } else if (mean > 85) {
            return -1;
        }
    }
    return index;
}

int read_pattern(const Frame& frame) {
    return read_pattern_cropped(frame, frame.width, frame.height, 0, 0);
}

Colour mean_colour(const Frame& frame, int x, int y, int radius) {
    Colour colour;
    int count = 0;
    for (int yy = y - radius; yy <= y + radius; ++yy) {
        for (int xx = x - radius; xx <= x + radius; ++xx) {
            if (xx < 0 || yy < 0 || xx >= frame.width || yy >= frame.height) {
                continue;
            }
            const size_t at = (static_cast<size_t>(yy) * frame.width + xx) * 3;
            colour.r += frame.rgb[at];
            colour.g += frame.rgb[at + 1];
            colour.b += frame.rgb[at + 2];
            ++count;
        }
    }
    if (count > 0) {
        colour.r /= count;
        colour.g /= count;
        colour.b /= count;
    }
    return colour;
}

Frame turn_clockwise(const Frame& frame) {
    Frame out = frame;
    out.width = frame.height;
    out.height = frame.width;
    for (int y = 0; y < out.height; ++y) {
        for (int x = 0; x < out.width; ++x) {
            // The source's left column becomes the top row.
            const int source_x = y;
            const int source_y = frame.height - 1 - x;
            for (int c = 0; c < 3; ++c) {
                out.rgb[(static_cast<size_t>(y) * out.width + x) * 3 + c] =
                    frame.rgb[(static_cast<size_t>(source_y) * frame.width + source_x) * 3 + c];
            }
        }
    }
    return out;
}

std::string read_file(const fs::path& path) {
    std::ifstream stream(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << stream.rdbuf();
    return bytes.str();
}

void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream stream(path, std::ios::binary | std::ios::trunc);
    stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

} // namespace tuneframe::media::test
