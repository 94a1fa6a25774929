// Rows grouped by what they measure (a model family, a model by its shape, a GPU), and each
// group held out of the fit in turn and predicted by the constants fitted on the others
// (declared in calibrate.h).
#include "calibrate.h"

#include <chrono>
#include <set>

#include "text.h"

namespace cs {

std::string modelFamilyOf(const MeasuredRun& row)
{
    return familyOfModel(row.run.model.name);
}

std::string familyOfModel(const std::string& modelName)
{
    // Longest prefixes first: "gpt-oss" before "gpt", "llama 4" before "llama".
    static const std::pair<const char*, const char*> kFamilies[] = {
        {"gpt-oss", "gpt-oss"},      {"gpt", "GPT-3"},
        {"llama 4", "Llama 4"},      {"llama", "Llama 3"},
        {"deepseek", "DeepSeek-V3"}, {"qwen", "Qwen3"},
        {"kimi", "Kimi K2"},         {"mixtral", "Mixtral"},
        {"nemotron", "Nemotron"},
    };
    const std::string name = lowerCase(modelName);
    for (const auto& [prefix, family] : kFamilies)
        if (name.rfind(prefix, 0) == 0)
            return family;
    const std::string first = modelName.substr(0, modelName.find(' '));
    return first.empty() ? "unnamed" : first;
}

std::string shapeOfModel(const ModelShape& m)
{
    std::string shape = std::to_string(m.layers) + " layers, " + std::to_string(m.hidden) +
                        " wide, " + std::to_string(m.heads) + "/" + std::to_string(m.kvHeads) +
                        " heads, FFN " + std::to_string(m.ffnHidden);
    if (m.moe)
        shape += ", " + std::to_string(m.moe->experts) + " experts of " +
                 std::to_string(m.moe->ffnHidden) + ", top " + std::to_string(m.moe->topK);
    return shape;
}

std::string modelShapeOf(const MeasuredRun& row)
{
    return shapeOfModel(row.run.model);
}

std::string gpuOf(const MeasuredRun& row)
{
    return row.cluster.gpu.name;
}

std::vector<FamilyError> crossValidate(const std::vector<MeasuredRun>& rows,
                                       const Calibration& fitted, const FitOptions& options,
                                       const FamilyOf& familyOf)
{
    std::set<std::string> families;
    for (const MeasuredRun& r : rows)
        families.insert(familyOf(r));
    const std::vector<RowError> all = predictRows(rows, fitted);
    std::vector<FamilyError> out;
    for (const std::string& family : families) {
        if (std::chrono::steady_clock::now() >= options.deadline)
            break;
        std::vector<MeasuredRun> training, held;
        std::vector<RowError> fittedErrors;
        for (size_t i = 0; i < rows.size(); ++i) {
            (familyOf(rows[i]) == family ? held : training).push_back(rows[i]);
            if (familyOf(rows[i]) == family)
                fittedErrors.push_back(all[i]);
        }
        // Efficiencies the training rows do not inform are dropped by the fit itself.
        const Fit fit = calibrate(training, fitted, options);
        out.push_back({family, int(held.size()), meanAbsoluteError(fittedErrors),
                       meanAbsoluteError(predictRows(held, fit.calibration)), fit.calibration});
    }
    return out;
}

} // namespace cs
