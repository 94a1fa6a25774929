#pragma once
// Everything about the selected rank: where it runs, its coordinates and groups (with experts:
// its expert data-parallel group and the experts it holds), whether each group stays inside the
// NVLink domain or crosses the fabric, its memory and the bandwidth of each link class its
// traffic uses.

#include <QString>
#include <QWidget>

class QTextBrowser;
namespace cs {
class Topology;
class Placement;
struct Evaluation;
struct RunDesc;
} // namespace cs

// The inspector's text (HTML) for a rank; without a rank, the cluster and placement summary.
QString inspectorHtml(const cs::Topology& topology, const cs::Placement& placement,
                      const cs::Evaluation& evaluation, const cs::RunDesc& run, int rank);

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(QWidget* parent = nullptr);
    void showRank(const cs::Topology& topology, const cs::Placement& placement,
                  const cs::Evaluation& evaluation, const cs::RunDesc& run, int rank);
    // HTML shown under the rank's (a measured profile's figures for it), until set again.
    void setAppendix(const QString& html);
    void clear();
    QString text() const;

private:
    QTextBrowser* m_text = nullptr;
    QString m_html;
    QString m_appendix;
};
