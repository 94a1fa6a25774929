#include "profilescene.h"

#include <memory>

#include "document.h"
#include "measuredcolors.h"
#include "profiledocument.h"
#include "profilesession.h"
#include "topologyscene.h"

void setMeasuredColorSource(TopologyScene& scene, const Document& doc,
                            std::function<const GpuMeasures*()> measures)
{
    scene.addColorSource([&doc, measures = std::move(measures)](
                             const cs::ColorMode& mode) -> std::optional<GpuColoring> {
        if (!isMeasuredMode(mode) || !doc.hasModel())
            return std::nullopt;
        const cs::Topology& topology = doc.topology();
        const GpuMeasures* m = measures();
        const auto quantity = mode.kind == cs::ColorKind::MeasuredStep
                                  ? MeasuredQuantity::Step
                                  : MeasuredQuantity::Communication;
        std::vector<std::optional<double>> values =
            m ? m->values(quantity) : std::vector<std::optional<double>>();
        values.resize(topology.gpus().size());
        GpuColoring c = measuredColoring(mode, values, m != nullptr, m ? m->medianRankStepS : 0);
        markUnrankedGpus(c.colors, topology, doc.placement());
        return c;
    });
}

void colorByStoredProfile(TopologyScene& scene, const Document& doc)
{
    const nlohmann::json& extensions = doc.session().extensions.value();
    const auto stored = extensions.find(kMeasuredProfileKey);
    if (stored == extensions.end() || !doc.hasModel())
        return;
    std::string error;
    const auto profile = storedProfileFrom(*stored, &error);
    if (!profile)
        return;
    auto measures = std::make_shared<const GpuMeasures>(
        gpuMeasuresOf(*profile, doc.placement(), doc.topology().gpus().size()));
    setMeasuredColorSource(scene, doc, [measures] { return measures.get(); });
}
