#include "app/runs/RunMemoryTable.h"

#include <QMap>

#include <iterator>

// cogvideox-factory's four phases first, then the stages of a validation pass (the engine
// reports each stage's own peak: the text encoder's, image-to-video's image encoding, the
// transformer's denoising and the VAE's decode), so the table shows which one sets the peak.
const QStringList RunMemoryTable::kPhases = {
    QStringLiteral("before_training"),    QStringLiteral("before_validation"),
    QStringLiteral("after_validation"),   QStringLiteral("after_testing"),
    QStringLiteral("validation_text"),    QStringLiteral("validation_image"),
    QStringLiteral("validation_denoise"), QStringLiteral("validation_decode")};

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')))
        return text;
    return QLatin1Char('"') + QString(text).replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
           QLatin1Char('"');
}

} // namespace

void RunMemoryTable::append(const QString& run, const QVector<MemoryPhaseRecord>& phases) {
    QMap<int, Row> byRank;
    for (const MemoryPhaseRecord& record : phases) {
        const qsizetype column = kPhases.indexOf(record.phase);
        if (column < 0)
            continue;
        for (const DeviceMemorySample& sample : record.memory) {
            Row& row = byRank[sample.rank];
            row.run = run;
            row.rank = sample.rank;
            row.peakBytes.resize(kPhases.size());
            std::optional<qint64>& cell = row.peakBytes[column];
            cell = qMax(cell.value_or(0), sample.peakBytes);
        }
    }
    for (const Row& row : byRank)
        m_rows.append(row);
}

QString RunMemoryTable::phaseTitle(const QString& phase) {
    // In kPhases' order.
    static const char* const kTitles[] = {
        QT_TR_NOOP("Before training"),          QT_TR_NOOP("Before validation"),
        QT_TR_NOOP("After validation"),         QT_TR_NOOP("After testing"),
        QT_TR_NOOP("Validation: text encoder"), QT_TR_NOOP("Validation: image"),
        QT_TR_NOOP("Validation: denoising"),    QT_TR_NOOP("Validation: VAE decode")};
    static_assert(std::size(kTitles) == 8);
    const qsizetype index = kPhases.indexOf(phase);
    return index < 0 ? phase : tr(kTitles[index]);
}

QString RunMemoryTable::cellText(const std::optional<qint64>& bytes) {
    return bytes ? QString::number(*bytes / kGiB, 'f', 2) : QStringLiteral("–");
}

QString RunMemoryTable::markdown() const {
    QStringList header{tr("Run"), tr("Rank")};
    for (const QString& phase : kPhases)
        header.append(tr("%1 (GiB)").arg(phaseTitle(phase)));
    QStringList lines{QStringLiteral("| ") + header.join(QStringLiteral(" | ")) +
                      QStringLiteral(" |")};
    lines.append(QStringLiteral("|") + QStringLiteral(" --- |").repeated(header.size()));
    for (const Row& row : m_rows) {
        QStringList cells{QString(row.run).replace(QLatin1Char('|'), QStringLiteral("\\|")),
                          QString::number(row.rank)};
        for (const std::optional<qint64>& bytes : row.peakBytes)
            cells.append(cellText(bytes));
        lines.append(QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) +
                     QStringLiteral(" |"));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString RunMemoryTable::csv() const {
    QStringList header{QStringLiteral("run"), QStringLiteral("rank")};
    for (const QString& phase : kPhases)
        header.append(QStringLiteral("memory_%1_gib").arg(phase));
    QStringList lines{header.join(QLatin1Char(','))};
    for (const Row& row : m_rows) {
        QStringList cells{csvField(row.run), QString::number(row.rank)};
        for (const std::optional<qint64>& bytes : row.peakBytes)
            cells.append(bytes ? QString::number(*bytes / kGiB, 'f', 4) : QString());
        lines.append(cells.join(QLatin1Char(',')));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}
