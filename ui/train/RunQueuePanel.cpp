#include "ui/train/RunQueuePanel.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

RunQueuePanel::RunQueuePanel(QWidget* parent)
    : QWidget(parent)
    , m_titleLabel(new QLabel(this))
    , m_list(new QListWidget(this))
    , m_upButton(new QPushButton(this))
    , m_downButton(new QPushButton(this))
    , m_removeButton(new QPushButton(this))
    , m_startButton(new QPushButton(this))
    , m_continueCheck(new QCheckBox(this)) {
    setObjectName(QStringLiteral("runQueuePanel"));
    m_list->setObjectName(QStringLiteral("queueList"));
    m_upButton->setObjectName(QStringLiteral("queueUpButton"));
    m_downButton->setObjectName(QStringLiteral("queueDownButton"));
    m_removeButton->setObjectName(QStringLiteral("queueRemoveButton"));
    m_startButton->setObjectName(QStringLiteral("queueStartButton"));
    m_continueCheck->setObjectName(QStringLiteral("queueContinueCheck"));
    QFont titleFont = m_titleLabel->font();
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_upButton);
    buttons->addWidget(m_downButton);
    buttons->addWidget(m_removeButton);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_titleLabel);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);
    layout->addWidget(m_startButton);
    layout->addWidget(m_continueCheck);

    connect(m_list, &QListWidget::currentRowChanged, this, &RunQueuePanel::updateButtons);
    connect(m_upButton, &QPushButton::clicked, this, [this] {
        if (const qint64 id = selectedRunId())
            emit moveRequested(id, -1);
    });
    connect(m_downButton, &QPushButton::clicked, this, [this] {
        if (const qint64 id = selectedRunId())
            emit moveRequested(id, 1);
    });
    connect(m_removeButton, &QPushButton::clicked, this, [this] {
        if (const qint64 id = selectedRunId())
            emit removeRequested(id);
    });
    connect(m_startButton, &QPushButton::clicked, this, [this] {
        if (m_running)
            emit holdRequested();
        else
            emit startRequested();
    });
    connect(m_continueCheck, &QCheckBox::toggled, this, &RunQueuePanel::continuePastFailureChanged);
    retranslateUi();
}

void RunQueuePanel::setEntries(const QVector<Entry>& entries) {
    const qint64 selected = selectedRunId();
    m_entries = entries;
    m_list->clear();
    for (const Entry& entry : entries) {
        auto* item = new QListWidgetItem(m_list);
        item->setData(Qt::UserRole, entry.runId);
        if (entry.runId == selected)
            m_list->setCurrentItem(item);
    }
    retranslateUi();
}

QVector<qint64> RunQueuePanel::runIds() const {
    QVector<qint64> ids;
    for (const Entry& entry : m_entries)
        ids.append(entry.runId);
    return ids;
}

void RunQueuePanel::setRunning(bool running) {
    m_running = running;
    retranslateUi();
}

bool RunQueuePanel::isRunning() const {
    return m_running;
}

void RunQueuePanel::setContinuePastFailure(bool enabled) {
    const QSignalBlocker blocker(m_continueCheck);
    m_continueCheck->setChecked(enabled);
}

bool RunQueuePanel::continuePastFailure() const {
    return m_continueCheck->isChecked();
}

void RunQueuePanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void RunQueuePanel::retranslateUi() {
    m_titleLabel->setText(tr("Queue"));
    for (int row = 0; row < m_list->count() && row < m_entries.size(); ++row) {
        const Entry& entry = m_entries.at(row);
        m_list->item(row)->setText(
            tr("%1. %2 (%3)").arg(row + 1).arg(entry.name, RunStateText::display(entry.state)));
    }
    m_upButton->setText(tr("Up"));
    m_downButton->setText(tr("Down"));
    m_removeButton->setText(tr("Remove"));
    m_startButton->setText(m_running ? tr("Hold Queue") : tr("Start Queue"));
    m_startButton->setToolTip(m_running ? tr("Let the current run finish, then start no more.")
                                        : tr("Run the queued jobs one after another."));
    m_continueCheck->setText(tr("Continue past a failed run"));
    updateButtons();
}

void RunQueuePanel::setReadOnly(bool readOnly) {
    m_readOnly = readOnly;
    updateButtons();
}

void RunQueuePanel::updateButtons() {
    const int row = m_list->currentRow();
    const bool selected = !m_readOnly && row >= 0 && row < m_entries.size();
    m_upButton->setEnabled(selected && row > 0);
    m_downButton->setEnabled(selected && row + 1 < m_entries.size());
    m_removeButton->setEnabled(selected);
    m_startButton->setEnabled(!m_readOnly && (m_running || !m_entries.isEmpty()));
    m_continueCheck->setEnabled(!m_readOnly);
}

qint64 RunQueuePanel::selectedRunId() const {
    const QListWidgetItem* item = m_list->currentItem();
    return item ? item->data(Qt::UserRole).toLongLong() : 0;
}
