#pragma once

#include <nlohmann/json.hpp>

namespace tuneframe::tensorboard {

// A job as TensorBoard's hyper-parameter table wants it: one flat object whose names are the
// job's field paths (`optimizer.lr`, `lora.rank`) and whose values are numbers, strings or
// booleans. Arrays become their JSON text (`[[480,720]]`), nulls are left out.
nlohmann::json flatten_hparams(const nlohmann::json& job);

} // namespace tuneframe::tensorboard
