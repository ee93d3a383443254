#pragma once

// A ResidencyObserver that keeps every event, for tests that check how many swapped blocks were
// on the device at once, in which order blocks ran, and which expert trained while the other
// was parked.
#include "engine/models/residency_observer.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

namespace tuneframe::test {

class ResidencyRecorder : public models::ResidencyObserver {
public:
    void record(const models::ResidencyEvent& event) override {
        std::lock_guard<std::mutex> lock(mutex_);
        events_.push_back(event);
    }

    std::vector<models::ResidencyEvent> events() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return events_;
    }

    void clear() {
        std::lock_guard<std::mutex> lock(mutex_);
        events_.clear();
    }

    // The most swapped blocks of `model` whose device copies existed at the same time (with
    // ActivationFetched and ActivationDropped: the most offloaded block inputs).
    int most_resident(
        const std::string& model = "",
        models::ResidencyEventKind arrives = models::ResidencyEventKind::BlockFetched,
        models::ResidencyEventKind leaves = models::ResidencyEventKind::BlockDropped) const {
        int live = 0;
        int most = 0;
        for (const models::ResidencyEvent& event : events()) {
            if (!model.empty() && event.model != model) {
                continue;
            }
            if (event.kind == arrives) {
                most = std::max(most, ++live);
            } else if (event.kind == leaves) {
                --live;
            }
        }
        return most;
    }

    // The blocks that ran, in order, in forward or in backward's recomputation.
    std::vector<std::int64_t> used(models::SwapPass pass) const {
        std::vector<std::int64_t> blocks;
        for (const models::ResidencyEvent& event : events()) {
            if (event.kind == models::ResidencyEventKind::BlockUsed && event.pass == pass) {
                blocks.push_back(event.block);
            }
        }
        return blocks;
    }

    std::size_t count(models::ResidencyEventKind kind) const {
        const auto all = events();
        return static_cast<std::size_t>(std::count_if(
            all.begin(), all.end(), [&](const auto& event) { return event.kind == kind; }));
    }

private:
    mutable std::mutex mutex_;
    std::vector<models::ResidencyEvent> events_;
};

} // namespace tuneframe::test
