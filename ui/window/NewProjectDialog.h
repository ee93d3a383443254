#pragma once

#include <QDialog>

#include <memory>

class Project;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class Settings;

// Asks for a project name and the folder to create it in, checks both as the user types, and
// on Create makes the project with Project::create. The new folder is <location>/<name>.
class NewProjectDialog : public QDialog {
    Q_OBJECT

public:
    explicit NewProjectDialog(Settings* settings, QWidget* parent = nullptr);
    ~NewProjectDialog() override;

    QString projectName() const;
    void setProjectName(const QString& name);
    QString location() const;
    void setLocation(const QString& folder);
    // Where the project will be created: location()/projectName().
    QString projectFolder() const;
    // Why Create is disabled; empty when the input is valid.
    QString validationProblem() const;
    // The project made by accept(); null before that, and after the first call.
    std::unique_ptr<Project> takeProject();

public slots:
    void accept() override;

protected:
    void changeEvent(QEvent* event) override;

private slots:
    void onInputChanged();
    void onBrowseClicked();

private:
    void retranslateUi();
    void updateValidation();
    QString findProblem() const;

    Settings* m_settings;
    std::unique_ptr<Project> m_project;
    QLabel* m_introLabel;
    QLabel* m_nameLabel;
    QLineEdit* m_nameEdit;
    QLabel* m_locationLabel;
    QLineEdit* m_locationEdit;
    QPushButton* m_browseButton;
    QLabel* m_folderLabel;
    QLabel* m_problemLabel;
    QDialogButtonBox* m_buttons;
    QPushButton* m_createButton;
    // Set when Create failed; cleared by the next edit.
    QString m_createError;
};
