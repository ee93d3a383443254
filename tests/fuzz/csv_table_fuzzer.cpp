// The CSV table: any text as a metadata CSV (quotes, separators, line breaks). It never fails,
// and every row has the line it starts on, later than the row before.
#include "app/import/CsvTable.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QString text =
        QString::fromUtf8(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const CsvTable table = CsvTable::parse(text);
    if (table.rows().size() != table.rowLines().size()) {
        __builtin_trap();
    }
    for (int row = 0; row < table.rowLines().size(); ++row) {
        if (table.rowLines().at(row) <= (row > 0 ? table.rowLines().at(row - 1) : 1)) {
            __builtin_trap();
        }
    }
    table.column({QStringLiteral("caption"), QStringLiteral("video")});
    return 0;
}
