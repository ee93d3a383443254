#include "ui/window/ReadOnlyBanner.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

ReadOnlyBanner::ReadOnlyBanner(QWidget* parent)
    : QFrame(parent)
    , m_label(new QLabel(this))
    , m_tryAgainButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("readOnlyBanner"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::ToolTipBase);
    m_label->setObjectName(QStringLiteral("readOnlyReasonLabel"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tryAgainButton->setObjectName(QStringLiteral("readOnlyTryAgainButton"));
    connect(m_tryAgainButton, &QPushButton::clicked, this, &ReadOnlyBanner::tryAgainRequested);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_tryAgainButton, 0, Qt::AlignVCenter);
    retranslateUi();
    hide();
}

void ReadOnlyBanner::setReason(const QString& reason) {
    m_label->setText(reason);
    setVisible(!reason.isEmpty());
}

void ReadOnlyBanner::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QFrame::changeEvent(event);
}

void ReadOnlyBanner::retranslateUi() {
    m_tryAgainButton->setText(tr("Try Again"));
    m_tryAgainButton->setToolTip(
        tr("Open the project again here, able to change it, if the other studio has let go."));
}
