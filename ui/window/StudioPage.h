#pragma once

#include <QWidget>

#include <memory>

class EmptyStateWidget;
class Project;
class QLabel;
class QPushButton;
class QStackedWidget;

// What every page of the main window shares: a header (title and one-line subtitle), the
// "no project open" state with buttons to create or open one, and the page's own content,
// shown while a project is open.
class StudioPage : public QWidget {
    Q_OBJECT

public:
    explicit StudioPage(QWidget* parent = nullptr);

    void setProject(const std::shared_ptr<Project>& project);
    std::shared_ptr<Project> project() const;
    // Whether the open project is another studio's (Project::isReadOnly): the page shows it
    // and offers nothing that would change it.
    bool isReadOnly() const;
    // The studio holding a read-only project committed changes to it: the page shows them.
    void projectChangedElsewhere();

signals:
    void newProjectRequested();
    void openProjectRequested();

protected:
    // The widget shown while a project is open; the page keeps ownership through Qt parenting.
    void setProjectContent(QWidget* content);
    void setHeader(const QString& title, const QString& subtitle);
    // Sets every user-visible string; overrides call StudioPage::retranslateUi() first.
    virtual void retranslateUi();
    // Called after the project changed, so the page can refresh its content (and what it
    // offers, by isReadOnly()).
    virtual void onProjectChanged();
    // What projectChangedElsewhere() rereads; nothing by default.
    virtual void onProjectChangedElsewhere();
    void changeEvent(QEvent* event) override;

private:
    void updateVisibleState();

    std::shared_ptr<Project> m_project;
    QLabel* m_titleLabel;
    QLabel* m_subtitleLabel;
    QStackedWidget* m_stack;
    EmptyStateWidget* m_noProjectState;
    QPushButton* m_newProjectButton;
    QPushButton* m_openProjectButton;
    QWidget* m_projectContent = nullptr;
};
