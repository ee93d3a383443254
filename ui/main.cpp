#include "app/demo/DemoProjectController.h"
#include "app/project/ApplicationInfo.h"
#include "app/project/CommandLine.h"
#include "app/project/Settings.h"
#include "media/log_level.h"
#include "ui/window/MainWindow.h"

#include <QApplication>
#include <QFileInfo>
#include <QIcon>

#include <cstdio>

namespace {

QStringList argumentsOf(int argc, char** argv) {
    QStringList arguments;
    for (int index = 0; index < argc; ++index)
        arguments.append(QString::fromLocal8Bit(argv[index]));
    return arguments;
}

void print(std::FILE* stream, const QString& text) {
    std::fputs(text.toLocal8Bit().constData(), stream);
    std::fflush(stream);
}

} // namespace

int main(int argc, char* argv[]) {
    ApplicationInfo::registerWithQt();

    // --version and --help are answered before QApplication exists, so they work with no
    // display and no platform plugin at all.
    const CommandLine early = CommandLine::parse(argumentsOf(argc, argv));
    if (early.action() == CommandLine::Action::ShowVersion) {
        print(stdout, CommandLine::versionText() + QLatin1Char('\n'));
        return 0;
    }
    if (early.action() == CommandLine::Action::ShowHelp) {
        print(stdout, CommandLine::helpText());
        return 0;
    }

    // Errors reach the studio as values; FFmpeg's own chatter on stderr helps nobody.
    tuneframe::media::set_log_level();
    QApplication application(argc, argv);
    QGuiApplication::setApplicationDisplayName(ApplicationInfo::displayName());
    QGuiApplication::setDesktopFileName(QStringLiteral("io.tuneframe.Tuneframe"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tuneframe.svg")));

    // Parsed again now that QApplication has taken its own options (-platform, -style) out.
    const CommandLine commandLine = CommandLine::parse(QCoreApplication::arguments());
    if (commandLine.action() == CommandLine::Action::Fail) {
        print(stderr, QStringLiteral("tuneframe: %1\nTry 'tuneframe --help'.\n")
                          .arg(commandLine.errorMessage()));
        return 2;
    }

    Settings settings;
    MainWindow window(&settings);
    QObject::connect(&window, &MainWindow::projectOpenFailed,
                     [](const QString&, const QString& message) {
                         print(stderr, QStringLiteral("tuneframe: %1\n").arg(message));
                     });
    QObject::connect(&window, &MainWindow::projectOpenedReadOnly,
                     [](const QString&, const QString& reason) {
                         print(stderr, QStringLiteral("tuneframe: %1\n").arg(reason));
                     });
    QObject::connect(&window, &MainWindow::demoProjectFailed, [](const QString& message) {
        print(stderr, QStringLiteral("tuneframe: %1\n").arg(message));
    });
    window.show();
    // A first start (no project asked for, none opened before) lands in the demo project, so
    // there is something to try every page on; later starts go back to the last project.
    const QStringList recent = settings.recentProjects();
    if (commandLine.demoRequested() || (commandLine.projectFolder().isEmpty() && recent.isEmpty()))
        window.openDemoProject();
    else if (!commandLine.projectFolder().isEmpty())
        window.openProject(commandLine.projectFolder());
    else if (recent.constFirst() ==
             QFileInfo(DemoProjectController::defaultFolder()).canonicalFilePath())
        window.openDemoProject(); // finishes a demo build an earlier start left incomplete
    else
        window.openProject(recent.constFirst());
    return QApplication::exec();
}
