#include "profiledocument.h"

#include <QUndoCommand>
#include <QUndoStack>
#include <algorithm>

#include "document.h"
#include "profilesession.h"

namespace {

class SetExtensionsCommand : public QUndoCommand {
public:
    SetExtensionsCommand(Document* doc, cs::Extensions after, const QString& text)
        : QUndoCommand(text)
        , m_doc(doc)
        , m_before(doc->session().extensions)
        , m_after(std::move(after))
    {
    }
    void undo() override { m_doc->setExtensions(m_before); }
    void redo() override { m_doc->setExtensions(m_after); }

private:
    Document* m_doc;
    cs::Extensions m_before;
    cs::Extensions m_after;
};

// The step of a rank closest to its median, as measuredRankBreakdown takes it.
const cs::StepFigures* medianStep(const cs::RankProfile& rank)
{
    const double median = rank.medianStepS();
    const cs::StepFigures* best = nullptr;
    for (const cs::StepFigures& s : rank.steps)
        if (!best || std::abs(s.durationS - median) < std::abs(best->durationS - median))
            best = &s;
    return best;
}

} // namespace

ProfileDocument::ProfileDocument(Document* document, QObject* parent)
    : QObject(parent)
    , m_document(document)
{
    connect(document, &Document::extensionsChanged, this, &ProfileDocument::readStored);
    connect(document, &Document::modelChanged, this, [this] {
        compare();
        emit changed();
    });
    readStored();
}

QStringList ProfileDocument::files() const
{
    QStringList files;
    if (m_profile)
        for (const cs::RankProfile& r : m_profile->ranks)
            files << QString::fromStdString(r.file);
    return files;
}

std::optional<RankComparison> ProfileDocument::compareRank(int rank) const
{
    if (!m_profile || rank < 0 || rank >= m_document->placement().worldSize())
        return std::nullopt;
    const auto measure = measureOfGpu(m_document->placement().gpuOfRank(rank));
    const auto it = std::find_if(m_profile->ranks.begin(), m_profile->ranks.end(),
                                 [&](const cs::RankProfile& r) { return r.rank == rank; });
    if (!measure || it == m_profile->ranks.end())
        return std::nullopt;
    RankComparison c;
    c.measure = *measure;
    c.stage = m_document->placement().coord(rank)[cs::Dim::PP];
    c.measured = cs::measuredRankBreakdown(*it, m_comparison.groups);
    c.predicted = cs::predictedRankBreakdown(m_document->evaluation(), c.stage);
    c.predictedStepS = m_document->evaluation().stepTimeS;
    return c;
}

void ProfileDocument::setProfile(const cs::MeasuredProfile& profile, const QString& text)
{
    cs::Extensions extensions = m_document->session().extensions;
    if (profile.ranks.empty())
        extensions.erase(kMeasuredProfileKey);
    else
        extensions.set(kMeasuredProfileKey, storedProfileJson(profile));
    m_document->undoStack()->push(new SetExtensionsCommand(m_document, extensions, text));
}

void ProfileDocument::readStored()
{
    m_profile.reset();
    m_problem.clear();
    const nlohmann::json& extensions = m_document->session().extensions.value();
    if (const auto it = extensions.find(kMeasuredProfileKey); it != extensions.end()) {
        std::string error;
        m_profile = storedProfileFrom(*it, &error);
        m_problem = QString::fromStdString(error);
    }
    compare();
    emit changed();
}

void ProfileDocument::compare()
{
    m_comparison = {};
    m_measures = {};
    if (!m_profile || !m_document->hasModel())
        return;
    m_comparison = cs::compareWithPrediction(*m_profile, m_document->cluster(), m_document->run(),
                                             m_document->evaluation());
    m_measures =
        gpuMeasuresOf(*m_profile, m_document->placement(), m_document->topology().gpus().size());
}

std::optional<GpuMeasure> GpuMeasures::of(int gpu) const
{
    if (gpu < 0 || size_t(gpu) >= byGpu.size() || byGpu[size_t(gpu)].rank < 0)
        return std::nullopt;
    return byGpu[size_t(gpu)];
}

std::vector<std::optional<double>> GpuMeasures::values(MeasuredQuantity quantity) const
{
    std::vector<std::optional<double>> values(byGpu.size());
    for (size_t g = 0; g < values.size(); ++g)
        if (const auto m = of(int(g)))
            values[g] = quantity == MeasuredQuantity::Step ? m->stepVsMedian : m->exposedCommS;
    return values;
}

GpuMeasures gpuMeasuresOf(const cs::MeasuredProfile& profile, const cs::Placement& placement,
                          size_t gpus)
{
    GpuMeasures m;
    std::vector<double> steps;
    for (const cs::RankProfile& r : profile.ranks)
        if (!r.steps.empty())
            steps.push_back(r.medianStepS());
    if (!steps.empty()) {
        std::nth_element(steps.begin(), steps.begin() + long(steps.size() / 2), steps.end());
        m.medianRankStepS = steps[steps.size() / 2];
    }
    m.byGpu.assign(gpus, GpuMeasure{});
    for (const cs::RankProfile& r : profile.ranks) {
        const cs::StepFigures* s = medianStep(r);
        if (!s || r.rank >= placement.worldSize())
            continue;
        const int gpu = placement.gpuOfRank(r.rank);
        if (gpu < 0 || size_t(gpu) >= gpus)
            continue;
        const double step = r.medianStepS();
        m.byGpu[size_t(gpu)] = {
            r.rank,          step,     s->computeBusyS,
            s->exposedCommS, s->idleS, m.medianRankStepS > 0 ? step / m.medianRankStepS - 1 : 0};
    }
    return m;
}
