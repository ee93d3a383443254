#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>

class Project;

// The Train page's form as the user left it: the chosen preset and the form's values (a job
// without validation images, plus the model folder and the CPU process count). Kept in the
// project's meta table rather than in the studio's settings, so each project reopens on its
// own preset and values, and the folder carries them to another machine.
// Uses the calling thread's connection.
class TrainingPreferences {
    Q_DECLARE_TR_FUNCTIONS(TrainingPreferences)

public:
    explicit TrainingPreferences(const Project& project);

    // Empty until a preset was chosen (or the demo project named its own).
    QString presetId() const;
    // Empty until the form was saved once; an unreadable stored text reads as empty too.
    QJsonObject formState() const;
    bool setPresetId(const QString& presetId, QString* error);
    // Both at once, in one transaction.
    bool save(const QString& presetId, const QJsonObject& formState, QString* error);

private:
    QString failureMessage(const QString& detail) const;

    const Project& m_project;
};
