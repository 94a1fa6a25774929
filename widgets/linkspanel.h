#pragma once
// The "Links" dock: the busiest links of the step (name, tier, utilization, GB/s, the
// dimensions whose traffic they carry), sortable by any column. Choosing a row asks for the
// link to be selected in the view; the panel then shows which groups use it.

#include <QWidget>
#include <functional>

namespace cs {
struct StepTraffic;
class Topology;
} // namespace cs
class QLabel;
class QTableWidget;

class LinksPanel : public QWidget {
    Q_OBJECT
public:
    // At most this many links are listed: the hottest.
    static constexpr int kRows = 200;

    explicit LinksPanel(QWidget* parent = nullptr);
    // `jobsOn`, with several jobs on the cluster: the names of the jobs whose traffic a link
    // carries, shown in a column of their own (none without it).
    void setTraffic(const cs::Topology& topology, const cs::StepTraffic& traffic,
                    const std::function<QString(int link)>& jobsOn = {});
    void clear();
    // What uses the chosen link, under the table.
    void showDetail(const QString& text);
    QTableWidget* table() const { return m_table; }
    // The link of a row as the table is sorted now; -1 outside the table.
    int linkAt(int row) const;
    // Selects the row of a link (none when it is not among the listed), without linkChosen.
    void showLink(int link);

signals:
    void linkChosen(int link);

private:
    QTableWidget* m_table;
    QLabel* m_summary;
    QLabel* m_detail;
};
