// calibrate: the cost model's constants fitted on measured runs.

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include <nlohmann/json.hpp>

#include "calibrate.h"
#include "common.h"
#include "fileio.h"
#include "gemm.h"
#include "options.h"
#include "text.h"
#include "uncertainty.h"

namespace cs::cli {

namespace {
constexpr double kDefaultMaxSeconds = 3600;
} // namespace

const CommandSpec kCalibrateSpec{
    "calibrate",
    "FILE.jsonl...",
    1,
    SIZE_MAX,
    {{"--output", "CALIBRATION.json", "where to write the fitted constants", "-o",
      FileRole::Output},
     {"--cross-validate", "",
      "also fit without each model family, then each model, then each GPU, and predict it "
      "(slow)"},
     {"--closed-form-only", "", "fit on the closed form alone: faster, for exploring"},
     {"--start",
      "CALIBRATION.json",
      "start the fit from these constants (default: built-in)",
      {},
      FileRole::Input},
     {"--max-seconds", "N",
      "stop after about N seconds with the best constants so far (default 3600)"}},
    "fits the cost model's constants on measured runs",
    "Fits the cost model's constants on the measured runs of every FILE.jsonl: one GEMM\n"
    "efficiency per GPU architecture and precision present, and the shared constants (a GEMM\n"
    "tile's fixed cost, grouped GEMMs, attention, memory, scale-out and all-to-all efficiency,\n"
    "overlaps, host time per layer), each within its bounds and only where two or more model\n"
    "families inform it (it is named otherwise), by coordinate descent on the mean absolute\n"
    "error of the dense runs (over 4 %) and of the runs with experts (over 8 %) plus each\n"
    "row's excess over 12 % (20 % with experts). Prints the constants, what informs each, the\n"
    "fit's MAPE and its worst rows; -o writes them for --calibration FILE. A fit that runs out\n"
    "of time (--max-seconds) says so, and prints and writes the best constants found so far."};

namespace {

void printConstants(const Calibration& c, std::ostream& out)
{
    auto table = [&](const char* title, const std::vector<GemmEfficiency>& entries) {
        if (entries.empty())
            return;
        out << title << " (of the dense peak, a full wave of large tiles, inner dimension "
            << int(kReferenceK) << "):\n";
        for (const GemmEfficiency& e : entries)
            out << "  " << e.gpu << std::string(e.gpu.size() < 16 ? 16 - e.gpu.size() : 1, ' ')
                << toString(e.precision)
                << std::string(7 - std::string(toString(e.precision)).size(), ' ')
                << fixed(e.efficiency, 3) << "\n";
    };
    table("GEMM efficiency by architecture", c.gemm);
    table("expert (grouped) GEMM efficiency measured apart", c.grouped);
    out << "  other architectures and precisions: " << fixed(c.defaultGemmEfficiency, 3)
        << " (the median)\n";
    out << "shared:\n";
    for (const FittedConstant& k : fittedConstants())
        out << "  " << k.key << std::string(k.key.size() < 24 ? 24 - k.key.size() : 1, ' ')
            << fixed(c.*k.field, 4) << "   (" << numberText(k.min) << " to " << numberText(k.max)
            << ")\n";
}

// Which rows and model families inform each constant; one family alone is named, and the fit
// leaves that constant at its default.
void printBases(const std::vector<KnobBasis>& bases, std::ostream& out)
{
    out << "what informs each constant (rows, model families):\n";
    for (const KnobBasis& b : bases) {
        out << "  " << printable(b.knob, 40)
            << std::string(b.knob.size() < 28 ? 28 - b.knob.size() : 1, ' ') << b.rows << " rows, "
            << b.modelFamilies.size()
            << (b.modelFamilies.size() == 1
                    ? " family: " + printable(b.modelFamilies.front()) +
                          " alone: not fitted (it would explain that family, not the hardware)"
                    : " families")
            << "\n";
    }
}

void printErrors(const std::vector<RowError>& rows, std::ostream& out)
{
    std::map<std::string, std::vector<RowError>> byFamily;
    for (const RowError& r : rows)
        byFamily[r.family].push_back(r);
    out << "MAPE " << percent(meanAbsoluteError(rows), 2) << " over " << rows.size() << " runs\n";
    for (const auto& [family, members] : byFamily)
        out << "  " << printable(family, 40) << ": " << percent(meanAbsoluteError(members), 2)
            << " over " << members.size() << "\n";
    std::vector<RowError> worst = rows;
    std::sort(worst.begin(), worst.end(), [](const RowError& a, const RowError& b) {
        return std::abs(a.error()) > std::abs(b.error());
    });
    worst.resize(std::min<size_t>(worst.size(), 5));
    out << "worst rows:\n";
    for (const RowError& r : worst)
        out << "  " << printable(r.id, 60) << "  " << signedPercentText(r.error()) << "\n";
}

// The ranges of a held-out family's rows as a user would get them: its predictions by the
// constants fitted without it, their ranges from the other rows' errors under those constants.
RangeCoverage heldOutRanges(const std::vector<MeasuredRun>& rows, const FamilyError& f,
                            const FamilyOf& familyOf)
{
    std::vector<MeasuredRun> training, held;
    for (const MeasuredRun& r : rows)
        (familyOf(r) == f.family ? held : training).push_back(r);
    const std::vector<ReferenceRun> references = referenceRuns(training, f.heldOutFit);
    const std::vector<ReferenceRun> predicted = referenceRuns(held, f.heldOutFit);
    RangeCoverage coverage;
    for (size_t i = 0; i < held.size(); ++i) {
        const double measured = held[i].run.measured->stepTimeS;
        coverage.add(
            uncertaintyOf(measured * (1 + predicted[i].error), predicted[i].likeness, references),
            measured);
    }
    return coverage;
}

void printCrossValidation(const std::vector<MeasuredRun>& rows, const Calibration& fitted,
                          const FitOptions& options, double maxSeconds, std::ostream& out)
{
    FitOptions quiet;
    quiet.closedFormOnly = options.closedFormOnly;
    quiet.deadline = options.deadline;
    const std::pair<const char*, FamilyOf> groupings[] = {
        {"model family", modelFamilyOf}, {"model (its shape)", modelShapeOf}, {"GPU", gpuOf}};
    for (const auto& [what, familyOf] : groupings) {
        out << "cross-validation, each " << what
            << " predicted by constants fitted on the others:\n";
        const std::vector<FamilyError> families = crossValidate(rows, fitted, quiet, familyOf);
        RangeCoverage all;
        for (const FamilyError& f : families) {
            const RangeCoverage c = heldOutRanges(rows, f, familyOf);
            out << "  " << printable(f.family, 80) << ": fitted " << percent(f.fittedMape, 2)
                << ", held out " << percent(f.heldOutMape, 2) << " over " << f.rows
                << "; range holds " << c.inside() << " of " << c.withRange() << "\n";
            all.merge(c);
        }
        out << "  ranges of the rows held out, made from the others: " << coverageText(all) << "\n";
        if (std::chrono::steady_clock::now() >= options.deadline) {
            out << "Cross-validation stopped early after " << numberText(maxSeconds)
                << " s (--max-seconds): " << families.size() << " held out by " << what
                << "; the last may not have settled.\n";
            return;
        }
    }
}

} // namespace

int runCalibrate(const Args& args, Io io)
{
    const auto start = std::chrono::steady_clock::now(); // --max-seconds counts everything
    auto parsed = parseCommand(kCalibrateSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const std::optional<double> maxSeconds =
        p.positiveNumber("--max-seconds", kDefaultMaxSeconds, io);
    if (!maxSeconds)
        return kExitUsage;
    Diagnostics diags;
    std::vector<MeasuredRun> rows;
    for (const std::string& file : p.positional) {
        std::vector<MeasuredRun> some = readMeasuredRuns(file, diags);
        rows.insert(rows.end(), some.begin(), some.end());
    }
    printDiagnostics(diags, io.err);
    if (rows.empty())
        return kExitBadInput;
    Calibration first = defaultCalibration();
    if (const auto path = p.value("--start")) {
        Diagnostics startDiags;
        const auto read = readCalibration(*path, startDiags);
        if (!read) {
            printDiagnostics(startDiags, io.err);
            return kExitBadInput;
        }
        first = *read;
    }
    FitOptions options;
    options.closedFormOnly = p.has("--closed-form-only");
    options.progress = [&](const std::string& line) { io.err << "  " << line << "\n"; };
    options.deadline = deadlineAfter(start, *maxSeconds);
    const Fit fit = calibrate(rows, first, options);
    if (fit.stoppedEarly)
        io.out << "Stopped early after " << numberText(*maxSeconds)
               << " s (--max-seconds): the best constants found so far, not a settled fit.\n";
    printConstants(fit.calibration, io.out);
    printBases(fit.bases, io.out);
    printErrors(fit.rows, io.out);
    if (p.has("--cross-validate"))
        printCrossValidation(rows, fit.calibration, options, *maxSeconds, io.out);
    if (const auto output = p.value("--output")) {
        Diagnostics writeDiags;
        if (!writeFileAtomically(*output, toJson(fit.calibration).dump(2) + "\n", writeDiags)) {
            printDiagnostics(writeDiags, io.err);
            return kExitBadInput;
        }
        io.out << "wrote " << printablePath(*output) << "\n";
    }
    return diags.empty() ? kExitOk : kExitBadInput;
}

} // namespace cs::cli
