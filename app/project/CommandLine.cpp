#include "app/project/CommandLine.h"

#include "app/project/ApplicationInfo.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

CommandLine CommandLine::parse(const QStringList& arguments) {
    QCommandLineParser parser;
    const QCommandLineOption versionOption(
        QStringList{QStringLiteral("v"), QStringLiteral("version")});
    const QCommandLineOption helpOption(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption demoOption(QStringLiteral("demo"));
    parser.addOption(versionOption);
    parser.addOption(helpOption);
    parser.addOption(demoOption);
    parser.addPositionalArgument(QStringLiteral("PROJECT_DIR"), QString());
    const bool parsed = parser.parse(arguments);

    CommandLine result;
    // --version and --help win over anything else on the line, unknown options included.
    if (parser.isSet(versionOption)) {
        result.m_action = Action::ShowVersion;
        return result;
    }
    if (parser.isSet(helpOption)) {
        result.m_action = Action::ShowHelp;
        return result;
    }
    if (!parsed) {
        result.m_action = Action::Fail;
        result.m_errorMessage = parser.errorText();
        return result;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        result.m_action = Action::Fail;
        result.m_errorMessage = tr("Only one project folder can be opened at a time; got %n.", "",
                                   static_cast<int>(positional.size()));
        return result;
    }
    if (parser.isSet(demoOption) && !positional.isEmpty()) {
        result.m_action = Action::Fail;
        result.m_errorMessage =
            tr("--demo opens the demo project, so it cannot be given with a project folder.");
        return result;
    }
    result.m_action = Action::Run;
    result.m_demoRequested = parser.isSet(demoOption);
    if (!positional.isEmpty())
        result.m_projectFolder = positional.constFirst();
    return result;
}

CommandLine::Action CommandLine::action() const {
    return m_action;
}

QString CommandLine::projectFolder() const {
    return m_projectFolder;
}

bool CommandLine::demoRequested() const {
    return m_demoRequested;
}

QString CommandLine::errorMessage() const {
    return m_errorMessage;
}

QString CommandLine::versionText() {
    return ApplicationInfo::executableName() + QLatin1Char(' ') + ApplicationInfo::version();
}

QString CommandLine::helpText() {
    return tr("Usage: %1 [options] [PROJECT_DIR]\n"
              "\n"
              "Tuneframe studio: build video datasets and fine-tune video diffusion models.\n"
              "\n"
              "Arguments:\n"
              "  PROJECT_DIR    a project folder (one holding project.sqlite) to open\n"
              "\n"
              "Options:\n"
              "  --demo         open the demo project, creating it first when needed\n"
              "  -h, --help     show this help and exit\n"
              "  -v, --version  show the version and exit\n"
              "\n"
              "Started with no project folder, the studio opens the project used last, or the\n"
              "demo project the first time.\n"
              "\n"
              "Settings are read from $TUNEFRAME_CONFIG_DIR when it is set.\n")
        .arg(ApplicationInfo::executableName());
}
