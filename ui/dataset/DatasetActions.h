#pragma once

#include <QHash>
#include <QList>
#include <QObject>

class QAction;
class QActionGroup;
class QWidget;

// The Dataset page's commands as QActions, with their shortcuts and texts in one place, so the
// toolbar, the inspector's buttons, the window's Edit and Dataset menus and the keyboard all
// trigger the same thing. Single-key shortcuts (A, R, U, 0–5) only work while the keyboard is
// inside the page, and never while typing: text fields take plain keys first.
class DatasetActions : public QObject {
    Q_OBJECT

public:
    enum class Id {
        None,
        ImportFolder,
        ImportFiles,
        GridView,
        TableView,
        FindClips,
        EditCaption,
        Undo,
        Redo,
        Accept,
        NeedsReview,
        Reject,
        Rate0,
        Rate1,
        Rate2,
        Rate3,
        Rate4,
        Rate5,
        InsertTriggerWord,
        FindReplace,
        AddTriggerWord,
        AddTags,
        RemoveTags,
        RemoveClips,
        WriteCaptions,
        Export,
        BucketPreview,
    };
    Q_ENUM(Id)

    // page: the widget the single-key shortcuts are bound to.
    explicit DatasetActions(QWidget* page);

    QAction* action(Id id) const;
    QList<QAction*> editMenuActions() const;
    // With separators between the groups.
    QList<QAction*> datasetMenuActions() const;
    QList<QAction*> ratingActions() const;

    void setUndoText(const QString& text);
    void setRedoText(const QString& text);
    void retranslateUi();

private:
    QAction* add(Id id, const char* objectName, const QKeySequence& shortcut,
                 Qt::ShortcutContext context = Qt::WindowShortcut);
    QAction* separator();

    QWidget* m_page;
    QHash<Id, QAction*> m_actions;
    QActionGroup* m_viewGroup;
    QActionGroup* m_statusGroup;
    QString m_undoText;
    QString m_redoText;
};
