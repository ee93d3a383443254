#include "engine/models/bench_model.h"

#include "engine/core/error.h"
#include "engine/models/model_family.h"

namespace tuneframe::models {

std::vector<BenchShape> bench_shapes() {
    std::vector<BenchShape> shapes;
    for (const auto& family : model_families()) {
        for (BenchShape& shape : family->bench_shapes()) {
            shapes.push_back(std::move(shape));
        }
    }
    return shapes;
}

BenchShape find_bench_shape(const std::string& name) {
    std::string known;
    for (BenchShape& shape : bench_shapes()) {
        if (shape.name == name) {
            return shape;
        }
        known += (known.empty() ? "" : ", ") + shape.name;
    }
    throw core::Error(core::ErrorCode::Usage, "Unknown bench shape '" + name + "'.",
                      "Use one of " + known +
                          ", or give --arch NAME (an init-model architecture) with "
                          "--frames/--height/--width.");
}

std::unique_ptr<BenchModel> find_bench_model(const std::string& name) {
    std::string known;
    for (const auto& family : model_families()) {
        if (auto model = family->bench_model(name)) {
            return model;
        }
        for (const Architecture& architecture : family->architectures()) {
            known += (known.empty() ? "" : ", ") + architecture.name;
        }
    }
    throw core::Error(core::ErrorCode::Usage, "Unknown architecture '" + name + "'.",
                      "Choose one of: " + known + ".");
}

std::unique_ptr<BenchModel> describe_transformer_at(const std::filesystem::path& path) {
    for (const auto& family : model_families()) {
        if (auto model = family->describe_transformer(path)) {
            return model;
        }
    }
    return nullptr;
}

} // namespace tuneframe::models
