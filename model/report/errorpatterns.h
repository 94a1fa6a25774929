#pragma once
// Before a row is called an outlier, the rows that share its GPU, precision and kind of model
// (dense, or with experts) are looked at: one row off alone is an outlier, rows of a group off the
// same way are a pattern, which is physics the model lacks (docs/cost-model.md, "Accuracy").
// `validate-runs` prints both after its table.

#include <string>
#include <vector>

#include "description.h"
#include "measuredruns.h"

namespace cs {

// A group's mean error at or past which its rows are a pattern, and the rows it needs.
inline constexpr double kPatternMeanError = 0.05;
inline constexpr int kPatternMinRows = 3;
// A row at or past this error is looked at against its group.
inline constexpr double kLargeRowError = 0.2;

struct ErrorGroup {
    std::string gpu;
    Precision precision = Precision::BF16;
    bool experts = false;
    std::vector<size_t> rows; // indices into the rows given
    double meanError = 0;     // signed: predicted / measured - 1, averaged
    double mape = 0;
    std::vector<std::string> families; // modelFamilyOf, sorted
    bool pattern() const;
};

// The groups of `runs` (whose model errors are `errors`, index for index), sorted by GPU,
// precision, then dense before experts.
std::vector<ErrorGroup> errorGroups(const std::vector<MeasuredRun>& runs,
                                    const std::vector<double>& errors);

// A row off by kLargeRowError or more, and what the other rows of its group say of it, and those
// of them of the same model (on the same GPU and precision, in another layout or framework
// version).
struct LargeRowError {
    size_t row = 0;
    double error = 0;
    int others = 0;        // the other rows of its group
    double othersMean = 0; // their mean error
    int modelOthers = 0;   // the other rows of its group of the same model
    double modelMean = 0;
    // The group's other rows, or those of the same model, err the same way by kPatternMeanError or
    // more: a pattern, not an outlier.
    bool sharedByOthers = false;
};
std::vector<LargeRowError> largeRowErrors(const std::vector<ErrorGroup>& groups,
                                          const std::vector<MeasuredRun>& runs,
                                          const std::vector<double>& errors);

// "GB200 bf16 experts".
std::string groupName(const ErrorGroup& g);

} // namespace cs
