#include "engine/dist/cuda_visible_devices.h"

#include "engine/core/error.h"

#include <cstdlib>
#include <sstream>

namespace tuneframe::dist {
namespace {

std::vector<std::string> split_entries(const std::string& text) {
    std::vector<std::string> entries;
    std::stringstream stream(text);
    std::string entry;
    while (std::getline(stream, entry, ',')) {
        const auto first = entry.find_first_not_of(" \t");
        const auto last = entry.find_last_not_of(" \t");
        entries.push_back(first == std::string::npos ? std::string()
                                                     : entry.substr(first, last - first + 1));
    }
    return entries;
}

// A whole non-negative number, as CUDA reads an index; nullopt for anything else.
std::optional<std::size_t> index_of(const std::string& entry) {
    if (entry.empty() || entry.find_first_not_of("0123456789") != std::string::npos ||
        entry.size() > 6) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(std::stoul(entry));
}

} // namespace

void use_pci_bus_device_order() {
    // Overwrites a FASTEST_FIRST from the environment on purpose: the studio's GPU list and every
    // index the engine is given are NVML's.
    ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
}

std::string worker_visible_devices(const std::vector<std::string>& gpus,
                                   const std::optional<std::string>& inherited) {
    const std::vector<std::string> visible =
        inherited ? split_entries(*inherited) : std::vector<std::string>();
    std::string result;
    for (const std::string& gpu : gpus) {
        std::string device = gpu;
        const std::optional<std::size_t> index = index_of(gpu);
        if (inherited && index) {
            if (*index >= visible.size() || visible[*index].empty()) {
                throw core::Error(core::ErrorCode::BadInput,
                                  "--gpus names GPU " + gpu + ", but CUDA_VISIBLE_DEVICES=\"" +
                                      *inherited + "\" makes only " +
                                      std::to_string(visible.size()) + " visible.",
                                  "Count --gpus from 0 within CUDA_VISIBLE_DEVICES, or unset it.");
            }
            device = visible[*index];
        }
        result += (result.empty() ? "" : ",") + device;
    }
    return result;
}

} // namespace tuneframe::dist
