// The Properties panel as a user meets it: the wheel scrolls the panel and edits a field only
// once it has the focus; refusals name the field, the rule and what would work; a size that
// another follows says so.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QWheelEvent>
#include <nlohmann/json.hpp>

#include "calibration.h"
#include "guitestutil.h"
#include "loader.h"
#include "propertiespanel.h"

namespace {

cs::ClusterRun h200()
{
    cs::Diagnostics diags;
    auto loaded = cs::loadFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json").toStdString(), diags);
    REQUIRE(loaded);
    return {*loaded->cluster, *loaded->run};
}

void wheelOver(QWidget* widget, int notches)
{
    const QPointF at(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent wheel(at, widget->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &wheel);
}

} // namespace

TEST_CASE("the wheel over a field scrolls the panel and edits only a focused field", "[properties]")
{
    PropertiesPanel panel;
    const cs::ClusterRun values = h200();
    panel.setValues(values.cluster, values.run);
    panel.resize(320, 300); // short: the panel scrolls
    panel.show();
    QApplication::setActiveWindow(&panel);
    int edits = 0;
    QObject::connect(&panel, &PropertiesPanel::editRequested, [&] { ++edits; });
    auto* racks = panel.findChild<QSpinBox*>(QStringLiteral("Racks"));
    REQUIRE(racks);
    auto* scroll = panel.findChild<QScrollArea*>();
    REQUIRE(scroll);
    QApplication::processEvents();
    REQUIRE(scroll->verticalScrollBar()->maximum() > 0);

    REQUIRE_FALSE(racks->hasFocus());
    scroll->verticalScrollBar()->setValue(0);
    wheelOver(racks, -1);
    CHECK(racks->value() == values.cluster.racks);
    CHECK(edits == 0);
    CHECK(scroll->verticalScrollBar()->value() > 0); // the panel scrolled instead
    CHECK(racks->focusPolicy() == Qt::StrongFocus);  // the wheel does not take the focus

    racks->setFocus(Qt::MouseFocusReason);
    REQUIRE(racks->hasFocus());
    wheelOver(racks, 1);
    CHECK(racks->value() == values.cluster.racks + 1);
    CHECK(edits == 1);
}

TEST_CASE("a refused value names the field, the rule and values that work", "[properties]")
{
    PropertiesPanel panel;
    const cs::ClusterRun values = h200();
    panel.setValues(values.cluster, values.run);
    int edits = 0;
    QObject::connect(&panel, &PropertiesPanel::editRequested, [&] { ++edits; });
    REQUIRE(panel.editField(QStringLiteral("Micro-batch"), 3));
    CHECK(panel.problem().toStdString() ==
          "Micro-batch cannot be 3. Global batch: global batch 2048 must be divisible by dp x "
          "micro = 16 x 3 = 48. Values that work: 1, 2, 4, 8, 16, 32, 64, 128.");
    CHECK(edits == 0);
}

TEST_CASE("a change of TP that changes DP says so", "[properties]")
{
    PropertiesPanel panel;
    const cs::ClusterRun values = h200();
    panel.setValues(values.cluster, values.run);
    QString what;
    cs::RunDesc edited;
    QObject::connect(&panel, &PropertiesPanel::editRequested,
                     [&](const cs::ClusterDesc&, const cs::RunDesc& run, const QString& text) {
                         what = text;
                         edited = run;
                     });
    REQUIRE(panel.editField(QStringLiteral("TP"), 8));
    CHECK(edited.parallelism.tp == 8);
    CHECK(edited.parallelism.dp == 8);
    CHECK(what == "Set TP to 8 (DP 16 -> 8)");
    CHECK(panel.notice() == "TP 8 changed DP 16 -> 8 too, so that TP x CP x PP x DP = 512 GPUs.");
    panel.setValues(values.cluster, edited); // the document shows the edit: the notice stays
    CHECK_FALSE(panel.notice().isEmpty());
    panel.setValues(values.cluster, values.run); // undone: it goes
    CHECK(panel.notice().isEmpty());
}

TEST_CASE("the expert fields edit the run: EP, and the all-to-all overlap the model applies",
          "[properties][moe]")
{
    cs::Diagnostics diags;
    auto loaded = cs::loadFile(sampleFile("gb200-16-deepseek-v3.run.json").toStdString(), diags);
    REQUIRE(loaded);
    PropertiesPanel panel;
    panel.setValues(*loaded->cluster, *loaded->run);
    cs::RunDesc edited;
    QObject::connect(
        &panel, &PropertiesPanel::editRequested,
        [&](const cs::ClusterDesc&, const cs::RunDesc& run, const QString&) { edited = run; });
    // MXFP8 on GB200: the full-iteration recipe overlaps it unless the run says otherwise.
    auto* overlap = panel.findChild<QCheckBox*>(QStringLiteral("All-to-all overlap"));
    REQUIRE(overlap);
    CHECK(overlap->isChecked());
    REQUIRE(panel.editField(QStringLiteral("All-to-all overlap"), false));
    const cs::GpuSpec& gpu = loaded->cluster->gpu;
    CHECK_FALSE(cs::allToAllOverlapOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(edited.extensions.value().at(cs::kAllToAllOverlapKey) == false);
    auto* fp8Attention = panel.findChild<QCheckBox*>(QStringLiteral("FP8 attention"));
    REQUIRE(fp8Attention);
    CHECK(fp8Attention->isChecked());
    REQUIRE(panel.editField(QStringLiteral("FP8 attention"), false));
    CHECK_FALSE(cs::fp8AttentionOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(edited.extensions.value().at(cs::kFp8AttentionKey) == false);
    auto* mxfp8 = panel.findChild<QCheckBox*>(QStringLiteral("MXFP8"));
    REQUIRE(mxfp8);
    CHECK(mxfp8->isChecked());
    // Long tips are paragraphs, which Qt wraps, not one line running off the screen.
    CHECK(Qt::mightBeRichText(mxfp8->toolTip()));
    CHECK(mxfp8->toolTip().contains(QStringLiteral("blocks of 32 (Transformer Engine")));
    REQUIRE(panel.editField(QStringLiteral("MXFP8"), false));
    CHECK_FALSE(cs::fp8BlockScalingOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(edited.extensions.value().at(cs::kFp8BlockScalingKey) == false);

    // The LM head stays in BF16 unless the run says (Megatron-Core's default); it is an edit
    // of the run like the others.
    auto* head = panel.findChild<QCheckBox*>(QStringLiteral("MXFP8 LM head"));
    REQUIRE(head);
    CHECK_FALSE(head->isChecked());
    REQUIRE(panel.editField(QStringLiteral("MXFP8 LM head"), true));
    CHECK(edited.extensions.value().at(cs::kFp8OutputProjKey) == true);

    auto* nvls = panel.findChild<QCheckBox*>(QStringLiteral("NVLink SHARP"));
    REQUIRE(nvls);
    CHECK_FALSE(nvls->isChecked()); // off unless the run turns it on
    REQUIRE(panel.editField(QStringLiteral("NVLink SHARP"), true));
    CHECK(cs::nvlsOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(edited.extensions.value().at(cs::kNvlsKey) == true);

    auto* tpOverlap = panel.findChild<QCheckBox*>(QStringLiteral("TP overlap"));
    REQUIRE(tpOverlap);
    CHECK(tpOverlap->isChecked()); // an MXFP8 run: its TP collectives run under the GEMMs
    REQUIRE(panel.editField(QStringLiteral("TP overlap"), false));
    CHECK_FALSE(cs::tpCommOverlapOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(edited.extensions.value().at(cs::kTpCommOverlapKey) == false);

    auto* biases = panel.findChild<QCheckBox*>(QStringLiteral("Linear biases"));
    REQUIRE(biases);
    CHECK_FALSE(biases->isChecked()); // DeepSeek-V3's linear layers have none
    REQUIRE(panel.editField(QStringLiteral("Linear biases"), true));
    CHECK(cs::biasedLinearsOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(edited.extensions.value().at(cs::kBiasLinearKey) == true);

    // gpt-oss's work outside the fused kernels, and the loss in Transformer Engine's kernels:
    // off for this run, on where the run says.
    const std::pair<const char*, const char*> unfused[] = {
        {"GLU clamp apart", cs::kGluClampKey},
        {"RoPE unfused", cs::kUnfusedRopeKey},
        {"TE cross-entropy", cs::kTeCrossEntropyKey}};
    for (const auto& [label, key] : unfused) {
        INFO(label);
        auto* box = panel.findChild<QCheckBox*>(QString::fromUtf8(label));
        REQUIRE(box);
        CHECK_FALSE(box->isChecked());
        REQUIRE(panel.editField(QString::fromUtf8(label), true));
        CHECK(edited.extensions.value().at(key) == true);
    }
    CHECK(cs::unfusedRopeOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(cs::teCrossEntropyOf(edited, gpu, cs::frameworkOf(edited, gpu)));

    auto* dpOverlap = panel.findChild<QCheckBox*>(QStringLiteral("DP overlap"));
    REQUIRE(dpOverlap);
    CHECK(dpOverlap->isChecked()); // Megatron-Core reduces gradients under the backward pass
    REQUIRE(panel.editField(QStringLiteral("DP overlap"), false));
    CHECK_FALSE(cs::overlapGradReduceOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(edited.extensions.value().at(cs::kOverlapGradReduceKey) == false);

    auto* flex = panel.findChild<QCheckBox*>(QStringLiteral("DeepEP / HybridEP"));
    REQUIRE(flex);
    CHECK(flex->isChecked()); // the 2026 MXFP8 recipe runs HybridEP
    REQUIRE(panel.editField(QStringLiteral("DeepEP / HybridEP"), false));
    CHECK_FALSE(cs::flexDispatcherOf(edited, gpu, cs::frameworkOf(edited, gpu)));
    CHECK(edited.extensions.value().at(cs::kFlexDispatcherKey) == false);

    auto* offload = panel.findChild<QSpinBox*>(QStringLiteral("Offloaded layers"));
    REQUIRE(offload);
    CHECK(offload->value() == 0);
    REQUIRE(panel.editField(QStringLiteral("Offloaded layers"), 12));
    CHECK(cs::activationOffloadLayersOf(edited) == 12);
    REQUIRE(panel.editField(QStringLiteral("Offloaded layers"), 0)); // none: the key goes
    CHECK_FALSE(edited.extensions.contains(cs::kActivationOffloadKey));

    REQUIRE(panel.editField(QStringLiteral("EP"), 32));
    CHECK(edited.parallelism.ep == 32);
    REQUIRE(panel.editField(QStringLiteral("EP"), 3)); // 3 does not divide 256 experts
    INFO(panel.problem().toStdString());
    CHECK(panel.problem().startsWith("EP cannot be 3"));
    CHECK(edited.parallelism.ep == 32);
}

TEST_CASE("a name longer than its field shows its start", "[properties]")
{
    PropertiesPanel panel;
    cs::ClusterRun values = h200();
    values.cluster.name = "GB200 NVL72, 128 racks in four rows of thirty-two";
    panel.setValues(values.cluster, values.run);
    auto* name = panel.findChild<QLineEdit*>(QStringLiteral("Name"));
    REQUIRE(name);
    CHECK(name->text() == QString::fromStdString(values.cluster.name));
    CHECK(name->cursorPosition() == 0);
}
