#pragma once

#include "engine/core/tensor_io.h"
#include "engine/dist/communicator.h"

namespace tuneframe::dist {

// Every pipeline stage's tensors on the first stage, in stage order (point to point over
// `stages`, every member calls it): a checkpoint and a validation need the whole model, and
// each stage holds different names, whose shapes only their stage knows. Each later stage sends
// its names, dtypes and shapes, then the tensors; the first stage receives them into host
// memory (a full fine-tune's whole model and optimizer state would not fit beside its stage on
// one GPU) and returns its own followed by them. The other stages get their own back.
core::NamedTensors gather_to_first_stage(Communicator& stages, const core::NamedTensors& own);

} // namespace tuneframe::dist
