#include "app/jobs/MemoryEstimate.h"

#include <QJsonArray>

std::optional<MemoryEstimate> MemoryEstimate::fromSummary(const QJsonObject& summary) {
    const QJsonArray phases = summary.value(QStringLiteral("phases")).toArray();
    if (phases.isEmpty())
        return std::nullopt;
    MemoryEstimate estimate;
    estimate.processes = summary.value(QStringLiteral("processes")).toInt(1);
    for (const QJsonValue& value : phases) {
        const QJsonObject object = value.toObject();
        Phase phase;
        phase.name = object.value(QStringLiteral("phase")).toString();
        phase.totalBytes = object.value(QStringLiteral("total")).toInteger();
        phase.skipped = object.value(QStringLiteral("skipped")).toBool();
        for (const QJsonValue& part : object.value(QStringLiteral("parts")).toArray()) {
            phase.parts.append({part.toObject().value(QStringLiteral("name")).toString(),
                                part.toObject().value(QStringLiteral("bytes")).toInteger()});
        }
        if (phase.name.isEmpty())
            return std::nullopt;
        estimate.phases.append(phase);
    }
    return estimate;
}

const MemoryEstimate::Phase* MemoryEstimate::largestPhase() const {
    const Phase* largest = nullptr;
    for (const Phase& phase : phases) {
        if (!phase.skipped && (!largest || phase.totalBytes > largest->totalBytes))
            largest = &phase;
    }
    return largest;
}

QString MemoryEstimate::phaseTitle(const QString& name) {
    if (name == QLatin1String("prepare"))
        return tr("Prepare");
    if (name == QLatin1String("train"))
        return tr("Train");
    if (name == QLatin1String("validation"))
        return tr("Validation");
    return name;
}

QString MemoryEstimate::partTitle(const QString& name) {
    static const char* const kParts[] = {
        QT_TR_NOOP("CUDA context"),
        QT_TR_NOOP("text encoder weights"),
        QT_TR_NOOP("text encoder activations"),
        QT_TR_NOOP("VAE weights"),
        QT_TR_NOOP("VAE encode activations"),
        QT_TR_NOOP("VAE decode activations"),
        QT_TR_NOOP("transformer weights"),
        QT_TR_NOOP("adapter weights and gradients"),
        QT_TR_NOOP("gradients"),
        QT_TR_NOOP("optimizer state"),
        QT_TR_NOOP("activations"),
        QT_TR_NOOP("denoising activations (CFG)"),
    };
    for (const char* part : kParts) {
        if (name == QLatin1String(part))
            return tr(part);
    }
    return name;
}
