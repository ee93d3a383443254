// The safetensors reader: any bytes as a .safetensors file. A file it accepts is read through
// every tensor it lists, so an extent it failed to check shows up as an ASan report.
#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "tests/fuzz/fuzz_support.h"

using namespace tuneframe;

namespace {

volatile std::uint8_t g_sink; // keeps the reads below from being optimised away

void read_every_tensor(const core::SafetensorsFile& file) {
    std::uint8_t checksum = 0;
    for (const core::TensorInfo& tensor : file.tensors()) {
        const std::uint8_t* bytes = file.data(tensor);
        for (std::uint64_t i = 0; i < tensor.nbytes(); ++i) {
            checksum ^= bytes[i];
        }
        if (tensor.numel() < 0 || &file.at(tensor.name) != &tensor) {
            __builtin_trap();
        }
    }
    g_sink = checksum;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = fuzz::write_scratch_file("input.safetensors", fuzz::as_text(data, size));
    try {
        read_every_tensor(core::SafetensorsFile(path));
    } catch (const core::Error&) {
        // The documented outcome for a malformed file.
    }
    return 0;
}
