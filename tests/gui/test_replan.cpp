// Re-planning after a failure, as a person reads it: the problem in sentences, what the re-plan
// changed, and the three step times side by side.

#include <catch2/catch.hpp>

#include <QUndoStack>

#include "costmodel.h"
#include "document.h"
#include "documentio.h"
#include "fabricviews.h"
#include "guitestutil.h"
#include "replan.h"
#include "text.h"

TEST_CASE("a switch failure that stops the run is said in a sentence, not a JSON pointer",
          "[failures][replan]")
{
    cs::Session s = sampleSession("fairwater-gb200-128.csession");
    s.cluster.failures.switches = {"leaf199"};
    const QString problem = problemsOf(s.cluster, s.run);
    INFO(problem.toStdString());
    REQUIRE_FALSE(problem.isEmpty());
    CHECK_FALSE(problem.contains(QStringLiteral("edit:")));
    CHECK_FALSE(problem.contains(QStringLiteral("/cluster")));
    CHECK(problem.startsWith(QStringLiteral("The run")));
    CHECK(problem.contains(QStringLiteral("leaf199")));
    CHECK(problem.endsWith(QLatin1Char('.')));
}

TEST_CASE("a re-plan after a failure sets three step times side by side and says what changed",
          "[failures][replan]")
{
    cs::Session s = sampleSession("ndv5-h200-64-gpt3-175b.run.json");
    Document doc;
    doc.setSession(s, QString());
    const cs::RunDesc runBefore = doc.run();
    const double asItWas = doc.evaluation().stepTimeS;
    cs::ClusterDesc left = doc.cluster();
    left.failures.racks = {0};
    REQUIRE_FALSE(problemsOf(left, runBefore).isEmpty());

    FailureEdit edit{left, QStringLiteral("Take rack 0 out of service")};
    std::optional<Replan> replan;
    REQUIRE(applyFailureEdit(nullptr, &doc, edit, &replan).isEmpty());
    REQUIRE(replan);
    CHECK(doc.undoStack()->count() == 1);
    CHECK(doc.run() == replan->run);

    // The three figures: as it was, on the healthy cluster; the best there; the re-plan.
    CHECK(replan->asItWas.stepTimeS == Approx(asItWas));
    CHECK(replan->bestHealthy.stepTimeS <= asItWas * (1 + 1e-9));
    CHECK(replan->replanned.stepTimeS == Approx(doc.evaluation().stepTimeS));
    CHECK(replan->healthyGpus == s.cluster.healthyGpuCount());
    CHECK(replan->leftGpus == left.healthyGpuCount());
    CHECK(replan->replanned.gpusUsed <= replan->leftGpus);

    // Every change named, in the summary and in the undo step.
    REQUIRE_FALSE(replan->changes.isEmpty());
    const QString summary = replanSummary(*replan);
    INFO(summary.toStdString());
    for (const QString& c : replan->changes) {
        CHECK(summary.contains(c));
        CHECK(doc.undoStack()->undoText().contains(c));
    }
    for (double t :
         {replan->asItWas.stepTimeS, replan->bestHealthy.stepTimeS, replan->replanned.stepTimeS})
        CHECK(summary.contains(stepText(t)));
    CHECK(summary.contains(QStringLiteral("as it was, on the healthy cluster")));
    CHECK(summary.contains(QStringLiteral("best layout on the healthy cluster")));
    CHECK(summary.contains(QStringLiteral("on what is left")));
}

TEST_CASE("layoutChanges names each part of the layout that differs", "[replan]")
{
    cs::RunDesc a;
    a.parallelism.tp = 8;
    a.parallelism.pp = 4;
    a.batch.global = 64;
    cs::RunDesc b = a;
    CHECK(layoutChanges(a, 64, b, 64).isEmpty());
    b.parallelism.pp = 8;
    b.parallelism.vp = 2;
    b.batch.micro = 2;
    b.placement = {cs::Dim::DP, cs::Dim::TP, cs::Dim::CP, cs::Dim::PP};
    const QStringList changes = layoutChanges(a, 64, b, 64);
    INFO(changes.join(QStringLiteral("; ")).toStdString());
    CHECK(changes.contains(QStringLiteral("PP 4 -> 8")));
    CHECK(changes.contains(QStringLiteral("VP 1 -> 2")));
    CHECK(changes.contains(QStringLiteral("DP 2 -> 1"))); // 64 GPUs over tp x pp
    CHECK(changes.contains(QStringLiteral("micro-batch 1 -> 2")));
    CHECK(changes.filter(QStringLiteral("placement")).size() == 1);
}
