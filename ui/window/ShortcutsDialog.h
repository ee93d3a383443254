#pragma once

#include <QDialog>

class QMainWindow;
class QMenu;
class QTableWidget;

// Help → Keyboard Shortcuts: every shortcut of the window, read from its QActions when the
// dialog opens (the menus first, in menu order, then actions that live only on a page), so the
// list cannot go stale when a shortcut is added or changed.
class ShortcutsDialog : public QDialog {
    Q_OBJECT

public:
    explicit ShortcutsDialog(QMainWindow* window);

    QTableWidget* table() const;
    // The shortcut shown for a command, as text ("Ctrl+."); empty when it is not listed.
    QString shortcutOf(const QString& command) const;

private:
    void addMenu(QMenu* menu, const QString& path, QList<QAction*>* listed);
    void addRow(const QString& where, QAction* action);

    QTableWidget* m_table;
};
