#include "jobs.h"

namespace cs {

// Placeholder until the shared fabric lands: every job timed alone.
JobsEvaluation evaluateJobs(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
                            const EvalOptions& opts)
{
    JobsEvaluation out;
    for (const RunDesc& run : runs) {
        JobResult r;
        r.alone = evaluate(cluster, run, opts);
        r.shared = r.alone;
        r.slowedByS.assign(runs.size(), 0.0);
        out.jobs.push_back(std::move(r));
    }
    return out;
}

JobsTraffic jobsTraffic(const Topology& topology, const std::vector<RunDesc>& runs,
                        const JobsEvaluation& evaluation, const Calibration* calibration)
{
    JobsTraffic out;
    for (size_t j = 0; j < runs.size(); ++j) {
        const StepTraffic t =
            stepTraffic(topology, runs[j], evaluation.jobs[j].shared.stepTimeS, calibration);
        if (out.total.links.empty()) {
            out.total = t;
            out.jobsOn.assign(t.links.size(), 0);
        }
        for (size_t l = 0; l < t.links.size(); ++l)
            if (t.links[l].bytes > 0)
                out.jobsOn[l] |= uint64_t(1) << j;
    }
    return out;
}

} // namespace cs
