#include "ui/window/ShortcutsDialog.h"

#include "ui/playback/VideoPlayerWidget.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {

enum Column { CommandColumn, ShortcutColumn, WhereColumn, ColumnCount };

// "&Open Project…" → "Open Project…"; "&&" stays one ampersand.
QString plainText(const QString& text) {
    QString plain;
    for (int index = 0; index < text.size(); ++index) {
        if (text.at(index) == QLatin1Char('&') && index + 1 < text.size()) {
            ++index;
        }
        plain += text.at(index);
    }
    return plain;
}

QString shortcutText(const QAction* action) {
    QStringList keys;
    for (const QKeySequence& sequence : action->shortcuts())
        keys.append(sequence.toString(QKeySequence::NativeText));
    return keys.join(QStringLiteral(", "));
}

} // namespace

ShortcutsDialog::ShortcutsDialog(QMainWindow* window)
    : QDialog(window)
    , m_table(new QTableWidget(0, ColumnCount, this)) {
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    m_table->setObjectName(QStringLiteral("shortcutsTable"));
    m_table->setHorizontalHeaderLabels({tr("Command"), tr("Shortcut"), tr("Where")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);

    QList<QAction*> listed;
    for (QAction* top : window->menuBar()->actions()) {
        if (QMenu* menu = top->menu())
            addMenu(menu, plainText(menu->title()), &listed);
    }
    // Commands that work on a page without a menu entry (rating keys, Accept, Reject).
    for (QAction* action : window->findChildren<QAction*>()) {
        if (!listed.contains(action) && !action->shortcuts().isEmpty() &&
            !action->text().isEmpty()) {
            listed.append(action);
            addRow(tr("On its page"), action);
        }
    }
    // The players' keys are no actions: the player takes them while it has the focus.
    for (const VideoPlayerWidget::KeyBinding& binding : VideoPlayerWidget::keyBindings()) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, CommandColumn, new QTableWidgetItem(binding.what));
        m_table->setItem(row, ShortcutColumn, new QTableWidgetItem(binding.key));
        m_table->setItem(row, WhereColumn, new QTableWidgetItem(tr("In a video player")));
    }
    m_table->resizeColumnsToContents();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(620, 560);
}

QTableWidget* ShortcutsDialog::table() const {
    return m_table;
}

QString ShortcutsDialog::shortcutOf(const QString& command) const {
    for (int row = 0; row < m_table->rowCount(); ++row) {
        if (m_table->item(row, CommandColumn)->text() == command)
            return m_table->item(row, ShortcutColumn)->text();
    }
    return QString();
}

void ShortcutsDialog::addMenu(QMenu* menu, const QString& path, QList<QAction*>* listed) {
    for (QAction* action : menu->actions()) {
        if (QMenu* submenu = action->menu()) {
            addMenu(submenu, path + QStringLiteral(" › ") + plainText(submenu->title()), listed);
            continue;
        }
        if (action->isSeparator() || action->shortcuts().isEmpty() || listed->contains(action))
            continue;
        listed->append(action);
        addRow(path, action);
    }
}

void ShortcutsDialog::addRow(const QString& where, QAction* action) {
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, CommandColumn, new QTableWidgetItem(plainText(action->text())));
    m_table->setItem(row, ShortcutColumn, new QTableWidgetItem(shortcutText(action)));
    m_table->setItem(row, WhereColumn, new QTableWidgetItem(where));
}
