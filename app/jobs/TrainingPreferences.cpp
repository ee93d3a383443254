#include "app/jobs/TrainingPreferences.h"

#include "app/project/Project.h"
#include "app/project/ProjectSchema.h"
#include "app/project/SqlTransaction.h"

#include <QJsonDocument>

namespace {

const QString kPresetKey = QStringLiteral("train.preset");
const QString kFormKey = QStringLiteral("train.form");

} // namespace

TrainingPreferences::TrainingPreferences(const Project& project)
    : m_project(project) {}

QString TrainingPreferences::presetId() const {
    return ProjectSchema::metaValue(m_project.database(), kPresetKey);
}

QJsonObject TrainingPreferences::formState() const {
    const QString text = ProjectSchema::metaValue(m_project.database(), kFormKey);
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

bool TrainingPreferences::setPresetId(const QString& presetId, QString* error) {
    QSqlDatabase database = m_project.database();
    QString detail;
    if (ProjectSchema::setMetaValue(database, kPresetKey, presetId, &detail))
        return true;
    if (error)
        *error = failureMessage(detail);
    return false;
}

bool TrainingPreferences::save(const QString& presetId, const QJsonObject& formState,
                               QString* error) {
    QSqlDatabase database = m_project.database();
    SqlTransaction transaction(database);
    QString detail;
    const QString form = QString::fromUtf8(QJsonDocument(formState).toJson(QJsonDocument::Compact));
    const bool written = transaction.isActive() &&
                         ProjectSchema::setMetaValue(database, kPresetKey, presetId, &detail) &&
                         ProjectSchema::setMetaValue(database, kFormKey, form, &detail);
    if (written && transaction.commit())
        return true;
    if (error)
        *error = failureMessage(detail.isEmpty() ? transaction.error() : detail);
    return false;
}

QString TrainingPreferences::failureMessage(const QString& detail) const {
    return tr("Could not save the training settings in “%1”: %2. Check that the project "
              "folder is writable and the disk is not full.")
        .arg(m_project.databasePath(), detail);
}
