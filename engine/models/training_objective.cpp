#include "engine/models/training_objective.h"

namespace tuneframe::models {

TrainingLoss TrainingObjective::forward(DiffusionTransformerImpl& transformer,
                                        const TrainingBatch& batch) const {
    at::Tensor noisy_input;
    const TransformerInputs in = inputs(batch, noisy_input);
    return loss(batch, noisy_input, transformer.forward(in));
}

} // namespace tuneframe::models
