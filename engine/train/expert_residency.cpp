#include "engine/train/expert_residency.h"

#include "engine/core/device/runtime_info.h"

namespace tuneframe::train {

ExpertResidency::ExpertResidency(std::map<int, models::DiffusionTransformer> experts,
                                 c10::Device device, models::Parking parking, Reload reload)
    : experts_(std::move(experts))
    , device_(device)
    , parking_(parking)
    , reload_(std::move(reload)) {}

models::Parking ExpertResidency::parking_of(const std::string& inactive_expert) {
    return inactive_expert == "disk" ? models::Parking::Disk : models::Parking::Host;
}

void ExpertResidency::activate(int expert) {
    if (active_ == expert) {
        return;
    }
    for (auto& [other, transformer] : experts_) {
        if (other != expert) {
            transformer->park(parking_, device_);
        }
    }
    // What the parked expert left on the device goes back to the allocator before the other
    // expert's weights arrive.
    core::release_cached_device_memory();
    experts_.at(expert)->unpark(device_, [&] { return reload_(expert); });
    active_ = expert;
}

void ExpertResidency::wake_for_sampling() {
    for (auto& item : experts_) {
        const int expert = item.first;
        if (item.second->parking() == models::Parking::Disk) {
            item.second->park(models::Parking::Host, device_,
                              [this, expert] { return reload_(expert); });
        }
    }
}

void ExpertResidency::resume_training() {
    if (!active_) {
        return;
    }
    const int expert = *active_;
    active_.reset();
    activate(expert);
}

} // namespace tuneframe::train
