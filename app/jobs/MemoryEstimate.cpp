#include "app/jobs/MemoryEstimate.h"

#include <QJsonArray>

namespace {

// The phases of an estimate's `phases` or `host_phases`; nullopt when one has no name.
std::optional<QVector<MemoryEstimate::Phase>> readPhases(const QJsonArray& phases) {
    QVector<MemoryEstimate::Phase> read;
    for (const QJsonValue& value : phases) {
        const QJsonObject object = value.toObject();
        MemoryEstimate::Phase phase;
        phase.name = object.value(QStringLiteral("phase")).toString();
        phase.totalBytes = object.value(QStringLiteral("total")).toInteger();
        phase.skipped = object.value(QStringLiteral("skipped")).toBool();
        for (const QJsonValue& part : object.value(QStringLiteral("parts")).toArray()) {
            phase.parts.append({part.toObject().value(QStringLiteral("name")).toString(),
                                part.toObject().value(QStringLiteral("bytes")).toInteger()});
        }
        if (phase.name.isEmpty())
            return std::nullopt;
        read.append(phase);
    }
    return read;
}

const MemoryEstimate::Phase* largestOf(const QVector<MemoryEstimate::Phase>& phases) {
    const MemoryEstimate::Phase* largest = nullptr;
    for (const MemoryEstimate::Phase& phase : phases) {
        if (!phase.skipped && phase.totalBytes > 0 &&
            (!largest || phase.totalBytes > largest->totalBytes))
            largest = &phase;
    }
    return largest;
}

} // namespace

std::optional<MemoryEstimate> MemoryEstimate::fromSummary(const QJsonObject& summary) {
    const std::optional<QVector<Phase>> phases =
        readPhases(summary.value(QStringLiteral("phases")).toArray());
    const std::optional<QVector<Phase>> hostPhases =
        readPhases(summary.value(QStringLiteral("host_phases")).toArray());
    if (!phases || phases->isEmpty() || !hostPhases)
        return std::nullopt;
    MemoryEstimate estimate;
    estimate.processes = summary.value(QStringLiteral("processes")).toInt(1);
    estimate.swappedBlocks = summary.value(QStringLiteral("swapped_blocks")).toInt(0);
    estimate.phases = *phases;
    estimate.hostPhases = *hostPhases;
    return estimate;
}

const MemoryEstimate::Phase* MemoryEstimate::largestPhase() const {
    return largestOf(phases);
}

const MemoryEstimate::Phase* MemoryEstimate::largestHostPhase() const {
    return largestOf(hostPhases);
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
        QT_TR_NOOP("image encoder weights"),
        QT_TR_NOOP("transformer weights"),
        QT_TR_NOOP("second expert weights"),
        QT_TR_NOOP("other expert weights"),
        QT_TR_NOOP("whole transformer for sampling"),
        QT_TR_NOOP("adapter weights"),
        QT_TR_NOOP("adapter weights and gradients"),
        QT_TR_NOOP("gradients"),
        QT_TR_NOOP("optimizer state"),
        QT_TR_NOOP("activations"),
        QT_TR_NOOP("denoising activations (CFG)"),
        // Block swap and expert parking (memory.blocks_to_swap, memory.inactive_expert).
        QT_TR_NOOP("swapped blocks in flight"),
        QT_TR_NOOP("swapped blocks"),
        QT_TR_NOOP("swapped blocks' gradients"),
        QT_TR_NOOP("gradient staging"),
        QT_TR_NOOP("parked expert weights"),
        QT_TR_NOOP("expert read back from disk"),
        // Activation offload (memory.offload_activations): the recomputed blocks' saved inputs in
        // host memory, and the two of them on the device while one is copied down and one back.
        QT_TR_NOOP("offloaded activations"),
        QT_TR_NOOP("offloaded activations in flight"),
    };
    for (const char* part : kParts) {
        if (name == QLatin1String(part))
            return tr(part);
    }
    return name;
}
