// Several jobs in the Properties panel (issue 38): the Allocation field moves the job shown in
// detail as the Jobs dock's cell does (one undo step, overlaps and bad text refused with the
// reason), and shows only where there are jobs.

#include <catch2/catch.hpp>

#include <QKeyEvent>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QUndoStack>
#include <algorithm>

#include "allocationtext.h"
#include "document.h"
#include "guitestutil.h"
#include "jobcolors.h"
#include "mainwindow.h"
#include "propertiespanel.h"

namespace {

struct PropertiesWindow {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    Document* doc = window.document();
    PropertiesPanel* panel = window.findChild<PropertiesPanel*>();
    QLineEdit* allocation = nullptr;

    explicit PropertiesWindow(const char* file = "ndv5-h100-128-three-jobs-placed-badly.csession")
    {
        window.setQuiet(true);
        REQUIRE(window.openFile(sampleFile(file)));
        REQUIRE(panel);
        allocation = panel->findChild<QLineEdit*>(QStringLiteral("Allocation"));
        REQUIRE(allocation);
        REQUIRE(evaluated());
    }
    bool evaluated()
    {
        return waitUntil([this] { return !doc->hasJobs() || doc->jobsResult(); });
    }
    QString shownAllocation() const
    {
        return QString::fromStdString(cs::allocationText(doc->run().allocation));
    }
    // The racks of job `job` (in the document's order), in order.
    std::vector<int> racksOf(int job) const
    {
        const std::vector<int> jobOf = jobOfEachGpu(doc->topology(), doc->runs());
        std::vector<int> racks;
        const auto& all = doc->topology().racks();
        for (size_t r = 0; r < all.size(); ++r)
            if (jobOf[size_t(all[r].firstGpu)] == job)
                racks.push_back(int(r));
        return racks;
    }
};

QString racksText(const std::vector<int>& racks)
{
    QStringList out;
    for (int r : racks)
        out << QString::number(r);
    return QStringLiteral("racks ") + out.join(QStringLiteral(", "));
}

void pressEnter(QWidget* editor)
{
    QKeyEvent enter(QEvent::KeyPress, Qt::Key_Return, Qt::NoModifier);
    QApplication::sendEvent(editor, &enter);
}

} // namespace

TEST_CASE("Properties' Allocation moves the job shown in detail as one undo step",
          "[jobs][gui][properties]")
{
    PropertiesWindow f;
    QUndoStack* undo = f.doc->undoStack();
    const auto original = f.doc->runs();
    CHECK(f.allocation->isVisibleTo(f.panel));
    CHECK(f.allocation->text() == f.shownAllocation());

    // As many racks as it holds, the last that no other job holds: some of them free.
    std::vector<int> racks = f.racksOf(-1);
    const std::vector<int> own = f.racksOf(0);
    racks.insert(racks.end(), own.begin(), own.end());
    std::sort(racks.begin(), racks.end());
    racks.erase(racks.begin(), racks.end() - ptrdiff_t(own.size()));
    REQUIRE(racks != own);
    const QString moveTo = racksText(racks);
    typeInto(f.allocation, moveTo);
    pressEnter(f.allocation);
    INFO(f.panel->problem().toStdString());
    CHECK(f.panel->problem().isEmpty());
    REQUIRE(f.doc->run().allocation);
    CHECK(f.doc->run().allocation == cs::parseAllocation(moveTo.toStdString(), nullptr));
    CHECK(f.doc->run().name == original.front().name); // still the job shown
    CHECK(undo->count() == 1);
    CHECK(undo->undoText().startsWith(QStringLiteral("Move Job")));
    CHECK(f.allocation->text() == f.shownAllocation()); // in its own words
    CHECK(f.evaluated());                               // every job evaluated again

    // The same racks typed again: no step.
    CHECK(f.panel->editField(QStringLiteral("Allocation"), moveTo + QStringLiteral(" ")));
    CHECK(undo->count() == 1);

    undo->undo();
    CHECK(f.doc->runs() == original);
    CHECK(f.allocation->text() == f.shownAllocation());
}

TEST_CASE("Properties' Allocation refuses an overlap and text that is no allocation, saying why",
          "[jobs][gui][properties]")
{
    PropertiesWindow f;
    const auto original = f.doc->runs();
    struct Case {
        QString typed;
        QString reason;
    };
    // Its own racks but the last, and one of another job's.
    std::vector<int> overlapping = f.racksOf(0);
    overlapping.back() = f.racksOf(1).front();
    const QString other = racksText(overlapping);
    const Case c = GENERATE_COPY(values<Case>({
        {other, QStringLiteral("is not applied")},
        {QStringLiteral("gpus 0-7"), QStringLiteral("begin with \"racks\" or \"nodes\"")},
        {QStringLiteral("racks 9-2"), QStringLiteral("ends before it begins")},
    }));
    INFO(c.typed.toStdString());
    CHECK(f.panel->editField(QStringLiteral("Allocation"), c.typed));
    INFO(f.panel->problem().toStdString());
    CHECK(f.panel->problem().contains(c.reason));
    CHECK(f.doc->runs() == original);
    CHECK(f.doc->undoStack()->count() == 0);
    CHECK(f.allocation->text() == c.typed); // kept, to be corrected
    CHECK_FALSE(f.panel->commitPendingEdit());
    if (c.reason == QStringLiteral("is not applied")) { // the overlap names the other job
        CHECK(f.panel->problem().contains(QString::fromStdString(original[1].name)));
        CHECK(f.panel->problem().contains(QStringLiteral("\nAllocation: jobs ")));
    }
}

TEST_CASE("a document of one job without an allocation shows no Allocation field",
          "[jobs][gui][properties]")
{
    PropertiesWindow f("ndv5-h100-128-gpt3-175b.run.json");
    CHECK_FALSE(f.allocation->isVisibleTo(f.panel));
    CHECK_FALSE(f.panel->editField(QStringLiteral("Allocation"), QStringLiteral("racks 0")));
}
