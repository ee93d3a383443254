#pragma once

#include "engine/core/tensor_io.h"
#include "engine/models/diffusion_transformer.h"

#include <c10/core/Device.h>

#include <functional>
#include <map>
#include <optional>

namespace tuneframe::train {

// Two experts trained in one process (Wan 2.2 A14B with flow_matching.expert both): the one
// training the current micro-batch is at home on the device, the other parked as
// memory.inactive_expert says (DiffusionTransformerImpl::park: its frozen weights on the host, or
// dropped and read again from the model folder), its adapters and optimizer state where they
// are. The device never holds both experts' weights: the other parks before one comes home.
// Parking moves weights, never changes them, so a run's numbers are those of any placement.
class ExpertResidency {
public:
    // The base's tensors of `expert` as the run loads them, on the host (Parking::Disk).
    using Reload = std::function<core::NamedTensors(int expert)>;

    ExpertResidency(std::map<int, models::DiffusionTransformer> experts, c10::Device device,
                    models::Parking parking, Reload reload);

    // "host" -> Parking::Host, "disk" -> Parking::Disk (memory.inactive_expert).
    static models::Parking parking_of(const std::string& inactive_expert);

    // `expert` trains the next micro-batch: the others park first, then it comes home.
    void activate(int expert);
    // Before a validation pass samples with every expert in turn: dropped weights are read back
    // onto the host (the expert is then parked there), from where the sampler takes each expert
    // to the device for its steps.
    void wake_for_sampling();
    // After it: the experts as activate() had them.
    void resume_training();

private:
    std::map<int, models::DiffusionTransformer> experts_;
    c10::Device device_;
    models::Parking parking_;
    Reload reload_;
    std::optional<int> active_;
};

} // namespace tuneframe::train
