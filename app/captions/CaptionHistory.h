#pragma once

#include "app/captions/ClipFieldChanges.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QSqlDatabase>
#include <QString>
#include <QVector>

class Project;

// Every caption change goes through here, so it can be undone and redone, also after the
// project was closed and opened again; so do status, rating, tag, trim and condition-frame changes
// (ClipFieldChanges), recorded after ClipStore made them, in the same stack. The history is a
// linear stack in the database (caption_edits, caption_changes): an edit of many captions (a bulk
// replace) is one step, undo steps back through it, redo forward, and a new edit after undoing
// discards the steps that could have been redone. Uses the calling thread's connection.
class CaptionHistory {
    Q_DECLARE_TR_FUNCTIONS(CaptionHistory)

public:
    enum class Kind {
        Invalid,
        Edit,
        Replace,
        TriggerWord,
        Status,
        Rating,
        Tags,
        Trim,
        ConditionFrame,
        Removal
    };

    struct Change {
        qint64 clipId = 0;
        QString before;
        QString after;
    };

    // One step of one clip's history, oldest first.
    struct Entry {
        qint64 editId = 0;
        Kind kind = Kind::Invalid;
        QDateTime createdUtc;
        QString before;
        QString after;
        bool undone = false;
    };

    explicit CaptionHistory(const Project& project);

    // Applies the changes as one undoable step, in one transaction. Fails without changing
    // anything when some caption no longer reads as change.before (it was edited after the
    // preview was made). Changes that change nothing are left out; if none is left, nothing is
    // recorded. *changedClipIds (optional) gets the clips whose caption changed.
    bool apply(const QVector<Change>& changes, Kind kind, QString* error,
               QVector<qint64>* changedClipIds = nullptr);
    // Records status, rating, tag or trim changes ClipStore has just made as one step; nothing
    // is recorded when there are none.
    bool recordFieldChanges(const QVector<ClipFieldChanges::Change>& changes, Kind kind,
                            QString* error);
    // Removes the clips from the project as one undoable step (ClipRemovals).
    bool removeClips(const QVector<qint64>& clipIds, QString* error);
    // One caption, typed by the user.
    bool setCaption(qint64 clipId, const QString& text, QString* error,
                    QVector<qint64>* changedClipIds = nullptr);

    bool canUndo() const;
    bool canRedo() const;
    // What undo or redo would take back or do again; Invalid when nothing.
    Kind undoKind() const;
    Kind redoKind() const;
    // "Undo Replace in 12 Captions" style text for menus; empty when there is nothing.
    QString undoText() const;
    QString redoText() const;
    bool undo(QString* error, QVector<qint64>* changedClipIds = nullptr);
    bool redo(QString* error, QVector<qint64>* changedClipIds = nullptr);

    QVector<Entry> clipHistory(qint64 clipId) const;

    static QString kindKey(Kind kind);
    static Kind kindFromKey(const QString& key);
    // What a step did, for menus and the history pane.
    static QString describe(Kind kind, int clipCount);

private:
    struct Step {
        qint64 editId = 0;
        Kind kind = Kind::Invalid;
        int clipCount = 0;
    };
    // The step undo (undone = false) or redo (undone = true) would take.
    Step nextStep(bool undone) const;
    // Discards the redo side and adds an empty step; its id, or 0 with *error set.
    qint64 beginStep(QSqlDatabase& database, Kind kind, QString* error);
    bool move(bool undo, QString* error, QVector<qint64>* changedClipIds);
    QString databaseError(const QString& detail) const;

    const Project& m_project;
};
