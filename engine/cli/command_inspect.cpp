#include "engine/cli/commands.h"

#include "engine/core/checkpoint_inventory.h"

#include <cstdio>
#include <iostream>

namespace tuneframe::cli {
namespace {

void print_component(const core::ComponentInventory& component, bool with_tensors) {
    std::cout << component.name;
    if (!component.class_name.empty()) {
        std::cout << " (" << component.class_name << ")";
    }
    std::cout << "\n";
    if (component.weights.empty()) {
        std::cout << "  no weights\n\n";
        return;
    }
    std::cout << "  weights:    " << component.weights.string();
    if (component.shard_count > 1) {
        std::cout << " (" << component.shard_count << " shards)";
    }
    std::cout << "\n  tensors:    " << component.tensors.size()
              << "\n  parameters: " << core::format_count(component.parameters) << " ("
              << component.parameters << ")\n  size:       " << core::format_bytes(component.bytes)
              << "\n  dtypes:    ";
    for (const auto& [dtype, count] : component.parameters_by_dtype) {
        std::cout << " " << core::dtype_name(dtype) << " " << core::format_count(count);
    }
    std::cout << "\n";
    for (const auto& [key, value] : component.metadata) {
        std::cout << "  metadata:   " << key << " = " << value << "\n";
    }
    if (with_tensors) {
        std::size_t width = 4;
        for (const auto& tensor : component.tensors) {
            width = std::max(width, tensor.name.size());
        }
        for (const auto& tensor : component.tensors) {
            std::printf("    %-*s  %-4s  %s\n", static_cast<int>(width), tensor.name.c_str(),
                        std::string(core::dtype_name(tensor.dtype)).c_str(),
                        core::shape_string(tensor.shape).c_str());
        }
        std::fflush(stdout);
    }
    std::cout << "\n";
}

} // namespace

int run_inspect(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const bool json = arguments.flag("--json");
    const bool summary = arguments.flag("--summary");
    const std::string path = arguments.positional("PATH (a .safetensors file or a model folder)");
    arguments.finish();

    const auto components = core::inventory(path);
    std::int64_t total = 0;
    for (const auto& component : components) {
        total += component.parameters;
    }
    if (json) {
        nlohmann::json result = {{"path", path}, {"parameters", total}};
        for (const auto& component : components) {
            result["components"].push_back(core::to_json(component, !summary));
        }
        std::cout << result.dump(2) << std::endl;
        return 0;
    }
    for (const auto& component : components) {
        print_component(component, !summary);
    }
    if (components.size() > 1) {
        std::cout << "total parameters: " << core::format_count(total) << " (" << total << ")\n";
    }
    std::cout << std::flush;
    return 0;
}

} // namespace tuneframe::cli
