// The sharded checkpoint: the input is a model.safetensors.index.json, then (after each
// kPartSeparator) the bytes of shard s1.safetensors, s2.safetensors, ...; the checkpoint is
// opened by its folder, as the engine opens a diffusers component.
#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_checkpoint.h"
#include "tests/fuzz/fuzz_support.h"

using namespace tuneframe;

namespace {

constexpr std::size_t kMaxParts = 4; // the index and three shards

void visit_every_tensor(const core::SafetensorsCheckpoint& checkpoint) {
    for (const std::string& name : checkpoint.names()) {
        const core::TensorInfo& tensor = checkpoint.at(name);
        const core::SafetensorsFile& shard = checkpoint.shard_of(name);
        if (shard.find(name) != &tensor || tensor.numel() < 0) {
            __builtin_trap();
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::string_view> parts =
        fuzz::split_parts(fuzz::as_text(data, size), kMaxParts);
    fuzz::clear_scratch_folder();
    fuzz::write_scratch_file("model.safetensors.index.json", parts[0]);
    for (std::size_t i = 1; i < parts.size(); ++i) {
        fuzz::write_scratch_file("s" + std::to_string(i) + ".safetensors", parts[i]);
    }
    try {
        visit_every_tensor(core::SafetensorsCheckpoint(fuzz::scratch_folder()));
    } catch (const core::Error&) {
        // The documented outcome for a malformed index or shard.
    }
    return 0;
}
