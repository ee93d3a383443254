#pragma once

#include <QDialog>

class EngineVersionCheck;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;
class Settings;

// Edit → Preferences: the language the studio speaks (applied at once, no restart), the
// tuneframe-engine to run (checked with --version as it is typed or browsed to) and the folder
// new projects go in. OK stores them in Settings; an empty engine path means "find it
// automatically", and the dialog shows which one that finds.
class PreferencesDialog : public QDialog {
    Q_OBJECT

public:
    explicit PreferencesDialog(Settings* settings, QWidget* parent = nullptr);

    // The engine found without a preference (EngineLocator), shown as the placeholder.
    void setAutomaticEnginePath(const QString& path);
    // What the check said last; empty while it runs.
    QString engineCheckText() const;
    bool isEngineCheckRunning() const;

public slots:
    void accept() override;

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void growToFit();
    void scheduleCheck();
    void checkEngine();
    void browseForEngine();
    void browseForProjectFolder();
    QString effectiveEnginePath() const;

    Settings* m_settings;
    QString m_automaticEnginePath;
    EngineVersionCheck* m_check;
    QTimer* m_checkDelay;
    QLabel* m_languageLabel;
    QComboBox* m_languageCombo;
    QLabel* m_engineLabel;
    QLineEdit* m_engineEdit;
    QPushButton* m_engineBrowse;
    QLabel* m_engineStatus;
    QLabel* m_projectLabel;
    QLineEdit* m_projectEdit;
    QPushButton* m_projectBrowse;
    QDialogButtonBox* m_buttons;
};
