#include "engine/cli/commands.h"

namespace tuneframe::cli {

// The hello event (which main emits before every protocol command) is the answer: the devices,
// LibTorch and CUDA versions the engine sees. The studio's GPU picker and bug reports use it.
int run_devices(CommandContext& context) {
    context.arguments.finish();
    context.events.done("ok");
    return 0;
}

} // namespace tuneframe::cli
