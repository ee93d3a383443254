#pragma once

#include "engine/dist/communicator.h"
#include "engine/models/diffusion_transformer.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace tuneframe::train {

// What a stage's forward of one micro-batch gives: the tokens for the next stage, or, on the
// last stage, the loss to start backward from (already scaled for the step).
struct StageResult {
    models::StageTokens tokens;
    at::Tensor loss;
};

// What one pipeline stage does with a micro-batch, for PipelineSchedule.
struct PipelineStageWork {
    // Micro-batch `micro`'s forward on this stage from `received` (null on the first stage).
    std::function<StageResult(std::int64_t micro, const models::StageTokens* received)> forward;
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
// stage), in Megatron's paired exchanges: in the steady phase a stage sends its output while it
// receives the gradient for its oldest micro-batch, and sends that micro-batch's input gradient
// while it receives the next input, each pair as one Communicator::transfer. So both sides of
// every link post complementary operations in the same order, which NCCL (one stream per pair
// of ranks) needs to make progress.
class PipelineSchedule {
public:
    PipelineSchedule(dist::Communicator& stages, c10::ScalarType dtype, c10::Device device);

    void run(std::int64_t micro_batches, const PipelineStageWork& work);

private:
    struct InFlight {
        models::StageTokens received; // leaves whose gradients go back
        StageResult result;
    };
    using Shapes = std::vector<std::vector<std::int64_t>>;

    bool first() const { return stages_.rank() == 0; }
    bool last() const { return stages_.rank() + 1 == stages_.size(); }
    // This stage's forward of `micro` from `received`; kept in flight until its backward.
    const StageResult& forward(std::int64_t micro, models::StageTokens received,
                               const PipelineStageWork& work);
    // The oldest micro-batch's backward from the next stage's `gradients` (the loss on the last
    // stage); returns the gradients of what it received, for the previous stage.
    std::vector<at::Tensor> backward(const std::vector<at::Tensor>& gradients, bool last_one,
                                     const PipelineStageWork& work);
    // One transfer: `sends` to `send_peer`, and tensors of `receive_shapes` from
    // `receive_peer`, returned. A peer of -1 (no stage there) takes part in nothing.
    std::vector<at::Tensor> exchange(const std::vector<at::Tensor>& sends, int send_peer,
                                     int send_tag, const Shapes& receive_shapes, int receive_peer,
                                     int receive_tag);
    Shapes output_shapes() const; // of the oldest micro-batch in flight

    dist::Communicator& stages_;
    c10::ScalarType dtype_;
    c10::Device device_;
    std::vector<InFlight> in_flight_; // oldest first
};

} // namespace tuneframe::train
