#pragma once

#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"

#include <string>
#include <vector>

// The CogVideoX variants by name: what `init-model --arch` builds and `inspect` recognises.
namespace tuneframe::models::cogvideox {

struct Architecture {
    std::string name;           // "cogvideox-5b"
    std::string description;    // "CogVideoX-5b (text-to-video, 3D rotary)"
    std::string pipeline_class; // model_index.json's _class_name
    std::string stored_dtype;   // the official checkpoints' dtype: "fp16" or "bf16"
    CogVideoXTransformer3DConfig transformer;
};

// cogvideox-tiny, cogvideox-tiny-i2v, cogvideox-tiny-demo, cogvideox-2b, cogvideox-5b,
// cogvideox-5b-i2v, cogvideox1.5-5b, cogvideox1.5-5b-i2v.
const std::vector<Architecture>& architectures();
// Throws a Usage error listing the known names.
const Architecture& find_architecture(const std::string& name);

// Whether two configs build the same modules with the same shapes (layers, widths, channels,
// positional scheme, patching): one's weights load into the other.
bool same_architecture(const CogVideoXTransformer3DConfig& a,
                       const CogVideoXTransformer3DConfig& b);
// The architecture a config describes (layers, widths, channels, positional scheme, patching),
// or nullptr for a custom shape such as the golden test models.
const Architecture* recognise_architecture(const CogVideoXTransformer3DConfig& config);
// "3D sin-cos positions", "3D rotary (linspace grid) + learned positions", ...
std::string positional_scheme(const CogVideoXTransformer3DConfig& config);

} // namespace tuneframe::models::cogvideox
