#include "ui/window/StudioPage.h"

#include "app/project/Project.h"
#include "ui/widgets/EmptyStateWidget.h"

#include <QEvent>
#include <QFrame>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

StudioPage::StudioPage(QWidget* parent)
    : QWidget(parent)
    , m_titleLabel(new QLabel(this))
    , m_subtitleLabel(new QLabel(this))
    , m_stack(new QStackedWidget(this))
    , m_noProjectState(new EmptyStateWidget(this)) {
    m_titleLabel->setObjectName(QStringLiteral("pageTitle"));
    QFont titleFont = m_titleLabel->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);

    m_subtitleLabel->setObjectName(QStringLiteral("pageSubtitle"));
    m_subtitleLabel->setForegroundRole(QPalette::PlaceholderText);

    auto* rule = new QFrame(this);
    rule->setFrameShape(QFrame::HLine);
    rule->setFrameShadow(QFrame::Sunken);

    m_noProjectState->setObjectName(QStringLiteral("noProjectState"));
    m_noProjectState->setIcon(QIcon(QStringLiteral(":/icons/project.svg")));
    m_newProjectButton = m_noProjectState->addButton(QStringLiteral("newProjectButton"));
    m_openProjectButton = m_noProjectState->addButton(QStringLiteral("openProjectButton"));
    connect(m_newProjectButton, &QPushButton::clicked, this, &StudioPage::newProjectRequested);
    connect(m_openProjectButton, &QPushButton::clicked, this, &StudioPage::openProjectRequested);
    m_stack->setObjectName(QStringLiteral("pageStates"));
    m_stack->addWidget(m_noProjectState);

    auto* layout = new QVBoxLayout(this);
    // Tight at the top and bottom: a laptop's window has little height to spare for a header.
    layout->setContentsMargins(24, 12, 24, 12);
    layout->setSpacing(4);
    layout->addWidget(m_titleLabel);
    layout->addWidget(m_subtitleLabel);
    layout->addSpacing(6);
    layout->addWidget(rule);
    layout->addWidget(m_stack, 1);

    StudioPage::retranslateUi();
}

void StudioPage::setProject(const std::shared_ptr<Project>& project) {
    m_project = project;
    updateVisibleState();
    onProjectChanged();
}

bool StudioPage::isReadOnly() const {
    return m_project && m_project->isReadOnly();
}

std::shared_ptr<Project> StudioPage::project() const {
    return m_project;
}

void StudioPage::setProjectContent(QWidget* content) {
    if (m_projectContent) {
        m_stack->removeWidget(m_projectContent);
        m_projectContent->deleteLater();
    }
    m_projectContent = content;
    m_stack->addWidget(content);
    updateVisibleState();
}

void StudioPage::setHeader(const QString& title, const QString& subtitle) {
    m_titleLabel->setText(title);
    m_subtitleLabel->setText(subtitle);
}

void StudioPage::retranslateUi() {
    m_noProjectState->setTitle(tr("No project open"));
    m_noProjectState->setBody(
        tr("A project is a folder that holds your clips, captions and training runs. Create a "
           "new project, or open one you made before."));
    m_newProjectButton->setText(tr("New Project…"));
    m_openProjectButton->setText(tr("Open Project…"));
}

void StudioPage::onProjectChanged() {}

void StudioPage::projectChangedElsewhere() {
    if (m_project)
        onProjectChangedElsewhere();
}

void StudioPage::onProjectChangedElsewhere() {}

void StudioPage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void StudioPage::updateVisibleState() {
    if (m_project && m_projectContent)
        m_stack->setCurrentWidget(m_projectContent);
    else
        m_stack->setCurrentWidget(m_noProjectState);
}
