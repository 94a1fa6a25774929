#include "importdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "backgroundwork.h"
#include "dialogsize.h"
#include "documentio.h"
#include "loader.h"
#include "logfolder.h"
#include "messagetext.h"
#include "mllog.h"
#include "validation.h"

namespace {

QString kindLabel(std::string_view kind)
{
    if (kind == "megatron")
        return QObject::tr("Megatron-LM launch script (and its training log)");
    if (kind == "nemo")
        return QObject::tr("NeMo / Megatron-Bridge config (YAML or JSON)");
    if (kind == "mllog")
        return QObject::tr("MLPerf Training result log (and the system description)");
    return QObject::tr("Slurm topology.conf");
}

QStringList splitFiles(const QString& text)
{
    QStringList files;
    for (const QString& f : text.split(QLatin1Char(';'), Qt::SkipEmptyParts))
        if (!f.trimmed().isEmpty())
            files << f.trimmed();
    return files;
}

std::string text(const QLineEdit* edit)
{
    return edit->text().trimmed().toStdString();
}

// The cluster an imported run or measurement goes on: the file named, else the document's.
std::optional<cs::ClusterDesc> pairedCluster(const std::string& path, const cs::ClusterRun& current,
                                             cs::ImportReport& report)
{
    if (path.empty())
        return current.cluster;
    cs::Diagnostics diags;
    const std::optional<cs::LoadedFile> loaded = cs::loadFile(path, diags);
    report.errors.append(diags);
    if (loaded && loaded->kind != cs::FileKind::Cluster)
        report.error({path, 0, 0, ""}, "not a cluster file: the run goes on a cluster");
    if (!loaded || !diags.empty() || loaded->kind != cs::FileKind::Cluster)
        return std::nullopt;
    return loaded->cluster;
}

// The session an import makes; runs on a worker, so it sees only copies of what the fields
// and the document hold.
std::optional<cs::Session> sessionOf(const cs::ImportRequest& r, const std::string& clusterPath,
                                     const cs::ClusterRun& current, cs::ImportReport& report)
{
    std::optional<cs::ClusterDesc> cluster;
    std::optional<cs::RunDesc> run;
    cs::Diagnostics diags;
    if (r.kind == "mllog") {
        const auto log = cs::readGivenSource(r.files.front(), report);
        const auto system = cs::readGivenSource(r.system, report);
        const auto result = log ? cs::readMllog(*log, report) : std::nullopt;
        const auto clusterJson =
            system ? cs::clusterFromSystemDescription(*system, report) : std::nullopt;
        if (!result || (!r.system.empty() && !clusterJson))
            return std::nullopt;
        cluster = clusterJson ? cs::clusterFromJson(*clusterJson, r.system, "", diags)
                              : pairedCluster(clusterPath, current, report);
        run = current.run;
        run->measured = cs::Measured{
            result->stepTimeS,
            "MLPerf result log " +
                QFileInfo(QString::fromStdString(r.files.front())).fileName().toStdString() + ": " +
                result->stepSource};
        run->extensions.set(cs::kMeasuredStepTimesKey, result->stepTimesS);
        report.note({r.files.front(), 0, 0, ""},
                    "the measured step time is set on the current document's run");
    } else {
        const std::optional<nlohmann::json> imported = cs::importDescription(r, report);
        if (!imported)
            return std::nullopt;
        if (r.kind == "slurm") {
            cluster = cs::clusterFromJson(*imported, r.files.front(), "", diags);
            if (cluster) {
                cs::Diagnostics fits;
                cs::validateClusterRun(*cluster, current.run, fits);
                run = fits.empty() ? current.run : defaultRunFor(*cluster);
                report.note({r.files.front(), 0, 0, ""},
                            fits.empty() ? "the current document's run placed on this cluster"
                                         : "a data-parallel run fills this cluster: the current "
                                           "document's run does not fit it");
            }
        } else {
            run = cs::runFromJson(*imported, r.files.front(), "", diags);
            cluster = pairedCluster(clusterPath, current, report);
        }
    }
    report.errors.append(diags);
    if (!cluster || !run)
        return std::nullopt;
    cs::Diagnostics fits;
    cs::validateClusterRun(*cluster, *run, fits);
    report.errors.append(fits);
    if (!fits.empty())
        return std::nullopt;
    return cs::Session{*cluster, *run, {}, {}, {}, {}, {}};
}

} // namespace

ImportDialog::ImportDialog(const cs::ClusterRun& current, QWidget* parent)
    : QDialog(parent)
    , m_current(current)
    , m_form(new QFormLayout)
    , m_kind(new QComboBox(this))
    , m_files(new QLineEdit(this))
    , m_log(new QLineEdit(this))
    , m_system(new QLineEdit(this))
    , m_gpu(new QLineEdit(QString::fromStdString(current.cluster.gpu.name), this))
    , m_gpusPerNode(new QSpinBox(this))
    , m_down(new QLineEdit(this))
    , m_cluster(new QLineEdit(this))
    , m_report(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Import"));
    for (std::string_view kind : cs::kImportKinds)
        m_kind->addItem(kindLabel(kind), QString::fromLatin1(kind.data(), int(kind.size())));
    m_gpusPerNode->setRange(1, 72);
    m_gpusPerNode->setValue(current.cluster.gpusPerNode);
    m_cluster->setPlaceholderText(
        tr("the current document's: %1").arg(QString::fromStdString(current.cluster.name)));
    m_files->setPlaceholderText(tr("the files to import; several scripts separated by ';'"));

    auto withBrowse = [this](QLineEdit* edit, bool several) {
        auto* row = new QWidget(this);
        auto* layout = new QHBoxLayout(row);
        layout->setContentsMargins(0, 0, 0, 0);
        edit->setParent(row);
        layout->addWidget(edit, 1);
        auto* button = new QPushButton(tr("Browse..."), row);
        connect(button, &QPushButton::clicked, this, [=, this] { browse(edit, several); });
        layout->addWidget(button);
        return row;
    };
    m_form->addRow(tr("&Kind:"), m_kind);
    m_form->addRow(tr("&File:"), withBrowse(m_files, true));
    m_form->addRow(tr("Training &log:"), withBrowse(m_log, false));
    m_form->addRow(tr("&System description:"), withBrowse(m_system, false));
    m_form->addRow(tr("&GPU:"), m_gpu);
    m_form->addRow(tr("GPUs per &node:"), m_gpusPerNode);
    m_form->addRow(tr("Nodes &down:"), withBrowse(m_down, false));
    m_form->addRow(tr("On the &cluster:"), withBrowse(m_cluster, false));

    m_report->setReadOnly(true);
    m_report->setPlaceholderText(
        tr("What the importer assumed or ignored, and any error at its file:line:column, "
           "shows here."));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton* import = buttons->addButton(tr("&Import"), QDialogButtonBox::ActionRole);
    m_open = buttons->addButton(tr("&Open as Document"), QDialogButtonBox::AcceptRole);
    m_open->setEnabled(false);
    connect(import, &QPushButton::clicked, this, &ImportDialog::runImport);
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (!m_result)
            return;
        emit openRequested(*m_result);
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &ImportDialog::updateRows);
    // A changed field makes the last import stale.
    for (QLineEdit* edit : {m_files, m_log, m_system, m_gpu, m_down, m_cluster})
        connect(edit, &QLineEdit::textChanged, this, [this] { m_open->setEnabled(false); });

    // Tab follows the rows, each field before its Browse button.
    QWidget* previous = m_kind;
    for (int row = 1; row < m_form->rowCount(); ++row) {
        QWidget* field = m_form->itemAt(row, QFormLayout::FieldRole)->widget();
        const QList<QWidget*> parts = field->findChildren<QWidget*>(Qt::FindDirectChildrenOnly);
        for (QWidget* w : parts.isEmpty() ? QList<QWidget*>{field} : parts) {
            setTabOrder(previous, w);
            previous = w;
        }
    }

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(m_form);
    layout->addWidget(new QLabel(tr("Report:"), this));
    layout->addWidget(m_report, 1);
    layout->addWidget(buttons);
    updateRows();
    resizeWithinScreen(this, {760, 520});
}

void ImportDialog::updateRows()
{
    const QString kind = m_kind->currentData().toString();
    const bool slurm = kind == QLatin1String("slurm");
    m_form->setRowVisible(m_log->parentWidget(), kind == QLatin1String("megatron"));
    m_form->setRowVisible(m_system->parentWidget(), kind == QLatin1String("mllog"));
    m_form->setRowVisible(m_gpu, slurm);
    m_form->setRowVisible(m_gpusPerNode, slurm);
    m_form->setRowVisible(m_down->parentWidget(), slurm);
    m_form->setRowVisible(m_cluster->parentWidget(), !slurm);
    m_open->setEnabled(false);
}

void ImportDialog::browse(QLineEdit* edit, bool several)
{
    if (several) {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Import"));
        if (!files.isEmpty())
            edit->setText(files.join(QStringLiteral("; ")));
        return;
    }
    const QString file = QFileDialog::getOpenFileName(this, tr("Import"));
    if (!file.isEmpty())
        edit->setText(file);
}

cs::ImportRequest ImportDialog::request() const
{
    cs::ImportRequest r;
    r.kind = m_kind->currentData().toString().toStdString();
    for (const QString& f : splitFiles(m_files->text()))
        r.files.push_back(f.toStdString());
    r.log = text(m_log);
    r.system = text(m_system);
    if (r.kind == "slurm") {
        r.gpu = text(m_gpu);
        r.gpusPerNode = m_gpusPerNode->value();
        r.down = text(m_down);
    }
    return r;
}

void ImportDialog::setRequest(const cs::ImportRequest& r)
{
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(QString::fromStdString(r.kind))));
    QStringList files;
    for (const std::string& f : r.files)
        files << QString::fromStdString(f);
    m_files->setText(files.join(QStringLiteral("; ")));
    m_log->setText(QString::fromStdString(r.log));
    m_system->setText(QString::fromStdString(r.system));
    if (!r.gpu.empty())
        m_gpu->setText(QString::fromStdString(r.gpu));
    if (r.gpusPerNode > 0)
        m_gpusPerNode->setValue(r.gpusPerNode);
    m_down->setText(QString::fromStdString(r.down));
}

void ImportDialog::setClusterFile(const QString& path)
{
    m_cluster->setText(path);
}

bool ImportDialog::runImport()
{
    const cs::ImportRequest r = request();
    m_result.reset();
    m_open->setEnabled(false);
    if (r.files.empty()) {
        m_report->setPlainText(tr("Name the file to import under File."));
        return false;
    }
    cs::ImportReport report;
    std::optional<cs::Session> imported;
    const QPointer<ImportDialog> alive(this);
    // An import of a large file takes seconds: on a worker, the window answering meanwhile.
    // Cancelled, whatever the import made is dropped and the document stays as it was.
    const bool finished = runWithProgress(
        this,
        tr("Importing %1...").arg(QFileInfo(QString::fromStdString(r.files.front())).fileName()),
        [&, clusterPath = text(m_cluster), current = m_current](TaskProgress&) {
            imported = sessionOf(r, clusterPath, current, report);
        });
    if (!alive)
        return false; // closed while the import ran
    if (!finished) {
        m_report->setPlainText(tr("Import cancelled: nothing was imported."));
        return false;
    }
    if (report.errors.empty())
        m_result = std::move(imported);
    QStringList lines;
    for (const cs::Diagnostic& d : report.errors.items())
        lines << tr("error: %1").arg(QString::fromStdString(d.format()));
    for (const cs::Diagnostic& d : report.notes.items())
        lines << tr("note: %1").arg(QString::fromStdString(d.format()));
    if (m_result)
        lines.prepend(tr("Imported %1 on %2: open it as a document.")
                          .arg(QString::fromStdString(m_result->run.name),
                               QString::fromStdString(m_result->cluster.name)));
    // Bounded: a flood of notes or a 5 MB value would take the box minutes to lay out.
    m_report->setPlainText(boundedMessage(lines.join(QLatin1Char('\n')), 500, 1000));
    m_open->setEnabled(m_result.has_value());
    return m_result.has_value();
}

QString ImportDialog::reportText() const
{
    return m_report->toPlainText();
}
