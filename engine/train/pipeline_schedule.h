#pragma once

#include "engine/dist/communicator.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace tuneframe::train {

// What a stage's forward of one micro-batch gives: the tokens for the next stage, or, on the
// last stage, the loss to start backward from (already scaled for the step).
struct StageResult {
    models::cogvideox::StageTokens tokens;
    at::Tensor loss;
};

// What one pipeline stage does with a micro-batch, for PipelineSchedule.
struct PipelineStageWork {
    // Micro-batch `micro`'s forward on this stage from `received` (null on the first stage).
    std::function<StageResult(std::int64_t micro, const models::cogvideox::StageTokens* received)>
        forward;
    // The shapes of what this stage receives for micro-batch `micro` (stage_token_shapes).
    std::function<std::vector<std::vector<std::int64_t>>(std::int64_t micro)> received_shapes;
    // Around each micro-batch's backward; `last`: the step's last one.
    std::function<void(bool last)> begin_backward;
    std::function<void()> end_backward;
};

// One optimizer step's micro-batches through this rank's stage on the 1F1B schedule
// (PipeDream-Flush, as Megatron-LM runs it without interleaving): stage s of P runs P - s - 1
// forwards ahead, then alternates one forward and one backward, then drains its backwards. At
// most P - s micro-batches are in flight on stage s, so activation memory is bounded by the
// stages, not the micro-batches. Backwards run in micro-batch order, so gradients accumulate
// in the order one rank would accumulate them.
//
// Tokens go forward and their gradients back by point to point over `stages` (group rank =
// stage). Sends do not wait for their receiver (they are waited for at the end of the step), so
// the only waits are receives, whose matching sends the schedule always posts first.
class PipelineSchedule {
public:
    PipelineSchedule(dist::Communicator& stages, c10::ScalarType dtype, c10::Device device);

    void run(std::int64_t micro_batches, const PipelineStageWork& work);

private:
    struct InFlight {
        models::cogvideox::StageTokens received; // leaves whose gradients go back
        StageResult result;
    };

    bool first() const { return stages_.rank() == 0; }
    bool last() const { return stages_.rank() + 1 == stages_.size(); }
    void forward(std::int64_t micro, const PipelineStageWork& work);
    void backward(bool last_micro_batch, const PipelineStageWork& work);
    models::cogvideox::StageTokens receive(int peer, int first_tag,
                                           const std::vector<std::vector<std::int64_t>>& shapes);
    void send(const models::cogvideox::StageTokens& tokens, int peer, int first_tag);

    dist::Communicator& stages_;
    c10::ScalarType dtype_;
    c10::Device device_;
    std::vector<InFlight> in_flight_; // oldest first
    std::vector<std::unique_ptr<dist::PendingCollective>> sends_;
};

} // namespace tuneframe::train
