#include "app/runs/StepMetrics.h"

#include "app/engine/EngineEvent.h"

#include <QJsonArray>

namespace {

double optionalNumber(const EngineEvent& event, const char* field) {
    return event.number(QString::fromLatin1(field), StepMetrics::kMissing);
}

} // namespace

std::optional<StepMetrics> StepMetrics::fromEvent(const EngineEvent& event) {
    if (event.type != tuneframe::protocol::EventType::Step ||
        !event.body.value(QStringLiteral("step")).isDouble()) {
        return std::nullopt;
    }
    StepMetrics metrics;
    metrics.step = event.integer(QStringLiteral("step"));
    metrics.epoch = event.integer(QStringLiteral("epoch"));
    metrics.loss = optionalNumber(event, "loss");
    metrics.learningRate = optionalNumber(event, "lr");
    metrics.gradNorm = optionalNumber(event, "grad_norm");
    metrics.stepTimeSeconds = optionalNumber(event, "step_time_s");
    metrics.samplesPerSecond = optionalNumber(event, "samples_per_s");
    metrics.tokensPerSecond = optionalNumber(event, "tokens_per_s");
    metrics.memory = memoryFromEvent(event);
    return metrics;
}

QVector<DeviceMemorySample> StepMetrics::memoryFromEvent(const EngineEvent& event) {
    QVector<DeviceMemorySample> samples;
    const QJsonArray entries = event.body.value(QStringLiteral("mem")).toArray();
    for (const QJsonValue& value : entries) {
        const QJsonObject entry = value.toObject();
        DeviceMemorySample sample;
        sample.rank = entry.value(QStringLiteral("rank")).toInt();
        sample.allocatedBytes = entry.value(QStringLiteral("allocated")).toInteger();
        sample.reservedBytes = entry.value(QStringLiteral("reserved")).toInteger();
        sample.peakBytes = entry.value(QStringLiteral("peak")).toInteger();
        sample.totalBytes = entry.value(QStringLiteral("total")).toInteger();
        samples.append(sample);
    }
    return samples;
}
