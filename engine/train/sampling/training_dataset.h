#pragma once

#include "engine/models/training_objective.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <string>

namespace tuneframe::train {

using models::TrainingExample;

// What the trainer reads: samples by index, each in a bucket; the prepared cache in practice,
// tensors in memory in tests.
class TrainingDataset {
public:
    virtual ~TrainingDataset() = default;
    virtual std::int64_t size() const = 0;
    // Samples of one bucket stack into one batch ("9x32x48").
    virtual std::string bucket(std::int64_t index) const = 0;
    virtual TrainingExample load(std::int64_t index) const = 0;
    // Changes when the samples change, so a resumed run can tell it is fed something else.
    virtual std::string fingerprint() const = 0;
};

} // namespace tuneframe::train
