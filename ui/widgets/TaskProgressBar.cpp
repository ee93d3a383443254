#include "ui/widgets/TaskProgressBar.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace {

constexpr int kProgressWidth = 160;
constexpr int kLabelWidth = 280;

} // namespace

TaskProgressBar::TaskProgressBar(QWidget* parent)
    : QWidget(parent)
    , m_label(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancelButton(new QPushButton(this)) {
    m_label->setObjectName(QStringLiteral("taskLabel"));
    m_label->setTextFormat(Qt::PlainText);
    // Room for a step's words ("Measuring the demo clips' colours…") beside the project's path.
    m_label->setMinimumWidth(kLabelWidth);
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_progress->setObjectName(QStringLiteral("taskProgress"));
    m_progress->setFixedWidth(kProgressWidth);
    m_progress->setTextVisible(true);
    m_cancelButton->setObjectName(QStringLiteral("taskCancelButton"));
    connect(m_cancelButton, &QPushButton::clicked, this, &TaskProgressBar::cancelRequested);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 2);
    layout->setSpacing(8);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancelButton);
    retranslateUi();
    hide();
}

void TaskProgressBar::start(const QString& text) {
    m_active = true;
    setProgress(0, 0, text);
    m_cancelButton->setEnabled(true);
    show();
}

void TaskProgressBar::setProgress(int done, int total, const QString& text) {
    m_label->setText(text);
    m_label->setToolTip(text);
    // Work that goes on past its last counted part is busy, not a full bar that seems stuck.
    const bool counted = total > 0 && done < total;
    m_progress->setRange(0, counted ? total : 0);
    m_progress->setValue(counted ? qMax(0, done) : 0);
}

void TaskProgressBar::finish() {
    m_active = false;
    hide();
}

bool TaskProgressBar::isActive() const {
    return m_active;
}

QString TaskProgressBar::text() const {
    return m_label->text();
}

void TaskProgressBar::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void TaskProgressBar::retranslateUi() {
    m_cancelButton->setText(tr("Cancel"));
}
