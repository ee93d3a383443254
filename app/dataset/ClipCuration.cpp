#include "app/dataset/ClipCuration.h"

#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"
#include "app/dataset/ConditionImages.h"
#include "app/project/Project.h"

#include <QSet>

ClipCuration::ClipCuration(const Project& project, ClipTableModel* model, QObject* parent)
    : QObject(parent)
    , m_project(project)
    , m_model(model) {
    connect(m_model, &ClipTableModel::captionHistoryChanged, this,
            &ClipCuration::captionHistoryChanged);
}

bool ClipCuration::setStatus(const QVector<qint64>& clipIds, ClipStatus status) {
    return recorded(clipIds, CaptionHistory::Kind::Status, [&](ClipStore& store, QString* error) {
        return store.setStatus(clipIds, status, error);
    });
}

bool ClipCuration::removeClips(const QVector<qint64>& clipIds) {
    QString error;
    if (!CaptionHistory(m_project).removeClips(clipIds, &error)) {
        emit editFailed(error);
        return false;
    }
    m_model->reload();
    emit clipsRemoved(clipIds);
    emit captionHistoryChanged(); // the removal, and the steps of removed clips that left
    return true;
}

bool ClipCuration::setRating(const QVector<qint64>& clipIds, int rating) {
    return recorded(clipIds, CaptionHistory::Kind::Rating, [&](ClipStore& store, QString* error) {
        return store.setRating(clipIds, rating, error);
    });
}

bool ClipCuration::addTags(const QVector<qint64>& clipIds, const QStringList& tags) {
    return recorded(clipIds, CaptionHistory::Kind::Tags, [&](ClipStore& store, QString* error) {
        return store.addTags(clipIds, tags, error);
    });
}

bool ClipCuration::removeTags(const QVector<qint64>& clipIds, const QStringList& tags) {
    return recorded(clipIds, CaptionHistory::Kind::Tags, [&](ClipStore& store, QString* error) {
        return store.removeTags(clipIds, tags, error);
    });
}

bool ClipCuration::setTags(qint64 clipId, const QStringList& tags) {
    const int row = m_model->rowOfClip(clipId);
    if (row < 0)
        return false;
    const QStringList wanted = ClipStore::normalizedTags(tags);
    const QStringList current = m_model->record(row).tags;
    QSet<QString> wantedKeys;
    for (const QString& tag : wanted)
        wantedKeys.insert(tag.toCaseFolded());
    QSet<QString> currentKeys;
    for (const QString& tag : current)
        currentKeys.insert(tag.toCaseFolded());
    QStringList added;
    for (const QString& tag : wanted) {
        if (!currentKeys.contains(tag.toCaseFolded()))
            added.append(tag);
    }
    QStringList removed;
    for (const QString& tag : current) {
        if (!wantedKeys.contains(tag.toCaseFolded()))
            removed.append(tag);
    }
    if (added.isEmpty() && removed.isEmpty())
        return true;
    return recorded({clipId}, CaptionHistory::Kind::Tags, [&](ClipStore& store, QString* error) {
        const bool succeeded = removed.isEmpty() || store.removeTags({clipId}, removed, error);
        return succeeded && (added.isEmpty() || store.addTags({clipId}, added, error));
    });
}

bool ClipCuration::setTrim(qint64 clipId, qint64 trimIn, std::optional<qint64> trimOut) {
    return recorded({clipId}, CaptionHistory::Kind::Trim, [&](ClipStore& store, QString* error) {
        return store.setTrim(clipId, trimIn, trimOut, error);
    });
}

bool ClipCuration::setConditionFrame(qint64 clipId, std::optional<qint64> frame) {
    return recorded({clipId}, CaptionHistory::Kind::ConditionFrame,
                    [&](ClipStore& store, QString* error) {
                        if (!store.setConditionFrame(clipId, frame, error))
                            return false;
                        const std::optional<ClipRecord> clip = store.clip(clipId);
                        return !clip || !ConditionImages::write(m_project, *clip, error).isEmpty();
                    });
}

// Undoing a removal puts clips back (back), redoing it takes them away again: rows come and go
// rather than change, so the model is read again.
bool ClipCuration::clipsCameBackOrWent(const QVector<qint64>& clipIds, bool back) {
    m_model->reload();
    if (back)
        emit clipsChanged(clipIds);
    else
        emit clipsRemoved(clipIds);
    return true;
}

// The picture validation prompts use follows the clip's condition frame, also when undo or redo
// moves it.
bool ClipCuration::writeConditionImages(const QVector<qint64>& clipIds, QString* error) {
    ClipStore store(m_project);
    for (const qint64 clipId : clipIds) {
        const std::optional<ClipRecord> clip = store.clip(clipId);
        if (clip && ConditionImages::write(m_project, *clip, error).isEmpty())
            return false;
    }
    return true;
}

bool ClipCuration::markCaptionsChecked(const QVector<qint64>& clipIds) {
    QString error;
    const bool succeeded = ClipStore(m_project).markCaptionsChecked(clipIds, &error);
    return finish(succeeded, error, clipIds);
}

bool ClipCuration::setCaption(qint64 clipId, const QString& caption) {
    QString error;
    QVector<qint64> changed;
    const bool succeeded = CaptionHistory(m_project).setCaption(clipId, caption, &error, &changed);
    if (succeeded && !changed.isEmpty())
        emit captionHistoryChanged();
    return finish(succeeded, error, changed);
}

bool ClipCuration::applyCaptionChanges(const QVector<CaptionHistory::Change>& changes,
                                       CaptionHistory::Kind kind) {
    QString error;
    QVector<qint64> changed;
    const bool succeeded = CaptionHistory(m_project).apply(changes, kind, &error, &changed);
    if (succeeded && !changed.isEmpty())
        emit captionHistoryChanged();
    return finish(succeeded, error, changed);
}

bool ClipCuration::canUndo() const {
    return CaptionHistory(m_project).canUndo();
}

bool ClipCuration::canRedo() const {
    return CaptionHistory(m_project).canRedo();
}

QString ClipCuration::undoText() const {
    return CaptionHistory(m_project).undoText();
}

QString ClipCuration::redoText() const {
    return CaptionHistory(m_project).redoText();
}

bool ClipCuration::undo() {
    QString error;
    QVector<qint64> changed;
    CaptionHistory history(m_project);
    const CaptionHistory::Kind kind = history.undoKind();
    const bool frames = kind == CaptionHistory::Kind::ConditionFrame;
    const bool succeeded =
        history.undo(&error, &changed) && (!frames || writeConditionImages(changed, &error));
    emit captionHistoryChanged();
    if (succeeded && kind == CaptionHistory::Kind::Removal)
        return clipsCameBackOrWent(changed, true);
    return finish(succeeded, error, changed);
}

bool ClipCuration::redo() {
    QString error;
    QVector<qint64> changed;
    CaptionHistory history(m_project);
    const CaptionHistory::Kind kind = history.redoKind();
    const bool frames = kind == CaptionHistory::Kind::ConditionFrame;
    const bool succeeded =
        history.redo(&error, &changed) && (!frames || writeConditionImages(changed, &error));
    emit captionHistoryChanged();
    if (succeeded && kind == CaptionHistory::Kind::Removal)
        return clipsCameBackOrWent(changed, false);
    return finish(succeeded, error, changed);
}

bool ClipCuration::recorded(const QVector<qint64>& clipIds, CaptionHistory::Kind kind,
                            const std::function<bool(ClipStore&, QString*)>& edit) {
    ClipStore store(m_project);
    const QVector<ClipRecord> before = store.clips(clipIds);
    QString error;
    bool succeeded = edit(store, &error);
    // Also after a failure: setTags takes two steps, and the first may have stuck.
    const QVector<ClipFieldChanges::Change> changes =
        ClipFieldChanges::between(before, store.clips(clipIds));
    if (!changes.isEmpty()) {
        QString recordError;
        if (!CaptionHistory(m_project).recordFieldChanges(changes, kind, &recordError)) {
            succeeded = false;
            error = error.isEmpty() ? recordError : error;
        }
        emit captionHistoryChanged();
    }
    return finish(succeeded, error, clipIds);
}

bool ClipCuration::finish(bool succeeded, const QString& error, const QVector<qint64>& clipIds) {
    // Read back even after a failure: setTags takes two steps, and the first may have stuck.
    if (!clipIds.isEmpty()) {
        m_model->refreshClips(clipIds);
        emit clipsChanged(clipIds);
    }
    if (!succeeded)
        emit editFailed(error);
    return succeeded;
}
