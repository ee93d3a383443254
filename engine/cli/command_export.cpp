// `export`: a run's checkpoint as a LoRA (diffusers, or a layout of the model family's such as
// ComfyUI's), a merged transformer or a whole pipeline; of a two-expert run (Wan 2.2 A14B), each
// expert it trained, or the one --expert names.
#include "engine/cli/commands.h"
#include "engine/train/run_export.h"

#include <chrono>

namespace tuneframe::cli {

int run_export(CommandContext& context) {
    Arguments& arguments = context.arguments;
    train::ExportRequest request;
    request.run = arguments.required_option("--run");
    request.format = arguments.required_option("--format");
    request.out = arguments.required_option("--out");
    const double step = arguments.number_option("--step", -1);
    request.expert = arguments.option("--expert").value_or("");
    arguments.finish();
    if (step >= 0) {
        request.step = static_cast<std::int64_t>(step);
    }
    if (!request.expert.empty() && request.expert != "high_noise" &&
        request.expert != "low_noise" && request.expert != "both") {
        arguments.fail("--expert must be high_noise, low_noise or both.");
    }
    context.events.phase("export");
    const auto started = std::chrono::steady_clock::now();
    const train::ExportResult result = train::export_run(request, [&](const char* stage) {
        context.events.log("info", std::string("export: ") + stage);
    });
    nlohmann::json files = nlohmann::json::array();
    for (const train::ExportedFile& file : result.files) {
        nlohmann::json entry = {{"path", std::filesystem::absolute(file.path).string()},
                                {"verified_max_abs_diff", file.max_abs_diff},
                                {"tolerance", file.tolerance}};
        if (!file.expert.empty()) {
            entry["expert"] = file.expert;
        }
        files.push_back(entry);
    }
    context.events.done(
        "ok",
        {{"format", request.format},
         {"path", std::filesystem::absolute(result.path).string()},
         {"files", files},
         {"step", result.step},
         {"verified_max_abs_diff", result.max_abs_diff},
         {"tolerance", result.tolerance},
         {"seconds",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}});
    return 0;
}

} // namespace tuneframe::cli
