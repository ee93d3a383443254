#pragma once

#include <QMetaType>
#include <QVector>

#include <limits>
#include <optional>

struct EngineEvent;

// One device's memory at a step or a memory phase, in bytes (on the CPU: the resident set).
struct DeviceMemorySample {
    int rank = 0;
    qint64 allocatedBytes = 0;
    qint64 reservedBytes = 0;
    qint64 peakBytes = 0;
    qint64 totalBytes = 0;
};

// What a `step` event reports (docs/protocol.md). A value the engine left out is NaN, so plots
// show a gap rather than a made-up zero.
struct StepMetrics {
    static constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

    qint64 step = 0;
    qint64 epoch = 0;
    double loss = kMissing;
    double learningRate = kMissing;
    double gradNorm = kMissing;
    double stepTimeSeconds = kMissing;
    double samplesPerSecond = kMissing;
    double tokensPerSecond = kMissing;
    QVector<DeviceMemorySample> memory;

    // nullopt for anything but a step event with a step number.
    static std::optional<StepMetrics> fromEvent(const EngineEvent& event);
    // The `mem` array of a step or memory event.
    static QVector<DeviceMemorySample> memoryFromEvent(const EngineEvent& event);
};

Q_DECLARE_METATYPE(StepMetrics)
