#include "ui/RunControlBar.h"

#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

namespace {

QPushButton* makeButton(QWidget* parent, const char* objectName) {
    auto* button = new QPushButton(parent);
    button->setObjectName(QString::fromLatin1(objectName));
    return button;
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
    , m_exportButton(makeButton(this, "exportRunButton"))
    , m_tensorBoardButton(makeButton(this, "tensorBoardButton")) {
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
    // Two rows, so the page still fits a small window.
    auto* buttons = new QGridLayout;
    const QList<QPushButton*> ordered{m_stopButton,   m_pauseButton, m_continueButton,
                                      m_sampleButton, m_saveButton,  m_exportButton};
    for (int index = 0; index < ordered.size(); ++index)
        buttons->addWidget(ordered.at(index), index / 3, index % 3);
    buttons->addWidget(m_tensorBoardButton, 1, 3);
    buttons->setColumnStretch(4, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_progress);
    layout->addLayout(buttons);

    connect(m_stopButton, &QPushButton::clicked, this, &RunControlBar::stopRequested);
    connect(m_pauseButton, &QPushButton::clicked, this, [this] {
        if (m_state == RunState::Paused)
            emit resumeRequested();
        else
            emit pauseRequested();
    });
    connect(m_sampleButton, &QPushButton::clicked, this, &RunControlBar::sampleNowRequested);
    connect(m_saveButton, &QPushButton::clicked, this, &RunControlBar::saveNowRequested);
    connect(m_continueButton, &QPushButton::clicked, this, &RunControlBar::continueRequested);
    connect(m_exportButton, &QPushButton::clicked, this, &RunControlBar::exportRequested);
    connect(m_tensorBoardButton, &QPushButton::clicked, this, &RunControlBar::tensorBoardRequested);
    retranslateUi();
    clearRun();
}

void RunControlBar::clearRun() {
    m_hasRun = false;
    m_name.clear();
    m_state = RunState::None;
    m_done = m_total = 0;
    m_etaSeconds = -1;
    m_canSample = m_canExport = false;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    retranslateUi();
}

void RunControlBar::setRun(const QString& name, RunState state) {
    m_hasRun = true;
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
    m_exportButton->setText(tr("Export…"));
    m_tensorBoardButton->setText(tr("Open in TensorBoard…"));
    m_tensorBoardButton->setToolTip(
        tr("Show the command that opens this run's event files in TensorBoard."));
    updateProgressText();
    updateButtons();
}

void RunControlBar::updateButtons() {
    const bool training = m_state == RunState::Training || m_state == RunState::Validating ||
                          m_state == RunState::Paused;
    m_stopButton->setEnabled(
        m_hasRun && (training || m_state == RunState::Preparing || m_state == RunState::Queued));
    m_pauseButton->setEnabled(m_hasRun && training && m_state != RunState::Validating);
    m_sampleButton->setEnabled(m_hasRun && m_canSample && m_state == RunState::Training);
    m_saveButton->setEnabled(m_hasRun && m_state == RunState::Training);
    m_continueButton->setEnabled(m_hasRun &&
                                 (m_state == RunState::Stopped || m_state == RunState::Failed));
    m_exportButton->setEnabled(m_hasRun && m_canExport);
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
    m_etaLabel->setText(isActiveRunState(m_state) && !eta.isEmpty() ? tr("About %1 left").arg(eta)
                                                                    : QString());
}
