#include "uncertainty.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <list>
#include <mutex>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "calibrate.h"
#include "costmodel.h"
#include "statistics.h"
#include "text.h"

namespace cs {

namespace {

// How far apart two runs are once they share a generation and a kind of model: another
// precision weighs as much as eight times the GPUs.
double distance(const Likeness& a, const Likeness& b)
{
    constexpr double kDoublingsPerPrecision = 3;
    const double scale = std::abs(std::log2(a.gpus / b.gpus));
    return (a.precision == b.precision ? 0.0 : 1.0) + scale / kDoublingsPerPrecision;
}

// The errors from `least` to `largest` with their half-width in log(1 + error) times `factor`
// about their middle: a ratio of step times, so that it stays above -100 %.
std::pair<double, double> widened(double least, double largest, double factor)
{
    const double low = std::log1p(least), high = std::log1p(largest);
    const double middle = (low + high) / 2, half = (high - low) / 2 * factor;
    return {std::expm1(middle - half), std::expm1(middle + half)};
}

std::vector<ReferenceRun> readShipped(const Calibration& calibration)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(CS_MEASURED_RUNS_DIR, ec))
        if (entry.path().extension() == ".jsonl")
            files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    std::vector<MeasuredRun> rows;
    Diagnostics ignored; // the shipped files are checked by the tests
    for (const std::string& file : files) {
        std::vector<MeasuredRun> some = readMeasuredRuns(file, ignored);
        rows.insert(rows.end(), std::make_move_iterator(some.begin()),
                    std::make_move_iterator(some.end()));
    }
    return referenceRuns(rows, calibration);
}

} // namespace

Likeness likenessOf(const ClusterDesc& cluster, const RunDesc& run)
{
    Likeness l;
    const GpuSpec& gpu = cluster.gpu;
    l.tensorCoreGeneration = gpu.peakTflopsNvfp4 > 0 ? 3 : gpu.peakTflopsFp8 > 0 ? 2 : 1;
    l.precision = run.precision;
    l.experts = run.model.moe.has_value();
    const Parallelism& par = run.parallelism;
    l.gpus = double(std::max<int64_t>(1, int64_t(par.tp) * par.cp * par.pp * par.dp));
    l.family = familyOfModel(run.model.name);
    l.architecture = shapeOfModel(run.model);
    return l;
}

std::vector<ReferenceRun> referenceRuns(const std::vector<MeasuredRun>& rows,
                                        const Calibration& calibration)
{
    std::vector<ReferenceRun> references;
    references.reserve(rows.size());
    for (const MeasuredRun& r : rows) {
        const double predicted = evaluate(r.cluster, r.run, {&calibration, false}).stepTimeS;
        references.push_back(
            {r.id, likenessOf(r.cluster, r.run), predicted / r.run.measured->stepTimeS - 1});
    }
    return references;
}

Uncertainty uncertaintyOf(double predictedS, const Likeness& likeness,
                          const std::vector<ReferenceRun>& references, std::string_view without)
{
    std::vector<std::pair<double, const ReferenceRun*>> alike;
    bool familyMeasured = false;
    for (const ReferenceRun& r : references) {
        if (r.id == without)
            continue;
        familyMeasured =
            familyMeasured || r.likeness.family == likeness.family ||
            (!likeness.architecture.empty() && r.likeness.architecture == likeness.architecture);
        if (r.likeness.tensorCoreGeneration == likeness.tensorCoreGeneration &&
            r.likeness.experts == likeness.experts)
            alike.emplace_back(distance(likeness, r.likeness), &r);
    }
    Uncertainty u;
    u.familyMeasured = familyMeasured;
    if (alike.size() < size_t(kMinBasis) || !(predictedS > 0))
        return u;
    std::sort(alike.begin(), alike.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second->id < b.second->id;
    });
    alike.resize(std::min(alike.size(), size_t(kMaxBasis)));
    double least = alike.front().second->error, largest = least;
    for (const auto& [d, r] : alike) {
        least = std::min(least, r->error);
        largest = std::max(largest, r->error);
        u.nearest.push_back(r->id);
    }
    if (!familyMeasured)
        std::tie(least, largest) = widened(least, largest, 1 + kUnseenFamilyWidening);
    // measured = predicted / (1 + error): the largest error gives the shortest measured step.
    u.lowS = predictedS / (1 + largest);
    u.highS = predictedS / (1 + least);
    return u;
}

nlohmann::json uncertaintyJson(const Uncertainty& u)
{
    if (!u.known())
        return {{"basis", 0}};
    return {{"low_s", u.lowS},
            {"high_s", u.highS},
            {"basis", u.basis()},
            {"nearest", u.nearest},
            {"family_measured", u.familyMeasured}};
}

std::string rangeText(const Uncertainty& u)
{
    if (!u.known())
        return "no measured run like this one";
    return fixed(u.lowS, 3) + "-" + fixed(u.highS, 3) + " s, from " + std::to_string(u.basis()) +
           " measured runs like this one" +
           (u.familyMeasured ? "" : "; none of its model family, so widened");
}

bool tied(const Uncertainty& a, const Uncertainty& b)
{
    return a.known() && b.known() && a.lowS <= b.highS && b.lowS <= a.highS;
}

void RangeCoverage::add(const Uncertainty& u, double measuredS)
{
    if (!u.known()) {
        ++m_unknown;
        return;
    }
    m_inside += u.lowS <= measuredS && measuredS <= u.highS ? 1 : 0;
    const double middle = (u.lowS + u.highS) / 2;
    m_halfWidths.push_back((u.highS - u.lowS) / 2 / middle);
}

void RangeCoverage::merge(const RangeCoverage& other)
{
    m_inside += other.m_inside;
    m_unknown += other.m_unknown;
    m_halfWidths.insert(m_halfWidths.end(), other.m_halfWidths.begin(), other.m_halfWidths.end());
}

double RangeCoverage::medianHalfWidth() const
{
    return median(m_halfWidths);
}

const std::vector<ReferenceRun>& shippedReferenceRuns(const Calibration& calibration)
{
    static std::mutex mutex;
    // One calibration is in use at a time in practice; a list, so that what was returned stays.
    static std::list<std::pair<Calibration, std::vector<ReferenceRun>>> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [cal, runs] : cache)
        if (cal == calibration)
            return runs;
    cache.emplace_back(calibration, readShipped(calibration));
    return cache.back().second;
}

} // namespace cs
