#pragma once

#include "engine/train/optim/adam_optimizer.h"

#include <c10/core/Device.h>

#include <unordered_map>
#include <utility>

namespace tuneframe::train {

// AdamW with 8-bit block-wise state, as bitsandbytes' AdamW8bit stores it: exp_avg in the signed
// dynamic map, exp_avg_sq in the unsigned one, one float32 absmax per block of kBlockSize
// elements for each. A step dequantises, runs torch's AdamW update in float32 (the parameter
// update sees the unquantised new moments, as in bitsandbytes' kernel) and quantises the
// moments again. Tensors with fewer than `min_8bit_size` elements keep float32 state and are
// updated exactly as by "adamw".
//
// State per 8-bit parameter: exp_avg, exp_avg_sq (uint8, the parameter's shape),
// exp_avg_absmax, exp_avg_sq_absmax (float32 [blocks]) and step: about 2 bytes per element
// plus 8 / kBlockSize for the absmaxes, against 8 for float32 state.
class AdamW8bitOptimizer : public Optimizer {
public:
    // bitsandbytes uses 256 since 0.44 (2048 before). The absmaxes cost 0.03 bytes per element
    // instead of 0.004, and in exchange one large moment sets the scale of 256 elements rather
    // than 2048, so fewer small moments sink below the map's finest step.
    static constexpr std::int64_t kBlockSize = 256;
    static constexpr std::int64_t kDefaultMin8bitSize = 4096; // bitsandbytes' min_8bit_size

    // `hyper.decoupled` must be true (this is AdamW).
    AdamW8bitOptimizer(NamedParameters parameters, const AdamHyperParameters& hyper,
                       std::int64_t min_8bit_size = kDefaultMin8bitSize,
                       bool fp32_master_weights = true);

    void step() override;

protected:
    void init_state(std::size_t index, const at::Tensor& working, StateTensors& state) override;
    StateBytes buffer_bytes() const override;

private:
    // The signed and unsigned maps on `device`, built once per device.
    const std::pair<at::Tensor, at::Tensor>& maps(const c10::Device& device);
    void update_quantized(const at::Tensor& working, const at::Tensor& gradient,
                          StateTensors& state, const AdamStepScalars& scalars,
                          const AdamHyperParameters& hyper);

    AdamHyperParameters hyper_;
    std::int64_t min_8bit_size_;
    std::unordered_map<c10::Device, std::pair<at::Tensor, at::Tensor>> maps_;
};

} // namespace tuneframe::train
