#pragma once

#include "app/captions/CaptionHistory.h"
#include "app/dataset/ClipRecord.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>
#include <optional>

class ClipStore;
class ClipTableModel;
class Project;

// The Dataset page's edits, in one place: each goes to the database (ClipStore, or
// CaptionHistory for captions, so they stay undoable) and the clips it changed are read back
// into the ClipTableModel, so the grid, the table and the inspector all show the result at
// once. A refused edit changes nothing and is reported through editFailed. Lives on the UI
// thread with the model.
class ClipCuration : public QObject {
    Q_OBJECT

public:
    ClipCuration(const Project& project, ClipTableModel* model, QObject* parent = nullptr);

    bool setStatus(const QVector<qint64>& clipIds, ClipStatus status);
    bool setRating(const QVector<qint64>& clipIds, int rating);
    // Out of the project, undoably (CaptionHistory::removeClips); the model reloads, emits
    // clipsRemoved.
    bool removeClips(const QVector<qint64>& clipIds);
    bool addTags(const QVector<qint64>& clipIds, const QStringList& tags);
    bool removeTags(const QVector<qint64>& clipIds, const QStringList& tags);
    // Makes the clip's tags exactly these (normalized), adding and removing in one go.
    bool setTags(qint64 clipId, const QStringList& tags);
    // trimOut: one past the last frame used; nullopt: to the end.
    bool setTrim(qint64 clipId, qint64 trimIn, std::optional<qint64> trimOut);
    // Image-to-video: frame (nullopt: the first used) conditions the clip, undoably; its picture
    // is written under the project's conditions/ for validation prompts (again on undo and redo).
    bool setConditionFrame(qint64 clipId, std::optional<qint64> frame);
    bool markCaptionsChecked(const QVector<qint64>& clipIds);

    bool setCaption(qint64 clipId, const QString& caption);
    // Previewed changes (BulkCaptionEdit) as one undoable step.
    bool applyCaptionChanges(const QVector<CaptionHistory::Change>& changes,
                             CaptionHistory::Kind kind);

    bool canUndo() const;
    bool canRedo() const;
    QString undoText() const;
    QString redoText() const;
    bool undo();
    bool redo();

signals:
    void clipsChanged(const QVector<qint64>& clipIds);
    void clipsRemoved(const QVector<qint64>& clipIds);
    // What undo and redo would do may have changed.
    void captionHistoryChanged();
    void editFailed(const QString& message);

private:
    bool finish(bool succeeded, const QString& error, const QVector<qint64>& clipIds);
    bool writeConditionImages(const QVector<qint64>& clipIds, QString* error);
    bool clipsCameBackOrWent(const QVector<qint64>& clipIds, bool back);
    // Runs a ClipStore edit of these clips and records what it changed as one undoable step.
    bool recorded(const QVector<qint64>& clipIds, CaptionHistory::Kind kind,
                  const std::function<bool(ClipStore&, QString*)>& edit);

    const Project& m_project;
    ClipTableModel* m_model;
};
