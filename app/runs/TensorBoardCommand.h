#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

// How to look at a run in TensorBoard: the engine writes its event files to
// `<run>/tensorboard/`, and `tensorboard --logdir` on that folder serves them on port 6006.
class TensorBoardCommand {
public:
    explicit TensorBoardCommand(const QString& runFolder);

    QString logDirectory() const;
    QStringList arguments() const;
    // The command as a shell line, the folder quoted when it needs to be.
    QString commandLine() const;
    // Where TensorBoard serves by default.
    static QUrl url();

    // The `tensorboard` executable on PATH; empty when it is not installed.
    static QString findProgram();
    // Starts `program` detached (it outlives the studio, like a run does). False if it could
    // not be started.
    bool start(const QString& program) const;

private:
    QString m_runFolder;
};
