#include "engine/dist/stage_tensors.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <cstring>

namespace tuneframe::dist {
namespace {

// Tags of their own, so these never meet a training step's activations.
constexpr int kHeaderLengthTag = 16;
constexpr int kHeaderTag = 17;
constexpr int kTensorTag = 18;

std::string header_of(const core::NamedTensors& tensors) {
    nlohmann::json header = nlohmann::json::array();
    for (const auto& [name, tensor] : tensors) {
        header.push_back({{"name", name},
                          {"dtype", static_cast<int>(tensor.scalar_type())},
                          {"shape", tensor.sizes().vec()}});
    }
    return header.dump();
}

void send_to_first(Communicator& stages, const core::NamedTensors& own) {
    const std::string header = header_of(own);
    const c10::Device device = stages.device();
    const at::Tensor length =
        at::tensor({static_cast<std::int64_t>(header.size())}, at::kLong).to(device);
    stages.transfer({{length, 0, kHeaderLengthTag, true}});
    at::Tensor bytes = at::empty({static_cast<std::int64_t>(header.size())}, at::kByte);
    std::memcpy(bytes.data_ptr(), header.data(), header.size());
    stages.transfer({{bytes.to(device), 0, kHeaderTag, true}});
    for (const auto& [name, tensor] : own) {
        stages.transfer({{tensor.detach().to(device).contiguous(), 0, kTensorTag, true}});
    }
}

void receive_from(Communicator& stages, int stage, core::NamedTensors& into) {
    const c10::Device device = stages.device();
    at::Tensor length = at::empty({1}, at::TensorOptions(at::kLong).device(device));
    stages.transfer({{length, stage, kHeaderLengthTag, false}});
    at::Tensor bytes =
        at::empty({length.cpu().item<std::int64_t>()}, at::TensorOptions(at::kByte).device(device));
    stages.transfer({{bytes, stage, kHeaderTag, false}});
    const at::Tensor host = bytes.cpu();
    const auto header = nlohmann::json::parse(std::string(static_cast<const char*>(host.data_ptr()),
                                                          static_cast<std::size_t>(host.numel())));
    for (const auto& entry : header) {
        at::Tensor tensor =
            at::empty(entry["shape"].get<std::vector<std::int64_t>>(),
                      at::TensorOptions(static_cast<at::ScalarType>(entry["dtype"].get<int>()))
                          .device(device));
        stages.transfer({{tensor, stage, kTensorTag, false}});
        into.emplace_back(entry["name"].get<std::string>(), tensor.cpu());
    }
}

} // namespace

core::NamedTensors gather_to_first_stage(Communicator& stages, const core::NamedTensors& own) {
    if (stages.rank() != 0) {
        send_to_first(stages, own);
        return own;
    }
    core::NamedTensors whole = own;
    for (int stage = 1; stage < stages.size(); ++stage) {
        receive_from(stages, stage, whole);
    }
    return whole;
}

} // namespace tuneframe::dist
