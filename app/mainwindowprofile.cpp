// A measured profile in (issue 37): File > Open Measured Profile..., trace files or folders
// dropped on the window, read on a worker behind a progress dialog with Cancel; the profile's
// dock beside the prediction's breakdown.
#include "mainwindow.h"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>
#include <QTimer>
#include <QUrl>

#include "activitycolors.h"
#include "backgroundwork.h"
#include "document.h"
#include "inspectorpanel.h"
#include "legendwidget.h"
#include "measuredlanes.h"
#include "profilebreakdown.h"
#include "profiledocument.h"
#include "profilehtml.h"
#include "profilescene.h"
#include "profiletimeline.h"
#include "text.h"
#include "timelineview.h"
#include "topologyscene.h"
#include "topologyview.h"

namespace {

// A plain .json file is a trace when its first bytes name Kineto's members (cluster, run and
// session files are .json too).
bool looksLikeTrace(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(64 * 1024);
    return head.contains("\"traceEvents\"") || head.contains("\"distributedInfo\"") ||
           head.contains("\"schemaVersion\"");
}

bool isTraceFile(const QString& path)
{
    if (path.endsWith(QLatin1String(".json.gz")))
        return true;
    return path.endsWith(QLatin1String(".json")) && looksLikeTrace(path);
}

// The bars of the comparison, in the breakdown's colours.
std::vector<ProfileBar> barsOf(const cs::ProfileComparison& comparison)
{
    std::vector<ProfileBar> bars;
    const std::vector<cs::Breakdown::Part> parts = comparison.measured.parts();
    for (const cs::PartComparison& c : comparison.parts) {
        const auto part =
            std::find_if(parts.begin(), parts.end(),
                         [&](const cs::Breakdown::Part& p) { return p.key == c.key; });
        bars.push_back({QString::fromStdString(c.label),
                        part != parts.end() ? breakdownColor(*part) : QColor(Qt::gray), c.measuredS,
                        c.predictedS});
    }
    return bars;
}

} // namespace

bool MainWindow::isMeasuredProfilePath(const QString& path)
{
    const QFileInfo info(path);
    if (!info.isDir())
        return isTraceFile(path);
    const QStringList names = QDir(path).entryList(
        {QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files, QDir::Name);
    return std::any_of(names.begin(), names.end(),
                       [&](const QString& name) { return isTraceFile(QDir(path).filePath(name)); });
}

bool MainWindow::openMeasuredProfile(const QStringList& paths)
{
    if (paths.isEmpty())
        return false;
    std::vector<std::string> files;
    for (const QString& path : paths)
        files.push_back(path.toStdString());
    const QString name =
        paths.size() == 1 ? QFileInfo(paths.first()).fileName() : tr("%1 paths").arg(paths.size());
    cs::MeasuredProfile profile;
    const std::optional<cs::ClusterRun> model =
        m_document->hasModel()
            ? std::optional(cs::ClusterRun{m_document->cluster(), m_document->run()})
            : std::nullopt;
    const bool finished = runWithProgress(
        this, tr("Reading the measured profile %1...").arg(name), [&](TaskProgress& progress) {
            cs::ReadProfileOptions options;
            options.progress = progress.report;
            options.cancel = &progress.cancelled;
            profile = cs::readProfile(files, options);
            // The views keep figures and the timeline's measured lanes; the traces, the kernels.
            if (model)
                cs::keepMeasuredLanes(profile, model->cluster, model->run);
        });
    if (!finished || profile.cancelled) {
        statusBar()->showMessage(tr("Cancelled: the measured profile %1 not opened").arg(name),
                                 4000);
        return false;
    }
    const QString problems = QString::fromStdString(profile.errors.formatAll()).trimmed();
    if (profile.ranks.empty()) {
        report(tr("Cannot open the measured profile %1").arg(name),
               problems.isEmpty() ? tr("%1: no trace file was read").arg(paths.join(", "))
                                  : problems);
        return false;
    }
    // What loaded stays usable: the refused files are said, the others make the profile.
    if (!problems.isEmpty())
        report(tr("Some trace files of %1 were not read").arg(name), problems);
    m_lastDir = QFileInfo(paths.first()).absolutePath();
    m_profile->setProfile(profile, tr("Open measured profile %1").arg(name));
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("measuredProfileDock"))) {
        dock->show();
        dock->raise();
    }
    statusBar()->showMessage(tr("Measured profile: %1 ranks. %2")
                                 .arg(profile.ranks.size())
                                 .arg(QString::fromStdString(m_profile->comparison().summary)),
                             8000);
    return true;
}

bool MainWindow::dropMeasuredProfile(const QList<QUrl>& urls)
{
    QStringList paths;
    for (const QUrl& url : urls)
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty() || !std::all_of(paths.begin(), paths.end(), &isMeasuredProfilePath))
        return false;
    // After the drop has ended, as the other files are opened.
    QTimer::singleShot(0, this, [this, paths] { openMeasuredProfile(paths); });
    return true;
}

void MainWindow::addMeasuredProfileActions(QMenu* file)
{
    const QString filter = tr("PyTorch profiler traces (*.json *.json.gz);;All files (*)");
    file->addAction(tr("Open Measured &Profile..."), this,
                    [this, filter] {
                        const QStringList paths = QFileDialog::getOpenFileNames(
                            this, tr("Open Measured Profile"), m_lastDir, filter);
                        openMeasuredProfile(paths);
                    })
        ->setStatusTip(tr("PyTorch profiler traces of the run, one file per rank, beside the "
                          "prediction"));
    file->addAction(tr("Open Measured Profile Fol&der..."), this,
                    [this] {
                        const QString folder = QFileDialog::getExistingDirectory(
                            this, tr("Open Measured Profile Folder"), m_lastDir);
                        if (!folder.isEmpty())
                            openMeasuredProfile({folder});
                    })
        ->setStatusTip(tr("A folder of PyTorch profiler traces, one file per rank"));
}

void MainWindow::createMeasuredProfileViews()
{
    m_profile = new ProfileDocument(m_document, this);
    auto* chart = new ProfileBreakdown;
    auto* dock = new QDockWidget(tr("Measured Profile"), this);
    dock->setObjectName(QStringLiteral("measuredProfileDock"));
    dock->setWidget(chart);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    if (auto* breakdown = findChild<QDockWidget*>(QStringLiteral("breakdownDock"))) {
        tabifyDockWidget(breakdown, dock);
        breakdown->raise();
    }
    const auto update = [this, chart] {
        if (!m_profile->hasProfile()) {
            chart->setBars({}, QString(), QString());
            // The session's entry stays as it was (extensions are kept verbatim); it is said.
            if (!m_profile->problem().isEmpty())
                statusBar()->showMessage(
                    tr("The session's measured profile is not shown: %1").arg(m_profile->problem()),
                    15'000);
            return;
        }
        const cs::ProfileComparison& c = m_profile->comparison();
        const QString title = tr("Rank %1 (stage %2): measured step %3, predicted %4")
                                  .arg(c.rank)
                                  .arg(c.stage)
                                  .arg(QString::fromStdString(cs::stepTimeText(c.measuredStepS)))
                                  .arg(QString::fromStdString(cs::stepTimeText(c.predictedStepS)));
        const QString note = measuredLanesNote(*m_profile);
        chart->setBars(barsOf(c), title,
                       QString::fromStdString(c.summary) + (note.isEmpty() ? "" : "\n" + note));
    };
    connect(m_profile, &ProfileDocument::changed, chart, update);
    update();
    showMeasuredLanes(findChild<TimelineView*>(), m_profile);
    colorByMeasuredProfile();
}

void MainWindow::colorByMeasuredProfile()
{
    m_topologyView->addSceneHooks([this](TopologyScene& scene) {
        setMeasuredColorSource(scene, *m_document, [this]() -> const GpuMeasures* {
            return m_profile->hasProfile() ? &m_profile->measures() : nullptr;
        });
    });
    const auto showRank = [this] {
        m_inspector->setAppendix(measuredRankHtml(*m_profile, m_document->view().highlightRank));
    };
    connect(m_document, &Document::viewChanged, m_inspector, showRank);
    connect(m_profile, &ProfileDocument::changed, this, [this, showRank] {
        showRank();
        if (TopologyScene* scene = m_topologyView->scene()) {
            scene->recolor();
            m_topologyView->viewStateChanged();
            m_legend->setLegend(scene->legend());
        }
    });
}
