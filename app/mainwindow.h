#pragma once

#include <QMainWindow>
#include <QPointer>
#include <array>
#include <optional>

#include "autosave.h"
#include "description.h"
#include "documentio.h"
#include "helppages.h"

class BookmarksList;
class ElidedLabel;
class Document;
class MeasuredRunsDialog;
class ImportDialog;
class InspectorPanel;
class LegendWidget;
class QComboBox;
class QDialog;
class QLabel;
class TopologyView;
class Presentation;
class PropertiesPanel;
class ProfileDocument;
class QMenu;
class QUrl;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // recoveryDir: where unsaved changes are autosaved (empty: the default place).
    explicit MainWindow(const QString& recoveryDir = QString(), QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return m_document; }
    Presentation* presentation() const { return m_presentation; }
    PropertiesPanel* propertiesPanel() const { return m_properties; }
    TopologyView* topologyView() const { return m_topologyView; }
    InspectorPanel* inspector() const { return m_inspector; }
    LegendWidget* legend() const { return m_legend; }
    Autosaver* autosaver() const { return m_autosaver; }

    // Loads a session, run or cluster file; on failure shows the problems and keeps the
    // current document. Returns whether it loaded.
    bool openFile(const QString& path);
    // A .jsonl file of measured runs: it opens as a dialog of rows, not as the document.
    static bool isMeasuredRunsFile(const QString& path);
    // What to open at start-up for the files on the command line: the default sample when there
    // are none, and under measured-runs files alone, so that the window behind them shows a
    // cluster rather than an empty document.
    static QStringList startupFiles(const QStringList& files);
    // Opens the startupFiles of the command line; when none of them opens as the document (each
    // missing or refused, and said so), the default sample does.
    void openStartupFiles(const QStringList& files);
    // Shows the cost model beside every measured run of a .jsonl file, or of a folder of
    // training logs (each measured against the current run; cs::importLogFolder); a row opens
    // as a document.
    bool openMeasuredRuns(const QString& path);
    // File > Import; the dialog (deleted on close) opens its result through openUnsaved.
    ImportDialog* openImportDialog();
    // Replaces the document by a session not saved anywhere yet, after the usual question about
    // unsaved changes; false when that was cancelled (or, quiet, when there are changes).
    bool openUnsaved(cs::Session session);
    // Writes the step as Chrome trace events, on a worker behind a progress dialog with Cancel
    // (cancelled before the write, nothing is written). Returns whether it wrote the file.
    bool exportTraceTo(const QString& path);
    // Puts another run (or a cluster, or a session's run) beside this one, as one undo step.
    bool compareWith(const QString& path);
    // PyTorch profiler traces (files, or folders of them) as the document's measured profile,
    // read on a worker behind a progress dialog with Cancel (mainwindowprofile.cpp). Refused
    // files are reported by name; with none read, the document stays as it was.
    bool openMeasuredProfile(const QStringList& paths);
    // A trace file (.json.gz, or .json that reads as one) or a folder holding one.
    static bool isMeasuredProfilePath(const QString& path);
    ProfileDocument* measuredProfile() const { return m_profile; }
    // The last measured-runs dialog opened (tests).
    QPointer<MeasuredRunsDialog> measuredRunsDialog() const { return m_measuredRuns; }
    // Saves the session; on failure reports and leaves the old file as it was. Asks first when
    // the file changed on disk since it was opened or saved here.
    bool saveTo(const QString& path);
    bool save();
    bool saveAs();
    // Offers the recovery files left by instances that crashed, newest first, until one is
    // restored; returns whether one was. One that cannot be read is reported (file and reason)
    // and kept under another name.
    bool offerRecovery();
    // When set, problems and questions are kept in lastProblem() instead of shown in a dialog,
    // and each question takes the answer that loses nothing (tests).
    void setQuiet(bool quiet);
    QString lastProblem() const { return m_lastProblem; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createTopologyView();
    void updateTopologyPanels();
    void updateInspector();
    void createDocks();
    void createActions();
    void createFileMenu();
    void createEditMenu();
    void createViewMenu();
    void addDockToggles();
    void updateTitle();
    void updateRecentMenu();
    void addRecentFile(const QString& path);
    void newDocument();
    bool maybeSave();
    // A value typed in Properties but not confirmed becomes an edit; one that breaks a rule asks
    // whether to go on without it.
    bool commitPendingEdit();
    bool confirmOverwrite(const QString& path);
    // A warning with `yes` and Cancel; quiet: `quietAnswer`.
    bool confirm(const QString& title, const QString& text, const QString& yes, bool quietAnswer);
    // What the document's file held when opened or saved here (nothing: no file, or unknown).
    void setDiskState(const std::optional<DiskState>& state);
    // Shows a problem, bounded (messagetext.h); keeps it whole in lastProblem().
    void report(const QString& title, const QString& text);
    void reportUnreadable(const std::vector<std::unique_ptr<Autosaver::Recovery>>& found);
    void exportTopology(const QString& format);
    void exportHandout();
    // The pixel size of an exported view: presets and the window's; nothing when cancelled.
    std::optional<QSize> askFigureSize();
    void exportWindow(const QString& format);
    void exportBreakdownCsv();
    void exportTrace();
    QString askSavePath(const QString& title, const QString& suggestedName, const QString& filter);
    void searchParallelism();
    void createMeasuredProfileViews();
    void addMeasuredProfileActions(QMenu* file);
    void colorByMeasuredProfile(); // the topology's measured modes and the inspector's lines
    // Dropped traces open as the measured profile; false when the drop is not traces.
    bool dropMeasuredProfile(const QList<QUrl>& urls);

public:
    void setDarkTheme(bool dark);

private:
    void readSettings();
    void createStatusBar();
    void updateStepFigure();
    void showHelp(HelpPage page);
    void writeSettings();
    void about();

    Document* m_document = nullptr;
    Presentation* m_presentation = nullptr;
    PropertiesPanel* m_properties = nullptr;
    TopologyView* m_topologyView = nullptr;
    InspectorPanel* m_inspector = nullptr;
    LegendWidget* m_legend = nullptr;
    QComboBox* m_colorBy = nullptr;
    QList<QAction*> m_topologyActions;
    std::optional<cs::ColorMode> m_panelsColorBy; // what the legend and inspector show now
    int m_panelsRank = -2;
    bool m_inspectorStale = false; // brought up to date when its dock is next shown
    BookmarksList* m_bookmarks = nullptr;
    Autosaver* m_autosaver = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_helpMenu = nullptr;
    QString m_lastDir;
    bool m_quiet = false;
    bool m_dockSizesSet = false; // by the saved layout or, on the first show, by default
    std::optional<QSize> m_maximiseAtFirstShow; // no saved geometry: the size it was given
    QString m_lastProblem;
    std::optional<DiskState> m_diskState;
    QPointer<MeasuredRunsDialog> m_measuredRuns;
    ElidedLabel* m_stepFigure = nullptr;
    ProfileDocument* m_profile = nullptr;
    std::array<QPointer<QDialog>, kHelpPages> m_help;
};
