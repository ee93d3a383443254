#include "ui/widgets/TaskProgressBar.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace {

constexpr int kProgressWidth = 220;

} // namespace

TaskProgressBar::TaskProgressBar(QWidget* parent)
    : QWidget(parent)
    , m_label(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancelButton(new QPushButton(this)) {
    m_label->setObjectName(QStringLiteral("taskLabel"));
    m_label->setTextFormat(Qt::PlainText);
    m_label->setMinimumWidth(120);
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
    m_progress->setRange(0, qMax(total, 0));
    m_progress->setValue(total > 0 ? qBound(0, done, total) : 0);
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
