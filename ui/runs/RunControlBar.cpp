#include "ui/runs/RunControlBar.h"

#include <QAction>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace {

QPushButton* makeButton(QWidget* parent, const char* objectName) {
    auto* button = new QPushButton(parent);
    button->setObjectName(QString::fromLatin1(objectName));
    return button;
}

QAction* makeAction(QObject* parent, const char* objectName, const QKeySequence& shortcut) {
    auto* action = new QAction(parent);
    action->setObjectName(QString::fromLatin1(objectName));
    action->setShortcut(shortcut);
    return action;
}

// The button runs its action, so a click and the Run menu take the same path.
void bindButton(QPushButton* button, QAction* action) {
    QObject::connect(button, &QPushButton::clicked, action, &QAction::trigger);
}

} // namespace

RunControlBar::RunControlBar(QWidget* parent)
    : QWidget(parent)
    , m_nameLabel(new QLabel(this))
    , m_stateLabel(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_etaLabel(new QLabel(this))
    , m_stopButton(makeButton(this, "stopRunButton"))
    , m_pauseButton(makeButton(this, "pauseRunButton"))
    , m_sampleButton(makeButton(this, "sampleNowButton"))
    , m_saveButton(makeButton(this, "saveNowButton"))
    , m_continueButton(makeButton(this, "continueRunButton"))
    , m_editButton(makeButton(this, "editRunButton"))
    , m_exportButton(makeButton(this, "exportRunButton"))
    , m_tensorBoardButton(makeButton(this, "tensorBoardButton"))
    , m_stopAction(makeAction(this, "stopRunAction", QKeySequence(Qt::CTRL | Qt::Key_Period)))
    , m_pauseAction(
          makeAction(this, "pauseRunAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P)))
    , m_continueAction(
          makeAction(this, "continueRunAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R)))
    , m_sampleAction(
          makeAction(this, "sampleNowAction", QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_S)))
    , m_saveAction(
          makeAction(this, "saveNowAction", QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C))) {
    setObjectName(QStringLiteral("runControlBar"));
    m_nameLabel->setObjectName(QStringLiteral("runNameLabel"));
    QFont nameFont = m_nameLabel->font();
    nameFont.setBold(true);
    m_nameLabel->setFont(nameFont);
    m_stateLabel->setObjectName(QStringLiteral("runStateLabel"));
    m_progress->setObjectName(QStringLiteral("runProgress"));
    m_etaLabel->setObjectName(QStringLiteral("runEtaLabel"));
    m_etaLabel->setForegroundRole(QPalette::PlaceholderText);

    auto* top = new QHBoxLayout;
    top->addWidget(m_nameLabel);
    top->addWidget(m_stateLabel);
    top->addStretch(1);
    top->addWidget(m_etaLabel);
    // Rows of equal columns, as many columns as fit whole buttons (resizeEvent), so a laptop's
    // narrow column shows every button's text.
    m_buttons = new QGridLayout;
    m_buttons->setHorizontalSpacing(4);
    for (QPushButton* button : orderedButtons())
        button->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_editButton->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_editButton->hide();
    arrangeButtons(4);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_progress);
    layout->addLayout(m_buttons);

    bindButton(m_stopButton, m_stopAction);
    bindButton(m_pauseButton, m_pauseAction);
    bindButton(m_continueButton, m_continueAction);
    bindButton(m_sampleButton, m_sampleAction);
    bindButton(m_saveButton, m_saveAction);
    // A shortcut can fire after the state changed under it: each action checks again.
    connect(m_stopAction, &QAction::triggered, this, [this] {
        if (m_stopAction->isEnabled())
            emit stopRequested();
    });
    connect(m_pauseAction, &QAction::triggered, this, [this] {
        if (!m_pauseAction->isEnabled())
            return;
        if (m_state == RunState::Paused)
            emit resumeRequested();
        else
            emit pauseRequested();
    });
    connect(m_continueAction, &QAction::triggered, this, [this] {
        if (m_continueAction->isEnabled())
            emit continueRequested();
    });
    connect(m_sampleAction, &QAction::triggered, this, [this] {
        if (m_sampleAction->isEnabled())
            emit sampleNowRequested();
    });
    connect(m_saveAction, &QAction::triggered, this, [this] {
        if (m_saveAction->isEnabled())
            emit saveNowRequested();
    });
    connect(m_editButton, &QPushButton::clicked, this, &RunControlBar::editRequested);
    connect(m_exportButton, &QPushButton::clicked, this, &RunControlBar::exportRequested);
    connect(m_tensorBoardButton, &QPushButton::clicked, this, &RunControlBar::tensorBoardRequested);
    retranslateUi();
    clearRun();
}

QList<QPushButton*> RunControlBar::orderedButtons() const {
    return {m_stopButton, m_pauseButton,  m_continueButton,   m_sampleButton,
            m_saveButton, m_exportButton, m_tensorBoardButton};
}

void RunControlBar::arrangeButtons(int columns) {
    if (columns == m_columns)
        return;
    m_columns = columns;
    const QList<QPushButton*> ordered = orderedButtons();
    for (QPushButton* button : ordered)
        m_buttons->removeWidget(button);
    m_buttons->removeWidget(m_editButton);
    for (int index = 0; index < ordered.size(); ++index)
        m_buttons->addWidget(ordered.at(index), index / columns, index % columns);
    // Shown instead of Continue, in its place.
    m_buttons->addWidget(m_editButton, 2 / columns, 2 % columns);
    for (int column = 0; column < ordered.size(); ++column)
        m_buttons->setColumnStretch(column, column < columns ? 1 : 0);
}

void RunControlBar::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    int widest = m_editButton->sizeHint().width();
    for (const QPushButton* button : orderedButtons())
        widest = std::max(widest, button->sizeHint().width());
    const int spacing = std::max(0, m_buttons->horizontalSpacing());
    const int fit = (width() + spacing) / (widest + spacing);
    arrangeButtons(std::clamp(fit, 2, 4));
}

void RunControlBar::clearRun() {
    m_hasRun = false;
    m_name.clear();
    m_state = RunState::None;
    m_done = m_total = 0;
    m_etaSeconds = -1;
    m_canSample = m_canExport = false;
    m_canContinue = true;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    retranslateUi();
}

void RunControlBar::setRun(const QString& name, RunState state) {
    m_hasRun = true;
    m_canContinue = true;
    m_name = name;
    m_done = m_total = 0;
    m_etaSeconds = -1;
    m_unit.clear();
    setState(state);
}

void RunControlBar::setState(RunState state) {
    m_state = state;
    if (state == RunState::Finished && m_total > 0)
        m_done = m_total;
    retranslateUi();
}

RunState RunControlBar::state() const {
    return m_state;
}

void RunControlBar::setProgress(qint64 done, qint64 total, double etaSeconds, const QString& unit) {
    m_done = done;
    m_total = total;
    m_etaSeconds = etaSeconds;
    m_unit = unit;
    updateProgressText();
}

void RunControlBar::setCanSample(bool canSample) {
    m_canSample = canSample;
    updateButtons();
}

void RunControlBar::setCanExport(bool canExport) {
    m_canExport = canExport;
    updateButtons();
}

void RunControlBar::setCanContinue(bool canContinue) {
    m_canContinue = canContinue;
    updateButtons();
}

QList<QAction*> RunControlBar::runActions() const {
    return {m_stopAction, m_pauseAction, m_continueAction, m_sampleAction, m_saveAction};
}

QString RunControlBar::formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return QString();
    const qint64 total = std::llround(seconds);
    const qint64 hours = total / 3600;
    const qint64 minutes = (total % 3600) / 60;
    const qint64 rest = total % 60;
    if (hours > 0)
        return tr("%1 h %2 min").arg(hours).arg(minutes);
    if (minutes > 0)
        return tr("%1 min %2 s").arg(minutes).arg(rest);
    return tr("%1 s").arg(rest);
}

void RunControlBar::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void RunControlBar::retranslateUi() {
    m_nameLabel->setText(m_hasRun ? m_name : tr("No run selected"));
    m_stateLabel->setText(m_hasRun ? RunStateText::display(m_state) : QString());
    m_stopButton->setText(tr("Stop"));
    m_stopButton->setToolTip(tr("Write a checkpoint, then end the run. Continue picks it up."));
    m_pauseButton->setText(m_state == RunState::Paused ? tr("Resume") : tr("Pause"));
    m_pauseButton->setToolTip(tr("Hold training between steps, keeping the model in memory."));
    m_sampleButton->setText(tr("Sample Now"));
    m_sampleButton->setToolTip(tr("Render the validation prompts with the weights as they are."));
    m_saveButton->setText(tr("Save Now"));
    m_saveButton->setToolTip(tr("Write a checkpoint now and keep training."));
    m_continueButton->setText(tr("Continue"));
    m_continueButton->setToolTip(tr("Start the engine again on this run; it resumes from the "
                                    "newest checkpoint."));
    m_editButton->setText(tr("Edit Settings…"));
    m_editButton->setToolTip(tr("The run stopped on its settings before its first step, so "
                                "continuing would fail the same way. Put its settings in the "
                                "new-run form to fix them and train again."));
    m_stopAction->setText(tr("&Stop"));
    m_pauseAction->setText(m_state == RunState::Paused ? tr("&Resume") : tr("&Pause"));
    m_continueAction->setText(tr("&Continue"));
    m_sampleAction->setText(tr("Sample &Now"));
    m_saveAction->setText(tr("Sa&ve Checkpoint Now"));
    for (QAction* action : runActions()) {
        QString tip = action->text().remove(QLatin1Char('&'));
        if (!action->shortcut().isEmpty())
            tip +=
                QStringLiteral(" (%1)").arg(action->shortcut().toString(QKeySequence::NativeText));
        action->setToolTip(tip);
    }
    m_exportButton->setText(tr("Export…"));
    m_tensorBoardButton->setText(tr("TensorBoard…"));
    m_tensorBoardButton->setToolTip(
        tr("Show the command that opens this run's event files in TensorBoard."));
    updateProgressText();
    updateButtons();
}

void RunControlBar::setReadOnly(bool readOnly) {
    m_readOnly = readOnly;
    updateButtons();
}

void RunControlBar::updateButtons() {
    const bool training = m_state == RunState::Training || m_state == RunState::Validating ||
                          m_state == RunState::Paused;
    const bool ended = m_state == RunState::Stopped || m_state == RunState::Failed;
    const bool mustEdit = m_hasRun && m_state == RunState::Failed && !m_canContinue;
    const bool acts = m_hasRun && !m_readOnly;
    m_stopAction->setEnabled(
        acts && (training || m_state == RunState::Preparing || m_state == RunState::Queued));
    m_pauseAction->setEnabled(acts && training && m_state != RunState::Validating);
    // A paused engine still validates and writes checkpoints between its steps.
    const bool between = m_state == RunState::Training || m_state == RunState::Paused;
    m_sampleAction->setEnabled(acts && m_canSample && between);
    m_saveAction->setEnabled(acts && between);
    m_continueAction->setEnabled(acts && ended && !mustEdit);
    m_stopButton->setEnabled(m_stopAction->isEnabled());
    m_pauseButton->setEnabled(m_pauseAction->isEnabled());
    m_sampleButton->setEnabled(m_sampleAction->isEnabled());
    m_saveButton->setEnabled(m_saveAction->isEnabled());
    m_continueButton->setEnabled(m_continueAction->isEnabled());
    m_continueButton->setVisible(!mustEdit);
    m_editButton->setVisible(mustEdit);
    m_editButton->setEnabled(!m_readOnly);
    m_exportButton->setEnabled(acts && m_canExport);
    m_tensorBoardButton->setEnabled(m_hasRun);
}

// The protocol's units are singular nouns ("clip", "caption", "step"); a person reads
// "2 of 8 clips".
QString RunControlBar::progressText(qint64 done, qint64 total, const QString& unit) {
    if (unit == QLatin1String("clip"))
        return total == 1 ? tr("%1 of 1 clip").arg(done)
                          : tr("%1 of %2 clips").arg(done).arg(total);
    if (unit == QLatin1String("caption"))
        return total == 1 ? tr("%1 of 1 caption").arg(done)
                          : tr("%1 of %2 captions").arg(done).arg(total);
    if (unit == QLatin1String("step"))
        return tr("Step %1 of %2").arg(done).arg(total);
    if (unit == QLatin1String("run"))
        return tr("Run %1 of %2").arg(done).arg(total);
    if (unit == QLatin1String("frame"))
        return tr("Frame %1 of %2").arg(done).arg(total);
    return tr("%1 of %2 %3").arg(done).arg(total).arg(unit);
}

void RunControlBar::updateProgressText() {
    const bool busy = isActiveRunState(m_state) && m_total <= 0;
    if (busy) {
        m_progress->setRange(0, 0);
    } else {
        m_progress->setRange(0, static_cast<int>(qMax<qint64>(1, m_total)));
        m_progress->setValue(static_cast<int>(qBound<qint64>(0, m_done, qMax<qint64>(1, m_total))));
    }
    m_progress->setFormat(m_total > 0 ? progressText(m_done, m_total, m_unit) : QString());
    const QString eta = formatDuration(m_etaSeconds);
    if (!isActiveRunState(m_state) || eta.isEmpty())
        m_etaLabel->clear();
    else if (m_state == RunState::Paused)
        m_etaLabel->setText(tr("Paused; about %1 left once resumed").arg(eta));
    else
        m_etaLabel->setText(tr("About %1 left").arg(eta));
}
