// A measured profile in the window (issue 37): PyTorch profiler traces opened beside the
// prediction, kept in the session (the traces are not needed to show it again), per-GPU values
// for the topology's colours, and bad traces refused by name with the document as it was.

#include <catch2/catch.hpp>

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QTemporaryDir>
#include <QUndoStack>

#include "document.h"
#include "documentio.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "profilebreakdown.h"
#include "profiledocument.h"
#include "profilescene.h"
#include "profilesession.h"
#include "syntheticprofile.h"
#include "topologyscene.h"

namespace {

// GPT-3's shape cut to 8 layers, TP 2 x PP 2 x DP 4 on 16 of an ND H100 v5 cluster's GPUs: a
// profile of 16 small traces, and GPUs that hold no rank.
cs::Session smallSession()
{
    QString problems;
    auto session = loadSessionFromFile(sampleFile("ndv5-h100-128-gpt3-175b.run.json"), &problems);
    INFO(problems.toStdString());
    REQUIRE(session);
    cs::RunDesc& run = session->run;
    run.model.layers = 8;
    run.model.seqLen = 4096;
    run.batch.global = 16;
    run.batch.micro = 1;
    run.parallelism = cs::Parallelism{};
    run.parallelism.tp = 2;
    run.parallelism.pp = 2;
    run.parallelism.dp = 4;
    run.parallelism.distributedOptimizer = true;
    run.placement = cs::kPlacedDims;
    return *session;
}

struct SmallSessionWindow {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    SmallSessionWindow()
    {
        window.setQuiet(true);
        REQUIRE(window.openUnsaved(smallSession()));
    }
    QString path(const char* name) const { return dir.filePath(QLatin1String(name)); }
    // The prediction of the open run written as traces, one per rank, into `folder`.
    QString writeTraces(const char* folder) const
    {
        const QString traces = path(folder);
        const Document* doc = window.document();
        cs::SyntheticProfileOptions options;
        options.steps = 2;
        options.cpuEvents = false;
        cs::Diagnostics diags;
        INFO(diags.formatAll());
        REQUIRE(cs::writeSyntheticProfile(traces.toStdString(), doc->cluster(), doc->run(), options,
                                          diags));
        return traces;
    }
};

} // namespace

TEST_CASE("a measured profile opens beside the prediction, as one undo step", "[profile]")
{
    SmallSessionWindow f;
    const QString traces = f.writeTraces("traces");
    CHECK(MainWindow::isMeasuredProfilePath(traces));
    CHECK_FALSE(MainWindow::isMeasuredProfilePath(sampleFile("ndv5-h100-128.cluster.json")));
    REQUIRE(f.window.openMeasuredProfile({traces}));
    const ProfileDocument* profile = f.window.measuredProfile();
    REQUIRE(profile->hasProfile());
    CHECK(profile->profile().ranks.size() == 16);
    CHECK(profile->files().size() == 16);
    CHECK(f.window.document()->undoStack()->count() == 1);
    CHECK(f.window.document()->isModified());
    CHECK(f.window.document()->session().extensions.contains(kMeasuredProfileKey));

    // The synthetic trace is the prediction: each part measures what it predicts.
    const cs::ProfileComparison& c = profile->comparison();
    REQUIRE_FALSE(c.parts.empty());
    for (const cs::PartComparison& part : c.parts) {
        INFO(part.key);
        CHECK(part.measuredS == Approx(part.predictedS).epsilon(0.01).margin(1e-4));
    }
    const auto* chart = f.window.findChild<ProfileBreakdown*>(QStringLiteral("profileBreakdown"));
    REQUIRE(chart);
    CHECK(chart->bars().size() == c.parts.size());
    CHECK(chart->summary() == QString::fromStdString(c.summary));

    f.window.document()->undoStack()->undo();
    CHECK_FALSE(profile->hasProfile());
    CHECK(chart->bars().empty());
}

TEST_CASE("a session keeps the measured profile: it opens without the traces", "[profile]")
{
    SmallSessionWindow f;
    const QString traces = f.writeTraces("traces");
    REQUIRE(f.window.openMeasuredProfile({traces}));
    const cs::MeasuredProfile& opened = f.window.measuredProfile()->profile();
    const QString saved = f.path("measured.csession");
    REQUIRE(f.window.saveTo(saved));
    REQUIRE(QDir(traces).removeRecursively());

    SmallSessionWindow g;
    REQUIRE(g.window.openFile(saved));
    const ProfileDocument* reopened = g.window.measuredProfile();
    INFO(reopened->problem().toStdString());
    REQUIRE(reopened->hasProfile());
    const cs::MeasuredProfile& p = reopened->profile();
    REQUIRE(p.ranks.size() == opened.ranks.size());
    CHECK(p.stepTimeS == opened.stepTimeS);
    CHECK(p.slowestRank == opened.slowestRank);
    CHECK(reopened->files() == f.window.measuredProfile()->files());
    for (size_t r = 0; r < p.ranks.size(); ++r) {
        REQUIRE(p.ranks[r].steps.size() == opened.ranks[r].steps.size());
        CHECK(p.ranks[r].groups.size() == opened.ranks[r].groups.size());
        CHECK(p.ranks[r].totalKernelS == opened.ranks[r].totalKernelS);
        for (size_t s = 0; s < p.ranks[r].steps.size(); ++s) {
            CHECK(p.ranks[r].steps[s].durationS == opened.ranks[r].steps[s].durationS);
            CHECK(p.ranks[r].steps[s].exposedByGroup.size() ==
                  opened.ranks[r].steps[s].exposedByGroup.size());
        }
    }
    // A figure of the session alone (File > Export, --render) colours by the kept profile.
    Document alone;
    alone.setSession(g.window.document()->session(), saved);
    TopologyScene scene(alone.topology(), alone.placement(), alone.evaluation());
    colorByStoredProfile(scene, alone);
    cs::ViewState view;
    view.colorBy = {cs::ColorKind::MeasuredStep};
    scene.applyView(view);
    CHECK(scene.legend().title.startsWith(QLatin1String("Measured step against the median")));
    // The comparison is made again from what the session kept, to the same figures.
    const cs::ProfileComparison& before = f.window.measuredProfile()->comparison();
    const cs::ProfileComparison& after = reopened->comparison();
    CHECK(after.summary == before.summary);
    REQUIRE(after.parts.size() == before.parts.size());
    for (size_t i = 0; i < after.parts.size(); ++i)
        CHECK(after.parts[i].measuredS == Approx(before.parts[i].measuredS));
}

TEST_CASE("the measured colour modes have a value per GPU that holds a measured rank", "[profile]")
{
    SmallSessionWindow f;
    REQUIRE(f.window.openMeasuredProfile({f.writeTraces("traces")}));
    const Document* doc = f.window.document();
    const ProfileDocument* profile = f.window.measuredProfile();
    const int gpus = int(doc->topology().gpus().size());
    const auto quantity = GENERATE(MeasuredQuantity::Step, MeasuredQuantity::Communication);
    const std::vector<std::optional<double>> values = profile->valuesPerGpu(quantity);
    REQUIRE(values.size() == size_t(gpus));
    for (int gpu = 0; gpu < gpus; ++gpu) {
        const int rank = doc->placement().rankOfGpu(gpu);
        INFO("GPU " << gpu << ", rank " << rank);
        CHECK(values[size_t(gpu)].has_value() == (rank >= 0));
        if (rank >= 0) {
            const auto measure = profile->measureOfGpu(gpu);
            REQUIRE(measure);
            CHECK(measure->rank == rank);
            CHECK(*values[size_t(gpu)] == (quantity == MeasuredQuantity::Step
                                               ? measure->stepVsMedian
                                               : measure->exposedCommS));
        }
    }
}

TEST_CASE("a bad trace is refused naming the file, and the document stays as it was", "[profile]")
{
    const auto [name, content] = GENERATE(table<const char*, std::string>(
        {{"broken.pt.trace.json", "{\"traceEvents\": [{\"ph\": \"X\", "},
         {"empty.pt.trace.json", "{\"traceEvents\": []}"},
         {"truncated.pt.trace.json.gz", std::string("\x1f\x8b\x08\x00\x00\x00", 6)}}));
    INFO(name);
    SmallSessionWindow f;
    const QString path = f.path(name);
    QFile file(path);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write(content.data(), qint64(content.size()));
    file.close();
    const cs::Session before = f.window.document()->sessionToSave();
    const int edits = f.window.document()->undoStack()->count();
    CHECK_FALSE(f.window.openMeasuredProfile({path}));
    CHECK(f.window.lastProblem().contains(QLatin1String(name)));
    CHECK_FALSE(f.window.measuredProfile()->hasProfile());
    CHECK(f.window.document()->undoStack()->count() == edits);
    CHECK(f.window.document()->sessionToSave() == before);
}

TEST_CASE("a stored profile that is not one is refused saying where", "[profile]")
{
    std::string error;
    CHECK_FALSE(storedProfileFrom(nlohmann::json{{"world_size", 2},
                                                 {"process_groups", nlohmann::json::array()},
                                                 {"ranks", 3}},
                                  &error));
    CHECK(error == "/x-measured_profile/ranks: is not a list");
}

TEST_CASE("a stored profile keeps each process group once, and past its limit each rank's "
          "median step only",
          "[profile]")
{
    const size_t stepsPerRank = GENERATE(size_t(3), size_t(9000));
    cs::MeasuredProfile p;
    p.worldSize = 2;
    for (int r = 0; r < 2; ++r) {
        cs::RankProfile rank;
        rank.rank = r;
        rank.worldSize = 2;
        rank.groups = {{"0", "default_pg", {0, 1}}};
        for (size_t s = 0; s < stepsPerRank; ++s) {
            cs::StepFigures step;
            step.number = int64_t(s);
            step.durationS = 1.0 + 0.001 * double(s % 7) + 0.01 * r;
            step.exposedByGroup = {{0, 0.1}};
            rank.steps.push_back(step);
        }
        p.ranks.push_back(std::move(rank));
    }
    const nlohmann::json stored = storedProfileJson(p);
    CHECK(stored.at("process_groups").size() == 1);
    std::string error;
    const auto back = storedProfileFrom(stored, &error);
    INFO(error);
    REQUIRE(back);
    const bool all = stepsPerRank * 2 <= 16384;
    CHECK(stored.at("steps_kept") == (all ? "all" : "median"));
    for (size_t r = 0; r < 2; ++r) {
        CHECK(back->ranks[r].groups.size() == 1);
        CHECK(back->ranks[r].groups[0].ranks == std::vector<int>{0, 1});
        REQUIRE(back->ranks[r].steps.size() == (all ? stepsPerRank : 1));
        CHECK(back->ranks[r].medianStepS() == Approx(p.ranks[r].medianStepS()));
        CHECK(back->ranks[r].steps[0].exposedByGroup.size() == 1);
    }
}
