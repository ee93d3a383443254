#pragma once

#include "app/dataset/ClipRecord.h"

#include <QCoreApplication>
#include <QString>

#include <atomic>

// Cuts a clip's trimmed frames into a new H.264 MP4, for exports whose format has no notion of
// a trim (cogvideox-factory's videos.txt). Frames are decoded upright, so the copy needs no
// rotation; odd sizes are kept with 4:4:4 chroma rather than cropped. The source is only read;
// the target appears whole or not at all (media's VideoWriter renames it into place).
class TrimmedClipRenderer {
    Q_DECLARE_TR_FUNCTIONS(TrimmedClipRenderer)

public:
    static constexpr int kQuality = 17; // libx264 CRF: visually lossless for training

    // Returns false with *error set (naming both files) on failure, or with *error empty when
    // cancelled.
    static bool render(const ClipRecord& clip, const QString& target,
                       const std::atomic<bool>* cancelRequested, QString* error);
};
