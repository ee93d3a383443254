#include "ui/runs/RunFailurePanel.h"

#include <QEvent>
#include <QFontDatabase>
#include <QFrame>
#include <QLabel>
#include <QPlainTextEdit>
#include <QToolButton>
#include <QVBoxLayout>

RunFailurePanel::RunFailurePanel(QWidget* parent)
    : QWidget(parent)
    , m_titleLabel(new QLabel(this))
    , m_messageLabel(new QLabel(this))
    , m_hintLabel(new QLabel(this))
    , m_detailsButton(new QToolButton(this))
    , m_lastLines(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("runFailurePanel"));
    m_titleLabel->setObjectName(QStringLiteral("failureTitle"));
    QFont titleFont = m_titleLabel->font();
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);
    m_messageLabel->setObjectName(QStringLiteral("failureMessage"));
    m_hintLabel->setObjectName(QStringLiteral("failureHint"));
    for (QLabel* label : {m_messageLabel, m_hintLabel}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_detailsButton->setObjectName(QStringLiteral("failureDetailsButton"));
    m_detailsButton->setCheckable(true);
    m_detailsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_detailsButton->setArrowType(Qt::RightArrow);
    m_lastLines->setObjectName(QStringLiteral("failureLastLines"));
    m_lastLines->setReadOnly(true);
    m_lastLines->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_lastLines->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_lastLines->setMaximumHeight(160);
    m_lastLines->hide();
    connect(m_detailsButton, &QToolButton::toggled, this, [this](bool shown) {
        m_lastLines->setVisible(shown);
        m_detailsButton->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    });

    auto* frame = new QFrame(this);
    frame->setFrameShape(QFrame::StyledPanel);
    auto* inner = new QVBoxLayout(frame);
    inner->addWidget(m_titleLabel);
    inner->addWidget(m_messageLabel);
    inner->addWidget(m_hintLabel);
    inner->addWidget(m_detailsButton);
    inner->addWidget(m_lastLines);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(frame);
    retranslateUi();
    hide();
}

void RunFailurePanel::showFailure(const QString& message, const QString& hint,
                                  const QStringList& lastLines) {
    m_message = message;
    m_hint = hint;
    m_messageLabel->setText(message);
    m_lastLines->setPlainText(lastLines.join(QLatin1Char('\n')));
    m_detailsButton->setVisible(!lastLines.isEmpty());
    retranslateUi();
    show();
}

void RunFailurePanel::clearFailure() {
    m_message.clear();
    m_hint.clear();
    m_lastLines->clear();
    hide();
}

QString RunFailurePanel::message() const {
    return m_message;
}

QString RunFailurePanel::hint() const {
    return m_hint;
}

void RunFailurePanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void RunFailurePanel::retranslateUi() {
    m_titleLabel->setText(tr("This run failed"));
    m_hintLabel->setText(m_hint.isEmpty() ? QString() : tr("What to do: %1").arg(m_hint));
    m_hintLabel->setVisible(!m_hint.isEmpty());
    m_detailsButton->setText(tr("Last lines from the engine"));
}
