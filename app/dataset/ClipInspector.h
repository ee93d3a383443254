#pragma once

#include "app/dataset/ClipRecord.h"

#include <QString>

#include <atomic>
#include <optional>

// Examines one file for import: hashes its bytes, probes it and decodes enough to be sure it
// is whole. A video counts as whole when the frames its container lists are all there and the
// last one decodes; an image when its picture decodes. Whatever fails is recorded as the
// record's problem, never thrown.
class ClipInspector {
public:
    // Fills the file facts of a record for path (absolute); caption, trim and curation fields
    // are left at their defaults for the caller. nullopt when cancelled midway.
    static std::optional<ClipRecord> inspect(const QString& path,
                                             const std::atomic<bool>* cancelRequested);
};
