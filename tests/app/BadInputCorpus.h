#pragma once

#include <QByteArray>
#include <QString>
#include <QVector>

// A thousand and more bad inputs of every class the studio and the engine meet, written at test
// time under one folder (issue #20 point 7): videos that are truncated, empty, garbage, in odd
// codecs, rotated, tiny, of impossible dimensions or variable frame rate; captions in every
// encoding the caption decoder knows and in none; cogvideox-factory layouts and metadata tables
// that name escaping paths, special files and nothing; model folders and safetensors shards
// broken every way a header can be; malformed JSON of every schema (jobs, manifest lines,
// sweep grids, presets, engine events). Deterministic: the same seed gives the same bytes.
class BadInputCorpus {
public:
    struct Input {
        QString kind; // "video/garbage", "caption/gb18030", "model/offsets", ...
        QString path; // the file, or the folder for layouts and model folders
    };

    // Writes everything under root; tinyPipeline is a working model whose parts the model
    // cases break one at a time. Throws std::runtime_error when a file cannot be written.
    BadInputCorpus(const QString& root, const QString& tinyPipeline);

    const QString& root() const { return m_root; }
    // One valid clip, so a run over the bad ones still has something to succeed on.
    QString goodClip() const { return m_goodClip; }
    // Video files with a plain caption file beside each.
    const QVector<Input>& videos() const { return m_videos; }
    // Valid clips whose caption files are in odd encodings.
    const QVector<Input>& captions() const { return m_captions; }
    // Folders, one import each: factory layouts and metadata tables.
    const QVector<Input>& layouts() const { return m_layouts; }
    // Safetensors files and model folders, one `inspect` each.
    const QVector<Input>& models() const { return m_models; }
    // job.json files for `prepare --job`.
    const QVector<Input>& jobs() const { return m_jobs; }
    // Manifest lines (one file, many lines; each line counts as one input).
    const QVector<Input>& manifestLines() const { return m_manifestLines; }
    QString manifestWithBadLines() const { return m_manifest; }
    // Sweep grids, presets and engine event lines, read in-process.
    const QVector<Input>& sweepGrids() const { return m_sweepGrids; }
    QString presetFolder() const { return m_presetFolder; }
    const QVector<Input>& presets() const { return m_presets; }
    const QVector<QByteArray>& eventLines() const { return m_eventLines; }

    int size() const;

private:
    void writeVideos();
    void writeCaptions();
    void writeLayouts();
    void writeModels();
    void writeJobs();
    void writeManifest();
    void writeSweepGridsPresetsAndEvents();

    QString m_root;
    QString m_tinyPipeline;
    QString m_goodClip;
    QString m_manifest;
    QString m_presetFolder;
    QVector<Input> m_videos;
    QVector<Input> m_captions;
    QVector<Input> m_layouts;
    QVector<Input> m_models;
    QVector<Input> m_jobs;
    QVector<Input> m_manifestLines;
    QVector<Input> m_sweepGrids;
    QVector<Input> m_presets;
    QVector<QByteArray> m_eventLines;
};
