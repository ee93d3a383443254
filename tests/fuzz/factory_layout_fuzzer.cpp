// cogvideox-factory's layout: the input is videos.txt, then (after kPartSeparator) prompt.txt,
// written into a folder and imported as the import dialog does. Problems become the plan's
// errors and notes; nothing throws, and no listed path may leave the folder.
#include "app/import/FactoryLayoutSource.h"
#include "tests/fuzz/fuzz_support.h"

#include <QDir>
#include <QFileInfo>

using namespace tuneframe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::string_view> parts = fuzz::split_parts(fuzz::as_text(data, size), 2);
    fuzz::clear_scratch_folder();
    fuzz::write_scratch_file("videos.txt", parts[0]);
    fuzz::write_scratch_file("prompt.txt", parts.size() > 1 ? parts[1] : std::string_view());
    const QString folder = QString::fromStdString(fuzz::scratch_folder().string());
    if (!FactoryLayoutSource::isFactoryLayout(folder)) {
        __builtin_trap();
    }
    ImportPlan plan;
    FactoryLayoutSource::add(folder, plan, ImportOptions{}, nullptr);
    const QString inside = QDir::cleanPath(QFileInfo(folder).absoluteFilePath()) + QLatin1Char('/');
    for (const ImportItem& item : plan.items) {
        if (!item.path.startsWith(inside)) {
            __builtin_trap();
        }
    }
    return 0;
}
