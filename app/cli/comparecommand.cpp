// compare: two runs side by side, raw and per GPU and per token, every input that differs and
// the breakdown difference that explains the gap (model/report).

#include <algorithm>
#include <ostream>

#include "common.h"
#include "comparison.h"
#include "options.h"
#include "text.h"

namespace cs::cli {

const CommandSpec kCompareSpec{
    "compare",
    "CLUSTER_A RUN_A CLUSTER_B RUN_B",
    4,
    4,
    {{"--json", "", "print {a, b, normalized, raw, differences, breakdown_delta, ...}"}},
    "two runs side by side, raw and per GPU, and what explains the gap",
    "Evaluates RUN_A on CLUSTER_A and RUN_B on CLUSTER_B and prints them side by side: the raw\n"
    "figures and the same per GPU and per token (runs on different GPU counts compare there),\n"
    "every input that differs, the critical-path breakdown of each step with the difference\n"
    "per component (B minus A; the differences add up to the step-time difference), and, when\n"
    "the GPUs differ, each layout on the other GPU, which tells the GPU's share of the gap\n"
    "from the layout's. --json: `a` and `b` as `evaluate --json`, `normalized` (figures per\n"
    "GPU and per token as [a, b]; `ratio`: tokens per second per GPU, B over A), `raw`,\n"
    "`differences` (path, label, a, b), `breakdown`, `breakdown_gpu_s_per_token`,\n"
    "`breakdown_delta`, `what_if`, `one_at_a_time` (B with each other input at A's value) and\n"
    "`findings`."};

namespace {

// Columns padded to their widest cell; the first left-aligned, the others right-aligned.
class TextTable {
public:
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
    void print(std::ostream& out, const std::string& indent = "  ") const
    {
        std::vector<size_t> widths;
        for (const auto& row : m_rows)
            for (size_t i = 0; i < row.size(); ++i) {
                widths.resize(std::max(widths.size(), row.size()));
                widths[i] = std::max(widths[i], row[i].size());
            }
        for (const auto& row : m_rows) {
            out << indent;
            for (size_t i = 0; i < row.size(); ++i) {
                const std::string pad(widths[i] - row[i].size(), ' ');
                out << (i == 0 ? row[i] + pad : "  " + pad + row[i]);
            }
            out << "\n";
        }
    }

private:
    std::vector<std::vector<std::string>> m_rows;
};

std::string signedFixed(double v, int decimals)
{
    return (v > 0 ? "+" : "") + fixed(v, decimals);
}

std::string ratioText(const Figure& f)
{
    const std::optional<double> r = f.ratio();
    return r ? fixed(*r, 3) : "-";
}

void printSide(const char* letter, const ClusterRun& side, std::ostream& out)
{
    out << letter << "  " << printable(side.run.name) << "\n   on " << printable(side.cluster.name)
        << "\n";
    for (const std::string& notes : {notesOf(side.run), notesOf(side.cluster)})
        if (!notes.empty())
            out << "   notes: " << printable(notes, 2000) << "\n";
}

void printComparison(const Comparison& c, std::ostream& out)
{
    printSide("A", c.a, out);
    printSide("B", c.b, out);
    for (bool normalized : {false, true}) {
        out << "\n" << (normalized ? "per GPU and per token" : "figures") << "\n";
        TextTable t;
        t.add({"", "A", "B", "B / A"});
        for (const Figure& f : c.figures)
            if (f.normalized == normalized)
                t.add({f.label, figureText(f.unit, f.a), figureText(f.unit, f.b), ratioText(f)});
        t.print(out);
    }
    out << "\nrange of the measured step\n  A  " << rangeText(c.rangeA) << "\n  B  "
        << rangeText(c.rangeB) << "\n";

    out << "\ninputs that differ\n";
    if (c.differences.empty()) {
        out << "  none\n";
    } else {
        TextTable t;
        t.add({"", "A", "B"});
        for (const InputDifference& d : c.differences)
            t.add({d.label, printable(inputText(d.a)), printable(inputText(d.b))});
        t.print(out);
    }

    out << "\nbreakdown on the critical path (seconds; GPU-ms per token)\n";
    TextTable t;
    t.add({"", "A", "B", "B - A", "A per token", "B per token", "B - A"});
    for (const BreakdownRow& r : c.breakdown)
        t.add({r.label, fixed(r.a, 4), fixed(r.b, 4), signedFixed(r.delta(), 4),
               fixed(r.aPerToken * 1e3, 4), fixed(r.bPerToken * 1e3, 4),
               signedFixed(r.deltaPerToken() * 1e3, 4)});
    const Figure& perToken = *c.figure("gpu_s_per_token");
    t.add({"step", fixed(c.evalA.stepTimeS, 4), fixed(c.evalB.stepTimeS, 4),
           signedFixed(c.evalB.stepTimeS - c.evalA.stepTimeS, 4), fixed(perToken.a * 1e3, 4),
           fixed(perToken.b * 1e3, 4), signedFixed(perToken.difference() * 1e3, 4)});
    t.print(out);

    if (!c.whatIfs.empty() || !c.oneAtATime.empty()) {
        out << "\nwhat if\n";
        TextTable w;
        std::vector<WhatIf> all = c.whatIfs;
        all.insert(all.end(), c.oneAtATime.begin(), c.oneAtATime.end());
        for (const WhatIf& x : all)
            w.add({x.label,
                   x.valid ? figureText(FigureUnit::Rate, x.tokensPerSPerGpu) + " tokens/s per GPU"
                           : printable(x.why),
                   x.valid ? fixed(x.memoryGiBPerGpu, 1) + " of " + fixed(x.hbmGiB, 0) + " GiB" +
                                 (x.fitsMemory ? "" : " (does NOT fit)")
                           : ""});
        w.print(out);
    }
    out << "\nwhere the difference comes from\n";
    for (const std::string& f : c.findings)
        out << "  - " << f << "\n";
}

} // namespace

int runCompare(const Args& args, Io io)
{
    auto parsed = parseCommand(kCompareSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const std::optional<ClusterRun> a =
        loadClusterAndRun(p.positional[0], p.positional[1], true, io);
    const std::optional<ClusterRun> b =
        loadClusterAndRun(p.positional[2], p.positional[3], true, io);
    if (!a || !b)
        return kExitBadInput;
    const Comparison c = compareRuns(*a, *b);
    if (p.has("--json"))
        io.out << comparisonJson(c).dump(2) << "\n";
    else
        printComparison(c, io.out);
    return kExitOk;
}

} // namespace cs::cli
