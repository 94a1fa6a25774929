#include "commtotals.h"

namespace cs {

void fillCommTotals(const Workload& w, int critical, double ppTotal, double dpStepTotal,
                    double ppScaleOut, Evaluation& e)
{
    for (Dim d : kAllDims) {
        double total = 0;
        for (int k = 0; k < w.v; ++k)
            total += w.m * w.commPerOp[w.op(critical, k)][d];
        e.commTotalS[d] = total;
    }
    e.commTotalS[Dim::PP] = ppTotal;
    e.commTotalS[Dim::DP] += dpStepTotal; // FSDP's per-layer traffic is per op
    const Breakdown& bd = e.breakdown;
    e.exposedScaleOutS = ppScaleOut;
    for (Dim d : kAllDims) {
        if (d != Dim::PP && w.dims[d].scaleOut)
            e.exposedScaleOutS += bd.exposed[d];
    }
}

} // namespace cs
