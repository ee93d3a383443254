#include "app/import/ImportReport.h"

QString ImportReport::summary() const {
    QStringList parts;
    parts.append(tr("added: %1").arg(added));
    if (flagged > 0)
        parts.append(tr("flagged with a problem: %1").arg(flagged));
    if (captionsToCheck > 0)
        parts.append(tr("captions to check: %1").arg(captionsToCheck));
    if (refreshed > 0)
        parts.append(tr("updated: %1").arg(refreshed));
    if (unchanged > 0)
        parts.append(tr("already in the project: %1").arg(unchanged));
    if (duplicates > 0)
        parts.append(tr("duplicates skipped: %1").arg(duplicates));
    const QString counts = parts.join(QStringLiteral(", "));
    if (cancelled)
        return tr("Import cancelled after %1 of %2 files (%3).")
            .arg(processed)
            .arg(total)
            .arg(counts);
    return tr("Import finished (%1).").arg(counts);
}
