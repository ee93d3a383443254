#pragma once

#include <QString>

// What an export of a two-expert model's run holds (Wan 2.2 A14B, docs/protocol.md "export"):
// adapter formats write `<stem>_high_noise.safetensors` and `<stem>_low_noise.safetensors`, one
// per expert the run trained; merged writes a folder with `transformer/` and `transformer_2/`, a
// pipeline the whole pipeline with both. Found from the path the export recorded (its first
// file, or the folder), so the Sample page can give each expert its own.
class ExpertExport {
public:
    QString highNoise; // the high-noise expert's file or transformer folder; empty: none
    QString lowNoise;  // the low-noise expert's; empty: none

    // The experts of the export at `path` in `format`; both empty for one transformer's export.
    static ExpertExport of(const QString& format, const QString& path);
    bool hasExperts() const { return !highNoise.isEmpty() || !lowNoise.isEmpty(); }
    bool isPair() const { return !highNoise.isEmpty() && !lowNoise.isEmpty(); }
};
