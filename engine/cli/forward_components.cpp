#include "engine/cli/forward_components.h"

namespace tuneframe::cli {

const std::vector<ForwardComponent>& forward_components() {
    static const std::vector<ForwardComponent> components = {};
    return components;
}

} // namespace tuneframe::cli
