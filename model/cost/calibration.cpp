#include "calibration.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fileio.h"
#include "jsonfields.h"
#include "loader.h"

namespace cs {

namespace {

using nlohmann::json;

constexpr const char* kCalibrationFormat = "clusterscope/calibration@1";

double lookup(const std::vector<GemmEfficiency>& table, std::string_view gpu, Precision p,
              double fallback)
{
    for (const GemmEfficiency& e : table) {
        if (e.gpu == gpu && e.precision == p)
            return e.efficiency;
    }
    return fallback;
}

// A GPU's own entry, else its architecture's; below 0 when neither is in the table.
double efficiencyOf(const std::vector<GemmEfficiency>& table, const GpuSpec& gpu, Precision p)
{
    const double own = lookup(table, gpu.name, p, -1);
    return own > 0 ? own : lookup(table, gpu.architectureName(), p, -1);
}

json tableJson(const std::vector<GemmEfficiency>& table)
{
    json j = json::array();
    for (const GemmEfficiency& e : table)
        j.push_back(
            {{"gpu", e.gpu}, {"precision", toString(e.precision)}, {"efficiency", e.efficiency}});
    return j;
}

void readTable(FieldReader& top, const std::string& key, std::vector<GemmEfficiency>& out,
               const std::string& file, Diagnostics& diags)
{
    const json* list = top.readArray(key, Need::Optional);
    if (!list)
        return;
    out.clear();
    for (size_t i = 0; i < list->size(); ++i) {
        const std::string pointer = top.pointerOf(key) + "/" + std::to_string(i);
        if (!(*list)[i].is_object()) {
            diags.atPointer(file, pointer, "expected an object {gpu, precision, efficiency}");
            continue;
        }
        FieldReader f((*list)[i], file, pointer, diags);
        GemmEfficiency e;
        std::string precision;
        f.readString("gpu", e.gpu, Need::Required);
        if (f.readWord("precision", precision, enumWords<Precision>(), Need::Required) &&
            !precision.empty())
            e.precision = *enumFromString<Precision>(precision);
        f.readNumber("efficiency", e.efficiency, 1e-3, 1, Need::Required);
        f.reportUnknownKeys();
        out.push_back(e);
    }
}

// The shared constants, each with the range a calibration file may give it.
struct Constant {
    const char* key;
    double Calibration::*field;
    double min;
    double max;
};
constexpr Constant kConstants[] = {
    {"default_gemm_efficiency", &Calibration::defaultGemmEfficiency, 0.01, 1},
    {"bf16_over_fp8", &Calibration::bf16OverFp8, 0.1, 4},
    {"grouped_2026_factor", &Calibration::grouped2026Factor, 0.1, 4},
    {"grouped_efficiency", &Calibration::groupedEfficiency, 0.01, 1},
    {"gemm_half_width", &Calibration::gemmHalfWidth, 0, 1e5},
    {"attention_efficiency", &Calibration::attentionEfficiency, 0.01, 1},
    {"memory_efficiency", &Calibration::memoryEfficiency, 0.01, 1},
    {"nvlink_efficiency", &Calibration::nvlinkEfficiency, 0.01, 1},
    {"scale_out_efficiency", &Calibration::scaleOutEfficiency, 0.01, 1},
    {"all_to_all_efficiency", &Calibration::allToAllEfficiency, 0.01, 1},
    {"tp_overlap", &Calibration::tpOverlap, 0, 1},
    {"ep_overlap", &Calibration::epOverlap, 0, 1},
    {"dp_contention", &Calibration::dpContention, 0, 2},
    {"layer_host_us", &Calibration::layerHostUs, 0, 1e5},
    {"moe_layer_host_us", &Calibration::moeLayerHostUs, 0, 1e5},
    {"expert_host_us", &Calibration::expertHostUs, 0, 1e5},
    {"expert_kernel_us", &Calibration::expertKernelUs, 0, 1e4},
    {"a2a_overlap_host_us", &Calibration::a2aOverlapHostUs, 0, 1e5},
    {"framework_memory_gib", &Calibration::frameworkMemoryGiB, 0, 1024},
};

// A run's `true` or `false` extension; nothing when absent or of another type.
std::optional<bool> switchOf(const RunDesc& run, const char* key)
{
    const json& ext = run.extensions.value();
    if (const auto it = ext.find(key); it != ext.end() && it->is_boolean())
        return it->get<bool>();
    return std::nullopt;
}

} // namespace

Framework frameworkOf(const RunDesc& run, const GpuSpec& gpu)
{
    const json& ext = run.extensions.value();
    if (const auto it = ext.find(kFrameworkKey); it != ext.end() && it->is_string())
        if (const auto f = enumFromString<Framework>(it->get<std::string>()))
            return *f;
    return gpu.name == "A100" && !run.parallelism.distributedOptimizer
               ? Framework::Megatron2021
               : Framework::MegatronCore2026;
}

bool fullIterationRecipe(const RunDesc& run, const GpuSpec& gpu, Framework framework)
{
    return run.precision == Precision::FP8 && gpu.peakTflopsNvfp4 > 0 &&
           framework == Framework::MegatronCore2026;
}

namespace {

// A recipe switch: the run's `key` when it says, else what the full-iteration recipes set.
bool recipeSwitchOf(const RunDesc& run, const GpuSpec& gpu, Framework framework, const char* key)
{
    return switchOf(run, key).value_or(fullIterationRecipe(run, gpu, framework));
}

} // namespace

bool allToAllOverlapOf(const RunDesc& run, const GpuSpec& gpu, Framework framework)
{
    return framework != Framework::Megatron2021 &&
           recipeSwitchOf(run, gpu, framework, kAllToAllOverlapKey);
}

bool fp8AttentionOf(const RunDesc& run, const GpuSpec& gpu, Framework framework)
{
    if (run.precision == Precision::BF16 || gpu.peakTflopsFp8 <= 0)
        return false;
    return recipeSwitchOf(run, gpu, framework, kFp8AttentionKey);
}

bool fp8BlockScalingOf(const RunDesc& run, const GpuSpec& gpu, Framework framework)
{
    if (run.precision != Precision::FP8 || gpu.peakTflopsNvfp4 <= 0)
        return false;
    return recipeSwitchOf(run, gpu, framework, kFp8BlockScalingKey);
}

bool fp8OutputProjOf(const RunDesc& run, const GpuSpec& gpu, Framework framework)
{
    return fp8BlockScalingOf(run, gpu, framework) &&
           switchOf(run, kFp8OutputProjKey).value_or(false);
}

bool nvlsOf(const RunDesc& run, const GpuSpec& gpu, Framework)
{
    constexpr double kNvlink4GBps = 900; // per GPU, both directions: NVSwitch 3, which reduces
    return gpu.nvlinkGBps >= kNvlink4GBps && switchOf(run, kNvlsKey).value_or(false);
}

bool tpCommOverlapOf(const RunDesc& run, const GpuSpec&, Framework framework)
{
    if (framework == Framework::Megatron2021)
        return false;
    return switchOf(run, kTpCommOverlapKey).value_or(run.precision != Precision::NVFP4);
}

bool biasedLinearsOf(const RunDesc& run, const GpuSpec&, Framework)
{
    return switchOf(run, kBiasLinearKey).value_or(false);
}

bool gluClampOf(const RunDesc& run, const GpuSpec&, Framework)
{
    return switchOf(run, kGluClampKey).value_or(false);
}

bool unfusedRopeOf(const RunDesc& run, const GpuSpec&, Framework)
{
    return switchOf(run, kUnfusedRopeKey).value_or(false);
}

bool teCrossEntropyOf(const RunDesc& run, const GpuSpec&, Framework)
{
    return switchOf(run, kTeCrossEntropyKey).value_or(false);
}

bool overlapGradReduceOf(const RunDesc& run, const GpuSpec&, Framework framework)
{
    return switchOf(run, kOverlapGradReduceKey).value_or(framework != Framework::Megatron2021);
}

bool flexDispatcherOf(const RunDesc& run, const GpuSpec& gpu, Framework framework)
{
    return framework != Framework::Megatron2021 &&
           recipeSwitchOf(run, gpu, framework, kFlexDispatcherKey);
}

bool routerGraphOf(const RunDesc& run, const GpuSpec&, Framework)
{
    return switchOf(run, kRouterGraphKey).value_or(false);
}

bool attentionGraphOf(const RunDesc& run, const GpuSpec&, Framework)
{
    return switchOf(run, kAttentionGraphKey).value_or(false);
}

int activationOffloadLayersOf(const RunDesc& run)
{
    const json& ext = run.extensions.value();
    if (const auto it = ext.find(kActivationOffloadKey);
        it != ext.end() && it->is_number_integer() && it->get<int64_t>() > 0)
        return int(std::min<int64_t>(it->get<int64_t>(), std::numeric_limits<int>::max()));
    return 0;
}

std::optional<RouterGroups> routerGroupsOf(const RunDesc& run)
{
    const json& ext = run.extensions.value();
    const auto whole = [&](const char* key) -> std::optional<int64_t> {
        const auto it = ext.find(key);
        if (it == ext.end() || !it->is_number_integer())
            return std::nullopt;
        return it->get<int64_t>();
    };
    const auto groups = whole(kRouterGroupsKey), topK = whole(kRouterGroupTopKKey);
    const int experts = run.model.moe ? run.model.moe->experts : 0;
    if (!groups || !topK || *topK < 1 || *topK >= *groups || *groups > experts ||
        experts % *groups != 0)
        return std::nullopt;
    return RouterGroups{int(*groups), int(*topK)};
}

namespace {

// The share of a GPU's NVFP4 peak that shows in the training GEMMs as FP8's efficiency sees
// it. Blackwell's FP4 MMA does twice the work of its FP8 one an instruction (GB200: 9,800 and
// 4,900 TFLOP/s). Blackwell Ultra's peak is three times its FP8 one, the half more from an
// FP4 MMA of its own (96 FP4 values of the inner dimension an instruction, sm_103 only, where
// Blackwell's takes 64: ThunderKittens PR 201). The measured recipes do not show that half:
// GB300 runs their NVFP4 steps as much faster than GB200 as their FP8 ones (docs/cost-model.md,
// "NVFP4 on Blackwell Ultra").
double nvfp4ShownOfPeak(const GpuSpec& gpu)
{
    constexpr double kFp4MmaOverFp8 = 2;
    if (gpu.peakTflopsNvfp4 <= 0)
        return 1;
    return std::min(1.0, kFp4MmaOverFp8 * gpu.peakTflopsFp8 / gpu.peakTflopsNvfp4);
}

} // namespace

double Calibration::gemmEfficiency(const GpuSpec& gpu, Precision p) const
{
    const double measured = efficiencyOf(gemm, gpu, p);
    if (measured > 0)
        return measured;
    // Another precision of the same tensor cores: NVFP4 reaches the fraction FP8 reaches of
    // the part of its peak that shows, BF16 FP8's times bf16OverFp8.
    const double fp8 = p == Precision::FP8 ? -1 : efficiencyOf(gemm, gpu, Precision::FP8);
    if (fp8 > 0)
        return p == Precision::BF16 ? std::min(0.95, fp8 * bf16OverFp8)
                                    : fp8 * nvfp4ShownOfPeak(gpu);
    return defaultGemmEfficiency;
}

double Calibration::groupedGemmEfficiency(const GpuSpec& gpu, Precision p) const
{
    const double measured = efficiencyOf(grouped, gpu, p);
    return measured > 0 ? measured : gemmEfficiency(gpu, p) * groupedEfficiency;
}

json toJson(const Calibration& c)
{
    json j = {{"format", kCalibrationFormat},
              {"gemm", tableJson(c.gemm)},
              {"grouped_gemm", tableJson(c.grouped)}};
    for (const Constant& k : kConstants)
        j[k.key] = c.*k.field;
    return j;
}

std::optional<Calibration> calibrationFromJson(const json& j, const std::string& file,
                                               Diagnostics& diags)
{
    if (!j.is_object()) {
        diags.atPointer(file, "", "expected a calibration object, got " + jsonTypeName(j));
        return std::nullopt;
    }
    const size_t before = diags.size();
    Calibration c = defaultCalibration();
    FieldReader top(j, file, "", diags);
    std::string format;
    if (top.readString("format", format, Need::Required) && format != kCalibrationFormat)
        top.error("format",
                  std::string("must be \"") + kCalibrationFormat + "\", got " + inQuotes(format));
    readTable(top, "gemm", c.gemm, file, diags);
    readTable(top, "grouped_gemm", c.grouped, file, diags);
    for (const Constant& k : kConstants)
        top.readNumber(k.key, c.*k.field, k.min, k.max, Need::Optional);
    top.reportUnknownKeys();
    if (diags.size() != before)
        return std::nullopt;
    return c;
}

std::optional<Calibration> readCalibration(const std::string& path, Diagnostics& diags)
{
    const std::optional<std::string> text = readFileText(path, diags);
    if (!text)
        return std::nullopt;
    const std::optional<json> j = parseJson(*text, path, diags);
    if (!j)
        return std::nullopt;
    return calibrationFromJson(*j, path, diags);
}

const Calibration& defaultCalibration()
{
    // The output of `clusterscope-cli calibrate` on the public measured runs (docs/cost-model.md,
    // "Calibration"); test_calibration refits and compares.
    static const Calibration c{
        .gemm =
            {
                {"Blackwell", Precision::BF16, 0.645961},
                {"Blackwell", Precision::FP8, 0.446986},
                {"Blackwell Ultra", Precision::FP8, 0.641005},
                {"Hopper", Precision::BF16, 0.842359},
                {"Hopper", Precision::FP8, 0.58101},
            },
        .grouped = {},
        .defaultGemmEfficiency = 0.641005,
        .bf16OverFp8 = 1.41,
        .groupedEfficiency = 0.574192,
        .grouped2026Factor = 1.20897,
        .gemmHalfWidth = 1559.73,
        .attentionEfficiency = 0.681278,
        .memoryEfficiency = 0.642309,
        .nvlinkEfficiency = 0.8,
        .scaleOutEfficiency = 0.864341,
        .allToAllEfficiency = 0.884364,
        .tpOverlap = 0.86546,
        .epOverlap = 0.931142,
        .dpContention = 0.127361,
        .layerHostUs = 0,
        .moeLayerHostUs = 5174.69,
        .expertHostUs = 186.098,
        .expertKernelUs = 12.442,
        .a2aOverlapHostUs = 4714.58,
        .frameworkMemoryGiB = 4,
    };
    return c;
}

} // namespace cs
