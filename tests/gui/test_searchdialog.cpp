#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <set>

#include <QEventLoop>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QTableView>
#include <QTimer>

#include "guitestutil.h"
#include "loader.h"
#include "searchdialog.h"

namespace {

struct Inputs {
    cs::ClusterDesc cluster;
    cs::RunDesc run;
};

Inputs loadRun(const char* name)
{
    cs::Diagnostics diags;
    const auto loaded = cs::loadFile(sampleFile(name).toStdString(), diags);
    INFO(diags.formatAll());
    REQUIRE(loaded);
    REQUIRE(loaded->cluster);
    REQUIRE(loaded->run);
    return {*loaded->cluster, *loaded->run};
}

// Runs the event loop until the dialog's search is over; false on time-out.
bool waitForSearch(SearchDialog& dialog)
{
    if (!dialog.isSearching())
        return true;
    QEventLoop loop;
    QObject::connect(&dialog, &SearchDialog::searchFinished, &loop, &QEventLoop::quit);
    QTimer::singleShot(120000, &loop, &QEventLoop::quit);
    loop.exec();
    return !dialog.isSearching();
}

std::vector<double> column(const SearchResultsModel& model, int col)
{
    std::vector<double> values;
    for (int row = 0; row < model.rowCount(); ++row)
        values.push_back(model.index(row, col).data(Qt::UserRole).toDouble());
    return values;
}

} // namespace

TEST_CASE("the search dialog lists results ranked by step time and sorts by any column")
{
    const Inputs in = loadRun("ndv5-h200-64-gpt3-175b.run.json");
    SearchDialog dialog(in.cluster, in.run);
    REQUIRE(waitForSearch(dialog));
    CHECK_FALSE(dialog.wasCancelled());
    SearchResultsModel& model = *dialog.resultsModel();
    REQUIRE(model.rowCount() > 10);
    const std::vector<double> times = column(model, SearchResultsModel::StepTime);
    CHECK(std::is_sorted(times.begin(), times.end()));

    dialog.table()->sortByColumn(SearchResultsModel::Memory, Qt::DescendingOrder);
    const std::vector<double> memory = column(model, SearchResultsModel::Memory);
    CHECK(std::is_sorted(memory.rbegin(), memory.rend()));
    // The rank column still tells the rank by step time.
    const int row = 3;
    const int rank = model.index(row, SearchResultsModel::Rank).data(Qt::UserRole).toInt();
    CHECK(model.resultAt(row).stepTimeS == times[size_t(rank - 1)]);
}

TEST_CASE("Apply hands back the selected configuration")
{
    const Inputs in = loadRun("ndv5-h200-64-gpt3-175b.run.json");
    SearchDialog dialog(in.cluster, in.run);
    REQUIRE(waitForSearch(dialog));
    std::optional<cs::Layout> chosen;
    QObject::connect(&dialog, &SearchDialog::layoutChosen,
                     [&](const cs::Layout& layout) { chosen = layout; });
    dialog.table()->selectRow(2);
    const cs::Layout expected = dialog.resultsModel()->resultAt(2).layout;
    QPushButton* applyButton = nullptr;
    for (QPushButton* b : dialog.findChildren<QPushButton*>()) {
        if (b->text().remove(QLatin1Char('&')) == QStringLiteral("Apply"))
            applyButton = b;
    }
    REQUIRE(applyButton);
    REQUIRE(applyButton->isEnabled());
    applyButton->click();
    REQUIRE(chosen);
    CHECK(*chosen == expected);
    CHECK(dialog.result() == QDialog::Accepted);
}

TEST_CASE("Cancel stops the search and keeps what was found")
{
    const Inputs in = loadRun("fairwater-gb200-128-llama405b.run.json");
    SearchDialog dialog(in.cluster, in.run);
    REQUIRE(dialog.isSearching());
    auto* cancel = dialog.findChild<QPushButton*>(QStringLiteral("cancelSearch"));
    REQUIRE(cancel);
    cancel->click();
    REQUIRE(waitForSearch(dialog));
    CHECK(dialog.wasCancelled());
}

TEST_CASE("closing the search dialog while it searches is safe")
{
    const Inputs in = loadRun("fairwater-gb200-128-llama405b.run.json");
    auto dialog = std::make_unique<SearchDialog>(in.cluster, in.run);
    CHECK(dialog->isSearching());
    dialog.reset(); // joins the worker; its queued updates are dropped
    QEventLoop loop;
    QTimer::singleShot(50, &loop, &QEventLoop::quit);
    loop.exec();
    SUCCEED("no update reached the destroyed dialog");
}

TEST_CASE("constraints hold a dimension and keep memory free, a column compares with the run's "
          "own layout",
          "[slow]")
{
    const Inputs in = loadRun("ndv5-h100-128-gpt3-175b.run.json");
    SearchDialog dialog(in.cluster, in.run);
    REQUIRE(waitForSearch(dialog));
    cs::SearchConstraints c;
    c.fixed[cs::Dim::PP] = 8;
    c.memoryHeadroomGiB = 10;
    dialog.setConstraints(c);
    CHECK(dialog.constraints().fixed[cs::Dim::PP] == 8);
    dialog.startSearch();
    REQUIRE(waitForSearch(dialog));
    SearchResultsModel& model = *dialog.resultsModel();
    REQUIRE(model.rowCount() > 0);
    const cs::Evaluation own = cs::evaluate(in.cluster, in.run);
    for (int row = 0; row < model.rowCount(); ++row) {
        const cs::SearchResult& r = model.resultAt(row);
        CHECK(r.layout.parallelism.pp == 8);
        CHECK(r.memoryGiBPerGpu + 10 <= in.cluster.gpu.hbmGiB);
        CHECK(model.index(row, SearchResultsModel::VsCurrent).data(Qt::UserRole).toDouble() ==
              Approx(r.stepTimeS - own.stepTimeS));
    }
    // The run's own layout is among them and says so.
    bool ownFound = false;
    for (int row = 0; row < model.rowCount(); ++row)
        ownFound |= model.index(row, SearchResultsModel::Changes).data().toString() ==
                    "the run's own layout";
    CHECK(ownFound);
    const QString changes = model.index(0, SearchResultsModel::Changes).data().toString();
    CHECK((changes == "the run's own layout" || changes.contains("->")));
}

TEST_CASE("an MoE run's results show each layout's EP and ETP, a dense run's hide them", "[slow]")
{
    const Inputs moe = loadRun("gb200-16-deepseek-v3.run.json");
    SearchDialog dialog(moe.cluster, moe.run);
    REQUIRE(waitForSearch(dialog));
    const SearchResultsModel& model = *dialog.resultsModel();
    REQUIRE(model.rowCount() > 0);
    const int ep = SearchResultsModel::dimColumn(cs::Dim::EP);
    CHECK(model.headerData(ep, Qt::Horizontal, Qt::DisplayRole).toString() == "EP");
    CHECK(model.headerData(SearchResultsModel::Etp, Qt::Horizontal, Qt::DisplayRole).toString() ==
          "ETP");
    CHECK_FALSE(dialog.table()->isColumnHidden(ep));
    CHECK_FALSE(dialog.table()->isColumnHidden(SearchResultsModel::Etp));
    std::set<int> eps;
    for (int row = 0; row < model.rowCount(); ++row) {
        const cs::Parallelism& p = model.resultAt(row).layout.parallelism;
        CHECK(model.index(row, ep).data(Qt::DisplayRole).toString() == QString::number(p.ep));
        CHECK(model.index(row, SearchResultsModel::Etp).data(Qt::UserRole).toInt() == p.etp);
        eps.insert(p.ep);
    }
    CHECK(eps.size() > 1); // the search ranks EP, and the column tells the layouts apart

    const Inputs dense = loadRun("ndv5-h100-128-gpt3-175b.run.json");
    SearchDialog denseDialog(dense.cluster, dense.run);
    REQUIRE(waitForSearch(denseDialog));
    CHECK(denseDialog.table()->isColumnHidden(ep));
    CHECK(denseDialog.table()->isColumnHidden(SearchResultsModel::Etp));
    CHECK_FALSE(denseDialog.table()->isColumnHidden(SearchResultsModel::dimColumn(cs::Dim::TP)));
}

TEST_CASE("the search table gives each layout's range and marks a tie with the fastest",
          "[search][uncertainty]")
{
    const auto result = [](double stepS) {
        cs::SearchResult r;
        r.stepTimeS = stepS;
        return r;
    };
    const auto range = [](double low, double high) {
        cs::Uncertainty u;
        u.lowS = low;
        u.highS = high;
        u.nearest.assign(12, "run");
        return u;
    };
    SearchResultsModel model;
    // The second's range overlaps the fastest's, the third's does not, the fourth has none.
    model.setResults({result(1.00), result(1.02), result(1.50), result(1.60)},
                     {range(0.95, 1.10), range(0.97, 1.12), range(1.40, 1.65), cs::Uncertainty{}});
    const auto cell = [&](int row, int column) {
        return model.data(model.index(row, column), Qt::DisplayRole).toString();
    };
    CHECK(cell(0, SearchResultsModel::Rank) == QStringLiteral("1"));
    CHECK(cell(1, SearchResultsModel::Rank) == QStringLiteral("~2"));
    CHECK(cell(2, SearchResultsModel::Rank) == QStringLiteral("3"));
    CHECK(cell(3, SearchResultsModel::Rank) == QStringLiteral("4"));
    CHECK(model.tiesBest(1));
    CHECK_FALSE(model.tiesBest(2));
    CHECK(cell(0, SearchResultsModel::Range) == QStringLiteral("0.950-1.100 s"));
    CHECK(cell(3, SearchResultsModel::Range) == QStringLiteral("-"));
    CHECK(model.data(model.index(1, SearchResultsModel::Rank), Qt::ToolTipRole)
              .toString()
              .contains(QStringLiteral("tie")));
}

TEST_CASE("a search in the window gives its layouts ranges from the same evaluation",
          "[search][uncertainty][slow]")
{
    const Inputs in = loadRun("ndv5-h100-128-gpt3-175b.run.json");
    SearchDialog dialog(in.cluster, in.run);
    REQUIRE(waitForSearch(dialog));
    SearchResultsModel& model = *dialog.resultsModel();
    REQUIRE(model.rowCount() > 1);
    const std::vector<cs::ReferenceRun>& refs = cs::shippedReferenceRuns(cs::defaultCalibration());
    for (int row = 0; row < std::min(model.rowCount(), 5); ++row) {
        const cs::SearchResult& r = model.resultAt(row);
        const cs::Uncertainty u = cs::uncertaintyOf(
            r.stepTimeS, cs::likenessOf(in.cluster, cs::withLayout(in.run, r.layout)), refs);
        REQUIRE(u.known());
        CHECK(model.data(model.index(row, SearchResultsModel::Range), Qt::DisplayRole).toString() ==
              QStringLiteral("%1-%2 s").arg(u.lowS, 0, 'f', 3).arg(u.highS, 0, 'f', 3));
    }
}
