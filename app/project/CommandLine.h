#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

// What the user asked for on the command line. Parsing needs no application object, so
// --version and --help are answered before any window system is touched.
class CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)

public:
    enum class Action { None, Run, ShowVersion, ShowHelp, Fail };

    // arguments[0] is the program, as in QCoreApplication::arguments().
    static CommandLine parse(const QStringList& arguments);

    Action action() const;
    // The PROJECT_DIR argument; empty when none was given.
    QString projectFolder() const;
    // --demo: open the demo project (creating it first when needed).
    bool demoRequested() const;
    // For Action::Fail: what was wrong, as one line.
    QString errorMessage() const;

    static QString versionText();
    static QString helpText();

private:
    Action m_action = Action::None;
    QString m_projectFolder;
    bool m_demoRequested = false;
    QString m_errorMessage;
};
