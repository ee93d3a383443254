// The dataset manifest (JSON Lines): any text. The reader reports bad lines as issues and
// never throws; every entry it returns must pass its own validation and be writable again.
#include "common/dataset_manifest.h"
#include "tests/fuzz/fuzz_support.h"

using namespace tuneframe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const common::ManifestReadResult result =
        common::parse_manifest(fuzz::as_text(data, size), "dataset.jsonl");
    if (result.entries.size() != result.entry_lines.size()) {
        __builtin_trap();
    }
    for (const common::ManifestEntry& entry : result.entries) {
        if (!common::validate_manifest_entry(entry).empty()) {
            __builtin_trap();
        }
        common::format_manifest_line(entry);
    }
    for (const common::ManifestIssue& issue : result.issues) {
        issue.to_string();
    }
    return 0;
}
