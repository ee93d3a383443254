#include "engine/tensorboard/png_image.h"

#include "engine/core/error.h"

#include <png.h>

namespace tuneframe::tensorboard {
namespace {

// png_image owns libpng's state between the calls of the simplified API.
class PngImage {
public:
    PngImage(int width, int height) {
        image_.version = PNG_IMAGE_VERSION;
        image_.width = static_cast<png_uint_32>(width);
        image_.height = static_cast<png_uint_32>(height);
        image_.format = PNG_FORMAT_RGB;
    }
    ~PngImage() { png_image_free(&image_); }
    PngImage(const PngImage&) = delete;
    PngImage& operator=(const PngImage&) = delete;

    png_image* get() { return &image_; }
    std::string message() const { return image_.message; }

private:
    png_image image_{};
};

core::Error png_error(const std::string& message) {
    return core::Error(core::ErrorCode::Internal, "Cannot encode a PNG picture: " + message);
}

} // namespace

std::string encode_png(const RgbImage& image) {
    const std::size_t expected = static_cast<std::size_t>(image.width) * image.height * 3;
    if (image.width <= 0 || image.height <= 0 || image.rgb.size() != expected) {
        throw png_error("its size is " + std::to_string(image.width) + "x" +
                        std::to_string(image.height) + " but it holds " +
                        std::to_string(image.rgb.size()) + " bytes");
    }
    // The first call only measures; the second writes into a buffer of that size.
    png_alloc_size_t size = 0;
    PngImage measure(image.width, image.height);
    if (!png_image_write_to_memory(measure.get(), nullptr, &size, 0, image.rgb.data(), 0,
                                   nullptr)) {
        throw png_error(measure.message());
    }
    std::string png(size, '\0');
    PngImage encode(image.width, image.height);
    if (!png_image_write_to_memory(encode.get(), png.data(), &size, 0, image.rgb.data(), 0,
                                   nullptr)) {
        throw png_error(encode.message());
    }
    png.resize(size);
    return png;
}

} // namespace tuneframe::tensorboard
