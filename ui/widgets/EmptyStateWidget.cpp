#include "ui/widgets/EmptyStateWidget.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace {

// Lines of body text read best at about 60 characters; wider windows get margins, not lines.
constexpr int kTextWidth = 480;

} // namespace

EmptyStateWidget::EmptyStateWidget(QWidget* parent)
    : QWidget(parent)
    , m_iconLabel(new QLabel(this))
    , m_titleLabel(new QLabel(this))
    , m_bodyLabel(new QLabel(this))
    , m_buttonRow(new QHBoxLayout) {
    m_iconLabel->setObjectName(QStringLiteral("emptyStateIcon"));
    m_iconLabel->setAlignment(Qt::AlignCenter);
    m_iconLabel->setFixedHeight(kIconSize + 8);
    m_iconLabel->hide();

    m_titleLabel->setObjectName(QStringLiteral("emptyStateTitle"));
    m_titleLabel->setAlignment(Qt::AlignCenter);
    m_titleLabel->setWordWrap(true);
    QFont titleFont = m_titleLabel->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.35);
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);

    m_bodyLabel->setObjectName(QStringLiteral("emptyStateBody"));
    m_bodyLabel->setAlignment(Qt::AlignCenter);
    m_bodyLabel->setWordWrap(true);
    m_bodyLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_buttonRow->setSpacing(12);
    m_buttonRow->addStretch();
    m_buttonRow->addStretch();

    auto* column = new QVBoxLayout;
    column->setSpacing(12);
    column->addWidget(m_iconLabel);
    column->addWidget(m_titleLabel);
    column->addWidget(m_bodyLabel);
    column->addSpacing(8);
    column->addLayout(m_buttonRow);

    auto* columnHolder = new QWidget(this);
    columnHolder->setMaximumWidth(kTextWidth);
    columnHolder->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    columnHolder->setLayout(column);

    // The column takes up to kTextWidth and stays centred; a word-wrapped label would otherwise
    // shrink it to its narrow size hint.
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(columnHolder, 100);
    row->addStretch(1);

    auto* outer = new QVBoxLayout(this);
    outer->addStretch(2);
    outer->addLayout(row);
    outer->addStretch(3);
}

void EmptyStateWidget::setIcon(const QIcon& icon) {
    m_icon = icon;
    m_iconLabel->setVisible(!icon.isNull());
    updateIconPixmap();
}

void EmptyStateWidget::setTitle(const QString& title) {
    m_titleLabel->setText(title);
}

QString EmptyStateWidget::title() const {
    return m_titleLabel->text();
}

void EmptyStateWidget::setBody(const QString& body) {
    m_bodyLabel->setText(body);
}

QString EmptyStateWidget::body() const {
    return m_bodyLabel->text();
}

QPushButton* EmptyStateWidget::addButton(const QString& objectName) {
    auto* button = new QPushButton(this);
    button->setObjectName(objectName);
    button->setMinimumWidth(140);
    if (m_buttons.isEmpty())
        button->setDefault(true);
    // Insert before the trailing stretch so the row stays centred.
    m_buttonRow->insertWidget(m_buttonRow->count() - 1, button);
    m_buttons.append(button);
    return button;
}

QList<QPushButton*> EmptyStateWidget::buttons() const {
    return m_buttons;
}

void EmptyStateWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        updateIconPixmap();
    QWidget::changeEvent(event);
}

void EmptyStateWidget::updateIconPixmap() {
    if (m_icon.isNull()) {
        m_iconLabel->clear();
        return;
    }
    m_iconLabel->setPixmap(m_icon.pixmap(QSize(kIconSize, kIconSize), devicePixelRatioF()));
}
